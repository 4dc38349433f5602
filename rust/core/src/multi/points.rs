//! The stability-based histogram for point functions (Proposition 2.20) and `LearnPoints`
//! (Algorithm 5, Theorem 3.13) of Bun, Nissim and Stemmer.

use super::{check_budget, no_concepts, top_two_runs};
use crate::error::{Error, Result, check_epsilon};
use crate::expmech::Scores;
use crate::gf2::Matrix;
use crate::mechanisms::select::{release_threshold, stable_argmax};
use crate::mechanisms::{ceil_scale, check_delta_open};
use crate::noise::{Ratio, discrete_laplace};
use crate::rng::Rng;

/// The stability-based histogram (Bun, Nissim and Stemmer, Proposition 2.20, with exact discrete
/// Laplace noise per the project's erratum 002-2).
///
/// `counts[i]` is the number of rows holding the `i`-th distinct point of the data (the
/// caller's indexing of the support, in a data-independent order such as sorted by point).
/// For every point with a positive count, `Z` is drawn from the discrete Laplace law of scale
/// `b = 2/ε` (rounded up to a multiple of `2^-30`) and the noisy count `c + Z` is released iff
/// `c + Z >= 1 + t`, `t` an integer with `e^{-t/b} / (1 + e^{-1/b}) <= δ/2`. Returns the
/// released `(index, noisy count)` pairs in increasing index order, and nothing else: points
/// below the threshold are indistinguishable from points outside the data (erratum 002-3).
///
/// **Privacy:** `(epsilon, delta)`-DP for replace-one neighbours. Replacing one row changes two
/// counts by one. For a point whose count stays positive the release is a post-processing of a
/// sensitivity-1 count plus discrete Laplace noise of scale `2/ε`, which is `ε/2`-DP; for a point
/// whose count goes from 1 to 0 the other side never releases it and this side releases it with
/// probability `P[Z >= t] <= δ/2`. Two points are affected: `(ε, δ)`.
///
/// **Accuracy:** a released noisy count is within `s` of the true count except with probability
/// `2 e^{-s/b}` per point; a point whose count exceeds `1 + t + s` is released except with
/// probability `e^{-s/b}`.
///
/// # Errors
/// [`Error::InvalidParameter`] before any draw when `epsilon` or `delta` are out of range.
pub fn stability_histogram(
    counts: &[u64],
    epsilon: f64,
    delta: f64,
    rng: &mut Rng,
) -> Result<Vec<(usize, i64)>> {
    check_epsilon(epsilon, "epsilon")?;
    check_delta_open(delta)?;
    let scale = histogram_scale(epsilon)?;
    let cutoff = 1 + release_threshold(scale, delta);
    let mut out = Vec::new();
    for (i, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let noisy = i128::from(c) + discrete_laplace(rng, scale);
        if noisy >= cutoff {
            out.push((i, i64::try_from(noisy).unwrap_or(i64::MAX)));
        }
    }
    Ok(out)
}

/// The discrete Laplace scale of [`stability_histogram`] at `epsilon`: `2/ε` rounded up to a
/// multiple of `2^-30`.
fn histogram_scale(epsilon: f64) -> Result<Ratio> {
    ceil_scale(2, epsilon)
}

/// The noise scale `b` of both halves of [`learn_points`] at total `epsilon` (the histogram's
/// discrete Laplace scale at `ε/2`, which is also the scale of the stable selection of a
/// sensitivity-1 quality at `ε/2`): `4/ε` rounded up to a multiple of `2^-30`. The single source
/// of the scale that sample-size bounds for `learn_points` may assume.
pub fn learn_points_noise_scale(epsilon: f64) -> Result<Ratio> {
    check_epsilon(epsilon, "epsilon")?;
    histogram_scale(epsilon / 2.0)
}

