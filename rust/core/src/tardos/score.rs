//! Accusation scores: one bit-matrix x vector product, `S = b + X w`, in exact integer
//! arithmetic.
//!
//! Both scores are linear in a user's bits: at position `i` with bias `p` and pirate bit `y`, a
//! user's contribution is `b_i + x w_i` with
//!
//! | score | `y = 1` | `y = 0` |
//! |---|---|---|
//! | symmetric (Škorić et al.) | `w = 1/σ`, `b = -√(p/(1-p))` | `w = -1/σ`, `b = √(p/(1-p))` |
//! | Tardos (asymmetric) | `w = 1/σ`, `b = -√(p/(1-p))` | `w = 0`, `b = 0` |
//!
//! with `σ = √(p(1-p))` (so `b + w` is `√((1-p)/p)` for `y = 1`).
//!
//! **Exact, order-free sums.** The weights are rounded once to integers on the grid `2^-s`, with
//! `s` chosen from the code's length and cut-off alone so that every partial sum of every subset
//! of the rounded weights fits in 62 bits. The products are then sums of `i64`, exact in any
//! order: the portable byte-table kernel, the AVX2 and AVX-512 kernels and any split of the users
//! over threads give bit-identical scores. [`score_error_bound`] bounds the distance between a
//! returned score and the exact real score (rounding of the weights, of their computation, and of
//! the final conversion to `f64`); the tracer adds it to the threshold, so an accusation implies
//! that the exact score exceeds the certified threshold.
//!
//! **Kernels.** AVX-512 (F and DQ): per user and 64-position word, eight masked vector adds of
//! eight weights each, the masks being the word's bytes loaded straight into mask registers
//! (two users share each weight load, and rows are prefetched a few users ahead; about 0.04 ns
//! per user-position on one core of the project's machine). Elsewhere:
//! Four-Russians byte tables (for each byte of positions, the 256 subset sums of its eight
//! weights, built with one addition per entry), one lookup per eight positions (about 0.12 ns;
//! an AVX2 branch-free select was slower than the tables and is not used). Positions are
//! processed in chunks whose weights (or tables) stay in cache, users in blocks spread over
//! threads with rayon.

use rayon::prelude::*;

use super::bits::words_for;
use super::variant::Variant;

/// Users per parallel task.
const USER_BLOCK: usize = 256;
/// Position words per chunk (4096 positions: 32 KiB of weights, resident in L1; AVX-512 kernel).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const CHUNK_WORDS: usize = 64;
/// Position words per chunk of the byte-table kernel (1024 positions: 256 KiB of tables).
const LUT_CHUNK_WORDS: usize = 16;

fn max_weights(cutoff: f64) -> (f64, f64) {
    let t = cutoff;
    // Largest |w| = 1/σ and largest |b| = √(p/(1-p)) over p in [t, 1-t], with room for the
    // rounding of their computation.
    (
        (1.0 + 1e-12) / libm::sqrt(t * (1.0 - t)),
        (1.0 + 1e-12) * libm::sqrt((1.0 - t) / t),
    )
}

/// Binary exponent `s` of the weight grid `2^-s` for a code of `length` positions and cut-off
/// `cutoff`: the largest `s` with `(length (max|w| + max|b|) + length) 2^s <= 2^61`.
pub fn weight_shift(length: usize, cutoff: f64) -> i32 {
    let (wmax, bmax) = max_weights(cutoff);
    let m = length as f64;
    let bound = m * (wmax + bmax) + m;
    let s = libm::floor(61.0 - libm::log2(bound)) as i32;
    s.min(60)
}

/// Bound on `|computed score - exact score|` for any user and pirate word (see the module
/// documentation).
pub fn score_error_bound(length: usize, cutoff: f64) -> f64 {
    let (wmax, bmax) = max_weights(cutoff);
    let m = length as f64;
    let s = weight_shift(length, cutoff);
    let grid = libm::ldexp(1.0, -s);
    // Two roundings of at most grid/2 per position; f64 conversion of |S| < 2^61 grid; relative
    // error below 2^-50 in each computed weight.
    let e = m * grid + libm::ldexp(1.0, 8 - s) + m * (wmax + bmax) * libm::ldexp(1.0, -50);
    e * (1.0 + 1e-9)
}

