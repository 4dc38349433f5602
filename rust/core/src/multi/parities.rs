//! `SearchParities` (Bun, Nissim and Stemmer, Algorithm 4 and Theorem 3.12).

use rayon::prelude::*;

use super::{check_budget, no_concepts, top_two_runs};
use crate::error::{Error, Result};
use crate::expmech::Scores;
use crate::gf2::Matrix;
use crate::mechanisms::select::stable_argmax;
use crate::rng::Rng;

/// The outcome of [`search_parities`].
#[derive(Debug)]
pub struct ParitySearch {
    /// The released parities, as the columns of a `dim x k` matrix (column `j` is the indicator
    /// vector `s_j` of the parity `x -> <s_j, x> mod 2` of concept `j`), or `None`: the paper's
    /// ⊥ (the stable selection refused, or no subsample produced a candidate).
    pub solution: Option<Matrix>,
    /// The number of subsamples `T = floor(n / subsample_size)` (a public quantity).
    pub subsamples: usize,
}

/// The packed rows (`m` rows of `words(d + k)` words, row-major) of `[A_t | B_t]` for the
/// subsample of rows `r0..r0 + m`: the examples' bits followed by their `k` labels.
fn augmented(x: &Matrix, y: &Matrix, r0: usize, m: usize) -> Vec<u64> {
    let (d, k) = (x.cols(), y.cols());
    let w = (d + k).div_ceil(64);
    let mut out = vec![0u64; m * w];
    let (q, s) = (d / 64, d % 64);
    for (i, dst) in out.chunks_exact_mut(w).enumerate() {
        dst[..x.words_per_row()].copy_from_slice(x.row(r0 + i));
        for (j, &v) in y.row(r0 + i).iter().enumerate() {
            dst[q + j] |= v << s;
            if s != 0 && q + j + 1 < w {
                dst[q + j + 1] |= v >> (64 - s);
            }
        }
    }
    out
}

/// Columns eliminated together by [`reduce`] (two tables of `2^4` combinations).
const GROUP: usize = 8;

/// Gauss–Jordan elimination of the `m` rows of `w` words in `rows` with pivots in the first `d`
/// columns, in place; `false` as soon as a column has no pivot (rank below `d`).
///
/// The Method of the Four Russians for elimination (M4RI: G. V. Bard, 2006; Albrecht, Bard and
/// Pernet, arXiv:1111.6549), for the short, wide systems of `SearchParities`: the columns are
/// taken eight at a time. Their pivots are found on the one word that holds them (the other
/// rows' bits there are reduced on the fly, in a byte per row), the eight pivot rows are reduced
/// among themselves, and every other row, above or below, clears its eight bits at once by
/// XOR-ing the combination of pivot rows its original bits select, read from two tables of the
/// 16 combinations of four pivot rows (built by a Gray-code walk; small enough to stay in the
/// first-level cache). That is about `2m` row operations per eight columns instead of `4m`,
/// each on the words from the group's word on.
fn reduce(rows: &mut [u64], m: usize, w: usize, d: usize, table: &mut Vec<u64>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F was detected at run time.
            return unsafe { reduce_avx512(rows, m, w, d, table) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected at run time.
            return unsafe { reduce_avx2(rows, m, w, d, table) };
        }
    }
    reduce_with(rows, m, w, d, table)
}

/// [`reduce`] compiled for AVX-512 (wider XORs of the row updates).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn reduce_avx512(rows: &mut [u64], m: usize, w: usize, d: usize, table: &mut Vec<u64>) -> bool {
    reduce_with(rows, m, w, d, table)
}

/// [`reduce`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn reduce_avx2(rows: &mut [u64], m: usize, w: usize, d: usize, table: &mut Vec<u64>) -> bool {
    reduce_with(rows, m, w, d, table)
}

