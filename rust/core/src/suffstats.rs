//! Exact sufficient statistics of clipped regression data: the integer Gram matrix of the rows
//! `[x, c, y]` clipped and truncated to fixed-point grids (the kernel of
//! `privlearn.learners._suffstats`).
//!
//! Every row is mapped, by a fixed sequence of correctly rounded double operations, to integers
//! `q = (q_1, ..., q_p)` with `|q_j| <= 2^54`; the statistic is `T = sum_i q_i q_i^T`, summed
//! *exactly* (integers, so the result does not depend on the order of the rows or how they are
//! split into blocks). The caller rounds each entry once to a double,
//! `T_jk 2^(e_j + e_k - 108)` ([`round_entry`]). Because a row gives the same integers wherever
//! it is, the same data give the same statistics on one machine or split across workers.
//!
//! The per-row map, in this order (it must stay the same bit for bit: the Python module's
//! `clip_block` documents the same values, and its tests compare them):
//!
//! 1. non-finite entries of `x` and `y` are counted and replaced by `0` (the caller refuses the
//!    data when a count is nonzero: the statistics are then discarded);
//! 2. `sq = x_1 x_1`, then `sq = sq + x_j x_j` for `j = 2..d` (each operation rounded, no fused
//!    multiply-add);
//! 3. "taming": if `sq > 2^1000` (a squared norm that is huge or overflowed to `+inf`), the row is
//!    scaled by `2^s`, `s = E(data_norm) + 2 - E(max_j |x_j|)` with `E` the exponent of `frexp`
//!    (`x = m 2^E`, `1/2 <= m < 1`), and `sq` is recomputed as in step 2: the row keeps its
//!    direction and stays beyond the bound, so clipping scales it to the bound instead of to 0;
//! 4. clipping: with `margin = (d + 17) 2^-52`, if `sq > (data_norm data_norm) (1 - 2 margin)`
//!    every entry is multiplied by `(data_norm (1 - margin)) / sqrt(sq)`; the margin makes the
//!    *exact* norm of the clipped row at most `data_norm` despite the rounding of `sq`;
//! 5. the intercept constant `c` (if any) is appended, then the label clamped to
//!    `[-label_bound, label_bound]`;
//! 6. each value `z` of column `j` becomes `q_j = trunc(z 2^(54 - e_j))` (toward zero), `2^e_j`
//!    the smallest power of two at least the column's bound (`data_norm`, `|c|`, `label_bound`).
//!
//! Exactness of the sum: `|q_j q_k| <= 2^108`, so at most [`FOLD_ROWS`] `= 2^18` rows are added
//! in `i128` (`|partial| <= 2^126`); each such partial `t` is then folded into a wider
//! accumulator, `hi += t >> 64` (`i128`) and `lo += t mod 2^64` (`u128`), which stays exact for
//! any row count below `2^64`. Only the upper triangle (`p (p + 1) / 2` entries, row-major) is
//! computed: `T` is symmetric.
//!
//! [`exact_gram_threads`] splits the rows into contiguous ranges summed on scoped threads and adds
//! the exact results: the integers do not depend on the split. [`gram_threads`] picks the count
//! (one thread per [`PRODUCTS_PER_THREAD`] products, capped by the caller and by
//! `std::thread::available_parallelism`).
//!
//! [`row_norm_counts`] and [`abs_counts`] count the rows' norms (`sqrt` of the squared norm of
//! step 2, the value clipping compares) and the labels' magnitudes at or below the points of a
//! public grid: the input of the private bounds' quantiles.

use num_bigint::BigInt;

use crate::error::{Error, Result};
use crate::grid::big_to_f64;

/// Bits of each column's fixed-point grid, relative to its power-of-two bound.
pub const GRID_BITS: i32 = 54;

/// Rows summed in `i128` before the partial sums are folded into the wide accumulator:
/// `2^18 * 2^108 = 2^126 < 2^127`.
pub const FOLD_ROWS: usize = 1 << 18;

/// The smallest `data_norm` accepted, `2^-400`: then `data_norm^2 margin >= 2^-852` dwarfs the
/// underflow of the squared norm's terms (at most `2^-1074` each), so the margin of step 4 also
/// covers rows with tiny entries. (With `data_norm^2` near or below the subnormal range, a row's
/// squared norm could underflow to far below its true value and escape clipping.)
pub const MIN_DATA_NORM: f64 = f64::from_bits(623 << 52); // 2^-400

/// The smallest `label_bound` and `|intercept|` accepted, `2^-900`: the grid scale
/// `2^(54 - e)` of every column is then a normal double.
pub const MIN_BOUND: f64 = f64::from_bits(123 << 52); // 2^-900

/// Rows whose float squared norm is above this (or overflowed to `+inf`) are tamed first.
const HUGE: f64 = f64::from_bits(2023 << 52); // 2^1000

/// Rows per block of the product loop: the block's integers are stored column by column so that
/// each entry of `T` is a dot product of two contiguous arrays (divides [`FOLD_ROWS`]).
const BLOCK: usize = 64;

/// The exponent `E` of `frexp`: `x = m 2^E` with `1/2 <= |m| < 1`, for a finite `x != 0`.
fn frexp_exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // subnormal: 2^-1074 times its 52-bit fraction
        let frac = bits & ((1u64 << 52) - 1);
        -1074 + (64 - frac.leading_zeros() as i32)
    } else {
        biased - 1022
    }
}

