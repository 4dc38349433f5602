//! The uniformly stable predictor of Theorem 1 (Dagan and Feldman, COLT 2020, §3.1, Lemma 7),
//! and its private version by flipping the output (Corollary 1).
//!
//! For a query `x`: draw a uniformly random `m`-subset `S'` of the sample, form the class
//! `C_{S'}` of the labelings of its points (one representative each, depending on the points
//! only), choose `h ∈ C_{S'}` with probability proportional to `exp(-ε₀ err_S(h) / 2)`, where
//! `err_S(h)` is the number of mistakes of `h` on the **whole** sample, and answer `h(x)`
//! (flipped with probability `p` when a flip is configured).
//!
//! Guarantees (replace-one neighbours, `n` public; the certificates are computed from
//! `(n, m, ε₀, p)` alone in `privlearn.prediction`): the answer is γ-uniformly stable with
//! `γ = m/n + (1 - m/n) tanh(ε₀/2)`; flipped, it is an ε-private prediction with
//! `e^ε = max(1 + (1-2p) q/p, (1-p) / (p + (1-2p)(1-q) e^{-ε₀}))`, `q = m/n`.

use super::cover::Cover;
use super::{Flip, check_subset, per_query, select, selection_probabilities, subset};
use crate::error::{Error, Result, check_epsilon};
use crate::rng::Rng;

/// Parameters of one stable (or, with a flip, private) prediction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StableConfig {
    /// Size `m` of the random subset `S'`.
    pub m: usize,
    /// Parameter `ε₀` of the exponential mechanism over `C_{S'}`.
    pub epsilon0: f64,
    /// Flip probability (Corollary 1), or none (Theorem 1).
    pub flip: Option<Flip>,
}

impl StableConfig {
    fn check(&self, n: usize) -> Result<()> {
        check_subset(self.m, n)?;
        check_epsilon(self.epsilon0, "epsilon0")
    }
}

/// One label per query (rows of `queries`), each an independent run of the algorithm.
pub fn predict<C: Cover>(
    cover: &C,
    queries: &[f64],
    cfg: &StableConfig,
    rng: &mut Rng,
) -> Result<Vec<bool>> {
    cfg.check(cover.n())?;
    cover.check_queries(queries)?;
    per_query(queries, cover.query_dim(), rng, |x, r| {
        let reps = cover.cover(&subset(cover.n(), cfg.m, r))?;
        let h = select(cover, &reps, cfg.epsilon0, r)?;
        let y = cover.label(reps.get(h), x);
        Ok(match cfg.flip {
            Some(f) => f.apply(y, r),
            None => y,
        })
    })
}

