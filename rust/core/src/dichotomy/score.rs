//! Scoring labelings against data: the (weighted) number of disagreements of every labeling with
//! labels `y`, and exact empirical-risk minimisation over a set of labelings.
//!
//! A disagreement count is the popcount of `label XOR y` (seed 002 §6.1 "error matrix"; seed 004
//! §5.1). Weighted counts are computed **exactly**: the weights are doubles, hence dyadic
//! rationals `w_i = W_i 2^e` with integers `W_i` over a common exponent `e`; the sums of the `W_i`
//! are exact integers (`i128` when they fit, big integers otherwise), looked up eight bits at a
//! time from per-byte tables. [`Scorer::weighted`] rounds each exact sum once to the nearest
//! double; [`Scorer::argmin`] compares the exact sums, so the empirical-risk minimiser is exact
//! whatever the weights, and ties go to the first labeling in the set's order.

use num_bigint::BigInt;
use rayon::prelude::*;

use super::{Dichotomies, Source, words_for};
use crate::error::{Error, Result};
use crate::grid::{big_to_f64, decompose};

/// Rows per parallel task.
const PAR_ROWS: usize = 4096;

/// Exact integer weights over a common power-of-two scale.
#[derive(Debug, Clone)]
enum Exact {
    /// No weights: every row counts one.
    Unit,
    /// `w_i = W_i * 2^exp` with `W_i` (and any sum of them) below `2^127`.
    Small { table: Vec<i128>, exp: i32 },
    /// The same with big integers (weights spanning a huge range of magnitudes).
    Big { w: Vec<BigInt>, exp: i32 },
}

/// An exact error value: comparable, and convertible to the nearest double.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorValue {
    /// Integer units (counts, or `W` sums of [`Scorer`]'s scale).
    Small(i128),
    /// Big-integer units.
    Big(BigInt),
}

/// Labels `y` (packed) and optional sample weights, ready to score labelings of `n` points.
#[derive(Debug, Clone)]
pub struct Scorer {
    n: usize,
    words: usize,
    y: Vec<u64>,
    exact: Exact,
}

/// Packs booleans into the project's layout.
pub fn pack(bits: &[bool]) -> Vec<u64> {
    let mut out = vec![0u64; words_for(bits.len())];
    for (j, &b) in bits.iter().enumerate() {
        if b {
            out[j / 64] |= 1u64 << (j % 64);
        }
    }
    out
}

