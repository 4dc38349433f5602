//! Dichotomy enumeration: the distinct labelings ("dichotomies") that a hypothesis class induces
//! on a finite point set, each with one representative hypothesis.
//!
//! Seeds 002, 003 and 004 reduce learning over an infinite class to a finite one: the set
//! `Π_C(S) = {(h(x_1), ..., h(x_n)) : h ∈ C}` of labelings of the sample, with one
//! representative per labeling, followed by a private choice among them (Bun, Nissim and
//! Stemmer, JMLR 2019, Alg. 2 step 4; Dagan and Feldman, COLT 2020, §2 "the class `C_{S'}`";
//! Nandi and Bassily, Alg. 2 and 7). Three properties matter for privacy and are guaranteed by
//! every class here:
//!
//! * **Exactness.** The output is exactly `Π_C(S)`: no labeling is missing or repeated, on any
//!   input (duplicate points, ties, collinear or coplanar points). Structural generators produce
//!   each labeling once by construction; the others deduplicate exactly, comparing whole
//!   labelings (finite classes sort the packed rows; halfspaces in dimension 3 or more use a hash
//!   table that compares full keys): never a hash-only "seen" set (ERRATA C6).
//! * **Data-independent representatives.** The representative of a labeling is a deterministic
//!   function of the *set* of unlabeled points (never of labels or of the row order), a genuine
//!   member of the class, and it reproduces its labeling exactly under the class's prediction
//!   rule.
//! * **Deterministic order.** The same input gives the same output order, whatever the number of
//!   threads; each class documents its order.
//!
//! Labelings are bit-packed rows (the project's layout: point `j` is bit `j % 64` of word
//! `j / 64`, padding bits zero); duplicate points receive equal labels.
//!
//! Modules, one per class family: [`thresholds`], [`intervals`], [`rectangles`],
//! [`halfspaces`] (with the exact geometric predicates of [`crate::predicates`]), [`parities`] (on the GF(2)
//! core), [`points`], [`finite`]; the scoring of labelings against data is in [`score`].
//! [`Class`] gathers the classes with real parameters behind one interface (collect, stream,
//! count, ERM).

pub mod finite;
pub mod halfspaces;
pub mod intervals;
pub mod parities;
pub mod points;
pub mod rectangles;
pub mod represent;
pub mod score;
pub mod thresholds;

use crate::error::{Error, Result};

/// Number of 64-bit words of a packed labeling of `n` points.
pub fn words_for(n: usize) -> usize {
    n.div_ceil(64)
}

/// A set of labelings of `n_points` points, each with the parameters of its representative.
///
/// `labels` holds `len() * words` packed words (row `i` is labeling `i`); `params` holds
/// `len() * param_len` parameters (their meaning is documented by each class).
#[derive(Debug, Clone, PartialEq)]
pub struct Dichotomies<P> {
    n_points: usize,
    words: usize,
    param_len: usize,
    labels: Vec<u64>,
    params: Vec<P>,
    limit: usize,
    overflow: bool,
}

impl<P: Copy> Dichotomies<P> {
    /// An empty set of labelings of `n_points` points with `param_len` parameters each.
    pub fn new(n_points: usize, param_len: usize) -> Self {
        Dichotomies {
            n_points,
            words: words_for(n_points),
            param_len,
            labels: Vec::new(),
            params: Vec::new(),
            limit: usize::MAX,
            overflow: false,
        }
    }

    /// Like [`Dichotomies::new`], refusing (see [`Dichotomies::push`]) more than `limit` rows.
    pub fn with_limit(n_points: usize, param_len: usize, limit: usize) -> Self {
        let mut d = Self::new(n_points, param_len);
        d.limit = limit;
        d
    }

    /// Number of labelings.
    pub fn len(&self) -> usize {
        self.labels
            .len()
            .checked_div(self.words)
            .unwrap_or(self.params.len() / self.param_len.max(1))
    }

    /// `true` if there is no labeling.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of points labeled.
    pub fn n_points(&self) -> usize {
        self.n_points
    }

    /// Words per packed labeling.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Parameters per representative.
    pub fn param_len(&self) -> usize {
        self.param_len
    }

