//! The exponential mechanism over thresholds on an interval with the 0-1 loss, sampled exactly.
//!
//! Hypotheses `h_t(x) = 1[x >= t]` (or `1[x <= t]`) for `t` in `[low, high]`; the empirical
//! 0-1 risk is piecewise constant in `t`, changing only at the data values (Wang, Lei and
//! Fienberg 2016, Algorithm 1 with the Lebesgue base measure on `H = [low, high]`; the class of
//! Proposition 12). The sampler draws a piece with probability proportional to its length times
//! `exp(-epsilon * mistakes / (2 * sensitivity))`, then a point uniformly within it.
//!
//! ## Exactness
//!
//! The Lebesgue measure is replaced by the counting measure on a fine grid that depends on
//! `low` and `high` only: the multiples `j 2^g` of a power of two in `[low, high]`, with `2^g`
//! about `2^-60 (high - low)` (never finer than the spacing of doubles near `max(|low|,
//! |high|)`, so every grid point is a double). Each piece's mass is then an exact integer (its
//! number of grid points), the piece is drawn with the exact exponential mechanism with a base
//! measure ([`crate::expmech::exponential_weighted`]), and the point within it is an exact
//! uniform integer. No floating-point rounding reaches a probability. The result is an
//! exponential mechanism over a data-independent finite set with integer scores, hence exactly
//! `epsilon`-DP when `sensitivity` bounds the change of the mistake count (1, or the paper's
//! conservative 2), and it is the continuous mechanism up to a relative error of at most `2^g /
//! length` in each piece's mass. Predictions compare doubles with the grid point exactly:
//! `x >= j 2^g` iff `j <= floor(x / 2^g)` (a power-of-two scaling, exact).

use super::super::expmech::exponential_weighted;
use crate::error::{Error, Result};
use crate::rng::Rng;

/// The data-independent grid of candidate thresholds `{ j 2^g : j_lo <= j <= j_hi }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThresholdGrid {
    /// Exponent of the spacing `2^g`.
    pub g: i32,
    /// First grid index (`j_lo 2^g >= low`).
    pub j_lo: i64,
    /// Last grid index (`j_hi 2^g <= high`).
    pub j_hi: i64,
}

/// Bits of resolution of the grid below the interval's length.
const RESOLUTION_BITS: i32 = 60;

/// `floor(log2(x))` for a finite `x > 0`.
fn floor_log2(x: f64) -> i32 {
    libm::ilogb(x)
}

impl ThresholdGrid {
    /// The grid of `[low, high]` (finite, `low < high`, `high - low` finite).
    pub fn new(low: f64, high: f64) -> Result<Self> {
        if !(low.is_finite() && high.is_finite() && low < high && (high - low).is_finite()) {
            return Err(Error::invalid(
                "interval",
                format!("must be finite with low < high, got [{low}, {high}]"),
            ));
        }
        let big = low.abs().max(high.abs());
        // The spacing of doubles at `big` is 2^(floor(log2 big) - 52) (2^-1074 at most).
        let ulp_exp = (floor_log2(big) - 52).max(-1074);
        let g = (floor_log2(high - low) - RESOLUTION_BITS).max(ulp_exp);
        // |x| / 2^g <= 2^53 on the interval: the scaled ends are exact, as are their roundings.
        let j_lo = libm::scalbn(low, -g).ceil() as i64;
        let j_hi = libm::scalbn(high, -g).floor() as i64;
        Ok(ThresholdGrid { g, j_lo, j_hi })
    }

    /// Number of grid points.
    pub fn len(&self) -> u64 {
        (self.j_hi - self.j_lo + 1) as u64
    }

    /// Always `false` (a grid has at least one point).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The threshold of grid index `j` (a double, exactly).
    pub fn point(&self, j: i64) -> f64 {
        libm::scalbn(j as f64, self.g)
    }
}