impl Scorer {
    /// A scorer for labels `y` with optional non-negative finite `weights` (one per point).
    pub fn new(y: &[bool], weights: Option<&[f64]>) -> Result<Self> {
        let n = y.len();
        let exact = match weights {
            None => Exact::Unit,
            Some(w) => {
                if w.len() != n {
                    return Err(Error::invalid(
                        "sample_weight",
                        format!("must have one weight per point ({n}), got {}", w.len()),
                    ));
                }
                if let Some(v) = w.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
                    return Err(Error::invalid(
                        "sample_weight",
                        format!("must hold finite numbers >= 0, got {v}"),
                    ));
                }
                Self::exact_weights(w)
            }
        };
        Ok(Scorer {
            n,
            words: words_for(n),
            y: pack(y),
            exact,
        })
    }

    fn exact_weights(w: &[f64]) -> Exact {
        let parts: Vec<(u64, i32)> = w.iter().map(|&v| decompose(v)).collect();
        let nonzero = parts.iter().filter(|p| p.0 != 0);
        let (Some(e0), Some(e1)) = (
            nonzero.clone().map(|p| p.1).min(),
            nonzero.map(|p| p.1).max(),
        ) else {
            // Every weight is zero.
            return Exact::Small {
                table: Self::tables(&vec![0i128; w.len()]),
                exp: 0,
            };
        };
        let log_n = usize::BITS - w.len().leading_zeros();
        if (e1 - e0) as i64 + 53 + i64::from(log_n) <= 125 {
            let ints: Vec<i128> = parts
                .iter()
                .map(|&(m, e)| if m == 0 { 0 } else { i128::from(m) << (e - e0) })
                .collect();
            Exact::Small {
                table: Self::tables(&ints),
                exp: e0,
            }
        } else {
            let ints = parts
                .iter()
                .map(|&(m, e)| {
                    if m == 0 {
                        BigInt::from(0)
                    } else {
                        BigInt::from(m) << (e - e0) as usize
                    }
                })
                .collect();
            Exact::Big { w: ints, exp: e0 }
        }
    }

    /// Per (word, byte, value) sums of the integer weights of the bits set in the value.
    fn tables(ints: &[i128]) -> Vec<i128> {
        let words = words_for(ints.len());
        let mut t = vec![0i128; words * 8 * 256];
        for byte in 0..words * 8 {
            let base = byte * 256;
            for v in 1usize..256 {
                let low = v.trailing_zeros() as usize;
                let row = byte * 8 + low;
                let wv = ints.get(row).copied().unwrap_or(0);
                t[base + v] = t[base + (v & (v - 1))] + wv;
            }
        }
        t
    }

    /// Each point's exact weight signed by its label, `+W_i` for label 1 and `-W_i` for label 0,
    /// in the integer units of [`ErrorValue`] (`1` each without weights); `None` when the weights
    /// need big integers. A labeling's error is the sum of `W_i` over the points labelled 1
    /// minus the sum of these over the points it labels 1.
    pub fn signed_weights(&self) -> Option<Vec<i128>> {
        let label = |i: usize| (self.y[i / 64] >> (i % 64)) & 1 == 1;
        let weight = |i: usize| match &self.exact {
            Exact::Unit => Some(1),
            Exact::Small { table, .. } => Some(table[(i / 8) * 256 + (1 << (i % 8))]),
            Exact::Big { .. } => None,
        };
        (0..self.n)
            .map(|i| weight(i).map(|w| if label(i) { w } else { -w }))
            .collect()
    }

    /// Number of points.
    pub fn n_points(&self) -> usize {
        self.n
    }

    /// `true` if no sample weights were given.
    pub fn unweighted(&self) -> bool {
        matches!(self.exact, Exact::Unit)
    }

    fn check(&self, labels: &[u64], words: usize) -> Result<()> {
        if words != self.words || (words > 0 && !labels.len().is_multiple_of(words)) {
            return Err(Error::invalid(
                "y",
                format!(
                    "must have one label per point of the labelings ({} words per labeling), \
                     got {} labels",
                    words, self.n
                ),
            ));
        }
        Ok(())
    }

    /// The exact error of one packed labeling.
    pub fn error(&self, label: &[u64]) -> ErrorValue {
        match &self.exact {
            Exact::Unit => ErrorValue::Small(i128::from(
                label
                    .iter()
                    .zip(&self.y)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum::<u32>(),
            )),
            Exact::Small { table, .. } => {
                let mut s = 0i128;
                for (j, (a, b)) in label.iter().zip(&self.y).enumerate() {
                    let x = a ^ b;
                    let base = j * 8 * 256;
                    for k in 0..8 {
                        s += table[base + k * 256 + ((x >> (8 * k)) & 0xff) as usize];
                    }
                }
                ErrorValue::Small(s)
            }
            Exact::Big { w, .. } => {
                let mut s = BigInt::from(0);
                for (j, (a, b)) in label.iter().zip(&self.y).enumerate() {
                    let mut x = a ^ b;
                    while x != 0 {
                        s += &w[j * 64 + x.trailing_zeros() as usize];
                        x &= x - 1;
                    }
                }
                ErrorValue::Big(s)
            }
        }
    }

    /// The nearest double of an error value.
    pub fn to_f64(&self, e: &ErrorValue) -> f64 {
        let exp = match &self.exact {
            Exact::Unit => 0,
            Exact::Small { exp, .. } | Exact::Big { exp, .. } => *exp,
        };
        match e {
            ErrorValue::Small(v) => {
                if v.unsigned_abs() < (1u128 << 53) && exp == 0 {
                    *v as f64
                } else {
                    big_to_f64(&BigInt::from(*v), exp)
                }
            }
            ErrorValue::Big(v) => big_to_f64(v, exp),
        }
    }

    /// `f` of every labeling in `labels` (`words` per labeling), in parallel.
    fn per_row<T: Send + Default + Clone>(
        &self,
        labels: &[u64],
        words: usize,
        f: impl Fn(&[u64]) -> T + Sync,
    ) -> Result<Vec<T>> {
        self.check(labels, words)?;
        let count = labels.len().checked_div(words).unwrap_or(0);
        let mut out = vec![T::default(); count];
        out.par_chunks_mut(PAR_ROWS)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (r, o) in chunk.iter_mut().enumerate() {
                    let i = c * PAR_ROWS + r;
                    *o = f(&labels[i * words..(i + 1) * words]);
                }
            });
        Ok(out)
    }

    /// Unweighted disagreement counts of every labeling in `labels` (`words` per labeling).
    pub fn counts(&self, labels: &[u64], words: usize) -> Result<Vec<u64>> {
        self.per_row(labels, words, |l| {
            l.iter()
                .zip(&self.y)
                .map(|(a, b)| u64::from((a ^ b).count_ones()))
                .sum()
        })
    }

    /// Weighted disagreements of every labeling, each the exact sum rounded once to a double
    /// (unit weights if none were given).
    pub fn weighted(&self, labels: &[u64], words: usize) -> Result<Vec<f64>> {
        self.per_row(labels, words, |l| self.to_f64(&self.error(l)))
    }

    /// Index and exact error of the first labeling of minimal error (`None` if there is none).
    pub fn argmin(&self, labels: &[u64], words: usize) -> Result<Option<(usize, ErrorValue)>> {
        self.check(labels, words)?;
        if words == 0 {
            // Zero points: every labeling has error 0; the first wins.
            return Ok(None);
        }
        let count = labels.len() / words;
        let best = (0..count.div_ceil(PAR_ROWS))
            .into_par_iter()
            .map(|c| {
                let mut best: Option<(usize, ErrorValue)> = None;
                for i in c * PAR_ROWS..((c + 1) * PAR_ROWS).min(count) {
                    let e = self.error(&labels[i * words..(i + 1) * words]);
                    if best.as_ref().is_none_or(|b| e < b.1) {
                        best = Some((i, e));
                    }
                }
                best
            })
            .collect::<Vec<_>>();
        Ok(best
            .into_iter()
            .flatten()
            .fold(None, |acc: Option<(usize, ErrorValue)>, b| match acc {
                Some(a) if a.1 <= b.1 => Some(a),
                _ => Some(b),
            }))
    }
}

