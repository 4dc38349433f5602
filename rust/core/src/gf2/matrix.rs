//! The dense bit-packed GF(2) matrix type.

use std::fmt;

use crate::error::{Error, Result};
use crate::rng::Rng;

/// One 64-byte cache line of storage: eight words, aligned so that rows with a stride that is a
/// multiple of eight words start on a cache-line boundary.
#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
pub(crate) struct Line(pub(crate) [u64; 8]);

/// A dense matrix over GF(2), bit-packed by rows.
///
/// Column `j` of row `i` is bit `j % 64` of word `j / 64` of the row (LSB-first, the project's
/// convention); bits beyond `cols` in a row's last word are always zero. Rows are
/// [`words_per_row`](Matrix::words_per_row)` = ceil(cols / 64)` words long; internally they may
/// be padded to a longer stride (zero words) so that large rows start on cache-line boundaries.
///
/// Equality compares the shape and the entries only.
pub struct Matrix {
    rows: usize,
    cols: usize,
    wpr: usize,
    stride: usize,
    buf: Vec<Line>,
}

/// Words per row of a matrix with `cols` columns.
#[inline]
pub(crate) fn words_for(cols: usize) -> usize {
    cols.div_ceil(64)
}

/// Mask of the valid bits of a row's last word (all ones when `cols` is a multiple of 64).
#[inline]
pub(crate) fn last_word_mask(cols: usize) -> u64 {
    match cols % 64 {
        0 => !0,
        r => (1u64 << r) - 1,
    }
}

/// The stride (words between row starts) used for rows of `wpr` words: short rows are padded to
/// a power of two that divides a cache line, long rows to a whole number of cache lines plus one
/// when that number is a power of two (so that a column of words does not map to a handful of
/// cache sets).
fn stride_for(wpr: usize) -> usize {
    match wpr {
        0..=2 => wpr,
        3..=4 => 4,
        _ => {
            let lines = wpr.div_ceil(8);
            let lines = if lines >= 4 && lines.is_power_of_two() {
                lines + 1
            } else {
                lines
            };
            lines * 8
        }
    }
}

/// `n` zero lines (see [`lines_with`]).
pub(crate) fn zeroed_lines(n: usize) -> Vec<Line> {
    // SAFETY: `lines_with` hands over `n` writable lines; all of them are written.
    lines_with(n, |p| unsafe { p.write_bytes(0, n) })
}

/// A buffer of `n` lines filled by `fill`, which must initialise all `n` lines at the pointer.
///
/// The memory is allocated uninitialised and, on Linux, when large, the kernel is asked to back
/// it with transparent huge pages *before* `fill` first touches it: the elimination walks
/// columns of words through every row, one page per row with 4 KiB pages, and the TLB misses
/// cost about a fifth of the time at n = 16384.
fn lines_with(n: usize, fill: impl FnOnce(*mut Line)) -> Vec<Line> {
    if n == 0 {
        return Vec::new();
    }
    let layout = std::alloc::Layout::array::<Line>(n).expect("matrix too large");
    // SAFETY: the layout has a non-zero size. `fill` initialises all `n` lines, and
    // `Vec::from_raw_parts` then takes ownership of an allocation made by the global allocator
    // with exactly this layout (capacity `n`).
    unsafe {
        let ptr = std::alloc::alloc(layout).cast::<Line>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        advise_huge_pages(ptr as usize, layout.size());
        fill(ptr);
        Vec::from_raw_parts(ptr, n, n)
    }
}