    /// Packed labeling `i`.
    pub fn label(&self, i: usize) -> &[u64] {
        &self.labels[i * self.words..(i + 1) * self.words]
    }

    /// Label of point `j` under labeling `i`.
    pub fn bit(&self, i: usize, j: usize) -> bool {
        (self.label(i)[j / 64] >> (j % 64)) & 1 == 1
    }

    /// Parameters of the representative of labeling `i`.
    pub fn params(&self, i: usize) -> &[P] {
        &self.params[i * self.param_len..(i + 1) * self.param_len]
    }

    /// All packed labelings, row after row.
    pub fn labels_flat(&self) -> &[u64] {
        &self.labels
    }

    /// All parameters, row after row.
    pub fn params_flat(&self) -> &[P] {
        &self.params
    }

    /// Appends a labeling. Past the limit set by [`Dichotomies::with_limit`] nothing is stored
    /// and [`Dichotomies::overflowed`] becomes `true`.
    #[inline]
    pub fn push(&mut self, label: &[u64], params: &[P]) {
        debug_assert_eq!(label.len(), self.words);
        debug_assert_eq!(params.len(), self.param_len);
        if self.len() >= self.limit {
            self.overflow = true;
            return;
        }
        self.labels.extend_from_slice(label);
        self.params.extend_from_slice(params);
    }

    /// Appends the labeling `full & !label` (the complement of `label` within `full`).
    #[inline]
    pub fn push_complement(&mut self, full: &[u64], label: &[u64], params: &[P]) {
        if self.len() >= self.limit {
            self.overflow = true;
            return;
        }
        self.labels
            .extend(full.iter().zip(label).map(|(f, s)| f & !s));
        self.params.extend_from_slice(params);
    }

    /// `true` if a push was refused because of the limit.
    pub fn overflowed(&self) -> bool {
        self.overflow
    }

    /// Reserves room for `additional` more labelings (large buffers are backed by transparent
    /// huge pages on Linux: far fewer page faults when the output is first written).
    pub fn reserve(&mut self, additional: usize) {
        self.labels.reserve(additional.saturating_mul(self.words));
        self.params
            .reserve(additional.saturating_mul(self.param_len));
        advise_spare(&mut self.labels);
        advise_spare(&mut self.params);
    }

    /// Builds a set from its parts (`labels.len()` must be a multiple of the word count).
    pub fn from_parts(n_points: usize, param_len: usize, labels: Vec<u64>, params: Vec<P>) -> Self {
        let mut d = Self::new(n_points, param_len);
        debug_assert_eq!(labels.len() % d.words.max(1), 0);
        d.labels = labels;
        d.params = params;
        d
    }

    /// The packed labelings and the parameters.
    pub fn into_parts(self) -> (Vec<u64>, Vec<P>) {
        (self.labels, self.params)
    }

    /// Moves the first `k` labelings out into a new set (the rest stay, in order).
    pub fn split_front(&mut self, k: usize) -> Self {
        let k = k.min(self.len());
        let rest_l = self.labels.split_off(k * self.words);
        let rest_p = self.params.split_off(k * self.param_len);
        Dichotomies {
            labels: std::mem::replace(&mut self.labels, rest_l),
            params: std::mem::replace(&mut self.params, rest_p),
            ..Self::new(self.n_points, self.param_len)
        }
    }
}

/// Asks the kernel to back the unused capacity of `v` with huge pages (before it is touched).
fn advise_spare<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    crate::gf2::advise_huge_pages(spare.as_ptr() as usize, std::mem::size_of_val(spare));
}

/// `n` zeros (of a type whose zero is all-zero bits), in a buffer backed by huge pages when
/// large (see [`Dichotomies::reserve`]). The allocation is zeroed by the allocator (fresh pages
/// from the kernel for large sizes), not written here, so the advice precedes the first touch.
pub(crate) fn zeroed<T: Copy + Default>(n: usize) -> Vec<T> {
    let v = vec![T::default(); n];
    crate::gf2::advise_huge_pages(v.as_ptr() as usize, std::mem::size_of_val(v.as_slice()));
    v
}

