//! Vectorised floating-point kernels: `exp` on non-positive arguments, max, sums of
//! exponentials, and log-sum-exp.
//!
//! These serve the explicitly non-exact paths (`numerics="fast"`) and [`log_sum_exp`]. The exact
//! exponential mechanism uses them only for the validating max pass, never for a probability.
//!
//! The kernels are written as plain loops over blocks of eight lanes with independent
//! accumulators so that LLVM vectorises them, and are compiled three times (AVX-512F, AVX2+FMA,
//! baseline) with the best variant picked at run time. Large inputs are split into fixed-size
//! chunks reduced in parallel with rayon; chunk boundaries never depend on the thread count, so
//! results are bit-for-bit reproducible.

use rayon::prelude::*;

/// Chunk length (elements) of the parallel reductions: 128 KiB of `f64`, resident in L2.
pub const CHUNK: usize = 1 << 14;
/// Inputs shorter than this are reduced on the calling thread.
pub const PAR_MIN: usize = 1 << 17;

const LANES: usize = 8;
const LOG2E: f64 = std::f64::consts::LOG2_E;
// ln 2 split into a high part with trailing zero bits and a low correction (Cody–Waite).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
// 1.5 * 2^52: adding it rounds a double of magnitude < 2^51 to an integer.
const SHIFTER: f64 = 6_755_399_441_055_744.0;
/// Below this argument [`exp_nonpos`] returns 0 (e^-708 is still a normal double).
pub const EXP_CUTOFF: f64 = -708.0;

#[inline(always)]
fn fmadd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// `e^x` for `x <= 0` (including `-inf`), with relative error below `4e-16`; returns 0 for
/// `x < -708`. Branch-free (the cut-off is a bit mask) so that loops over it vectorise.
#[inline(always)]
fn exp_nonpos_impl<const FMA: bool>(x: f64) -> f64 {
    let keep = u64::from(x >= EXP_CUTOFF).wrapping_neg(); // all ones, or zero below the cut-off
    let xc = f64::from_bits((x.to_bits() & keep) | (EXP_CUTOFF.to_bits() & !keep));
    let shifted = xc * LOG2E + SHIFTER;
    let k = shifted - SHIFTER;
    let r = fmadd::<FMA>(-k, LN2_LO, fmadd::<FMA>(-k, LN2_HI, xc));
    // Taylor polynomial of e^r on |r| <= ln(2)/2, degree 12 (truncation error < 2e-16).
    let mut p = 1.0 / 479_001_600.0;
    p = fmadd::<FMA>(p, r, 1.0 / 39_916_800.0);
    p = fmadd::<FMA>(p, r, 1.0 / 3_628_800.0);
    p = fmadd::<FMA>(p, r, 1.0 / 362_880.0);
    p = fmadd::<FMA>(p, r, 1.0 / 40_320.0);
    p = fmadd::<FMA>(p, r, 1.0 / 5_040.0);
    p = fmadd::<FMA>(p, r, 1.0 / 720.0);
    p = fmadd::<FMA>(p, r, 1.0 / 120.0);
    p = fmadd::<FMA>(p, r, 1.0 / 24.0);
    p = fmadd::<FMA>(p, r, 1.0 / 6.0);
    p = fmadd::<FMA>(p, r, 0.5);
    p = fmadd::<FMA>(p, r, 1.0);
    p = fmadd::<FMA>(p, r, 1.0);
    let k_int = shifted.to_bits().wrapping_sub(SHIFTER.to_bits());
    let scale = f64::from_bits(k_int.wrapping_add(1023) << 52);
    f64::from_bits((p * scale).to_bits() & keep)
}

/// Scalar `e^x` for `x <= 0` with the same numerics as the vectorised kernels.
#[inline]
pub fn exp_nonpos(x: f64) -> f64 {
    exp_nonpos_impl::<false>(x)
}

/// Max of a block, and whether it holds a NaN or `+inf`.
#[inline(always)]
fn max_check_impl(x: &[f64]) -> (f64, bool) {
    let mut m = [f64::NEG_INFINITY; LANES];
    let mut bad = [false; LANES];
    let mut blocks = x.chunks_exact(LANES);
    for b in &mut blocks {
        for l in 0..LANES {
            let v = b[l];
            m[l] = if v > m[l] { v } else { m[l] };
            bad[l] |= v.is_nan() | (v == f64::INFINITY);
        }
    }
    let mut mm = f64::NEG_INFINITY;
    let mut any_bad = false;
    for l in 0..LANES {
        mm = if m[l] > mm { m[l] } else { mm };
        any_bad |= bad[l];
    }
    for &v in blocks.remainder() {
        mm = if v > mm { v } else { mm };
        any_bad |= v.is_nan() | (v == f64::INFINITY);
    }
    (mm, any_bad)
}

