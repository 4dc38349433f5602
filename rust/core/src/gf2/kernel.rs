//! The Four-Russians product kernel shared by multiplication and elimination.
//!
//! [`addmul`] computes `D[i] ^= sum_t T_t[byte_t(I[i])]` for every destination row `i`, where
//! `byte_t(I[i])` is byte `t` of the `i`-th index row and `T_t` is the table of all 256
//! combinations of (at most) eight source rows assigned to the bits of byte `t`. With the index
//! rows holding the rows of `A` and the sources the rows of `B`, it is `D ^= A * B` by the Method
//! of the Four Russians for multiplication (M4RM; Albrecht, Bard and Hart, "Efficient
//! multiplication of dense matrices over GF(2)", ACM TOMS 37(1), 2010, arXiv:0811.1714,
//! Algorithm 1 with `k = 8`, several tables per pass as in their Section 3). Elimination uses the
//! same kernel with the index bytes read from the pivot columns themselves (Bard's M4RI), so a
//! source may be missing for a bit (a non-pivot column), and then contributes nothing.
//!
//! Cache blocking: the destination columns are processed in segments of `S` words (one or two
//! 512-bit vectors); for each segment the tables of all chunks are built once (`chunks * 256 * S`
//! words, sized to stay in the L2 cache), then every destination row is loaded once, receives
//! one table entry per chunk in registers, and is stored once.
//!
//! The inner loops are plain Rust on fixed-size arrays; the function is compiled three times
//! (AVX-512, AVX2, baseline) and the widest instruction set the CPU supports is chosen at run
//! time, so results never depend on the CPU.

use rayon::prelude::*;

use super::matrix::Line;

/// Marks a bit of a chunk that has no source row.
pub(crate) const NONE: u32 = u32::MAX;

/// Words per segment for wide destinations (two 512-bit vectors; the tables of 32 chunks then
/// take 1 MiB, which fits the L2 cache of current x86 cores).
const WIDE: usize = 16;

/// Products are split over threads only with at least this many rows per part...
const PAR_MIN_ROWS: usize = 512;
/// ... and this much work (destination words times chunks, about one XOR of a word each).
const PAR_MIN_WORK: usize = 1 << 24;

/// How many rows ahead the row loops prefetch the destination segment (rows are a stride apart,
/// usually on different pages, so the hardware prefetcher does not follow them).
const PREFETCH_ROWS: usize = 6;

/// Description of one product `D ^= I * S` (see the module documentation).
#[derive(Clone, Copy)]
pub(crate) struct AddMul<'a> {
    /// Index rows, `idx_stride` words apart; byte `t` of row `i` selects the entry of table `t`.
    pub idx: &'a [u64],
    pub idx_stride: usize,
    /// Number of chunks (tables); chunk `t` reads byte `t` of the index rows.
    pub chunks: usize,
    /// Source rows, `src_stride` words apart.
    pub src: &'a [u64],
    pub src_stride: usize,
    /// `src_rows[8 t + b]`: the source row of bit `b` of chunk `t`, or [`NONE`].
    pub src_rows: &'a [u32],
    /// The source word that lines up with destination word `w0` (columns are shifted by
    /// `src_w0 - w0` words between destination and sources).
    pub src_w0: usize,
}

/// Destination rows: `nrows` rows `stride` words apart; words `w0..w1` of each row are updated.
pub(crate) struct Dest<'a> {
    pub words: &'a mut [u64],
    pub stride: usize,
    pub nrows: usize,
    pub w0: usize,
    pub w1: usize,
}

/// Reusable scratch space for the tables (64-byte aligned).
#[derive(Default)]
pub(crate) struct Scratch {
    lines: Vec<Line>,
}

impl Scratch {
    fn words(&mut self, n: usize) -> &mut [u64] {
        let lines = n.div_ceil(8);
        if self.lines.len() < lines {
            self.lines.resize(lines, Line::default());
        }
        // SAFETY: `Line` is `repr(C)` around `[u64; 8]`, so the first `lines` lines are
        // `8 * lines >= n` initialised, aligned words, borrowed exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u64>(), n) }
    }
}

/// The segment width (in words) used for a destination: two 512-bit vectors for wide rows when
/// the strides allow it, else the largest power of two up to 8 that divides both strides.
fn segment_words(dst_stride: usize, src_stride: usize, w0: usize, src_w0: usize) -> usize {
    for s in [8usize, 4, 2, 1] {
        if dst_stride.is_multiple_of(s)
            && src_stride.is_multiple_of(s)
            && w0.is_multiple_of(s)
            && src_w0.is_multiple_of(s)
        {
            return s;
        }
    }
    1
}

