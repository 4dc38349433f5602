//! Gaussian elimination: reduced row echelon form.
//!
//! Small matrices use textbook Gauss–Jordan elimination on packed words ([`rref_naive`]).
//! Larger ones use a blocked Method of the Four Russians:
//!
//! 1. **Forward pass**, one strip of [`STRIP`] = 256 columns at a time.
//!    * *Pivots.* The rows that hold no pivot yet are read in order and a basis of the strip's
//!      row space is grown from them ([`super::basis`]: Bard's M4RI tables of eight pivot rows,
//!      G. V. Bard, "Accelerating cryptanalysis with the Method of Four Russians", 2006;
//!      Albrecht, Bard and Pernet, "Efficient dense Gaussian elimination over the field with
//!      two elements", arXiv:1111.6549, Section 2). It yields the pivot columns, the pivot rows
//!      `T`, and the matrix `M = T_P^{-1}` (`T_P`: `T` restricted to the pivot columns).
//!    * *Pivot rows.* `E = M T`, computed by one Four-Russians product; `E` is the identity on
//!      the pivot columns. Its rows replace the pivot rows at the top of the remaining rows.
//!    * *Update.* Every row below receives `row ^= row[pivots] * E`, a product with inner
//!      dimension at most 256 computed by the M4RM kernel of [`super::kernel`] with one table
//!      per byte of the strip (indexed by the row's own bytes, so no gathering is needed). Each
//!      row below is read and written once per strip instead of once per pivot, with the tables
//!      in cache: the blocking that Albrecht–Bard–Pernet obtain from PLE decomposition
//!      (Section 3), with the update done by M4RM multiplication (Albrecht, Bard and Hart,
//!      arXiv:0811.1714).
//! 2. **Back substitution** on the free (non-pivot) columns only. After the forward pass the
//!    pivot rows form an echelon form `U` that is the identity on each strip's own pivot
//!    columns. The reduced form keeps the pivot columns as unit vectors and replaces the free
//!    part by `U_P^{-1} U_F`: the free columns are compacted, the strips are processed from the
//!    last to the first (each strip's rows are added to the rows above with the same kernel),
//!    and the result is scattered back. For a square matrix of nearly full rank the free part
//!    is a few columns and this step costs little; in general it is a triangular solve with
//!    `cols - rank` right-hand sides.
//!
//! The forward pass costs about `n^3 / 3` bit operations for an `n x n` matrix, done as
//! `n^3 / (3 * 8 * 512)` table lookups of 512 bits; the result is the unique reduced row
//! echelon form, whatever rows were chosen as pivots.

use super::basis::strip_pivots;
use super::kernel::{AddMul, Dest, NONE, Scratch, addmul};
use super::matrix::{Matrix, last_word_mask};

/// Columns per strip of the forward pass (a multiple of 64; at most 256 so that a strip row is
/// four words, one byte per table of the update).
const STRIP: usize = 256;
/// Words per strip.
const STRIP_WORDS: usize = STRIP / 64;

/// Matrices with fewer rows than this use textbook elimination (with more rows, the blocked
/// elimination wins whatever the number of columns: each row is then touched once per strip
/// rather than once per pivot).
const BLOCKED_MIN: usize = 128;

/// One strip of the forward pass: its pivot rows are `row0..row0 + pivots.len()` and its pivot
/// columns `pivots` (absolute, increasing), all in `col0..col0 + STRIP`.
struct Strip {
    row0: usize,
    col0: usize,
    pivots: Vec<usize>,
}

/// Reduces `a` in place to reduced row echelon form, choosing pivots only among the first
/// `limit` columns (row operations act on whole rows, so columns `limit..` are carried along as
/// right-hand sides). Returns the pivot columns in increasing order.
pub(crate) fn rref_limited(a: &mut Matrix, limit: usize) -> Vec<usize> {
    let limit = limit.min(a.cols());
    if a.rows() < BLOCKED_MIN {
        return rref_naive(a, limit);
    }
    let mut scratch = Scratch::default();
    let strips = forward(a, limit, &mut scratch);
    let pivots: Vec<usize> = strips
        .iter()
        .flat_map(|s| s.pivots.iter().copied())
        .collect();
    back_substitute(a, &pivots, &strips, &mut scratch);
    pivots
}