/// The smallest `e` with `2^e >= bound`, for a finite `bound > 0`.
pub fn column_exponent(bound: f64) -> i32 {
    let e = frexp_exponent(bound);
    // bound = m 2^e with 1/2 <= m < 1: a power of two (m = 1/2) is 2^(e-1) itself
    if bound == libm::ldexp(0.5, e) {
        e - 1
    } else {
        e
    }
}

/// How the rows are clipped and where their columns' grids lie.
#[derive(Clone, Debug, PartialEq)]
pub struct GramSpec {
    /// Number of features `d` (columns of `x`).
    pub d: usize,
    /// Rows are clipped to L2 norm at most `data_norm` (finite, `> 0`).
    pub data_norm: f64,
    /// Labels are clamped to `[-label_bound, label_bound]` (finite, `> 0`).
    pub label_bound: f64,
    /// The constant column appended after the features, if any (finite, nonzero).
    pub intercept: Option<f64>,
}

impl GramSpec {
    /// Number of columns `p` of `[x, c, y]`.
    pub fn columns(&self) -> usize {
        self.d + usize::from(self.intercept.is_some()) + 1
    }

    /// The exponent `e_j` of every column (`2^e_j` the smallest power of two `>= ` its bound).
    pub fn exponents(&self) -> Vec<i32> {
        let mut exps = vec![column_exponent(self.data_norm); self.d];
        if let Some(c) = self.intercept {
            exps.push(column_exponent(c.abs()));
        }
        exps.push(column_exponent(self.label_bound));
        exps
    }

    fn check(&self) -> Result<()> {
        let positive = |v: f64, name: &'static str| {
            if v.is_finite() && v >= MIN_BOUND {
                Ok(())
            } else {
                Err(Error::invalid(
                    name,
                    format!("must be a finite number >= 2^-900; got {v}"),
                ))
            }
        };
        if self.d == 0 {
            return Err(Error::invalid("X", "needs at least one column"));
        }
        positive(self.data_norm, "data_norm")?;
        if self.data_norm < MIN_DATA_NORM {
            return Err(Error::invalid(
                "data_norm",
                format!("must be at least 2^-400; got {}", self.data_norm),
            ));
        }
        positive(self.label_bound, "label_bound")?;
        if let Some(c) = self.intercept {
            positive(c.abs(), "intercept")?;
        }
        Ok(())
    }
}

/// The exact upper triangle of `T = sum_i q_i q_i^T`, and the counts of non-finite inputs.
///
/// Entry `k` (row-major over `j <= l`) is `hi[k] 2^64 + lo[k]` with `0 <= lo[k] < 2^64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactGram {
    /// Number of columns `p`.
    pub p: usize,
    /// High parts (multiples of `2^64`).
    pub hi: Vec<i128>,
    /// Low parts, in `[0, 2^64)`.
    pub lo: Vec<u64>,
    /// Rows read.
    pub rows: u64,
    /// Non-finite entries of `x` (counted as `0` in `T`).
    pub bad_x: u64,
    /// Non-finite labels (counted as `0` in `T`).
    pub bad_y: u64,
}

impl ExactGram {
    /// Entry `k` as a big integer.
    pub fn entry(&self, k: usize) -> BigInt {
        (BigInt::from(self.hi[k]) << 64u32) + BigInt::from(self.lo[k])
    }
}

/// The double nearest to `(hi 2^64 + lo) 2^exponent` (ties to even, subnormal results rounded
/// once, `+-inf` beyond the largest double, `-0.0` for a negative value that rounds to zero).
pub fn round_entry(hi: i128, lo: u64, exponent: i32) -> f64 {
    big_to_f64(&((BigInt::from(hi) << 64u32) + BigInt::from(lo)), exponent)
}

/// `trunc(z scale)` for `|z scale| <= 2^54`: the product is exact (a power-of-two scale of a
/// value on or above the grid, or a tiny value whose product truncates to 0 either way), and a
/// float-to-integer `as` cast rounds toward zero (one instruction, unlike `f64::trunc`).
#[inline]
fn to_grid(z: f64, scale: f64) -> i64 {
    let v = z * scale;
    debug_assert!(v.abs() <= 18014398509481984.0); // 2^54
    v as i64
}

/// The exact dot product of two integer columns of a block (`|a_r b_r| <= 2^108`, at most
/// [`BLOCK`] terms), in four independent `i128` sums (shorter carry chains).
#[inline]
fn dot(a: &[i64], b: &[i64]) -> i128 {
    let mut s = [0i128; 4];
    let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (u, v) in ac.zip(bc) {
        for t in 0..4 {
            s[t] += i128::from(u[t]) * i128::from(v[t]);
        }
    }
    for (&u, &v) in ar.iter().zip(br) {
        s[0] += i128::from(u) * i128::from(v);
    }
    (s[0] + s[1]) + (s[2] + s[3])
}

/// One row clipped and truncated to its integers `q` (steps 1-6 of the module documentation).
struct RowMap {
    d: usize,
    label_bound: f64,
    intercept: Option<f64>,
    /// `(data_norm data_norm) (1 - 2 margin)`.
    threshold: f64,
    /// `data_norm (1 - margin)`.
    target: f64,
    /// `E(data_norm) + 2`: a tamed row's largest entry gets this `frexp` exponent.
    tame_exponent: i32,
    /// `2^(54 - e_j)` per column.
    scale: Vec<f64>,
}