/// Rao–Blackwellised estimates of `Pr[A(S, x) = 1]` (without flip): for each query, the average
/// over `n_subsets` independent random subsets `S'` of the exact (floating-point) probability
/// that the exponential mechanism over `C_{S'}` picks a representative labelling `x` with 1.
/// Each term is a `[0, 1]`-valued answer whose expectation is `Pr[A(S, x) = 1]`: a confidence
/// output with the same stability, and **no privacy** (ERRATA 003-1).
pub fn proba<C: Cover>(
    cover: &C,
    queries: &[f64],
    m: usize,
    epsilon0: f64,
    n_subsets: usize,
    rng: &mut Rng,
) -> Result<Vec<f64>> {
    check_subset(m, cover.n())?;
    check_epsilon(epsilon0, "epsilon0")?;
    if n_subsets == 0 {
        return Err(Error::invalid(
            "n_subsets",
            "must be an integer >= 1, got 0",
        ));
    }
    cover.check_queries(queries)?;
    per_query(queries, cover.query_dim(), rng, |x, r| {
        let mut total = 0.0;
        for _ in 0..n_subsets {
            let reps = cover.cover(&subset(cover.n(), m, r))?;
            let probs = selection_probabilities(cover, &reps, epsilon0)?;
            total += probs
                .iter()
                .enumerate()
                .filter(|&(i, _)| cover.label(reps.get(i), x))
                .map(|(_, p)| p)
                .sum::<f64>();
        }
        Ok((total / n_subsets as f64).clamp(0.0, 1.0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::Class;
    use crate::dichotomy::thresholds::Orientation;
    use crate::prediction::cover::{FiniteCover, RealCover};
    use crate::testing::assert_rate;

    fn sample() -> (Vec<f64>, Vec<bool>) {
        let x = vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let y = vec![false, false, true, false, true, true];
        (x, y)
    }

    /// Exact `Pr[A(S, x) = 1]` by enumerating every subset (tiny samples).
    fn exact<C: Cover>(cover: &C, m: usize, eps: f64, x: &[f64]) -> f64 {
        let n = cover.n();
        let mut total = 0.0;
        let mut count = 0.0;
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != m {
                continue;
            }
            let idx: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
            let reps = cover.cover(&idx).unwrap();
            let p = selection_probabilities(cover, &reps, eps).unwrap();
            total += (0..reps.len())
                .filter(|&i| cover.label(reps.get(i), x))
                .map(|i| p[i])
                .sum::<f64>();
            count += 1.0;
        }
        total / count
    }

    #[test]
    fn frequencies_match_the_exact_probability() {
        let (x, y) = sample();
        let cover = RealCover::new(Class::Thresholds(Orientation::Ge), &x, &y).unwrap();
        let cfg = StableConfig {
            m: 2,
            epsilon0: 1.0,
            flip: None,
        };
        let mut rng = Rng::from_seed(11);
        for &q in &[1.5, 2.5, 3.5] {
            let p = exact(&cover, 2, 1.0, &[q]);
            let draws = 20_000;
            let ones = predict(&cover, &vec![q; draws], &cfg, &mut rng)
                .unwrap()
                .iter()
                .filter(|&&b| b)
                .count() as f64;
            assert_rate(ones / draws as f64, p, draws, 0.0, &format!("x = {q}"));
            // The Rao-Blackwellised estimate is unbiased, and much less noisy.
            let est = proba(&cover, &[q], 2, 1.0, 2_000, &mut rng).unwrap()[0];
            assert!((est - p).abs() < 0.03, "{est} vs {p}");
        }
    }

    #[test]
    fn flip_mixes_exactly() {
        let (x, y) = sample();
        let cover = RealCover::new(Class::Intervals, &x, &y).unwrap();
        let p_in = exact(&cover, 3, 0.5, &[4.5]);
        let cfg = StableConfig {
            m: 3,
            epsilon0: 0.5,
            flip: Some(Flip::new(1, 5).unwrap()),
        };
        let draws = 20_000;
        let mut rng = Rng::from_seed(2);
        let ones = predict(&cover, &vec![4.5; draws], &cfg, &mut rng)
            .unwrap()
            .iter()
            .filter(|&&b| b)
            .count() as f64;
        assert_rate(ones / draws as f64, 0.2 + 0.6 * p_in, draws, 0.0, "flipped");
    }

    #[test]
    fn finite_consistent_learner_is_the_exact_erm() {
        // Thresholds 1[x >= t] on {0..5}; the points 1, 2, 3, 3, 4, 4 labelled by t = 3
        // (realizable) and with the last label flipped (t = 3 is still the unique least-error
        // labeling: one mistake; t = 2 makes two, t >= 4 three).
        let cols = 6;
        let matrix: Vec<bool> = (0..=cols)
            .flat_map(|t| (0..cols).map(move |j| j >= t))
            .collect();
        let x = [1.0, 2.0, 3.0, 3.0, 4.0, 4.0];
        let y = [false, false, true, true, true, true];
        let fin = FiniteCover::new(&matrix, cols + 1, cols, &x, &y).unwrap();
        let flipped = [false, false, true, true, true, false];
        for labels in [y, flipped] {
            let rep = fin.consistent(&[0, 1, 2, 3, 4, 5], &labels).unwrap();
            assert!(
                (0..cols).all(|j| fin.label(&rep, &[j as f64]) == (j >= 3)),
                "{rep:?} for {labels:?}"
            );
        }
    }

    #[test]
    fn finite_class_frequencies_match() {
        // Thresholds 1[x >= t] on the domain {0..5} as a matrix: row t is 1 from t on.
        let cols = 6;
        let matrix: Vec<bool> = (0..=cols)
            .flat_map(|t| (0..cols).map(move |j| j >= t))
            .collect();
        let (x, y) = sample();
        let fin = FiniteCover::new(&matrix, cols + 1, cols, &x, &y).unwrap();
        let cfg = StableConfig {
            m: 3,
            epsilon0: 0.7,
            flip: None,
        };
        let mut rng = Rng::from_seed(4);
        for &q in &[1.0, 3.0, 5.0] {
            let p = exact(&fin, 3, 0.7, &[q]);
            let draws = 20_000;
            let ones = predict(&fin, &vec![q; draws], &cfg, &mut rng)
                .unwrap()
                .iter()
                .filter(|&&b| b)
                .count() as f64;
            assert_rate(ones / draws as f64, p, draws, 0.0, &format!("x = {q}"));
        }
        assert!(predict(&fin, &[6.0], &cfg, &mut rng).is_err());
        assert!(FiniteCover::new(&matrix, cols + 1, cols, &[7.0], &[true]).is_err());
    }

    #[test]
    fn reproducible_and_validated() {
        let (x, y) = sample();
        let cover = RealCover::new(Class::Intervals, &x, &y).unwrap();
        let cfg = StableConfig {
            m: 2,
            epsilon0: 1.0,
            flip: None,
        };
        let q = [0.5, 1.5, 2.5, 3.5, 4.5];
        let a = predict(&cover, &q, &cfg, &mut Rng::from_seed(5)).unwrap();
        let b = predict(&cover, &q, &cfg, &mut Rng::from_seed(5)).unwrap();
        assert_eq!(a, b);
        let mut rng = Rng::from_seed(1);
        for bad in [
            StableConfig { m: 0, ..cfg },
            StableConfig { m: 7, ..cfg },
            StableConfig {
                epsilon0: f64::NAN,
                ..cfg
            },
        ] {
            assert!(predict(&cover, &q, &bad, &mut rng).is_err());
        }
        assert!(predict(&cover, &[f64::INFINITY], &cfg, &mut rng).is_err());
        assert!(proba(&cover, &q, 2, 1.0, 0, &mut rng).is_err());
    }
}
