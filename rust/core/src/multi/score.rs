//! Disagreement counts of many hypotheses with many label columns.

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Hypotheses handled together: each label row is read once per block of this many.
const BLOCK: usize = 8;

/// `out[h * k + j] = popcount(pred[h] XOR labels[j])`: the number of examples on which
/// hypothesis `h` disagrees with label column `j`.
///
/// `pred` holds `h` rows and `labels` `k` rows of `words` packed words each (the project's
/// LSB-first convention, zero padding bits): row `h` of `pred` is the hypothesis's predictions on
/// the `n` examples, row `j` of `labels` the `j`-th label column. These are the scores (minus
/// the mistakes, sensitivity 1 under replacing one example) of the per-concept exponential
/// mechanisms of the basic and generic multi-learners (Bun, Nissim and Stemmer, Observation 3.2
/// and Algorithm 2). Exact; parallel over blocks of hypotheses; the result does not depend on
/// the number of threads.
///
/// # Errors
/// [`Error::InvalidParameter`] if the slices are not `h * words` and `k * words` long.
pub fn mistakes_matrix(
    pred: &[u64],
    h: usize,
    labels: &[u64],
    k: usize,
    words: usize,
) -> Result<Vec<i64>> {
    if h.checked_mul(words) != Some(pred.len()) {
        return Err(Error::invalid(
            "pred",
            format!(
                "must hold {h} rows of {words} words, got {} words",
                pred.len()
            ),
        ));
    }
    if k.checked_mul(words) != Some(labels.len()) {
        return Err(Error::invalid(
            "labels",
            format!(
                "must hold {k} rows of {words} words, got {} words",
                labels.len()
            ),
        ));
    }
    let mut out = vec![0i64; h * k];
    if h == 0 || k == 0 {
        return Ok(out);
    }
    if words == 0 {
        return Ok(out);
    }
    out.par_chunks_mut(BLOCK * k)
        .enumerate()
        .for_each(|(blk, dst)| {
            let h0 = blk * BLOCK;
            let rows = dst.len() / k;
            let hyp = &pred[h0 * words..(h0 + rows) * words];
            for j in 0..k {
                let lab = &labels[j * words..(j + 1) * words];
                for r in 0..rows {
                    let p = &hyp[r * words..(r + 1) * words];
                    let c: u32 = p.iter().zip(lab).map(|(a, b)| (a ^ b).count_ones()).sum();
                    dst[r * k + j] = i64::from(c);
                }
            }
        });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn matches_a_bit_by_bit_count() {
        let mut rng = Rng::from_seed(21);
        for &(h, k, n) in &[
            (1usize, 1usize, 1usize),
            (9, 3, 64),
            (17, 5, 200),
            (3, 40, 1000),
        ] {
            let words = n.div_ceil(64);
            let bits = |rows: usize, rng: &mut Rng| -> Vec<u64> {
                let mut v: Vec<u64> = (0..rows * words).map(|_| rng.next_u64()).collect();
                if n % 64 != 0 {
                    for r in 0..rows {
                        v[r * words + words - 1] &= (1u64 << (n % 64)) - 1;
                    }
                }
                v
            };
            let pred = bits(h, &mut rng);
            let labels = bits(k, &mut rng);
            let out = mistakes_matrix(&pred, h, &labels, k, words).unwrap();
            for a in 0..h {
                for j in 0..k {
                    let slow = (0..n)
                        .filter(|&i| {
                            let bit = |v: &[u64], r: usize| (v[r * words + i / 64] >> (i % 64)) & 1;
                            bit(&pred, a) != bit(&labels, j)
                        })
                        .count();
                    assert_eq!(out[a * k + j], slow as i64);
                }
            }
        }
        assert!(mistakes_matrix(&[0; 3], 2, &[0; 2], 1, 2).is_err());
        assert!(mistakes_matrix(&[0; 4], 2, &[0; 3], 1, 2).is_err());
    }
}