impl RowMap {
    fn new(spec: &GramSpec, exps: &[i32]) -> Self {
        let margin = (spec.d as f64 + 17.0) * libm::ldexp(1.0, -52);
        RowMap {
            d: spec.d,
            label_bound: spec.label_bound,
            intercept: spec.intercept,
            threshold: (spec.data_norm * spec.data_norm) * (1.0 - 2.0 * margin),
            target: spec.data_norm * (1.0 - margin),
            tame_exponent: frexp_exponent(spec.data_norm) + 2,
            scale: exps
                .iter()
                .map(|&e| libm::ldexp(1.0, GRID_BITS - e))
                .collect(),
        }
    }

    /// Squared norm summed column by column (no fused multiply-add: Rust never contracts).
    fn squared_norm(z: &[f64]) -> f64 {
        let mut sq = z[0] * z[0];
        for &v in &z[1..] {
            sq += v * v;
        }
        sq
    }

    /// Writes the row's integers into `q` (length `p`) and returns the non-finite counts
    /// `(in x, in y)`; `z` is scratch of length `d`.
    fn map(&self, x: &[f64], y: f64, z: &mut [f64], q: &mut [i64]) -> (u64, u64) {
        let mut bad_x = 0u64;
        for (zj, &xj) in z.iter_mut().zip(x) {
            *zj = if xj.is_finite() {
                xj
            } else {
                bad_x += 1;
                0.0
            };
        }
        let mut sq = Self::squared_norm(z);
        // sq is never NaN (finite entries, non-negative terms); an overflow to +inf is > HUGE
        if sq > HUGE {
            let top = z.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let shift = self.tame_exponent - frexp_exponent(top);
            for zj in z.iter_mut() {
                *zj = libm::ldexp(*zj, shift);
            }
            sq = Self::squared_norm(z);
        }
        if sq > self.threshold {
            let factor = self.target / sq.sqrt();
            for zj in z.iter_mut() {
                *zj *= factor;
            }
        }
        for j in 0..self.d {
            q[j] = to_grid(z[j], self.scale[j]);
        }
        let mut col = self.d;
        if let Some(c) = self.intercept {
            q[col] = to_grid(c, self.scale[col]);
            col += 1;
        }
        let (label, bad_y) = if y.is_finite() { (y, 0) } else { (0.0, 1) };
        let label = label.clamp(-self.label_bound, self.label_bound);
        q[col] = to_grid(label, self.scale[col]);
        (bad_x, bad_y)
    }
}

/// The exact Gram matrix of the clipped, truncated rows of `[x, c, y]` (module documentation),
/// on the calling thread (`exact_gram_threads(.., 1)`).
///
/// `x` holds `m` rows of `spec.d` values (row-major), `y` the `m` labels; `exps` must be
/// [`GramSpec::exponents`] (the caller passes the exponents it rounds with: they are checked).
/// Non-finite values are counted, not refused: the caller refuses them with a message that holds
/// no data-dependent value.
pub fn exact_gram(x: &[f64], y: &[f64], spec: &GramSpec, exps: &[i32]) -> Result<ExactGram> {
    exact_gram_threads(x, y, spec, exps, 1)
}

/// As [`exact_gram`], with the rows split into `threads` contiguous ranges of (nearly) equal
/// length, each summed on its own scoped thread and the exact partial results added. The
/// integers are the same for every `threads` (exact sums; a row gives the same integers in any
/// range). `threads` is used as given (`0` counts as `1`; at most one range per row): callers
/// choose it with [`gram_threads`].
pub fn exact_gram_threads(
    x: &[f64],
    y: &[f64],
    spec: &GramSpec,
    exps: &[i32],
    threads: usize,
) -> Result<ExactGram> {
    spec.check()?;
    let d = spec.d;
    if exps != spec.exponents().as_slice() {
        return Err(Error::invalid(
            "exps",
            "must be the columns' power-of-two exponents of the bounds",
        ));
    }
    if x.len() != y.len() * d {
        return Err(Error::invalid(
            "X",
            format!(
                "expected {} values ({} rows of {d}); got {}",
                y.len() * d,
                y.len(),
                x.len()
            ),
        ));
    }
    let map = RowMap::new(spec, exps);
    let parts = threads.clamp(1, y.len().max(1));
    if parts == 1 {
        return Ok(gram_rows(x, y, &map, spec.columns()));
    }
    let per = y.len().div_ceil(parts);
    let out = std::thread::scope(|s| {
        let handles: Vec<_> = x
            .chunks(per * d)
            .zip(y.chunks(per))
            .map(|(xs, ys)| {
                let map = &map;
                s.spawn(move || gram_rows(xs, ys, map, spec.columns()))
            })
            .collect();
        let mut total: Option<ExactGram> = None;
        for h in handles {
            let part = h
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload));
            match total.as_mut() {
                None => total = Some(part),
                Some(t) => t.add(&part),
            }
        }
        total
    });
    Ok(out.expect("at least one range of rows"))
}

/// Products `q_j q_k` each thread of [`gram_threads`] gets at least: about 2 ms of work at the
/// measured cost of about 1 ns a product, far above the cost of spawning a scoped thread (tens of
/// microseconds) and of adding the partial results (`p (p + 1) / 2` entries). Small fits stay on
/// the calling thread.
pub const PRODUCTS_PER_THREAD: usize = 1 << 21;