/// Exact empirical-risk minimisation over a stream of labelings: the index and parameters of
/// the first labeling of minimal error (`None` if the source is empty). Batches of about 64K
/// labelings are scored in parallel; ties between batches go to the earlier one.
pub fn erm_stream<S: Source + ?Sized>(
    source: &mut S,
    scorer: &Scorer,
) -> Result<Option<(usize, Vec<S::Param>)>> {
    let mut best: Option<(usize, Vec<S::Param>, Option<ErrorValue>)> = None;
    let mut offset = 0;
    let mut more = true;
    while more {
        let mut buf = Dichotomies::new(source.n_points(), source.param_len());
        while buf.len() < 1 << 16 {
            if !source.next_batch(&mut buf) {
                more = false;
                break;
            }
        }
        if buf.is_empty() {
            break;
        }
        if buf.words() == 0 {
            // No points: every labeling has error 0, the first wins.
            if best.is_none() {
                best = Some((0, buf.params(0).to_vec(), None));
            }
        } else if let Some((i, e)) = scorer.argmin(buf.labels_flat(), buf.words())? {
            let better = match &best {
                None => true,
                Some((_, _, Some(b))) => e < *b,
                Some((_, _, None)) => false,
            };
            if better {
                best = Some((offset + i, buf.params(i).to_vec(), Some(e)));
            }
        }
        offset += buf.len();
    }
    Ok(best.map(|(i, p, _)| (i, p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_weighted_and_argmin() {
        let y = [true, false, true, true, false];
        let labels = [
            pack(&[true, true, true, true, true]),
            pack(&[true, false, true, true, true]),
            pack(&[true, false, true, true, false]),
        ]
        .concat();
        let s = Scorer::new(&y, None).unwrap();
        assert_eq!(s.counts(&labels, 1).unwrap(), vec![2, 1, 0]);
        let w = [0.1, 0.2, 0.3, 1e-300, 1e300];
        let s = Scorer::new(&y, Some(&w)).unwrap();
        assert_eq!(
            s.weighted(&labels, 1).unwrap(),
            vec![0.2 + 1e300, 1e300, 0.0]
        );
        assert_eq!(s.argmin(&labels, 1).unwrap().unwrap().0, 2);
        let w = [0.1, 0.2, 0.3, 0.4, 0.5];
        let s = Scorer::new(&y, Some(&w)).unwrap();
        let got = s.weighted(&labels, 1).unwrap();
        // The exact sum of the two doubles, rounded once.
        assert_eq!(got[0], 0.2 + 0.5);
        assert_eq!(got[1], 0.5);
    }

    #[test]
    fn ties_go_to_the_first() {
        let y = [true, false];
        let labels = [
            pack(&[true, true]),
            pack(&[false, false]),
            pack(&[true, false]),
        ]
        .concat();
        let s = Scorer::new(&y, Some(&[1.0, 1.0])).unwrap();
        assert_eq!(s.argmin(&labels[..2], 1).unwrap().unwrap().0, 0);
        let s = Scorer::new(&y, Some(&[1.0, 2.0])).unwrap();
        assert_eq!(s.argmin(&labels[..2], 1).unwrap().unwrap().0, 1);
    }

    #[test]
    fn exact_sums_with_extreme_weights() {
        // 1 + 2^-80 + 2^-80 is exact in the big-integer path; a float sum would lose both.
        let y = [false; 3];
        let w = [1.0, 2f64.powi(-80), 2f64.powi(-80)];
        let s = Scorer::new(&y, Some(&w)).unwrap();
        let a = s.error(&pack(&[true, false, false]));
        let b = s.error(&pack(&[true, true, true]));
        assert!(a < b);
        let w = [1e300, 1e-300, 1e-300];
        let s = Scorer::new(&y, Some(&w)).unwrap();
        assert!(matches!(s.exact, Exact::Big { .. }));
        assert!(s.error(&pack(&[true, false, false])) < s.error(&pack(&[true, false, true])));
    }
}
