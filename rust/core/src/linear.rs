//! Linear predictors on labelled data: the data layout shared by every linear kernel, and the
//! exact number of mistakes of halfspaces `1[w . x + b >= 0]`, fused and parallel over
//! candidates.
//!
//! Both private ERM over halfspaces ([`crate::erm::risk::linear_risks`] with the 0-1 loss) and
//! the scoring of halfspace representatives ([`crate::dichotomy::represent`]) count mistakes
//! here, so this module sits below both. [`LinearData`] holds the records column by column (so
//! the inner loops run over contiguous records and vectorise) and grouped by label;
//! [`zero_one_mistakes`] scores a set of candidates, each rayon task a run of candidates against
//! the whole dataset. The sign of `w . x + b` is decided exactly: the rounded sum is trusted only
//! when it exceeds the forward error bound of the summation (the static filter of
//! [`affine_sign`]), which fails on a vanishing fraction of records, and those are decided
//! exactly with big integers. So the mistakes counted are those of `Halfspace` prediction,
//! exactly. Up to dimension 4 a fused kernel scores four candidates per pass over the records
//! (explicit SIMD where the CPU has it); above, records are processed in blocks of 256.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::predicates::affine_sign;

/// Records per block of the linear kernel.
pub(crate) const BLOCK: usize = 256;
/// Candidates per rayon task.
pub(crate) const TASK: usize = 16;
/// Unit roundoff and smallest subnormal (the constants of `affine_sign`'s filter).
const U: f64 = f64::EPSILON / 2.0;
const ETA: f64 = f64::from_bits(1);

/// A dataset of `n` records of dimension `d` with labels, laid out for the kernel.
#[derive(Clone, Debug)]
pub struct LinearData {
    n: usize,
    d: usize,
    /// Row-major records (for the exact fallback).
    rows: Vec<f64>,
    /// Column-major records: feature `k` of record `i` at `k * n + i`.
    pub(crate) cols: Vec<f64>,
    /// Labels.
    pub(crate) y: Vec<f64>,
    /// Labels as bytes (0-1 loss).
    y01: Vec<u8>,
    /// Column-major records with the label-0 records first (fused 0-1 kernel).
    by_label: Vec<f64>,
    /// Number of label-0 records.
    n0: usize,
    /// Largest `|x_k|` of each feature.
    xmax: Vec<f64>,
    /// `by_label` rounded to `f32` (the single-precision filter of the fused 0-1 kernel), empty
    /// when a coordinate exceeds [`LIMIT32`] or `n` is too large for its lane counters.
    /// Read by the x86-64 kernels only.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    by_label32: Vec<f32>,
}

impl LinearData {
    /// `x` holds `n` rows of `d` finite values (row-major), `y` the `n` finite labels.
    ///
    /// Errors: `d == 0`; a length mismatch; a non-finite value.
    pub fn new(x: &[f64], y: &[f64], d: usize) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("X", "must have at least one feature"));
        }
        if !x.len().is_multiple_of(d) || x.len() / d != y.len() {
            return Err(Error::invalid(
                "y",
                format!(
                    "must have one label per row of X ({} values of dimension {d}, {} labels)",
                    x.len(),
                    y.len()
                ),
            ));
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid(
                "X",
                "must hold finite numbers (no NaN or infinity)",
            ));
        }
        if y.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid(
                "y",
                "must hold finite numbers (no NaN or infinity)",
            ));
        }
        let n = y.len();
        let mut cols = vec![0.0; n * d];
        for i in 0..n {
            for k in 0..d {
                cols[k * n + i] = x[i * d + k];
            }
        }
        let y01: Vec<u8> = y.iter().map(|&v| u8::from(v > 0.5)).collect();
        let order: Vec<usize> = (0..n)
            .filter(|&i| y01[i] == 0)
            .chain((0..n).filter(|&i| y01[i] == 1))
            .collect();
        let n0 = y01.iter().filter(|&&v| v == 0).count();
        let mut by_label = vec![0.0; n * d];
        for (pos, &i) in order.iter().enumerate() {
            for k in 0..d {
                by_label[k * n + pos] = x[i * d + k];
            }
        }
        let xmax: Vec<f64> = (0..d)
            .map(|k| (0..n).fold(0.0f64, |m, i| m.max(x[i * d + k].abs())))
            .collect();
        let by_label32 = if n < (1 << 31) && xmax.iter().all(|&m| m <= LIMIT32) {
            by_label.iter().map(|&v| v as f32).collect()
        } else {
            Vec::new()
        };
        Ok(LinearData {
            by_label32,
            n,
            d,
            rows: x.to_vec(),
            cols,
            y: y.to_vec(),
            y01,
            by_label,
            n0,
            xmax,
        })
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.n
    }

    /// `true` when there is no record.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Dimension of the records.
    pub fn dim(&self) -> usize {
        self.d
    }
}

/// Checks a set of linear candidates: `coef` holds one row of `d` weights per entry of
/// `intercept`, and every parameter is finite.
pub(crate) fn check_candidates(coef: &[f64], intercept: &[f64], d: usize) -> Result<()> {
    if coef.len() != intercept.len() * d {
        return Err(Error::invalid(
            "coef",
            format!(
                "must have {d} weights per candidate ({} weights, {} intercepts)",
                coef.len(),
                intercept.len()
            ),
        ));
    }
    if coef.iter().chain(intercept).any(|v| !v.is_finite()) {
        return Err(Error::invalid(
            "coef",
            "candidate parameters must be finite numbers",
        ));
    }
    Ok(())
}

