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
//! Cache blocking: the destination columns are processed in segments of `S` words (up to two
//! 512-bit vectors); for each segment the tables of all chunks are built once (`chunks * 256 * S`
//! words, at most 1 MiB, sized to stay in the L2 cache), then every destination row is loaded
//! once, receives one table entry per chunk in registers, and is stored once; the row a few rows
//! ahead is prefetched (rows are a stride apart, on different pages, which the hardware
//! prefetcher does not follow).
//!
//! The row loop is written once over a lane type (512-bit AVX-512, 256-bit AVX2, 128-bit SSE2,
//! or plain words) and compiled for each instruction set; the widest one the CPU supports is
//! chosen at run time. Large products are split by rows over rayon's threads. Neither choice
//! changes the result.

use rayon::prelude::*;

use super::matrix::Line;

/// Marks a bit of a chunk that has no source row.
pub(crate) const NONE: u32 = u32::MAX;

/// Words per segment for wide destinations (two 512-bit vectors; the tables of 32 chunks then
/// take 1 MiB, which fits the L2 cache of current x86 cores).
const WIDE: usize = 16;

/// Products are split over threads only with this much work (destination words times active
/// chunks, about one XOR of a word each)...
const PAR_MIN_WORK: usize = 1 << 24;
/// ... and, when split by rows, with at least this many rows per part.
const PAR_MIN_ROWS: usize = 512;

/// How many rows ahead the row loops prefetch the destination segment.
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

/// The segment width (in words): the largest power of two up to 8 that divides both strides and
/// both start words (with 8, the bulk of wide rows then takes segments of [`WIDE`] words).
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
/// Requirements (checked, panics otherwise): every index row has `chunks` bytes; the segments
/// starting at `w0` stay inside each destination and source row's stride, which holds when `w0`
/// and `src_w0` are aligned to the segment width (the strides are multiples of it); destination
/// and source words past `w1` inside the last segment are zero padding.
///
/// Large products are split over rayon's threads: by columns (groups of segments, each with its
/// own tables, so nothing is built twice) when the rows are wide enough, else by rows. The
/// result does not depend on the number of threads.
pub(crate) fn addmul(dst: Dest<'_>, op: &AddMul<'_>, scratch: &mut Scratch) {
    addmul_split(dst, op, scratch, PAR_MIN_WORK, PAR_MIN_ROWS);
}

/// Segments of `s` words covering destination words `w0..w1` (the last segment may extend
/// into the padding), aligned with source word `src_w0`.
#[derive(Clone, Copy, Debug)]
struct Run {
    s: usize,
    w0: usize,
    w1: usize,
    src_w0: usize,
}

impl Run {
    fn segments(&self) -> usize {
        (self.w1 - self.w0).div_ceil(self.s)
    }

    /// Segments `a..b` of this run.
    fn sub(&self, a: usize, b: usize) -> Run {
        Run {
            s: self.s,
            w0: self.w0 + a * self.s,
            w1: (self.w0 + b * self.s).min(self.w1),
            src_w0: self.src_w0 + a * self.s,
        }
    }
}

/// One piece of work: rows `r0..r1` of the segments of `run`.
#[derive(Clone, Copy, Debug)]
struct Part {
    r0: usize,
    r1: usize,
    run: Run,
}