/// `D[i] ^= sum_t T_t[byte_t(I[i])]` (see the module documentation).
///
/// Requirements (checked): every index row has `chunks` bytes; the segments of `S` words
/// starting at `w0` stay inside each destination and source row's stride, which holds when
/// `w0` and `src_w0` are aligned to the segment width (the strides are multiples of it).
///
/// Large products are split by rows over rayon's threads (each part builds its own tables); the
/// result does not depend on the number of threads.
pub(crate) fn addmul(dst: Dest<'_>, op: &AddMul<'_>, scratch: &mut Scratch) {
    addmul_split(dst, op, scratch, PAR_MIN_ROWS, PAR_MIN_WORK);
}

/// [`addmul`] with explicit thresholds for the split over threads.
fn addmul_split(
    dst: Dest<'_>,
    op: &AddMul<'_>,
    scratch: &mut Scratch,
    min_rows: usize,
    min_work: usize,
) {
    if dst.nrows == 0 || dst.w1 <= dst.w0 || op.chunks == 0 {
        return;
    }
    let threads = rayon::current_num_threads();
    let work = dst.nrows * (dst.w1 - dst.w0) * op.chunks;
    if threads > 1 && dst.nrows >= 2 * min_rows && work >= min_work {
        let parts = threads.min(dst.nrows / min_rows);
        let per = dst.nrows.div_ceil(parts);
        let Dest {
            mut words,
            stride,
            nrows,
            w0,
            w1,
        } = dst;
        let mut jobs = Vec::with_capacity(parts);
        let mut start = 0;
        while start < nrows {
            let rows = per.min(nrows - start);
            let chunk = if start + rows < nrows {
                let (head, tail) = std::mem::take(&mut words).split_at_mut(rows * stride);
                words = tail;
                head
            } else {
                std::mem::take(&mut words)
            };
            jobs.push((start, rows, chunk));
            start += rows;
        }
        jobs.into_par_iter().for_each(|(start, rows, chunk)| {
            let part = AddMul {
                idx: &op.idx[start * op.idx_stride..],
                ..*op
            };
            let dst = Dest {
                words: chunk,
                stride,
                nrows: rows,
                w0,
                w1,
            };
            addmul_serial(dst, &part, &mut Scratch::default());
        });
        return;
    }
    addmul_serial(dst, op, scratch);
}

/// [`addmul`] on the calling thread.
fn addmul_serial(dst: Dest<'_>, op: &AddMul<'_>, scratch: &mut Scratch) {
    let s = segment_words(dst.stride, op.src_stride, dst.w0, op.src_w0);
    if s == 8 && dst.w1 - dst.w0 >= WIDE {
        // Wide rows: segments of WIDE words (two 512-bit vectors) for the bulk, then one
        // segment of 8 words for the remainder (which stays inside the strides).
        let bulk = (dst.w1 - dst.w0) / WIDE * WIDE;
        let Dest {
            words,
            stride,
            nrows,
            w0,
            w1,
        } = dst;
        dispatch::<WIDE>(
            Dest {
                words: &mut *words,
                stride,
                nrows,
                w0,
                w1: w0 + bulk,
            },
            op,
            scratch,
        );
        if w0 + bulk < w1 {
            let rest = AddMul {
                src_w0: op.src_w0 + bulk,
                ..*op
            };
            dispatch::<8>(
                Dest {
                    words,
                    stride,
                    nrows,
                    w0: w0 + bulk,
                    w1,
                },
                &rest,
                scratch,
            );
        }
        return;
    }
    match s {
        8 => dispatch::<8>(dst, op, scratch),
        4 => dispatch::<4>(dst, op, scratch),
        2 => dispatch::<2>(dst, op, scratch),
        _ => dispatch::<1>(dst, op, scratch),
    }
}

fn dispatch<const S: usize>(dst: Dest<'_>, op: &AddMul<'_>, scratch: &mut Scratch) {
    // The active chunks (with at least one source row).
    let active: Vec<u32> = (0..op.chunks)
        .filter(|&t| op.src_rows[8 * t..8 * t + 8].iter().any(|&r| r != NONE))
        .map(|t| t as u32)
        .collect();
    if active.is_empty() {
        return;
    }
    check_bounds::<S>(&dst, op);
    let tabs = scratch.words(active.len() * 256 * S);
    match isa() {
        // SAFETY: the features were detected at run time; bounds were checked above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::addmul_avx512::<S>(dst, op, &active, tabs) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::addmul_avx2::<S>(dst, op, &active, tabs) },
        // SAFETY: bounds were checked above.
        _ => unsafe { addmul_impl::<S, Portable>(dst, op, &active, tabs) },
    }
}

