//! Axis-aligned boxes in `R^d`: `h(x) = 1[lo_k <= x_k <= hi_k for every k]` (empty when some
//! `lo_k > hi_k`).
//!
//! **Algorithm** (range-by-range sweep, duplicate-free; anchors note §4): a non-empty set `S` of
//! the distinct points is a labeling iff `S` is the set of points inside its own bounding box,
//! and that box is unique. So the labelings other than the empty one correspond one-to-one to the
//! *tight* boxes: boxes whose every face holds a point of `S`. The generator fixes a range of
//! distinct values of coordinate 0, then (among the points in that slab) of coordinate 1, and so
//! on; in the last coordinate it sweeps the runs of distinct values with an incremental bitset
//! and emits a run only when every face of the box is touched. Each labeling is produced exactly
//! once, with no hashing or sorting of labelings; the cost is `O(m^{2d})` boxes, each emitted
//! with one copy of its words. Axis-aligned rectangles in the plane have VC dimension 4 (boxes in
//! `R^d`: `2d`), and the count never exceeds Sauer–Shelah's bound.
//!
//! **Representatives** `[lo_0..lo_{d-1}, hi_0..hi_{d-1}]`: the tight box widened to the cuts
//! between its faces and the neighbouring distinct coordinate values of the whole sample
//! (rounded mid-points, see [`super::cut_above`]), or to `-inf`/`+inf` at the extremes; the empty
//! labeling is `lo = +inf, hi = -inf`. They depend on the set of points only.
//!
//! **Order**: the empty labeling, then the boxes in lexicographic order of their ranges of
//! distinct values (coordinate 0's range first, the last coordinate's run last).

use super::{Dichotomies, Grouped, Source, cut_above, cut_below, words_for};
use crate::error::{Error, Result};

struct Level {
    cand: Vec<u32>,
    vals: Vec<f64>,
    i: usize,
    j: usize,
}

/// Points of the current slab grouped by their last coordinate.
struct Inner {
    vals: Vec<f64>,
    groups: Vec<Vec<u32>>,
    a: usize,
}

/// Streaming generator of the box labelings of `x` (`n x d`, row-major).
pub struct Rectangles {
    g: Grouped,
    d: usize,
    /// Distinct values of every coordinate over the whole sample (for the cuts).
    axis: Vec<Vec<f64>>,
    levels: Vec<Level>,
    inner: Option<Inner>,
    started: bool,
    empty_done: bool,
}

fn distinct(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_unstable_by(f64::total_cmp);
    v.dedup();
    v
}

