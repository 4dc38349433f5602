//! Simultaneous private learning of many concepts (seed 002: Bun, Nissim and Stemmer,
//! "Simultaneous private learning of multiple concepts", ITCS 2016 / JMLR 20(94), 2019).
//!
//! A *k-labelled database* has one row per individual: an example `x_i` and `k` labels
//! `y_{i,1..k}`, one per target concept. Neighbouring databases differ by replacing one whole
//! row (the example and all `k` labels); the number of rows `n` is public. The hot paths of the
//! paper's approximate-DP multi-learners live here:
//!
//! * [`search_parities`]: `SearchParities` (Theorem 3.12), subsample and aggregate with one
//!   GF(2) elimination of `[A_t | B_t]` per subsample for all `k` label columns, then
//!   Smith–Thakurta stable selection of the most frequent vector of parities;
//! * [`stability_histogram`]: the stability-based sanitizer for point functions
//!   (Proposition 2.20) with exact discrete Laplace noise (errata 002-2, 002-3);
//! * [`learn_points`]: `LearnPoints` (Theorem 3.13): the histogram finds the heavy points, then
//!   stable selection releases their label vectors;
//! * [`mistakes_matrix`]: disagreement counts of many hypotheses' predictions with many label
//!   columns (the scores of the per-concept exponential mechanisms of the basic and generic
//!   multi-learners).
//!
//! The stable selection is [`crate::mechanisms::select::stable_argmax`] in the project's safe
//! parametrisation (errata 002-1, 002-2): discrete Laplace noise of scale `2/ε` on the gap between
//! the two best counts and a release threshold `2 + t`, `(ε, δ)`-DP for every `ε`.

mod parities;
mod points;
mod score;

pub use parities::{ParitySearch, search_parities};
pub use points::{PointsOutcome, learn_points, learn_points_noise_scale, stability_histogram};
pub use score::mistakes_matrix;

use crate::error::{Error, Result, check_epsilon};
use crate::mechanisms::{ceil_scale, check_delta_open};

/// Validates `(epsilon, delta)` of an approximate-DP step before any work: `epsilon` finite and
/// `> 0` and small enough for the exact sampler, `0 < delta < 1`.
fn check_budget(epsilon: f64, delta: f64) -> Result<()> {
    check_epsilon(epsilon, "epsilon")?;
    check_delta_open(delta)?;
    // The stable selection's noise scale is 2/ε in count units (4/ε after a split in two).
    ceil_scale(4, epsilon).map(|_| ())
}

/// The two largest run lengths of equal items in `sorted` (indices whose items are equal when
/// `same` says so, equal items adjacent): `(first index of the first longest run, its length,
/// the longest other run's length or 0)`. Ties go to the earlier run. `sorted` is non-empty.
fn top_two_runs(sorted: &[usize], same: impl Fn(usize, usize) -> bool) -> (usize, usize, usize) {
    let (mut best, mut top, mut second) = (sorted[0], 0usize, 0usize);
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len() && same(sorted[end], sorted[start]) {
            end += 1;
        }
        let count = end - start;
        if count > top {
            second = top;
            top = count;
            best = sorted[start];
        } else if count > second {
            second = count;
        }
        start = end;
    }
    (best, top, second)
}

/// The error for a label matrix without columns.
fn no_concepts() -> Error {
    Error::invalid("Y", "must have at least one label column (k >= 1), got 0")
}
