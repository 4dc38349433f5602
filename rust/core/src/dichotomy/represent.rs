//! Representatives as functions on the whole domain: evaluating them at any point, and scoring a
//! set of them against labelled points **other than those they were enumerated on**.
//!
//! [`super::score`] scores labelings on the points that produced them (a popcount). Seed 003
//! (Dagan and Feldman, COLT 2020, §3, the algorithm of Theorem 1) needs something else: the class
//! `C_{S'}` is enumerated on a random subset `S'` of the sample, and every representative is then
//! scored on *all* of the sample `S`, so its labels off `S'` matter. [`RepScorer`] does this
//! exactly (the class's own prediction rule, exact predicates for halfspaces) and fast:
//!
//! * thresholds and intervals: the sample is sorted once with prefix counts of its labels, and a
//!   representative's mistakes are two binary searches away, `O(log n)` each;
//! * halfspaces: the exact fused 0-1 kernel of seed 000 ([`zero_one_mistakes`]: records in blocks,
//!   explicit SIMD up to dimension 4, each sign trusted only where a rounding-error bound
//!   certifies it and decided exactly otherwise), parallel over representatives;
//! * rectangles and points: every representative is evaluated on every point, `O(n dim)` each,
//!   in parallel over representatives.
//!
//! The result is the integer number of mistakes, so an exponential mechanism over it needs no
//! rounding (sensitivity 1 under replacing one labelled example).

use rayon::prelude::*;

use super::{Class, check_finite, check_shape};
use crate::error::{Error, Result};
use crate::linear::{LinearData, zero_one_mistakes};
use crate::predicates::affine_sign;

/// Representatives per parallel task of the generic scorer.
const PAR_REPS: usize = 64;
/// Representatives per parallel task of the sorted (one-dimensional) scorer.
const SORTED_REPS: usize = 1 << 13;

impl Class {
    /// Parameters per representative (the raw layout of each class's `params`).
    pub fn param_len(&self) -> usize {
        match *self {
            Class::Thresholds(_) | Class::Intervals => 2,
            Class::Rectangles(d) => 2 * d,
            Class::Halfspaces(d) => d + 1,
            Class::Points(d, _) => d,
        }
    }

    /// The label of `point` (`dim` coordinates) under the representative `params`, exactly as
    /// the Python classes' `predict` computes it. Halfspaces use the exact affine predicate.
    #[inline]
    pub fn eval(&self, params: &[f64], point: &[f64]) -> bool {
        match *self {
            Class::Thresholds(_) => {
                if params[1] > 0.0 {
                    point[0] >= params[0]
                } else {
                    point[0] <= params[0]
                }
            }
            Class::Intervals => params[0] <= point[0] && point[0] <= params[1],
            Class::Rectangles(d) => {
                (0..d).all(|k| params[k] <= point[k] && point[k] <= params[d + k])
            }
            Class::Halfspaces(d) => affine_sign(&params[..d], point, params[d]) >= 0,
            Class::Points(_, _) => params.iter().zip(point).all(|(p, x)| p == x),
        }
    }

    /// Labels of the rows of `x` (`n x dim`) under the representative `params`.
    pub fn predict(&self, params: &[f64], x: &[f64]) -> Result<Vec<bool>> {
        self.check_params(params)?;
        let dim = self.dim();
        check_shape(x, dim, "X")?;
        check_finite(x, "X")?;
        Ok(x.chunks(dim).map(|p| self.eval(params, p)).collect())
    }

    /// Checks the length of one representative's parameters (and that none is NaN).
    pub fn check_params(&self, params: &[f64]) -> Result<()> {
        if params.len() != self.param_len() || params.iter().any(|v| v.is_nan()) {
            return Err(Error::invalid(
                "h",
                format!(
                    "must have {} parameters, none NaN, got {params:?}",
                    self.param_len()
                ),
            ));
        }
        Ok(())
    }
}

/// `pairs` sorted by value (total order), in parallel for large inputs.
pub(crate) fn sort_pairs(mut pairs: Vec<(f64, bool)>) -> Vec<(f64, bool)> {
    if pairs.len() >= 1 << 16 {
        pairs.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    } else {
        pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    }
    pairs
}