/// A maximal run of grid indices `start..start + len` on which the mistake count is constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// First grid index.
    pub start: i64,
    /// Number of grid points.
    pub len: u64,
    /// Mistakes of every threshold of the piece.
    pub mistakes: u64,
}

/// The pieces of the mistake count over the grid, in increasing order of `t`.
///
/// `ge` selects `1[x >= t]` (else `1[x <= t]`). Errors: non-finite data, a length mismatch.
pub fn threshold_pieces(
    grid: &ThresholdGrid,
    ge: bool,
    x: &[f64],
    y: &[bool],
) -> Result<Vec<Piece>> {
    if x.len() != y.len() {
        return Err(Error::invalid("y", "must have one label per point"));
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::invalid(
            "X",
            "must hold finite numbers (no NaN or infinity)",
        ));
    }
    let (lo, hi) = (grid.point(grid.j_lo), grid.point(grid.j_hi));
    let mut mistakes: u64 = 0;
    // (index where the point's prediction flips, whether it is correct before the flip)
    let mut flips: Vec<(i64, bool)> = Vec::new();
    for (&xi, &yi) in x.iter().zip(y) {
        // Prediction at grid index j: ge: j <= c with c = floor(x / 2^g); le: j >= c with
        // c = ceil(x / 2^g). Outside the grid's range c is clamped (the prediction is constant).
        let c = if ge {
            if xi < lo {
                grid.j_lo - 1
            } else if xi >= hi {
                grid.j_hi
            } else {
                libm::scalbn(xi, -grid.g).floor() as i64
            }
        } else if xi <= lo {
            grid.j_lo
        } else if xi > hi {
            grid.j_hi + 1
        } else {
            libm::scalbn(xi, -grid.g).ceil() as i64
        };
        let pred0 = if ge { grid.j_lo <= c } else { grid.j_lo >= c };
        let correct0 = pred0 == yi;
        mistakes += u64::from(!correct0);
        let flip = if ge { c + 1 } else { c };
        if flip > grid.j_lo && flip <= grid.j_hi {
            flips.push((flip, correct0));
        }
    }
    flips.sort_unstable();
    let mut pieces = Vec::with_capacity(flips.len() + 1);
    let mut start = grid.j_lo;
    let mut k = 0;
    while k < flips.len() {
        let at = flips[k].0;
        if at > start {
            pieces.push(Piece {
                start,
                len: (at - start) as u64,
                mistakes,
            });
            start = at;
        }
        while k < flips.len() && flips[k].0 == at {
            if flips[k].1 {
                mistakes += 1;
            } else {
                mistakes -= 1;
            }
            k += 1;
        }
    }
    pieces.push(Piece {
        start,
        len: (grid.j_hi - start + 1) as u64,
        mistakes,
    });
    Ok(pieces)
}