impl Rectangles {
    /// A generator over the rows of `x` (finite), `d >= 1` coordinates each.
    pub fn new(x: &[f64], d: usize) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("dim", "must be at least 1"));
        }
        super::check_shape(x, d, "X")?;
        super::check_finite(x, "X")?;
        let order: Vec<usize> = (0..d).collect();
        let g = Grouped::new(x, d, &order);
        let axis = (0..d)
            .map(|k| distinct((0..g.len()).map(|p| g.point(p)[k]).collect()))
            .collect();
        Ok(Rectangles {
            g,
            d,
            axis,
            levels: Vec::new(),
            inner: None,
            started: false,
            empty_done: false,
        })
    }

    fn coord(&self, p: u32, k: usize) -> f64 {
        self.g.pts[p as usize * self.d + k]
    }

    /// `[lo, hi]` widened to the cuts around the distinct values of coordinate `k`.
    fn widen(&self, k: usize, lo: f64, hi: f64) -> (f64, f64) {
        let ax = &self.axis[k];
        let il = ax.partition_point(|&v| v < lo);
        let ih = ax.partition_point(|&v| v <= hi);
        let a = if il == 0 {
            f64::NEG_INFINITY
        } else {
            cut_above(ax[il - 1], lo)
        };
        let b = if ih == ax.len() {
            f64::INFINITY
        } else {
            cut_below(hi, ax[ih])
        };
        (a, b)
    }

    fn make_level(&self, cand: Vec<u32>, k: usize) -> Level {
        let vals = distinct(cand.iter().map(|&p| self.coord(p, k)).collect());
        Level {
            cand,
            vals,
            i: 0,
            j: 0,
        }
    }

    /// Points of `level`'s candidates inside its current range of coordinate `k`.
    fn filter(&self, level: &Level, k: usize) -> Vec<u32> {
        let (lo, hi) = (level.vals[level.i], level.vals[level.j]);
        level
            .cand
            .iter()
            .copied()
            .filter(|&p| {
                let v = self.coord(p, k);
                lo <= v && v <= hi
            })
            .collect()
    }

    /// Builds the levels below `from` (with their first ranges) and the inner sweep.
    fn descend(&mut self, from: usize) {
        self.levels.truncate(from + 1);
        let outer = self.d - 1;
        while self.levels.len() < outer {
            let k = self.levels.len() - 1;
            let cand = self.filter(&self.levels[k], k);
            let lvl = self.make_level(cand, k + 1);
            self.levels.push(lvl);
        }
        let cand = if outer == 0 {
            (0..self.g.len() as u32).collect()
        } else {
            self.filter(&self.levels[outer - 1], outer - 1)
        };
        let mut sorted = cand;
        let last = self.d - 1;
        sorted.sort_unstable_by(|&a, &b| self.coord(a, last).total_cmp(&self.coord(b, last)));
        let mut vals: Vec<f64> = Vec::new();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for p in sorted {
            let v = self.coord(p, last);
            if vals.last() != Some(&v) {
                vals.push(v);
                groups.push(Vec::new());
            }
            groups.last_mut().expect("pushed above").push(p);
        }
        self.inner = Some(Inner { vals, groups, a: 0 });
    }

    /// Moves to the next combination of outer ranges; `false` when there is none.
    fn step_outer(&mut self) -> bool {
        if !self.started {
            self.started = true;
            if self.g.is_empty() {
                return false;
            }
            if self.d > 1 {
                let all: Vec<u32> = (0..self.g.len() as u32).collect();
                let l0 = self.make_level(all, 0);
                self.levels.push(l0);
            }
            self.descend(0);
            return true;
        }
        let mut k = self.levels.len();
        while k > 0 {
            let lvl = &mut self.levels[k - 1];
            lvl.j += 1;
            if lvl.j == lvl.vals.len() {
                lvl.i += 1;
                lvl.j = lvl.i;
            }
            if lvl.i < lvl.vals.len() {
                self.descend(k - 1);
                return true;
            }
            k -= 1;
        }
        false
    }

    /// Runs the inner sweep from left group `a`, calling `emit(label, params)` for every tight
    /// box; with `build = false` no label is built (counting).
    fn sweep(&self, a: usize, build: bool, mut emit: impl FnMut(&[u64], &[f64])) {
        let inner = self.inner.as_ref().expect("inner sweep set up");
        let outer = self.d - 1;
        let need: u64 = if outer == 0 {
            0
        } else {
            (1u64 << (2 * outer)) - 1
        };
        let bounds: Vec<(f64, f64)> = self.levels[..outer]
            .iter()
            .map(|l| (l.vals[l.i], l.vals[l.j]))
            .collect();
        let mut params = vec![0.0; 2 * self.d];
        for (k, &(lo, hi)) in bounds.iter().enumerate() {
            let (wl, wh) = self.widen(k, lo, hi);
            params[k] = wl;
            params[self.d + k] = wh;
        }
        let mut cur = vec![0u64; if build { words_for(self.g.n) } else { 0 }];
        let mut flags = 0u64;
        for b in a..inner.groups.len() {
            for &p in &inner.groups[b] {
                for (k, &(lo, hi)) in bounds.iter().enumerate() {
                    let v = self.coord(p, k);
                    if v == lo {
                        flags |= 1 << (2 * k);
                    }
                    if v == hi {
                        flags |= 2 << (2 * k);
                    }
                }
                if build {
                    self.g.set(&mut cur, p as usize);
                }
            }
            if flags == need {
                let (wl, wh) = self.widen(outer, inner.vals[a], inner.vals[b]);
                params[outer] = wl;
                params[self.d + outer] = wh;
                emit(&cur, &params);
            }
        }
    }

    /// Number of labelings, by running the generator without building labels.
    pub fn count(mut self) -> u128 {
        let mut total = 1u128;
        while self.step_outer() {
            let groups = self.inner.as_ref().map_or(0, |i| i.groups.len());
            for a in 0..groups {
                self.sweep(a, false, |_, _| total += 1);
            }
        }
        total
    }
}

