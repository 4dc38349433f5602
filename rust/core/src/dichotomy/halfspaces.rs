//! Affine halfspaces of `R^d`: `h_{w,b}(x) = 1[w . x + b >= 0]`, evaluated exactly.
//!
//! **Prediction** is exact: the sign of `w . x + b` is decided by the filtered predicate
//! [`crate::predicates::affine_sign`], so points on or near the boundary are
//! classified as the real-number formula says, never as rounding happens to fall.
//!
//! **Counts.** On `m` distinct points in general position the class induces Cover's (1965)
//! `C(m, d+1) = 2 Σ_{k<=d} C(m-1, k)` labelings (`m² - m + 2` in the plane); degenerate inputs
//! (collinear or coplanar points, duplicates) induce fewer, and the enumeration returns exactly
//! those.
//!
//! **Algorithms.** The points are first reduced to their affine hull: an exact elimination finds
//! its dimension `k` and `k` coordinates onto which its projection is injective (a halfspace
//! restricted to the hull is a halfspace of the hull, and conversely, so the labelings are those
//! of the projected points; representatives are lifted back with zero weights on the other
//! coordinates).
//! * `k = 1`: the labelings of points on a line are the two-sided thresholds along it: `2m`.
//! * `k = 2`: a **rotational sweep** (anchors note §4; Edelsbrunner, *Algorithms in Combinatorial
//!   Geometry*, 1987, ch. 7). The projection order of the points onto a direction `u` changes only
//!   at the critical directions orthogonal to some `p_j - p_i`. The `C(m, 2)` pair directions are
//!   sorted by angle over a half-turn (a floating-point pseudo-angle, with runs closer than its
//!   error bound re-sorted by the exact orientation predicate, so the order is exact); at each
//!   critical angle, every maximal block of points with equal projection (points on one line
//!   parallel to the critical direction) reverses its order, and each cut inside a reversed block
//!   is a new split `(A | B)`, emitted as the two labelings `1_B` and `1_A`. Every split of the
//!   points by a line occupies one open arc of directions, whose start lies in the half-turn for
//!   exactly one of `(A|B)`, `(B|A)`, so each labeling is emitted exactly once, on degenerate
//!   inputs too. The sweep keeps the suffix bitset of every cut, so a new labeling costs one
//!   update and one copy of its words: `O(m² log m + output)` time.
//! * `k >= 3`: the **d-subset method**: every non-constant labeling is induced by a hyperplane
//!   spanned by `k` affinely independent points, with the points off it labeled by their side
//!   and the points on it labeled by a halfspace of the hyperplane (an extreme ray of the cone of
//!   weakly separating `(w, b)`). The generator visits every spanning `k`-subset (the
//!   lexicographically first basis of each hyperplane only), recurses into the hyperplane (in
//!   dimension `k - 1`, down to the sweep), and deduplicates with a hash table that compares full
//!   labelings (never a hash-only seen-set, ERRATA C6). `O(m^{k+1})` time; meant for small `m`.
//!
//! **Representatives** `[w_0..w_{d-1}, b]` depend on the set of points only. The constant
//! labelings are `w = 0, b = -1` (all zeros) and `w = 0, b = 1` (all ones). In the sweep, a split
//! is represented by a direction strictly between two consecutive critical angles of its arc (so
//! the order of every point along it is known exactly: the first such gap, usually the one where
//! the split appears, in which a double-precision direction and offset exist) and an offset
//! strictly between the two points adjacent to the cut; both facts are certified with exact
//! predicates, trying the rounded bisector, simpler rational directions (continued fractions)
//! and directions a few units in the last place away. In the d-subset method the representative
//! is the spanning hyperplane tilted by a small multiple of the representative inside the
//! hyperplane, verified exactly on every point. A labeling for which none can be certified gets
//! NaN parameters: this happens when no pair of doubles has a direction inside the labeling's
//! whole arc of separating directions (e.g. two points within `1e-300` of each other that a
//! line must separate while also separating points at distance 1), never on data whose
//! coordinates have moderate dynamic range.
//!
//! **Order**: the constant labelings first; then, for `k <= 2`, sweep order (each split when its
//! representative is certified, which is at the critical angle where it appears except in
//! near-degenerate cases; critical angles in increasing order, cuts by position, `1_B` before
//! `1_A`); for `k >= 3`, lexicographic order of the packed words.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rayon::prelude::*;

use super::{Dichotomies, Grouped, Source, collect, cut_above, cut_below, words_for};
use crate::error::{Error, Result};
use crate::predicates::{self, AffineBasis, Dyadic};

/// Absolute error bound of the pseudo-angle keys of the sweep.
const KEY_ERR: f64 = 16.0 * f64::EPSILON;

/// Checks the shape and values of `x` and groups its rows.
fn grouped(x: &[f64], dim: usize, key_order: &[usize]) -> Result<Grouped> {
    if dim == 0 {
        return Err(Error::invalid("dim", "must be at least 1"));
    }
    super::check_shape(x, dim, "X")?;
    super::check_finite(x, "X")?;
    Ok(Grouped::new(x, dim, key_order))
}

/// Affine rank of the points of `g` and coordinates onto which their hull projects injectively.
fn hull(g: &Grouped, coords: &[usize]) -> (usize, Vec<usize>) {
    if g.len() <= 1 {
        return (0, Vec::new());
    }
    let e0 = predicates::min_exponent(g.pts.iter().copied());
    let mut basis = AffineBasis::new(g.point(0), coords.to_vec(), e0);
    for k in 1..g.len() {
        basis.insert(g.point(k));
        if basis.rank() == coords.len() {
            break;
        }
    }
    (basis.rank(), basis.pivot_coords())
}

/// Parameters of the constant labelings.
fn constant(dim: usize, ones: bool) -> Vec<f64> {
    let mut p = vec![0.0; dim + 1];
    p[dim] = if ones { 1.0 } else { -1.0 };
    p
}

/// `b - a`, halved when it would overflow (the direction is what matters).
fn approx_dir(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    let d = [b[0] - a[0], b[1] - a[1]];
    if d[0].is_finite() && d[1].is_finite() {
        d
    } else {
        [b[0] * 0.5 - a[0] * 0.5, b[1] * 0.5 - a[1] * 0.5]
    }
}