/// The rounded weights of one pirate word.
#[derive(Clone, Debug)]
pub struct Weights {
    /// `round(w_i 2^s)`, padded with zeros to a whole number of words.
    pub w: Vec<i64>,
    /// `Σ round(b_i 2^s)`.
    pub constant: i64,
    /// `2^-s`.
    pub unit: f64,
}

/// Rounded weights of the score of pirate word `word` (packed) for biases `biases`.
pub fn weights(biases: &[f64], word: &[u64], variant: Variant, cutoff: f64) -> Weights {
    let m = biases.len();
    let s = weight_shift(m, cutoff);
    let scale = libm::ldexp(1.0, s);
    let mut w = vec![0i64; 64 * words_for(m)];
    let mut constant = 0i64;
    for (i, &p) in biases.iter().enumerate() {
        let y = (word[i / 64] >> (i % 64)) & 1 == 1;
        let inv_sigma = 1.0 / libm::sqrt(p * (1.0 - p));
        let odds = libm::sqrt(p / (1.0 - p));
        let (wi, bi) = match (variant, y) {
            (_, true) => (inv_sigma, -odds),
            (Variant::Symmetric, false) => (-inv_sigma, odds),
            (Variant::Tardos, false) => (0.0, 0.0),
        };
        w[i] = libm::round(wi * scale) as i64;
        constant += libm::round(bi * scale) as i64;
    }
    Weights {
        w,
        constant,
        unit: libm::ldexp(1.0, -s),
    }
}

/// Kernel chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512F/DQ masked adds.
    Avx512,
    /// Four-Russians byte tables (portable).
    ByteTable,
    /// One bit at a time (reference for tests).
    Naive,
}

/// The fastest kernel this CPU supports.
pub fn best_kernel() -> Kernel {
    use std::sync::OnceLock;
    static K: OnceLock<Kernel> = OnceLock::new();
    *K.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq")
            {
                return Kernel::Avx512;
            }
        }
        Kernel::ByteTable
    })
}

/// Integer products `X w` for `rows` (user-major, `words` words per row), with `kernel`.
/// The result does not depend on the kernel or on the number of threads.
pub fn products(rows: &[u64], words: usize, w: &[i64], kernel: Kernel) -> Vec<i64> {
    assert!(words > 0 && rows.len().is_multiple_of(words) && w.len() == 64 * words);
    let n = rows.len() / words;
    let mut out = vec![0i64; n];
    let kernel = match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512dq") =>
        {
            Kernel::Avx512
        }
        Kernel::Naive => Kernel::Naive,
        _ => Kernel::ByteTable,
    };
    let block = |(rows, out): (&[u64], &mut [i64])| block_products(rows, words, w, out, kernel);
    if n * words >= 1 << 14 {
        rows.par_chunks(USER_BLOCK * words)
            .zip(out.par_chunks_mut(USER_BLOCK))
            .for_each(block);
    } else {
        rows.chunks(USER_BLOCK * words)
            .zip(out.chunks_mut(USER_BLOCK))
            .for_each(block);
    }
    out
}