/// Panics unless every access of [`addmul_impl`] is in bounds.
fn check_bounds<const S: usize>(dst: &Dest<'_>, op: &AddMul<'_>) {
    let segs = (dst.w1 - dst.w0).div_ceil(S);
    let dst_end = dst.w0 + segs * S;
    assert!(
        dst_end <= dst.stride,
        "segment exceeds the destination stride"
    );
    assert!(
        (dst.nrows - 1) * dst.stride + dst_end <= dst.words.len(),
        "destination rows out of bounds"
    );
    let src_end = op.src_w0 + segs * S;
    assert!(
        src_end <= op.src_stride,
        "segment exceeds the source stride"
    );
    let max_row = op
        .src_rows
        .iter()
        .filter(|&&r| r != NONE)
        .max()
        .copied()
        .unwrap_or(0) as usize;
    assert!(
        max_row * op.src_stride + src_end <= op.src.len(),
        "source rows out of bounds"
    );
    assert!(op.src_rows.len() >= 8 * op.chunks, "missing source rows");
    assert!(
        op.chunks.div_ceil(8) <= op.idx_stride,
        "index rows too short"
    );
    assert!(
        (dst.nrows - 1) * op.idx_stride + op.chunks.div_ceil(8) <= op.idx.len(),
        "index rows out of bounds"
    );
}

/// The kernel. Tables: `active.len()` tables of 256 entries of `S` words, rebuilt per segment.
///
/// # Safety
/// [`check_bounds`] must have passed for `dst` and `op`, and `tabs` must hold
/// `active.len() * 256 * S` words.
#[inline(always)]
unsafe fn addmul_impl<const S: usize, R: Rows>(
    dst: Dest<'_>,
    op: &AddMul<'_>,
    active: &[u32],
    tabs: &mut [u64],
) {
    let Dest {
        words,
        stride,
        nrows,
        w0,
        w1,
    } = dst;
    let d = words.as_mut_ptr();
    let src = op.src.as_ptr();
    let idx = op.idx.as_ptr();
    let tp = tabs.as_mut_ptr();
    let mut w = w0;
    while w < w1 {
        let sw = w - w0 + op.src_w0;
        // Build the tables of this segment: entry v = entry (v & (v - 1)) ^ source(lowest bit).
        for (a, &t) in active.iter().enumerate() {
            let t = t as usize;
            // SAFETY: table `a` spans 256 * S words of `tabs`; source rows were checked.
            unsafe {
                let tab = tp.add(a * 256 * S);
                for k in 0..S {
                    *tab.add(k) = 0;
                }
                for v in 1..256usize {
                    let r = *op
                        .src_rows
                        .get_unchecked(8 * t + v.trailing_zeros() as usize);
                    let prev = tab.add((v & (v - 1)) * S);
                    let out = tab.add(v * S);
                    if r == NONE {
                        for k in 0..S {
                            *out.add(k) = *prev.add(k);
                        }
                    } else {
                        let s = src.add(r as usize * op.src_stride + sw);
                        for k in 0..S {
                            *out.add(k) = *prev.add(k) ^ *s.add(k);
                        }
                    }
                }
            }
        }
        // SAFETY: rows, index rows and tables were checked to be in bounds.
        unsafe { R::apply::<S>(d, stride, nrows, w, idx, op.idx_stride, active, tp) };
        w += S;
    }
}

/// The row loop of the kernel: `row[w..w + S] ^= sum over active chunks of table entries`.
trait Rows {
    /// # Safety
    /// Every row segment, index row and table entry addressed must be in bounds.
    #[allow(clippy::too_many_arguments)]
    unsafe fn apply<const S: usize>(
        d: *mut u64,
        stride: usize,
        nrows: usize,
        w: usize,
        idx: *const u64,
        idx_stride: usize,
        active: &[u32],
        tp: *const u64,
    );
}

/// Byte `t` of the index row at `ix`.
#[inline(always)]
unsafe fn index_byte(ix: *const u64, t: usize) -> usize {
    // SAFETY: the caller guarantees the index row holds byte t.
    unsafe { ((*ix.add(t / 8) >> (8 * (t % 8))) & 0xff) as usize }
}

