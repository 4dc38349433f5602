//! Thresholds on the real line: `h_t(x) = 1[x >= t]` (orientation [`Orientation::Ge`]),
//! `h_t(x) = 1[x <= t]` ([`Orientation::Le`]), or the union of both ([`Orientation::Both`]).
//!
//! Seed 003 (Dagan and Feldman) uses `1[x >= t]`, seed 002 (Bun, Nissim and Stemmer) `1[x <= t]`
//! (ERRATA X-1); both are available, `Ge` is the default of the Python API.
//!
//! **Algorithm** (sort and sweep; Nandi and Bassily, §4.1 table): with `u_1 < ... < u_m` the
//! distinct values, the `Ge` labelings are "ones from `u_k` on" for `k = 1..m+1` (`m + 1` of
//! them), each obtained from the previous one by clearing the rows of one value, so the sweep
//! costs `O(n log n)` plus the output. `Le` is symmetric; `Both` is `Ge` followed by the `m - 1`
//! non-constant `Le` labelings (`2m` in all for `m >= 1`, one for `m = 0`).
//!
//! **Representatives** `[t, s]` (`s = +1` for `>=`, `-1` for `<=`): `t = -inf` or `+inf` for
//! the constant labelings and otherwise a cut strictly between two consecutive distinct values
//! (their rounded mid-point, moved onto the kept value if rounding would leave the gap), so it
//! depends on the set of values only and reproduces its labeling exactly.
//!
//! **Order**: `Ge` labelings by increasing `t` (from all ones to all zeros), `Le` labelings by
//! increasing `t` (from all zeros to all ones).

use super::{Dichotomies, Grouped, Source, cut_above, cut_below, words_for};
use crate::error::{Error, Result};

/// Which thresholds the class holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// `1[x >= t]`.
    Ge,
    /// `1[x <= t]`.
    Le,
    /// Both.
    Both,
}

impl std::str::FromStr for Orientation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "ge" | ">=" => Ok(Orientation::Ge),
            "le" | "<=" => Ok(Orientation::Le),
            "both" => Ok(Orientation::Both),
            _ => Err(Error::invalid(
                "orientation",
                format!("must be 'ge' (x >= t), 'le' (x <= t) or 'both', got {s:?}"),
            )),
        }
    }
}

/// Number of labelings on `m` distinct values.
pub fn count(m: usize, orientation: Orientation) -> u128 {
    match orientation {
        Orientation::Both if m > 0 => 2 * m as u128,
        _ => m as u128 + 1,
    }
}

/// Streaming generator of the threshold labelings of `x` (one value per row).
pub struct Thresholds {
    g: Grouped,
    orientation: Orientation,
    /// Current phase: 0 = `Ge`, 1 = `Le`, 2 = done.
    phase: u8,
    k: usize,
    cur: Vec<u64>,
}

impl Thresholds {
    /// A generator over the values `x` (finite).
    pub fn new(x: &[f64], orientation: Orientation) -> Result<Self> {
        super::check_finite(x, "X")?;
        let g = Grouped::new(x, 1, &[0]);
        let phase = if orientation == Orientation::Le { 1 } else { 0 };
        let cur = if phase == 0 {
            g.full()
        } else {
            vec![0; words_for(g.n)]
        };
        Ok(Thresholds {
            g,
            orientation,
            phase,
            k: 0,
            cur,
        })
    }

    /// Number of labelings.
    pub fn count(&self) -> u128 {
        count(self.g.len(), self.orientation)
    }

    fn value(&self, k: usize) -> f64 {
        self.g.pts[k]
    }
}

impl Source for Thresholds {
    type Param = f64;
    fn n_points(&self) -> usize {
        self.g.n
    }
    fn param_len(&self) -> usize {
        2
    }
    fn next_batch(&mut self, out: &mut Dichotomies<f64>) -> bool {
        let m = self.g.len();
        // One labeling per call keeps batches small; `Stream` gathers them into chunks.
        let mut produced = false;
        for _ in 0..64 {
            match self.phase {
                0 => {
                    // Label k: ones on values >= u_k (0-based), cut in (u_{k-1}, u_k].
                    let t = if self.k == 0 {
                        f64::NEG_INFINITY
                    } else {
                        self.g.clear(&mut self.cur, self.k - 1);
                        if self.k == m {
                            f64::INFINITY
                        } else {
                            cut_above(self.value(self.k - 1), self.value(self.k))
                        }
                    };
                    out.push(&self.cur, &[t, 1.0]);
                    produced = true;
                    self.k += 1;
                    if self.k > m {
                        self.k = 0;
                        self.phase = if self.orientation == Orientation::Both {
                            // Both: skip the constant labelings, already produced.
                            if m >= 2 {
                                self.k = 1;
                                self.g.set(&mut self.cur, 0);
                                1
                            } else {
                                2
                            }
                        } else {
                            2
                        };
                    }
                }
                1 => {
                    // Label k: ones on values <= u_{k-1}, cut in [u_{k-1}, u_k).
                    let t = if self.k == 0 {
                        f64::NEG_INFINITY
                    } else if self.k == m {
                        f64::INFINITY
                    } else {
                        cut_below(self.value(self.k - 1), self.value(self.k))
                    };
                    out.push(&self.cur, &[t, -1.0]);
                    produced = true;
                    if self.k < m {
                        self.g.set(&mut self.cur, self.k);
                    }
                    self.k += 1;
                    let last = if self.orientation == Orientation::Both {
                        m - 1
                    } else {
                        m
                    };
                    if self.k > last {
                        self.phase = 2;
                    }
                }
                _ => return produced,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dichotomy::collect;

    fn labels(x: &[f64], o: Orientation) -> Vec<Vec<bool>> {
        let mut s = Thresholds::new(x, o).unwrap();
        let d = collect(&mut s, usize::MAX).unwrap();
        (0..d.len())
            .map(|i| (0..x.len()).map(|j| d.bit(i, j)).collect())
            .collect()
    }

    fn predict(t: f64, s: f64, x: f64) -> bool {
        if s > 0.0 { x >= t } else { x <= t }
    }

    #[test]
    fn counts_and_representatives() {
        let xs = [3.0, 1.0, 2.0, 1.0, 5.0];
        for o in [Orientation::Ge, Orientation::Le, Orientation::Both] {
            let mut s = Thresholds::new(&xs, o).unwrap();
            let c = s.count();
            let d = collect(&mut s, usize::MAX).unwrap();
            assert_eq!(d.len() as u128, c);
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..d.len() {
                assert!(seen.insert(d.label(i).to_vec()), "duplicate");
                let p = d.params(i);
                for (j, &x) in xs.iter().enumerate() {
                    assert_eq!(d.bit(i, j), predict(p[0], p[1], x));
                }
            }
        }
        assert_eq!(count(4, Orientation::Both), 8);
        assert_eq!(count(0, Orientation::Both), 1);
        assert_eq!(labels(&[], Orientation::Both).len(), 1);
        assert_eq!(labels(&[7.0, 7.0], Orientation::Both).len(), 2);
    }

    #[test]
    fn ge_order_goes_from_all_ones_to_all_zeros() {
        let l = labels(&[2.0, 1.0], Orientation::Ge);
        assert_eq!(
            l,
            vec![vec![true, true], vec![true, false], vec![false, false]]
        );
        let l = labels(&[2.0, 1.0], Orientation::Le);
        assert_eq!(
            l,
            vec![vec![false, false], vec![false, true], vec![true, true]]
        );
    }
}