/// The exact number of mistakes on `data` of every halfspace `1[w_j . x + b_j >= 0]`
/// (`coef` holds `N` rows of `data.dim()` weights, row-major, and `intercept` the `N` offsets),
/// each sign decided exactly. Parallel over candidates.
///
/// Errors: a length mismatch or non-finite candidate parameters.
pub fn zero_one_mistakes(coef: &[f64], intercept: &[f64], data: &LinearData) -> Result<Vec<u64>> {
    check_candidates(coef, intercept, data.d)?;
    Ok(zero_one_counts(coef, intercept, data))
}

/// [`zero_one_mistakes`] of candidates already checked by [`check_candidates`].
pub(crate) fn zero_one_counts(coef: &[f64], intercept: &[f64], data: &LinearData) -> Vec<u64> {
    let d = data.d;
    let mut out = vec![0u64; intercept.len()];
    let fused = d <= MAX_FUSED_DIM;
    out.par_chunks_mut(TASK)
        .enumerate()
        .for_each(|(ti, chunk)| {
            let first = ti * TASK;
            if fused {
                let mut o = 0;
                while o < chunk.len() {
                    let take = GROUP.min(chunk.len() - o);
                    let j = first + o;
                    let counts =
                        zero_one_group(&coef[j * d..(j + take) * d], &intercept[j..j + take], data);
                    chunk[o..o + take].copy_from_slice(&counts);
                    o += take;
                }
            } else {
                for (o, slot) in chunk.iter_mut().enumerate() {
                    let j = first + o;
                    *slot = blocked_mistakes(&coef[j * d..(j + 1) * d], intercept[j], data);
                }
            }
        });
    out
}

/// Candidates scored together in one pass over the records (fused 0-1 kernel).
const GROUP: usize = 4;
/// Largest dimension with a fused 0-1 kernel (larger ones use the blocked kernel).
const MAX_FUSED_DIM: usize = 4;

/// Exact 0-1 mistakes of up to [`GROUP`] candidates (`w` holds their weights row by row), in
/// one fused pass over the records: the rounded sign of `w . x + b` where a summation error
/// bound certifies it, the exact sign elsewhere. Dispatches on the dimension and the CPU.
///
/// The records are held grouped by label, so that the mistakes are
/// `#{y = 0, s >= 0} + #{y = 1} - #{y = 1, s >= 0}`: the inner loop only computes `s = b + sum_k
/// w_k x_k` (with fused multiply-adds where the CPU has them), counts negative signs and keeps
/// the smallest `|s|`. The certificate is per candidate: with `A = |b| + sum_k |w_k| max_i
/// |x_ik|` (inflated for its own rounding), every record's rounded sum is within `(2d + 4) u A +
/// (d + 1) eta` of the exact one (the filter of [`affine_sign`], whose magnitude sum is at most
/// `A`; a fused multiply-add rounds less), so every sign is certain when the smallest `|s|`
/// exceeds twice that. Otherwise (and when `A` is not far below the overflow threshold) the
/// candidate is recounted record by record with the exact predicate.
///
/// On x86-64 CPUs with AVX-512 or AVX2 and FMA a single-precision pass ([`zero_one_fixed32`],
/// twice the records per vector) runs first, and only the candidates it cannot certify go
/// through the double-precision pass.
fn zero_one_group(w: &[f64], b: &[f64], data: &LinearData) -> Vec<u64> {
    let fma = has_fma();
    match data.d {
        1 => zero_one_dim::<1>(w, b, data, fma),
        2 => zero_one_dim::<2>(w, b, data, fma),
        3 => zero_one_dim::<3>(w, b, data, fma),
        _ => zero_one_dim::<4>(w, b, data, fma),
    }
}

fn zero_one_dim<const D: usize>(w: &[f64], b: &[f64], data: &LinearData, fma: bool) -> Vec<u64> {
    #[cfg(target_arch = "x86_64")]
    if fma && !data.by_label32.is_empty() {
        return zero_one_fixed32::<D>(w, b, data);
    }
    zero_one_fixed::<D>(w, b, data, fma)
}

/// Largest magnitude of a coordinate, weight, intercept or magnitude sum `A` on the
/// single-precision path (far below `f32::MAX`, so nothing overflows there).
const LIMIT32: f64 = 1e30;
/// Unit roundoff and smallest positive subnormal of `f32` (bounds of the x86-64 kernels).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const U32: f64 = (f32::EPSILON / 2.0) as f64;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const ETA32: f64 = 1.401_298_464_324_817e-45;