/// `sum_i e^{scale * (x_i - shift)}` for `x_i <= shift` (`-inf` entries contribute 0).
///
/// Blocks of [`BLOCK`] exponentials are written to a stack buffer by a simple loop (which the
/// loop vectoriser handles well) and then added into eight independent accumulators.
#[inline(always)]
fn sum_exp_impl<const FMA: bool>(x: &[f64], shift: f64, scale: f64) -> f64 {
    const BLOCK: usize = 64;
    let mut acc = [0.0f64; LANES];
    let mut buf = [0.0f64; BLOCK];
    let mut blocks = x.chunks_exact(BLOCK);
    for b in &mut blocks {
        for (o, &v) in buf.iter_mut().zip(b) {
            *o = exp_nonpos_impl::<FMA>(scale * (v - shift));
        }
        for lanes in buf.chunks_exact(LANES) {
            for l in 0..LANES {
                acc[l] += lanes[l];
            }
        }
    }
    let mut s = 0.0;
    for &v in blocks.remainder() {
        s += exp_nonpos_impl::<FMA>(scale * (v - shift));
    }
    // Fixed pairwise order: results do not depend on the instruction set chosen.
    let a = (acc[0] + acc[4]) + (acc[2] + acc[6]);
    let b = (acc[1] + acc[5]) + (acc[3] + acc[7]);
    (a + b) + s
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{max_check_impl, sum_exp_impl};

    #[target_feature(enable = "avx512f")]
    pub(super) fn max_check_avx512(x: &[f64]) -> (f64, bool) {
        max_check_impl(x)
    }
    #[target_feature(enable = "avx2")]
    pub(super) fn max_check_avx2(x: &[f64]) -> (f64, bool) {
        max_check_impl(x)
    }
    #[target_feature(enable = "avx512f,fma")]
    pub(super) fn sum_exp_avx512(x: &[f64], shift: f64, scale: f64) -> f64 {
        sum_exp_impl::<true>(x, shift, scale)
    }
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn sum_exp_avx2(x: &[f64], shift: f64, scale: f64) -> f64 {
        sum_exp_impl::<true>(x, shift, scale)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
enum Isa {
    Avx512,
    Avx2Fma,
    Baseline,
}

fn isa() -> Isa {
    use std::sync::OnceLock;
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Isa::Avx2Fma;
            }
        }
        Isa::Baseline
    })
}

/// Maximum of `x` (`-inf` for an empty slice) and whether `x` holds a NaN or `+inf`.
pub fn max_and_check_block(x: &[f64]) -> (f64, bool) {
    match isa() {
        // SAFETY: the feature was detected at run time.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::max_check_avx512(x) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::max_check_avx2(x) },
        _ => max_check_impl(x),
    }
}

/// `sum_i e^{scale * (x_i - shift)}`, requiring `scale * (x_i - shift) <= 0` for every `i`.
/// Terms below `e^-708` are dropped.
pub fn sum_exp_block(x: &[f64], shift: f64, scale: f64) -> f64 {
    match isa() {
        // SAFETY: the features were detected at run time.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::sum_exp_avx512(x, shift, scale) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma => unsafe { x86::sum_exp_avx2(x, shift, scale) },
        _ => sum_exp_impl::<false>(x, shift, scale),
    }
}

/// Maximum of `x` and whether it holds a NaN or `+inf` (parallel over chunks for long inputs).
pub fn max_and_check(x: &[f64]) -> (f64, bool) {
    if x.len() < PAR_MIN {
        max_and_check_block(x)
    } else {
        x.par_chunks(CHUNK).map(max_and_check_block).reduce(
            || (f64::NEG_INFINITY, false),
            |a, b| (if b.0 > a.0 { b.0 } else { a.0 }, a.1 | b.1),
        )
    }
}

/// Summary of one [`CHUNK`] of scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChunkSum {
    /// Largest element of the chunk (`-inf` if all are `-inf`).
    pub max: f64,
    /// `sum e^{scale (x - max)}` over the chunk (0 if `max` is `-inf` or the chunk is bad).
    pub sum: f64,
    /// Whether the chunk holds a NaN or `+inf`.
    pub bad: bool,
}

fn chunk_sum(x: &[f64], scale: f64) -> ChunkSum {
    let (max, bad) = max_and_check_block(x);
    let sum = if bad || max == f64::NEG_INFINITY {
        0.0
    } else {
        sum_exp_block(x, max, scale)
    };
    ChunkSum { max, sum, bad }
}