/// Offsets `t` that realise the cut between projections `u.a < u.b`: for `1_B` (`u.x >= t`)
/// and for `1_A` (`u.x <= t`), each certified exactly. Candidates are the rounded mid-point and
/// projections (and their neighbouring doubles), first from floating-point projections, then
/// from exact ones (which matter when the projections cancel).
fn offsets(u: [f64; 2], a: [f64; 2], b: [f64; 2]) -> (Option<f64>, Option<f64>) {
    let ua = u[0] * a[0] + u[1] * a[1];
    let ub = u[0] * b[0] + u[1] * b[1];
    // Common case: the mid-point is strictly between both projections, for both labelings.
    let mid = ua / 2.0 + ub / 2.0;
    if mid.is_finite()
        && predicates::affine_sign(&u, &a, -mid) < 0
        && predicates::affine_sign(&u, &b, -mid) > 0
    {
        return (Some(mid), Some(mid));
    }
    let mut found: (Option<f64>, Option<f64>) = (None, None);
    let try_all = |vals: [f64; 3], found: &mut (Option<f64>, Option<f64>)| {
        let (tb, ta) = found;
        for v in vals {
            for t in [v, v.next_up(), v.next_down()] {
                if !t.is_finite() || (tb.is_some() && ta.is_some()) {
                    continue;
                }
                let sa = predicates::affine_sign(&u, &a, -t);
                let sb = predicates::affine_sign(&u, &b, -t);
                if tb.is_none() && sa < 0 && sb >= 0 {
                    *tb = Some(t);
                }
                if ta.is_none() && sa <= 0 && sb > 0 {
                    *ta = Some(t);
                }
            }
        }
    };
    try_all([ua / 2.0 + ub / 2.0, ua, ub], &mut found);
    if found.0.is_none() || found.1.is_none() {
        let ea = predicates::affine_exact(&u, &a, 0.0);
        let eb = predicates::affine_exact(&u, &b, 0.0);
        try_all(
            [ea.add(&eb).half().to_f64(), ea.to_f64(), eb.to_f64()],
            &mut found,
        );
    }
    found
}

/// The `[w, b]` representatives of a split: `(u, t)` for `1_B` (`u.x - t >= 0`) and for `1_A`
/// (`-u.x + t >= 0`), where certified.
#[derive(Clone, Copy, Default)]
struct SplitReps {
    b: Option<([f64; 2], f64)>,
    a: Option<([f64; 2], f64)>,
}

impl SplitReps {
    fn complete(&self) -> bool {
        self.b.is_some() && self.a.is_some()
    }
}

/// A split of the sweep waiting for its representatives: the cut, the labeling `1_B`, and the
/// representatives found so far.
struct Pending {
    cut: usize,
    ones_b: Vec<u64>,
    reps: SplitReps,
}

// ---------------------------------------------------------------------------------------------
// k = 1: points on a line
// ---------------------------------------------------------------------------------------------

/// Streaming generator for distinct points on a line, read through coordinate `c`.
pub struct Line {
    g: Grouped,
    c: usize,
    dim: usize,
    next: usize,
    full: Vec<u64>,
    /// Points after the current cut.
    above: Vec<u64>,
}

impl Line {
    fn new(g: &Grouped, c: usize, dim: usize) -> Self {
        let mut idx: Vec<u32> = (0..g.len() as u32).collect();
        idx.sort_unstable_by(|&a, &b| g.point(a as usize)[c].total_cmp(&g.point(b as usize)[c]));
        let g = g.subset(&idx);
        let full = g.all_set();
        Line {
            g,
            c,
            dim,
            next: 0,
            above: full.clone(),
            full,
        }
    }
}

impl Source for Line {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        self.dim + 1
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        let m = self.g.len();
        if self.next == 0 {
            out.push(&vec![0u64; words_for(self.g.n)], &constant(self.dim, false));
            if m >= 1 {
                out.push(&self.full, &constant(self.dim, true));
            }
            self.next = 1;
            return true;
        }
        if self.next >= m {
            return false;
        }
        // Cut between sorted points next-1 and next: ones above, then ones below.
        self.g.clear(&mut self.above, self.next - 1);
        let above = &self.above;
        let (va, vb) = (
            self.g.point(self.next - 1)[self.c],
            self.g.point(self.next)[self.c],
        );
        let mut p = vec![0.0; self.dim + 1];
        p[self.c] = 1.0;
        p[self.dim] = -cut_above(va, vb);
        out.push(above, &p);
        let below: Vec<u64> = self.full.iter().zip(above).map(|(f, a)| f & !a).collect();
        p[self.c] = -1.0;
        p[self.dim] = cut_below(va, vb);
        out.push(&below, &p);
        self.next += 1;
        true
    }
}

// ---------------------------------------------------------------------------------------------
// k = 2: the rotational sweep
// ---------------------------------------------------------------------------------------------

/// Streaming rotational sweep over distinct points whose projection onto coordinates
/// `(cx, cy)` is injective.
pub struct Sweep {
    g: Grouped,
    cx: usize,
    cy: usize,
    dim: usize,
    /// Point at each position of the current order, and the position of each point.
    order: Vec<u32>,
    pos: Vec<u32>,
    /// Pairs `(i, j)`, `i` before `j` in the initial order, sorted by critical angle.
    pairs: Vec<(u32, u32)>,
    /// Start of each group of equal critical angle in `pairs` (plus the end).
    groups: Vec<usize>,
    /// Suffix bitset of every cut `c` (points at positions `> c`), `m - 1` of them.
    suffix: Vec<u64>,
    full: Vec<u64>,
    words: usize,
    next_group: usize,
    started: bool,
    pending: Vec<Pending>,
    scratch: Vec<f64>,
}

