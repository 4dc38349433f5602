//! Empirical risks of every candidate of an explicit set, fused and parallel over candidates.
//!
//! [`linear_risks`] scores linear predictors `p = w . x + b` (halfspaces for the 0-1 loss) and
//! [`threshold_mistakes`] one-dimensional thresholds. Both return, per candidate, the exact
//! integer sum of the records' quantised clipped losses (see the [module
//! documentation](super) and [`Quantizer`]): the scores of the exponential mechanism.
//!
//! The linear kernel processes the data ([`LinearData`]) in blocks of 256 records held column
//! by column, so the inner loops run over contiguous records and vectorise; each rayon task
//! scores a run of candidates against the whole dataset. For the 0-1 loss the mistakes are
//! counted by [`crate::linear`], which decides the sign of `w . x + b` exactly (so the mistakes
//! counted are those of `Halfspace` prediction, exactly), and multiplied by the quantised unit
//! loss.

use rayon::prelude::*;

use super::{Loss, Quantizer};
use crate::error::{Error, Result};
pub use crate::linear::LinearData;
use crate::linear::{BLOCK, TASK, check_candidates, zero_one_counts};

/// Checks that `n` records of at most `q` each cannot overflow an `i64` score.
fn check_total(n: usize, q: u64) -> Result<()> {
    if (n as u128) * u128::from(q) >= 1u128 << 62 {
        return Err(Error::invalid(
            "frac_bits",
            format!("n * 2^frac_bits must be below 2^62 (n = {n}, 2^frac_bits = {q})"),
        ));
    }
    Ok(())
}

/// The quantised total loss of every linear candidate `(coef[j], intercept[j])` on `data`.
///
/// `coef` holds `N` rows of `data.dim()` weights (row-major) and `intercept` the `N` offsets.
/// Entry `j` of the result is `sum_i quant.quantize(loss(w_j . x_i + b_j, y_i))`; for the 0-1
/// loss it is `quant.quantize(1)` times the exact number of mistakes of `1[w_j . x + b_j >= 0]`.
/// Parallel over candidates.
///
/// Errors: a length mismatch, non-finite candidate parameters, or `n Q >= 2^62`.
pub fn linear_risks(
    coef: &[f64],
    intercept: &[f64],
    data: &LinearData,
    loss: Loss,
    quant: &Quantizer,
) -> Result<Vec<u64>> {
    let d = data.dim();
    check_candidates(coef, intercept, d)?;
    check_total(data.len(), quant.steps())?;
    if loss == Loss::ZeroOne {
        let unit = quant.quantize(1.0);
        let mistakes = zero_one_counts(coef, intercept, data);
        return Ok(mistakes.into_iter().map(|m| m * unit).collect());
    }
    let mut out = vec![0u64; intercept.len()];
    out.par_chunks_mut(TASK)
        .enumerate()
        .for_each(|(ti, chunk)| {
            let first = ti * TASK;
            for (o, slot) in chunk.iter_mut().enumerate() {
                let j = first + o;
                *slot = candidate_total(&coef[j * d..(j + 1) * d], intercept[j], data, loss, quant);
            }
        });
    Ok(out)
}

/// One candidate's quantised total loss, for a loss other than the 0-1 loss.
fn candidate_total(w: &[f64], b: f64, data: &LinearData, loss: Loss, quant: &Quantizer) -> u64 {
    let n = data.len();
    let mut s = [0.0f64; BLOCK];
    let mut total: u64 = 0;
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let s = &mut s[..len];
        s.fill(b);
        for (k, &wk) in w.iter().enumerate() {
            let col = &data.cols[k * n + start..k * n + start + len];
            for (si, &xi) in s.iter_mut().zip(col) {
                *si += wk * xi;
            }
        }
        let ys = &data.y[start..start + len];
        for (&p, &yi) in s.iter().zip(ys) {
            total += quant.quantize(loss.value(p, yi));
        }
        start += len;
    }
    total
}

