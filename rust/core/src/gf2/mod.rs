//! Dense linear algebra over GF(2) on bit-packed matrices.
//!
//! [`Matrix`] stores rows as little-endian `u64` words, LSB-first (column `j` of a row is bit
//! `j % 64` of word `j / 64`), with zero padding bits: the project-wide bit-packing convention.
//!
//! Operations:
//! * [`Matrix::rref`] (reduced row echelon form, in place, returning the pivot columns) and
//!   [`Matrix::rank`];
//! * [`Matrix::mul`] (product);
//! * [`Matrix::solve`] (one or many right-hand sides; `None` when inconsistent),
//!   [`Matrix::nullspace`] (a basis of `{x : A x = 0}` as columns), [`Matrix::inverse`]
//!   (`None` when singular) and [`learn_parity`] (a parity consistent with labelled examples).
//!
//! The entries are exact: there is no rounding over GF(2), and every function returns the same
//! result for the same input.

mod basis;
pub(crate) mod elim;
mod kernel;
mod matrix;
mod ops;
pub mod reference;

pub use matrix::Matrix;
pub(crate) use matrix::advise_huge_pages;
pub use ops::learn_parity;