/// Per-chunk maxima and sums of exponentials, in chunk order: one pass over memory (each chunk
/// is read twice while it is in cache), parallel for long inputs. Requires `scale >= 0`.
pub fn chunk_sums(x: &[f64], scale: f64) -> Vec<ChunkSum> {
    if x.len() < PAR_MIN {
        x.chunks(CHUNK).map(|c| chunk_sum(c, scale)).collect()
    } else {
        x.par_chunks(CHUNK).map(|c| chunk_sum(c, scale)).collect()
    }
}

/// The global maximum `M` of chunk summaries and each chunk's total relative to it,
/// `sum_{i in chunk} e^{scale (x_i - M)}`.
pub fn chunk_weights(chunks: &[ChunkSum], scale: f64) -> (f64, Vec<f64>) {
    let m = chunks
        .iter()
        .fold(f64::NEG_INFINITY, |a, c| if c.max > a { c.max } else { a });
    let w = chunks
        .iter()
        .map(|c| {
            if c.max == f64::NEG_INFINITY {
                0.0
            } else {
                c.sum * exp_nonpos(scale * (c.max - m))
            }
        })
        .collect();
    (m, w)
}

/// `ln(sum_i e^{x_i})`, computed stably: no overflow for any finite input, `-inf` entries
/// contribute nothing, an empty or all-`-inf` input gives `-inf`, any `+inf` gives `+inf` and any
/// NaN gives NaN (the mathematical conventions of `numpy.logaddexp`).
pub fn log_sum_exp(x: &[f64]) -> f64 {
    let chunks = chunk_sums(x, 1.0);
    if chunks.iter().any(|c| c.bad) {
        return if x.iter().any(|v| v.is_nan()) {
            f64::NAN
        } else {
            f64::INFINITY
        };
    }
    let (m, w) = chunk_weights(&chunks, 1.0);
    if m == f64::NEG_INFINITY {
        m
    } else {
        m + w.iter().sum::<f64>().ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_std_to_a_few_ulps() {
        let mut worst: f64 = 0.0;
        let mut x = 0.0;
        while x > -707.0 {
            let got = exp_nonpos(x);
            let want = x.exp();
            worst = worst.max(((got - want) / want).abs());
            x -= 0.013_7;
        }
        assert!(worst < 1e-15, "worst relative error {worst}");
        assert_eq!(exp_nonpos(0.0), 1.0);
        assert_eq!(exp_nonpos(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp_nonpos(-709.0), 0.0);
    }

    #[test]
    fn vector_kernels_agree_with_scalar() {
        let x: Vec<f64> = (0..1003)
            .map(|i| -((i * 7919) % 1000) as f64 / 37.0)
            .collect();
        let (m, bad) = max_and_check_block(&x);
        assert!(!bad);
        assert_eq!(m, 0.0);
        let s = sum_exp_block(&x, 0.0, 1.3);
        let want: f64 = x.iter().map(|v| (1.3 * v).exp()).sum();
        assert!(((s - want) / want).abs() < 1e-13);
        assert!(max_and_check_block(&[1.0, f64::NAN]).1);
        assert!(
            max_and_check_block(
                &[1.0; 9]
                    .iter()
                    .copied()
                    .chain([f64::INFINITY])
                    .collect::<Vec<_>>()
            )
            .1
        );
    }

    #[test]
    fn log_sum_exp_conventions() {
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY; 3]), f64::NEG_INFINITY);
        assert!(log_sum_exp(&[1.0, f64::NAN]).is_nan());
        assert_eq!(log_sum_exp(&[1.0, f64::INFINITY]), f64::INFINITY);
        let v = log_sum_exp(&[1e300, 1e300]);
        assert!((v - 1e300) / 1e300 < 1e-15);
        let v = log_sum_exp(&[0.0, 0.0]);
        assert!((v - std::f64::consts::LN_2).abs() < 1e-15);
        let v = log_sum_exp(&[-1e300, 5.0, f64::NEG_INFINITY]);
        assert!((v - 5.0).abs() < 1e-15);
    }

    #[test]
    fn parallel_and_sequential_reductions_agree() {
        let x: Vec<f64> = (0..(PAR_MIN + 12_345))
            .map(|i| ((i * 31) % 977) as f64 * 0.01)
            .collect();
        let par = chunk_sums(&x, 0.5);
        let seq: Vec<ChunkSum> = x.chunks(CHUNK).map(|c| chunk_sum(c, 0.5)).collect();
        assert_eq!(par.len(), seq.len());
        for (a, b) in par.iter().zip(&seq) {
            assert_eq!(a.max.to_bits(), b.max.to_bits());
            assert_eq!(a.sum.to_bits(), b.sum.to_bits());
        }
        assert_eq!(max_and_check(&x), max_and_check_block(&x));
    }
}
