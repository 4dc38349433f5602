//! The float path of the exponential mechanism (`numerics="fast"`): not floating-point safe.
//!
//! One pass over the scores computes, per chunk of [`CHUNK`](crate::vmath::CHUNK) elements, the
//! chunk maximum and the sum of `exp(a (s - max))` (the "online softmax" reduction, vectorised
//! and parallel over chunks). A uniform `U` then locates the chunk by a scan over the chunk
//! totals, and the index by re-scanning that one chunk.
//!
//! The one random number per draw is [`Rng::uniform_f64`] (the top 53 bits of a ChaCha20 word,
//! as `rand`'s `StandardUniform` makes it). The other floating-point samplers come from
//! `rand_distr` ([`crate::noise`]); Gumbel-max with `rand_distr::Gumbel` (one variate per
//! candidate) was measured 7.5x slower than this pass on 10^7 scores on one thread
//! (`benches/results/issue20-rand-distr.md`), so this path draws no Gumbel noise.

use crate::error::Result;
use crate::rng::Rng;
use crate::vmath::{CHUNK, chunk_sums, chunk_weights, exp_nonpos};

use super::bad_scores;

/// `draws` samples of `i` with probability proportional to `exp(a * scores[i])`, in floating
/// point.
pub fn sample(scores: &[f64], a: f64, draws: usize, rng: &mut Rng) -> Result<Vec<usize>> {
    let chunks = chunk_sums(scores, a);
    if chunks.iter().any(|c| c.bad) {
        return Err(bad_scores());
    }
    let (m, weights) = chunk_weights(&chunks, a);
    if m == f64::NEG_INFINITY {
        return Err(bad_scores());
    }
    let total: f64 = weights.iter().sum();
    let chunk = |ci: usize| &scores[ci * CHUNK..((ci + 1) * CHUNK).min(scores.len())];
    let mut one = || {
        let mut target = rng.uniform_f64() * total;
        let mut last_nonempty = 0;
        for (ci, &w) in weights.iter().enumerate() {
            if w == 0.0 {
                continue;
            }
            last_nonempty = ci;
            if target < w {
                let factor = exp_nonpos(a * (chunks[ci].max - m));
                return locate(chunk(ci), chunks[ci].max, a, target / factor) + ci * CHUNK;
            }
            target -= w;
        }
        // Rounding left the target past the last chunk: take its last selectable element.
        let ci = last_nonempty;
        locate(chunk(ci), chunks[ci].max, a, f64::INFINITY) + ci * CHUNK
    };
    Ok((0..draws).map(|_| one()).collect())
}

/// Index within `slice` where the running sum of `exp(a (s - max))` first exceeds `target`
/// (or the last element with a positive weight).
fn locate(slice: &[f64], max: f64, a: f64, target: f64) -> usize {
    let mut acc = 0.0;
    let mut last = 0;
    for (i, &s) in slice.iter().enumerate() {
        let w = exp_nonpos(a * (s - max));
        if w > 0.0 {
            acc += w;
            last = i;
            if target < acc {
                return i;
            }
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_law_with_power;

    #[test]
    fn candidates_beyond_the_first_chunk_are_located_in_their_own_chunk() {
        // Mass only past the first chunk: the index is found inside the right chunk's slice.
        let n = 3 * CHUNK + 5;
        let mut rng = Rng::from_seed(11);
        let mut scores = vec![f64::NEG_INFINITY; n];
        let far = 2 * CHUNK + 7;
        scores[far] = 0.0;
        assert!(
            sample(&scores, 1.0, 50, &mut rng)
                .unwrap()
                .iter()
                .all(|&i| i == far)
        );
        // Two candidates in different chunks, weights 1 : 3 (exp(a s) with a = 1).
        let (near, mid) = (5, CHUNK + 10);
        scores[far] = f64::NEG_INFINITY;
        scores[near] = 0.0;
        scores[mid] = 3f64.ln();
        let draws = sample(&scores, 1.0, 20_000, &mut rng).unwrap();
        assert!(draws.iter().all(|&i| i == near || i == mid));
        let hits = draws.iter().filter(|&&i| i == mid).count() as u64;
        assert_law_with_power(
            &[20_000 - hits, hits],
            &[0.25, 0.75],
            &[&[0.5, 0.5], &[0.1, 0.9]],
            "fast exponential mechanism across chunks",
        );
    }
}