/// The fused 0-1 kernel in single precision, exact all the same: the data, weights and
/// intercepts are rounded to `f32` and `s = b + sum_k w_k x_k` is accumulated with `f32` fused
/// multiply-adds. Rounding to `f32` moves each value `v` by at most `u |v| + eta` (`u = 2^-24`,
/// `eta = 2^-149`, no overflow below [`LIMIT32`]), so the exact sum over the rounded inputs is
/// within `3 u A + 2 eta (sum_k |w_k| + sum_k max_i |x_ik| + d + 1)` of the exact sum over the
/// inputs (`A = |b| + sum_k |w_k| max_i |x_ik|`, first-order terms with room for the
/// second-order ones), and each of the `d` fused multiply-adds adds at most
/// `u (1 + 4u)^d A' + eta` (`A' <= (1 + 4u) A + ...`, the rounded inputs' magnitude sum). The
/// bound used, `T = 2 ((d + 4) u A + 4 eta (sum_k |w_k| + sum_k max_i |x_ik| + d + 1))`,
/// exceeds their total, so a candidate whose smallest `|s|` exceeds `T` has every sign (and no
/// zero) decided exactly by the single-precision pass. The others (a few per cent of random
/// candidates on 10^4 records; all with records on the boundary) are recounted by the
/// double-precision kernel.
#[cfg(target_arch = "x86_64")]
fn zero_one_fixed32<const D: usize>(w: &[f64], b: &[f64], data: &LinearData) -> Vec<u64> {
    let take = b.len();
    let mut wg = [[0.0f32; D]; GROUP];
    let mut bg = [0.0f32; GROUP];
    let mut tg = [f64::NAN; GROUP];
    let xsum: f64 = data.xmax.iter().sum();
    for c in 0..take {
        let wc = &w[c * D..(c + 1) * D];
        let a = wc
            .iter()
            .zip(&data.xmax)
            .fold(b[c].abs(), |acc, (wk, xk)| acc + wk.abs() * xk);
        let wsum: f64 = wc.iter().map(|v| v.abs()).sum();
        let fits = a <= LIMIT32 && wsum <= LIMIT32 && b[c].abs() <= LIMIT32;
        if fits {
            for (slot, &v) in wg[c].iter_mut().zip(wc) {
                *slot = v as f32;
            }
            bg[c] = b[c] as f32;
            let t =
                2.0 * ((D as f64 + 4.0) * U32 * a + 4.0 * ETA32 * (wsum + xsum + D as f64 + 1.0));
            tg[c] = t * (1.0 + 16.0 * U);
        }
    }
    let (n, n0) = (data.n, data.n0);
    let cols: [&[f32]; D] = std::array::from_fn(|k| &data.by_label32[k * n..(k + 1) * n]);
    let lo: [&[f32]; D] = std::array::from_fn(|k| &cols[k][..n0]);
    let hi: [&[f32]; D] = std::array::from_fn(|k| &cols[k][n0..]);
    let avx512 =
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq");
    // SAFETY: the caller checked fma with avx2 or avx512 (`has_fma`); avx512 is checked here.
    let ((neg0, min0), (neg1, min1)) = unsafe {
        if avx512 {
            (
                x86::fused32_avx512::<D>(&wg, &bg, &lo),
                x86::fused32_avx512::<D>(&wg, &bg, &hi),
            )
        } else {
            (
                x86::fused32_avx2::<D>(&wg, &bg, &lo),
                x86::fused32_avx2::<D>(&wg, &bg, &hi),
            )
        }
    };
    let mut out = vec![0u64; take];
    let mut redo: Vec<usize> = Vec::new();
    for c in 0..take {
        // `tg[c]` is NaN (never exceeded) for candidates outside the single-precision range.
        if f64::from(min0[c].min(min1[c])) > tg[c] {
            let ge0 = n0 as u64 - neg0[c];
            let ge1 = (n - n0) as u64 - neg1[c];
            out[c] = ge0 + (n - n0) as u64 - ge1;
        } else {
            redo.push(c);
        }
    }
    if !redo.is_empty() {
        let w2: Vec<f64> = redo
            .iter()
            .flat_map(|&c| w[c * D..(c + 1) * D].iter().copied())
            .collect();
        let b2: Vec<f64> = redo.iter().map(|&c| b[c]).collect();
        for (&c, m) in redo.iter().zip(zero_one_fixed::<D>(&w2, &b2, data, true)) {
            out[c] = m;
        }
    }
    out
}

/// Magnitude bound above which the fused kernel is not used (no overflow below it).
const SAFE_MAGNITUDE: f64 = 1e300;

fn zero_one_fixed<const D: usize>(w: &[f64], b: &[f64], data: &LinearData, fma: bool) -> Vec<u64> {
    let take = b.len();
    let mut wg = [[0.0f64; D]; GROUP];
    let mut bg = [0.0f64; GROUP];
    let mut tg = [0.0f64; GROUP];
    let c1 = (2.0 * D as f64 + 4.0) * U;
    let c2 = (D as f64 + 1.0) * ETA;
    for c in 0..take {
        wg[c].copy_from_slice(&w[c * D..(c + 1) * D]);
        bg[c] = b[c];
        let a = wg[c]
            .iter()
            .zip(&data.xmax)
            .fold(b[c].abs(), |acc, (wk, xk)| acc + wk.abs() * xk);
        tg[c] = 2.0 * (c1 * a * (1.0 + 16.0 * U) + c2);
    }
    // Padding candidates (w = 0, b = 0) are scored and discarded.
    let (n, n0) = (data.n, data.n0);
    let (neg0, min0) = fused_counts::<D>(&wg, &bg, data, 0, n0, fma);
    let (neg1, min1) = fused_counts::<D>(&wg, &bg, data, n0, n, fma);
    (0..take)
        .map(|c| {
            let ge0 = n0 as u64 - neg0[c];
            let ge1 = (n - n0) as u64 - neg1[c];
            let mistakes = ge0 + (n - n0) as u64 - ge1;
            let safe = tg[c] < SAFE_MAGNITUDE * U;
            if safe && min0[c].min(min1[c]) > tg[c] {
                mistakes
            } else {
                recount(&wg[c], bg[c], data, mistakes, fma)
            }
        })
        .collect()
}