/// The destination base pointer, shared by parts that write disjoint words.
#[derive(Clone, Copy)]
struct Shared(*mut u64);
// SAFETY: the parts of one product write disjoint words (different rows or different
// segments) and nothing else accesses the buffer while they run.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// [`addmul`] with explicit thresholds for the split over threads.
fn addmul_split(
    dst: Dest<'_>,
    op: &AddMul<'_>,
    scratch: &mut Scratch,
    min_work: usize,
    min_rows: usize,
) {
    if dst.nrows == 0 || dst.w1 <= dst.w0 || op.chunks == 0 {
        return;
    }
    // The active chunks (with at least one source row).
    let active: Vec<u32> = (0..op.chunks)
        .filter(|&t| op.src_rows[8 * t..8 * t + 8].iter().any(|&r| r != NONE))
        .map(|t| t as u32)
        .collect();
    if active.is_empty() {
        return;
    }
    // Runs: wide rows take segments of WIDE words (two 512-bit vectors) for the bulk and one
    // segment of 8 words for the remainder (which stays inside the strides).
    let s = segment_words(dst.stride, op.src_stride, dst.w0, op.src_w0);
    let whole = Run {
        s,
        w0: dst.w0,
        w1: dst.w1,
        src_w0: op.src_w0,
    };
    let mut runs = Vec::with_capacity(2);
    if s == 8 && dst.w1 - dst.w0 >= WIDE {
        let bulk = (dst.w1 - dst.w0) / WIDE * WIDE;
        runs.push(Run {
            s: WIDE,
            w1: dst.w0 + bulk,
            ..whole
        });
        if bulk < dst.w1 - dst.w0 {
            runs.push(Run {
                s: 8,
                w0: dst.w0 + bulk,
                w1: dst.w1,
                src_w0: op.src_w0 + bulk,
            });
        }
    } else {
        runs.push(whole);
    }
    for run in &runs {
        check_bounds(&dst, op, run);
    }
    let (stride, nrows) = (dst.stride, dst.nrows);
    let base = Shared(dst.words.as_mut_ptr());
    let threads = rayon::current_num_threads();
    let work = nrows * (dst.w1 - dst.w0) * active.len();
    let segments: usize = runs.iter().map(Run::segments).sum();
    let mut parts = Vec::new();
    if threads > 1 && work >= min_work {
        if segments >= 2 * threads {
            // By columns: about four groups of segments per thread, for balance.
            let groups = (4 * threads).min(segments);
            for run in &runs {
                let n = run.segments();
                let k = (groups * n).div_ceil(segments).clamp(1, n);
                for g in 0..k {
                    let (a, b) = (g * n / k, (g + 1) * n / k);
                    if a < b {
                        parts.push(Part {
                            r0: 0,
                            r1: nrows,
                            run: run.sub(a, b),
                        });
                    }
                }
            }
        } else if nrows >= 2 * min_rows {
            // By rows (each part builds its own tables).
            let k = threads.min(nrows / min_rows);
            for g in 0..k {
                for run in &runs {
                    parts.push(Part {
                        r0: g * nrows / k,
                        r1: (g + 1) * nrows / k,
                        run: *run,
                    });
                }
            }
        }
    }
    if parts.len() > 1 {
        parts.into_par_iter().for_each(|part| {
            // Each worker keeps its table space between calls (at most 1 MiB).
            thread_local! {
                static TABLES: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
            }
            TABLES.with(|cell| {
                let mut fresh = Scratch::default();
                let mut held = cell.try_borrow_mut();
                let scratch = held.as_deref_mut().unwrap_or(&mut fresh);
                // SAFETY: bounds were checked for every run over all rows; parts write
                // disjoint words, and `dst.words` is not otherwise used until they finish.
                unsafe { run_part(base, stride, part, op, &active, scratch) };
            });
        });
    } else {
        for run in runs {
            let part = Part {
                r0: 0,
                r1: nrows,
                run,
            };
            // SAFETY: bounds were checked for every run over all rows.
            unsafe { run_part(base, stride, part, op, &active, scratch) };
        }
    }
}

/// Runs one part on the calling thread, in the widest instruction set available.
///
/// # Safety
/// [`check_bounds`] must have passed for the part's run over all rows of the destination at
/// `base`, and no other thread may access the words the part writes.
unsafe fn run_part(
    base: Shared,
    stride: usize,
    part: Part,
    op: &AddMul<'_>,
    active: &[u32],
    scratch: &mut Scratch,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match part.run.s {
            16 => run_level::<16>(base, stride, part, op, active, scratch),
            8 => run_level::<8>(base, stride, part, op, active, scratch),
            4 => run_level::<4>(base, stride, part, op, active, scratch),
            2 => run_level::<2>(base, stride, part, op, active, scratch),
            _ => run_level::<1>(base, stride, part, op, active, scratch),
        }
    }
}

/// # Safety
/// As [`run_part`], with `S == part.run.s`.
unsafe fn run_level<const S: usize>(
    base: Shared,
    stride: usize,
    part: Part,
    op: &AddMul<'_>,
    active: &[u32],
    scratch: &mut Scratch,
) {
    let tabs = scratch.words(active.len() * 256 * S).as_mut_ptr();
    let job = Job {
        d: base.0.wrapping_add(part.r0 * stride),
        stride,
        nrows: part.r1 - part.r0,
        run: part.run,
        idx: op.idx[part.r0 * op.idx_stride..].as_ptr(),
        op,
        active,
        tabs,
    };
    // SAFETY: forwarded from the caller; the features were detected at run time.
    unsafe {
        match isa() {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => x86::addmul_avx512::<S>(&job),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => x86::addmul_avx2::<S>(&job),
            _ => addmul_impl::<S, BASELINE>(&job),
        }
    }
}