fn block_products(rows: &[u64], words: usize, w: &[i64], out: &mut [i64], kernel: Kernel) {
    match kernel {
        Kernel::Naive => {
            for (row, o) in rows.chunks_exact(words).zip(out.iter_mut()) {
                *o = naive_row(row, w);
            }
        }
        Kernel::ByteTable => byte_table_block(rows, words, w, out),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => {
            // SAFETY: AVX-512F and DQ were detected at run time (`products`).
            unsafe { x86::chunked_avx512(rows, words, w, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        _ => byte_table_block(rows, words, w, out),
    }
}

fn naive_row(row: &[u64], w: &[i64]) -> i64 {
    let mut s = 0i64;
    for (k, &word) in row.iter().enumerate() {
        for j in 0..64 {
            if (word >> j) & 1 == 1 {
                s += w[64 * k + j];
            }
        }
    }
    s
}

fn byte_table_block(rows: &[u64], words: usize, w: &[i64], out: &mut [i64]) {
    out.iter_mut().for_each(|o| *o = 0);
    let mut table = vec![0i64; LUT_CHUNK_WORDS * 8 * 256];
    let mut start = 0;
    while start < words {
        let end = (start + LUT_CHUNK_WORDS).min(words);
        let n_bytes = 8 * (end - start);
        for b in 0..n_bytes {
            let wb = &w[64 * start + 8 * b..64 * start + 8 * b + 8];
            let t = &mut table[256 * b..256 * b + 256];
            t[0] = 0;
            for v in 1..256usize {
                t[v] = t[v & (v - 1)] + wb[v.trailing_zeros() as usize];
            }
        }
        for (row, o) in rows.chunks_exact(words).zip(out.iter_mut()) {
            let mut s = [0i64; 4];
            for (k, &word) in row[start..end].iter().enumerate() {
                let bytes = word.to_le_bytes();
                let base = 2048 * k;
                for (j, &byte) in bytes.iter().enumerate() {
                    s[j & 3] += table[base + 256 * j + byte as usize];
                }
            }
            *o += (s[0] + s[1]) + (s[2] + s[3]);
        }
        start = end;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::CHUNK_WORDS;
    use std::arch::x86_64::*;

    /// How many rows ahead of the current pair the AVX-512 kernel prefetches.
    const PREFETCH_AHEAD: usize = 8;

    /// `U` users' sums over one chunk of positions: for each 64-position word, byte `j` of a
    /// user's word (loaded straight into a mask register) is the mask of a masked add of the
    /// eight weights `8j..8j+8`. The users share each weight load.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn chunk_sums<const U: usize>(chunks: [&[u64]; U], wc: &[i64]) -> [i64; U] {
        let mut acc = [[_mm512_setzero_si512(); 8]; U];
        for k in 0..chunks[0].len() {
            let wk = &wc[64 * k..64 * k + 64];
            for j in 0..8 {
                // SAFETY: `wk` holds 64 i64, so `wk[8j..8j+8]` is in bounds (unaligned loads are
                // allowed). The caller enables AVX-512F/DQ.
                let v = unsafe { _mm512_loadu_si512(wk.as_ptr().add(8 * j).cast()) };
                for (a, chunk) in acc.iter_mut().zip(chunks.iter()) {
                    let bytes: *const u8 = (&chunk[k] as *const u64).cast();
                    // SAFETY: `bytes + j` (j < 8) lies inside the word, whose byte j holds bits
                    // 8j..8j+8 (little-endian, the project convention on x86).
                    let mask = unsafe { _load_mask8(bytes.add(j)) };
                    a[j] = _mm512_mask_add_epi64(a[j], mask, a[j], v);
                }
            }
        }
        acc.map(|a| {
            let s01 = _mm512_add_epi64(a[0], a[1]);
            let s23 = _mm512_add_epi64(a[2], a[3]);
            let s45 = _mm512_add_epi64(a[4], a[5]);
            let s67 = _mm512_add_epi64(a[6], a[7]);
            let s = _mm512_add_epi64(_mm512_add_epi64(s01, s23), _mm512_add_epi64(s45, s67));
            _mm512_reduce_add_epi64(s)
        })
    }

    /// AVX-512 products of a block of rows, position chunk by position chunk, two users at a
    /// time.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn chunked_avx512(rows: &[u64], words: usize, w: &[i64], out: &mut [i64]) {
        out.iter_mut().for_each(|o| *o = 0);
        let n = out.len();
        let mut start = 0;
        while start < words {
            let end = (start + CHUNK_WORDS).min(words);
            let wc = &w[64 * start..64 * end];
            let chunk = |u: usize| &rows[u * words + start..u * words + end];
            let mut u = 0;
            while u + 2 <= n {
                // The rows are strided: prefetch this chunk of the rows a few pairs ahead.
                if u + PREFETCH_AHEAD + 2 <= n {
                    for r in [u + PREFETCH_AHEAD, u + PREFETCH_AHEAD + 1] {
                        let row = chunk(r);
                        for line in (0..row.len()).step_by(8) {
                            // SAFETY: `line` is inside `row`.
                            unsafe { _mm_prefetch::<_MM_HINT_T0>(row.as_ptr().add(line).cast()) };
                        }
                    }
                }
                let [a, b] = chunk_sums([chunk(u), chunk(u + 1)], wc);
                out[u] += a;
                out[u + 1] += b;
                u += 2;
            }
            if u < n {
                out[u] += chunk_sums([chunk(u)], wc)[0];
            }
            start = end;
        }
    }
}

/// Scores (as `f64`) of every user for the rounded weights `wt`.
pub fn scores_from_products(products: &[i64], wt: &Weights) -> Vec<f64> {
    products
        .iter()
        .map(|&v| (v + wt.constant) as f64 * wt.unit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_case(n: usize, m: usize, seed: u64) -> (Vec<u64>, Vec<i64>, usize) {
        let mut rng = Rng::from_seed(seed);
        let words = words_for(m);
        let mut rows = vec![0u64; n * words];
        for u in 0..n {
            for k in 0..words {
                rows[u * words + k] = rng.next_u64() & super::super::bits::word_mask(m, k);
            }
        }
        let mut w = vec![0i64; 64 * words];
        for v in w.iter_mut().take(m) {
            *v = (rng.next_u64() >> 20) as i64 - (1i64 << 43);
        }
        (rows, w, words)
    }

    #[test]
    fn every_kernel_gives_identical_products() {
        for &(n, m) in &[
            (1usize, 1usize),
            (3, 63),
            (70, 64),
            (300, 1000),
            (513, 5000),
        ] {
            let (rows, w, words) = random_case(n, m, (n * 31 + m) as u64);
            let reference = products(&rows, words, &w, Kernel::Naive);
            for k in [Kernel::ByteTable, Kernel::Avx512, best_kernel()] {
                assert_eq!(
                    products(&rows, words, &w, k),
                    reference,
                    "{k:?} n={n} m={m}"
                );
            }
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let (rows, w, words) = random_case(3000, 700, 4);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let a = one.install(|| products(&rows, words, &w, best_kernel()));
        let b = four.install(|| products(&rows, words, &w, best_kernel()));
        assert_eq!(a, b);
    }

    #[test]
    fn rounded_sums_fit_and_error_is_small() {
        for &(m, c) in &[
            (1usize, 1usize),
            (1000, 5),
            (1 << 24, 100),
            (1 << 40, 1 << 20),
        ] {
            let t = 1.0 / (300.0 * c as f64);
            let s = weight_shift(m, t);
            assert!(s >= 0, "m={m} c={c}");
            let (wmax, bmax) = max_weights(t);
            let worst = m as f64 * ((wmax + bmax) * libm::ldexp(1.0, s) + 1.0);
            assert!(worst <= libm::ldexp(1.0, 62), "m={m} c={c}");
        }
        // m = 10^4, c = 10: the error is far below a unit of score.
        assert!(score_error_bound(10_000, 1.0 / 3000.0) < 1e-6);
    }

    #[test]
    fn weights_match_the_score_definitions() {
        let biases = [0.3, 0.9, 0.01];
        let word = [0b101u64];
        let t = 0.001;
        for variant in [Variant::Symmetric, Variant::Tardos] {
            let wt = weights(&biases, &word, variant, t);
            for x in 0..8u64 {
                let row = [x];
                let got = scores_from_products(&products(&row, 1, &wt.w, Kernel::Naive), &wt)[0];
                let mut want = 0.0;
                for (i, &p) in biases.iter().enumerate() {
                    let xi = ((x >> i) & 1) as f64;
                    let y = ((word[0] >> i) & 1) as f64;
                    let u = (xi - p) / (p * (1.0 - p)).sqrt();
                    want += match variant {
                        Variant::Symmetric => (2.0 * y - 1.0) * u,
                        Variant::Tardos => y * u,
                    };
                }
                assert!(
                    (got - want).abs() <= score_error_bound(3, t),
                    "{variant:?} x={x}: {got} vs {want}"
                );
            }
        }
    }
}
