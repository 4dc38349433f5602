//! The Laplace mechanism (Dwork, McSherry, Nissim and Smith, TCC 2006; Dwork and Roth,
//! "The algorithmic foundations of differential privacy", Theorem 3.6): adding noise with scale
//! `Δ₁ / ε` to a query of L1 sensitivity `Δ₁` is `ε`-DP.
//!
//! Exact path: the value is rounded to the grid `2^k Z` with `2^k <= min(Δ, Δ/ε) 2^-20 / d`
//! (coarser only when `ε` is tiny, to keep the scale below `2^59` steps); in grid units the
//! rounded query has L1 sensitivity at most `Δ_u = floor(Δ / 2^k) + d`; discrete Laplace noise of
//! scale `Δ_u / ε` (rounded up to a multiple of `2^-30`) is exactly `ε`-DP for it; the output is
//! the exact noisy value rounded once to the nearest double. The noise scale is larger than
//! `Δ/ε` by a factor at most `1 + 2^-20` plus the `2^-30` rounding.

use crate::error::{Result, check_epsilon, check_sensitivity};
use crate::grid::{Grid, floor_log2};
use crate::noise::{Ratio, discrete_laplace, standard_laplace_f64};
use crate::rng::Rng;

use super::{ceil_scale, check_finite};

/// The exact Laplace mechanism for `dim` coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Laplace {
    grid: Grid,
    scale: Ratio,
}

/// Accepted sensitivity range of the exact path.
pub const SENSITIVITY_RANGE: (f64, f64) = (1e-250, 1e250);

fn ceil_log2(n: usize) -> i32 {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as i32
    }
}

impl Laplace {
    /// Plans the mechanism for an L1 `sensitivity`, `epsilon` and `dim` coordinates.
    pub fn new(sensitivity: f64, epsilon: f64, dim: usize) -> Result<Self> {
        check_sensitivity(sensitivity)?;
        check_epsilon(epsilon, "epsilon")?;
        let (lo, hi) = SENSITIVITY_RANGE;
        if !(lo..=hi).contains(&sensitivity) {
            return Err(crate::Error::invalid(
                "sensitivity",
                format!("must lie in [{lo:e}, {hi:e}] for numerics='exact', got {sensitivity:e}"),
            ));
        }
        let dim = dim.max(1);
        let fine = floor_log2(sensitivity.min(sensitivity / epsilon)) - 20 - ceil_log2(dim);
        let ratio = sensitivity / epsilon;
        let bounded = if ratio.is_finite() && ratio > 0.0 {
            floor_log2(ratio) - 58
        } else {
            i32::MAX
        };
        let grid = Grid::new(fine.max(bounded))?;
        // Rounding moves each coordinate by at most half a step, so each coordinate of the
        // rounded difference has magnitude at most |a_i - b_i| / 2^k + 1. It is an integer, so the
        // L1 norm is an integer at most Δ/2^k + d, hence at most floor(Δ/2^k) + d: no fractional
        // part is lost (unlike the L2 bound of the Gaussian mechanism, which is not an integer).
        let units = grid.floor_units(sensitivity)? + dim as u128;
        let scale = ceil_scale(units, epsilon)?;
        Ok(Laplace { grid, scale })
    }

    /// The grid exponent `k`.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The discrete Laplace scale in grid units.
    pub fn scale_units(&self) -> Ratio {
        self.scale
    }

    /// The noise scale in the value's units, `scale_units * 2^k`, rounded up to a double: the
    /// single source of the scale that accounting built on this sampler may assume.
    pub fn scale(&self) -> f64 {
        self.scale.times_pow2_up(self.grid.k())
    }

    /// `values` plus exactly sampled noise (see the module documentation).
    pub fn apply(&self, values: &[f64], rng: &mut Rng) -> Result<Vec<f64>> {
        check_finite(values, "value")?;
        Ok(values
            .iter()
            .map(|&v| {
                self.grid
                    .add_units(self.grid.round(v), discrete_laplace(rng, self.scale))
            })
            .collect())
    }
}