/// Panics unless every access of [`addmul_impl`] for `run` over all rows is in bounds.
fn check_bounds(dst: &Dest<'_>, op: &AddMul<'_>, run: &Run) {
    let span = run.segments() * run.s;
    let dst_end = run.w0 + span;
    assert!(
        dst_end <= dst.stride,
        "segment exceeds the destination stride"
    );
    assert!(
        (dst.nrows - 1) * dst.stride + dst_end <= dst.words.len(),
        "destination rows out of bounds"
    );
    let src_end = run.src_w0 + span;
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

/// Everything one call of the kernel needs, as raw pointers: destination rows `0..nrows` at
/// `d`, the run's words of each, index rows at `idx`, and table space at `tabs`.
struct Job<'a> {
    d: *mut u64,
    stride: usize,
    nrows: usize,
    run: Run,
    idx: *const u64,
    op: &'a AddMul<'a>,
    active: &'a [u32],
    tabs: *mut u64,
}

/// The kernel. Tables: `active.len()` tables of 256 entries of `S` words, rebuilt per segment.
///
/// # Safety
/// [`check_bounds`] must have passed for the job's run over its rows, `tabs` must hold
/// `active.len() * 256 * S` words, and no other thread may access the words written.
#[inline(always)]
unsafe fn addmul_impl<const S: usize, const LEVEL: u8>(job: &Job<'_>) {
    let Job {
        d,
        stride,
        nrows,
        run,
        idx,
        op,
        active,
        tabs: tp,
    } = *job;
    debug_assert_eq!(run.s, S);
    let src = op.src.as_ptr();
    let mut w = run.w0;
    while w < run.w1 {
        let sw = w - run.w0 + run.src_w0;
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
        let seg = Segment {
            d,
            stride,
            nrows,
            w,
            idx,
            idx_stride: op.idx_stride,
            active,
            tp,
        };
        // SAFETY: rows, index rows and tables were checked to be in bounds.
        unsafe { apply_rows::<S, LEVEL>(&seg) };
        w += S;
    }
}

/// A vector register type for the row loop: `WORDS` consecutive words.
trait Lane: Copy {
    const WORDS: usize;
    /// # Safety
    /// `p` must be valid for reading `WORDS` words (alignment not required).
    unsafe fn load(p: *const u64) -> Self;
    /// # Safety
    /// `p` must be valid for writing `WORDS` words (alignment not required).
    unsafe fn store(self, p: *mut u64);
    fn xor(self, other: Self) -> Self;
}

impl Lane for u64 {
    const WORDS: usize = 1;
    #[inline(always)]
    unsafe fn load(p: *const u64) -> Self {
        // SAFETY: forwarded from the caller.
        unsafe { p.read_unaligned() }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u64) {
        // SAFETY: forwarded from the caller.
        unsafe { p.write_unaligned(self) }
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        self ^ other
    }
}