/// The best box of one slab (a range of distinct x values): its gain, its run `(a, b)` of the
/// slab's distinct y values, and how many tight boxes of the slab precede it in the order.
struct SlabBest {
    gain: i128,
    a: usize,
    b: usize,
    before: usize,
}

/// Work buffers of the planar ERM, indexed by global y rank or by position in a slab.
struct PlaneScratch {
    gain: Vec<i128>,
    present: Vec<u32>,
    mark_i: Vec<u32>,
    mark_j: Vec<u32>,
    ranks: Vec<usize>,
    prefix: Vec<i128>,
    reach: Vec<isize>,
    suf_max: Vec<i128>,
    suf_arg: Vec<usize>,
}

impl PlaneScratch {
    fn new(uy: usize) -> Self {
        PlaneScratch {
            gain: vec![0; uy],
            present: vec![0; uy],
            mark_i: vec![u32::MAX; uy],
            mark_j: vec![u32::MAX; uy],
            ranks: Vec::with_capacity(uy),
            prefix: Vec::with_capacity(uy + 1),
            reach: Vec::with_capacity(uy),
            suf_max: vec![0; uy + 1],
            suf_arg: vec![0; uy + 1],
        }
    }

    /// The slab made of columns `i..=j` (their points already added to `gain` and `present`,
    /// `mark_i`/`mark_j` holding `i`/`j` at the y ranks of columns `i` and `j`): the number of
    /// its tight boxes, and its best box of positive gain, the first in the order on ties.
    ///
    /// In the slab's sorted distinct y values (positions `0..m`), the run `[a, b]` gives a tight
    /// box iff it holds a y value of column `i` and one of column `j`, that is iff `a <=
    /// reach[b]` with `reach[b]` the smaller of the last positions `<= b` of the two columns
    /// (`-1` if none). `reach` is non-decreasing, so the runs starting at `a` are those ending at
    /// or after the first `b` with `reach[b] >= a`, and the best of them ends at the first
    /// maximum of the prefix sums from there on.
    fn slab(&mut self, i: u32, j: u32) -> (usize, Option<SlabBest>) {
        self.ranks.clear();
        self.prefix.clear();
        self.reach.clear();
        self.prefix.push(0);
        let (mut last_i, mut last_j) = (-1isize, -1isize);
        for r in 0..self.gain.len() {
            if self.present[r] == 0 {
                continue;
            }
            let t = self.ranks.len() as isize;
            if self.mark_i[r] == i {
                last_i = t;
            }
            if self.mark_j[r] == j {
                last_j = t;
            }
            self.ranks.push(r);
            let next = self.prefix[t as usize] + self.gain[r];
            self.prefix.push(next);
            self.reach.push(last_i.min(last_j));
        }
        let m = self.ranks.len();
        let count: usize = self.reach.iter().map(|&r| (r + 1) as usize).sum();
        // suf_max[t] = max of prefix[t'+1] over t' >= t, first maximiser in suf_arg[t].
        for t in (0..m).rev() {
            let here = self.prefix[t + 1];
            if t + 1 == m || here >= self.suf_max[t + 1] {
                self.suf_max[t] = here;
                self.suf_arg[t] = t;
            } else {
                self.suf_max[t] = self.suf_max[t + 1];
                self.suf_arg[t] = self.suf_arg[t + 1];
            }
        }
        let mut best: Option<(i128, usize, usize)> = None;
        let mut b0 = 0;
        for a in 0..m {
            while b0 < m && self.reach[b0] < a as isize {
                b0 += 1;
            }
            if b0 == m {
                break;
            }
            let g = self.suf_max[b0] - self.prefix[a];
            if g > 0 && best.is_none_or(|(bg, _, _)| g > bg) {
                best = Some((g, a, self.suf_arg[b0]));
            }
        }
        let best = best.map(|(gain, a, b)| {
            // Tight boxes of this slab before (a, b): every run starting before `a`, then
            // those starting at `a` and ending before `b`.
            let mut before: usize = self
                .reach
                .iter()
                .map(|&r| (r + 1).min(a as isize) as usize)
                .sum();
            before += (0..b).filter(|&t| self.reach[t] >= a as isize).count();
            SlabBest { gain, a, b, before }
        });
        (count, best)
    }
}

