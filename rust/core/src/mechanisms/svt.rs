//! The sparse vector technique: `AboveThreshold` run `c = max_positives` times, each run with
//! budget `ε/c` and fresh threshold noise (Dwork and Roth, "The algorithmic foundations of
//! differential privacy", Algorithms 1 and 2, Theorems 3.23 and 3.25 with basic composition).
//!
//! Each run draws threshold noise `ρ ~ Lap(2Δc/ε)` and, per query, `ν ~ Lap(4Δc/ε)`, and answers
//! "above" iff `q + ν >= T + ρ`; after an "above" it draws a new `ρ`; after `c` of them it halts.
//! Every query may be chosen adaptively. The whole interaction is `ε`-DP (replace-one neighbours,
//! queries of sensitivity `Δ`). Lyu, Su and Li (VLDB 2017) show that several published variants
//! (no query noise, query noise not scaled by `c`, not halting, reusing the threshold noise
//! across runs without the matching analysis) are not private; this is the analysed one.
//!
//! Exactness: queries and threshold are rounded to the grid `2^k Z` (`2^k ≈ Δ 2^-20`), so the
//! rounded queries have sensitivity `Δ_u = floor(Δ/2^k) + 1` grid steps; the noises are discrete
//! Laplace with the scales above in grid units. The proof of Theorem 3.23 (shifting `ρ` by `Δ_u`
//! and `ν` by `2Δ_u`) carries over unchanged to integer noise, and the comparison is exact.

use crate::error::{Error, Result, check_epsilon, check_sensitivity};
use crate::grid::{Grid, floor_log2};
use crate::noise::{Ratio, discrete_laplace};
use crate::rng::Rng;

use super::ceil_scale;

/// The grid and noise scales of a sparse-vector interaction (no draw): the single source of the
/// scales that [`SparseVector`] samples with and that accounting built on it may assume.
#[derive(Clone, Copy, Debug)]
pub struct SparseVectorPlan {
    /// The grid queries and threshold are rounded to (`2^k`, `k = floor(log2 Δ) - 20`).
    pub grid: Grid,
    /// Threshold noise scale in grid units, `2 Δ_u c / ε` rounded up to a multiple of `2^-30`.
    pub rho_scale: Ratio,
    /// Query noise scale in grid units, `4 Δ_u c / ε` rounded up to a multiple of `2^-30`.
    pub nu_scale: Ratio,
}

impl SparseVectorPlan {
    /// The plan for `epsilon`, query `sensitivity` and `max_positives` runs (see the module
    /// documentation).
    pub fn new(epsilon: f64, sensitivity: f64, max_positives: u64) -> Result<Self> {
        check_epsilon(epsilon, "epsilon")?;
        check_sensitivity(sensitivity)?;
        if max_positives == 0 {
            return Err(Error::invalid(
                "max_positives",
                "must be an integer >= 1, got 0",
            ));
        }
        if !(1e-250..=1e250).contains(&sensitivity) {
            return Err(Error::invalid(
                "sensitivity",
                format!("must lie in [1e-250, 1e250], got {sensitivity:e}"),
            ));
        }
        let grid = Grid::new(floor_log2(sensitivity) - 20)?;
        let du = grid.floor_units(sensitivity)? + 1;
        let c = u128::from(max_positives);
        Ok(SparseVectorPlan {
            grid,
            rho_scale: ceil_scale(2 * du * c, epsilon)?,
            nu_scale: ceil_scale(4 * du * c, epsilon)?,
        })
    }

    /// The threshold noise scale in the value's units, rounded up to a double.
    pub fn threshold_scale(&self) -> f64 {
        self.rho_scale.times_pow2_up(self.grid.k())
    }

    /// The query noise scale in the value's units, rounded up to a double.
    pub fn query_scale(&self) -> f64 {
        self.nu_scale.times_pow2_up(self.grid.k())
    }
}

/// State of a sparse-vector interaction.
#[derive(Clone, Debug)]
pub struct SparseVector {
    grid: Grid,
    threshold: f64,
    rho_scale: Ratio,
    nu_scale: Ratio,
    rho: i128,
    max_positives: u64,
    positives: u64,
    answered: u64,
}

impl SparseVector {
    /// Starts an interaction (draws the first threshold noise).
    pub fn new(
        threshold: f64,
        epsilon: f64,
        sensitivity: f64,
        max_positives: u64,
        rng: &mut Rng,
    ) -> Result<Self> {
        check_epsilon(epsilon, "epsilon")?;
        check_sensitivity(sensitivity)?;
        if !threshold.is_finite() {
            return Err(Error::invalid(
                "threshold",
                format!("must be finite, got {threshold}"),
            ));
        }
        let SparseVectorPlan {
            grid,
            rho_scale,
            nu_scale,
        } = SparseVectorPlan::new(epsilon, sensitivity, max_positives)?;
        let rho = discrete_laplace(rng, rho_scale);
        Ok(SparseVector {
            grid,
            threshold: grid.round(threshold),
            rho_scale,
            nu_scale,
            rho,
            max_positives,
            positives: 0,
            answered: 0,
        })
    }