impl Sweep {
    fn new(g: &Grouped, cx: usize, cy: usize, dim: usize) -> Self {
        let xy0 = |k: usize| {
            let p = g.point(k);
            (p[cy], p[cx])
        };
        let mut idx: Vec<u32> = (0..g.len() as u32).collect();
        idx.sort_unstable_by(|&a, &b| {
            let (pa, pb) = (xy0(a as usize), xy0(b as usize));
            pa.0.total_cmp(&pb.0).then(pa.1.total_cmp(&pb.1))
        });
        let g = g.subset(&idx);
        let m = g.len();
        let words = words_for(g.n);
        let xy = |k: u32| {
            let p = g.point(k as usize);
            [p[cx], p[cy]]
        };
        // Pseudo-angle of p_j - p_i in [0, pi): increasing in the angle, error below KEY_ERR.
        // Each pair as one u128: the key's order-preserving bits, then i, then j, so that a
        // plain integer sort orders by (key, i, j).
        let pack = |k: f64, i: u32, j: u32| {
            let b = k.to_bits();
            let ord = if b >> 63 == 1 { !b } else { b | 1 << 63 };
            (u128::from(ord) << 64) | (u128::from(i) << 32) | u128::from(j)
        };
        let unpack = |v: u128| {
            let ord = (v >> 64) as u64;
            let b = if ord >> 63 == 1 {
                ord & !(1 << 63)
            } else {
                !ord
            };
            (f64::from_bits(b), (v >> 32) as u32, v as u32)
        };
        let row = |i: u32| {
            let a = xy(i);
            (i + 1..m as u32).map(move |j| {
                let d = approx_dir(a, xy(j));
                pack(-d[0] / (d[0].abs() + d[1]), i, j)
            })
        };
        // Small sweeps (inside the d-subset method) stay on the calling thread.
        let packed: Vec<u128> = if m < 256 {
            let mut v: Vec<u128> = (0..m as u32).flat_map(row).collect();
            v.sort_unstable();
            v
        } else {
            let mut v: Vec<u128> = (0..m as u32).into_par_iter().flat_map_iter(row).collect();
            v.par_sort_unstable();
            v
        };
        let mut keyed: Vec<(f64, u32, u32)> = packed.into_iter().map(unpack).collect();
        let exact_cmp = |a: &(f64, u32, u32), b: &(f64, u32, u32)| {
            let s = predicates::cross_diff(xy(a.1), xy(a.2), xy(b.1), xy(b.2));
            0.cmp(&s).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
        };
        // Runs of keys closer than twice the error bound are re-sorted exactly.
        let mut s = 0;
        while s < keyed.len() {
            let mut e = s + 1;
            while e < keyed.len() && keyed[e].0 - keyed[e - 1].0 <= 2.0 * KEY_ERR {
                e += 1;
            }
            if e - s > 1 {
                keyed[s..e].sort_unstable_by(exact_cmp);
            }
            s = e;
        }
        let mut groups = vec![0];
        for t in 1..keyed.len() {
            let (a, b) = (&keyed[t - 1], &keyed[t]);
            if b.0 - a.0 > 2.0 * KEY_ERR
                || predicates::cross_diff(xy(a.1), xy(a.2), xy(b.1), xy(b.2)) != 0
            {
                groups.push(t);
            }
        }
        groups.push(keyed.len());
        if keyed.is_empty() {
            groups = vec![0];
        }
        let pairs: Vec<(u32, u32)> = keyed.into_iter().map(|(_, i, j)| (i, j)).collect();
        let mut suffix = vec![0u64; m.saturating_sub(1) * words];
        for c in (0..m.saturating_sub(1)).rev() {
            if c + 2 < m {
                let (lo, hi) = suffix.split_at_mut((c + 1) * words);
                lo[c * words..].copy_from_slice(&hi[..words]);
            }
            g.set(&mut suffix[c * words..(c + 1) * words], c + 1);
        }
        let full = g.all_set();
        Sweep {
            cx,
            cy,
            dim,
            order: (0..m as u32).collect(),
            pos: (0..m as u32).collect(),
            pairs,
            groups,
            suffix,
            full,
            words,
            next_group: 0,
            started: false,
            pending: Vec::new(),
            scratch: Vec::new(),
            g,
        }
    }

    fn xy(&self, k: u32) -> [f64; 2] {
        let p = self.g.point(k as usize);
        [p[self.cx], p[self.cy]]
    }

    fn n_groups(&self) -> usize {
        self.groups.len() - 1
    }

    /// Number of labelings: two constants (one if there is no point) plus two per cut inside a
    /// reversed block; a block is a line with `k` points, which has `k - 1` cuts.
    pub fn count(&self) -> u128 {
        let m = self.g.len();
        if m == 0 {
            return 1;
        }
        let mut stamp = vec![usize::MAX; m];
        let mut total = 2u128;
        for gi in 0..self.n_groups() {
            for &(_, j) in &self.pairs[self.groups[gi]..self.groups[gi + 1]] {
                if stamp[j as usize] != gi {
                    stamp[j as usize] = gi;
                    total += 2;
                }
            }
        }
        total
    }

    /// Exact endpoints of the directions of group `gi` and of the next critical angle.
    fn bracket(&self, gi: usize) -> ([[f64; 2]; 2], [[f64; 2]; 2]) {
        let (i, j) = self.pairs[self.groups[gi]];
        let cur = [self.xy(i), self.xy(j)];
        let next = if gi + 1 < self.n_groups() {
            let (i2, j2) = self.pairs[self.groups[gi + 1]];
            [self.xy(i2), self.xy(j2)]
        } else {
            // After the last critical angle comes the first one plus a half-turn.
            let (i2, j2) = self.pairs[0];
            [self.xy(j2), self.xy(i2)]
        };
        (cur, next)
    }

    /// `true` if the ordering normal `u = rot90(v)` has `v` strictly inside the gap after
    /// group `gi` (certified exactly).
    fn inside_gap(&self, gi: usize, u: [f64; 2]) -> bool {
        let (cur, next) = self.bracket(gi);
        let v = [u[1], -u[0]];
        let o = [0.0, 0.0];
        u[0].is_finite()
            && u[1].is_finite()
            && predicates::cross_diff(cur[0], cur[1], o, v) > 0
            && predicates::cross_diff(o, v, next[0], next[1]) > 0
    }