/// Portable row loop (scalar words).
struct Portable;

impl Rows for Portable {
    #[inline(always)]
    unsafe fn apply<const S: usize>(
        d: *mut u64,
        stride: usize,
        nrows: usize,
        w: usize,
        idx: *const u64,
        idx_stride: usize,
        active: &[u32],
        tp: *const u64,
    ) {
        for i in 0..nrows {
            // SAFETY: forwarded from the caller.
            unsafe {
                let row = d.add(i * stride + w);
                let ix = idx.add(i * idx_stride);
                let mut acc = [0u64; S];
                for (k, x) in acc.iter_mut().enumerate() {
                    *x = *row.add(k);
                }
                for (a, &t) in active.iter().enumerate() {
                    let e = tp.add((a * 256 + index_byte(ix, t as usize)) * S);
                    for (k, x) in acc.iter_mut().enumerate() {
                        *x ^= *e.add(k);
                    }
                }
                for (k, x) in acc.iter().enumerate() {
                    *row.add(k) = *x;
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::PREFETCH_ROWS;
    use super::{AddMul, Dest, Portable, Rows, addmul_impl, index_byte};
    use core::arch::x86_64::{
        __m256i, __m512i, _MM_HINT_T0, _mm_prefetch, _mm256_loadu_si256, _mm256_storeu_si256,
        _mm256_xor_si256, _mm512_loadu_si512, _mm512_storeu_si512, _mm512_xor_si512,
    };

    /// Row loop on 512-bit vectors (segments of 8 words; narrower ones use the portable loop).
    pub(super) struct Avx512;

    impl Rows for Avx512 {
        #[inline(always)]
        unsafe fn apply<const S: usize>(
            d: *mut u64,
            stride: usize,
            nrows: usize,
            w: usize,
            idx: *const u64,
            idx_stride: usize,
            active: &[u32],
            tp: *const u64,
        ) {
            if S != 8 && S != 16 {
                // SAFETY: forwarded from the caller.
                return unsafe {
                    Portable::apply::<S>(d, stride, nrows, w, idx, idx_stride, active, tp)
                };
            }
            for i in 0..nrows {
                // SAFETY: forwarded from the caller; AVX-512F is enabled in every caller. The
                // prefetched row is in bounds.
                unsafe {
                    if i + PREFETCH_ROWS < nrows {
                        let ahead = d.add((i + PREFETCH_ROWS) * stride + w).cast::<i8>();
                        _mm_prefetch::<_MM_HINT_T0>(ahead);
                        if S == 16 {
                            _mm_prefetch::<_MM_HINT_T0>(ahead.add(64));
                        }
                    }
                    let row = d.add(i * stride + w).cast::<__m512i>();
                    let ix = idx.add(i * idx_stride);
                    let mut lo = _mm512_loadu_si512(row);
                    let mut hi = if S == 16 {
                        _mm512_loadu_si512(row.add(1))
                    } else {
                        lo
                    };
                    for (a, &t) in active.iter().enumerate() {
                        let e = tp
                            .add((a * 256 + index_byte(ix, t as usize)) * S)
                            .cast::<__m512i>();
                        lo = _mm512_xor_si512(lo, _mm512_loadu_si512(e));
                        if S == 16 {
                            hi = _mm512_xor_si512(hi, _mm512_loadu_si512(e.add(1)));
                        }
                    }
                    _mm512_storeu_si512(row, lo);
                    if S == 16 {
                        _mm512_storeu_si512(row.add(1), hi);
                    }
                }
            }
        }
    }

    /// Row loop on 256-bit vectors (segments of 4 or 8 words).
    pub(super) struct Avx2;

    impl Rows for Avx2 {
        #[inline(always)]
        unsafe fn apply<const S: usize>(
            d: *mut u64,
            stride: usize,
            nrows: usize,
            w: usize,
            idx: *const u64,
            idx_stride: usize,
            active: &[u32],
            tp: *const u64,
        ) {
            if S != 8 && S != 4 {
                // SAFETY: forwarded from the caller.
                return unsafe {
                    Portable::apply::<S>(d, stride, nrows, w, idx, idx_stride, active, tp)
                };
            }
            for i in 0..nrows {
                // SAFETY: forwarded from the caller; AVX2 is enabled in every caller. The
                // prefetched row is in bounds.
                unsafe {
                    if i + PREFETCH_ROWS < nrows {
                        let ahead = d.add((i + PREFETCH_ROWS) * stride + w).cast::<i8>();
                        _mm_prefetch::<_MM_HINT_T0>(ahead);
                    }
                    let row = d.add(i * stride + w).cast::<__m256i>();
                    let ix = idx.add(i * idx_stride);
                    let mut lo = _mm256_loadu_si256(row);
                    let mut hi = if S == 8 {
                        _mm256_loadu_si256(row.add(1))
                    } else {
                        lo
                    };
                    for (a, &t) in active.iter().enumerate() {
                        let e = tp
                            .add((a * 256 + index_byte(ix, t as usize)) * S)
                            .cast::<__m256i>();
                        lo = _mm256_xor_si256(lo, _mm256_loadu_si256(e));
                        if S == 8 {
                            hi = _mm256_xor_si256(hi, _mm256_loadu_si256(e.add(1)));
                        }
                    }
                    _mm256_storeu_si256(row, lo);
                    if S == 8 {
                        _mm256_storeu_si256(row.add(1), hi);
                    }
                }
            }
        }
    }

    /// # Safety
    /// As [`addmul_impl`], on a CPU with AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn addmul_avx512<const S: usize>(
        dst: Dest<'_>,
        op: &AddMul<'_>,
        active: &[u32],
        tabs: &mut [u64],
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { addmul_impl::<S, Avx512>(dst, op, active, tabs) }
    }

    /// # Safety
    /// As [`addmul_impl`], on a CPU with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn addmul_avx2<const S: usize>(
        dst: Dest<'_>,
        op: &AddMul<'_>,
        active: &[u32],
        tabs: &mut [u64],
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { addmul_impl::<S, Avx2>(dst, op, active, tabs) }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Isa {
    Avx512,
    Avx2,
    Baseline,
}

fn isa() -> Isa {
    use std::sync::OnceLock;
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A random problem: `nrows` destination rows of `stride` words, `nsrc` source rows,
    /// `chunks` index bytes per row, some source bits missing.
    struct Problem {
        dst: Vec<u64>,
        src: Vec<u64>,
        idx: Vec<u64>,
        src_rows: Vec<u32>,
        stride: usize,
        nrows: usize,
        chunks: usize,
        w0: usize,
        w1: usize,
    }

    fn problem(
        rng: &mut Rng,
        nrows: usize,
        stride: usize,
        w0: usize,
        w1: usize,
        chunks: usize,
    ) -> Problem {
        let nsrc = 40;
        let mut src_rows: Vec<u32> = (0..8 * chunks)
            .map(|_| {
                if rng.below(5) == 0 {
                    NONE
                } else {
                    rng.below(nsrc as u64) as u32
                }
            })
            .collect();
        src_rows.resize(8 * chunks.max(1), NONE);
        // Padding words (past w1) are zero in the sources, as in a matrix.
        let mut src: Vec<u64> = (0..nsrc * stride).map(|_| rng.next_u64()).collect();
        for r in 0..nsrc {
            for w in w1..stride {
                src[r * stride + w] = 0;
            }
        }
        Problem {
            dst: (0..nrows * stride).map(|_| rng.next_u64()).collect(),
            src,
            idx: (0..nrows * 4).map(|_| rng.next_u64()).collect(),
            src_rows,
            stride,
            nrows,
            chunks,
            w0,
            w1,
        }
    }

    impl Problem {
        fn op(&self) -> AddMul<'_> {
            AddMul {
                idx: &self.idx,
                idx_stride: 4,
                chunks: self.chunks,
                src: &self.src,
                src_stride: self.stride,
                src_rows: &self.src_rows,
                src_w0: self.w0,
            }
        }

        /// The definition, one bit of the index at a time.
        fn expected(&self) -> Vec<u64> {
            let mut out = self.dst.clone();
            for i in 0..self.nrows {
                for t in 0..self.chunks {
                    let byte = (self.idx[i * 4 + t / 8] >> (8 * (t % 8))) & 0xff;
                    for b in 0..8 {
                        let r = self.src_rows[8 * t + b];
                        if byte >> b & 1 == 1 && r != NONE {
                            for w in self.w0..self.w1 {
                                out[i * self.stride + w] ^= self.src[r as usize * self.stride + w];
                            }
                        }
                    }
                }
            }
            out
        }

        fn run(&self, f: impl FnOnce(Dest<'_>, &AddMul<'_>)) -> Vec<u64> {
            let mut d = self.dst.clone();
            let dst = Dest {
                words: &mut d,
                stride: self.stride,
                nrows: self.nrows,
                w0: self.w0,
                w1: self.w1,
            };
            f(dst, &self.op());
            d
        }
    }

    fn shapes() -> Vec<(usize, usize, usize, usize, usize)> {
        // (nrows, stride, w0, w1, chunks)
        vec![
            (37, 1, 0, 1, 3),
            (50, 2, 0, 2, 32),
            (64, 4, 0, 3, 17),
            (100, 8, 0, 8, 32),
            (70, 40, 8, 37, 32),
            (90, 72, 16, 70, 9),
            (33, 264, 0, 256, 32),
            (20, 24, 8, 24, 0),
        ]
    }

    #[test]
    fn addmul_matches_definition() {
        let mut rng = Rng::from_seed(1);
        for (nrows, stride, w0, w1, chunks) in shapes() {
            let p = problem(&mut rng, nrows, stride, w0, w1, chunks);
            let got = p.run(|d, op| addmul(d, op, &mut Scratch::default()));
            assert_eq!(
                got,
                p.expected(),
                "{nrows} rows, stride {stride}, {w0}..{w1}"
            );
        }
    }

    #[test]
    fn every_instruction_set_agrees() {
        let mut rng = Rng::from_seed(2);
        for (nrows, stride, w0, w1, chunks) in shapes() {
            let p = problem(&mut rng, nrows, stride, w0, w1, chunks);
            let want = p.expected();
            let active: Vec<u32> = (0..chunks as u32)
                .filter(|&t| {
                    p.src_rows[8 * t as usize..8 * t as usize + 8]
                        .iter()
                        .any(|&r| r != NONE)
                })
                .collect();
            let s = segment_words(stride, stride, w0, w0);
            macro_rules! check {
                ($f:expr, $s:literal) => {
                    if s == $s {
                        let got = p.run(|d, op| {
                            check_bounds::<$s>(&d, op);
                            let mut tabs = vec![0u64; active.len() * 256 * $s];
                            // SAFETY: bounds checked above; the features are detected by the
                            // caller of each arm.
                            unsafe { $f(d, op, &active, &mut tabs) }
                        });
                        assert_eq!(got, want, "segment {}", $s);
                    }
                };
            }
            check!(addmul_impl::<1, Portable>, 1);
            check!(addmul_impl::<2, Portable>, 2);
            check!(addmul_impl::<4, Portable>, 4);
            check!(addmul_impl::<8, Portable>, 8);
            #[cfg(target_arch = "x86_64")]
            {
                if std::is_x86_feature_detected!("avx2") {
                    check!(x86::addmul_avx2::<4>, 4);
                    check!(x86::addmul_avx2::<8>, 8);
                }
                if std::is_x86_feature_detected!("avx512f") {
                    check!(x86::addmul_avx512::<8>, 8);
                }
            }
            // The wide segments, where the shape allows them.
            if s == 8 && (w1 - w0) % WIDE == 0 && w1 > w0 {
                let got = p.run(|d, op| {
                    check_bounds::<WIDE>(&d, op);
                    let mut tabs = vec![0u64; active.len() * 256 * WIDE];
                    // SAFETY: bounds checked above.
                    unsafe { addmul_impl::<WIDE, Portable>(d, op, &active, &mut tabs) }
                });
                assert_eq!(got, want, "portable wide");
                #[cfg(target_arch = "x86_64")]
                if std::is_x86_feature_detected!("avx512f") {
                    let got = p.run(|d, op| {
                        check_bounds::<WIDE>(&d, op);
                        let mut tabs = vec![0u64; active.len() * 256 * WIDE];
                        // SAFETY: bounds checked above; AVX-512F detected.
                        unsafe { x86::addmul_avx512::<WIDE>(d, op, &active, &mut tabs) }
                    });
                    assert_eq!(got, want, "avx512 wide");
                }
            }
        }
    }

    #[test]
    fn split_over_threads_agrees() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut rng = Rng::from_seed(3);
        for (nrows, stride, w0, w1, chunks) in shapes() {
            let p = problem(&mut rng, nrows, stride, w0, w1, chunks);
            let got =
                pool.install(|| p.run(|d, op| addmul_split(d, op, &mut Scratch::default(), 4, 1)));
            assert_eq!(got, p.expected(), "{nrows} rows, stride {stride}");
        }
    }
}
