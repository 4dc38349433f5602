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
}