/// The outcome of [`learn_points`].
#[derive(Debug)]
pub struct PointsOutcome {
    /// The heavy points `H`, as indices of the support in increasing order: those the histogram
    /// released with a noisy count of at least `alpha n / 4`.
    pub heavy: Vec<usize>,
    /// The released label vectors of the heavy points (row `h` of a `|H| x k` matrix for
    /// `heavy[h]`), or `None`: `H` is empty, or the stable selection refused (⊥). In both cases
    /// every concept's hypothesis is the all-zero function.
    pub labels: Option<Matrix>,
}

/// Most frequent label vector of a heavy point: `(count a*, row holding it, second count b)`,
/// ties broken towards the lexicographically smallest packed vector; `b = 0` when only one
/// vector occurs.
fn top_two(rows: &mut [usize], labels: &Matrix) -> (u64, usize, u64) {
    rows.sort_by(|&a, &b| labels.row(a).cmp(labels.row(b)));
    let (at, top, second) = top_two_runs(rows, |a, b| labels.row(a) == labels.row(b));
    (top as u64, at, second as u64)
}

/// The two best values of the quality `q(S, V) = min_{x in H} #{i : (x_i, y_i) = (x, v_x)}`
/// over all choices `V = (v_x)_{x in H}` of a label vector per heavy point, in closed form: the
/// best is `Q1 = min_x a*_x` (each point's most frequent vector), the runner-up
/// `Q2 = max_{x0} min(b_{x0}, min_{x != x0} a*_x)` (change the vector of one point to its
/// second most frequent).
fn best_two_qualities(a: &[u64], b: &[u64]) -> (u64, u64) {
    let argmin = (0..a.len()).min_by_key(|&i| a[i]).unwrap_or(0);
    let q1 = a[argmin];
    let others_min = (0..a.len())
        .filter(|&i| i != argmin)
        .map(|i| a[i])
        .min()
        .unwrap_or(u64::MAX);
    let q2 = (0..a.len())
        .map(|x0| {
            let rest = if x0 == argmin { others_min } else { q1 };
            b[x0].min(rest)
        })
        .max()
        .unwrap_or(0);
    (q1, q2)
}

