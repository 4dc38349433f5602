//! The exponential mechanism (McSherry and Talwar, FOCS 2007).
//!
//! Given scores `u_1..u_n` of candidates whose utility has sensitivity `Δ` under the replacement
//! of one record, it returns index `i` with probability proportional to
//! `exp(ε u_i / (2Δ))`, which is `ε`-differentially private (pure DP, replace-one neighbours).
//! Scores of `-inf` mark candidates that are never chosen (they must be `-inf` on every dataset).
//!
//! Two numerics (DESIGN principle 3):
//!
//! * [`Numerics::Exact`] (default): floating-point safe. See [`exact`] for the construction. In
//!   short, scores are put on a grid, grouped by utility level, and the level is drawn with exact
//!   arithmetic (Canonne–Kamath–Steinke Bernoulli(e^-x) draws and rigorous interval bounds), so
//!   no rounding error can change an output probability. The privacy guarantee is exactly
//!   `ε`-DP for the stated sensitivity.
//! * [`Numerics::Fast`]: the plain float algorithm (one fused pass of log-sum-exp, then inverse
//!   CDF with a 53-bit uniform). Its output distribution deviates from the ideal one by float
//!   rounding; Ilvento (CCS 2020) shows such deviations can break the guarantee. Opt in only where
//!   that is acceptable.

pub mod exact;
pub mod fast;

use crate::error::{Error, Result, check_epsilon, check_sensitivity};
use crate::rng::Rng;

/// Which arithmetic a sampler uses (DESIGN principle 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Numerics {
    /// Floating-point safe: exact or rigorously bounded arithmetic (the default).
    #[default]
    Exact,
    /// Plain floating-point arithmetic: faster, not floating-point safe.
    Fast,
}

impl std::str::FromStr for Numerics {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "exact" => Ok(Numerics::Exact),
            "fast" => Ok(Numerics::Fast),
            other => Err(Error::invalid(
                "numerics",
                format!("must be 'exact' or 'fast', got {other:?}"),
            )),
        }
    }
}

/// Scores of candidates: real or integer valued.
#[derive(Clone, Copy, Debug)]
pub enum Scores<'a> {
    /// Real-valued scores: the exact path puts them on a fine grid.
    Real(&'a [f64]),
    /// Integer-valued scores: the exact path uses them as they are.
    Int(&'a [i64]),
}

impl Scores<'_> {
    fn len(&self) -> usize {
        match self {
            Scores::Real(s) => s.len(),
            Scores::Int(s) => s.len(),
        }
    }
}

/// `size` independent draws of the exponential mechanism from the same scores.
///
/// Each draw returns `i` with probability proportional to
/// `exp(epsilon * scores[i] / (2 * sensitivity))`; each is an `epsilon`-DP release, so together
/// they are `size * epsilon`-DP (basic composition). The scores are validated and grouped once,
/// then each draw costs little more than its random bits.
///
/// Errors (checked before any random bit is drawn): empty `scores`; any NaN or `+inf`; all
/// scores `-inf`; `epsilon` or `sensitivity` not finite and `> 0`.
pub fn exponential_draws(
    scores: Scores<'_>,
    epsilon: f64,
    sensitivity: f64,
    numerics: Numerics,
    size: usize,
    rng: &mut Rng,
) -> Result<Vec<usize>> {
    check_epsilon(epsilon, "epsilon")?;
    check_sensitivity(sensitivity)?;
    if scores.len() == 0 {
        return Err(Error::invalid(
            "scores",
            "must hold at least one candidate, got none",
        ));
    }
    match (numerics, scores) {
        (Numerics::Exact, Scores::Real(s)) => exact::sample_f64(s, epsilon, sensitivity, size, rng),
        (Numerics::Exact, Scores::Int(s)) => exact::sample_i64(s, epsilon, sensitivity, size, rng),
        (Numerics::Fast, Scores::Real(s)) => {
            fast::sample(s, epsilon / (2.0 * sensitivity), size, rng)
        }
        (Numerics::Fast, Scores::Int(s)) => {
            let as_f64: Vec<f64> = s.iter().map(|&v| v as f64).collect();
            fast::sample(&as_f64, epsilon / (2.0 * sensitivity), size, rng)
        }
    }
}

/// The exponential mechanism over real-valued scores: one draw of [`exponential_draws`].
///
/// Returns `i` with probability proportional to `exp(epsilon * scores[i] / (2 * sensitivity))`.
pub fn exponential(
    scores: &[f64],
    epsilon: f64,
    sensitivity: f64,
    numerics: Numerics,
    rng: &mut Rng,
) -> Result<usize> {
    Ok(exponential_draws(Scores::Real(scores), epsilon, sensitivity, numerics, 1, rng)?[0])
}

/// The exponential mechanism over integer-valued scores (for example minus a count of
/// mistakes): one draw of [`exponential_draws`]. The exact path uses the integers directly (no
/// grid, no widening of the sensitivity).
pub fn exponential_int(
    scores: &[i64],
    epsilon: f64,
    sensitivity: f64,
    numerics: Numerics,
    rng: &mut Rng,
) -> Result<usize> {
    Ok(exponential_draws(Scores::Int(scores), epsilon, sensitivity, numerics, 1, rng)?[0])
}

/// The exponential mechanism with a base measure (integer scores, exact): returns `i` with
/// probability proportional to `weights[i] * exp(epsilon * scores[i] / (2 * sensitivity))`.
/// `epsilon`-DP when every score moves by at most `sensitivity` and the weights are
/// data-independent. See [`exact::sample_i64_weighted`].
pub fn exponential_weighted(
    scores: &[i64],
    weights: &[u64],
    epsilon: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<usize> {
    exact::sample_i64_weighted(scores, weights, epsilon, sensitivity, rng)
}

/// The error for inputs with no selectable candidate or with NaN / `+inf` scores.
pub(crate) fn bad_scores() -> Error {
    Error::invalid(
        "scores",
        "must be finite or -inf (NaN and +inf are not allowed), with at least one finite score",
    )
}