/// The body of [`reduce`], inlined into each instruction-set version.
#[inline(always)]
fn reduce_with(rows: &mut [u64], m: usize, w: usize, d: usize, table: &mut Vec<u64>) -> bool {
    let mut pat = vec![0u8; m];
    for c0 in (0..d).step_by(GROUP) {
        let g = (d - c0).min(GROUP);
        let (wi, sh) = (c0 / 64, c0 % 64);
        let mask = (1u64 << g) - 1;
        let tail = w - wi;
        for (i, p) in pat.iter_mut().enumerate().skip(c0) {
            *p = ((rows[i * w + wi] >> sh) & mask) as u8;
        }
        for j in 0..g {
            let r = c0 + j;
            let bit = 1u8 << j;
            let Some(p) = (r..m).find(|&i| pat[i] & bit != 0) else {
                return false;
            };
            if p != r {
                for t in 0..w {
                    rows.swap(r * w + t, p * w + t);
                }
                pat.swap(r, p);
            }
            // Reduce the new pivot row by the group's earlier pivots, then clear its column from
            // them: the group's pivot rows stay the identity on the group's columns.
            for e in 0..j {
                if (rows[r * w + wi] >> (sh + e)) & 1 == 1 {
                    let (a, b) = rows.split_at_mut(r * w);
                    xor_into(&mut b[wi..w], &a[(c0 + e) * w + wi..(c0 + e + 1) * w]);
                }
            }
            for e in 0..j {
                let q = c0 + e;
                if (rows[q * w + wi] >> (sh + j)) & 1 == 1 {
                    let (a, b) = rows.split_at_mut(r * w);
                    xor_into(&mut a[q * w + wi..(q + 1) * w], &b[wi..w]);
                }
            }
            // The candidates' reduced bits after this pivot (branch-free: half the rows have
            // the bit, unpredictably).
            let pr = pat[r];
            for pi in &mut pat[r + 1..] {
                *pi ^= pr & ((*pi >> j) & 1).wrapping_neg();
            }
        }
        // Two tables, of the 16 combinations of pivot rows c0..c0+4 and of c0+4..c0+8 (words
        // wi..w): small enough to stay in the first-level cache while every row is updated.
        let (g_lo, g_hi) = (g.min(4), g.saturating_sub(4));
        table.clear();
        table.resize(32 * tail, 0);
        let (lo, hi) = table.split_at_mut(16 * tail);
        for (part, base, bits) in [(lo, c0, g_lo), (hi, c0 + 4, g_hi)] {
            for idx in 1usize..1 << bits {
                let low = idx.trailing_zeros() as usize;
                let (done, rest) = part.split_at_mut(idx * tail);
                let dst = &mut rest[..tail];
                dst.copy_from_slice(&done[(idx & (idx - 1)) * tail..][..tail]);
                xor_into(dst, &rows[(base + low) * w + wi..(base + low + 1) * w]);
            }
        }
        let (lo, hi) = table.split_at(16 * tail);
        for i in (0..m).filter(|&i| i < c0 || i >= c0 + g) {
            let x = ((rows[i * w + wi] >> sh) & mask) as usize;
            if x != 0 {
                let (a, b) = (x & 15, x >> 4);
                let row = &mut rows[i * w + wi..(i + 1) * w];
                for ((r, t), u) in row
                    .iter_mut()
                    .zip(&lo[a * tail..(a + 1) * tail])
                    .zip(&hi[b * tail..(b + 1) * tail])
                {
                    *r ^= t ^ u;
                }
            }
        }
    }
    true
}

#[inline(always)]
fn xor_into(dst: &mut [u64], src: &[u64]) {
    for (a, b) in dst.iter_mut().zip(src) {
        *a ^= b;
    }
}