/// `LearnPoints`: a private `k`-learner of point functions whose sample size depends on neither
/// `k` nor the domain (Bun, Nissim and Stemmer, Algorithm 5 and Theorem 3.13).
///
/// `ids[i]` is the index of row `i`'s example in the support (`0..n_keys`, a data-independent
/// order of the distinct examples, such as sorted), `labels` the `n x k` label matrix.
///
/// 1. [`stability_histogram`] with `(ε/2, δ/2)` releases noisy counts; the heavy points `H` are
///    those released with a noisy count of at least `alpha n / 4`.
/// 2. If `H` is empty, stop (all hypotheses are the all-zero function). Otherwise the quality
///    `q(S, V)` of a vector `V` of one label vector per heavy point (see
///    [`best_two_qualities`]) has sensitivity 1, and [`stable_argmax`] with `(ε/2, δ/2)`
///    releases the best `V` (each heavy point's most frequent label vector) or ⊥.
///
/// **Privacy:** `(epsilon, delta)`-DP for replace-one neighbours: the two steps each spend
/// `(ε/2, δ/2)` (the split of erratum 002-4), and `H` is a post-processing of the first.
///
/// # Errors
/// [`Error::InvalidParameter`] before any draw when `labels` has no column or a row count other
/// than `ids.len()`, an id is not below `n_keys`, `alpha` is not in `(0, 1]`, or `epsilon` /
/// `delta` are out of range.
pub fn learn_points(
    ids: &[usize],
    n_keys: usize,
    labels: &Matrix,
    alpha: f64,
    epsilon: f64,
    delta: f64,
    rng: &mut Rng,
) -> Result<PointsOutcome> {
    let n = ids.len();
    if labels.rows() != n {
        return Err(Error::invalid(
            "Y",
            format!("must have one row per example ({n}), got {}", labels.rows()),
        ));
    }
    if labels.cols() == 0 {
        return Err(no_concepts());
    }
    if !(alpha > 0.0 && alpha <= 1.0) {
        return Err(Error::invalid(
            "alpha",
            format!("must be in (0, 1], got {alpha}"),
        ));
    }
    if let Some(&bad) = ids.iter().find(|&&i| i >= n_keys) {
        return Err(Error::invalid(
            "ids",
            format!("must be below n_keys = {n_keys}, got {bad}"),
        ));
    }
    check_budget(epsilon, delta)?;
    let (eps, dlt) = (epsilon / 2.0, delta / 2.0);
    let mut counts = vec![0u64; n_keys];
    for &i in ids {
        counts[i] += 1;
    }
    let heavy_cut = alpha * n as f64 / 4.0;
    let heavy: Vec<usize> = stability_histogram(&counts, eps, dlt, rng)?
        .into_iter()
        .filter(|&(_, noisy)| noisy as f64 >= heavy_cut)
        .map(|(i, _)| i)
        .collect();
    if heavy.is_empty() {
        return Ok(PointsOutcome {
            heavy,
            labels: None,
        });
    }
    let mut slot = vec![usize::MAX; n_keys];
    for (h, &key) in heavy.iter().enumerate() {
        slot[key] = h;
    }
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); heavy.len()];
    for (r, &i) in ids.iter().enumerate() {
        if slot[i] != usize::MAX {
            rows[slot[i]].push(r);
        }
    }
    let mut a = Vec::with_capacity(heavy.len());
    let mut b = Vec::with_capacity(heavy.len());
    let mut best_rows = Vec::with_capacity(heavy.len());
    for r in &mut rows {
        // A released heavy point has a positive count: its rows are never empty.
        let (top, at, second) = top_two(r, labels);
        a.push(top);
        b.push(second);
        best_rows.push(at);
    }
    let (q1, q2) = best_two_qualities(&a, &b);
    let scores = [q1 as i64, q2 as i64];
    let released = stable_argmax(Scores::Int(&scores), eps, dlt, 1.0, rng)?;
    let labels = released.map(|_| {
        let k = labels.cols();
        let mut m = Matrix::zeros(heavy.len(), k);
        for (h, &r) in best_rows.iter().enumerate() {
            m.row_mut(h).copy_from_slice(labels.row(r));
        }
        m
    });
    Ok(PointsOutcome { heavy, labels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learn_points_noise_scale_is_four_over_epsilon_rounded_up() {
        for &eps in &[1.0, 0.3, 2.0, 1e4, 1e-6] {
            let b = learn_points_noise_scale(eps).unwrap();
            let v = b.num as f64 / b.den as f64;
            assert!(v >= 4.0 / eps * (1.0 - 1e-15), "{eps}");
            assert!(v <= 4.0 / eps * (1.0 + 1e-15) + 2f64.powi(-30), "{eps}");
            assert!(b.den <= 1 << 30);
        }
        assert!(learn_points_noise_scale(0.0).is_err());
    }

    /// Brute force over every choice of a label vector per heavy point (`k` bits each).
    fn brute_force(counts: &[Vec<u64>]) -> (u64, u64) {
        let h = counts.len();
        let per = counts[0].len();
        let mut values = Vec::new();
        let total = per.pow(h as u32);
        for code in 0..total {
            let mut c = code;
            let mut q = u64::MAX;
            for point in counts {
                q = q.min(point[c % per]);
                c /= per;
            }
            values.push(q);
        }
        values.sort_unstable_by(|a, b| b.cmp(a));
        (values[0], values[1])
    }

    #[test]
    fn closed_form_qualities_match_brute_force() {
        let mut rng = Rng::from_seed(11);
        for _ in 0..300 {
            let h = 1 + rng.below(3) as usize;
            let per = 2 + rng.below(3) as usize; // label vectors per point
            let counts: Vec<Vec<u64>> = (0..h)
                .map(|_| (0..per).map(|_| rng.below(6)).collect())
                .collect();
            let a: Vec<u64> = counts.iter().map(|c| *c.iter().max().unwrap()).collect();
            let b: Vec<u64> = counts
                .iter()
                .map(|c| {
                    let mut s = c.clone();
                    s.sort_unstable_by(|x, y| y.cmp(x));
                    s[1]
                })
                .collect();
            assert_eq!(
                best_two_qualities(&a, &b),
                brute_force(&counts),
                "{counts:?}"
            );
        }
    }

    #[test]
    fn histogram_never_releases_points_outside_the_data() {
        let mut rng = Rng::from_seed(12);
        let counts = [0u64, 40, 0, 1, 0, 300];
        let mut singles = 0;
        for _ in 0..2000 {
            let out = stability_histogram(&counts, 1.0, 1e-3, &mut rng).unwrap();
            assert!(out.iter().all(|&(i, _)| counts[i] > 0));
            assert!(out.windows(2).all(|w| w[0].0 < w[1].0));
            singles += out.iter().filter(|&&(i, _)| i == 3).count();
            assert!(out.iter().any(|&(i, _)| i == 5));
        }
        // A single occurrence is released with probability at most delta / 2 = 5e-4.
        assert!(singles <= 6, "{singles}");
    }

    #[test]
    fn learns_every_concept_of_a_realizable_sample() {
        let mut rng = Rng::from_seed(13);
        let (n_keys, k, n) = (10usize, 200usize, 4000usize);
        // Points 0..3 carry most of the mass; concept j is the point j % 12 (often outside).
        let ids: Vec<usize> = (0..n)
            .map(|_| {
                if rng.below(10) < 8 {
                    rng.below(4) as usize
                } else {
                    4 + rng.below(6) as usize
                }
            })
            .collect();
        let mut labels = Matrix::zeros(n, k);
        for (r, &i) in ids.iter().enumerate() {
            for j in 0..k {
                labels.set(r, j, j % 12 == i);
            }
        }
        let out = learn_points(&ids, n_keys, &labels, 0.1, 1.0, 1e-6, &mut rng).unwrap();
        assert_eq!(&out.heavy[..4], &[0, 1, 2, 3]);
        let released = out
            .labels
            .expect("the stable selection releases the label vectors");
        for (h, &key) in out.heavy.iter().enumerate() {
            for j in 0..k {
                assert_eq!(released.get(h, j), j % 12 == key);
            }
        }
    }

    #[test]
    fn disagreeing_labels_give_bottom() {
        // Agnostic labels at a heavy point: every label vector appears about as often.
        let mut rng = Rng::from_seed(14);
        let n = 3000;
        let ids = vec![0usize; n];
        let labels = Matrix::random(n, 3, &mut rng);
        let out = learn_points(&ids, 1, &labels, 0.1, 1.0, 1e-6, &mut rng).unwrap();
        assert_eq!(out.heavy, vec![0]);
        assert!(out.labels.is_none());
    }

    #[test]
    fn bad_parameters_are_refused() {
        let mut rng = Rng::from_seed(15);
        let labels = Matrix::zeros(3, 2);
        let err = |r: Result<PointsOutcome>| match r {
            Err(Error::InvalidParameter { name, .. }) => name.into_owned(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(learn_points(&[0, 1], 2, &labels, 0.1, 1.0, 1e-6, &mut rng)),
            "Y"
        );
        assert_eq!(
            err(learn_points(
                &[0, 1, 2],
                2,
                &labels,
                0.1,
                1.0,
                1e-6,
                &mut rng
            )),
            "ids"
        );
        assert_eq!(
            err(learn_points(
                &[0, 1, 1],
                2,
                &labels,
                0.0,
                1.0,
                1e-6,
                &mut rng
            )),
            "alpha"
        );
        assert_eq!(
            err(learn_points(
                &[0, 1, 1],
                2,
                &labels,
                0.1,
                -1.0,
                1e-6,
                &mut rng
            )),
            "epsilon"
        );
        assert_eq!(
            err(learn_points(
                &[0, 1, 1],
                2,
                &labels,
                0.1,
                1.0,
                0.0,
                &mut rng
            )),
            "delta"
        );
        let none = Matrix::zeros(3, 0);
        assert_eq!(
            err(learn_points(&[0, 1, 1], 2, &none, 0.1, 1.0, 1e-6, &mut rng)),
            "Y"
        );
    }
}
