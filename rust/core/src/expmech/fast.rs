//! The float path of the exponential mechanism (`numerics="fast"`): not floating-point safe.
//!
//! One pass over the scores computes, per chunk of [`CHUNK`](crate::vmath::CHUNK) elements, the
//! chunk maximum and the sum of `exp(a (s - max))` (the "online softmax" reduction, vectorised
//! and parallel over chunks). A uniform `U` then locates the chunk by a scan over the chunk
//! totals, and the index by re-scanning that one chunk.

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