/// Whether the fused kernel runs with fused multiply-adds (it does where the CPU has them).
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma")
            && (std::is_x86_feature_detected!("avx2")
                || (std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512dq")))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `s = b + sum_k w_k x_k` as the fused kernel computes it.
#[inline(always)]
fn rounded_sum<const FMA: bool>(w: &[f64], x: impl Iterator<Item = f64>, b: f64) -> f64 {
    let mut s = b;
    for (&wk, xk) in w.iter().zip(x) {
        s = if FMA { wk.mul_add(xk, s) } else { s + wk * xk };
    }
    s
}

/// Per candidate, the number of records `start..end` (in label order) whose rounded sum has its
/// sign bit set, and the smallest `|s|`.
fn fused_counts<const D: usize>(
    w: &[[f64; D]; GROUP],
    b: &[f64; GROUP],
    data: &LinearData,
    start: usize,
    end: usize,
    fma: bool,
) -> ([u64; GROUP], [f64; GROUP]) {
    let n = data.n;
    let cols: [&[f64]; D] = std::array::from_fn(|k| &data.by_label[k * n + start..k * n + end]);
    #[cfg(target_arch = "x86_64")]
    if fma {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq") {
            // SAFETY: the features were detected at run time.
            return unsafe { x86::fused_avx512::<D>(w, b, &cols) };
        }
        // SAFETY: `has_fma` checked avx2 and fma (or avx512, taken above).
        return unsafe { x86::fused_avx2::<D>(w, b, &cols) };
    }
    let _ = fma;
    fused_impl::<D, false>(w, b, &cols)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::GROUP;

    /// One fused pass over records for a group of candidates, in one precision and instruction
    /// set: per candidate, the number of records whose rounded `s = b + sum_k w_k x_k` (fused
    /// multiply-adds) has its sign bit set, and the smallest `|s|`. The group's candidates
    /// share each load of the records; the records past the last full vector are done in scalar
    /// code with the same fused multiply-adds.
    macro_rules! fused_pass {
        (
            $(#[$doc:meta])*
            $name:ident, $features:literal, $f:ty, $u:ty, $lanes:literal, $vf:ty,
            set1: $set1:ident, load: $load:ident, fmadd: $fmadd:ident, zero: $zero:ident,
            add: $add:ident, sign: $sign:expr, absmin: $absmin:expr,
            store_i: $store_i:ident, store_f: $store_f:ident $(,)?
        ) => {
            $(#[$doc])*
            #[target_feature(enable = $features)]
            pub(super) fn $name<const D: usize>(
                w: &[[$f; D]; GROUP],
                b: &[$f; GROUP],
                cols: &[&[$f]; D],
            ) -> ([u64; GROUP], [$f; GROUP]) {
                let len = cols.first().map_or(0, |c| c.len());
                let steps = len / $lanes;
                let wv: [[$vf; D]; GROUP] =
                    std::array::from_fn(|c| std::array::from_fn(|k| $set1(w[c][k])));
                let bv: [$vf; GROUP] = std::array::from_fn(|c| $set1(b[c]));
                let mut neg = [$zero(); GROUP];
                let mut small = [$set1(<$f>::INFINITY); GROUP];
                for step in 0..steps {
                    // SAFETY: `lanes (step + 1) <= len`, the length of every column.
                    let xs: [$vf; D] = std::array::from_fn(|k| unsafe {
                        $load(cols[k].as_ptr().add($lanes * step))
                    });
                    for c in 0..GROUP {
                        let mut sv = bv[c];
                        for k in 0..D {
                            sv = $fmadd(wv[c][k], xs[k], sv);
                        }
                        neg[c] = $add(neg[c], $sign(sv));
                        small[c] = $absmin(small[c], sv);
                    }
                }
                let mut neg_out = [0u64; GROUP];
                let mut small_out = [<$f>::INFINITY; GROUP];
                for c in 0..GROUP {
                    let mut nb = [<$u>::default(); $lanes];
                    let mut sb = [<$f>::INFINITY; $lanes];
                    // SAFETY: buffers of one vector each, for the unaligned stores. Each lane
                    // counts at most `len / lanes` records, which fits its integer type.
                    unsafe {
                        $store_i(nb.as_mut_ptr().cast(), neg[c]);
                        $store_f(sb.as_mut_ptr(), small[c]);
                    }
                    neg_out[c] = nb.iter().map(|&v| u64::from(v)).sum();
                    small_out[c] = sb.iter().fold(<$f>::INFINITY, |m, &v| m.min(v));
                }
                for i in steps * $lanes..len {
                    for c in 0..GROUP {
                        let mut s = b[c];
                        for (wk, col) in w[c].iter().zip(cols) {
                            s = wk.mul_add(col[i], s);
                        }
                        neg_out[c] += u64::from(s.is_sign_negative());
                        small_out[c] = small_out[c].min(s.abs());
                    }
                }
                (neg_out, small_out)
            }
        };
    }

    fused_pass! {
        /// AVX-512, double precision: eight records per vector.
        fused_avx512, "avx512f,avx512dq,fma", f64, u64, 8, __m512d,
        set1: _mm512_set1_pd, load: _mm512_loadu_pd, fmadd: _mm512_fmadd_pd,
        zero: _mm512_setzero_si512, add: _mm512_add_epi64,
        sign: |v| _mm512_srli_epi64::<63>(_mm512_castpd_si512(v)),
        // vrangepd, imm 0b1010: the smaller magnitude, sign cleared.
        absmin: |small, v| _mm512_range_pd::<0b1010>(small, v),
        store_i: _mm512_storeu_si512, store_f: _mm512_storeu_pd,
    }

    fused_pass! {
        /// AVX2, double precision: four records per vector.
        fused_avx2, "avx2,fma", f64, u64, 4, __m256d,
        set1: _mm256_set1_pd, load: _mm256_loadu_pd, fmadd: _mm256_fmadd_pd,
        zero: _mm256_setzero_si256, add: _mm256_add_epi64,
        sign: |v| _mm256_srli_epi64::<63>(_mm256_castpd_si256(v)),
        absmin: |small, v| _mm256_min_pd(
            _mm256_and_pd(v, _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX))),
            small,
        ),
        store_i: _mm256_storeu_si256, store_f: _mm256_storeu_pd,
    }

    fused_pass! {
        /// AVX-512, single precision: sixteen records per vector.
        fused32_avx512, "avx512f,avx512dq,fma", f32, u32, 16, __m512,
        set1: _mm512_set1_ps, load: _mm512_loadu_ps, fmadd: _mm512_fmadd_ps,
        zero: _mm512_setzero_si512, add: _mm512_add_epi32,
        sign: |v| _mm512_srli_epi32::<31>(_mm512_castps_si512(v)),
        // vrangeps, imm 0b1010: the smaller magnitude, sign cleared.
        absmin: |small, v| _mm512_range_ps::<0b1010>(small, v),
        store_i: _mm512_storeu_si512, store_f: _mm512_storeu_ps,
    }

    fused_pass! {
        /// AVX2, single precision: eight records per vector.
        fused32_avx2, "avx2,fma", f32, u32, 8, __m256,
        set1: _mm256_set1_ps, load: _mm256_loadu_ps, fmadd: _mm256_fmadd_ps,
        zero: _mm256_setzero_si256, add: _mm256_add_epi32,
        sign: |v| _mm256_srli_epi32::<31>(_mm256_castps_si256(v)),
        absmin: |small, v| _mm256_min_ps(
            _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX))),
            small,
        ),
        store_i: _mm256_storeu_si256, store_f: _mm256_storeu_ps,
    }
}