/// The rank of `a` (destroyed: it is left in a row echelon form).
pub(crate) fn rank_destructive(a: &mut Matrix) -> usize {
    let limit = a.cols();
    if a.rows() < BLOCKED_MIN {
        return rref_naive(a, limit).len();
    }
    let mut scratch = Scratch::default();
    forward(a, limit, &mut scratch)
        .iter()
        .map(|s| s.pivots.len())
        .sum()
}

/// Textbook Gauss–Jordan elimination on packed rows: for each column, find a pivot row, swap it
/// up, and XOR it (from the pivot's word on) into every other row with a one in that column.
pub(crate) fn rref_naive(a: &mut Matrix, limit: usize) -> Vec<usize> {
    let limit = limit.min(a.cols());
    let rows = a.rows();
    let (stride, wpr) = (a.stride(), a.words_per_row());
    let mut pivots = Vec::new();
    let mut r = 0;
    for c in 0..limit {
        if r == rows {
            break;
        }
        let (w, bit) = (c / 64, 1u64 << (c % 64));
        let words = a.words_mut();
        let Some(p) = (r..rows).find(|&i| words[i * stride + w] & bit != 0) else {
            continue;
        };
        a.swap_rows(r, p);
        let words = a.words_mut();
        let (head, rest) = words.split_at_mut(r * stride);
        let (pivot, tail) = rest.split_at_mut(stride);
        let pivot = &pivot[w..wpr];
        for row in head
            .chunks_exact_mut(stride)
            .chain(tail.chunks_exact_mut(stride))
        {
            let row = &mut row[w..wpr];
            if row[0] & bit != 0 {
                for (x, y) in row.iter_mut().zip(pivot) {
                    *x ^= y;
                }
            }
        }
        pivots.push(c);
        r += 1;
    }
    pivots
}

/// The forward pass (see the module documentation). Returns the strips with at least one pivot.
fn forward(a: &mut Matrix, limit: usize, scratch: &mut Scratch) -> Vec<Strip> {
    let n = a.rows();
    let stride = a.stride();
    let wpr = a.words_per_row();
    let mut strips = Vec::new();
    let mut row0 = 0;
    let mut col0 = 0;
    while col0 < limit && row0 < n {
        let width = STRIP.min(limit - col0);
        let cw = col0 / 64;
        let nw = width.div_ceil(64);
        let last_mask = last_word_mask(width);
        let found = {
            let words = a.words();
            strip_pivots(n - row0, width, |i| {
                let base = (row0 + i) * stride + cw;
                let mut s = [0u64; 4];
                s[..nw].copy_from_slice(&words[base..base + nw]);
                s[nw - 1] &= last_mask;
                s
            })
        };
        let r = found.cols.len();
        if r == 0 {
            col0 += STRIP;
            continue;
        }
        // Every candidate row is zero left of col0, so the updates may start at a
        // segment-aligned word w0 <= cw: the extra words only XOR zeros.
        let w0 = cw - cw % 8;
        let pivot_rows: Vec<usize> = found.rows.iter().map(|&i| row0 + i).collect();
        let e = reduced_pivot_rows(a, &pivot_rows, &found.tags, w0, scratch);
        place_pivot_rows(a, row0, &pivot_rows, &e, w0);
        // Rows below: row ^= row[pivots] * E, indexed by the raw bytes of the strip.
        let below = n - row0 - r;
        if below > 0 {
            let mut idx = vec![0u64; below * STRIP_WORDS];
            let words = a.words();
            for i in 0..below {
                let src = &words[(row0 + r + i) * stride + cw..][..nw];
                idx[i * STRIP_WORDS..i * STRIP_WORDS + nw].copy_from_slice(src);
            }
            let src_rows = strip_sources(&found.cols, row0 as u32);
            let (head, tail) = a.words_mut().split_at_mut((row0 + r) * stride);
            let op = AddMul {
                idx: &idx,
                idx_stride: STRIP_WORDS,
                chunks: width.div_ceil(8),
                src: head,
                src_stride: stride,
                src_rows: &src_rows,
                src_w0: w0,
            };
            let dst = Dest {
                words: tail,
                stride,
                nrows: below,
                w0,
                w1: wpr,
            };
            addmul(dst, &op, scratch);
        }
        strips.push(Strip {
            row0,
            col0,
            pivots: found.cols.iter().map(|&p| col0 + p).collect(),
        });
        row0 += r;
        col0 += STRIP;
    }
    strips
}