/// Hints that the `S`-word segment at `p` will be read soon (x86-64 only; no effect
/// elsewhere). Prefetching never faults.
#[inline(always)]
fn prefetch<const S: usize>(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..S.div_ceil(8) {
        // SAFETY: a prefetch is only a hint and never faults; SSE is part of x86-64.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                p.wrapping_add(8 * line).cast::<i8>(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// One segment's row loop: rows `0..nrows` of `d` (`stride` words apart), words `w..w + S`,
/// index rows at `idx` (`idx_stride` words apart), tables at `tp` (one per active chunk).
#[derive(Clone, Copy)]
struct Segment<'a> {
    d: *mut u64,
    stride: usize,
    nrows: usize,
    w: usize,
    idx: *const u64,
    idx_stride: usize,
    active: &'a [u32],
    tp: *const u64,
}

/// Most vectors a segment may hold (16 words in `u64` lanes).
const MAX_LANES: usize = 16;

/// The row loop: `row[w..w + S] ^= sum of the table entries selected by the row's index bytes`,
/// in registers of type `L` (`S` must be a multiple of `L::WORDS`, at most `MAX_LANES` of them).
///
/// # Safety
/// Every row segment, index row and table entry addressed must be in bounds, and the CPU must
/// support the instructions of `L`.
#[inline(always)]
unsafe fn row_loop<L: Lane, const S: usize>(seg: &Segment<'_>) {
    let Segment {
        d,
        stride,
        nrows,
        w,
        idx,
        idx_stride,
        active,
        tp,
    } = *seg;
    let nv = S / L::WORDS;
    debug_assert!(nv * L::WORDS == S && nv <= MAX_LANES);
    for i in 0..nrows {
        // Rows are a stride apart, usually on different pages: the hardware prefetcher does
        // not follow them.
        prefetch::<S>(d.wrapping_add((i + PREFETCH_ROWS) * stride + w));
        // SAFETY: forwarded from the caller.
        unsafe {
            let row = d.add(i * stride + w);
            let ix = idx.add(i * idx_stride);
            let mut acc = [L::load(row); MAX_LANES];
            for (v, x) in acc.iter_mut().enumerate().take(nv).skip(1) {
                *x = L::load(row.add(v * L::WORDS));
            }
            for (a, &t) in active.iter().enumerate() {
                let e = tp.add((a * 256 + index_byte(ix, t as usize)) * S);
                for (v, x) in acc.iter_mut().enumerate().take(nv) {
                    *x = x.xor(L::load(e.add(v * L::WORDS)));
                }
            }
            for (v, x) in acc.iter().enumerate().take(nv) {
                x.store(row.add(v * L::WORDS));
            }
        }
    }
}

/// Byte `t` of the index row at `ix`.
#[inline(always)]
unsafe fn index_byte(ix: *const u64, t: usize) -> usize {
    // SAFETY: the caller guarantees the index row holds byte t.
    unsafe { ((*ix.add(t / 8) >> (8 * (t % 8))) & 0xff) as usize }
}

/// Instruction-set levels of the kernel: the widest lanes the row loop may use.
const BASELINE: u8 = 0;
// Used by the x86-64 kernels only; other targets run BASELINE.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const AVX2: u8 = 1;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const AVX512: u8 = 2;

/// The row loop in the widest lanes of level `LEVEL` that divide `S` (SSE2 is part of x86-64;
/// words elsewhere).
///
/// # Safety
/// As [`row_loop`]; the CPU must support level `LEVEL`.
#[inline(always)]
unsafe fn apply_rows<const S: usize, const LEVEL: u8>(seg: &Segment<'_>) {
    // SAFETY: forwarded from the caller.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        {
            if LEVEL >= AVX512 && S.is_multiple_of(8) {
                return row_loop::<x86::Avx512Lane, S>(seg);
            }
            if LEVEL >= AVX2 && S.is_multiple_of(4) {
                return row_loop::<x86::Avx2Lane, S>(seg);
            }
            if S.is_multiple_of(2) {
                return row_loop::<x86::Sse2, S>(seg);
            }
        }
        row_loop::<u64, S>(seg)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{AVX2, AVX512, Job, Lane, addmul_impl};
    use core::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
        _mm256_loadu_si256, _mm256_storeu_si256, _mm256_xor_si256, _mm512_loadu_si512,
        _mm512_storeu_si512, _mm512_xor_si512,
    };

    macro_rules! lane {
        ($name:ident, $ty:ty, $words:literal, $feature:literal, $load:ident, $store:ident, $xor:ident) => {
            #[derive(Clone, Copy)]
            pub(super) struct $name($ty);

            impl $name {
                #[target_feature(enable = $feature)]
                #[inline]
                fn xor_raw(a: $ty, b: $ty) -> $ty {
                    $xor(a, b)
                }
            }

            impl Lane for $name {
                const WORDS: usize = $words;
                #[inline(always)]
                unsafe fn load(p: *const u64) -> Self {
                    // SAFETY: forwarded from the caller, who runs on a CPU with the feature.
                    $name(unsafe { $load(p.cast()) })
                }
                #[inline(always)]
                unsafe fn store(self, p: *mut u64) {
                    // SAFETY: forwarded from the caller, who runs on a CPU with the feature.
                    unsafe { $store(p.cast(), self.0) }
                }
                #[inline(always)]
                fn xor(self, other: Self) -> Self {
                    // SAFETY: values of this type only exist on a CPU with the feature (they
                    // are created by `load`).
                    $name(unsafe { Self::xor_raw(self.0, other.0) })
                }
            }
        };
    }

    lane!(
        Sse2,
        __m128i,
        2,
        "sse2",
        _mm_loadu_si128,
        _mm_storeu_si128,
        _mm_xor_si128
    );
    lane!(
        Avx2Lane,
        __m256i,
        4,
        "avx2",
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_xor_si256
    );
    lane!(
        Avx512Lane,
        __m512i,
        8,
        "avx512f",
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_xor_si512
    );

    /// The kernel compiled for an instruction set.
    macro_rules! with_features {
        ($name:ident, $feature:literal, $level:expr) => {
            /// # Safety
            /// As [`addmul_impl`], on a CPU with the feature.
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name<const S: usize>(job: &Job<'_>) {
                // SAFETY: forwarded from the caller.
                unsafe { addmul_impl::<S, { $level }>(job) }
            }
        };
    }

    with_features!(addmul_avx512, "avx512f", AVX512);
    with_features!(addmul_avx2, "avx2", AVX2);
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
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

    /// Runs the kernel `f` on `p` with segments of `s` words over the whole range.
    fn with_job(p: &Problem, s: usize, f: impl FnOnce(&Job<'_>)) -> Vec<u64> {
        let mut d = p.dst.clone();
        let op = p.op();
        let active: Vec<u32> = (0..p.chunks as u32)
            .filter(|&t| {
                p.src_rows[8 * t as usize..8 * t as usize + 8]
                    .iter()
                    .any(|&r| r != NONE)
            })
            .collect();
        let run = Run {
            s,
            w0: p.w0,
            w1: p.w1,
            src_w0: p.w0,
        };
        let dst = Dest {
            words: &mut d,
            stride: p.stride,
            nrows: p.nrows,
            w0: p.w0,
            w1: p.w1,
        };
        check_bounds(&dst, &op, &run);
        let mut tabs = vec![0u64; active.len() * 256 * s];
        let job = Job {
            d: dst.words.as_mut_ptr(),
            stride: p.stride,
            nrows: p.nrows,
            run,
            idx: op.idx.as_ptr(),
            op: &op,
            active: &active,
            tabs: tabs.as_mut_ptr(),
        };
        f(&job);
        d
    }

    #[test]
    fn every_instruction_set_agrees() {
        let mut rng = Rng::from_seed(2);
        for (nrows, stride, w0, w1, chunks) in shapes() {
            let p = problem(&mut rng, nrows, stride, w0, w1, chunks);
            let want = p.expected();
            let s = segment_words(stride, stride, w0, w0);
            // SAFETY (every call below): `with_job` checked the bounds; each instruction set is
            // used only when detected.
            macro_rules! check {
                ($f:expr, $s:expr) => {{
                    assert_eq!(
                        with_job(&p, $s, |j| unsafe { $f(j) }),
                        want,
                        "segment {}",
                        $s
                    );
                }};
            }
            match s {
                1 => check!(addmul_impl::<1, BASELINE>, 1),
                2 => check!(addmul_impl::<2, BASELINE>, 2),
                4 => check!(addmul_impl::<4, BASELINE>, 4),
                _ => check!(addmul_impl::<8, BASELINE>, 8),
            }
            let wide = s == 8 && w1 > w0 && (w1 - w0) % WIDE == 0;
            if wide {
                check!(addmul_impl::<WIDE, BASELINE>, WIDE);
            }
            #[cfg(target_arch = "x86_64")]
            {
                if std::is_x86_feature_detected!("avx2") {
                    match s {
                        1 => check!(x86::addmul_avx2::<1>, 1),
                        2 => check!(x86::addmul_avx2::<2>, 2),
                        4 => check!(x86::addmul_avx2::<4>, 4),
                        _ => check!(x86::addmul_avx2::<8>, 8),
                    }
                    if wide {
                        check!(x86::addmul_avx2::<WIDE>, WIDE);
                    }
                }
                if std::is_x86_feature_detected!("avx512f") {
                    match s {
                        1 => check!(x86::addmul_avx512::<1>, 1),
                        2 => check!(x86::addmul_avx512::<2>, 2),
                        4 => check!(x86::addmul_avx512::<4>, 4),
                        _ => check!(x86::addmul_avx512::<8>, 8),
                    }
                    if wide {
                        check!(x86::addmul_avx512::<WIDE>, WIDE);
                    }
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