/// Sorted values with prefix counts of their labels (one-dimensional classes).
#[derive(Debug, Clone)]
struct Sorted {
    /// The values, increasing (`-0.0` canonicalised to `0.0`).
    xs: Vec<f64>,
    /// `ones[k]` = number of label-1 points among the `k` smallest values (length `n + 1`).
    ones: Vec<u64>,
}

impl Sorted {
    fn new(x: &[f64], y: &[bool]) -> Self {
        // Sorting the (value, label) pairs themselves (contiguous, in parallel when large)
        // instead of indices into `x`: scoring 1002 thresholds on 10^7 points went from 2.33 s
        // to 0.87 s (release build, 2 cores). Ties may come out in any order: every count is
        // read at a boundary between distinct values.
        let pairs = sort_pairs(x.iter().map(|&v| v + 0.0).zip(y.iter().copied()).collect());
        let mut ones = Vec::with_capacity(pairs.len() + 1);
        ones.push(0);
        let mut c = 0;
        for &(_, label) in &pairs {
            c += u64::from(label);
            ones.push(c);
        }
        let xs = pairs.into_iter().map(|(v, _)| v).collect();
        Sorted { xs, ones }
    }

    /// Number of values `< t`.
    #[inline]
    fn below(&self, t: f64) -> usize {
        self.xs.partition_point(|&v| v < t)
    }

    /// Number of values `<= t`.
    #[inline]
    fn at_most(&self, t: f64) -> usize {
        self.xs.partition_point(|&v| v <= t)
    }

    fn n(&self) -> usize {
        self.xs.len()
    }

    /// The number of values `< t` (`strict`) or `<= t`, searched from the previous answer of
    /// the same kind (`finger`: its key and answer) by galloping: consecutive representatives
    /// of an enumeration have nearby ends, so this costs `O(log gap)` instead of `O(log n)`.
    fn search(&self, t: f64, strict: bool, finger: &mut (f64, usize)) -> usize {
        let xs = &self.xs;
        let n = xs.len();
        let pred = |v: f64| if strict { v < t } else { v <= t };
        let (key, at) = *finger;
        let (mut lo, mut hi);
        if t >= key {
            // The answer is at least `at`: probe at + 0, 1, 3, 7, ...
            lo = at;
            hi = n;
            let mut step = 1;
            let mut i = at;
            while i < n {
                if pred(xs[i]) {
                    lo = i + 1;
                    i = at + step;
                    step *= 2;
                } else {
                    hi = i;
                    break;
                }
            }
        } else {
            // The answer is at most `at`: probe at - 1, 2, 4, ...
            hi = at;
            lo = 0;
            let mut step = 1;
            while step <= at {
                let i = at - step;
                if pred(xs[i]) {
                    lo = i + 1;
                    break;
                }
                hi = i;
                step *= 2;
            }
        }
        let pos = lo + xs[lo..hi.max(lo)].partition_point(|&v| pred(v));
        *finger = (t, pos);
        pos
    }

    /// Mistakes of a threshold or interval representative, searching with fingers.
    fn mistakes_with(&self, class: Class, params: &[f64], f: &mut [(f64, usize); 2]) -> u64 {
        match class {
            Class::Thresholds(_) => {
                if params[1] > 0.0 {
                    self.mistakes_run(self.search(params[0], true, &mut f[0]), self.n())
                } else {
                    self.mistakes_run(0, self.search(params[0], false, &mut f[1]))
                }
            }
            _ => {
                let lo = self.search(params[0], true, &mut f[0]);
                self.mistakes_run(lo, self.search(params[1], false, &mut f[1]))
            }
        }
    }

    fn total_ones(&self) -> u64 {
        self.ones[self.n()]
    }

    /// Mistakes of the labeling "1 exactly on the sorted positions `lo..hi`".
    #[inline]
    fn mistakes_run(&self, lo: usize, hi: usize) -> u64 {
        if lo >= hi {
            return self.total_ones();
        }
        let inside_ones = self.ones[hi] - self.ones[lo];
        let inside_zeros = (hi - lo) as u64 - inside_ones;
        inside_zeros + (self.total_ones() - inside_ones)
    }
}