    /// Candidate directions `v` strictly between the critical angle of group `gi` and the next
    /// one (certified exactly); returns `u = rot90(v)`, the normal ordering the points.
    fn normal(&self, gi: usize, attempt: usize) -> Option<[f64; 2]> {
        let (cur, next) = self.bracket(gi);
        let d1 = approx_dir(cur[0], cur[1]);
        let d2 = approx_dir(next[0], next[1]);
        let n1 = d1[0].abs() + d1[1].abs();
        let n2 = d2[0].abs() + d2[1].abs();
        let exact_sum = || {
            let dx = |p: [[f64; 2]; 2], k: usize| {
                Dyadic::from_f64(p[1][k]).sub(&Dyadic::from_f64(p[0][k]))
            };
            let l1 = |p: [[f64; 2]; 2]| {
                let a = dx(p, 0);
                let b = dx(p, 1);
                let abs = |v: Dyadic| if v.sign() < 0 { v.neg() } else { v };
                abs(a).add(&abs(b))
            };
            let (l_cur, l_next) = (l1(cur), l1(next));
            let vx = dx(cur, 0).mul(&l_next).add(&dx(next, 0).mul(&l_cur));
            let vy = dx(cur, 1).mul(&l_next).add(&dx(next, 1).mul(&l_cur));
            [vx.to_f64(), vy.to_f64()]
        };
        let mut tries = 0;
        for k in 0..6 {
            let v = match k {
                0 => [d1[0] / n1 + d2[0] / n2, d1[1] / n1 + d2[1] / n2],
                1 => [-d1[1], d1[0]],
                2 => [d1[0] + d2[0], d1[1] + d2[1]],
                3 => exact_sum(),
                4 => match predicates::direction_between(cur, next) {
                    Some(v) => v,
                    None => continue,
                },
                _ => {
                    let e = exact_sum();
                    let s = e[0].abs().max(e[1].abs());
                    [e[0] / s, e[1] / s]
                }
            };
            if !(v[0].is_finite() && v[1].is_finite()) || (v[0] == 0.0 && v[1] == 0.0) {
                continue;
            }
            let o = [0.0, 0.0];
            if predicates::cross_diff(cur[0], cur[1], o, v) > 0
                && predicates::cross_diff(o, v, next[0], next[1]) > 0
            {
                if tries == attempt {
                    // Scale by a power of two (exact) so that the larger weight is in [1, 2).
                    let e = crate::grid::decompose(v[0].abs().max(v[1].abs()));
                    let top = e.1 + 63 - e.0.leading_zeros() as i32;
                    let s = 2f64.powi(-top.clamp(-1000, 1000));
                    let (x, y) = (-v[1] * s, v[0] * s);
                    if x.is_finite() && y.is_finite() && (x != 0.0 || y != 0.0) {
                        return Some([x, y]);
                    }
                    return Some([-v[1], v[0]]);
                }
                tries += 1;
            }
        }
        None
    }

    /// Tries to certify the missing representatives of the split at `cut` with the directions
    /// of the gap after group `gi` (where the order of the points is the current one).
    fn certify(
        &self,
        cut: usize,
        reps: &mut SplitReps,
        normals: &mut Vec<Option<[f64; 2]>>,
        gi: usize,
    ) {
        let (a, b) = (self.xy(self.order[cut]), self.xy(self.order[cut + 1]));
        let mut k = 0;
        while !reps.complete() {
            if normals.len() <= k {
                let n = self.normal(gi, k);
                normals.push(n);
            }
            let Some(u) = normals[k] else { break };
            k += 1;
            let (tb, ta) = offsets(u, a, b);
            if reps.b.is_none() {
                reps.b = tb.map(|t| (u, t));
            }
            if reps.a.is_none() {
                reps.a = ta.map(|t| (u, t));
            }
            if !reps.complete() {
                // No double offset between the two projections: nudge the direction by a few
                // units in the last place, which moves the projections against the grid of
                // doubles, staying inside the gap.
                self.nudged(gi, u, a, b, reps);
            }
        }
    }

    fn nudged(&self, gi: usize, u: [f64; 2], a: [f64; 2], b: [f64; 2], reps: &mut SplitReps) {
        let step = |x: f64, k: i32| {
            let mut y = x;
            for _ in 0..k.unsigned_abs() {
                y = if k > 0 { y.next_up() } else { y.next_down() };
            }
            y
        };
        let mut moves: Vec<(i32, i32)> = (-4..=4)
            .flat_map(|i| (-4..=4).map(move |j| (i, j)))
            .filter(|&(i, j)| (i, j) != (0, 0))
            .collect();
        moves.sort_by_key(|&(i, j)| (i.abs() + j.abs(), i, j));
        for (i, j) in moves {
            let w = [step(u[0], i), step(u[1], j)];
            if !self.inside_gap(gi, w) {
                continue;
            }
            let (tb, ta) = offsets(w, a, b);
            if reps.b.is_none() {
                reps.b = tb.map(|t| (w, t));
            }
            if reps.a.is_none() {
                reps.a = ta.map(|t| (w, t));
            }
            if reps.complete() {
                return;
            }
        }
    }

    /// Emits a split's two labelings (NaN parameters where no representative was certified).
    fn emit(
        &self,
        ones_b: &[u64],
        reps: SplitReps,
        scratch: &mut Vec<f64>,
        out: &mut Dichotomies<f64>,
    ) {
        let lift = |scratch: &mut Vec<f64>, r: Option<([f64; 2], f64)>, sign: f64| {
            scratch.clear();
            scratch.resize(self.dim + 1, 0.0);
            match r {
                Some((u, t)) => {
                    scratch[self.cx] = sign * u[0];
                    scratch[self.cy] = sign * u[1];
                    scratch[self.dim] = -sign * t;
                }
                None => scratch.fill(f64::NAN),
            }
        };
        lift(scratch, reps.b, 1.0);
        out.push(ones_b, scratch);
        lift(scratch, reps.a, -1.0);
        out.push_complement(&self.full, ones_b, scratch);
    }