/// The source row of each strip column for the tables: `base + k` for the column of the `k`-th
/// pivot, [`NONE`] for the others.
fn strip_sources(rel: &[usize], base: u32) -> Vec<u32> {
    let mut src = vec![NONE; STRIP];
    for (k, &p) in rel.iter().enumerate() {
        src[p] = base + k as u32;
    }
    src
}

/// Reduced pivot rows `E = M T` over words `w0..`, where `T` are the rows `pivot_rows` and `M`
/// the tags (row `k` of `M` is `tags[k]`), in a scratch matrix of `tags.len()` rows whose word
/// `0` is word `w0` of `a`.
fn reduced_pivot_rows(
    a: &Matrix,
    pivot_rows: &[usize],
    tags: &[[u64; 4]],
    w0: usize,
    scratch: &mut Scratch,
) -> Matrix {
    let r = tags.len();
    let mut e = Matrix::zeros(r, (a.words_per_row() - w0) * 64);
    let src_rows: Vec<u32> = (0..r.next_multiple_of(8))
        .map(|j| pivot_rows.get(j).map_or(NONE, |&row| row as u32))
        .collect();
    let idx: Vec<u64> = tags.iter().flatten().copied().collect();
    let op = AddMul {
        idx: &idx,
        idx_stride: 4,
        chunks: r.div_ceil(8),
        src: a.words(),
        src_stride: a.stride(),
        src_rows: &src_rows,
        src_w0: w0,
    };
    let (es, ew) = (e.stride(), e.words_per_row());
    let dst = Dest {
        words: e.words_mut(),
        stride: es,
        nrows: r,
        w0: 0,
        w1: ew,
    };
    addmul(dst, &op, scratch);
    e
}

/// Puts the reduced pivot rows `e` at rows `row0..row0 + r` (words `w0..`), moving the other
/// rows found there to the places the pivot rows held.
fn place_pivot_rows(a: &mut Matrix, row0: usize, pivot_rows: &[usize], e: &Matrix, w0: usize) {
    let r = pivot_rows.len();
    let wpr = a.words_per_row();
    let mut holes: Vec<usize> = pivot_rows
        .iter()
        .copied()
        .filter(|&p| p >= row0 + r)
        .collect();
    holes.sort_unstable();
    let mut is_pivot = vec![false; r];
    for &p in pivot_rows {
        if p < row0 + r {
            is_pivot[p - row0] = true;
        }
    }
    let movers = (row0..row0 + r).filter(|&i| !is_pivot[i - row0]);
    let stride = a.stride();
    let words = a.words_mut();
    for (m, h) in movers.zip(holes) {
        // Both rows are zero left of w0 (candidates of this strip).
        words.copy_within(m * stride + w0..m * stride + wpr, h * stride + w0);
    }
    for k in 0..r {
        words[(row0 + k) * stride + w0..(row0 + k) * stride + wpr]
            .copy_from_slice(&e.row(k)[..wpr - w0]);
    }
}

