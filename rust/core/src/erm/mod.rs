//! Private learning by the exponential mechanism over (penalized) empirical risk (Wang, Lei and
//! Fienberg, "Learning with differential privacy: stability, learnability and the sufficiency
//! and necessity of ERM principle", JMLR 17, 2016, Algorithm 1): the hot paths.
//!
//! * [`risk`]: the empirical risk of every candidate of an explicit set of linear predictors
//!   (or thresholds) on a dataset, fused and parallel over candidates, with each loss clipped to
//!   its declared bound `[0, B]` and **quantised to a fixed-point integer per record**, so that
//!   the candidate's total is an exact integer sum (see [`Quantizer`]).
//! * [`threshold`]: the exact sampler of the exponential mechanism over thresholds on an
//!   interval with the 0-1 loss (a piecewise-constant risk): the pieces, then a point within one.
//! * [`gibbs`]: a Metropolis-adjusted Langevin (MALA) sampler of the Gibbs density
//!   `exp(-beta F)` over a ball, for convex objectives (Proposition 26). Approximate: it gives
//!   no differential-privacy guarantee by itself (ERRATA A7).
//!
//! ## Why integers
//!
//! The exponential mechanism's guarantee needs every score to move by at most the sensitivity
//! `Δ` when one record is replaced. A floating-point sum of `n` losses does not quite have that
//! property (its rounding error depends on all the records). Here each record's clipped loss
//! `l in [0, B]` becomes the integer `q = round(l Q / B) in [0, Q]` (`Q = 2^k`, a deterministic
//! function of that record and the candidate alone), and the candidate's score is the exact
//! integer `-sum_i q_i`: replacing one record changes it by at most `Q`, exactly. The exact
//! integer path of the exponential mechanism then samples with sensitivity `Q` ("tight",
//! `B / n` in risk units) or `2Q` (the paper's `2B / n`), with no rounding anywhere. The
//! quantisation moves each record's loss by at most `B / (2Q)`, so the empirical risk by at
//! most `B 2^-(k+1)` (`2^-33 B` for the default `k = 32`).

pub mod gibbs;
pub mod risk;
pub mod threshold;

use crate::error::{Error, Result};

/// A loss of a real-valued predictor `p = w . x + b` on a labelled record.
///
/// Classification labels are `0` or `1` (read as `s = 2y - 1 in {-1, +1}` by the margin
/// losses); regression labels are real.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    /// `1[1[p >= 0] != y]`, the sign decided exactly (a filtered exact predicate).
    ZeroOne,
    /// `max(0, 1 - s p)`.
    Hinge,
    /// `ln(1 + exp(-s p))`.
    Logistic,
    /// `(p - y)^2`.
    Squared,
}

impl std::str::FromStr for Loss {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "zero_one" => Ok(Loss::ZeroOne),
            "hinge" => Ok(Loss::Hinge),
            "logistic" => Ok(Loss::Logistic),
            "squared" => Ok(Loss::Squared),
            other => Err(Error::invalid(
                "loss",
                format!("must be 'zero_one', 'hinge', 'logistic' or 'squared', got {other:?}"),
            )),
        }
    }
}

impl Loss {
    /// The loss of prediction `p` on label `y` (not clipped). NaN only for a NaN `p`.
    #[inline]
    pub fn value(self, p: f64, y: f64) -> f64 {
        match self {
            Loss::ZeroOne => f64::from(u8::from((p >= 0.0) != (y > 0.5))),
            Loss::Hinge => {
                let s = if y > 0.5 { 1.0 } else { -1.0 };
                (1.0 - s * p).max(0.0)
            }
            Loss::Logistic => {
                let z = if y > 0.5 { -p } else { p };
                // ln(1 + e^z), stably.
                if z > 0.0 {
                    z + (-z).exp().ln_1p()
                } else {
                    z.exp().ln_1p()
                }
            }
            Loss::Squared => {
                let r = p - y;
                r * r
            }
        }
    }

    /// The derivative of the loss with respect to `p` (a subgradient for the hinge; 0 for the
    /// 0-1 loss).
    #[inline]
    pub fn derivative(self, p: f64, y: f64) -> f64 {
        match self {
            Loss::ZeroOne => 0.0,
            Loss::Hinge => {
                let s = if y > 0.5 { 1.0 } else { -1.0 };
                if 1.0 - s * p > 0.0 { -s } else { 0.0 }
            }
            Loss::Logistic => {
                let s = if y > 0.5 { 1.0 } else { -1.0 };
                // d/dp ln(1 + e^{-s p}) = -s / (1 + e^{s p})
                let z = s * p;
                let sig = if z >= 0.0 {
                    let e = (-z).exp();
                    e / (1.0 + e)
                } else {
                    1.0 / (1.0 + z.exp())
                };
                -s * sig
            }
            Loss::Squared => 2.0 * (p - y),
        }
    }
}