/// Mistakes of every threshold candidate on one-dimensional labelled data.
///
/// Candidate `j` predicts `1[x >= t_j]` when `ge[j]` is true and `1[x <= t_j]` otherwise
/// (`t_j` may be `±inf`); entry `j` of the result is its number of mistakes on `(x, y)`. The
/// data are sorted once; each candidate then costs a binary search, in parallel.
///
/// Errors: a length mismatch; NaN thresholds; non-finite data.
pub fn threshold_mistakes(t: &[f64], ge: &[bool], x: &[f64], y: &[bool]) -> Result<Vec<u64>> {
    if t.len() != ge.len() {
        return Err(Error::invalid(
            "orientation",
            "must give one orientation per threshold",
        ));
    }
    if x.len() != y.len() {
        return Err(Error::invalid("y", "must have one label per point"));
    }
    if t.iter().any(|v| v.is_nan()) {
        return Err(Error::invalid("thresholds", "must not be NaN"));
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::invalid(
            "X",
            "must hold finite numbers (no NaN or infinity)",
        ));
    }
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_unstable_by(|&i, &j| x[i].total_cmp(&x[j]));
    let xs: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    // pos[k] = positives among the k smallest points.
    let mut pos = Vec::with_capacity(x.len() + 1);
    pos.push(0u64);
    for &i in &order {
        pos.push(pos.last().copied().unwrap_or(0) + u64::from(y[i]));
    }
    let n = x.len() as u64;
    let total_pos = pos[x.len()];
    let mut out = vec![0u64; t.len()];
    out.par_chunks_mut(4096)
        .enumerate()
        .for_each(|(ci, chunk)| {
            for (o, slot) in chunk.iter_mut().enumerate() {
                let j = ci * 4096 + o;
                let tj = t[j];
                *slot = if ge[j] {
                    // Predicted 0 below t: positives there are mistakes; predicted 1 from t on.
                    let k = xs.partition_point(|&v| v < tj);
                    let p = pos[k];
                    p + ((n - k as u64) - (total_pos - p))
                } else {
                    let k = xs.partition_point(|&v| v <= tj);
                    let p = pos[k];
                    (k as u64 - p) + (total_pos - p)
                };
            }
        });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predicates::affine_sign;
    use crate::rng::Rng;

    fn naive(
        coef: &[f64],
        b: &[f64],
        x: &[f64],
        y: &[f64],
        d: usize,
        loss: Loss,
        q: &Quantizer,
    ) -> Vec<u64> {
        let n = y.len();
        (0..b.len())
            .map(|j| {
                let w = &coef[j * d..(j + 1) * d];
                (0..n)
                    .map(|i| {
                        let xi = &x[i * d..(i + 1) * d];
                        if loss == Loss::ZeroOne {
                            let pred = affine_sign(w, xi, b[j]) >= 0;
                            q.quantize(1.0) * u64::from(pred != (y[i] > 0.5))
                        } else {
                            let p = w.iter().zip(xi).fold(b[j], |acc, (a, c)| acc + a * c);
                            q.quantize(loss.value(p, y[i]))
                        }
                    })
                    .sum()
            })
            .collect()
    }

    fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * rng.uniform_f64()
    }

    #[test]
    fn kernel_matches_naive_sums() {
        let mut rng = Rng::from_seed(5);
        for &(n, d, m) in &[
            (1usize, 1usize, 3usize),
            (300, 2, 37),
            (700, 3, 20),
            (257, 5, 9),
        ] {
            let x: Vec<f64> = (0..n * d).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
            let y: Vec<f64> = (0..n).map(|_| f64::from(u8::from(rng.bit()))).collect();
            let coef: Vec<f64> = (0..m * d).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
            let b: Vec<f64> = (0..m).map(|_| uniform(&mut rng, -0.5, 0.5)).collect();
            let data = LinearData::new(&x, &y, d).unwrap();
            for loss in [Loss::ZeroOne, Loss::Hinge, Loss::Logistic, Loss::Squared] {
                let q = Quantizer::new(1.5, 20).unwrap();
                let got = linear_risks(&coef, &b, &data, loss, &q).unwrap();
                assert_eq!(
                    got,
                    naive(&coef, &b, &x, &y, d, loss, &q),
                    "{loss:?} n={n} d={d}"
                );
            }
        }
    }

    #[test]
    fn thresholds_match_brute_force() {
        let mut rng = Rng::from_seed(6);
        let n = 500;
        let x: Vec<f64> = (0..n)
            .map(|_| (uniform(&mut rng, 0.0, 1.0) * 50.0).round() / 50.0)
            .collect();
        let y: Vec<bool> = (0..n).map(|_| rng.bit()).collect();
        let mut t: Vec<f64> = (0..300)
            .map(|_| (uniform(&mut rng, -0.1, 1.1) * 50.0).round() / 50.0)
            .collect();
        t.extend([f64::NEG_INFINITY, f64::INFINITY, 0.5]);
        let ge: Vec<bool> = (0..t.len()).map(|j| j % 2 == 0).collect();
        let got = threshold_mistakes(&t, &ge, &x, &y).unwrap();
        for j in 0..t.len() {
            let want = (0..n)
                .filter(|&i| {
                    let pred = if ge[j] { x[i] >= t[j] } else { x[i] <= t[j] };
                    pred != y[i]
                })
                .count() as u64;
            assert_eq!(got[j], want, "{j}");
        }
        assert!(threshold_mistakes(&[f64::NAN], &[true], &x, &y).is_err());
        assert!(threshold_mistakes(&[0.0], &[true, false], &x, &y).is_err());
    }

    #[test]
    fn bad_inputs_are_errors() {
        let data = LinearData::new(&[1.0, 2.0], &[1.0], 2).unwrap();
        let q = Quantizer::new(1.0, 8).unwrap();
        assert!(linear_risks(&[1.0], &[0.0], &data, Loss::Hinge, &q).is_err());
        assert!(linear_risks(&[1.0, f64::NAN], &[0.0], &data, Loss::Hinge, &q).is_err());
        let q = Quantizer::new(1.0, 40).unwrap();
        let big = LinearData::new(&vec![0.0; 1 << 22], &vec![0.0; 1 << 22], 1).unwrap();
        assert!(linear_risks(&[1.0], &[0.0], &big, Loss::Hinge, &q).is_err());
    }
}