/// A resumable generator of labelings: the state behind chunked (streaming) enumeration.
///
/// Each call of [`Source::next_batch`] appends a bounded batch (at most a few times `n` rows)
/// to `out` and returns `false` once the enumeration is complete. Sources are duplicate-free by
/// construction, so a stream of them never needs a seen-set.
pub trait Source: Send {
    /// Type of the representative's parameters.
    type Param: Copy + Send;
    /// Number of points labeled.
    fn n_points(&self) -> usize;
    /// Parameters per representative.
    fn param_len(&self) -> usize;
    /// Appends the next batch; `false` when nothing is left (then nothing was appended).
    fn next_batch(&mut self, out: &mut Dichotomies<Self::Param>) -> bool;
}

impl<S: Source + ?Sized> Source for Box<S> {
    type Param = S::Param;
    fn n_points(&self) -> usize {
        (**self).n_points()
    }
    fn param_len(&self) -> usize {
        (**self).param_len()
    }
    fn next_batch(&mut self, out: &mut Dichotomies<Self::Param>) -> bool {
        (**self).next_batch(out)
    }
}

/// A source of labelings with real-valued representative parameters.
pub type RealSource = Box<dyn Source<Param = f64>>;

/// The classes whose representatives have real parameters, with their options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Class {
    /// [`thresholds`] with an orientation.
    Thresholds(thresholds::Orientation),
    /// [`intervals`].
    Intervals,
    /// [`rectangles`] (boxes) in `R^dim`.
    Rectangles(usize),
    /// Affine [`halfspaces`] of `R^dim`.
    Halfspaces(usize),
    /// [`points`] of `R^dim`, or of `{0..M-1}` (then `dim = 1`).
    Points(usize, Option<u64>),
}

impl Class {
    /// Coordinates per point.
    pub fn dim(&self) -> usize {
        match *self {
            Class::Thresholds(_) | Class::Intervals => 1,
            Class::Rectangles(d) | Class::Halfspaces(d) | Class::Points(d, _) => d,
        }
    }

    /// A streaming generator over the rows of `x`, or `None` when the class deduplicates
    /// globally (halfspaces on points whose affine hull has dimension 3 or more).
    pub fn source(&self, x: &[f64]) -> Result<Option<RealSource>> {
        Ok(match *self {
            Class::Thresholds(o) => Some(Box::new(thresholds::Thresholds::new(x, o)?)),
            Class::Intervals => Some(Box::new(intervals::Intervals::new(x)?)),
            Class::Rectangles(d) => Some(Box::new(rectangles::Rectangles::new(x, d)?)),
            Class::Points(d, m) => Some(Box::new(points::Points::new(x, d, m)?)),
            Class::Halfspaces(d) => halfspaces::Prepared::new(x, d)?
                .planar()
                .map(|p| Box::new(p) as RealSource),
        })
    }

    /// All labelings of the rows of `x`, refusing (before allocating them) more than
    /// `max_count`.
    pub fn collect(&self, x: &[f64], max_count: usize) -> Result<Dichotomies<f64>> {
        match *self {
            Class::Intervals => intervals::Intervals::new(x)?.collect(max_count),
            Class::Halfspaces(d) => halfspaces::Prepared::new(x, d)?.collect(max_count),
            Class::Thresholds(o) => {
                let mut s = thresholds::Thresholds::new(x, o)?;
                let count = s.count();
                collect_counted(&mut s, count, max_count)
            }
            Class::Points(d, m) => {
                let mut s = points::Points::new(x, d, m)?;
                let count = s.count();
                collect_counted(&mut s, count, max_count)
            }
            Class::Rectangles(d) => collect(&mut rectangles::Rectangles::new(x, d)?, max_count),
        }
    }

    /// Number of labelings of the rows of `x`: closed forms for the one-dimensional classes and
    /// points, the sweep's count for planar halfspaces, otherwise a count of the generator's
    /// output (without storing labelings for rectangles).
    pub fn count(&self, x: &[f64]) -> Result<u128> {
        match *self {
            Class::Thresholds(o) => Ok(thresholds::Thresholds::new(x, o)?.count()),
            Class::Intervals => Ok(intervals::Intervals::new(x)?.count()),
            Class::Points(d, m) => Ok(points::Points::new(x, d, m)?.count()),
            Class::Rectangles(d) => Ok(rectangles::Rectangles::new(x, d)?.count()),
            Class::Halfspaces(d) => halfspaces::Prepared::new(x, d)?.count(),
        }
    }

