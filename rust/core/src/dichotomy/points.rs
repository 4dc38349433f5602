//! Point functions: `h_p(x) = 1[x = p]`, the indicator of one domain element `p`.
//!
//! The domain is `R^dim` (coordinates compared exactly, `-0.0 = 0.0`), or the finite set
//! `{0, ..., M-1}` when a domain size `M` is given. On the distinct points `P` of the sample the
//! labelings are the indicators `e_p` (`p ∈ P`) and, when some domain element lies outside `P`,
//! the all-zero labeling (Bun, Nissim and Stemmer, §3.3 "Dichotomy enumeration": `|P|` labelings,
//! plus one iff `X ≠ P`). On an infinite domain the all-zero labeling is always realizable.
//!
//! **Representatives** (parameters: the point `p`, `dim` values): `e_p` is `h_p`; the all-zero
//! labeling is `h_q` with `q` the smallest domain element outside `P` (finite domain), or
//! `q = (k, 0, ..., 0)` with `k` the smallest non-negative integer for which `q ∉ P`.
//!
//! **Order**: the all-zero labeling (if realizable), then the points in lexicographic order.

use super::{Dichotomies, Grouped, Source, words_for};
use crate::error::{Error, Result};

/// Streaming generator of the point-function labelings.
pub struct Points {
    g: Grouped,
    zero_rep: Option<Vec<f64>>,
    next: usize,
}

impl Points {
    /// A generator over the rows of `x` (`n x dim`, row-major). With `domain_size = Some(M)`,
    /// `dim` must be 1 and the values integers in `[0, M)`.
    pub fn new(x: &[f64], dim: usize, domain_size: Option<u64>) -> Result<Self> {
        super::check_shape(x, dim, "X")?;
        super::check_finite(x, "X")?;
        if let Some(m) = domain_size {
            if dim != 1 {
                return Err(Error::invalid(
                    "domain_size",
                    format!("a finite domain {{0..M-1}} needs dim = 1, got dim = {dim}"),
                ));
            }
            if let Some(v) = x
                .iter()
                .find(|&&v| !(v >= 0.0 && v.fract() == 0.0 && v < m as f64))
            {
                return Err(Error::invalid(
                    "X",
                    format!("must hold domain elements, integers in [0, {m}), got {v}"),
                ));
            }
        }
        let order: Vec<usize> = (0..dim).collect();
        let g = Grouped::new(x, dim, &order);
        let contains = |q: &[f64]| {
            let (mut lo, mut hi) = (0, g.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                let p = g.point(mid);
                let c = p
                    .iter()
                    .zip(q)
                    .map(|(a, b)| a.total_cmp(b))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal);
                match c {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return true,
                }
            }
            false
        };
        let zero_rep = match domain_size {
            Some(m) if (g.len() as u64) >= m => None,
            Some(_) => (0u64..).map(|k| vec![k as f64]).find(|q| !contains(q)),
            None => (0u64..)
                .map(|k| {
                    let mut q = vec![0.0; dim];
                    q[0] = k as f64;
                    q
                })
                .find(|q| !contains(q)),
        };
        Ok(Points {
            g,
            zero_rep,
            next: 0,
        })
    }

    /// Number of labelings.
    pub fn count(&self) -> u128 {
        self.g.len() as u128 + u128::from(self.zero_rep.is_some())
    }
}

impl Source for Points {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        self.g.dim
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        let w = words_for(self.g.n);
        let offset = usize::from(self.zero_rep.is_some());
        let total = self.g.len() + offset;
        if self.next >= total {
            return false;
        }
        let end = (self.next + 256).min(total);
        let mut label = vec![0u64; w];
        for i in self.next..end {
            if i < offset {
                out.push(&label, self.zero_rep.as_deref().unwrap_or(&[]));
            } else {
                let k = i - offset;
                self.g.set(&mut label, k);
                out.push(&label, self.g.point(k));
                self.g.clear(&mut label, k);
            }
        }
        self.next = end;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::collect;

    #[test]
    fn counts_with_and_without_domain() {
        let x = [2.0, 0.0, 2.0, 1.0];
        let d = collect(&mut Points::new(&x, 1, None).unwrap(), usize::MAX).unwrap();
        assert_eq!(d.len(), 4);
        assert_eq!(d.params(0), &[3.0]);
        assert_eq!(d.label(0), &[0]);
        assert_eq!(d.label(3), &[0b0101]);
        let d = collect(&mut Points::new(&x, 1, Some(3)).unwrap(), usize::MAX).unwrap();
        assert_eq!(d.len(), 3);
        let d = collect(&mut Points::new(&x, 1, Some(5)).unwrap(), usize::MAX).unwrap();
        assert_eq!(d.len(), 4);
        assert!(Points::new(&[5.0], 1, Some(5)).is_err());
        assert!(Points::new(&[0.5], 1, Some(5)).is_err());
        let x2 = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let d = collect(&mut Points::new(&x2, 2, None).unwrap(), usize::MAX).unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d.params(0), &[2.0, 0.0]);
    }
}
