//! Many hypotheses of one class evaluated on many points: the votes of an ensemble on each query
//! (subsample-and-aggregate, `A_SubSamp` lines 7–8). The mistakes of a set of representatives on
//! other labelled points (the score of `A_SSPP`, Nandi and Bassily Alg. 7 step 6) are
//! [`crate::dichotomy::represent::RepScorer`]'s.
//!
//! The prediction rule is [`Class::eval`] (the dichotomy module's parameter layouts: thresholds
//! `[t, s]` (`s > 0`: `1[x >= t]`, else `1[x <= t]`), intervals `[a, b]` (`1[a <= x <= b]`, empty
//! when `a > b`), rectangles `[lo.., hi..]`, halfspaces `[w.., b]` (`1[w . x + b >= 0]`, decided by
//! the exact predicate [`crate::predicates::affine_sign`]) and points `[p..]` (`1[x = p]`)).
//!
//! One-dimensional classes use sorted structures (the implementation notes' §5.3): the votes of
//! `k` thresholds on a query are two binary searches in their sorted cut points (`O(log k)` per
//! query), those of intervals `#{a <= x} - #{b < x}` over the non-empty ones. The other classes
//! evaluate every pair, in parallel (rayon) over queries or hypotheses. All counts are exact
//! integers, so the result does not depend on the number of threads.

use rayon::prelude::*;

use crate::dichotomy::{Class, check_shape};
use crate::error::{Error, Result};
use crate::predicates::affine_sign;

/// Queries per parallel task, and the smallest batch worth splitting by queries.
const PAR_QUERIES: usize = 256;
/// Hypotheses per parallel task when one query is split by hypotheses.
const PAR_HYPOTHESES: usize = 4096;

/// Checks a flat parameter array: whole rows, no NaN, finite where the class needs it.
fn check_params(class: Class, params: &[f64]) -> Result<usize> {
    let plen = class.param_len();
    if plen == 0 || !params.len().is_multiple_of(plen) {
        return Err(Error::invalid(
            "params",
            format!(
                "must hold rows of {plen} parameters, got {} values",
                params.len()
            ),
        ));
    }
    let finite_only = matches!(class, Class::Halfspaces(_) | Class::Points(..));
    if let Some(i) = params
        .iter()
        .position(|v| v.is_nan() || (finite_only && !v.is_finite()))
    {
        return Err(Error::invalid(
            "params",
            format!(
                "must hold {} numbers, got {} at flat index {i}",
                if finite_only { "finite" } else { "non-NaN" },
                params[i]
            ),
        ));
    }
    if let Class::Thresholds(_) = class
        && let Some(r) = params.chunks(2).position(|p| p[1] == 0.0)
    {
        return Err(Error::invalid(
            "params",
            format!("threshold {r}: the orientation s must be +1 (x >= t) or -1 (x <= t), got 0"),
        ));
    }
    Ok(params.len() / plen)
}

/// Checks the points: whole rows of the class's dimension, finite values.
fn check_points(class: Class, x: &[f64]) -> Result<usize> {
    let n = check_shape(x, class.dim(), "X")?;
    crate::dichotomy::check_finite(x, "X")?;
    Ok(n)
}

/// Sorted `f64`s (total order; `-0.0` before `0.0`, which `<=` treats as equal).
fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_unstable_by(f64::total_cmp);
    v
}

#[derive(Debug, Clone)]
enum Layout {
    /// Cut points of the `1[x >= t]` and of the `1[x <= t]` members, each sorted.
    Thresholds { ge: Vec<f64>, le: Vec<f64> },
    /// Left and right ends of the non-empty members, each sorted.
    Intervals { a: Vec<f64>, b: Vec<f64> },
    /// The raw parameter rows.
    Rows(Vec<f64>),
}

/// `k` hypotheses of one class, prepared for counting their votes on queries.
#[derive(Debug, Clone)]
pub struct Ensemble {
    class: Class,
    k: usize,
    layout: Layout,
}