/// How many threads [`exact_gram_threads`] should use for `rows` rows of `p` columns: one per
/// [`PRODUCTS_PER_THREAD`] products `rows p (p + 1) / 2` (so inputs below `2 PRODUCTS_PER_THREAD`
/// products stay on the calling thread), at most `max_threads` (the caller's cap: `1` where the
/// caller already runs in parallel, e.g. on Dask workers) and at most
/// `std::thread::available_parallelism()`.
pub fn gram_threads(rows: usize, p: usize, max_threads: usize) -> usize {
    let products = rows.saturating_mul(p * (p + 1) / 2);
    let wanted = (products / PRODUCTS_PER_THREAD).clamp(1, max_threads.max(1));
    if wanted == 1 {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    wanted.min(cores)
}

/// The exact Gram sums of one contiguous range of rows (validated by the caller).
fn gram_rows(x: &[f64], y: &[f64], map: &RowMap, p: usize) -> ExactGram {
    let d = map.d;
    let entries = p * (p + 1) / 2;
    let mut out = ExactGram {
        p,
        hi: vec![0; entries],
        lo: vec![0; entries],
        rows: y.len() as u64,
        bad_x: 0,
        bad_y: 0,
    };
    let mut wide_lo = vec![0u128; entries];
    let mut partial = vec![0i128; entries];
    let mut in_partial = 0usize;
    // The block's integers column by column: cols[j * BLOCK + r] is q_j of the block's row r.
    let mut cols = vec![0i64; p * BLOCK];
    let mut z = vec![0.0f64; d];
    let mut q = vec![0i64; p];
    for (xb, yb) in x.chunks(BLOCK * d).zip(y.chunks(BLOCK)) {
        let rows = yb.len();
        for (r, (xr, &yr)) in xb.chunks_exact(d).zip(yb).enumerate() {
            let (bx, by) = map.map(xr, yr, &mut z, &mut q);
            out.bad_x += bx;
            out.bad_y += by;
            for (j, &v) in q.iter().enumerate() {
                cols[j * BLOCK + r] = v;
            }
        }
        let mut k = 0;
        for j in 0..p {
            let a = &cols[j * BLOCK..j * BLOCK + rows];
            for l in j..p {
                let b = &cols[l * BLOCK..l * BLOCK + rows];
                partial[k] += dot(a, b);
                k += 1;
            }
        }
        in_partial += rows;
        if in_partial == FOLD_ROWS {
            fold(&mut partial, &mut out.hi, &mut wide_lo);
            in_partial = 0;
        }
    }
    fold(&mut partial, &mut out.hi, &mut wide_lo);
    for ((h, l), w) in out.hi.iter_mut().zip(out.lo.iter_mut()).zip(&wide_lo) {
        *h += (w >> 64) as i128;
        *l = *w as u64;
    }
    out
}

impl ExactGram {
    /// Adds the sums of another range of rows (exact: the low parts' carry moves to `hi`).
    fn add(&mut self, other: &ExactGram) {
        for k in 0..self.hi.len() {
            let low = u128::from(self.lo[k]) + u128::from(other.lo[k]);
            self.hi[k] += other.hi[k] + (low >> 64) as i128;
            self.lo[k] = low as u64;
        }
        self.rows += other.rows;
        self.bad_x += other.bad_x;
        self.bad_y += other.bad_y;
    }
}

/// Moves the `i128` partial sums into the wide accumulator (exact) and clears them.
fn fold(partial: &mut [i128], hi: &mut [i128], lo: &mut [u128]) {
    for ((t, h), l) in partial.iter_mut().zip(hi.iter_mut()).zip(lo.iter_mut()) {
        *h += *t >> 64;
        *l += u128::from(*t as u64);
        *t = 0;
    }
}

/// Counts of values at or below public grid points: `out[k] = #{i : v_i <= grid[k]}`, by one
/// binary search per value in the sorted grid (a histogram over the gaps between grid points,
/// then prefix sums). Equal to sorting the values and `numpy.searchsorted(.., side="right")`.
struct GridCounts {
    /// The grid sorted increasingly.
    sorted: Vec<f64>,
    /// `hist[b]`: values `v` with `sorted[b - 1] < v <= sorted[b]` (the last bin: beyond).
    hist: Vec<u64>,
}

impl GridCounts {
    fn new(grid: &[f64], name: &'static str) -> Result<Self> {
        if grid.iter().any(|g| !g.is_finite()) {
            return Err(Error::invalid(name, "grid points must be finite"));
        }
        let mut sorted = grid.to_vec();
        sorted.sort_by(f64::total_cmp);
        let hist = vec![0; sorted.len() + 1];
        Ok(GridCounts { sorted, hist })
    }

    /// Counts one value (not NaN): the first grid point `>= v` (the last bin if none). The
    /// standard library's binary search is branch-free, so the searches of consecutive values
    /// overlap in the processor (measured: about 8 ns a value on a 319-point grid; searching
    /// eight values in lockstep was slower).
    #[inline]
    fn push(&mut self, v: f64) {
        let b = self.sorted.partition_point(|&g| g < v);
        self.hist[b] += 1;
    }

    /// The counts at the grid's points, in the caller's order.
    fn counts(&self, grid: &[f64]) -> Vec<u64> {
        let mut below = Vec::with_capacity(self.sorted.len());
        let mut run = 0u64;
        for &h in &self.hist[..self.sorted.len()] {
            run += h;
            below.push(run);
        }
        // a point equal to others gets the count at its first copy (later copies' bins are empty)
        grid.iter()
            .map(|&g| below[self.sorted.partition_point(|&s| s < g)])
            .collect()
    }
}

/// Counts of the rows' L2 norms at or below every point of a public `grid`, and the number of
/// non-finite entries of `x` (`m` rows of `d` values, row-major).
///
/// Each row's norm is `sqrt(sq)` with `sq` from steps 1-2 of the module documentation (non-finite
/// entries read as `0`, squares added column by column, each operation rounded; `+inf` if the
/// sum overflows), the same double as `numpy.sqrt` of the Python module's `_squared_norms`:
/// `counts[k] = #{i : sqrt(sq_i) <= grid[k]}`. An empty grid only counts the non-finite entries.
pub fn row_norm_counts(x: &[f64], d: usize, grid: &[f64]) -> Result<(Vec<u64>, u64)> {
    if d == 0 {
        return Err(Error::invalid("X", "needs at least one column"));
    }
    if !x.len().is_multiple_of(d) {
        return Err(Error::invalid(
            "X",
            format!("expected rows of {d} values; got {} values", x.len()),
        ));
    }
    let mut counter = GridCounts::new(grid, "grid_x")?;
    let bad = x.iter().filter(|v| !v.is_finite()).count() as u64;
    if grid.is_empty() {
        return Ok((Vec::new(), bad));
    }
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    // the norms first, then the searches: two simple loops whose iterations the processor
    // overlaps (one loop doing both was measured about 1.5 times slower)
    let norms: Vec<f64> = x
        .chunks_exact(d)
        .map(|row| {
            let z = finite(row[0]);
            let mut sq = z * z;
            for &v in &row[1..] {
                let z = finite(v);
                sq += z * z;
            }
            sq.sqrt()
        })
        .collect();
    for v in norms {
        counter.push(v);
    }
    Ok((counter.counts(grid), bad))
}

/// Counts of the labels' magnitudes at or below every point of a public `grid`
/// (`counts[k] = #{i : |y_i| <= grid[k]}`, non-finite labels read as `0`), and the number of
/// non-finite labels. An empty grid only counts the non-finite labels.
pub fn abs_counts(y: &[f64], grid: &[f64]) -> Result<(Vec<u64>, u64)> {
    let mut counter = GridCounts::new(grid, "grid_y")?;
    let bad = y.iter().filter(|v| !v.is_finite()).count() as u64;
    if grid.is_empty() {
        return Ok((Vec::new(), bad));
    }
    for &v in y {
        counter.push(if v.is_finite() { v.abs() } else { 0.0 });
    }
    Ok((counter.counts(grid), bad))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    /// The integer `v 2^1074` (every finite double is a multiple of `2^-1074`).
    fn exact(v: f64) -> BigInt {
        if v == 0.0 {
            return BigInt::from(0);
        }
        let bits = v.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if biased == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), biased - 1075)
        };
        let mag = BigInt::from(m) << ((e + 1074) as u64);
        if v < 0.0 { -mag } else { mag }
    }

    /// The reference per-row map, written independently with a different structure (whole row
    /// at once, exponents from `log2` of exact powers), and the Gram sum in big integers.
    fn reference(x: &[f64], y: &[f64], spec: &GramSpec) -> (Vec<BigInt>, u64, u64) {
        let d = spec.d;
        let exps = spec.exponents();
        let p = exps.len();
        let mut t = vec![BigInt::from(0); p * (p + 1) / 2];
        let (mut bx, mut by) = (0, 0);
        let margin = (d + 17) as f64 / 4503599627370496.0;
        for (i, &yi) in y.iter().enumerate() {
            let mut row: Vec<f64> = x[i * d..(i + 1) * d]
                .iter()
                .map(|&v| {
                    if v.is_nan() || v.is_infinite() {
                        bx += 1;
                        0.0
                    } else {
                        v
                    }
                })
                .collect();
            let norm2 = |r: &[f64]| r.iter().skip(1).fold(r[0] * r[0], |s, v| s + v * v);
            let mut sq = norm2(&row);
            if sq.is_infinite() || sq > 2f64.powi(1000) {
                let top = row.iter().map(|v| v.abs()).fold(0.0, f64::max);
                let s = libm::frexp(spec.data_norm).1 + 2 - libm::frexp(top).1;
                row = row.iter().map(|&v| libm::scalbn(v, s)).collect();
                sq = norm2(&row);
            }
            let lim = spec.data_norm * spec.data_norm * (1.0 - 2.0 * margin);
            if sq > lim {
                let f = spec.data_norm * (1.0 - margin) / sq.sqrt();
                row = row.iter().map(|v| v * f).collect();
            }
            // the premise of every sensitivity: the clipped row's exact norm is within the bound
            let norm2: BigInt = row.iter().map(|&v| exact(v) * exact(v)).sum();
            assert!(
                norm2 <= exact(spec.data_norm) * exact(spec.data_norm),
                "row {i}"
            );
            if let Some(c) = spec.intercept {
                row.push(c);
            }
            let yv = if yi.is_finite() {
                yi
            } else {
                by += 1;
                0.0
            };
            row.push(yv.max(-spec.label_bound).min(spec.label_bound));
            // q_j = trunc(z 2^(54 - e_j)) from the exact rational value of z
            let qs: Vec<BigInt> = row
                .iter()
                .zip(&exps)
                .map(|(&z, &e)| {
                    let num = exact(z); // z = num 2^-1074
                    let shift = i64::from(GRID_BITS - e) - 1074; // q = trunc(num 2^shift)
                    if shift >= 0 {
                        num << (shift as u64)
                    } else {
                        // BigInt >> rounds toward -inf: truncate the magnitude instead
                        let (sign, mag) = num.into_parts();
                        BigInt::from_biguint(sign, mag >> ((-shift) as u64))
                    }
                })
                .collect();
            assert!(qs.iter().all(|q| q.magnitude().bits() <= 55));
            let mut k = 0;
            for j in 0..p {
                for l in j..p {
                    t[k] += &qs[j] * &qs[l];
                    k += 1;
                }
            }
        }
        (t, bx, by)
    }

    fn check(x: &[f64], y: &[f64], spec: &GramSpec) -> ExactGram {
        let (t, bx, by) = reference(x, y, spec);
        let g = exact_gram(x, y, spec, &spec.exponents()).unwrap();
        assert_eq!((g.bad_x, g.bad_y, g.rows), (bx, by, y.len() as u64));
        assert_eq!(g.p, spec.columns());
        for (k, want) in t.iter().enumerate() {
            assert_eq!(&g.entry(k), want, "entry {k}");
        }
        g
    }

    fn spec(d: usize, data_norm: f64, label_bound: f64, intercept: Option<f64>) -> GramSpec {
        GramSpec {
            d,
            data_norm,
            label_bound,
            intercept,
        }
    }

    /// A small deterministic generator (splitmix64) for test data.
    struct Mix(u64);
    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / 9007199254740992.0 * 2.0 - 1.0
        }
    }

    fn adversarial_rows(d: usize, data_norm: f64, label_bound: f64) -> (Vec<f64>, Vec<f64>) {
        let mut g = Mix(d as u64 + 7);
        let mut x = Vec::new();
        let mut y = Vec::new();
        let mut push = |row: Vec<f64>, label: f64| {
            x.extend(row);
            y.push(label);
        };
        let root = (d as f64).sqrt();
        push(vec![0.0; d], 0.0);
        push(vec![-0.0; d], -0.0);
        let mut on = vec![0.0; d];
        on[0] = data_norm; // exactly on the bound
        push(on.clone(), label_bound);
        on[0] = -data_norm;
        push(on, -label_bound);
        push(vec![data_norm / root; d], 1e300); // on the bound up to rounding
        push(vec![1e300; d], -1e300); // squared norm overflows
        push(vec![1e150; d], 5e-324);
        push(vec![5e-324; d], -5e-324); // subnormal
        push(vec![-1e-310; d], 1e-320);
        let mut mixed = vec![1e300; d];
        mixed[0] = -3e299;
        if d > 1 {
            mixed[d - 1] = 1e-300;
        }
        push(mixed, f64::NAN);
        let mut bad = vec![1.0; d];
        bad[d / 2] = f64::INFINITY;
        push(bad.clone(), f64::NEG_INFINITY);
        bad[0] = f64::NAN;
        push(bad, 0.5);
        // rows a few ulps around the clipping threshold, in random directions
        for i in 0..200 {
            let dir: Vec<f64> = (0..d).map(|_| g.unit()).collect();
            let n = RowMap::squared_norm(&dir).sqrt();
            let ulps = (i % 81) as f64 - 40.0;
            let s = data_norm * (1.0 + ulps * 2f64.powi(-52)) / n;
            let label = g.unit() * label_bound * 1.5;
            push(dir.iter().map(|v| v * s).collect(), label);
        }
        // random magnitudes from tiny to far beyond the bound
        for i in 0..300 {
            let scale = 2f64.powi((i % 61) * 2 - 60);
            let row: Vec<f64> = (0..d).map(|_| g.unit() * scale * data_norm).collect();
            push(row, g.unit() * label_bound * 3.0);
        }
        (x, y)
    }

    #[test]
    fn equals_the_big_integer_reference_on_adversarial_rows() {
        for &(d, dn, lb) in &[
            (1, 3.0, 2.5),
            (2, 1.0, 1.0),
            (5, 8.0, 9.0),
            (17, 0.7, 2f64.powi(-20)),
            (3, 2f64.powi(60), 3e20),
            (4, MIN_DATA_NORM, 2f64.powi(-899)),
            (3, MIN_DATA_NORM * 1.5, MIN_BOUND),
        ] {
            let (x, y) = adversarial_rows(d, dn, lb);
            for c in [None, Some(1.0), Some(-0.3), Some(dn), Some(-MIN_BOUND)] {
                let g = check(&x, &y, &spec(d, dn, lb, c));
                assert!(g.bad_x >= 2 && g.bad_y == 2);
            }
        }
    }

    #[test]
    fn split_and_permuted_rows_give_the_same_integers() {
        let s = spec(6, 3.0, 2.5, Some(1.0));
        let (x, y) = adversarial_rows(6, 3.0, 2.5);
        let all = exact_gram(&x, &y, &s, &s.exponents()).unwrap();
        let n = y.len();
        let cut = 77;
        let a = exact_gram(&x[..cut * 6], &y[..cut], &s, &s.exponents()).unwrap();
        let b = exact_gram(&x[cut * 6..], &y[cut..], &s, &s.exponents()).unwrap();
        for k in 0..all.hi.len() {
            assert_eq!(all.entry(k), a.entry(k) + b.entry(k));
        }
        let rev_x: Vec<f64> = x.chunks(6).rev().flatten().copied().collect();
        let rev_y: Vec<f64> = y.iter().rev().copied().collect();
        let r = exact_gram(&rev_x, &rev_y, &s, &s.exponents()).unwrap();
        assert_eq!(r, all);
        assert_eq!(all.rows, n as u64);
    }

    #[test]
    fn beyond_one_fold_stays_exact() {
        // 2^19 + 100 rows with labels at the extreme integer -2^54: every y^2 product is 2^108,
        // and their total 2^108 (2^19 + 100) > 2^127 overflows an i128 without the fold.
        // (a literal, not FOLD_ROWS: the test must not move with the constant it checks)
        let n = (1usize << 19) + 100;
        let s = spec(1, 1.0, 1.0, None);
        let x = vec![0.5; n]; // inside the bound: q = 2^53
        let y = vec![-1.0; n]; // q = -2^54
        let g = exact_gram(&x, &y, &s, &s.exponents()).unwrap();
        // the upper triangle of the 2 x 2 Gram of [x, y], row-major: three entries
        assert_eq!((g.hi.len(), g.lo.len()), (3, 3));
        let rows = BigInt::from(n);
        assert_eq!(g.entry(0), (BigInt::from(1) << 106u32) * &rows);
        assert_eq!(g.entry(1), -((BigInt::from(1) << 107u32) * &rows));
        assert_eq!(g.entry(2), (BigInt::from(1) << 108u32) * &rows);
        // the doubles of the entries, with the exponents 0 + 0 - 108
        assert_eq!(round_entry(g.hi[0], g.lo[0], -108), n as f64 / 4.0);
        assert_eq!(round_entry(g.hi[1], g.lo[1], -108), -(n as f64) / 2.0);
        assert_eq!(round_entry(g.hi[2], g.lo[2], -108), n as f64);
    }

    #[test]
    fn any_number_of_threads_gives_the_same_integers() {
        for &(d, c) in &[(1, None), (6, Some(1.0)), (13, Some(-0.3))] {
            let s = spec(d, 3.0, 2.5, c);
            let (x, y) = adversarial_rows(d, 3.0, 2.5);
            let one = exact_gram(&x, &y, &s, &s.exponents()).unwrap();
            for threads in [0, 2, 3, 7, y.len() - 1, y.len(), y.len() + 5] {
                let many = exact_gram_threads(&x, &y, &s, &s.exponents(), threads).unwrap();
                assert_eq!(many, one, "d = {d}, {threads} threads");
            }
        }
        // more than one fold per range, and low parts whose sum carries into the high parts
        let n = 3 * FOLD_ROWS / 2 + 7;
        let s = spec(1, 1.0, 1.0, None);
        let (x, y) = (vec![-0.75; n], vec![-1.0; n]);
        let one = exact_gram(&x, &y, &s, &s.exponents()).unwrap();
        assert_eq!(
            exact_gram_threads(&x, &y, &s, &s.exponents(), 4).unwrap(),
            one
        );
        assert_eq!(one.entry(2), (BigInt::from(1) << 108u32) * BigInt::from(n));
        let empty = exact_gram_threads(&[], &[], &s, &s.exponents(), 4).unwrap();
        assert_eq!(empty, exact_gram(&[], &[], &s, &s.exponents()).unwrap());
        assert!(exact_gram_threads(&[1.0], &[], &s, &s.exponents(), 2).is_err());
    }

    #[test]
    fn thread_count_follows_the_work_and_the_caps() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // p = 22: 253 products a row
        let rows_per_thread = PRODUCTS_PER_THREAD.div_ceil(253);
        assert_eq!(gram_threads(0, 22, 8), 1);
        assert_eq!(gram_threads(2 * rows_per_thread - 2, 22, 8), 1);
        assert_eq!(gram_threads(100 * rows_per_thread, 22, 1), 1);
        assert_eq!(gram_threads(100 * rows_per_thread, 22, 0), 1);
        assert_eq!(gram_threads(2 * rows_per_thread, 22, 8), 2.min(cores));
        assert_eq!(gram_threads(100 * rows_per_thread, 22, 3), 3.min(cores));
        assert_eq!(
            gram_threads(100 * rows_per_thread, 22, 1000),
            100.min(cores)
        );
        assert_eq!(gram_threads(usize::MAX, 22, usize::MAX), cores);
    }

    /// `#{i : v_i <= g}` by direct comparison.
    fn brute_counts(values: &[f64], grid: &[f64]) -> Vec<u64> {
        grid.iter()
            .map(|&g| values.iter().filter(|&&v| v <= g).count() as u64)
            .collect()
    }

    #[test]
    fn grid_counts_equal_direct_comparisons() {
        for d in [1, 2, 5, 8, 9, 20] {
            let (x, y) = adversarial_rows(d, 3.0, 2.5);
            let norms: Vec<f64> = x
                .chunks(d)
                .map(|r| {
                    let z: Vec<f64> = r
                        .iter()
                        .map(|&v| if v.is_finite() { v } else { 0.0 })
                        .collect();
                    z.iter().skip(1).fold(z[0] * z[0], |s, v| s + v * v).sqrt()
                })
                .collect();
            // unsorted grid with duplicates, signed zeros, negative points, the values themselves
            // and their neighbours
            let mut grid = vec![3.0, -1.0, 0.0, -0.0, 3.0, 1e-300, 7.5, 1e308, 2.5];
            for &v in norms.iter().step_by(7).filter(|v| v.is_finite()) {
                grid.extend([v, v.next_down(), v.next_up()]);
            }
            let (got, bad) = row_norm_counts(&x, d, &grid).unwrap();
            let bad_x = x.iter().filter(|v| !v.is_finite()).count() as u64;
            assert_eq!((got, bad), (brute_counts(&norms, &grid), bad_x), "d = {d}");
            let labels: Vec<f64> = y
                .iter()
                .map(|&v| if v.is_finite() { v.abs() } else { 0.0 })
                .collect();
            let (got, bad) = abs_counts(&y, &grid).unwrap();
            assert_eq!((got, bad), (brute_counts(&labels, &grid), 2));
            // every grid length from 1 (the binary search's steps) and fewer rows
            let m = y.len();
            for len in 1..40 {
                let g = &grid[..len];
                let cut = m - len % 9;
                let (got, _) = row_norm_counts(&x[..cut * d], d, g).unwrap();
                assert_eq!(got, brute_counts(&norms[..cut], g), "d = {d}, {len} points");
                let (got, _) = abs_counts(&y[..cut], g).unwrap();
                assert_eq!(got, brute_counts(&labels[..cut], g), "{len} points");
            }
            assert_eq!(row_norm_counts(&x, d, &[]).unwrap(), (vec![], bad_x));
            assert_eq!(abs_counts(&y, &[]).unwrap(), (vec![], 2));
        }
        assert!(row_norm_counts(&[1.0, 2.0, 3.0], 2, &[1.0]).is_err());
        assert!(row_norm_counts(&[1.0], 0, &[1.0]).is_err());
        assert!(row_norm_counts(&[1.0], 1, &[f64::NAN]).is_err());
        assert!(abs_counts(&[1.0], &[f64::INFINITY]).is_err());
    }

    #[test]
    fn exponents_are_the_smallest_powers_of_two_above_the_bounds() {
        assert_eq!(column_exponent(1.0), 0);
        assert_eq!(column_exponent(8.0), 3);
        assert_eq!(column_exponent(9.0), 4);
        assert_eq!(column_exponent(0.7), 0);
        assert_eq!(column_exponent(0.5), -1);
        assert_eq!(column_exponent(f64::from_bits(1)), -1074);
        assert_eq!(column_exponent(f64::from_bits(3)), -1072);
        assert_eq!(column_exponent(f64::MAX), 1024);
        assert_eq!(column_exponent(2f64.powi(-899)), -899);
        assert_eq!(MIN_DATA_NORM, 2f64.powi(-400));
        assert_eq!(MIN_BOUND, 2f64.powi(-900));
        assert_eq!(HUGE, 2f64.powi(1000));
        assert_eq!(column_exponent(2f64.powi(-899) * 1.5), -898);
        for v in [1e-310, 3.0, 1e300, 0.1] {
            assert_eq!(frexp_exponent(v), libm::frexp(v).1);
            assert_eq!(frexp_exponent(-v), libm::frexp(-v).1);
        }
        let s = spec(2, 3.0, 0.25, Some(-5.0));
        assert_eq!(s.exponents(), vec![2, 2, 3, -2]);
        assert_eq!(s.columns(), 4);
    }

    #[test]
    fn round_entry_is_the_exact_value_rounded_once() {
        let two64 = BigInt::from(1) << 64u32;
        let cases: [(BigInt, i32, f64); 8] = [
            (BigInt::from(3), -1, 1.5),
            (BigInt::from((1u64 << 53) + 1), 0, 9007199254740992.0), // tie to even (down)
            (BigInt::from((1u64 << 53) + 3), 0, 9007199254740996.0), // tie to even (up)
            (-BigInt::from(1), -1075, -0.0),                         // tie to zero, negative
            (BigInt::from(3), -1076, 5e-324),                        // 0.75 ulp: up
            (BigInt::from(1) << 150u32, -150, 1.0),
            (-(BigInt::from(5) << 100u32), -100, -5.0),
            (BigInt::from(0), -50, 0.0),
        ];
        for (v, e, want) in cases {
            let (hi, lo) = {
                let h: BigInt = &v >> 64u32; // floor
                let l = &v - (&h << 64u32);
                let (_, digits) = l.to_u64_digits();
                (
                    i128::try_from(&h).unwrap(),
                    digits.first().copied().unwrap_or(0),
                )
            };
            assert_eq!((BigInt::from(hi) * &two64) + BigInt::from(lo), v);
            let got = round_entry(hi, lo, e);
            assert_eq!(got.to_bits(), want.to_bits(), "{v} 2^{e}");
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        let s = spec(2, 1.0, 1.0, None);
        let e = s.exponents();
        assert!(exact_gram(&[1.0, 2.0, 3.0], &[1.0, 2.0], &s, &e).is_err());
        assert!(exact_gram(&[1.0, 2.0], &[1.0], &s, &[0, 1, 0]).is_err());
        assert!(exact_gram(&[1.0, 2.0], &[1.0], &s, &[0, 0]).is_err());
        for bad in [
            spec(0, 1.0, 1.0, None),
            spec(2, 0.0, 1.0, None),
            spec(2, 1.0, f64::INFINITY, None),
            spec(2, 1.0, 1.0, Some(0.0)),
            spec(2, f64::NAN, 1.0, None),
            spec(2, MIN_DATA_NORM / 2.0, 1.0, None),
            spec(2, 1.0, MIN_BOUND / 2.0, None),
            spec(2, 1.0, 1.0, Some(-MIN_BOUND / 2.0)),
        ] {
            let e = vec![0; bad.columns()];
            assert!(exact_gram(&[], &[], &bad, &e).is_err());
        }
        let empty = exact_gram(&[], &[], &s, &e).unwrap();
        assert!(empty.hi.iter().all(|&h| h == 0) && empty.lo.iter().all(|&l| l == 0));
    }
}
