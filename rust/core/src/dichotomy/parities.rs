//! Parities on `{0, 1}^dim`: `χ_a(x) = <a, x> mod 2`.
//!
//! The labeling of the points (rows of the `n x dim` matrix `X`) by `χ_a` is `X a` over GF(2):
//! the labelings are exactly the column space of `X`, `2^rank(X)` of them (Bun, Nissim and
//! Stemmer, §3.3 "PAR_d"; anchors note §4).
//!
//! **Algorithm.** One GF(2) elimination ([`crate::gf2::Matrix::rref`], the project's shared
//! implementation) gives the pivot columns `p_1 < ... < p_r` of `X`; the columns of `X` at the
//! pivots are a basis of the column space. A Gray-code walk over the `2^r` coefficient vectors
//! changes one coefficient per step, so each new labeling is the previous one XOR one basis
//! column: one pass over its `ceil(n/64)` words, which is optimal. Materialisation splits the
//! walk into blocks run in parallel (rayon), each started from its first Gray code directly, so
//! the output does not depend on the number of threads; streaming walks one block at a time.
//!
//! **Representatives** `a` (parameters: `a` bit-packed over `ceil(dim/64)` words, LSB-first):
//! the unique `a` supported on the pivot columns with `X a` equal to the labeling. The pivot
//! columns of `X` are the lexicographically first basis of its column matroid, which depends on
//! the set of distinct points only (not on the row order or on repetitions).
//!
//! **Order**: labeling `i` has coefficient vector `g(i) = i XOR (i >> 1)` (bit `k` is the
//! coefficient of pivot `p_{k+1}`); labeling 0 is all zeros.

use rayon::prelude::*;

use super::{Dichotomies, Source, words_for};
use crate::error::{Error, Result};
use crate::gf2::Matrix;

/// Labelings per parallel block (and per streamed batch).
const BLOCK: u64 = 1 << 12;

/// The points, their pivot columns, and the basis columns as packed labelings.
pub struct Parities {
    n: usize,
    dim: usize,
    pivots: Vec<usize>,
    /// Column `p_k` of `X` as a packed labeling of the `n` points, for each pivot.
    basis: Vec<Vec<u64>>,
    next: u64,
    label: Vec<u64>,
    a: Vec<u64>,
}

impl Parities {
    /// The parities of the rows of `x` (`n x dim` booleans, row-major).
    pub fn new(x: &[bool], dim: usize) -> Result<Self> {
        if dim == 0 {
            return Err(Error::invalid("dim", "must be at least 1"));
        }
        if !x.len().is_multiple_of(dim) {
            return Err(Error::invalid(
                "X",
                format!("must hold rows of {dim} bits, got {} values", x.len()),
            ));
        }
        let n = x.len() / dim;
        let m = Matrix::from_bools(n, dim, x)?;
        let cols = m.transpose();
        let pivots = m.clone().rref();
        let basis = pivots.iter().map(|&p| cols.row(p).to_vec()).collect();
        Ok(Parities {
            n,
            dim,
            pivots,
            basis,
            next: 0,
            label: vec![0; words_for(n)],
            a: vec![0; words_for(dim)],
        })
    }

    /// The rank of `X` over GF(2): there are `2^rank` labelings.
    pub fn rank(&self) -> usize {
        self.pivots.len()
    }

    /// The pivot columns (the support of the representatives).
    pub fn pivots(&self) -> &[usize] {
        &self.pivots
    }

    fn total(&self) -> Option<u64> {
        (self.rank() < 64).then(|| 1u64 << self.rank())
    }

    /// Labeling and representative of Gray code `g`, computed directly.
    fn at(&self, g: u64, label: &mut [u64], a: &mut [u64]) {
        label.fill(0);
        a.fill(0);
        for (k, col) in self.basis.iter().enumerate() {
            if g >> k & 1 == 1 {
                label.iter_mut().zip(col).for_each(|(l, c)| *l ^= c);
                let p = self.pivots[k];
                a[p / 64] ^= 1u64 << (p % 64);
            }
        }
    }

    /// Writes labelings `start..start + count` (Gray order) into `labels` and `params`.
    fn walk(&self, start: u64, count: usize, labels: &mut [u64], params: &mut [u64]) {
        let (w, pw) = (words_for(self.n), words_for(self.dim));
        if count == 0 {
            return;
        }
        let mut label = vec![0u64; w];
        let mut a = vec![0u64; pw];
        self.at(start ^ (start >> 1), &mut label, &mut a);
        labels[..w].copy_from_slice(&label);
        params[..pw].copy_from_slice(&a);
        for r in 1..count {
            let i = start + r as u64;
            let k = i.trailing_zeros() as usize; // Gray codes i-1 and i differ in bit k
            let (prev, cur) = labels[(r - 1) * w..(r + 1) * w].split_at_mut(w);
            for ((c, p), b) in cur.iter_mut().zip(prev.iter()).zip(&self.basis[k]) {
                *c = p ^ b;
            }
            let (prev, cur) = params[(r - 1) * pw..(r + 1) * pw].split_at_mut(pw);
            cur.copy_from_slice(prev);
            let p = self.pivots[k];
            cur[p / 64] ^= 1u64 << (p % 64);
        }
    }