/// One exact draw of the exponential mechanism over the thresholds of `[low, high]` (see the
/// module documentation): returns the threshold `t` (a grid point, a double).
///
/// `epsilon`-DP (replace-one) for the 0-1 mistake count when `sensitivity >= 1` (the paper's
/// Algorithm 1 uses 2: density `exp(-(epsilon n / 4) R_hat)`).
#[allow(clippy::too_many_arguments)]
pub fn sample_threshold(
    low: f64,
    high: f64,
    ge: bool,
    x: &[f64],
    y: &[bool],
    epsilon: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<f64> {
    crate::error::check_epsilon(epsilon, "epsilon")?;
    crate::error::check_sensitivity(sensitivity)?;
    let grid = ThresholdGrid::new(low, high)?;
    let pieces = threshold_pieces(&grid, ge, x, y)?;
    let scores: Vec<i64> = pieces.iter().map(|p| -(p.mistakes as i64)).collect();
    let weights: Vec<u64> = pieces.iter().map(|p| p.len).collect();
    let k = exponential_weighted(&scores, &weights, epsilon, sensitivity, rng)?;
    let piece = pieces[k];
    let j = piece.start + rng.below(piece.len) as i64;
    Ok(grid.point(j))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(grid: &ThresholdGrid, ge: bool, x: &[f64], y: &[bool], j: i64) -> u64 {
        let t = grid.point(j);
        x.iter()
            .zip(y)
            .filter(|&(&xi, &yi)| (if ge { xi >= t } else { xi <= t }) != yi)
            .count() as u64
    }

    #[test]
    fn grid_is_fine_and_exact() {
        let g = ThresholdGrid::new(0.0, 1.0).unwrap();
        assert_eq!(g.g, -52); // limited by the spacing of doubles near 1
        assert_eq!(g.j_lo, 0);
        assert_eq!(g.j_hi, 1 << 52);
        assert_eq!(g.point(g.j_hi), 1.0);
        let g = ThresholdGrid::new(-3.0, -2.5).unwrap();
        assert!(g.point(g.j_lo) >= -3.0 && g.point(g.j_hi) <= -2.5);
        let g = ThresholdGrid::new(1e-300, 2e-300).unwrap();
        assert_eq!(g.g, libm::ilogb(2e-300) - 52); // the doubles' spacing again
        assert!(g.len() > 1 << 51);
        // A wide interval: 2^-60 of its length.
        let g = ThresholdGrid::new(-1.0, 3.0).unwrap();
        assert_eq!(g.g, -51);
        let g = ThresholdGrid::new(1000.0, 1000.5).unwrap();
        assert_eq!(g.g, libm::ilogb(1000.5) - 52);
        assert!(ThresholdGrid::new(1.0, 1.0).is_err());
        assert!(ThresholdGrid::new(-f64::MAX, f64::MAX).is_err());
        assert!(ThresholdGrid::new(0.0, f64::NAN).is_err());
    }

    #[test]
    fn pieces_match_brute_force_on_a_coarse_grid() {
        // A grid of spacing 2^-4 on [0, 2] (|values| near 2 allow it: g = max(1 - 60, -51)).
        let grid = ThresholdGrid {
            g: -4,
            j_lo: 0,
            j_hi: 32,
        };
        let mut rng = Rng::from_seed(8);
        for trial in 0..40 {
            let n = 1 + trial % 13;
            let x: Vec<f64> = (0..n)
                .map(|_| ((rng.uniform_f64() * 2.6 - 0.3) * 32.0).round() / 32.0)
                .collect();
            let y: Vec<bool> = (0..n).map(|_| rng.bit()).collect();
            for ge in [true, false] {
                let pieces = threshold_pieces(&grid, ge, &x, &y).unwrap();
                assert_eq!(pieces.iter().map(|p| p.len).sum::<u64>(), grid.len());
                let mut j = grid.j_lo;
                for p in &pieces {
                    assert_eq!(p.start, j);
                    for jj in p.start..p.start + p.len as i64 {
                        assert_eq!(
                            p.mistakes,
                            brute(&grid, ge, &x, &y, jj),
                            "ge={ge} j={jj} x={x:?}"
                        );
                    }
                    j += p.len as i64;
                }
            }
        }
    }

    #[test]
    fn sampler_concentrates_and_stays_in_range() {
        let x = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9];
        let y = [false, false, false, true, true, true];
        let mut rng = Rng::from_seed(9);
        for _ in 0..200 {
            let t = sample_threshold(0.0, 1.0, true, &x, &y, 50.0, 1.0, &mut rng).unwrap();
            assert!((0.0..=1.0).contains(&t));
        }
        // At a large epsilon the draw lies in the zero-mistake piece (0.3, 0.7].
        for _ in 0..200 {
            let t = sample_threshold(0.0, 1.0, true, &x, &y, 200.0, 1.0, &mut rng).unwrap();
            assert!(t > 0.3 && t <= 0.7, "{t}");
        }
        assert!(sample_threshold(0.0, 1.0, true, &x, &y, 0.0, 1.0, &mut rng).is_err());
        assert!(
            sample_threshold(0.0, 1.0, true, &[f64::NAN], &[true], 1.0, 1.0, &mut rng).is_err()
        );
    }
}
