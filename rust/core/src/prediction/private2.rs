//! The private predictor of Theorem 2 (Dagan and Feldman, COLT 2020, §4.2, Lemma 8).
//!
//! For a query `x`: draw a uniformly random `m`-subset `S'`, choose `h ∈ C_{S'}` with the
//! exponential mechanism with parameter `ε₁` scored by the mistakes on the whole sample `S` (as
//! in [`super::stable`]), relabel the **whole** sample with `h` (`S_h`, realizable by the class),
//! and answer with the realizable-case private predictor `A'` of Lemma 6 run on `S_h`: the class's
//! exact ERM (a consistent learner) on each block of a fixed, data-independent partition into
//! `k` blocks, and the private vote of [`super::aggregate::vote`] with `ε₁` on their labels at `x`;
//! finally flip with probability `p` (the conversion of Corollary 1).
//!
//! `A'` is an `ε₁`-private prediction, and `t` examples changed in its input change at most `t`
//! block models, hence its answer by a factor at most `e^{ε₁ t}` (group privacy), which is what
//! the proof of Lemma 10 uses. The certificates (from `(class, n, m, ε₁, p)` only) are computed
//! in `privlearn.prediction`.

use super::aggregate::vote;
use super::cover::Cover;
use super::{Flip, check_subset, per_query, select, subset};
use crate::error::{Error, Result, check_epsilon};
use crate::rng::Rng;

/// Parameters of the Theorem 2 predictor.
#[derive(Debug, Clone, PartialEq)]
pub struct Private2Config {
    /// Size `m` of the random subset `S'`.
    pub m: usize,
    /// Parameter `ε₁` of the selection and of the vote.
    pub epsilon1: f64,
    /// The blocks of the partition of `{0..n-1}` (disjoint, non-empty, covering).
    pub blocks: Vec<Vec<usize>>,
    /// Flip probability.
    pub flip: Option<Flip>,
}

impl Private2Config {
    /// The configuration with blocks given by `block_of[i]` (the block of example `i`, in
    /// `0..n_blocks`); every block must be non-empty.
    pub fn from_assignment(
        m: usize,
        epsilon1: f64,
        block_of: &[usize],
        n_blocks: usize,
        flip: Option<Flip>,
    ) -> Result<Self> {
        let mut blocks = vec![Vec::new(); n_blocks];
        for (i, &b) in block_of.iter().enumerate() {
            if b >= n_blocks {
                return Err(Error::invalid(
                    "n_blocks",
                    format!("block indices must lie in [0, {n_blocks}), got {b}"),
                ));
            }
            blocks[b].push(i);
        }
        if n_blocks == 0 || blocks.iter().any(Vec::is_empty) {
            return Err(Error::invalid(
                "n_blocks",
                format!(
                    "must be in [1, n] with every block non-empty, got {n_blocks} blocks for {} examples",
                    block_of.len()
                ),
            ));
        }
        Ok(Private2Config {
            m,
            epsilon1,
            blocks,
            flip,
        })
    }

    fn check(&self, n: usize) -> Result<()> {
        check_subset(self.m, n)?;
        check_epsilon(self.epsilon1, "epsilon1")?;
        let covered: usize = self.blocks.iter().map(Vec::len).sum();
        if covered != n
            || self
                .blocks
                .iter()
                .any(|b| b.is_empty() || b.iter().any(|&i| i >= n))
        {
            return Err(Error::invalid(
                "n_blocks",
                format!("the blocks must partition the {n} examples"),
            ));
        }
        Ok(())
    }
}

/// One label per query (rows of `queries`), each an independent run of the algorithm.
pub fn predict<C: Cover>(
    cover: &C,
    queries: &[f64],
    cfg: &Private2Config,
    rng: &mut Rng,
) -> Result<Vec<bool>> {
    cfg.check(cover.n())?;
    cover.check_queries(queries)?;
    let k = cfg.blocks.len() as u64;
    per_query(queries, cover.query_dim(), rng, |x, r| {
        let reps = cover.cover(&subset(cover.n(), cfg.m, r))?;
        let h = reps.get(select(cover, &reps, cfg.epsilon1, r)?).to_vec();
        let relabeled = cover.relabel(&h);
        let mut c = 0u64;
        for block in &cfg.blocks {
            let labels: Vec<bool> = block.iter().map(|&i| relabeled[i]).collect();
            let g = cover.consistent(block, &labels)?;
            c += u64::from(cover.label(&g, x));
        }
        let y = vote(c, k, cfg.epsilon1, r)?;
        Ok(match cfg.flip {
            Some(f) => f.apply(y, r),
            None => y,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::Class;
    use crate::dichotomy::thresholds::Orientation;
    use crate::prediction::cover::RealCover;
    use crate::prediction::selection_probabilities;
    use crate::testing::assert_rate;

    #[test]
    fn frequencies_match_the_exact_probability() {
        let x = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [false, true, false, true, true, true];
        let cover = RealCover::new(Class::Thresholds(Orientation::Ge), &x, &y).unwrap();
        let cfg = Private2Config::from_assignment(2, 0.9, &[0, 1, 0, 1, 0, 1], 2, None).unwrap();
        // Exact probability: every subset, every representative, exact vote probability.
        let q = 2.5;
        let mut p = 0.0;
        let mut subsets = 0.0;
        for a in 0..6 {
            for b in a + 1..6 {
                let reps = cover.cover(&[a, b]).unwrap();
                let w = selection_probabilities(&cover, &reps, 0.9).unwrap();
                for (i, wi) in w.iter().enumerate() {
                    let lab = cover.relabel(reps.get(i));
                    let mut c = 0;
                    for blk in &cfg.blocks {
                        let l: Vec<bool> = blk.iter().map(|&j| lab[j]).collect();
                        c += u32::from(cover.label(&cover.consistent(blk, &l).unwrap(), &[q]));
                    }
                    let pv = 1.0 / (1.0 + (0.9 * (2.0 - 2.0 * f64::from(c)) / 2.0).exp());
                    p += wi * pv;
                }
                subsets += 1.0;
            }
        }
        p /= subsets;
        let draws = 20_000;
        let got = predict(&cover, &vec![q; draws], &cfg, &mut Rng::from_seed(3)).unwrap();
        let ones = got.iter().filter(|&&b| b).count() as f64 / draws as f64;
        assert_rate(ones, p, draws, 0.0, "private prediction");
    }

    #[test]
    fn partitions_are_validated() {
        assert!(Private2Config::from_assignment(1, 1.0, &[0, 2], 2, None).is_err());
        assert!(Private2Config::from_assignment(1, 1.0, &[0, 0], 2, None).is_err());
        assert!(Private2Config::from_assignment(1, 1.0, &[], 0, None).is_err());
        let x = [0.0, 1.0];
        let cover = RealCover::new(Class::Intervals, &x, &[true, false]).unwrap();
        let cfg = Private2Config::from_assignment(1, 1.0, &[0, 0, 1], 2, None).unwrap();
        assert!(predict(&cover, &[0.5], &cfg, &mut Rng::from_seed(1)).is_err());
    }
}
