//! The score of every threshold labeling of a labelled sample, without listing the labelings:
//! the hot path of `A_Relabel` (Nandi and Bassily, Alg. 2 step 4) for thresholds.
//!
//! `A_Relabel` samples one labeling of the private points by the exponential mechanism with
//! score `−mistakes`; only the mistakes of each labeling matter. For thresholds on `M` distinct
//! values `u_0 < ... < u_{M-1}` the labelings are "zeros on the `k` smallest values" (`x >= t`)
//! and "ones on the `k` smallest values" (`x <= t`), so all `M + 1` (or `2M`) mistakes follow
//! from prefix counts of the labels in `O(n log n)`, where enumerating and scoring the packed
//! labelings costs `O(M n / 64)`. The order is exactly that of
//! [`crate::dichotomy::thresholds::Thresholds`] (checked by the tests), so index `i` here is
//! labeling `i` of `privlearn.hypotheses.Thresholds(...).dichotomies(X)`.

use rayon::prelude::*;

use crate::dichotomy::represent::sort_pairs;
use crate::dichotomy::thresholds::Orientation;
use crate::dichotomy::{check_finite, cut_above, cut_below};
use crate::error::{Error, Result};

/// `(x_i + 0.0, y_i)` sorted by value: `-0.0` and `0.0` are one value, as in the dichotomy
/// module (a missing label counts as 0).
fn canonical_pairs(x: &[f64], y: &[bool]) -> Vec<(f64, bool)> {
    sort_pairs(
        x.iter()
            .enumerate()
            .map(|(i, &v)| (v + 0.0, y.get(i).copied().unwrap_or(false)))
            .collect(),
    )
}

/// Distinct values in increasing order, with prefix counts of the labels: `pos_below[k]`
/// (`neg_below[k]`) positives (negatives) among the points of the `k` smallest values.
#[derive(Debug, Default)]
struct Groups {
    u: Vec<f64>,
    pos_below: Vec<u64>,
    neg_below: Vec<u64>,
}

impl Groups {
    /// Refills the groups from pairs sorted by value (reusing the buffers).
    fn fill(&mut self, pairs: &[(f64, bool)]) {
        self.u.clear();
        self.pos_below.clear();
        self.neg_below.clear();
        self.pos_below.push(0);
        self.neg_below.push(0);
        let (mut p, mut q) = (0u64, 0u64);
        for &(v, label) in pairs {
            if self.u.last() != Some(&v) {
                if !self.u.is_empty() {
                    self.pos_below.push(p);
                    self.neg_below.push(q);
                }
                self.u.push(v);
            }
            if label {
                p += 1;
            } else {
                q += 1;
            }
        }
        if !self.u.is_empty() {
            self.pos_below.push(p);
            self.neg_below.push(q);
        }
    }

    fn m(&self) -> usize {
        self.u.len()
    }

    /// Mistakes of labeling `index` (enumeration order).
    fn mistakes(&self, orientation: Orientation, index: usize) -> u64 {
        let m = self.m();
        let (p, q) = (self.pos_below[m], self.neg_below[m]);
        match phase(m, orientation, index) {
            // zeros on the k smallest values, ones above
            Some((true, k)) => self.pos_below[k] + (q - self.neg_below[k]),
            // ones on the k smallest values, zeros above
            Some((false, k)) => self.neg_below[k] + (p - self.pos_below[k]),
            None => unreachable!("index below the count"),
        }
    }
}

/// Checks finite points and one label per point.
fn check_sample(x: &[f64], y: &[bool]) -> Result<()> {
    check_finite(x, "X")?;
    if y.len() != x.len() {
        return Err(Error::invalid(
            "y",
            format!(
                "must have one label per point ({}), got {}",
                x.len(),
                y.len()
            ),
        ));
    }
    Ok(())
}

/// `(orientation is >=, k)` of labeling `index` in the enumeration order, or `None` if out of
/// range.
fn phase(m: usize, orientation: Orientation, index: usize) -> Option<(bool, usize)> {
    match orientation {
        Orientation::Ge => (index <= m).then_some((true, index)),
        Orientation::Le => (index <= m).then_some((false, index)),
        Orientation::Both if m == 0 => (index == 0).then_some((true, 0)),
        Orientation::Both if index <= m => Some((true, index)),
        Orientation::Both => (index - m < m).then_some((false, index - m)),
    }
}

fn count(m: usize, orientation: Orientation) -> usize {
    match orientation {
        Orientation::Both if m > 0 => 2 * m,
        _ => m + 1,
    }
}

/// Mistakes against `y` of every threshold labeling of the points `x`, in enumeration order.
pub fn threshold_mistakes(x: &[f64], y: &[bool], orientation: Orientation) -> Result<Vec<u64>> {
    check_sample(x, y)?;
    let mut g = Groups::default();
    g.fill(&canonical_pairs(x, y));
    Ok((0..count(g.m(), orientation))
        .map(|i| g.mistakes(orientation, i))
        .collect())
}

/// The representative `[t, s]` of labeling `index`, exactly as the enumeration gives it.
fn representative(u: &[f64], orientation: Orientation, index: usize) -> [f64; 2] {
    let m = u.len();
    let (ge, k) = phase(m, orientation, index).expect("index below the count");
    let t = if k == 0 {
        f64::NEG_INFINITY
    } else if k == m {
        f64::INFINITY
    } else if ge {
        cut_above(u[k - 1], u[k])
    } else {
        cut_below(u[k - 1], u[k])
    };
    [t, if ge { 1.0 } else { -1.0 }]
}

