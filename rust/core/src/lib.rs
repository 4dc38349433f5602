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
//! * [`predicates`]: exact geometric predicates on doubles (signs of affine forms,
//!   orientations), filtered in floating point with an exact big-integer fallback.
//! * [`linear`]: the data layout of linear predictors and the exact 0-1 mistakes of
//!   halfspaces (fused, vectorised), shared by [`dichotomy`] and [`erm`].
//! * [`mechanisms`]: Laplace, Gaussian, randomized response, noisy max, permute-and-flip,
//!   stable selection and the sparse vector technique.
//! * [`tardos`]: fingerprinting codes (Tardos, symmetric Tardos, robust Boneh–Shaw), pirate
//!   strategies and tracing.
//! * [`dichotomy`]: the distinct labelings a hypothesis class induces on a point set, with
//!   representatives, exact scoring and empirical-risk minimisation.
//! * [`erm`]: private ERM by the exponential mechanism (seed 000): fused risk kernels, the exact
//!   threshold sampler, a MALA Gibbs sampler, random subsets.
//! * [`multi`]: simultaneous private learning of many concepts (seed 002): `SearchParities`,
//!   the stability histogram, `LearnPoints`, and mistake counts for many label columns.
//! * [`prediction`]: stable and private prediction (seed 003): the subset-cover exponential
//!   mechanism of Theorem 1, its private versions (Corollary 1, Theorem 2) and private votes.
//! * [`query_release`]: ensemble votes, hypothesis scoring and index sampling for private
//!   classification-query release (seed 004).
//! * [`accounting`]: discretised privacy-loss distributions (connect-the-dots, FFT
//!   composition with an error bound), the fast path of `privlearn.accounting`'s PLD accounting.
//! * [`suffstats`]: the exact integer Gram matrix of clipped regression rows (the sufficient
//!   statistics of `privlearn.learners._suffstats`), bit for bit independent of blocking.
//! * [`error`]: the crate's error type.

pub mod accounting;
pub mod dichotomy;
pub mod erm;
pub mod error;
pub mod exact;
pub mod expmech;
pub mod gf2;
pub mod grid;
pub mod linear;
pub mod mechanisms;
pub mod multi;
pub mod noise;
pub mod predicates;
pub mod prediction;
pub mod query_release;
pub mod rng;
pub mod suffstats;
pub mod tardos;
#[cfg(test)]
mod testing;
pub mod vmath;

pub use error::{Error, Result};
pub use rng::Rng;