    /// An exact empirical-risk minimiser: the index (in the order of [`Class::collect`]) and
    /// parameters of the first labeling of minimal (weighted) error, streaming when the class
    /// allows it. Rectangles in the plane skip the enumeration ([`rectangles::erm_plane`],
    /// `O(n^3)` instead of `O(n^4)` labelings) unless the weights need big integers.
    pub fn erm(&self, x: &[f64], scorer: &score::Scorer) -> Result<(usize, Vec<f64>)> {
        let n = x.len() / self.dim().max(1);
        if scorer.n_points() != n {
            return Err(Error::invalid(
                "y",
                format!(
                    "must have one label per row of X ({n}), got {}",
                    scorer.n_points()
                ),
            ));
        }
        if *self == Class::Rectangles(2)
            && let Some(gains) = scorer.signed_weights()
        {
            return rectangles::erm_plane(x, &gains);
        }
        let best = match self.source(x)? {
            Some(mut src) => score::erm_stream(&mut src, scorer)?,
            None => {
                let d = self.collect(x, usize::MAX)?;
                score::erm_stream(&mut Materialized::new(d), scorer)?
            }
        };
        Ok(best.expect("every class has at least one labeling"))
    }
}

/// A [`Source`] over labelings already in memory, returned in batches.
pub struct Materialized<P> {
    rest: Dichotomies<P>,
}

impl<P: Copy> Materialized<P> {
    /// A source over `d`.
    pub fn new(d: Dichotomies<P>) -> Self {
        Materialized { rest: d }
    }
}

impl<P: Copy + Send> Source for Materialized<P> {
    type Param = P;
    fn n_points(&self) -> usize {
        self.rest.n_points()
    }
    fn param_len(&self) -> usize {
        self.rest.param_len()
    }
    fn next_batch(&mut self, out: &mut Dichotomies<P>) -> bool {
        if self.rest.is_empty() {
            return false;
        }
        let chunk = self.rest.split_front(1 << 16);
        for i in 0..chunk.len() {
            out.push(chunk.label(i), chunk.params(i));
        }
        true
    }
}

/// The error raised when an enumeration would exceed `max_count` labelings.
pub fn too_many(count: impl std::fmt::Display, max_count: usize) -> Error {
    Error::invalid(
        "max_count",
        format!(
            "the class induces {count} labelings on these points, more than max_count = \
             {max_count}; raise max_count, or iterate over them in chunks"
        ),
    )
}

/// Checks a known count against `max_count` before anything is allocated.
pub fn check_count(count: u128, max_count: usize) -> Result<()> {
    if count > max_count as u128 {
        Err(too_many(count, max_count))
    } else {
        Ok(())
    }
}

/// Runs `source` to completion, refusing (before storing it) a labeling past `max_count`.
pub fn collect<S: Source + ?Sized>(
    source: &mut S,
    max_count: usize,
) -> Result<Dichotomies<S::Param>> {
    let mut out = Dichotomies::with_limit(source.n_points(), source.param_len(), max_count);
    while source.next_batch(&mut out) {
        if out.overflowed() {
            return Err(too_many(format!("more than {max_count}"), max_count));
        }
    }
    Ok(out)
}

/// Runs `source`, whose output has `count` labelings, into a buffer allocated once (refusing
/// more than `max_count` before allocating).
pub fn collect_counted<S: Source + ?Sized>(
    source: &mut S,
    count: u128,
    max_count: usize,
) -> Result<Dichotomies<S::Param>> {
    check_count(count, max_count)?;
    let mut out = Dichotomies::with_limit(source.n_points(), source.param_len(), max_count);
    out.reserve(count as usize);
    while source.next_batch(&mut out) {}
    Ok(out)
}

/// Wraps a [`Source`] into a stream of chunks of a fixed size.
pub struct Stream<S: Source> {
    source: S,
    pending: Dichotomies<S::Param>,
    done: bool,
    emitted: usize,
}

impl<S: Source> Stream<S> {
    /// A stream over `source`.
    pub fn new(source: S) -> Self {
        let pending = Dichotomies::new(source.n_points(), source.param_len());
        Stream {
            source,
            pending,
            done: false,
            emitted: 0,
        }
    }