/// Exact empirical-risk minimisers of thresholds on blocks of a sample: block `j` holds the
/// points `order[j * size .. (j + 1) * size]`; for each block, the parameters `[t, s]` of the
/// first labeling of minimal mistakes in enumeration order (the result of
/// [`crate::dichotomy::Class::erm`], in `O(size log size)` per block instead of enumerating the
/// labelings). In parallel over blocks.
pub fn threshold_erm_blocks(
    x: &[f64],
    y: &[bool],
    order: &[usize],
    size: usize,
    orientation: Orientation,
) -> Result<Vec<[f64; 2]>> {
    check_sample(x, y)?;
    if size == 0 {
        return Err(Error::invalid("size", "must be at least 1"));
    }
    if let Some(&bad) = order.iter().find(|&&i| i >= x.len()) {
        return Err(Error::invalid(
            "order",
            format!("must hold indices below {}, got {bad}", x.len()),
        ));
    }
    Ok(order
        .par_chunks_exact(size)
        .map_init(
            || (Vec::with_capacity(size), Groups::default()),
            |(pairs, g), block| {
                pairs.clear();
                pairs.extend(block.iter().map(|&i| (x[i] + 0.0, y[i])));
                pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                g.fill(pairs);
                let mut best = (u64::MAX, 0);
                for i in 0..count(g.m(), orientation) {
                    let v = g.mistakes(orientation, i);
                    if v < best.0 {
                        best = (v, i);
                    }
                }
                representative(&g.u, orientation, best.1)
            },
        )
        .collect())
}

/// Labeling `index` (in enumeration order) of the points `x`.
pub fn threshold_labeling(x: &[f64], orientation: Orientation, index: usize) -> Result<Vec<bool>> {
    check_finite(x, "X")?;
    let mut g = Groups::default();
    g.fill(&canonical_pairs(x, &[]));
    let u = g.u;
    let m = u.len();
    let Some((ge, k)) = phase(m, orientation, index) else {
        return Err(Error::invalid(
            "index",
            format!(
                "must be below the number of labelings ({}), got {index}",
                count(m, orientation)
            ),
        ));
    };
    Ok(x.iter()
        .map(|&v| {
            let below = u.partition_point(|&w| w < v + 0.0); // rank of v's value
            if ge { below >= k } else { below < k }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::collect;
    use crate::dichotomy::thresholds::Thresholds;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn equals_the_enumeration(
            pts in prop::collection::vec(((-5i32..5), any::<bool>()), 0..25),
        ) {
            let x: Vec<f64> = pts.iter().map(|p| if p.0 == 0 { -0.0 } else { f64::from(p.0) / 2.0 }).collect();
            let y: Vec<bool> = pts.iter().map(|p| p.1).collect();
            for o in [Orientation::Ge, Orientation::Le, Orientation::Both] {
                let d = collect(&mut Thresholds::new(&x, o).unwrap(), usize::MAX).unwrap();
                let fast = threshold_mistakes(&x, &y, o).unwrap();
                prop_assert_eq!(fast.len(), d.len());
                for (i, &f) in fast.iter().enumerate() {
                    let lab = threshold_labeling(&x, o, i).unwrap();
                    let want: Vec<bool> = (0..x.len()).map(|j| d.bit(i, j)).collect();
                    prop_assert_eq!(&lab, &want);
                    let wrong = lab.iter().zip(&y).filter(|(a, b)| a != b).count() as u64;
                    prop_assert_eq!(f, wrong);
                }
                prop_assert!(threshold_labeling(&x, o, fast.len()).is_err());
            }
        }
    }

    proptest! {
        #[test]
        fn block_erm_equals_the_class_erm(
            pts in prop::collection::vec(((-4i32..4), any::<bool>()), 1..40),
            size in 1usize..10,
        ) {
            use crate::dichotomy::Class;
            use crate::dichotomy::score::Scorer;
            let x: Vec<f64> = pts.iter().map(|p| f64::from(p.0) / 3.0).collect();
            let y: Vec<bool> = pts.iter().map(|p| p.1).collect();
            let order: Vec<usize> = (0..x.len()).rev().collect();
            for o in [Orientation::Ge, Orientation::Le, Orientation::Both] {
                let fast = threshold_erm_blocks(&x, &y, &order, size, o).unwrap();
                prop_assert_eq!(fast.len(), x.len() / size);
                for (j, params) in fast.iter().enumerate() {
                    let block = &order[j * size..(j + 1) * size];
                    let bx: Vec<f64> = block.iter().map(|&i| x[i]).collect();
                    let by: Vec<bool> = block.iter().map(|&i| y[i]).collect();
                    let (_, want) = Class::Thresholds(o).erm(&bx, &Scorer::new(&by, None).unwrap()).unwrap();
                    prop_assert_eq!(params.to_vec(), want);
                }
            }
        }
    }

    #[test]
    fn bad_input() {
        assert!(threshold_mistakes(&[1.0, f64::NAN], &[true, false], Orientation::Ge).is_err());
        assert!(threshold_mistakes(&[1.0], &[true, false], Orientation::Ge).is_err());
        assert_eq!(
            threshold_mistakes(&[], &[], Orientation::Both).unwrap(),
            vec![0]
        );
    }
}