impl Ensemble {
    /// The ensemble of the hypotheses whose parameters are the rows of `params`
    /// (`k x class.param_len()`, flat).
    pub fn new(class: Class, params: &[f64]) -> Result<Self> {
        let k = check_params(class, params)?;
        let layout = match class {
            Class::Thresholds(_) => {
                let (mut ge, mut le) = (Vec::new(), Vec::new());
                for p in params.chunks(2) {
                    if p[1] > 0.0 { &mut ge } else { &mut le }.push(p[0]);
                }
                Layout::Thresholds {
                    ge: sorted(ge),
                    le: sorted(le),
                }
            }
            Class::Intervals => {
                let (a, b): (Vec<f64>, Vec<f64>) = params
                    .chunks(2)
                    .filter(|p| p[0] <= p[1])
                    .map(|p| (p[0], p[1]))
                    .unzip();
                Layout::Intervals {
                    a: sorted(a),
                    b: sorted(b),
                }
            }
            _ => Layout::Rows(params.to_vec()),
        };
        Ok(Ensemble { class, k, layout })
    }

    /// Number of hypotheses.
    pub fn len(&self) -> usize {
        self.k
    }

    /// `true` if the ensemble has no hypothesis.
    pub fn is_empty(&self) -> bool {
        self.k == 0
    }

    /// The class of the hypotheses.
    pub fn class(&self) -> Class {
        self.class
    }

    /// The number of hypotheses that label the point `x` with 1.
    fn votes_one(&self, x: &[f64], split: bool) -> u64 {
        match &self.layout {
            Layout::Thresholds { ge, le } => {
                let v = x[0];
                let ge_ones = ge.partition_point(|&t| t <= v);
                let le_ones = le.len() - le.partition_point(|&t| t < v);
                (ge_ones + le_ones) as u64
            }
            Layout::Intervals { a, b } => {
                let v = x[0];
                (a.partition_point(|&t| t <= v) - b.partition_point(|&t| t < v)) as u64
            }
            Layout::Rows(rows) => {
                let plen = self.class.param_len();
                if split && self.k >= 2 * PAR_HYPOTHESES {
                    rows.par_chunks(plen * PAR_HYPOTHESES)
                        .map(|chunk| self.count_rows(chunk, x))
                        .sum()
                } else {
                    self.count_rows(rows, x)
                }
            }
        }
    }

    fn count_rows(&self, rows: &[f64], x: &[f64]) -> u64 {
        let plen = self.class.param_len();
        match self.class {
            // the hot case, without the per-row dispatch
            Class::Halfspaces(d) => rows
                .chunks_exact(plen)
                .filter(|p| affine_sign(&p[..d], x, p[d]) >= 0)
                .count() as u64,
            _ => rows
                .chunks_exact(plen)
                .filter(|p| self.class.eval(p, x))
                .count() as u64,
        }
    }

