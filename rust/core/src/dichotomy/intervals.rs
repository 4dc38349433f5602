//! Closed intervals on the real line: `h_{a,b}(x) = 1[a <= x <= b]` (empty when `a > b`).
//!
//! **Algorithm** (incremental bitsets; Nandi and Bassily, §4.1 table): with `u_1 < ... < u_m`
//! the distinct values, the labelings are the empty one and, for every `i <= j`, "ones on
//! `u_i..u_j`": `m(m+1)/2 + 1` in all, which is Sauer–Shelah's bound for VC dimension 2, so it
//! is tight. For a fixed left end the right end grows one value at a time, setting the bits of
//! that value's rows, so each labeling costs one copy of its words: `O(n log n + m^2 n / 64)`.
//! Distinct values give distinct labelings: no deduplication is needed. Materialisation runs
//! the left ends in parallel (rayon) into precomputed, disjoint parts of the output.
//!
//! **Representatives** `[a, b]`: the empty labeling is `[+inf, -inf]`; "ones on `u_i..u_j`" is
//! `a = -inf` (`i = 1`) or a cut in `(u_{i-1}, u_i]`, and `b = +inf` (`j = m`) or a cut in
//! `[u_j, u_{j+1})` (rounded mid-points, see [`super::cut_above`]).
//!
//! **Order**: the empty labeling, then `(i, j)` in lexicographic order.

use rayon::prelude::*;

use super::{Dichotomies, Grouped, Source, check_count, cut_above, cut_below, words_for};
use crate::error::Result;

/// Number of labelings on `m` distinct values.
pub fn count(m: usize) -> u128 {
    let m = m as u128;
    m * (m + 1) / 2 + 1
}

/// Streaming generator of the interval labelings of `x` (one value per row).
pub struct Intervals {
    g: Grouped,
    /// Next left end (0-based); `None` before the empty labeling.
    next_left: Option<usize>,
}

impl Intervals {
    /// A generator over the values `x` (finite).
    pub fn new(x: &[f64]) -> Result<Self> {
        super::check_finite(x, "X")?;
        Ok(Intervals {
            g: Grouped::new(x, 1, &[0]),
            next_left: None,
        })
    }

    /// Number of labelings.
    pub fn count(&self) -> u128 {
        count(self.g.len())
    }

    fn lower(&self, i: usize) -> f64 {
        if i == 0 {
            f64::NEG_INFINITY
        } else {
            cut_above(self.g.pts[i - 1], self.g.pts[i])
        }
    }

    fn upper(&self, j: usize) -> f64 {
        if j + 1 == self.g.len() {
            f64::INFINITY
        } else {
            cut_below(self.g.pts[j], self.g.pts[j + 1])
        }
    }

    /// Writes the labelings with left end `i` (right ends `i..m`) into `labels` and `params`.
    fn fill_left(&self, i: usize, labels: &mut [u64], params: &mut [f64]) {
        let w = words_for(self.g.n);
        let mut cur = vec![0u64; w];
        let a = self.lower(i);
        for (k, j) in (i..self.g.len()).enumerate() {
            self.g.set(&mut cur, j);
            labels[k * w..(k + 1) * w].copy_from_slice(&cur);
            params[2 * k] = a;
            params[2 * k + 1] = self.upper(j);
        }
    }

    /// All labelings at once (left ends in parallel), refusing more than `max_count`.
    pub fn collect(self, max_count: usize) -> Result<Dichotomies<f64>> {
        let total = self.count();
        check_count(total, max_count)?;
        let (m, w) = (self.g.len(), words_for(self.g.n));
        let total = total as usize;
        let mut labels = super::zeroed::<u64>(total * w);
        let mut params = super::zeroed::<f64>(total * 2);
        params[0] = f64::INFINITY;
        params[1] = f64::NEG_INFINITY;
        // Split the outputs into the disjoint blocks of each left end.
        let mut blocks = Vec::with_capacity(m);
        let (mut lrest, mut prest) = (&mut labels[w..], &mut params[2..]);
        for i in 0..m {
            let k = m - i;
            let (lb, lr) = lrest.split_at_mut(k * w);
            let (pb, pr) = prest.split_at_mut(2 * k);
            blocks.push((i, lb, pb));
            lrest = lr;
            prest = pr;
        }
        blocks
            .into_par_iter()
            .with_max_len(1)
            .for_each(|(i, lb, pb)| self.fill_left(i, lb, pb));
        Ok(Dichotomies::from_parts(self.g.n, 2, labels, params))
    }
}

impl Source for Intervals {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        2
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        let w = words_for(self.g.n);
        match self.next_left {
            None => {
                out.push(&vec![0u64; w], &[f64::INFINITY, f64::NEG_INFINITY]);
                self.next_left = Some(0);
                true
            }
            Some(i) if i < self.g.len() => {
                let k = self.g.len() - i;
                let mut labels = vec![0u64; k * w];
                let mut params = vec![0f64; 2 * k];
                self.fill_left(i, &mut labels, &mut params);
                for r in 0..k {
                    out.push(&labels[r * w..(r + 1) * w], &params[2 * r..2 * r + 2]);
                }
                self.next_left = Some(i + 1);
                true
            }
            Some(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::{Stream, collect};

    #[test]
    fn parallel_and_streamed_agree_and_reproduce() {
        let x: Vec<f64> = (0..150).map(|i| ((i * 37) % 101) as f64 * 0.5).collect();
        let par = Intervals::new(&x).unwrap().collect(usize::MAX).unwrap();
        let seq = collect(&mut Intervals::new(&x).unwrap(), usize::MAX).unwrap();
        assert_eq!(par, seq);
        let m = 101;
        assert_eq!(par.len() as u128, count(m));
        let mut stream = Stream::new(Intervals::new(&x).unwrap());
        let mut all = Vec::new();
        while let Some(c) = stream.next_chunk(777) {
            all.extend_from_slice(c.labels_flat());
        }
        assert_eq!(all, par.labels_flat());
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..par.len() {
            assert!(seen.insert(par.label(i).to_vec()));
            let p = par.params(i);
            for (j, &v) in x.iter().enumerate() {
                assert_eq!(par.bit(i, j), p[0] <= v && v <= p[1]);
            }
        }
    }

    #[test]
    fn max_count_refuses() {
        let x = [1.0, 2.0, 3.0];
        assert!(Intervals::new(&x).unwrap().collect(6).is_err());
        assert_eq!(Intervals::new(&x).unwrap().collect(7).unwrap().len(), 7);
        assert!(collect(&mut Intervals::new(&x).unwrap(), 6).is_err());
    }
}
