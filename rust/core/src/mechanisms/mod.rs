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
use crate::noise::{self, RATIO_MAX, Ratio};
use crate::rng::Rng;

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

/// `values` plus exact discrete Laplace noise `P(Z = z) ∝ exp(-|z| / scale)`, one independent
/// draw per value in order ([`noise::discrete_laplace`]).
///
/// **Privacy:** for an integer query of L1 sensitivity `Δ` (replace-one) and `scale >= Δ/ε`
/// the result is `ε`-DP (Canonne, Kamath and Steinke, NeurIPS 2020, Section 2.2; the discrete
/// analogue of Dwork and Roth, Theorem 3.6). The caller calibrates `scale`.
///
/// # Errors
/// [`Error::InvalidParameter`] if a noisy value overflows an `i64` (the draws made so far are
/// spent).
pub fn discrete_laplace_integers(values: &[i64], scale: Ratio, rng: &mut Rng) -> Result<Vec<i64>> {
    add_integer_noise(values, || noise::discrete_laplace(rng, scale))
}

/// `values` plus exact discrete Gaussian noise `P(Z = z) ∝ exp(-z² / (2σ²))` with
/// `σ² = sigma2.0 / sigma2.1`, one independent draw per value in order
/// ([`noise::discrete_gaussian`]).
///
/// **Privacy:** for an integer query of L2 sensitivity `Δ` (replace-one) the result is
/// `Δ²/(2σ²)`-zCDP (Canonne, Kamath and Steinke, NeurIPS 2020, Theorem 4). The caller
/// calibrates `σ²`.
///
/// # Errors
/// [`Error::InvalidParameter`] if a noisy value overflows an `i64`.
pub fn discrete_gaussian_integers(
    values: &[i64],
    sigma2: (u128, u128),
    rng: &mut Rng,
) -> Result<Vec<i64>> {
    add_integer_noise(values, || noise::discrete_gaussian(rng, sigma2.0, sigma2.1))
}

fn add_integer_noise(values: &[i64], mut draw: impl FnMut() -> i128) -> Result<Vec<i64>> {
    values
        .iter()
        .map(|&v| {
            i64::try_from(i128::from(v) + draw())
                .map_err(|_| Error::invalid("value", "plus the noise overflows a 64-bit integer"))
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_noise_is_one_draw_per_value_in_order() {
        let values: Vec<i64> = (-20..20).collect();
        let scale = Ratio::new(37, 10);
        let mut r1 = Rng::from_seed(4);
        let got = discrete_laplace_integers(&values, scale, &mut r1).unwrap();
        let mut r2 = Rng::from_seed(4);
        let want: Vec<i64> = values
            .iter()
            .map(|&v| v + noise::discrete_laplace(&mut r2, scale) as i64)
            .collect();
        assert_eq!(got, want);
        let got = discrete_gaussian_integers(&values, (23, 4), &mut r1).unwrap();
        let want: Vec<i64> = values
            .iter()
            .map(|&v| v + noise::discrete_gaussian(&mut r2, 23, 4) as i64)
            .collect();
        assert_eq!(got, want);
        // Overflow is an error, not a wrap.
        let big = Ratio::new(1 << 60, 1);
        let r = discrete_laplace_integers(&[i64::MAX; 64], big, &mut r1);
        assert!(r.is_err());
    }
}
