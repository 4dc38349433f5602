//! Privacy accounting that needs the speed of Rust: discretised privacy-loss distributions.
//!
//! * [`pld`]: the [`Pld`] type: a privacy-loss distribution on a grid `i * h`, built from upper
//!   bounds of a hockey-stick curve by connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar and
//!   Manurangsi, PETS 2022), composed by FFT with an explicit error bound, with exact
//!   `delta(epsilon)` and `epsilon(delta)` read-outs rounded to the safe side.
//!
//! * [`pld_build`]: closed-form constructors for many mechanisms at once (randomized response,
//!   pure and approximate DP, Laplace), so that composing many distinct mechanisms needs no
//!   per-grid-point work in Python.
//!
//! The other mechanism-specific formulas (Gaussian, subsampled mechanisms...) live in Python
//! (`privlearn.accounting._pld`), which evaluates the curves on the grid and hands them here.

pub mod pld;
pub mod pld_build;

pub use pld::Pld;