/// The fused loop without SIMD intrinsics or fused multiply-adds (CPUs without AVX2 and FMA).
fn fused_impl<const D: usize, const FMA: bool>(
    w: &[[f64; D]; GROUP],
    b: &[f64; GROUP],
    cols: &[&[f64]; D],
) -> ([u64; GROUP], [f64; GROUP]) {
    let len = cols.first().map_or(0, |c| c.len());
    let mut neg = [0u64; GROUP];
    let mut small = [f64::INFINITY; GROUP];
    for i in 0..len {
        for c in 0..GROUP {
            let s = rounded_sum::<FMA>(&w[c], cols.iter().map(|col| col[i]), b[c]);
            neg[c] += s.to_bits() >> 63;
            small[c] = small[c].min(s.abs());
        }
    }
    (neg, small)
}

/// Corrects a candidate's rounded-sign count (sign bit clear = predicted 1) where the sign is
/// not certified, with the exact predicate.
fn recount(w: &[f64], b: f64, data: &LinearData, mut mistakes: u64, fma: bool) -> u64 {
    let (n, d) = (data.n, data.d);
    let c1 = (2.0 * d as f64 + 4.0) * U;
    let c2 = (d as f64 + 1.0) * ETA;
    for i in 0..n {
        let x = (0..d).map(|k| data.cols[k * n + i]);
        let s = if fma {
            rounded_sum::<true>(w, x, b)
        } else {
            rounded_sum::<false>(w, x, b)
        };
        let row = &data.rows[i * d..(i + 1) * d];
        let a = w
            .iter()
            .zip(row)
            .fold(b.abs(), |acc, (wk, xk)| acc + (wk * xk).abs());
        if !certain(s, c1 * a + c2) {
            let rounded = u8::from(!s.is_sign_negative());
            let exact = u8::from(affine_sign(w, row, b) >= 0);
            if rounded != exact {
                if rounded != data.y01[i] {
                    mistakes -= 1;
                } else {
                    mistakes += 1;
                }
            }
        }
    }
    mistakes
}

/// Whether a rounded sum's sign is certified by the error bound `bound` (`|s| > bound`; false
/// when either is NaN).
#[inline(always)]
fn certain(s: f64, bound: f64) -> bool {
    s.abs().partial_cmp(&bound) == Some(std::cmp::Ordering::Greater)
}