/// The candidate of one subsample: the packed rows of the unique `d x k` solution `S_t` of
/// `A_t S_t = B_t`, or `None` when `rank(A_t) < d` or some label column is inconsistent. One
/// reduction of `[A_t | B_t]` with pivots restricted to the first `d` columns ([`reduce`])
/// serves all `k` right-hand sides.
fn candidate(x: &Matrix, y: &Matrix, r0: usize, m: usize) -> Option<Vec<u64>> {
    let (d, k) = (x.cols(), y.cols());
    let w = (d + k).div_ceil(64);
    let mut rows = augmented(x, y, r0, m);
    let mut table = Vec::new();
    if !reduce(&mut rows, m, w, d, &mut table) {
        return None;
    }
    // Rank d: rows d.. vanish on the first d columns, so they must vanish on the labels too.
    if rows[d * w..].iter().any(|&v| v != 0) {
        return None;
    }
    // Rows 0..d are [I | S_t]: shift the labels' part down to column 0.
    let (q, s, kw) = (d / 64, d % 64, k.div_ceil(64));
    let last = if k % 64 == 0 {
        !0
    } else {
        (1u64 << (k % 64)) - 1
    };
    let mut out = Vec::with_capacity(d * kw);
    for row in rows[..d * w].chunks_exact(w) {
        for j in 0..kw {
            let lo = row[q + j] >> s;
            let hi = if s != 0 && q + j + 1 < w {
                row[q + j + 1] << (64 - s)
            } else {
                0
            };
            out.push(if j + 1 == kw {
                (lo | hi) & last
            } else {
                lo | hi
            });
        }
    }
    Some(out)
}

/// [`candidate`] when `dim + k <= 64`: each row of `[A_t | B_t]` is one word, eliminated in
/// place without building a matrix (the common case of one concept at a time).
fn candidate_narrow(x: &Matrix, y: &Matrix, r0: usize, m: usize) -> Option<Vec<u64>> {
    let d = x.cols();
    let mut rows: Vec<u64> = (r0..r0 + m)
        .map(|i| x.row(i)[0] | (y.row(i)[0] << d))
        .collect();
    for c in 0..d {
        let bit = 1u64 << c;
        // A column without a pivot: rank < d.
        let p = (c..m).find(|&i| rows[i] & bit != 0)?;
        rows.swap(c, p);
        let pivot = rows[c];
        for (i, row) in rows.iter_mut().enumerate() {
            if i != c && *row & bit != 0 {
                *row ^= pivot;
            }
        }
    }
    if rows[d..].iter().any(|&w| w != 0) {
        return None;
    }
    Some(rows[..d].iter().map(|&w| w >> d).collect())
}

/// Subsamples are reduced in parallel only when there is enough work to pay for the threads.
const PARALLEL_MIN_BITS: usize = 1 << 22;