/// Labelled points ready to score representatives of a [`Class`] on them.
///
/// Built once per sample; [`RepScorer::mistakes`] then scores any set of representatives (for
/// example the class `C_{S'}` of a subset `S'` of these very points) against all of them.
#[derive(Debug, Clone)]
pub struct RepScorer {
    class: Class,
    x: Vec<f64>,
    y: Vec<bool>,
    sorted: Option<Sorted>,
    /// Halfspaces: the data laid out for the exact 0-1 kernel of [`zero_one_mistakes`].
    linear: Option<Box<LinearData>>,
}

impl RepScorer {
    /// A scorer for the rows of `x` (`n x dim`, finite values) with labels `y`, for many
    /// representatives.
    pub fn new(class: Class, x: &[f64], y: &[bool]) -> Result<Self> {
        let n = check_shape(x, class.dim(), "X")?;
        check_finite(x, "X")?;
        if y.len() != n {
            return Err(Error::invalid(
                "y",
                format!("must have one label per row of X ({n}), got {}", y.len()),
            ));
        }
        let sorted = match class {
            Class::Thresholds(_) | Class::Intervals => Some(Sorted::new(x, y)),
            _ => None,
        };
        let linear = match class {
            Class::Halfspaces(d) => {
                let labels: Vec<f64> = y.iter().map(|&b| f64::from(u8::from(b))).collect();
                Some(Box::new(LinearData::new(x, &labels, d)?))
            }
            _ => None,
        };
        Ok(RepScorer {
            class,
            x: x.to_vec(),
            y: y.to_vec(),
            sorted,
            linear,
        })
    }

    /// The class.
    pub fn class(&self) -> Class {
        self.class
    }

    /// Number of labelled points.
    pub fn n_points(&self) -> usize {
        self.y.len()
    }

    /// The points, row-major.
    pub fn points(&self) -> &[f64] {
        &self.x
    }

    /// The labels.
    pub fn labels(&self) -> &[bool] {
        &self.y
    }

    /// Mistakes of one representative on the labelled points.
    pub fn mistakes_one(&self, params: &[f64]) -> u64 {
        if let Some(s) = &self.sorted {
            return match self.class {
                Class::Thresholds(_) => {
                    let t = params[0];
                    if params[1] > 0.0 {
                        s.mistakes_run(s.below(t), s.n())
                    } else {
                        s.mistakes_run(0, s.at_most(t))
                    }
                }
                _ => s.mistakes_run(s.below(params[0]), s.at_most(params[1])),
            };
        }
        self.scan(params)
    }

    /// Mistakes of one representative, evaluating it on every point.
    fn scan(&self, params: &[f64]) -> u64 {
        let dim = self.class.dim();
        self.x
            .chunks(dim)
            .zip(&self.y)
            .map(|(p, &y)| u64::from(self.class.eval(params, p) != y))
            .sum()
    }