    /// Processes one group of equal critical angle: reverses its blocks, creates the splits of
    /// the cuts inside them, and emits every split whose representatives are certified in the
    /// following gap. A split is represented by a direction of the first gap of its arc in
    /// which one can be certified (usually the gap where it appears); splits ended by this
    /// group without one are emitted with NaN parameters.
    fn process(&mut self, gi: usize, out: &mut Dichotomies<f64>) {
        let (s, e) = (self.groups[gi], self.groups[gi + 1]);
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        if e - s == 1 {
            let (i, j) = self.pairs[s];
            let (a, b) = (self.pos[i as usize] as usize, self.pos[j as usize] as usize);
            blocks.push((a.min(b), a.max(b)));
        } else {
            let mut spans: Vec<(u32, u32)> = self.pairs[s..e]
                .iter()
                .map(|&(i, j)| {
                    let (a, b) = (self.pos[i as usize], self.pos[j as usize]);
                    (a.min(b), a.max(b))
                })
                .collect();
            spans.sort_unstable();
            for (lo, hi) in spans {
                match blocks.last_mut() {
                    Some(b) if (lo as usize) <= b.1 => b.1 = b.1.max(hi as usize),
                    _ => blocks.push((lo as usize, hi as usize)),
                }
            }
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        // Waiting splits whose cut this group changes have reached the end of their arc.
        let mut waiting = Vec::new();
        if !self.pending.is_empty() {
            let inside = |c: usize| blocks.iter().any(|&(bs, be)| bs <= c && c < be);
            for p in std::mem::take(&mut self.pending) {
                if inside(p.cut) {
                    self.emit(&p.ones_b, p.reps, &mut scratch, out);
                } else {
                    waiting.push(p);
                }
            }
        }
        let w = self.words;
        let m = self.order.len();
        let mut normals = Vec::new();
        for &(bs, be) in &blocks {
            debug_assert!(be > bs);
            self.order[bs..=be].reverse();
            for p in bs..=be {
                self.pos[self.order[p] as usize] = p as u32;
            }
            for c in (bs..be).rev() {
                if c + 1 < m - 1 {
                    let (lo, hi) = self.suffix.split_at_mut((c + 1) * w);
                    lo[c * w..].copy_from_slice(&hi[..w]);
                } else {
                    self.suffix[c * w..(c + 1) * w].fill(0);
                }
                let k = self.order[c + 1] as usize;
                self.g.set(&mut self.suffix[c * w..(c + 1) * w], k);
            }
            for c in bs..be {
                let mut reps = SplitReps::default();
                self.certify(c, &mut reps, &mut normals, gi);
                let ones_b = &self.suffix[c * w..(c + 1) * w];
                if reps.complete() {
                    self.emit(ones_b, reps, &mut scratch, out);
                } else {
                    self.pending.push(Pending {
                        cut: c,
                        ones_b: ones_b.to_vec(),
                        reps,
                    });
                }
            }
        }
        for mut p in waiting {
            self.certify(p.cut, &mut p.reps, &mut normals, gi);
            if p.reps.complete() {
                self.emit(&p.ones_b, p.reps, &mut scratch, out);
            } else {
                self.pending.push(p);
            }
        }
        self.scratch = scratch;
    }
}

impl Source for Sweep {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        self.dim + 1
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        if !self.started {
            self.started = true;
            out.push(&vec![0u64; self.words], &constant(self.dim, false));
            if !self.g.is_empty() {
                out.push(&self.full, &constant(self.dim, true));
            }
            return true;
        }
        if self.next_group >= self.n_groups() {
            if self.pending.is_empty() {
                return false;
            }
            let mut scratch = std::mem::take(&mut self.scratch);
            for p in std::mem::take(&mut self.pending) {
                self.emit(&p.ones_b, p.reps, &mut scratch, out);
            }
            return true;
        }
        let gi = self.next_group;
        self.process(gi, out);
        self.next_group += 1;
        true
    }
}

// ---------------------------------------------------------------------------------------------
// k >= 3: the d-subset method
// ---------------------------------------------------------------------------------------------

/// A small multiply-rotate hasher (FxHash's scheme) for the deduplication table; full labelings
/// are compared on every hit, so collisions only cost time.
#[derive(Default, Clone, Copy)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

type LabelMap = HashMap<Vec<u64>, usize, BuildHasherDefault<WordHasher>>;

/// The hyperplane through `k` points as `f(x) = n . x + c` (doubles; `f` has the sign of the
/// orientation determinant of the points followed by `x`), or `None` if they are dependent.
fn hyperplane(pts: &[&[f64]], coords: &[usize], dim: usize) -> Option<(Vec<f64>, f64)> {
    use num_bigint::BigInt;
    let k = coords.len();
    let e0 = predicates::min_exponent(pts.iter().flat_map(|p| coords.iter().map(move |&c| p[c])));
    let int = |v: f64| {
        let (m, e) = crate::grid::decompose(v.abs());
        let b = BigInt::from(m) << (e - e0).max(0) as usize;
        if v < 0.0 { -b } else { b }
    };
    let rows: Vec<Vec<BigInt>> = pts[1..]
        .iter()
        .map(|p| coords.iter().map(|&c| int(p[c]) - int(pts[0][c])).collect())
        .collect();
    // Cofactors of the last row of [rows; x - p0].
    let cof: Vec<BigInt> = (0..k)
        .map(|j| {
            let minor: Vec<Vec<BigInt>> = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .enumerate()
                        .filter(|(c, _)| *c != j)
                        .map(|(_, v)| v.clone())
                        .collect()
                })
                .collect();
            let d = det_value(minor);
            if (k - 1 + j) % 2 == 1 { -d } else { d }
        })
        .collect();
    let bits = cof.iter().map(|c| c.bits()).max().unwrap_or(0);
    if bits == 0 {
        return None;
    }
    let shift = -(bits as i32);
    let mut n = vec![0.0; dim];
    for (j, &c) in coords.iter().enumerate() {
        n[c] = crate::grid::big_to_f64(&cof[j], shift);
    }
    let c = predicates::affine_exact(&n, pts[0], 0.0).neg().to_f64();
    Some((n, c))
}