/// The Laplace mechanism in plain floating point (`numerics="fast"`): `v + (Δ/ε) L` with `L` a
/// standard Laplace variate, a random sign times `rand_distr::Exp1` (see
/// [`crate::noise::standard_laplace_f64`]). Not floating-point safe (Mironov 2012).
pub fn laplace_fast(
    values: &[f64],
    sensitivity: f64,
    epsilon: f64,
    rng: &mut Rng,
) -> Result<Vec<f64>> {
    check_sensitivity(sensitivity)?;
    check_epsilon(epsilon, "epsilon")?;
    check_finite(values, "value")?;
    let b = sensitivity / epsilon;
    Ok(values
        .iter()
        .map(|&v| v + b * standard_laplace_f64(rng))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        assert_law_with_power, float_cells, float_law, laplace_cdf, symmetric_edges,
    };

    #[test]
    fn fast_path_adds_laplace_noise_of_scale_sensitivity_over_epsilon() {
        // Dwork-Roth Theorem 3.6: scale b = Delta / eps.
        let (sens, eps) = (3.0, 0.75);
        let b = sens / eps;
        let values: Vec<f64> = (0..100_000)
            .map(|i| f64::from(i % 5) * 10.0 - 20.0)
            .collect();
        let out = laplace_fast(&values, sens, eps, &mut Rng::from_seed(32)).unwrap();
        assert_eq!(out.len(), values.len());
        let noise = out.iter().zip(&values).map(|(o, v)| (o - v) / b);
        let edges = symmetric_edges(8.0, 0.25);
        assert_law_with_power(
            &float_cells(noise, &edges),
            &float_law(&edges, laplace_cdf(1.0)),
            &[
                &float_law(&edges, laplace_cdf(1.3)),
                &float_law(&edges, laplace_cdf(1.0 / 1.3)),
            ],
            "laplace_fast noise / (sensitivity / epsilon)",
        );
        // Each value gets its own draw, in order, added (not subtracted: pinned by the stream).
        let mut r = Rng::from_seed(32);
        for (o, v) in out.iter().zip(&values).take(1000) {
            let want = v + b * crate::noise::standard_laplace_f64(&mut r);
            assert!((o - want).abs() <= 1e-12 * b, "{o} vs {want}");
        }
    }

    #[test]
    fn plan_is_fine_and_rounds_up() {
        let m = Laplace::new(1.0, 1.0, 1).unwrap();
        assert_eq!(m.grid().k(), -20);
        // units = 2^20 + 1; scale >= units / eps.
        assert!(m.scale_units().to_f64() >= (1u64 << 20) as f64 + 1.0);
        assert!(m.scale_units().to_f64() < (1u64 << 20) as f64 + 1.0 + 1e-8);
        let m = Laplace::new(2.0, 0.5, 100).unwrap();
        assert!(m.grid().step() <= 2.0 * 2f64.powi(-20) / 100.0);
        assert!(Laplace::new(1.0, 1e-12, 1).is_ok());
        assert!(Laplace::new(1.0, 1e-30, 1).is_err());
        assert!(Laplace::new(0.0, 1.0, 1).is_err());
        assert!(Laplace::new(1e-300, 1.0, 1).is_err());
    }

    #[test]
    fn plan_covers_the_rounded_l1_sensitivity() {
        // The rounded query's L1 sensitivity in units is an integer (a sum of integer
        // coordinates) at most Δ/2^k + d (half a step per coordinate each side), so at most
        // floor(Δ/2^k + d); the scale must be at least that over ε, including for huge ε,
        // where Δ/2^k used to be truncated at 2^127 steps (now refused).
        for &(sens, eps, dim) in &[
            (1.0 - 2f64.powi(-40), 1.0, 1usize),
            (1.0 - 2f64.powi(-40), 0.3, 7),
            (3.0, 1e-6, 100),
            (1.0, 1e30, 1),
            (1.0, 1e40, 1),
            (1.0, 1e300, 3),
        ] {
            if let Ok(m) = Laplace::new(sens, eps, dim) {
                let need = (sens / m.grid().step() + dim as f64).floor() / eps;
                assert!(m.scale_units().to_f64() >= need, "{sens} {eps} {dim}");
            }
        }
    }

    #[test]
    fn scale_in_value_units_is_rounded_up() {
        for &(sens, eps) in &[(1.0, 1.0), (1.0, 0.37), (2.5, 3.0), (1.0, 1e-9)] {
            let m = Laplace::new(sens, eps, 1).unwrap();
            let s = m.scale();
            let r = m.scale_units();
            let step = m.grid().step();
            // s >= num/den * step, and the next double below is not.
            assert!(s / step * r.den as f64 >= r.num as f64 * (1.0 - 1e-15));
            assert!(s >= sens / eps);
            assert!(s <= sens / eps * (1.0 + 2f64.powi(-19)) + step * 2f64.powi(-29));
        }
    }

    #[test]
    fn noise_has_the_laplace_law() {
        let m = Laplace::new(1.0, 0.5, 1).unwrap(); // scale 2
        let mut rng = Rng::from_seed(1);
        let n = 100_000;
        let draws = m.apply(&vec![3.0; n], &mut rng).unwrap();
        let mean_abs = draws.iter().map(|d| (d - 3.0).abs()).sum::<f64>() / n as f64;
        assert!((mean_abs - 2.0).abs() < 0.03, "{mean_abs}");
        // Power: the same statistic and tolerance reject a scale 30% off either way.
        for wrong in [2.0 * 1.3, 2.0 / 1.3] {
            assert!((mean_abs - wrong).abs() >= 0.03, "{mean_abs} vs {wrong}");
        }
        let above = draws.iter().filter(|&&d| d - 3.0 > 2.0).count() as f64 / n as f64;
        let p = 0.5 * (-1.0f64).exp();
        assert!((above - p).abs() < 6.0 * (p * (1.0 - p) / n as f64).sqrt());
        for b in [2.0 * 1.3, 2.0 / 1.3] {
            let q = 0.5 * (-2.0f64 / b).exp();
            assert!((above - q).abs() >= 6.0 * (q * (1.0 - q) / n as f64).sqrt());
        }
        assert!(m.apply(&[f64::NAN], &mut rng).is_err());
    }
}
