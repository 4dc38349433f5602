//! Stable and private prediction (seed 003: Dagan and Feldman, "PAC learning with stable and
//! private predictions", COLT 2020).
//!
//! A *predictor* holds a labelled sample `S` of `n` points and answers a query `x` with one
//! randomised label. Its guarantees are per query, over neighbouring samples that differ by
//! replacing one labelled example (`n` public):
//!
//! * **γ-uniform stability**: `|Pr[A(S,x)=1] - Pr[A(S̃,x)=1]| <= γ`;
//! * **ε-private prediction**: `Pr[A(S,x)=y] <= e^ε Pr[A(S̃,x)=y]` for both labels `y`.
//!
//! Algorithms (the certificates, computed from public parameters only, are in the Python package
//! `privlearn.prediction`):
//!
//! * [`stable`]: the algorithm of Theorem 1 (Lemma 7): a uniformly random `m`-subset `S'` of the
//!   sample, the class `C_{S'}` of its labelings ([`cover`]), the exponential mechanism with
//!   parameter `ε₀` over `C_{S'}` scored by the mistakes on **all** of `S`, and the chosen
//!   representative's label at `x`; optionally flipped with probability `p` (Corollary 1).
//! * [`private2`]: the algorithm of Theorem 2 (Lemma 8): the same selection with `ε₁`, then the
//!   whole sample relabelled by the chosen hypothesis and handed to a realizable-case private
//!   predictor (`k` consistent learners on a fixed partition, a private vote with `ε₁`), then a
//!   flip with probability `p`.
//! * [`aggregate`]: the aggregation step of subsample-and-aggregate (the baselines of Dwork and
//!   Feldman 2018 and Bassily, Thakurta and Thakkar 2018): a private vote on the teachers'
//!   labels (exponential mechanism on the counts) or randomized response on a random teacher.
//!
//! **Fresh randomness per query** (ERRATA 003-2): every query gets its own generator (spawned in
//! query order from the caller's, so the output does not depend on the number of threads), its
//! own subset, its own draws and its own flip; `q` answers are `q` separate releases.
//! All probabilities are sampled exactly: the exponential mechanisms over integer scores with
//! [`crate::expmech::exact`], the flips as exact Bernoulli(`num / den`) draws (ERRATA X-2).

pub mod aggregate;
pub mod cover;
pub mod private2;
pub mod stable;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::expmech::exact::sample_i64;
use crate::rng::Rng;
use cover::{Cover, Reps};

/// A flip probability `p = num / den` in `(0, 1/2]`, sampled exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flip {
    num: u64,
    den: u64,
}

impl Flip {
    /// `p = num / den`; requires `0 < num` and `2 num <= den`.
    pub fn new(num: u64, den: u64) -> Result<Self> {
        if num == 0 || den == 0 || 2 * u128::from(num) > u128::from(den) {
            return Err(Error::invalid(
                "flip_probability",
                format!("must be a ratio num / den in (0, 1/2], got {num} / {den}"),
            ));
        }
        Ok(Flip { num, den })
    }

    /// `label` flipped with probability `p`.
    #[inline]
    pub fn apply(&self, label: bool, rng: &mut Rng) -> bool {
        label ^ rng.bernoulli_ratio(self.num, self.den)
    }
}

/// A uniformly random `m`-subset of `{0, ..., n-1}` (Floyd's algorithm), increasing.
pub fn subset(n: usize, m: usize, rng: &mut Rng) -> Vec<usize> {
    debug_assert!(m <= n);
    let mut chosen = std::collections::HashSet::with_capacity(m);
    let mut out = Vec::with_capacity(m);
    for j in n - m..n {
        let t = rng.below(j as u64 + 1) as usize;
        let pick = if chosen.insert(t) { t } else { j };
        if pick == j {
            chosen.insert(j);
        }
        out.push(pick);
    }
    out.sort_unstable();
    out
}