/// Turns the forward pass's echelon form into the reduced form (see the module documentation).
fn back_substitute(a: &mut Matrix, pivots: &[usize], strips: &[Strip], scratch: &mut Scratch) {
    let rank = pivots.len();
    let m = a.cols();
    let stride = a.stride();
    let wpr = a.words_per_row();
    // Free-column masks per word.
    let mut free = vec![!0u64; wpr];
    if let Some(last) = free.last_mut() {
        *last = last_word_mask(m);
    }
    for &p in pivots {
        free[p / 64] &= !(1u64 << (p % 64));
    }
    let nfree = m - rank;
    // Compact the free columns of the pivot rows.
    let mut z = Matrix::zeros(rank, nfree);
    if nfree > 0 {
        let zs = z.stride();
        let zwpr = z.words_per_row();
        let words = a.words();
        let zw = z.words_mut();
        for i in 0..rank {
            let row = &words[i * stride..i * stride + wpr];
            let out = &mut zw[i * zs..i * zs + zs];
            pack_bits(row, &free, out);
        }
        for st in strips.iter().rev() {
            let (row0, r) = (st.row0, st.pivots.len());
            if row0 == 0 {
                continue;
            }
            // Index: the strip's words of the rows above.
            let cw = st.col0 / 64;
            let nw = (STRIP / 64).min(wpr - cw);
            let mut idx = vec![0u64; row0 * STRIP_WORDS];
            for i in 0..row0 {
                idx[i * STRIP_WORDS..i * STRIP_WORDS + nw]
                    .copy_from_slice(&words[i * stride + cw..i * stride + cw + nw]);
            }
            let rel: Vec<usize> = st.pivots.iter().map(|&p| p - st.col0).collect();
            let src_rows = strip_sources(&rel, 0);
            // Free columns left of the strip are zero in the strip's rows.
            let first_free = st.col0 - row0;
            let zw0 = first_free / 64;
            let zw0 = zw0 - zw0 % 8;
            let (head, tail) = zw.split_at_mut(row0 * zs);
            let op = AddMul {
                idx: &idx,
                idx_stride: STRIP_WORDS,
                chunks: STRIP / 8,
                src: &tail[..r * zs],
                src_stride: zs,
                src_rows: &src_rows,
                src_w0: zw0,
            };
            let dst = Dest {
                words: head,
                stride: zs,
                nrows: row0,
                w0: zw0,
                w1: zwpr,
            };
            if zw0 < zwpr {
                addmul(dst, &op, scratch);
            }
        }
    }
    // Write back: unit vectors on the pivot columns, the reduced free part elsewhere.
    let zs = z.stride();
    let zw = z.words();
    let words = a.words_mut();
    for (i, &p) in pivots.iter().enumerate() {
        let row = &mut words[i * stride..i * stride + wpr];
        if nfree > 0 {
            unpack_bits(&zw[i * zs..i * zs + zs], &free, row);
        } else {
            row.fill(0);
        }
        row[p / 64] |= 1u64 << (p % 64);
    }
}

/// Packs the bits of `row` selected by `mask` (word by word) contiguously into `out`.
pub(crate) fn pack_bits(row: &[u64], mask: &[u64], out: &mut [u64]) {
    out.fill(0);
    let mut bit = 0usize;
    for (&x, &m) in row.iter().zip(mask) {
        if m == 0 {
            continue;
        }
        let v = pext(x, m);
        let n = m.count_ones() as usize;
        let (w, s) = (bit / 64, bit % 64);
        out[w] |= v << s;
        if s != 0 && s + n > 64 {
            out[w + 1] |= v >> (64 - s);
        }
        bit += n;
    }
}