/// One candidate's exact mistakes by the blocked kernel (dimensions above [`MAX_FUSED_DIM`]):
/// per block of records, the rounded sums and their magnitude sums, then an exact recount of the
/// records whose rounded sign the error bound does not certify.
fn blocked_mistakes(w: &[f64], b: f64, data: &LinearData) -> u64 {
    let n = data.n;
    let d = data.d;
    let mut s = [0.0f64; BLOCK];
    let mut a = [0.0f64; BLOCK];
    let mut mistakes: u64 = 0;
    let c1 = (2.0 * d as f64 + 4.0) * U;
    let c2 = (d as f64 + 1.0) * ETA;
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let s = &mut s[..len];
        s.fill(b);
        let a = &mut a[..len];
        a.fill(b.abs());
        for (k, &wk) in w.iter().enumerate() {
            let col = &data.cols[k * n + start..k * n + start + len];
            for ((si, ai), &xi) in s.iter_mut().zip(a.iter_mut()).zip(col) {
                let p = wk * xi;
                *si += p;
                *ai += p.abs();
            }
        }
        let ys = &data.y01[start..start + len];
        let mut m = 0u64;
        let mut uncertain = 0u64;
        for ((&si, &ai), &yi) in s.iter().zip(a.iter()).zip(ys) {
            m += u64::from(u8::from(si >= 0.0) != yi);
            uncertain += u64::from(!certain(si, c1 * ai + c2));
        }
        if uncertain > 0 {
            // Recount the records whose rounded sign is not certified, exactly.
            for (o, (&si, &ai)) in s.iter().zip(a.iter()).enumerate() {
                if !certain(si, c1 * ai + c2) {
                    let i = start + o;
                    let rounded = u8::from(si >= 0.0);
                    let exact = u8::from(affine_sign(w, &data.rows[i * d..(i + 1) * d], b) >= 0);
                    if rounded != exact {
                        let yi = data.y01[i];
                        if rounded != yi {
                            m -= 1;
                        } else {
                            m += 1;
                        }
                    }
                }
            }
        }
        mistakes += m;
        start += len;
    }
    mistakes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Mistakes of every candidate, one exact predicate per record.
    fn naive_mistakes(coef: &[f64], b: &[f64], x: &[f64], y: &[f64], d: usize) -> Vec<u64> {
        let n = y.len();
        (0..b.len())
            .map(|j| {
                let w = &coef[j * d..(j + 1) * d];
                (0..n)
                    .filter(|&i| {
                        let pred = affine_sign(w, &x[i * d..(i + 1) * d], b[j]) >= 0;
                        pred != (y[i] > 0.5)
                    })
                    .count() as u64
            })
            .collect()
    }

    fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * rng.uniform_f64()
    }

    #[test]
    fn every_kernel_matches_naive_counts() {
        // Dimensions 1..4 (fused kernel) and 5, 7 (blocked kernel), with ragged groups and tasks.
        let mut rng = Rng::from_seed(5);
        for &(n, d, m) in &[
            (1usize, 1usize, 3usize),
            (300, 2, 37),
            (700, 4, 20),
            (257, 5, 9),
            (513, 7, 18),
        ] {
            let x: Vec<f64> = (0..n * d).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
            let y: Vec<f64> = (0..n).map(|_| f64::from(u8::from(rng.bit()))).collect();
            let coef: Vec<f64> = (0..m * d).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
            let b: Vec<f64> = (0..m).map(|_| uniform(&mut rng, -0.5, 0.5)).collect();
            let data = LinearData::new(&x, &y, d).unwrap();
            assert_eq!(
                zero_one_mistakes(&coef, &b, &data).unwrap(),
                naive_mistakes(&coef, &b, &x, &y, d),
                "n={n} d={d}"
            );
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_simd_pass_agrees_with_scalar_fused_multiply_adds() {
        // The passes round exactly like the scalar loop (one fused multiply-add per feature, in
        // the same order), so counts and smallest magnitudes agree bit for bit, tails included.
        if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")) {
            return;
        }
        let avx512 =
            std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq");
        let mut rng = Rng::from_seed(17);
        for len in [0usize, 1, 3, 4, 7, 8, 15, 16, 17, 33, 1000] {
            let c: Vec<Vec<f64>> = (0..2)
                .map(|_| (0..len).map(|_| uniform(&mut rng, -1.0, 1.0)).collect())
                .collect();
            let w: [[f64; 2]; GROUP] =
                std::array::from_fn(|_| std::array::from_fn(|_| uniform(&mut rng, -2.0, 2.0)));
            let b: [f64; GROUP] = std::array::from_fn(|_| uniform(&mut rng, -0.5, 0.5));
            let cols: [&[f64]; 2] = [&c[0], &c[1]];
            let want = fused_impl::<2, true>(&w, &b, &cols);
            // SAFETY: avx2 and fma (and avx512 where used) were detected above.
            assert_eq!(
                unsafe { x86::fused_avx2::<2>(&w, &b, &cols) },
                want,
                "len {len}"
            );
            if avx512 {
                assert_eq!(unsafe { x86::fused_avx512::<2>(&w, &b, &cols) }, want);
            }
            let c32: Vec<Vec<f32>> = c
                .iter()
                .map(|v| v.iter().map(|&x| x as f32).collect())
                .collect();
            let w32: [[f32; 2]; GROUP] = std::array::from_fn(|g| w[g].map(|v| v as f32));
            let b32: [f32; GROUP] = b.map(|v| v as f32);
            let cols32: [&[f32]; 2] = [&c32[0], &c32[1]];
            let mut neg = [0u64; GROUP];
            let mut small = [f32::INFINITY; GROUP];
            for (&x0, &x1) in c32[0].iter().zip(&c32[1]) {
                for g in 0..GROUP {
                    let s = w32[g][1].mul_add(x1, w32[g][0].mul_add(x0, b32[g]));
                    neg[g] += u64::from(s.is_sign_negative());
                    small[g] = small[g].min(s.abs());
                }
            }
            // SAFETY: as above.
            assert_eq!(
                unsafe { x86::fused32_avx2::<2>(&w32, &b32, &cols32) },
                (neg, small)
            );
            if avx512 {
                assert_eq!(
                    unsafe { x86::fused32_avx512::<2>(&w32, &b32, &cols32) },
                    (neg, small)
                );
            }
        }
    }

    #[test]
    fn single_precision_filter_is_exact_at_every_scale() {
        // Records a few f32 ulps off the candidates' boundaries (f32 rounds them onto it or
        // across it), at scales from f32-subnormal to beyond the f32 range, d = 1..4.
        let mut rng = Rng::from_seed(16);
        for (scale, d) in [
            (1.0, 2),
            (1e-39, 2),
            (1e-20, 3),
            (1e25, 1),
            (1e35, 2),
            (1.0, 4),
        ] {
            let n = 300;
            let m = 9;
            let coef: Vec<f64> = (0..m * d).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
            let b: Vec<f64> = (0..m)
                .map(|_| uniform(&mut rng, -0.5, 0.5) * scale)
                .collect();
            let mut x = Vec::with_capacity(n * d);
            for i in 0..n {
                let mut row: Vec<f64> = (0..d)
                    .map(|_| uniform(&mut rng, -1.0, 1.0) * scale)
                    .collect();
                if i % 2 == 0 {
                    // Put the record near candidate (i / 2) % m's boundary along feature 0.
                    let j = (i / 2) % m;
                    let w = &coef[j * d..(j + 1) * d];
                    let rest: f64 = (1..d).map(|k| w[k] * row[k]).sum();
                    let on = -(b[j] + rest) / w[0];
                    let off = (uniform(&mut rng, -4.0, 4.0)).round() * 6e-8 * on.abs();
                    row[0] = on + off;
                }
                x.extend_from_slice(&row);
            }
            let y: Vec<f64> = (0..n).map(|_| f64::from(u8::from(rng.bit()))).collect();
            let data = LinearData::new(&x, &y, d).unwrap();
            let want = naive_mistakes(&coef, &b, &x, &y, d);
            assert_eq!(
                zero_one_mistakes(&coef, &b, &data).unwrap(),
                want,
                "scale {scale:e}, d = {d}"
            );
        }
        // A record one f64 step beyond the boundary, which f32 rounds onto it.
        let x = [1.0 + 2f64.powi(-30), 1.0, 1.0 - 2f64.powi(-30), 1.0];
        let data = LinearData::new(&x, &[1.0, 1.0], 2).unwrap();
        let got = zero_one_mistakes(&[1.0, -1.0], &[-2f64.powi(-31)], &data);
        assert_eq!(got.unwrap(), vec![1]);
    }

    #[test]
    fn zero_one_is_exact_on_the_boundary() {
        // Points exactly on, and one ulp off, the line x0 + x1 = 1 (w = (1, 1), b = -1): the
        // rounded sum cannot decide them, the exact fallback must.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for k in 1..200 {
            let a = k as f64 / 200.0 + 1e-3;
            let on = 1.0 - a;
            for (v, label) in [(on, 1.0), (on.next_down(), 0.0), (on.next_up(), 1.0)] {
                x.extend_from_slice(&[a, v]);
                y.push(label);
            }
        }
        let data = LinearData::new(&x, &y, 2).unwrap();
        let coef = [1.0, 1.0, 1.0, 1.0f64.next_up()];
        let b = [-1.0, -1.0];
        let got = zero_one_mistakes(&coef, &b, &data).unwrap();
        let want = naive_mistakes(&coef, &b, &x, &y, 2);
        assert_eq!(got, want);
        // The labels are the exact predictions of the first candidate.
        let exact_mistakes: u64 = (0..y.len())
            .map(|i| {
                let pred = affine_sign(&coef[..2], &x[2 * i..2 * i + 2], -1.0) >= 0;
                u64::from(pred != (y[i] > 0.5))
            })
            .sum();
        assert_eq!(got[0], exact_mistakes);
    }

    #[test]
    fn fused_kernel_is_exact_with_and_without_fma() {
        let mut rng = Rng::from_seed(15);
        let n = 1000;
        // Coarse coordinates: many records exactly on the candidates' boundaries.
        let x: Vec<f64> = (0..2 * n)
            .map(|_| (uniform(&mut rng, -1.0, 1.0) * 8.0).round() / 8.0)
            .collect();
        let y: Vec<f64> = (0..n).map(|_| f64::from(u8::from(rng.bit()))).collect();
        let data = LinearData::new(&x, &y, 2).unwrap();
        let w = [1.0, -1.0, 0.5, 0.25, 1e-300, 1.0, 1e200, 1e200];
        let b = [0.0, 0.125, -1e-300, 3e200];
        let want = naive_mistakes(&w, &b, &x, &y, 2);
        for fma in [false, has_fma()] {
            assert_eq!(zero_one_fixed::<2>(&w, &b, &data, fma), want, "fma = {fma}");
        }
        assert_eq!(zero_one_mistakes(&w, &b, &data).unwrap(), want);
    }

    /// A uniform integer of magnitude in `[lo, hi]` with a random sign.
    fn signed(rng: &mut Rng, lo: u64, hi: u64) -> i64 {
        let v = (lo + rng.below(hi - lo + 1)) as i64;
        if rng.bit() { -v } else { v }
    }

    /// The inverse of `a` modulo `m` (`gcd(a, m) = 1`, `m > 1`), by the extended Euclid algorithm.
    fn inverse_mod(a: i128, m: i128) -> Option<i128> {
        let (mut r0, mut r1, mut s0, mut s1) = (a.rem_euclid(m), m, 1i128, 0i128);
        while r1 != 0 {
            let q = r0 / r1;
            (r0, r1) = (r1, r0 - q * r1);
            (s0, s1) = (s1, s0 - q * s1);
        }
        (r0 == 1).then(|| s0.rem_euclid(m))
    }

    #[test]
    fn zero_one_is_exact_when_large_products_cancel() {
        // Issue 16 (mutant `acc + wk.abs() + xk` in the magnitude sum of `zero_one_fixed` and
        // `zero_one_fixed32`). Integer weights near 2^30 and coordinates up to about 2^32 whose
        // products (up to 2^62) cancel down to an exact score `w . x + b` in -3..=3 (Cassini's
        // identity, generalised by the extended Euclid algorithm). The rounded products are off
        // by up to 2^9, so the rounded sums are small integers, many of them nonzero with the
        // wrong sign: only the filter's bound, scaled by `|b| + sum_k |w_k| max_i |x_ik|` (about
        // 2^62), sends them to the exact recount. In dimension 3 and 4 the last feature is small
        // and odd, every other product is even after rounding, so without fused multiply-adds
        // no rounded sum is zero (in dimension 2, without them, a sum of two rounded products
        // cannot have the wrong sign, only be zero: rounding is monotone and odd). The records
        // of each base candidate are labelled with its exact predictions; the other half of the
        // candidates are their negations. Every kernel's counts must equal the exact ones,
        // computed here in i128.
        let mut rng = Rng::from_seed(18);
        let per = 30;
        let bases = 6;
        for d in 2..=4usize {
            let big = if d == 2 { 2 } else { d - 1 };
            let mut coef: Vec<i64> = Vec::new();
            let mut b: Vec<i64> = Vec::new();
            let mut x: Vec<i64> = Vec::new();
            let mut y: Vec<f64> = Vec::new();
            for _ in 0..bases {
                let w: Vec<i64> = loop {
                    let w: Vec<i64> = (0..d)
                        .map(|k| {
                            if k < big {
                                signed(&mut rng, 1 << 29, 1 << 30)
                            } else {
                                2 * signed(&mut rng, 0, 3) + 1
                            }
                        })
                        .collect();
                    if inverse_mod(w[0].into(), i128::from(w[1]).abs()).is_some() {
                        break w;
                    }
                };
                let bj = signed(&mut rng, 0, 2);
                let m1 = i128::from(w[1]).abs();
                let inv = inverse_mod(w[0].into(), m1).unwrap();
                for _ in 0..per {
                    let score = signed(&mut rng, 0, 3);
                    let mut row = vec![0i64; d];
                    let mut rest = i128::from(bj);
                    for k in 2..d {
                        row[k] = if k < big {
                            signed(&mut rng, 1 << 29, 1 << 30)
                        } else {
                            2 * signed(&mut rng, 0, 7) + 1
                        };
                        rest += i128::from(w[k]) * i128::from(row[k]);
                    }
                    // w0 x0 + w1 x1 = score - rest, with |w1| <= |x0| < 3 |w1| (no product is
                    // small, so the filter never sees an exactly computed small sum).
                    let t = i128::from(score) - rest;
                    let x0 = (t * inv).rem_euclid(m1) + m1 * i128::from(signed(&mut rng, 1, 2));
                    let p1 = t - i128::from(w[0]) * x0;
                    assert_eq!(p1 % i128::from(w[1]), 0);
                    row[0] = x0 as i64;
                    row[1] = (p1 / i128::from(w[1])) as i64;
                    x.extend_from_slice(&row);
                    y.push(f64::from(u8::from(score >= 0)));
                }
                coef.extend_from_slice(&w);
                b.push(bj);
            }
            let negated: Vec<i64> = coef.iter().map(|v| -v).collect();
            coef.extend(negated);
            let negated: Vec<i64> = b.iter().map(|v| -v).collect();
            b.extend(negated);
            let n = y.len();
            let exact: Vec<Vec<i128>> = (0..b.len())
                .map(|j| {
                    (0..n)
                        .map(|i| {
                            (0..d).fold(i128::from(b[j]), |acc, k| {
                                acc + i128::from(coef[j * d + k]) * i128::from(x[i * d + k])
                            })
                        })
                        .collect()
                })
                .collect();
            let want: Vec<u64> = exact
                .iter()
                .map(|s| {
                    s.iter()
                        .zip(&y)
                        .filter(|&(&s, &yi)| (s >= 0) != (yi > 0.5))
                        .count() as u64
                })
                .collect();
            let coef: Vec<f64> = coef.iter().map(|&v| v as f64).collect();
            let b: Vec<f64> = b.iter().map(|&v| v as f64).collect();
            let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            assert!(x.iter().all(|v| v.abs() < 2f64.powi(53)));
            let data = LinearData::new(&x, &y, d).unwrap();
            for fma in [false, has_fma()] {
                // The inputs are hard: some candidate has no zero rounded sum (so nothing but
                // the error bound triggers its recount) and a wrong sign among them.
                let hard = (0..b.len()).any(|j| {
                    let w = &coef[j * d..(j + 1) * d];
                    let sums: Vec<f64> = (0..n)
                        .map(|i| {
                            let row = x[i * d..(i + 1) * d].iter().copied();
                            if fma {
                                rounded_sum::<true>(w, row, b[j])
                            } else {
                                rounded_sum::<false>(w, row, b[j])
                            }
                        })
                        .collect();
                    sums.iter().all(|&s| s != 0.0)
                        && sums
                            .iter()
                            .zip(&exact[j])
                            .any(|(&s, &e)| (s > 0.0) != (e >= 0))
                });
                assert!(hard || (d == 2 && !fma), "d = {d}, fma = {fma}");
                let got: Vec<u64> = (0..b.len())
                    .step_by(GROUP)
                    .flat_map(|j| {
                        let (w, bg) = (&coef[j * d..(j + GROUP) * d], &b[j..j + GROUP]);
                        match d {
                            2 => zero_one_fixed::<2>(w, bg, &data, fma),
                            3 => zero_one_fixed::<3>(w, bg, &data, fma),
                            _ => zero_one_fixed::<4>(w, bg, &data, fma),
                        }
                    })
                    .collect();
                assert_eq!(got, want, "d = {d}, fma = {fma}");
            }
            assert_eq!(
                zero_one_mistakes(&coef, &b, &data).unwrap(),
                want,
                "d = {d}"
            );
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(LinearData::new(&[1.0, 2.0], &[1.0], 0).is_err());
        assert!(LinearData::new(&[1.0, 2.0, 3.0], &[1.0], 2).is_err());
        assert!(LinearData::new(&[1.0, f64::NAN], &[1.0], 2).is_err());
        assert!(LinearData::new(&[1.0, 2.0], &[f64::INFINITY], 2).is_err());
        let data = LinearData::new(&[1.0, 2.0], &[1.0], 2).unwrap();
        assert!(zero_one_mistakes(&[1.0], &[0.0], &data).is_err());
        assert!(zero_one_mistakes(&[1.0, f64::NAN], &[0.0], &data).is_err());
        assert!(zero_one_mistakes(&[1.0, 1.0], &[f64::INFINITY], &data).is_err());
        assert_eq!(
            zero_one_mistakes(&[1.0, 1.0], &[-4.0], &data).unwrap(),
            vec![1]
        );
    }
}