/// The hyperplane through 3 points of `R^3` (read through `coords`) in floating point: the cross
/// product of two differences. Only a starting point: [`tilt`] verifies its result exactly.
fn hyperplane_fast(pts: &[&[f64]], coords: &[usize], dim: usize) -> Option<(Vec<f64>, f64)> {
    if coords.len() != 3 {
        return None;
    }
    let d = |i: usize, c: usize| pts[i][coords[c]] - pts[0][coords[c]];
    let (a, b) = ([d(1, 0), d(1, 1), d(1, 2)], [d(2, 0), d(2, 1), d(2, 2)]);
    let cr = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let mut n = vec![0.0; dim];
    for (j, &c) in coords.iter().enumerate() {
        n[c] = cr[j];
    }
    let c = -(0..3).map(|j| cr[j] * pts[0][coords[j]]).sum::<f64>();
    (n.iter().all(|v| v.is_finite()) && c.is_finite() && cr.iter().any(|&v| v != 0.0))
        .then_some((n, c))
}

/// Determinant of a square integer matrix (Bareiss).
fn det_value(mut a: Vec<Vec<num_bigint::BigInt>>) -> num_bigint::BigInt {
    use num_bigint::{BigInt, Sign};
    let k = a.len();
    if k == 0 {
        return BigInt::from(1);
    }
    let mut sign = 1;
    let mut prev = BigInt::from(1);
    for c in 0..k {
        let Some(p) = (c..k).find(|&r| a[r][c].sign() != Sign::NoSign) else {
            return BigInt::from(0);
        };
        if p != c {
            a.swap(p, c);
            sign = -sign;
        }
        for r in c + 1..k {
            for j in c + 1..k {
                a[r][j] = (&a[r][j] * &a[c][c] - &a[r][c] * &a[c][j]) / &prev;
            }
        }
        prev = a[c][c].clone();
    }
    if sign < 0 { -prev } else { prev }
}

fn eval(p: &[f64], x: &[f64]) -> f64 {
    let d = x.len();
    p[..d].iter().zip(x).map(|(a, b)| a * b).sum::<f64>() + p[d]
}

/// Parameters `s f + eps h'` realising `label` on the points of `g`, verified exactly.
fn tilt(
    g: &Grouped,
    plane: &(Vec<f64>, f64),
    sides: &[i8],
    s: f64,
    sub: &[f64],
    label: &[u64],
) -> Vec<f64> {
    let dim = g.dim;
    let (n, c) = plane;
    let mut f = n.clone();
    f.push(*c);
    let off = (0..g.len())
        .filter(|&k| sides[k] != 0)
        .map(|k| eval(&f, g.point(k)).abs())
        .fold(f64::INFINITY, f64::min);
    let big = (0..g.len())
        .map(|k| eval(sub, g.point(k)).abs())
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let base = off / big;
    let want = |k: usize| {
        let r = g.rows_of(k)[0] as usize;
        (label[r / 64] >> (r % 64)) & 1 == 1
    };
    for shift in [-2, -6, -12, -20, -30, -45, -1, 0] {
        let eps = base * 2f64.powi(shift);
        if !(eps.is_finite() && eps > 0.0) {
            continue;
        }
        let p: Vec<f64> = (0..=dim).map(|j| s * f[j] + eps * sub[j]).collect();
        if p.iter().any(|v| !v.is_finite()) {
            continue;
        }
        if (0..g.len())
            .all(|k| (predicates::affine_sign(&p[..dim], g.point(k), p[dim]) >= 0) == want(k))
        {
            return p;
        }
    }
    vec![f64::NAN; dim + 1]
}

/// All labelings (deduplicated, with representatives verified on `g`'s points) of the points
/// of `g`, which affinely span a flat of dimension `coords.len()` projecting injectively onto
/// `coords`.
fn flat(g: &Grouped, coords: &[usize], limit: usize) -> Result<Dichotomies<f64>> {
    let dim = g.dim;
    match coords.len() {
        0 => {
            let mut out = Dichotomies::new(g.n, dim + 1);
            out.push(&vec![0u64; words_for(g.n)], &constant(dim, false));
            if !g.is_empty() {
                out.push(&g.all_set(), &constant(dim, true));
            }
            Ok(out)
        }
        1 => collect(&mut Line::new(g, coords[0], dim), limit),
        2 => collect(&mut Sweep::new(g, coords[0], coords[1], dim), limit),
        _ => subsets(g, coords, limit),
    }
}

/// Calls `f` on every `k`-subset of `0..m` in lexicographic order.
fn for_each_subset(m: usize, k: usize, mut f: impl FnMut(&[usize]) -> Result<()>) -> Result<()> {
    if k > m {
        return Ok(());
    }
    let mut s: Vec<usize> = (0..k).collect();
    loop {
        f(&s)?;
        let Some(i) = (0..k).rev().find(|&i| s[i] < m - k + i) else {
            return Ok(());
        };
        s[i] += 1;
        for j in i + 1..k {
            s[j] = s[j - 1] + 1;
        }
    }
}