    /// All `2^rank` labelings, refusing more than `max_count`.
    pub fn collect(&self, max_count: usize) -> Result<Dichotomies<u64>> {
        let total = match self.total() {
            Some(t) if t <= max_count as u64 => t as usize,
            _ => {
                return Err(super::too_many(format!("2^{}", self.rank()), max_count));
            }
        };
        let (w, pw) = (words_for(self.n), words_for(self.dim));
        let mut labels = super::zeroed::<u64>(total * w);
        let mut params = super::zeroed::<u64>(total * pw);
        let block = BLOCK as usize;
        if w == 0 {
            params
                .par_chunks_mut(block * pw)
                .enumerate()
                .for_each(|(c, p)| {
                    let mut scratch = vec![0u64; block];
                    self.walk((c * block) as u64, p.len() / pw, &mut scratch, p);
                });
        } else {
            labels
                .par_chunks_mut(block * w)
                .zip(params.par_chunks_mut(block * pw))
                .enumerate()
                .for_each(|(c, (l, p))| self.walk((c * block) as u64, l.len() / w, l, p));
        }
        Ok(Dichotomies::from_parts(self.n, pw, labels, params))
    }
}

impl Source for Parities {
    type Param = u64;
    fn n_points(&self) -> usize {
        self.n
    }
    fn param_len(&self) -> usize {
        words_for(self.dim)
    }
    fn next_batch(&mut self, out: &mut Dichotomies<u64>) -> bool {
        let total = self.total().unwrap_or(u64::MAX);
        if self.next >= total {
            return false;
        }
        let end = (self.next + BLOCK).min(total);
        for i in self.next..end {
            if i > 0 {
                let k = i.trailing_zeros() as usize;
                self.label
                    .iter_mut()
                    .zip(&self.basis[k])
                    .for_each(|(l, b)| *l ^= b);
                let p = self.pivots[k];
                self.a[p / 64] ^= 1u64 << (p % 64);
            }
            out.push(&self.label, &self.a);
        }
        self.next = end;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::{Stream, collect};
    use crate::rng::Rng;
    use std::collections::BTreeSet;

    fn points(n: usize, dim: usize, seed: u64) -> Vec<bool> {
        let mut rng = Rng::from_seed(seed);
        (0..n * dim).map(|_| rng.bit()).collect()
    }

    fn eval(x: &[bool], dim: usize, a: &[u64]) -> Vec<bool> {
        x.chunks(dim)
            .map(|row| {
                row.iter()
                    .enumerate()
                    .filter(|&(j, &b)| b && (a[j / 64] >> (j % 64)) & 1 == 1)
                    .count()
                    % 2
                    == 1
            })
            .collect()
    }

    #[test]
    fn all_parities_brute_force() {
        for (n, dim, seed) in [(6, 4, 1), (5, 7, 2), (9, 3, 3), (0, 3, 4), (4, 70, 5)] {
            let x = points(n, dim, seed);
            let p = Parities::new(&x, dim).unwrap();
            let d = p.collect(usize::MAX).unwrap();
            assert_eq!(d.len(), 1 << p.rank());
            let mut got = BTreeSet::new();
            for i in 0..d.len() {
                let lab: Vec<bool> = (0..n).map(|j| d.bit(i, j)).collect();
                assert_eq!(lab, eval(&x, dim, d.params(i)), "representative reproduces");
                for j in 0..dim {
                    if (d.params(i)[j / 64] >> (j % 64)) & 1 == 1 {
                        assert!(p.pivots().contains(&j), "supported on pivots");
                    }
                }
                assert!(got.insert(lab));
            }
            if dim <= 7 {
                let brute: BTreeSet<Vec<bool>> =
                    (0u64..1 << dim).map(|a| eval(&x, dim, &[a])).collect();
                assert_eq!(got, brute);
            }
            let streamed = collect(&mut Parities::new(&x, dim).unwrap(), usize::MAX).unwrap();
            assert_eq!(streamed, d);
        }
    }

    #[test]
    fn blocks_and_stream_agree_past_a_block() {
        // Rank 14: 16384 labelings, several parallel blocks and streamed batches.
        let x = points(100, 14, 7);
        let p = Parities::new(&x, 14).unwrap();
        assert_eq!(p.rank(), 14);
        let d = p.collect(usize::MAX).unwrap();
        let mut s = Stream::new(Parities::new(&x, 14).unwrap());
        let mut all = Vec::new();
        while let Some(c) = s.next_chunk(5000) {
            all.extend_from_slice(c.labels_flat());
        }
        assert_eq!(all, d.labels_flat());
        assert!(p.collect((1 << 14) - 1).is_err());
    }
}