/// Exact empirical-risk minimisation over axis-aligned rectangles in the plane in
/// `O(U_x^2 U_y)` time (`U` the numbers of distinct coordinates) instead of enumerating the
/// `O(n^4)` labelings: the index (in the order of [`Rectangles`]' output) and representative of
/// the first labeling of minimal error.
///
/// `gains[i]` is point `i`'s signed exact weight, `+w_i` if its label is 1 and `-w_i` if 0 (see
/// [`super::score::Scorer::signed_weights`]). A labeling's error is the total positive weight
/// minus its gain (the sum of the gains inside the box), so a minimal error is a maximal gain;
/// the empty labeling (first in the order) has gain 0. For every range of distinct x values the
/// best tight box is found by prefix sums over the slab's distinct y values (see
/// `PlaneScratch::slab`); ties go to the first box in the generator's order (x range, then y
/// run, each lexicographic), and the sums are exact integers, so the answer is the generator's
/// own first minimiser. Parallel over the left end of the x range.
pub fn erm_plane(x: &[f64], gains: &[i128]) -> Result<(usize, Vec<f64>)> {
    let rect = Rectangles::new(x, 2)?;
    let g = &rect.g;
    if gains.len() != g.n {
        return Err(Error::invalid(
            "y",
            format!(
                "must have one label per row of X ({}), got {}",
                g.n,
                gains.len()
            ),
        ));
    }
    let (xs, ys) = (&rect.axis[0], &rect.axis[1]);
    let (ux, uy) = (xs.len(), ys.len());
    // Distinct points by column (x rank), each with its y rank and total gain.
    let mut columns: Vec<Vec<(usize, i128)>> = vec![Vec::new(); ux];
    for p in 0..g.len() {
        let pt = g.point(p);
        let cx = xs.partition_point(|&v| v < pt[0]);
        let ry = ys.partition_point(|&v| v < pt[1]);
        let w: i128 = g.rows_of(p).iter().map(|&r| gains[r as usize]).sum();
        columns[cx].push((ry, w));
    }
    use rayon::prelude::*;
    // Per left column i: (tight boxes over all its slabs, best (gain, j, a, b, boxes before)).
    type Best = (i128, usize, usize, usize, usize);
    let per_i: Vec<(usize, Option<Best>)> = (0..ux)
        .into_par_iter()
        .map_init(
            || PlaneScratch::new(uy),
            |sc, i| {
                sc.gain.iter_mut().for_each(|v| *v = 0);
                sc.present.iter_mut().for_each(|v| *v = 0);
                for &(r, _) in &columns[i] {
                    sc.mark_i[r] = i as u32;
                }
                let mut total = 0usize;
                let mut best: Option<Best> = None;
                for (j, col) in columns.iter().enumerate().skip(i) {
                    for &(r, w) in col {
                        sc.gain[r] += w;
                        sc.present[r] += 1;
                        sc.mark_j[r] = j as u32;
                    }
                    let (count, slab) = sc.slab(i as u32, j as u32);
                    if let Some(s) = slab
                        && best.is_none_or(|b| s.gain > b.0)
                    {
                        best = Some((s.gain, j, s.a, s.b, total + s.before));
                    }
                    total += count;
                }
                (total, best)
            },
        )
        .collect();
    let mut offset = 1usize; // the empty labeling comes first
    let mut best: Option<(i128, usize, Best)> = None;
    for (i, (total, b)) in per_i.into_iter().enumerate() {
        if let Some(b) = b
            && best.as_ref().is_none_or(|(g0, _, _)| b.0 > *g0)
        {
            best = Some((b.0, i, (b.0, b.1, b.2, b.3, offset + b.4)));
        }
        offset += total;
    }
    let Some((_, i, (_, j, a, b, index))) = best else {
        let mut params = vec![f64::INFINITY; 2];
        params.extend([f64::NEG_INFINITY; 2]);
        return Ok((0, params));
    };
    // The y values of the chosen slab, to map the run back to coordinates.
    let mut in_slab = vec![false; uy];
    for col in &columns[i..=j] {
        for &(r, _) in col {
            in_slab[r] = true;
        }
    }
    let slab_ys: Vec<f64> = (0..uy).filter(|&r| in_slab[r]).map(|r| ys[r]).collect();
    let (x_lo, x_hi) = rect.widen(0, xs[i], xs[j]);
    let (y_lo, y_hi) = rect.widen(1, slab_ys[a], slab_ys[b]);
    Ok((index, vec![x_lo, y_lo, x_hi, y_hi]))
}