    /// The next (at most) `chunk` labelings, or `None` at the end.
    pub fn next_chunk(&mut self, chunk: usize) -> Option<Dichotomies<S::Param>> {
        let chunk = chunk.max(1);
        while !self.done && self.pending.len() < chunk {
            self.done = !self.source.next_batch(&mut self.pending);
        }
        if self.pending.is_empty() {
            return None;
        }
        let out = self.pending.split_front(chunk);
        self.emitted += out.len();
        Some(out)
    }

    /// Number of labelings returned so far.
    pub fn emitted(&self) -> usize {
        self.emitted
    }
}

/// Distinct points of a row-major `n x dim` array, with the rows where each occurs.
///
/// Coordinates are compared exactly (`-0.0` equals `0.0`). Distinct points are sorted
/// lexicographically by the coordinates in `key_order` (so the result depends on the set of
/// points only, not on the row order); `rows_of(k)` lists the rows of point `k` in increasing
/// order.
#[derive(Debug, Clone)]
pub struct Grouped {
    /// Dimension of the points.
    pub dim: usize,
    /// Distinct points, row-major (`len() * dim` values).
    pub pts: Vec<f64>,
    /// Offsets into `rows` (length `len() + 1`).
    pub start: Vec<usize>,
    /// Rows of every distinct point, concatenated.
    pub rows: Vec<u32>,
    /// Number of rows of the input.
    pub n: usize,
}

impl Grouped {
    /// Groups the rows of `x` (`n x dim`, row-major, finite values).
    pub fn new(x: &[f64], dim: usize, key_order: &[usize]) -> Self {
        let n = x.len().checked_div(dim).unwrap_or(0);
        let canon: Vec<f64> = x.iter().map(|&v| v + 0.0).collect(); // -0.0 becomes 0.0
        let row = |i: usize| &canon[i * dim..(i + 1) * dim];
        let mut idx: Vec<u32> = (0..n as u32).collect();
        idx.sort_unstable_by(|&a, &b| {
            let (ra, rb) = (row(a as usize), row(b as usize));
            key_order
                .iter()
                .map(|&k| ra[k].total_cmp(&rb[k]))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let mut pts = Vec::new();
        let mut start = Vec::new();
        let mut rows = Vec::with_capacity(n);
        for (k, &i) in idx.iter().enumerate() {
            if k == 0 || row(idx[k - 1] as usize) != row(i as usize) {
                start.push(rows.len());
                pts.extend_from_slice(row(i as usize));
            }
            rows.push(i);
        }
        start.push(rows.len());
        Grouped {
            dim,
            pts,
            start,
            rows,
            n,
        }
    }

    /// Number of distinct points.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// `true` if there is no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Coordinates of distinct point `k`.
    pub fn point(&self, k: usize) -> &[f64] {
        &self.pts[k * self.dim..(k + 1) * self.dim]
    }

    /// Rows of distinct point `k`.
    pub fn rows_of(&self, k: usize) -> &[u32] {
        &self.rows[self.start[k]..self.start[k + 1]]
    }

    /// Sets the bits of the rows of point `k` in `label`.
    #[inline]
    pub fn set(&self, label: &mut [u64], k: usize) {
        for &r in self.rows_of(k) {
            label[r as usize / 64] |= 1u64 << (r % 64);
        }
    }

    /// Clears the bits of the rows of point `k` in `label`.
    #[inline]
    pub fn clear(&self, label: &mut [u64], k: usize) {
        for &r in self.rows_of(k) {
            label[r as usize / 64] &= !(1u64 << (r % 64));
        }
    }

    /// Flips the bits of the rows of point `k` in `label`.
    #[inline]
    pub fn flip(&self, label: &mut [u64], k: usize) {
        for &r in self.rows_of(k) {
            label[r as usize / 64] ^= 1u64 << (r % 64);
        }
    }

    /// The distinct points `idx` (in that order) with their rows; the row count stays `n`.
    pub fn subset(&self, idx: &[u32]) -> Grouped {
        let mut pts = Vec::with_capacity(idx.len() * self.dim);
        let mut start = Vec::with_capacity(idx.len() + 1);
        let mut rows = Vec::new();
        for &k in idx {
            start.push(rows.len());
            pts.extend_from_slice(self.point(k as usize));
            rows.extend_from_slice(self.rows_of(k as usize));
        }
        start.push(rows.len());
        Grouped {
            dim: self.dim,
            pts,
            start,
            rows,
            n: self.n,
        }
    }

    /// The labeling with the rows of every point set.
    pub fn all_set(&self) -> Vec<u64> {
        let mut l = vec![0u64; words_for(self.n)];
        for k in 0..self.len() {
            self.set(&mut l, k);
        }
        l
    }

    /// The labeling with every row set.
    pub fn full(&self) -> Vec<u64> {
        let mut l = vec![0u64; words_for(self.n)];
        for j in 0..self.n {
            l[j / 64] |= 1u64 << (j % 64);
        }
        l
    }
}

/// Checks that every value of `x` is finite.
pub fn check_finite(x: &[f64], name: &'static str) -> Result<()> {
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::invalid(
            name,
            format!("must hold finite numbers, got {} at flat index {i}", x[i]),
        )),
    }
}