    /// Mistakes of every representative in `params` (`param_len()` values each, row after row),
    /// exactly. Parallel over representatives when they are many.
    pub fn mistakes(&self, params: &[f64]) -> Result<Vec<u64>> {
        let plen = self.class.param_len();
        if !params.len().is_multiple_of(plen) {
            return Err(Error::invalid(
                "params",
                format!(
                    "must hold {plen} values per representative, got {}",
                    params.len()
                ),
            ));
        }
        if params.iter().any(|v| v.is_nan()) {
            return Err(Error::invalid("params", "must not hold NaN"));
        }
        let count = params.len() / plen;
        if let Some(sorted) = &self.sorted {
            // Fingered searches, in parallel blocks of consecutive representatives.
            let mut out = vec![0u64; count];
            let start = [(f64::NEG_INFINITY, 0usize); 2];
            out.par_chunks_mut(SORTED_REPS)
                .zip(params.par_chunks(SORTED_REPS * plen))
                .for_each(|(o, p)| {
                    let mut fingers = start;
                    for (oi, pi) in o.iter_mut().zip(p.chunks(plen)) {
                        *oi = sorted.mistakes_with(self.class, pi, &mut fingers);
                    }
                });
            return Ok(out);
        }
        let cheap = count * self.n_points() < 1 << 15;
        if cheap {
            return Ok(params.chunks(plen).map(|p| self.mistakes_one(p)).collect());
        }
        if let Some(data) = &self.linear
            && params.iter().all(|v| v.is_finite())
        {
            // The fused kernel decides every sign `w . x + b >= 0` exactly, as `eval` does.
            let d = plen - 1;
            let mut coef = Vec::with_capacity(count * d);
            let mut intercept = Vec::with_capacity(count);
            for p in params.chunks(plen) {
                coef.extend_from_slice(&p[..d]);
                intercept.push(p[d]);
            }
            return zero_one_mistakes(&coef, &intercept, data);
        }
        let mut out = vec![0u64; count];
        out.par_chunks_mut(PAR_REPS)
            .zip(params.par_chunks(PAR_REPS * plen))
            .for_each(|(o, p)| {
                for (oi, pi) in o.iter_mut().zip(p.chunks(plen)) {
                    *oi = self.mistakes_one(pi);
                }
            });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::thresholds::Orientation;

    fn lcg(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % 7) as f64 / 2.0 - 1.0
            })
            .collect()
    }

    fn brute(class: Class, params: &[f64], x: &[f64], y: &[bool]) -> u64 {
        let dim = class.dim();
        x.chunks(dim)
            .zip(y)
            .map(|(p, &l)| u64::from(class.eval(params, p) != l))
            .sum()
    }

    #[test]
    fn sorted_scoring_matches_evaluation() {
        for (k, class) in [
            Class::Thresholds(Orientation::Ge),
            Class::Thresholds(Orientation::Le),
            Class::Thresholds(Orientation::Both),
            Class::Intervals,
        ]
        .into_iter()
        .enumerate()
        {
            let x = lcg(40, k as u64 + 1);
            let y: Vec<bool> = lcg(40, k as u64 + 17).iter().map(|v| *v > 0.0).collect();
            let sub: Vec<f64> = x[..9].to_vec();
            let d = class.collect(&sub, usize::MAX).unwrap();
            let s = RepScorer::new(class, &x, &y).unwrap();
            let got = s.mistakes(d.params_flat()).unwrap();
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, brute(class, d.params(i), &x, &y), "{class:?} rep {i}");
            }
            // Representatives in reverse and shuffled order (the fingers move both ways).
            let mut rev: Vec<f64> = d.params_flat().chunks(2).rev().flatten().copied().collect();
            assert_eq!(
                s.mistakes(&rev).unwrap(),
                got.iter().rev().copied().collect::<Vec<_>>()
            );
            rev.rotate_left(2 * (d.len() / 3));
            let direct: Vec<u64> = rev.chunks(2).map(|p| brute(class, p, &x, &y)).collect();
            assert_eq!(s.mistakes(&rev).unwrap(), direct);
            // Signed zeros and infinite ends.
            for p in [
                [0.0, 1.0],
                [-0.0, -1.0],
                [f64::INFINITY, 1.0],
                [f64::NEG_INFINITY, -1.0],
            ] {
                assert_eq!(s.mistakes_one(&p), brute(class, &p, &x, &y));
            }
        }
    }

    #[test]
    fn generic_scoring_matches_evaluation() {
        for class in [
            Class::Halfspaces(2),
            Class::Rectangles(2),
            Class::Points(2, None),
        ] {
            let x = lcg(2 * 300, 5);
            let y: Vec<bool> = lcg(300, 9).iter().map(|v| *v > 0.0).collect();
            let d = class.collect(&x[..2 * 12], usize::MAX).unwrap();
            let s = RepScorer::new(class, &x, &y).unwrap();
            let got = s.mistakes(d.params_flat()).unwrap();
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, brute(class, d.params(i), &x, &y), "{class:?} rep {i}");
            }
        }
    }

    #[test]
    fn linear_kernel_scoring_is_exact() {
        // Halfspaces go through the exact 0-1 kernel of seed 000. The
        // points lie on a grid of half-integers, so many lie exactly on the hyperplanes scored.
        for dim in [1usize, 2, 3, 5] {
            let class = Class::Halfspaces(dim);
            let n = 2000;
            let x = lcg(dim * n, 30 + dim as u64);
            let y: Vec<bool> = lcg(n, 50 + dim as u64).iter().map(|v| *v > 0.0).collect();
            let s = RepScorer::new(class, &x, &y).unwrap();
            assert!(s.linear.is_some());
            let d = class.collect(&x[..dim * 12], usize::MAX).unwrap();
            let mut params: Vec<f64> = d
                .params_flat()
                .chunks(dim + 1)
                .filter(|p| !p.iter().any(|v| v.is_nan()))
                .flatten()
                .copied()
                .collect();
            for i in 0..40 {
                // Through sample point i: w = (1, -1, 1, ...), b = -w . x_i, and its negation.
                let w: Vec<f64> = (0..dim)
                    .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 })
                    .collect();
                let b = -(0..dim).map(|k| w[k] * x[i * dim + k]).sum::<f64>();
                params.extend(w.iter().copied().chain([b]));
                params.extend(w.iter().map(|v| -v).chain([-b]));
            }
            let got = s.mistakes(&params).unwrap();
            assert!(
                got.len() * n >= 1 << 15,
                "dim {dim}: the batch path must be taken"
            );
            for (i, g) in got.iter().enumerate() {
                let p = &params[(dim + 1) * i..(dim + 1) * (i + 1)];
                assert_eq!(*g, brute(class, p, &x, &y), "dim {dim} rep {i}: {p:?}");
            }
        }
    }

    #[test]
    fn planar_scoring_is_exact_on_hard_inputs() {
        // Random points, points on a far-away cluster, points on a line and duplicates; the
        // representatives of subsets plus hand-made lines through sample points.
        let mut clouds: Vec<Vec<f64>> = vec![
            lcg(2 * 500, 21),
            lcg(2 * 400, 22).iter().map(|v| 1e6 + v * 1e-3).collect(),
            (0..300)
                .flat_map(|i| [i as f64, 2.0 * i as f64 + 1.0])
                .collect(),
        ];
        clouds.push(clouds[0].iter().map(|v| v.round()).collect());
        for (k, x) in clouds.iter().enumerate() {
            let n = x.len() / 2;
            let y: Vec<bool> = lcg(n, 40 + k as u64).iter().map(|v| *v > -0.2).collect();
            let class = Class::Halfspaces(2);
            let s = RepScorer::new(class, x, &y).unwrap();
            let d = class.collect(&x[..2 * 25], usize::MAX).unwrap();
            let mut params = d.params_flat().to_vec();
            for i in 0..20 {
                let (p, q) = (&x[2 * i..2 * i + 2], &x[2 * i + 2..2 * i + 4]);
                // The line through two sample points, both orientations, and tiny tilts.
                let w = [q[1] - p[1], p[0] - q[0]];
                let b = -(w[0] * p[0] + w[1] * p[1]);
                params.extend_from_slice(&[w[0], w[1], b, -w[0], -w[1], -b]);
                params.extend_from_slice(&[w[0] * (1.0 + 1e-13), w[1], b, 0.0, 0.0, 1.0]);
            }
            let got = s.mistakes(&params).unwrap();
            for (i, g) in got.iter().enumerate() {
                let p = &params[3 * i..3 * i + 3];
                assert_eq!(*g, brute(class, p, x, &y), "cloud {k} rep {i}: {p:?}");
            }
        }
    }

    #[test]
    fn representatives_reproduce_their_labelings() {
        let x = lcg(2 * 15, 3);
        for class in [
            Class::Halfspaces(2),
            Class::Rectangles(2),
            Class::Points(2, None),
        ] {
            let d = class.collect(&x, usize::MAX).unwrap();
            for i in 0..d.len() {
                let p = class.predict(d.params(i), &x).unwrap();
                for (j, &b) in p.iter().enumerate() {
                    assert_eq!(b, d.bit(i, j));
                }
            }
        }
    }

    #[test]
    fn bad_inputs() {
        let c = Class::Intervals;
        assert!(RepScorer::new(c, &[0.0, f64::NAN], &[true, false]).is_err());
        assert!(RepScorer::new(c, &[0.0, 1.0], &[true]).is_err());
        let s = RepScorer::new(c, &[0.0, 1.0], &[true, false]).unwrap();
        assert!(s.mistakes(&[0.0]).is_err());
        assert!(s.mistakes(&[0.0, f64::NAN]).is_err());
        assert!(c.predict(&[0.0], &[1.0]).is_err());
    }
}