    /// For each row of `x` (`n x dim`, flat), the number of hypotheses that label it 1.
    pub fn votes(&self, x: &[f64]) -> Result<Vec<u64>> {
        let n = check_points(self.class, x)?;
        let dim = self.class.dim();
        // Parallel over queries when there are many, else over the hypotheses of each query
        // (never both: nested tasks only add overhead).
        Ok(if n >= 2 * PAR_QUERIES {
            x.par_chunks(dim * PAR_QUERIES)
                .flat_map_iter(|block| block.chunks(dim).map(|row| self.votes_one(row, false)))
                .collect()
        } else {
            x.chunks(dim).map(|row| self.votes_one(row, true)).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::thresholds::Orientation;
    use proptest::prelude::*;

    fn brute_votes(class: Class, params: &[f64], x: &[f64]) -> Vec<u64> {
        let plen = class.param_len();
        x.chunks(class.dim())
            .map(|row| params.chunks(plen).filter(|p| class.eval(p, row)).count() as u64)
            .collect()
    }

    #[test]
    fn thresholds_votes() {
        let class = Class::Thresholds(Orientation::Both);
        // 1[x >= 0.5], 1[x >= -inf] (all ones), 1[x <= 0.2], 1[x <= 0.5]
        let params = [0.5, 1.0, f64::NEG_INFINITY, 1.0, 0.2, -1.0, 0.5, -1.0];
        let e = Ensemble::new(class, &params).unwrap();
        assert_eq!(e.len(), 4);
        let x = [0.0, 0.2, 0.5, 0.9];
        assert_eq!(e.votes(&x).unwrap(), vec![3, 3, 3, 2]);
    }

    #[test]
    fn intervals_skip_empty_members() {
        let class = Class::Intervals;
        let params = [0.0, 1.0, f64::INFINITY, f64::NEG_INFINITY, 0.5, 0.5];
        let e = Ensemble::new(class, &params).unwrap();
        assert_eq!(e.votes(&[-1.0, 0.5, 0.7, 2.0]).unwrap(), vec![0, 2, 1, 0]);
    }

    #[test]
    fn bad_input_is_refused() {
        let c = Class::Thresholds(Orientation::Ge);
        assert!(Ensemble::new(c, &[0.5]).is_err());
        assert!(Ensemble::new(c, &[f64::NAN, 1.0]).is_err());
        assert!(Ensemble::new(c, &[0.5, 0.0]).is_err());
        assert!(Ensemble::new(Class::Halfspaces(2), &[1.0, f64::INFINITY, 0.0]).is_err());
        let e = Ensemble::new(Class::Halfspaces(2), &[1.0, 0.0, 0.0]).unwrap();
        assert!(e.votes(&[1.0, 2.0, 3.0]).is_err());
        assert!(e.votes(&[1.0, f64::NAN]).is_err());
    }

    #[test]
    fn halfspace_votes_are_exact_on_the_boundary() {
        // 0.1 + 0.2 != 0.3 in floating point; the exact predicate decides w.x + b = 0 exactly.
        let class = Class::Halfspaces(2);
        let params = [1.0, 1.0, -0.3, -1.0, -1.0, 0.3];
        let e = Ensemble::new(class, &params).unwrap();
        let x = [0.1, 0.2];
        assert_eq!(e.votes(&x).unwrap(), brute_votes(class, &params, &x));
        assert_eq!(e.votes(&[0.0, 0.0]).unwrap(), vec![1]);
    }

    #[test]
    fn large_ensembles_split_work_the_same_way() {
        let class = Class::Halfspaces(1);
        let params: Vec<f64> = (0..3 * PAR_HYPOTHESES)
            .flat_map(|i| [1.0, -((i % 97) as f64)])
            .collect();
        let x: Vec<f64> = (0..3 * PAR_QUERIES).map(|i| (i % 101) as f64).collect();
        let e = Ensemble::new(class, &params).unwrap();
        assert_eq!(e.votes(&x).unwrap(), brute_votes(class, &params, &x));
        assert_eq!(
            e.votes(&x[..1]).unwrap(),
            brute_votes(class, &params, &x[..1])
        );
    }

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            (-6i32..6).prop_map(f64::from),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
        ]
    }

    proptest! {
        #[test]
        fn fast_paths_equal_brute_force(
            ts in prop::collection::vec((value(), any::<bool>()), 0..30),
            ivs in prop::collection::vec((value(), value()), 0..30),
            x in prop::collection::vec((-6i32..6).prop_map(f64::from), 0..40),
        ) {
            let tp: Vec<f64> = ts.iter().flat_map(|&(t, s)| [t, if s { 1.0 } else { -1.0 }]).collect();
            let ip: Vec<f64> = ivs.iter().flat_map(|&(a, b)| [a, b]).collect();
            for (class, params) in [(Class::Thresholds(Orientation::Both), tp), (Class::Intervals, ip)] {
                let e = Ensemble::new(class, &params).unwrap();
                prop_assert_eq!(e.votes(&x).unwrap(), brute_votes(class, &params, &x));
            }
        }

        #[test]
        fn predictions_reproduce_the_enumerated_labelings(
            pts in prop::collection::vec(((-3i32..3), (-3i32..3)), 1..12),
        ) {
            // The prediction rule agrees with the dichotomy module's labelings of its own
            // representatives, so the votes are column sums of them.
            let x2: Vec<f64> = pts.iter().flat_map(|p| [f64::from(p.0), f64::from(p.1)]).collect();
            let x1: Vec<f64> = pts.iter().map(|p| f64::from(p.0) + 0.5 * f64::from(p.1)).collect();
            let classes = [
                (Class::Thresholds(Orientation::Both), &x1),
                (Class::Intervals, &x1),
                (Class::Rectangles(2), &x2),
                (Class::Halfspaces(2), &x2),
                (Class::Points(2, None), &x2),
            ];
            for (class, x) in classes {
                let d = class.collect(x, usize::MAX).unwrap();
                let params = d.params_flat().to_vec();
                let n = pts.len();
                let votes: Vec<u64> = (0..n).map(|j| (0..d.len()).filter(|&i| d.bit(i, j)).count() as u64).collect();
                prop_assert_eq!(Ensemble::new(class, &params).unwrap().votes(x).unwrap(), votes);
            }
        }
    }
}