/// Checks a subset size `1 <= m <= n`.
pub(crate) fn check_subset(m: usize, n: usize) -> Result<()> {
    if m == 0 || m > n {
        return Err(Error::invalid(
            "subsample_size",
            format!("must be an integer in [1, n] = [1, {n}], got {m}"),
        ));
    }
    Ok(())
}

/// `f(query, rng)` for every query (rows of `queries`, `dim` values each), each with its own
/// generator spawned from `rng` in query order, in parallel.
pub(crate) fn per_query<T: Send>(
    queries: &[f64],
    dim: usize,
    rng: &mut Rng,
    f: impl Fn(&[f64], &mut Rng) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let q = queries.len().checked_div(dim).unwrap_or(0);
    let mut rngs: Vec<Rng> = (0..q).map(|_| rng.spawn()).collect();
    queries
        .par_chunks(dim.max(1))
        .zip(rngs.par_iter_mut())
        .map(|(x, r)| f(x, r))
        .collect()
}

/// The exponential mechanism with parameter `epsilon` over the representatives `reps`, utility
/// minus the mistakes on the whole sample (sensitivity 1): returns the chosen index.
pub(crate) fn select<C: Cover>(
    cover: &C,
    reps: &Reps,
    epsilon: f64,
    rng: &mut Rng,
) -> Result<usize> {
    let scores: Vec<i64> = cover
        .mistakes(reps)?
        .into_iter()
        .map(|e| -(e as i64))
        .collect();
    Ok(sample_i64(&scores, epsilon, 1.0, 1, rng)?[0])
}

/// Probabilities, under the exponential mechanism with parameter `epsilon` over `reps` scored by
/// their mistakes, of the representatives (floating point; for stability-only outputs and
/// tests, never for sampling).
pub(crate) fn selection_probabilities<C: Cover>(
    cover: &C,
    reps: &Reps,
    epsilon: f64,
) -> Result<Vec<f64>> {
    let errs = cover.mistakes(reps)?;
    let best = errs.iter().copied().min().unwrap_or(0);
    let w: Vec<f64> = errs
        .iter()
        .map(|&e| (-epsilon * (e - best) as f64 / 2.0).exp())
        .collect();
    let z: f64 = w.iter().sum();
    Ok(w.into_iter().map(|v| v / z).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_rate;

    #[test]
    fn subsets_are_uniform_and_distinct() {
        let mut rng = Rng::from_seed(3);
        let (n, m) = (6, 3);
        let mut counts = std::collections::HashMap::new();
        let draws = 40_000;
        for _ in 0..draws {
            let s = subset(n, m, &mut rng);
            assert_eq!(s.len(), m);
            assert!(s.windows(2).all(|w| w[0] < w[1]) && s[m - 1] < n);
            *counts.entry(s).or_insert(0u32) += 1;
        }
        // 20 subsets, each with probability 1/20: counts within 6 standard deviations.
        assert_eq!(counts.len(), 20);
        for c in counts.values() {
            assert_rate(
                f64::from(*c) / draws as f64,
                1.0 / 20.0,
                draws,
                0.0,
                "a subset",
            );
        }
        assert_eq!(subset(5, 5, &mut rng), vec![0, 1, 2, 3, 4]);
        assert!(subset(5, 0, &mut rng).is_empty());
    }

    #[test]
    fn flips_are_validated_and_exact_rate() {
        assert!(Flip::new(0, 4).is_err());
        assert!(Flip::new(3, 4).is_err());
        assert!(Flip::new(1, 0).is_err());
        assert!(Flip::new(1, 2).is_ok());
        let f = Flip::new(1, 4).unwrap();
        let mut rng = Rng::from_seed(1);
        let n = 100_000;
        let flips = (0..n).filter(|_| f.apply(false, &mut rng)).count() as f64;
        assert_rate(flips / n as f64, 0.25, n, 0.0, "flips");
    }
}