impl Source for Rectangles {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        2 * self.d
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        if !self.empty_done {
            self.empty_done = true;
            let mut p = vec![f64::INFINITY; self.d];
            p.extend(std::iter::repeat_n(f64::NEG_INFINITY, self.d));
            out.push(&vec![0u64; words_for(self.g.n)], &p);
            return true;
        }
        loop {
            if let Some(inner) = &self.inner
                && inner.a < inner.groups.len()
            {
                let a = inner.a;
                self.sweep(a, true, |l, p| out.push(l, p));
                self.inner.as_mut().expect("checked").a += 1;
                return true;
            }
            if !self.step_outer() {
                return false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::collect;
    use crate::dichotomy::score::{Scorer, erm_stream};
    use crate::rng::Rng;
    use std::collections::BTreeSet;

    fn inside(p: &[f64], x: &[f64]) -> bool {
        let d = x.len();
        (0..d).all(|k| p[k] <= x[k] && x[k] <= p[d + k])
    }

    /// Every subset of the points that equals the points inside its bounding box.
    fn brute(x: &[f64], d: usize) -> BTreeSet<Vec<bool>> {
        let n = x.len() / d;
        let mut out = BTreeSet::new();
        out.insert(vec![false; n]);
        for mask in 1u32..(1 << n) {
            let sel: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
            let lo: Vec<f64> = (0..d)
                .map(|k| {
                    sel.iter()
                        .map(|&i| x[i * d + k])
                        .fold(f64::INFINITY, f64::min)
                })
                .collect();
            let hi: Vec<f64> = (0..d)
                .map(|k| {
                    sel.iter()
                        .map(|&i| x[i * d + k])
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect();
            let lab: Vec<bool> = (0..n)
                .map(|i| (0..d).all(|k| lo[k] <= x[i * d + k] && x[i * d + k] <= hi[k]))
                .collect();
            out.insert(lab);
        }
        out
    }

    fn check(x: &[f64], d: usize) {
        let n = x.len() / d;
        let d_ = collect(&mut Rectangles::new(x, d).unwrap(), usize::MAX).unwrap();
        let mut got = BTreeSet::new();
        for i in 0..d_.len() {
            let lab: Vec<bool> = (0..n).map(|j| d_.bit(i, j)).collect();
            for j in 0..n {
                assert_eq!(lab[j], inside(d_.params(i), &x[j * d..(j + 1) * d]));
            }
            assert!(got.insert(lab), "duplicate labeling");
        }
        assert_eq!(got, brute(x, d));
        assert_eq!(Rectangles::new(x, d).unwrap().count(), got.len() as u128);
    }

    #[test]
    fn matches_brute_force_with_ties_and_duplicates() {
        check(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.5], 2);
        check(
            &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 1.0],
            2,
        );
        let x: Vec<f64> = (0..20).map(|i| ((i * 7) % 5) as f64).collect();
        check(&x, 2);
        check(&x, 1);
        let y: Vec<f64> = (0..24).map(|i| ((i * 11) % 7) as f64 * 0.25).collect();
        check(&y, 3);
        check(&[], 2);
    }

    /// The enumerating ERM (every labeling scored by the [`Scorer`]) that [`erm_plane`] replaces.
    fn erm_by_enumeration(x: &[f64], scorer: &Scorer) -> (usize, Vec<f64>) {
        erm_stream(&mut Rectangles::new(x, 2).unwrap(), scorer)
            .unwrap()
            .unwrap()
    }

    fn plane(x: &[f64], scorer: &Scorer) -> (usize, Vec<f64>) {
        erm_plane(x, &scorer.signed_weights().unwrap()).unwrap()
    }

    #[test]
    fn planar_erm_is_the_enumerations_first_minimiser() {
        let mut rng = Rng::from_seed(41);
        let mut nontrivial = 0;
        for trial in 0..600 {
            let n = 1 + rng.below(24) as usize;
            // Coordinates on a small grid: many ties, duplicate points with either label.
            let grid = 2 + rng.below(6);
            let x: Vec<f64> = (0..2 * n).map(|_| rng.below(grid) as f64 * 0.5).collect();
            let p_one = rng.below(5);
            let y: Vec<bool> = (0..n).map(|_| rng.below(4) < p_one).collect();
            let weights: Option<Vec<f64>> = match trial % 3 {
                0 => None,
                1 => Some((0..n).map(|_| rng.below(4) as f64).collect()),
                _ => Some(
                    (0..n)
                        .map(|_| rng.uniform_f64() * 2f64.powi(rng.below(40) as i32 - 20))
                        .collect(),
                ),
            };
            let scorer = Scorer::new(&y, weights.as_deref()).unwrap();
            let want = erm_by_enumeration(&x, &scorer);
            assert_eq!(
                plane(&x, &scorer),
                want,
                "trial {trial}: x {x:?} y {y:?} w {weights:?}"
            );
            nontrivial += usize::from(want.0 > 1);
        }
        assert!(
            nontrivial > 300,
            "too few instances away from the first two labelings"
        );
        // No points; all labels 0 (the empty labeling); all labels 1 (the box of everything).
        let s0 = Scorer::new(&[], None).unwrap();
        assert_eq!(plane(&[], &s0), erm_by_enumeration(&[], &s0));
        let x = [0.0, 0.0, 1.0, 2.0, 3.0, 1.0];
        for y in [[false; 3], [true; 3]] {
            let s = Scorer::new(&y, None).unwrap();
            assert_eq!(plane(&x, &s), erm_by_enumeration(&x, &s));
        }
    }

    #[test]
    fn planar_erm_is_exact_where_doubles_would_round() {
        // Gains +1, -1, +2^-60, +1 on a line: the best box holds all four points (gain
        // 1 + 2^-60, first in the order among [0, 3] and [2, 3]). A double sum would round its
        // gain to 1 and tie it with the earlier box [0, 0].
        let x = [0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0];
        let y = [true, false, true, true];
        let w = [1.0, 1.0, 2f64.powi(-60), 1.0];
        let s = Scorer::new(&y, Some(&w)).unwrap();
        let got = plane(&x, &s);
        assert_eq!(got, erm_by_enumeration(&x, &s));
        // Power check: with the tiny weight dropped, [0, 0] ties at gain 1 and wins instead.
        let s2 = Scorer::new(&y, Some(&[1.0, 1.0, 0.0, 1.0])).unwrap();
        assert_ne!(plane(&x, &s2), got);
    }
}
