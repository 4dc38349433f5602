//! Differentially private mechanisms built on the exact samplers of [`crate::noise`] and
//! [`crate::exact`].
//!
//! Each mechanism states its guarantee (replace-one neighbours, public dataset size) and source.
//! The default numerics are exact (DESIGN principle 3): real inputs are rounded to a power-of-two
//! grid ([`crate::grid`]), the sensitivity is widened by the rounding, and integer noise is
//! sampled exactly, so the stated guarantee holds exactly for the released doubles. The `fast`
//! variants use plain floating-point noise and are documented as not floating-point safe.

pub mod gaussian;
pub mod laplace;
pub mod response;
pub mod select;
pub mod svt;

use num_bigint::BigUint;

use crate::error::{Error, Result};
use crate::grid::decompose;
use crate::noise::{RATIO_MAX, Ratio};

/// Fractional bits kept by [`ceil_scale`].
const SCALE_FRAC_BITS: u32 = 30;

/// `x / epsilon` rounded *up* to a multiple of `2^-30`, as a [`Ratio`], for an integer `x > 0`
/// and a finite `epsilon > 0`. Rounding a noise scale up can only add privacy.
pub(crate) fn ceil_scale(x: u128, epsilon: f64) -> Result<Ratio> {
    let (m, e) = decompose(epsilon);
    // x / eps * 2^F = x * 2^(F - e) / m
    let shift = i64::from(SCALE_FRAC_BITS) - i64::from(e);
    let (num, den) = if shift >= 0 {
        (BigUint::from(x) << shift as u64, BigUint::from(m))
    } else {
        (BigUint::from(x), BigUint::from(m) << (-shift) as u64)
    };
    let q = (&num + &den - 1u32) / &den;
    match u128::try_from(&q) {
        Ok(q) if q > 0 && q <= RATIO_MAX => Ok(Ratio::new(q, 1u128 << SCALE_FRAC_BITS)),
        _ => Err(Error::invalid(
            "epsilon",
            format!(
                "is too small for the exact sampler at this sensitivity (the noise scale would exceed 2^70 grid steps), got {epsilon:e}"
            ),
        )),
    }
}

/// Checks that every value is finite.
pub(crate) fn check_finite(values: &[f64], name: &'static str) -> Result<()> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::invalid(name, "must be finite (no NaN or infinity)"))
    }
}

/// Checks `0 < delta < 1`.
pub(crate) fn check_delta_open(delta: f64) -> Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            "delta",
            format!("must lie in (0, 1), got {delta}"),
        ))
    }
}