/// `SearchParities`: a private `k`-learner of parities under the uniform distribution whose
/// sample size does not depend on `k` (Bun, Nissim and Stemmer, Theorem 3.12).
///
/// `x` holds the examples (`n x dim`), `y` the `k` label columns (`n x k`). The rows are split by
/// index into `T = floor(n / subsample_size)` consecutive subsamples (leftover rows are unused);
/// on each, one reduction of `[A_t | B_t]` gives the vector of the `k` parities consistent with
/// the subsample when `A_t` has rank `dim` and every column is consistent (otherwise the
/// subsample gives no candidate). The most frequent vector is released by
/// [`stable_argmax`] with the counts of the two most frequent vectors (ties: the
/// lexicographically smallest packed vector first); the runner-up count is 0 when only one
/// vector occurs.
///
/// **Privacy:** `(epsilon, delta)`-DP for replace-one neighbours (a whole row, example and
/// labels, replaced; `n` public). A row lies in one subsample, so it changes at most one
/// candidate, and every vector's count moves by at most one: the counts are a sensitivity-1
/// quality, and the stable selection is `(ε, δ)`-DP for it (errata 002-1, 002-2). Without any
/// candidate the output is ⊥ whatever the noise would have been, which is the selection's own
/// output when its best solution is ⊥; nothing is drawn then.
///
/// # Errors
/// [`Error::InvalidParameter`] before any work when the row counts differ, `dim` or `k` is 0,
/// `subsample_size < dim`, or `epsilon` / `delta` are out of range.
pub fn search_parities(
    x: &Matrix,
    y: &Matrix,
    subsample_size: usize,
    epsilon: f64,
    delta: f64,
    rng: &mut Rng,
) -> Result<ParitySearch> {
    let (n, d, k) = (x.rows(), x.cols(), y.cols());
    if y.rows() != n {
        return Err(Error::invalid(
            "Y",
            format!("must have one row per example ({n}), got {}", y.rows()),
        ));
    }
    if d == 0 {
        return Err(Error::invalid("dim", "must be at least 1, got 0"));
    }
    if k == 0 {
        return Err(no_concepts());
    }
    if subsample_size < d {
        return Err(Error::invalid(
            "subsample_size",
            format!(
                "must be at least dim = {d} (a smaller subsample never determines a parity), got {subsample_size}"
            ),
        ));
    }
    check_budget(epsilon, delta)?;
    let t = n / subsample_size;
    let one = |i: usize| {
        if d + k <= 64 {
            candidate_narrow(x, y, i * subsample_size, subsample_size)
        } else {
            candidate(x, y, i * subsample_size, subsample_size)
        }
    };
    let work = t
        .saturating_mul(subsample_size)
        .saturating_mul(d.saturating_add(k));
    let candidates: Vec<Vec<u64>> = if work >= PARALLEL_MIN_BITS {
        (0..t).into_par_iter().filter_map(one).collect()
    } else {
        (0..t).filter_map(one).collect()
    };
    if candidates.is_empty() {
        return Ok(ParitySearch {
            solution: None,
            subsamples: t,
        });
    }
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| candidates[a].cmp(&candidates[b]));
    // Runs of equal vectors: the first run of maximal length wins ties.
    let (best, top, second) = top_two_runs(&order, |a, b| candidates[a] == candidates[b]);
    let scores = [top as i64, second as i64];
    let released = stable_argmax(Scores::Int(&scores), epsilon, delta, 1.0, rng)?;
    let solution = match released {
        Some(_) => Some(Matrix::from_rows_words(d, k, &candidates[best])?),
        None => None,
    };
    Ok(ParitySearch {
        solution,
        subsamples: t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gf2::elim::rref_limited;

    /// [`candidate`] through the general reduced echelon form of [`crate::gf2`] (the reference the
    /// tests compare with).
    fn candidate_reference(x: &Matrix, y: &Matrix, r0: usize, m: usize) -> Option<Vec<u64>> {
        let d = x.cols();
        let mut a = Matrix::from_rows_words(m, d + y.cols(), &augmented(x, y, r0, m)).unwrap();
        let pivots = rref_limited(&mut a, d);
        if pivots.len() < d || (d..m).any(|i| a.row(i).iter().any(|&w| w != 0)) {
            return None;
        }
        Some(a.submatrix(0, d, d, d + y.cols()).to_rows_words())
    }

    fn random_bits(rows: usize, cols: usize, rng: &mut Rng) -> Matrix {
        Matrix::random(rows, cols, rng)
    }

    #[test]
    fn recovers_all_targets_with_one_elimination_per_subsample() {
        let mut rng = Rng::from_seed(1);
        for &(d, k) in &[(5usize, 1usize), (20, 3), (70, 130)] {
            let n = 150 * (d + 3);
            let x = random_bits(n, d, &mut rng);
            let s = random_bits(d, k, &mut rng);
            let y = x.mul(&s).unwrap();
            let out = search_parities(&x, &y, d + 3, 1.0, 1e-6, &mut rng).unwrap();
            assert_eq!(out.subsamples, 150);
            assert_eq!(out.solution.as_ref(), Some(&s), "d = {d}, k = {k}");
        }
    }

    #[test]
    fn four_russians_elimination_matches_the_reference() {
        let mut rng = Rng::from_seed(6);
        for _ in 0..600 {
            // Half the systems narrow (dim + k <= 64), half wide.
            let wide = rng.bit();
            let d = 1 + rng.below(if wide { 150 } else { 40 }) as usize;
            let k = 1 + rng.below(if wide { 150 } else { 24 }) as usize;
            let m = d + rng.below(5) as usize;
            let mut x = random_bits(m, d, &mut rng);
            if rng.below(4) == 0 {
                // A repeated example: rank below d when m == d.
                let r = x.row(0).to_vec();
                for c in 0..d {
                    x.set(m - 1, c, (r[c / 64] >> (c % 64)) & 1 == 1);
                }
            }
            let y = match rng.below(3) {
                0 => random_bits(m, k, &mut rng),
                _ => x.mul(&random_bits(d, k, &mut rng)).unwrap(),
            };
            let reference = candidate_reference(&x, &y, 0, m);
            assert_eq!(candidate(&x, &y, 0, m), reference, "d {d} k {k} m {m}");
            if d + k <= 64 {
                assert_eq!(
                    candidate_narrow(&x, &y, 0, m),
                    reference,
                    "d {d} k {k} m {m}"
                );
            }
            match reference {
                Some(s) => {
                    let s = Matrix::from_rows_words(d, k, &s).unwrap();
                    assert_eq!((x.mul(&s).unwrap(), x.rank()), (y, d));
                }
                None => assert!(x.rank() < d || x.solve(&y).unwrap().is_none()),
            }
        }
    }

    #[test]
    fn no_candidate_or_too_few_rows_gives_bottom() {
        let mut rng = Rng::from_seed(2);
        // Fewer rows than one subsample: T = 0.
        let x = random_bits(5, 8, &mut rng);
        let y = random_bits(5, 2, &mut rng);
        let out = search_parities(&x, &y, 11, 1.0, 1e-6, &mut rng).unwrap();
        assert_eq!((out.subsamples, out.solution.is_none()), (0, true));
        // All examples equal: rank 1 < d, no candidate.
        let mut x = Matrix::zeros(200, 4);
        for i in 0..200 {
            x.set(i, 0, true);
        }
        let y = random_bits(200, 3, &mut rng);
        let out = search_parities(&x, &y, 7, 1.0, 1e-6, &mut rng).unwrap();
        assert!(out.solution.is_none());
    }

    #[test]
    fn random_labels_are_never_released() {
        // Noisy labels: square invertible subsamples give many distinct candidates, each
        // appearing about once, so the gap is tiny and the selection returns bottom.
        let mut rng = Rng::from_seed(3);
        let (d, n) = (6usize, 600usize);
        let x = random_bits(n, d, &mut rng);
        let y = random_bits(n, 4, &mut rng);
        let released = (0..50)
            .filter(|_| {
                search_parities(&x, &y, d, 1.0, 1e-6, &mut rng)
                    .unwrap()
                    .solution
                    .is_some()
            })
            .count();
        assert_eq!(released, 0);
    }

    #[test]
    fn bad_parameters_are_refused_before_any_draw() {
        let mut rng = Rng::from_seed(4);
        let x = random_bits(20, 4, &mut rng);
        let y = random_bits(20, 2, &mut rng);
        let short = random_bits(3, 2, &mut rng);
        let none = Matrix::zeros(20, 0);
        let mut probe = Rng::from_seed(9);
        let cases = [
            (
                search_parities(&x, &y, 3, 1.0, 1e-6, &mut probe),
                "subsample_size",
            ),
            (search_parities(&x, &none, 7, 1.0, 1e-6, &mut probe), "Y"),
            (search_parities(&x, &short, 7, 1.0, 1e-6, &mut probe), "Y"),
            (search_parities(&x, &y, 7, 0.0, 1e-6, &mut probe), "epsilon"),
            (search_parities(&x, &y, 7, 1.0, 1.0, &mut probe), "delta"),
        ];
        for (res, name) in cases {
            match res {
                Err(Error::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
                other => panic!("expected an error naming {name}, got {other:?}"),
            }
        }
        assert_eq!(probe.next_u64(), Rng::from_seed(9).next_u64());
    }
}