#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages(start: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 4 * HUGE {
        return;
    }
    let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
    if hi > lo {
        // SAFETY: `lo..hi` lies inside the allocation; MADV_HUGEPAGE only changes how the kernel
        // backs the pages, never their contents. A failure (e.g. THP disabled) is harmless.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages(_start: usize, _bytes: usize) {}

impl Clone for Matrix {
    fn clone(&self) -> Self {
        let n = self.buf.len();
        let src = self.buf.as_ptr();
        // SAFETY: copies all `n` lines of `self.buf` into the new, non-overlapping buffer.
        let buf = lines_with(n, |p| unsafe { std::ptr::copy_nonoverlapping(src, p, n) });
        Matrix {
            rows: self.rows,
            cols: self.cols,
            wpr: self.wpr,
            stride: self.stride,
            buf,
        }
    }
}

impl Matrix {
    /// The `rows x cols` zero matrix.
    ///
    /// # Panics
    /// If `rows * cols` words overflow `usize` (no such matrix fits in memory).
    pub fn zeros(rows: usize, cols: usize) -> Self {
        let wpr = words_for(cols);
        let stride = stride_for(wpr);
        let words = rows
            .checked_mul(stride)
            .expect("matrix dimensions overflow usize");
        Matrix {
            rows,
            cols,
            wpr,
            stride,
            buf: zeroed_lines(words.div_ceil(8)),
        }
    }

    /// The `n x n` identity matrix.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m.set(i, i, true);
        }
        m
    }

    /// A matrix from `rows * cols` booleans in row-major order.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`values`) if `values.len() != rows * cols`.
    pub fn from_bools(rows: usize, cols: usize, values: &[bool]) -> Result<Self> {
        if rows.checked_mul(cols) != Some(values.len()) {
            return Err(Error::invalid(
                "values",
                format!(
                    "expected rows * cols = {rows} * {cols} booleans, got {}",
                    values.len()
                ),
            ));
        }
        let mut m = Self::zeros(rows, cols);
        if cols == 0 {
            return Ok(m);
        }
        for (i, chunk) in values.chunks_exact(cols).enumerate() {
            let row = m.row_mut(i);
            for (j, &b) in chunk.iter().enumerate() {
                row[j / 64] |= (b as u64) << (j % 64);
            }
        }
        Ok(m)
    }

    /// A matrix from packed rows: `words` holds `rows` rows of `ceil(cols / 64)` little-endian
    /// `u64` words each (row-major, LSB-first within a row).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`words`) if the length is not `rows * ceil(cols / 64)` or a
    /// row has a bit set beyond column `cols - 1`.
    pub fn from_rows_words(rows: usize, cols: usize, words: &[u64]) -> Result<Self> {
        let wpr = words_for(cols);
        if rows.checked_mul(wpr) != Some(words.len()) {
            return Err(Error::invalid(
                "words",
                format!(
                    "expected rows * ceil(cols / 64) = {rows} * {wpr} words, got {}",
                    words.len()
                ),
            ));
        }
        let mut m = Self::zeros(rows, cols);
        if wpr == 0 {
            return Ok(m);
        }
        let mask = last_word_mask(cols);
        for (i, src) in words.chunks_exact(wpr).enumerate() {
            if src[wpr - 1] & !mask != 0 {
                return Err(Error::invalid(
                    "words",
                    format!(
                        "row {i} has bits set beyond column {} (padding must be zero)",
                        cols - 1
                    ),
                ));
            }
            m.row_mut(i).copy_from_slice(src);
        }
        Ok(m)
    }

    /// A uniformly random `rows x cols` matrix drawn from `rng` (64 bits per draw).
    pub fn random(rows: usize, cols: usize, rng: &mut Rng) -> Self {
        let mut m = Self::zeros(rows, cols);
        let mask = last_word_mask(cols);
        for i in 0..rows {
            let row = m.row_mut(i);
            for w in row.iter_mut() {
                *w = rng.next_u64();
            }
            if let Some(last) = row.last_mut() {
                *last &= mask;
            }
        }
        m
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Words per row, `ceil(cols / 64)`.
    #[inline]
    pub fn words_per_row(&self) -> usize {
        self.wpr
    }

    /// Words between the starts of consecutive rows in the internal buffer (at least
    /// [`words_per_row`](Matrix::words_per_row)).
    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// The whole buffer as words.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        // SAFETY: `Line` is `repr(C)` around `[u64; 8]` with no padding, so `buf` is
        // `8 * buf.len()` initialised, properly aligned `u64`s.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<u64>(), self.buf.len() * 8) }
    }

    /// The whole buffer as mutable words.
    #[inline]
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`, and the borrow of `self` is exclusive.
        unsafe {
            std::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast::<u64>(), self.buf.len() * 8)
        }
    }

    /// Row `i`: exactly [`words_per_row`](Matrix::words_per_row) words.
    ///
    /// # Panics
    /// If `i >= rows`.
    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        assert!(
            i < self.rows,
            "row index {i} out of range for {} rows",
            self.rows
        );
        let s = i * self.stride;
        &self.words()[s..s + self.wpr]
    }

    /// Row `i`, mutable. Callers keep the padding bits zero.
    #[inline]
    pub(crate) fn row_mut(&mut self, i: usize) -> &mut [u64] {
        assert!(
            i < self.rows,
            "row index {i} out of range for {} rows",
            self.rows
        );
        let (s, w) = (i * self.stride, self.wpr);
        &mut self.words_mut()[s..s + w]
    }

    /// Entry `(i, j)`.
    ///
    /// # Panics
    /// If `i >= rows` or `j >= cols`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> bool {
        assert!(
            j < self.cols,
            "column index {j} out of range for {} columns",
            self.cols
        );
        (self.row(i)[j / 64] >> (j % 64)) & 1 == 1
    }

    /// Sets entry `(i, j)` to `value`.
    ///
    /// # Panics
    /// If `i >= rows` or `j >= cols`.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, value: bool) {
        assert!(
            j < self.cols,
            "column index {j} out of range for {} columns",
            self.cols
        );
        let w = &mut self.row_mut(i)[j / 64];
        let bit = 1u64 << (j % 64);
        if value {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    /// Swaps rows `a` and `b`.
    pub(crate) fn swap_rows(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        let (stride, wpr) = (self.stride, self.wpr);
        let (head, tail) = self.words_mut().split_at_mut(hi * stride);
        head[lo * stride..lo * stride + wpr].swap_with_slice(&mut tail[..wpr]);
    }

    /// The entries as row-major booleans.
    pub fn to_bools(&self) -> Vec<bool> {
        let mut out = Vec::with_capacity(self.rows * self.cols);
        for i in 0..self.rows {
            let row = self.row(i);
            out.extend((0..self.cols).map(|j| (row[j / 64] >> (j % 64)) & 1 == 1));
        }
        out
    }

    /// The packed rows, `rows * words_per_row` words (the layout [`Matrix::from_rows_words`]
    /// reads).
    pub fn to_rows_words(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.rows * self.wpr);
        for i in 0..self.rows {
            out.extend_from_slice(self.row(i));
        }
        out
    }

    /// The transpose, by 64 x 64 bit-block transposes.
    pub fn transpose(&self) -> Matrix {
        let mut t = Matrix::zeros(self.cols, self.rows);
        let mut block = [0u64; 64];
        for bi in (0..self.rows).step_by(64) {
            let h = (self.rows - bi).min(64);
            for bw in 0..self.wpr {
                block.fill(0);
                for (r, slot) in block.iter_mut().enumerate().take(h) {
                    *slot = self.row(bi + r)[bw];
                }
                transpose64(&mut block);
                // Row r of the transposed block is column bw*64 + r of `self`, restricted to
                // rows bi..bi+64: word bi/64 of row bw*64 + r of `t`.
                let w = (self.cols - bw * 64).min(64);
                for (r, &v) in block.iter().enumerate().take(w) {
                    t.row_mut(bw * 64 + r)[bi / 64] = v;
                }
            }
        }
        t
    }

    /// Submatrix of rows `r0..r1` and columns `c0..c1`.
    ///
    /// # Panics
    /// If the ranges are decreasing or exceed the shape.
    pub fn submatrix(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Matrix {
        assert!(
            r0 <= r1 && r1 <= self.rows,
            "row range {r0}..{r1} out of bounds"
        );
        assert!(
            c0 <= c1 && c1 <= self.cols,
            "column range {c0}..{c1} out of bounds"
        );
        let mut m = Matrix::zeros(r1 - r0, c1 - c0);
        let wpr = m.wpr;
        if wpr == 0 {
            return m;
        }
        let mask = last_word_mask(c1 - c0);
        let (q, s) = (c0 / 64, c0 % 64);
        for i in 0..m.rows {
            let src = self.row(r0 + i);
            let dst = m.row_mut(i);
            for (w, d) in dst.iter_mut().enumerate() {
                let lo = src[q + w] >> s;
                let hi = if s != 0 && q + w + 1 < src.len() {
                    src[q + w + 1] << (64 - s)
                } else {
                    0
                };
                *d = lo | hi;
            }
            dst[wpr - 1] &= mask;
        }
        m
    }

    /// Whether every entry is zero.
    pub fn is_zero(&self) -> bool {
        (0..self.rows).all(|i| self.row(i).iter().all(|&w| w == 0))
    }
}

/// Transposes a 64 x 64 bit block in place: bit `c` of word `r` becomes bit `r` of word `c`
/// (recursive swaps of off-diagonal sub-blocks of size 32, 16, ..., 1).
pub(crate) fn transpose64(a: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            for r in k..k + width {
                // Swap the high `width` bits of word r's low blocks with the low bits of word
                // r + width's.
                let t = ((a[r] >> width) ^ a[r + width]) & mask;
                a[r] ^= t << width;
                a[r + width] ^= t;
            }
            k += 2 * width;
        }
        width /= 2;
        mask ^= mask << width;
    }
}

impl PartialEq for Matrix {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
            && self.cols == other.cols
            && (0..self.rows).all(|i| self.row(i) == other.row(i))
    }
}

impl Eq for Matrix {}

impl fmt::Debug for Matrix {
    /// Shape, then up to 64 rows of up to 128 columns as `0`/`1` strings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Matrix({} x {}) [", self.rows, self.cols)?;
        for i in 0..self.rows.min(64) {
            let s: String = (0..self.cols.min(128))
                .map(|j| if self.get(i, j) { '1' } else { '0' })
                .collect();
            let more = if self.cols > 128 { "..." } else { "" };
            writeln!(f, "  {s}{more}")?;
        }
        if self.rows > 64 {
            writeln!(f, "  ...")?;
        }
        write!(f, "]")
    }
}