/// Fixed-point quantisation of losses clipped to `[0, bound]`: `q = round(min(max(l, 0), B) Q /
/// B)` with `Q = 2^frac_bits`, an integer in `[0, Q]`. A NaN loss counts as `B` (the worst
/// case), so every record contributes a value in `[0, Q]` whatever happens in floating point.
#[derive(Clone, Copy, Debug)]
pub struct Quantizer {
    bound: f64,
    q: u64,
}

/// Largest number of fractional bits.
pub const MAX_FRAC_BITS: u32 = 40;

impl Quantizer {
    /// A quantiser for losses in `[0, bound]` with `2^frac_bits` steps.
    ///
    /// Errors: `bound` not finite and `> 0`; `frac_bits > 40`.
    pub fn new(bound: f64, frac_bits: u32) -> Result<Self> {
        if !(bound.is_finite() && bound > 0.0) {
            return Err(Error::invalid(
                "loss_bound",
                format!("must be a finite number > 0, got {bound}"),
            ));
        }
        if frac_bits > MAX_FRAC_BITS {
            return Err(Error::invalid(
                "frac_bits",
                format!("must be at most {MAX_FRAC_BITS}, got {frac_bits}"),
            ));
        }
        let q = 1u64 << frac_bits;
        Ok(Quantizer { bound, q })
    }

    /// `Q`, the quantised value of a loss equal to the bound.
    pub fn steps(&self) -> u64 {
        self.q
    }

    /// The declared bound `B`.
    pub fn bound(&self) -> f64 {
        self.bound
    }

    /// The integer of one record's loss.
    #[inline]
    pub fn quantize(&self, loss: f64) -> u64 {
        if loss.is_nan() {
            return self.q;
        }
        // clipped / bound is at most 1 (a correctly rounded quotient of c <= b); the product
        // with the power of two Q is exact.
        let ratio = loss.clamp(0.0, self.bound) / self.bound;
        ((ratio * self.q as f64).round_ties_even() as u64).min(self.q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_match_their_formulas() {
        let cases = [
            (0.3, 1.0),
            (-0.7, 1.0),
            (2.0, 0.0),
            (-40.0, 0.0),
            (800.0, 0.0),
        ];
        for &(p, y) in &cases {
            let s: f64 = if y > 0.5 { 1.0 } else { -1.0 };
            assert_eq!(Loss::Hinge.value(p, y), (1.0 - s * p).max(0.0));
            let want = (1.0 + (-s * p).exp()).ln();
            let got = Loss::Logistic.value(p, y);
            assert!(
                (got - want).abs() <= 1e-12 * want.max(1.0),
                "{p} {y}: {got} {want}"
            );
            assert_eq!(Loss::Squared.value(p, y), (p - y) * (p - y));
            assert_eq!(
                Loss::ZeroOne.value(p, y),
                if (p >= 0.0) == (y > 0.5) { 0.0 } else { 1.0 }
            );
        }
        // Derivatives against central differences.
        for loss in [Loss::Logistic, Loss::Squared] {
            for &(p, y) in &cases[..3] {
                let h = 1e-6;
                let fd = (loss.value(p + h, y) - loss.value(p - h, y)) / (2.0 * h);
                assert!(
                    (loss.derivative(p, y) - fd).abs() < 1e-5,
                    "{loss:?} {p} {y}"
                );
            }
        }
        assert_eq!(Loss::Hinge.derivative(0.5, 1.0), -1.0);
        assert_eq!(Loss::Hinge.derivative(1.5, 1.0), 0.0);
        assert_eq!(Loss::Hinge.derivative(-0.5, 0.0), 1.0);
    }

    #[test]
    fn quantizer_is_clipped_and_rounded() {
        let q = Quantizer::new(2.0, 10).unwrap();
        assert_eq!(q.steps(), 1024);
        assert_eq!(q.quantize(-1.0), 0);
        assert_eq!(q.quantize(0.0), 0);
        assert_eq!(q.quantize(1.0), 512);
        assert_eq!(q.quantize(2.0), 1024);
        assert_eq!(q.quantize(1e300), 1024);
        assert_eq!(q.quantize(f64::INFINITY), 1024);
        assert_eq!(q.quantize(f64::NAN), 1024);
        assert_eq!(q.quantize(1.0 + 1.0 / 2048.0), 512); // ties to even
        assert!(Quantizer::new(0.0, 10).is_err());
        assert!(Quantizer::new(f64::INFINITY, 10).is_err());
        assert!(Quantizer::new(1.0, 41).is_err());
        // Awkward bounds still give exactly Q at the bound.
        for b in [0.1, 1.0 / 3.0, 7.77, 1e-300, 1e300] {
            let q = Quantizer::new(b, 32).unwrap();
            assert_eq!(q.quantize(b), 1 << 32);
        }
    }
}
