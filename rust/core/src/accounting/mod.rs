//! Privacy accounting that needs the speed of Rust: discretised privacy-loss distributions.
//!
//! * [`pld`]: the [`Pld`] type: a privacy-loss distribution on a grid `i * h`, built from upper
//!   bounds of a hockey-stick curve by connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar and
//!   Manurangsi, PETS 2022), composed by FFT with an explicit error bound, with exact
//!   `delta(epsilon)` and `epsilon(delta)` read-outs rounded to the safe side.
//!
//! The mechanism-specific formulas (Gaussian, Laplace, subsampled mechanisms...) live in Python
//! (`privlearn.accounting._pld`), which evaluates the curves on the grid and hands them here.

pub mod pld;

pub use pld::Pld;