    /// Answers one query: whether its noisy value is above the noisy threshold.
    pub fn query(&mut self, value: f64, rng: &mut Rng) -> Result<bool> {
        if self.halted() {
            return Err(Error::Halted(format!(
                "this SparseVector halted after {} positive answers (max_positives = {}); start a new one with a new budget",
                self.positives, self.max_positives
            )));
        }
        if !value.is_finite() {
            // The query value is private: the message carries no value.
            return Err(Error::invalid(
                "value",
                "must be finite (no NaN or infinity)",
            ));
        }
        let nu = discrete_laplace(rng, self.nu_scale);
        // q + nu >= T + rho  <=>  (q - T) / 2^k >= rho - nu, compared exactly.
        let lhs = self.grid.units_big(self.grid.round(value)) - self.grid.units_big(self.threshold);
        let above = lhs >= num_bigint::BigInt::from(self.rho) - nu;
        self.answered += 1;
        if above {
            self.positives += 1;
            if !self.halted() {
                self.rho = discrete_laplace(rng, self.rho_scale);
            }
        }
        Ok(above)
    }

    /// Answers `values` in order with [`SparseVector::query`] until the interaction halts;
    /// returns the answers given (fewer than `values.len()` if it halted). Each answered query
    /// is part of the same `ε`-DP interaction.
    ///
    /// # Errors
    /// As [`SparseVector::query`] (a non-finite value stops the run there; the answers drawn
    /// before it are spent). On an already halted instance: an empty answer.
    pub fn query_many(&mut self, values: &[f64], rng: &mut Rng) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(values.len());
        for &v in values {
            if self.halted() {
                break;
            }
            out.push(self.query(v, rng)?);
        }
        Ok(out)
    }

    /// Whether the interaction has stopped (it gave `max_positives` positive answers).
    pub fn halted(&self) -> bool {
        self.positives >= self.max_positives
    }

    /// Number of positive answers so far.
    pub fn positives(&self) -> u64 {
        self.positives
    }

    /// Number of queries answered so far.
    pub fn answered(&self) -> u64 {
        self.answered
    }

    /// The largest number of positive answers.
    pub fn max_positives(&self) -> u64 {
        self.max_positives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_far_from_the_threshold_are_right_and_it_halts() {
        let mut rng = Rng::from_seed(1);
        let mut sv = SparseVector::new(10.0, 1.0, 1.0, 2, &mut rng).unwrap();
        assert!(!sv.query(-1000.0, &mut rng).unwrap());
        assert!(sv.query(1000.0, &mut rng).unwrap());
        assert!(!sv.halted());
        assert!(sv.query(5000.0, &mut rng).unwrap());
        assert!(sv.halted());
        assert_eq!(sv.positives(), 2);
        assert!(matches!(sv.query(0.0, &mut rng), Err(Error::Halted(_))));
        assert!(sv.query(f64::NAN, &mut rng).is_err());
        assert!(SparseVector::new(0.0, 1.0, 1.0, 0, &mut rng).is_err());
    }

    #[test]
    fn query_many_is_query_in_order_until_halted() {
        let values = [-50.0, 40.0, 3.0, 60.0, -5.0, 100.0, 7.0];
        let mut r1 = Rng::from_seed(9);
        let mut a = SparseVector::new(0.0, 1.0, 1.0, 2, &mut r1).unwrap();
        let many = a.query_many(&values, &mut r1).unwrap();
        let mut r2 = Rng::from_seed(9);
        let mut b = SparseVector::new(0.0, 1.0, 1.0, 2, &mut r2).unwrap();
        let mut one = Vec::new();
        for &v in &values {
            if b.halted() {
                break;
            }
            one.push(b.query(v, &mut r2).unwrap());
        }
        assert_eq!(many, one);
        assert!(a.halted() && many.len() < values.len());
        assert_eq!(a.query_many(&values, &mut r1).unwrap(), Vec::<bool>::new());
        assert_eq!(r1.next_u64(), r2.next_u64()); // same draws consumed
    }

    #[test]
    fn noise_scales_with_the_number_of_positives() {
        // P(above) for a query exactly at the threshold is 1/2 whatever the scale; far from it,
        // more positives (more noise) answer wrongly more often.
        let mut rng = Rng::from_seed(2);
        let wrong = |c: u64, rng: &mut Rng| {
            (0..4000)
                .filter(|_| {
                    let mut sv = SparseVector::new(0.0, 1.0, 1.0, c, rng).unwrap();
                    !sv.query(8.0, rng).unwrap()
                })
                .count()
        };
        let w1 = wrong(1, &mut rng);
        let w5 = wrong(5, &mut rng);
        assert!(w5 > 2 * w1, "{w1} {w5}");
    }
}