fn subsets(g: &Grouped, coords: &[usize], limit: usize) -> Result<Dichotomies<f64>> {
    let (dim, m, k, w) = (g.dim, g.len(), coords.len(), words_for(g.n));
    let mut map = LabelMap::default();
    let mut labels: Vec<Vec<u64>> = vec![vec![0u64; w], g.all_set()];
    let mut params: Vec<Vec<f64>> = vec![constant(dim, false), constant(dim, true)];
    for (i, l) in labels.iter().enumerate() {
        map.entry(l.clone()).or_insert(i);
    }
    let e0 = predicates::min_exponent(g.pts.iter().copied());
    for_each_subset(m, k, |s| {
        let spts: Vec<&[f64]> = s.iter().map(|&i| g.point(i)).collect();
        let mut sides = vec![0i8; m];
        let mut buf: Vec<&[f64]> = spts.clone();
        buf.push(&[]);
        for (p, side) in sides.iter_mut().enumerate() {
            if !s.contains(&p) {
                buf[k] = g.point(p);
                *side = predicates::orient(&buf, coords);
            }
        }
        if sides.iter().all(|&v| v == 0) {
            return Ok(()); // dependent subset
        }
        let z: Vec<u32> = (0..m as u32).filter(|&p| sides[p as usize] == 0).collect();
        // The hyperplane's lexicographically first basis, and coordinates for its points.
        let mut basis = AffineBasis::new(g.point(z[0] as usize), coords.to_vec(), e0);
        let mut first = vec![z[0] as usize];
        for &p in &z[1..] {
            if basis.insert(g.point(p as usize)) {
                first.push(p as usize);
            }
        }
        if first != s {
            return Ok(()); // this hyperplane is visited from its first basis
        }
        let mut plus = vec![0u64; w];
        let mut minus = vec![0u64; w];
        for (p, &side) in sides.iter().enumerate() {
            match side {
                1 => g.set(&mut plus, p),
                -1 => g.set(&mut minus, p),
                _ => {}
            }
        }
        // The labelings of the points on the hyperplane (within it): every subset when they are
        // affinely independent, else a recursive enumeration. Representatives within the
        // hyperplane, and the hyperplane itself, are computed only for new labelings.
        let sub_flat = || flat(&g.subset(&z), &basis.pivot_coords(), usize::MAX);
        let mut sub: Option<(Dichotomies<f64>, LabelMap)> = None;
        let sub_labels: Vec<Vec<u64>> = if z.len() == k {
            (0u32..1 << k)
                .map(|mask| {
                    let mut l = vec![0u64; w];
                    for (t, &p) in z.iter().enumerate() {
                        if mask >> t & 1 == 1 {
                            g.set(&mut l, p as usize);
                        }
                    }
                    l
                })
                .collect()
        } else {
            let d = sub_flat()?;
            let labs = (0..d.len()).map(|i| d.label(i).to_vec()).collect();
            let idx = labs_index(&d);
            sub = Some((d, idx));
            labs
        };
        let mut plane = None;
        let mut fast = None;
        for sl in &sub_labels {
            for (sgn, base) in [(1.0, &plus), (-1.0, &minus)] {
                let label: Vec<u64> = base.iter().zip(sl).map(|(a, b)| a | b).collect();
                let slot = map.get(&label).copied();
                if slot.is_some_and(|i| !params[i][0].is_nan()) {
                    continue; // known, with a representative
                }
                if slot.is_none() && labels.len() >= limit {
                    return Err(super::too_many(format!("more than {limit}"), limit));
                }
                if sub.is_none() {
                    let d = sub_flat()?;
                    let idx = labs_index(&d);
                    sub = Some((d, idx));
                }
                let (d, idx) = sub.as_ref().expect("computed above");
                let Some(&si) = idx.get(sl) else {
                    continue; // unreachable: every sub-labeling is enumerated
                };
                // A floating-point hyperplane first (in R^3), the exact one if that fails.
                let fast = fast.get_or_insert_with(|| hyperplane_fast(&spts, coords, dim));
                let mut rep = match fast.as_ref() {
                    Some(pl) => tilt(g, pl, &sides, sgn, d.params(si), &label),
                    None => vec![f64::NAN; dim + 1],
                };
                if rep[0].is_nan() {
                    let plane = plane.get_or_insert_with(|| hyperplane(&spts, coords, dim));
                    if let Some(pl) = plane.as_ref() {
                        rep = tilt(g, pl, &sides, sgn, d.params(si), &label);
                    }
                }
                match slot {
                    Some(i) => params[i] = rep,
                    None => {
                        map.insert(label.clone(), labels.len());
                        labels.push(label);
                        params.push(rep);
                    }
                }
            }
        }
        Ok(())
    })?;
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    idx.sort_unstable_by(|&a, &b| labels[a].cmp(&labels[b]));
    idx.dedup_by(|a, b| labels[*a] == labels[*b]); // the constants coincide when m = 0
    let mut out = Dichotomies::new(g.n, dim + 1);
    out.reserve(idx.len());
    for i in idx {
        out.push(&labels[i], &params[i]);
    }
    Ok(out)
}

/// Index of every labeling of `d` by its packed words.
fn labs_index(d: &Dichotomies<f64>) -> LabelMap {
    let mut idx = LabelMap::default();
    for i in 0..d.len() {
        idx.entry(d.label(i).to_vec()).or_insert(i);
    }
    idx
}

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/// A streaming generator for points whose affine hull has dimension at most 2.
pub enum Planar {
    /// Points on a line (or fewer than two points).
    Line(Line),
    /// Points spanning a plane.
    Sweep(Box<Sweep>),
}

impl Source for Planar {
    type Param = f64;
    fn n_points(&self) -> usize {
        match self {
            Planar::Line(s) => s.n_points(),
            Planar::Sweep(s) => s.n_points(),
        }
    }
    fn param_len(&self) -> usize {
        match self {
            Planar::Line(s) => s.param_len(),
            Planar::Sweep(s) => s.param_len(),
        }
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        match self {
            Planar::Line(s) => s.next_batch(out),
            Planar::Sweep(s) => s.next_batch(out),
        }
    }
}

/// The rows of `x` (`n x dim`), grouped, with their affine hull.
pub struct Prepared {
    g: Grouped,
    coords: Vec<usize>,
}

impl Prepared {
    /// Validates and prepares `x`.
    pub fn new(x: &[f64], dim: usize) -> Result<Self> {
        let all: Vec<usize> = (0..dim).collect();
        let g = grouped(x, dim, &all)?;
        let (_, coords) = hull(&g, &all);
        Ok(Prepared { g, coords })
    }

    /// The streaming generator, if the hull has dimension at most 2.
    pub fn planar(&self) -> Option<Planar> {
        let dim = self.g.dim;
        match self.coords.len() {
            0 | 1 => Some(Planar::Line(Line::new(
                &self.g,
                self.coords.first().copied().unwrap_or(0),
                dim,
            ))),
            2 => Some(Planar::Sweep(Box::new(Sweep::new(
                &self.g,
                self.coords[0],
                self.coords[1],
                dim,
            )))),
            _ => None,
        }
    }