/// Checks that `x` holds `n x dim` values.
pub fn check_shape(x: &[f64], dim: usize, name: &'static str) -> Result<usize> {
    if dim == 0 || !x.len().is_multiple_of(dim) {
        return Err(Error::invalid(
            name,
            format!(
                "must hold rows of {dim} coordinates, got {} values",
                x.len()
            ),
        ));
    }
    Ok(x.len() / dim)
}

/// A cut `t` with `a < t <= b` (for `a < b`): the rounded mid-point when it lies strictly
/// inside, else `b`. Used for closed lower ends (`x >= t` keeps `b`, drops `a`).
pub fn cut_above(a: f64, b: f64) -> f64 {
    let m = a / 2.0 + b / 2.0;
    if a < m && m <= b { m } else { b }
}

/// A cut `t` with `a <= t < b` (for `a < b`): the rounded mid-point when it lies strictly
/// inside, else `a`. Used for closed upper ends (`x <= t` keeps `a`, drops `b`).
pub fn cut_below(a: f64, b: f64) -> f64 {
    let m = a / 2.0 + b / 2.0;
    if a <= m && m < b { m } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_separate_adjacent_doubles() {
        for &(a, b) in &[
            (1.0, 1.0 + f64::EPSILON),
            (-f64::MAX, f64::MAX),
            (0.0, f64::from_bits(1)),
            (-f64::from_bits(1), 0.0),
            (1.0, 3.0),
        ] {
            let t = cut_above(a, b);
            assert!(a < t && t <= b, "{a} {b} {t}");
            let t = cut_below(a, b);
            assert!(a <= t && t < b, "{a} {b} {t}");
        }
    }

    #[test]
    fn grouping_merges_signed_zeros_and_sorts() {
        let x = [1.0, 0.0, -0.0, 0.0, 1.0, 0.0, -1.0, 2.0];
        let g = Grouped::new(&x, 2, &[1, 0]);
        assert_eq!(g.len(), 3);
        assert_eq!(g.point(0), &[0.0, 0.0]);
        assert_eq!(g.rows_of(0), &[1]);
        assert_eq!(g.point(1), &[1.0, 0.0]);
        assert_eq!(g.rows_of(1), &[0, 2]);
        assert_eq!(g.point(2), &[-1.0, 2.0]);
    }

    #[test]
    fn split_front_keeps_order() {
        let mut d = Dichotomies::<f64>::new(3, 1);
        for i in 0..5u64 {
            d.push(&[i], &[i as f64]);
        }
        let f = d.split_front(2);
        assert_eq!(f.labels_flat(), &[0, 1]);
        assert_eq!(d.labels_flat(), &[2, 3, 4]);
        assert_eq!(d.params_flat(), &[2.0, 3.0, 4.0]);
    }

    #[test]
    fn limit_refuses_before_storing() {
        let mut d = Dichotomies::<f64>::with_limit(3, 1, 2);
        for i in 0..3u64 {
            d.push(&[i], &[0.0]);
        }
        assert_eq!(d.len(), 2);
        assert!(d.overflowed());
    }
}
