//! Gaussian elimination: reduced row echelon form.
//!
//! Small matrices use textbook Gauss–Jordan elimination on packed words ([`rref_naive`]).
//! Larger ones use a blocked Method of the Four Russians:
//!
//! 1. **Forward pass**, one strip of [`STRIP`] columns at a time. The strip of the rows that do
//!    not hold a pivot yet is copied out and its pivots are found there with Bard's M4RI
//!    (Gray-code-style tables of 8 pivot rows at a time: G. V. Bard, "Accelerating cryptanalysis
//!    with the Method of Four Russians", 2006; Albrecht–Bard–Pernet, "Efficient dense Gaussian
//!    elimination over the field with two elements", arXiv:1111.6549, Section 2). The chosen
//!    rows `T` (their original contents) are moved up, reduced to `E = T_P^{-1} T` where `T_P`
//!    is `T` restricted to the pivot columns, so that `E` is the identity on the pivot columns,
//!    and every row below receives `row ^= row[pivots] * E`: a product with inner dimension at
//!    most [`STRIP`], computed by the M4RM kernel of [`super::kernel`] with one table per byte
//!    of the strip. Each row below is therefore read and written once per strip instead of once
//!    per pivot, and the tables stay in cache (the blocking of Albrecht–Bard–Pernet's PLE
//!    decomposition, Section 3, with the update done by M4RM as in their Section 4).
//! 2. **Back substitution** on the free (non-pivot) columns only. After the forward pass the
//!    pivot rows form an echelon form `U` whose pivot columns are the identity within each
//!    strip. The reduced form keeps the pivot columns as unit vectors and replaces the free part
//!    by `U_P^{-1} U_F`: the free columns are compacted, the strips are processed from the last
//!    to the first (each strip's rows are added to the rows above with the same kernel), and the
//!    result is scattered back. For a square matrix of nearly full rank the free part is a few
//!    columns, so this step costs little; in general it is a triangular solve with `n - rank`
//!    right-hand sides.
//!
//! The result is the unique reduced row echelon form, whatever rows were chosen as pivots.

use super::kernel::{AddMul, Dest, NONE, Scratch, addmul};
use super::matrix::{Line, Matrix, last_word_mask};

/// Columns per strip of the forward pass (a multiple of 64; at most 256 so that a strip row is
/// four words and the pivot indices of a row fit in 32 bytes).
const STRIP: usize = 256;
/// Words per strip.
const STRIP_WORDS: usize = STRIP / 64;