/// Scatters the packed bits of `src` into the positions of `row` selected by `mask` (the
/// inverse of [`pack_bits`]); the other bits of `row` are cleared.
fn unpack_bits(src: &[u64], mask: &[u64], row: &mut [u64]) {
    let mut bit = 0usize;
    for (x, &m) in row.iter_mut().zip(mask) {
        if m == 0 {
            *x = 0;
            continue;
        }
        let n = m.count_ones() as usize;
        let (w, s) = (bit / 64, bit % 64);
        let mut v = src[w] >> s;
        if s != 0 && s + n > 64 {
            v |= src[w + 1] << (64 - s);
        }
        *x = pdep(v, m);
        bit += n;
    }
}

/// Parallel bit extract: the bits of `x` at the set positions of `m`, packed low.
fn pext(x: u64, m: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("bmi2") {
            // SAFETY: BMI2 was detected at run time.
            return unsafe { bmi2::pext(x, m) };
        }
    }
    pext_soft(x, m)
}

/// [`pext`] without BMI2.
fn pext_soft(x: u64, m: u64) -> u64 {
    let (mut out, mut mm, mut k) = (0u64, m, 0);
    while mm != 0 {
        let b = mm.trailing_zeros();
        out |= ((x >> b) & 1) << k;
        k += 1;
        mm &= mm - 1;
    }
    out
}

/// Parallel bit deposit: the low bits of `v` placed at the set positions of `m`.
fn pdep(v: u64, m: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("bmi2") {
            // SAFETY: BMI2 was detected at run time.
            return unsafe { bmi2::pdep(v, m) };
        }
    }
    pdep_soft(v, m)
}

/// [`pdep`] without BMI2.
fn pdep_soft(v: u64, m: u64) -> u64 {
    let (mut out, mut mm, mut k) = (0u64, m, 0);
    while mm != 0 {
        let b = mm.trailing_zeros();
        out |= ((v >> k) & 1) << b;
        k += 1;
        mm &= mm - 1;
    }
    out
}

#[cfg(target_arch = "x86_64")]
mod bmi2 {
    #[target_feature(enable = "bmi2")]
    pub(super) fn pext(x: u64, m: u64) -> u64 {
        core::arch::x86_64::_pext_u64(x, m)
    }
    #[target_feature(enable = "bmi2")]
    pub(super) fn pdep(v: u64, m: u64) -> u64 {
        core::arch::x86_64::_pdep_u64(v, m)
    }
}

impl Matrix {
    /// Reduces the matrix in place to its reduced row echelon form and returns the pivot
    /// columns in increasing order; their number is the rank.
    ///
    /// The form is unique: row `r < rank` has its leading one in column `pivots[r]`, every
    /// other row has a zero there, and rows `rank..` are zero.
    pub fn rref(&mut self) -> Vec<usize> {
        rref_limited(self, self.cols())
    }

    /// The rank (dimension of the row space).
    pub fn rank(&self) -> usize {
        rank_destructive(&mut self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn bit_gather_and_scatter() {
        let mut rng = Rng::from_seed(5);
        for _ in 0..2000 {
            let (x, m) = (rng.next_u64(), rng.next_u64() & rng.next_u64());
            let packed = pext_soft(x, m);
            assert_eq!(packed, pext(x, m));
            if m.count_ones() < 64 {
                assert_eq!(packed >> m.count_ones(), 0);
            }
            assert_eq!(pdep_soft(packed, m), x & m);
            assert_eq!(pdep(packed, m), x & m);
        }
        assert_eq!(pext_soft(!0, !0), !0);
        assert_eq!(pdep_soft(!0, 0), 0);
        // pack_bits / unpack_bits over several words.
        let row: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        let mask: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        let n: usize = mask.iter().map(|m| m.count_ones() as usize).sum();
        let mut packed = vec![0u64; n.div_ceil(64)];
        pack_bits(&row, &mask, &mut packed);
        let mut back = vec![!0u64; 5];
        unpack_bits(&packed, &mask, &mut back);
        let want: Vec<u64> = row.iter().zip(&mask).map(|(r, m)| r & m).collect();
        assert_eq!(back, want);
    }
}
