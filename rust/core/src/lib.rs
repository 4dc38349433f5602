//! # privlearn-core
//!
//! The pure-Rust algorithms behind the `privlearn` Python package: exact samplers, the
//! exponential mechanism, and the random number generator they share. Nothing here knows about
//! Python; the `privlearn-python` crate wraps these functions.
//!
//! Modules:
//! * [`rng`]: the ChaCha20 generator every sampler draws from.
//! * [`exact`]: exact Bernoulli samplers and rigorous bounds on `e^{-j}` (no floating-point
//!   rounding reaches a privacy-relevant probability).
//! * [`vmath`]: vectorised `exp`/max kernels and log-sum-exp.
//! * [`expmech`]: the exponential mechanism, exact (default) and fast (float) paths.
//! * [`grid`], [`noise`]: power-of-two grids and the exact (and float) noise samplers.
//! * [`gf2`]: bit-packed GF(2) matrices: reduced echelon form, rank, products, solving.
//! * [`mechanisms`]: Laplace, Gaussian, randomized response, noisy max, permute-and-flip,
//!   stable selection and the sparse vector technique.
//! * [`tardos`]: fingerprinting codes (Tardos, symmetric Tardos, robust Boneh–Shaw), pirate
//!   strategies and tracing.
//! * [`dichotomy`]: the distinct labelings a hypothesis class induces on a point set, with
//!   representatives, exact scoring and empirical-risk minimisation.
//! * [`error`]: the crate's error type.

pub mod dichotomy;
pub mod error;
pub mod exact;
pub mod expmech;
pub mod gf2;
pub mod grid;
pub mod mechanisms;
pub mod noise;
pub mod rng;
pub mod tardos;
pub mod vmath;

pub use error::{Error, Result};
pub use rng::Rng;