/// Matrices with fewer rows or columns than this use textbook elimination.
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
    if a.rows() < BLOCKED_MIN || limit < BLOCKED_MIN {
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
    if a.rows() < BLOCKED_MIN || limit < BLOCKED_MIN {
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
    let mut strip = Vec::new();
    let mut order = Vec::new();
    while col0 < limit && row0 < n {
        let width = STRIP.min(limit - col0);
        let cw = col0 / 64;
        let nw = width.div_ceil(64);
        let cand = n - row0;
        // Copy the strip of the candidate rows.
        strip.clear();
        strip.resize(cand * STRIP_WORDS, 0u64);
        {
            let words = a.words();
            for i in 0..cand {
                let src = &words[(row0 + i) * stride + cw..][..nw];
                strip[i * STRIP_WORDS..i * STRIP_WORDS + nw].copy_from_slice(src);
            }
        }
        order.clear();
        order.extend(0..cand as u32);
        let rel = strip_pivots(&mut strip, cand, width, &mut order);
        let r = rel.len();
        if r > 0 {
            move_rows_up(a, row0, &order[..r], cand);
            // The forward update starts at a segment-aligned word: every candidate row is zero
            // left of col0, so the extra words only XOR zeros.
            let w0 = cw - cw % 8;
            reduce_pivot_rows(a, row0, col0, &rel, w0, scratch);
            // Rows below: row ^= row[pivots] * E, indexed by the raw bytes of the strip.
            let below = n - row0 - r;
            if below > 0 {
                let mut idx = vec![0u64; below * STRIP_WORDS];
                let words = a.words();
                for i in 0..below {
                    let src = &words[(row0 + r + i) * stride + cw..][..nw];
                    idx[i * STRIP_WORDS..i * STRIP_WORDS + nw].copy_from_slice(src);
                }
                let src_rows = strip_sources(&rel, row0 as u32);
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
                pivots: rel.iter().map(|&p| col0 + p).collect(),
            });
            row0 += r;
        }
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

/// Moves the candidate rows `row0 + order[k]` (original offsets) to `row0 + k`.
fn move_rows_up(a: &mut Matrix, row0: usize, order: &[u32], cand: usize) {
    // pos[o]: current offset of the row originally at offset o; at[p]: the original offset of
    // the row now at offset p.
    let mut pos: Vec<u32> = (0..cand as u32).collect();
    let mut at: Vec<u32> = (0..cand as u32).collect();
    for (k, &o) in order.iter().enumerate() {
        let p = pos[o as usize] as usize;
        if p != k {
            a.swap_rows(row0 + k, row0 + p);
            let displaced = at[k];
            at[k] = o;
            at[p] = displaced;
            pos[o as usize] = k as u32;
            pos[displaced as usize] = p as u32;
        }
    }
}

/// Replaces the pivot rows `T = a[row0..row0 + r]` by `E = T_P^{-1} T` (words `w0..`), where
/// `T_P` is `T` restricted to the pivot columns `col0 + rel[l]`.
fn reduce_pivot_rows(
    a: &mut Matrix,
    row0: usize,
    col0: usize,
    rel: &[usize],
    w0: usize,
    scratch: &mut Scratch,
) {
    let r = rel.len();
    let stride = a.stride();
    let wpr = a.words_per_row();
    // [T_P | I], reduced: its right half is T_P^{-1}.
    let mut tp = Matrix::zeros(r, 2 * r);
    for k in 0..r {
        for (l, &p) in rel.iter().enumerate() {
            if a.get(row0 + k, col0 + p) {
                tp.set(k, l, true);
            }
        }
        tp.set(k, r + k, true);
    }
    let piv = rref_naive(&mut tp, r);
    debug_assert_eq!(
        piv.len(),
        r,
        "the pivot rows are independent on the pivot columns"
    );
    let inv = tp.submatrix(0, r, r, 2 * r);
    // E = T_P^{-1} T over words w0..wpr, into an aligned scratch buffer.
    let width = wpr - w0;
    // The scratch stride matches the kernel's segment width: whole cache lines for wide rows;
    // for rows of at most four words (w0 = 0), the matrix's own stride.
    let es = if stride.is_multiple_of(8) {
        width.next_multiple_of(8)
    } else {
        stride
    };
    let mut e = vec![Line::default(); (r * es).div_ceil(8)];
    // SAFETY: `Line` is `repr(C)` around `[u64; 8]`.
    let ew = unsafe { std::slice::from_raw_parts_mut(e.as_mut_ptr().cast::<u64>(), e.len() * 8) };
    let src_rows: Vec<u32> = (0..r.next_multiple_of(8))
        .map(|l| if l < r { (row0 + l) as u32 } else { NONE })
        .collect();
    let inv_words = inv.to_rows_words();
    let op = AddMul {
        idx: &inv_words,
        idx_stride: inv.words_per_row(),
        chunks: r.div_ceil(8),
        src: a.words(),
        src_stride: stride,
        src_rows: &src_rows,
        src_w0: w0,
    };
    let dst = Dest {
        words: ew,
        stride: es,
        nrows: r,
        w0: 0,
        w1: width,
    };
    addmul(dst, &op, scratch);
    let words = a.words_mut();
    for k in 0..r {
        words[(row0 + k) * stride + w0..(row0 + k) * stride + wpr]
            .copy_from_slice(&ew[k * es..k * es + width]);
    }
}

/// Finds the pivots of a strip (`nrows` rows of [`STRIP_WORDS`] words, `ncols` columns) by
/// M4RI: for each group of eight columns, up to eight pivot rows are found by elimination
/// among the rows examined so far (each examined row is first reduced by the pivots already
/// found in the group), then a table of their 256 combinations clears those columns in every
/// remaining row. The strip rows are reordered (and `order` with them) so that the `k`-th pivot
/// row comes `k`-th. Returns the pivot columns (relative to the strip).
fn strip_pivots(strip: &mut [u64], nrows: usize, ncols: usize, order: &mut [u32]) -> Vec<usize> {
    const SW: usize = STRIP_WORDS;
    let mut pivots = Vec::new();
    let mut pos = 0;
    let mut table = [[0u64; SW]; 256];
    let mut s = 0;
    while s < ncols && pos < nrows {
        let e = (s + 8).min(ncols);
        let w = s / 64;
        let mut found: Vec<usize> = Vec::with_capacity(8);
        for col in s..e {
            let (cw, cb) = (col / 64, 1u64 << (col % 64));
            let mut hit = None;
            for i in pos + found.len()..nrows {
                for (k, &q) in found.iter().enumerate() {
                    if strip[i * SW + q / 64] >> (q % 64) & 1 == 1 {
                        let p = (pos + k) * SW;
                        for x in w..SW {
                            strip[i * SW + x] ^= strip[p + x];
                        }
                    }
                }
                if strip[i * SW + cw] & cb != 0 {
                    hit = Some(i);
                    break;
                }
            }
            let Some(i) = hit else { continue };
            let slot = pos + found.len();
            if i != slot {
                for x in 0..SW {
                    strip.swap(i * SW + x, slot * SW + x);
                }
                order.swap(i, slot);
            }
            // Keep the group's pivot rows reduced against each other.
            for k in 0..found.len() {
                let p = (pos + k) * SW;
                if strip[p + cw] & cb != 0 {
                    for x in w..SW {
                        strip[p + x] ^= strip[slot * SW + x];
                    }
                }
            }
            found.push(col);
        }
        if !found.is_empty() {
            // table[v] = combination of the group's pivot rows selected by the bits of v at
            // their columns (other bits of v are ignored).
            let sh = s % 64;
            let mut bit_row = [usize::MAX; 8];
            for (k, &q) in found.iter().enumerate() {
                bit_row[q - s] = pos + k;
            }
            table[0] = [0; SW];
            for v in 1..256usize {
                let low = v.trailing_zeros() as usize;
                let mut entry = table[v & (v - 1)];
                if bit_row[low] != usize::MAX {
                    let p = bit_row[low] * SW;
                    for x in w..SW {
                        entry[x] ^= strip[p + x];
                    }
                }
                table[v] = entry;
            }
            let mask: u64 = found.iter().map(|&q| 1u64 << (q - s)).sum();
            for i in pos + found.len()..nrows {
                let v = (strip[i * SW + w] >> sh) & 0xff;
                if v & mask != 0 {
                    let t = &table[v as usize];
                    for x in w..SW {
                        strip[i * SW + x] ^= t[x];
                    }
                }
            }
            pos += found.len();
            pivots.extend_from_slice(&found);
        }
        s += 8;
    }
    pivots
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
fn pack_bits(row: &[u64], mask: &[u64], out: &mut [u64]) {
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