    /// Number of labelings (for hulls of dimension 3 or more, by enumerating them).
    pub fn count(&self) -> Result<u128> {
        let m = self.g.len();
        Ok(match self.coords.len() {
            0 => 1 + u128::from(m > 0),
            1 => 2 * m as u128,
            2 => match self.planar() {
                Some(Planar::Sweep(s)) => s.count(),
                _ => unreachable!("a two-dimensional hull gives a sweep"),
            },
            _ => flat(&self.g, &self.coords, usize::MAX)?.len() as u128,
        })
    }

    /// All labelings, refusing more than `max_count`.
    pub fn collect(&self, max_count: usize) -> Result<Dichotomies<f64>> {
        match self.planar() {
            Some(Planar::Sweep(s)) => {
                let count = s.count();
                super::collect_counted(&mut Planar::Sweep(s), count, max_count)
            }
            Some(mut p) => collect(&mut p, max_count),
            None => flat(&self.g, &self.coords, max_count),
        }
    }
}

/// Exact predictions `1[w . x + b >= 0]` of the rows of `x` (`n x dim`); `params = [w, b]`.
pub fn predict(params: &[f64], x: &[f64]) -> Result<Vec<bool>> {
    let dim = params.len().saturating_sub(1);
    super::check_finite(params, "h")?;
    super::check_shape(x, dim, "X")?;
    super::check_finite(x, "X")?;
    Ok(x.par_chunks(dim)
        .map(|row| predicates::affine_sign(&params[..dim], row, params[dim]) >= 0)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_reps(x: &[f64], dim: usize, d: &Dichotomies<f64>) {
        let n = x.len() / dim;
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..d.len() {
            assert!(seen.insert(d.label(i).to_vec()), "duplicate labeling {i}");
            assert!(
                d.params(i).iter().all(|v| v.is_finite()),
                "labeling {i} of {}: {:?}, {:?}",
                d.len(),
                d.label(i),
                d.params(i)
            );
            let pred = predict(d.params(i), x).unwrap();
            for (j, &p) in pred.iter().enumerate().take(n) {
                assert_eq!(
                    d.bit(i, j),
                    p,
                    "labeling {i} point {j} params {:?}",
                    d.params(i)
                );
            }
        }
    }

    fn cover(m: u128, d: u32) -> u128 {
        let binom = |n: u128, k: u128| {
            if k > n {
                0
            } else {
                (0..k).fold(1u128, |acc, i| acc * (n - i) / (i + 1))
            }
        };
        2 * (0..=u128::from(d)).map(|k| binom(m - 1, k)).sum::<u128>()
    }

    fn lcg_points(n: usize, dim: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n * dim)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    }

    #[test]
    fn general_position_counts_match_cover() {
        for (n, dim) in [
            (1, 2),
            (2, 2),
            (7, 2),
            (40, 2),
            (9, 3),
            (12, 3),
            (8, 4),
            (6, 1),
        ] {
            let x = lcg_points(n, dim, n as u64 * 31 + dim as u64);
            let p = Prepared::new(&x, dim).unwrap();
            let d = p.collect(usize::MAX).unwrap();
            assert_eq!(
                d.len() as u128,
                cover(n as u128, dim as u32),
                "n={n} dim={dim}"
            );
            assert_eq!(p.count().unwrap(), d.len() as u128);
            check_reps(&x, dim, &d);
        }
    }

    #[test]
    fn degenerate_inputs() {
        // A 4x4 integer grid (many collinear triples), with duplicates.
        let mut x = Vec::new();
        for i in 0..4 {
            for j in 0..4 {
                x.extend_from_slice(&[i as f64, j as f64]);
            }
        }
        x.extend_from_slice(&[1.0, 1.0, 3.0, 0.0]);
        let p = Prepared::new(&x, 2).unwrap();
        let d = p.collect(usize::MAX).unwrap();
        check_reps(&x, 2, &d);
        assert_eq!(p.count().unwrap(), d.len() as u128);
        // Collinear points in the plane and in space: the two-sided thresholds, 2m.
        let line: Vec<f64> = (0..6)
            .flat_map(|i| [0.1 * i as f64, 0.3 * i as f64])
            .collect();
        let d = Prepared::new(&line, 2)
            .unwrap()
            .collect(usize::MAX)
            .unwrap();
        check_reps(&line, 2, &d);
        let line3: Vec<f64> = (0..5)
            .flat_map(|i| [i as f64, 2.0 * i as f64, 1.0])
            .collect();
        let d = Prepared::new(&line3, 3)
            .unwrap()
            .collect(usize::MAX)
            .unwrap();
        assert_eq!(d.len(), 10);
        check_reps(&line3, 3, &d);
        // Coplanar points in R^3 behave as in the plane; a cube has coplanar quadruples.
        let plane3: Vec<f64> = lcg_points(8, 2, 5)
            .chunks(2)
            .flat_map(|p| [p[1], 2.0 * p[0], p[1]])
            .collect();
        let d = Prepared::new(&plane3, 3)
            .unwrap()
            .collect(usize::MAX)
            .unwrap();
        assert_eq!(d.len() as u128, cover(8, 2));
        check_reps(&plane3, 3, &d);
        let cube: Vec<f64> = (0..8)
            .flat_map(|i| [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2) as f64])
            .collect();
        let d = Prepared::new(&cube, 3)
            .unwrap()
            .collect(usize::MAX)
            .unwrap();
        check_reps(&cube, 3, &d);
        // Empty and single-point inputs.
        assert_eq!(
            Prepared::new(&[], 2)
                .unwrap()
                .collect(usize::MAX)
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            Prepared::new(&[1.0, 1.0, 1.0, 1.0], 2)
                .unwrap()
                .collect(usize::MAX)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn streaming_equals_collect_and_max_count() {
        let x = lcg_points(30, 2, 9);
        let p = Prepared::new(&x, 2).unwrap();
        let all = p.collect(usize::MAX).unwrap();
        let mut s = super::super::Stream::new(p.planar().unwrap());
        let mut flat_labels = Vec::new();
        while let Some(c) = s.next_chunk(50) {
            flat_labels.extend_from_slice(c.labels_flat());
        }
        assert_eq!(flat_labels, all.labels_flat());
        assert!(p.collect(all.len() - 1).is_err());
    }
}
