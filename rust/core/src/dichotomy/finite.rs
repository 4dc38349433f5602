//! Explicit finite classes: `N` hypotheses given by their labels.
//!
//! A finite class over the domain `{0, ..., M-1}` is a boolean `N x M` matrix (row `r` is
//! hypothesis `r`); on a sample of domain elements its labelings are the distinct rows of the
//! matrix restricted to the sample's columns (Bun, Nissim and Stemmer, §3.3 "explicit finite C":
//! project each concept onto the points, deduplicate, keep the minimum concept index). The same
//! routine serves classes given as callables, once evaluated on the sample.
//!
//! **Algorithm**: pack every row (in parallel), sort the row indices by (packed row, index) and
//! keep the first of each run of equal rows: exact deduplication by full comparison (ERRATA C6),
//! `O(N n / 64 + N log N)` comparisons.
//!
//! **Representative**: the lowest-index hypothesis realising the labeling (parameter: its
//! index). **Order**: lexicographic order of the packed words (word 0 first, each compared as an
//! unsigned 64-bit integer).
//!
//! [`vc_dimension`] computes the exact VC dimension of the matrix by depth-first search over
//! shattered sets, which are at most as many as the distinct rows (Pajor's lemma).

use rayon::prelude::*;

use super::{Dichotomies, check_count, words_for};
use crate::error::{Error, Result};

fn check_matrix(len: usize, rows: usize, cols: usize) -> Result<()> {
    if rows.checked_mul(cols) != Some(len) {
        return Err(Error::invalid(
            "labels",
            format!("must hold {rows} x {cols} values, got {len}"),
        ));
    }
    Ok(())
}

/// Distinct rows of the `rows x cols` boolean matrix `labels` (row-major), each with the lowest
/// index of a row equal to it, in lexicographic order of the packed rows.
pub fn unique_rows(
    labels: &[bool],
    rows: usize,
    cols: usize,
    max_count: usize,
) -> Result<Dichotomies<u64>> {
    check_matrix(labels.len(), rows, cols)?;
    let w = words_for(cols);
    let mut packed = vec![0u64; rows * w];
    if w > 0 {
        packed
            .par_chunks_mut(w)
            .zip(labels.par_chunks(cols.max(1)))
            .for_each(|(dst, src)| {
                for (j, &b) in src.iter().enumerate() {
                    if b {
                        dst[j / 64] |= 1u64 << (j % 64);
                    }
                }
            });
    }
    let row = |i: usize| &packed[i * w..(i + 1) * w];
    let mut idx: Vec<usize> = (0..rows).collect();
    idx.par_sort_unstable_by(|&a, &b| row(a).cmp(row(b)).then(a.cmp(&b)));
    idx.dedup_by(|b, a| row(*a) == row(*b));
    check_count(idx.len() as u128, max_count)?;
    let mut out = Dichotomies::new(cols, 1);
    out.reserve(idx.len());
    for i in idx {
        out.push(row(i), &[i as u64]);
    }
    Ok(out)
}

/// Exact VC dimension of the class given by the `rows x cols` boolean matrix (row-major).
/// Returns 0 for an empty class.
pub fn vc_dimension(labels: &[bool], rows: usize, cols: usize) -> Result<usize> {
    check_matrix(labels.len(), rows, cols)?;
    // Distinct rows only.
    let uniq = unique_rows(labels, rows, cols, usize::MAX)?;
    let n = uniq.len();
    if n == 0 {
        return Ok(0);
    }
    let col = |r: usize, x: usize| uniq.bit(r, x);
    // Depth-first search over shattered sets T (increasing column indices), carrying each row's
    // pattern on T. A set of size k needs at least 2^k distinct rows.
    let mut best = 0;
    let mut stack: Vec<(usize, usize, Vec<u64>)> = vec![(0, 0, vec![0u64; n])]; // (size, next column, patterns)
    while let Some((k, next, pat)) = stack.pop() {
        best = best.max(k);
        if k + 1 >= 63 || (1usize << (k + 1)) > n {
            continue;
        }
        for x in next..cols {
            let ext: Vec<u64> = (0..n).map(|r| pat[r] << 1 | u64::from(col(r, x))).collect();
            let mut seen = ext.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() == 1usize << (k + 1) {
                stack.push((k + 1, x + 1, ext));
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedup_keeps_lowest_index_in_lexicographic_order() {
        // Rows: 10, 01, 10, 11, 01 (bit j is column j).
        let m = [
            true, false, false, true, true, false, true, true, false, true,
        ];
        let d = unique_rows(&m, 5, 2, usize::MAX).unwrap();
        assert_eq!(d.labels_flat(), &[0b01, 0b10, 0b11]);
        assert_eq!(d.params_flat(), &[0, 1, 3]);
        assert!(unique_rows(&m, 5, 2, 2).is_err());
        assert!(unique_rows(&m, 4, 2, 9).is_err());
    }

    #[test]
    fn vc_dimension_of_known_classes() {
        // Thresholds on 5 points: rows "ones from k on" for k = 0..=5: VC dimension 1.
        let t: Vec<bool> = (0..6).flat_map(|k| (0..5).map(move |j| j >= k)).collect();
        assert_eq!(vc_dimension(&t, 6, 5).unwrap(), 1);
        // All 16 labelings of 4 points: 4.
        let all: Vec<bool> = (0..16)
            .flat_map(|r| (0..4).map(move |j| r >> j & 1 == 1))
            .collect();
        assert_eq!(vc_dimension(&all, 16, 4).unwrap(), 4);
        // Points (indicators) on 6 elements plus the zero function: 1.
        let pts: Vec<bool> = (0..7)
            .flat_map(|r| (0..6).map(move |j| r == j + 1))
            .collect();
        assert_eq!(vc_dimension(&pts, 7, 6).unwrap(), 1);
        assert_eq!(vc_dimension(&[], 0, 3).unwrap(), 0);
    }
}
