//! The data-dependent cover `C_T` of a subset `T` of the training points, with the operations
//! the prediction algorithms need: score its representatives on the whole sample, evaluate one at
//! a query, relabel the sample with one, and learn a consistent hypothesis from a block.
//!
//! Dagan and Feldman (COLT 2020), §2: `C_T` holds one representative per labeling of `T` that the
//! class realises. The privacy and stability proofs need the representatives to be a
//! deterministic function of the **unlabeled points of `T` only** (never of labels, nor of the
//! points outside `T`), so that `C_T` is the same on neighbouring samples whenever `T` avoids the
//! changed index. Both implementations guarantee this: they enumerate the dichotomies of the
//! points `x[T]` with [`crate::dichotomy`], whose representatives depend on the set of points
//! only.

use crate::dichotomy::represent::RepScorer;
use crate::dichotomy::score::Scorer;
use crate::dichotomy::{Class, check_finite, check_shape, finite};
use crate::error::{Error, Result};

/// Representatives, `width` parameters each (a finite class's member index is stored as an
/// exactly representable `f64`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reps {
    params: Vec<f64>,
    width: usize,
}

impl Reps {
    /// Representatives from their flat parameters.
    pub fn new(params: Vec<f64>, width: usize) -> Self {
        debug_assert!(width > 0 && params.len().is_multiple_of(width));
        Reps { params, width }
    }

    /// Number of representatives.
    pub fn len(&self) -> usize {
        self.params.len() / self.width
    }

    /// `true` if there is none.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// Parameters of representative `i`.
    pub fn get(&self, i: usize) -> &[f64] {
        &self.params[i * self.width..(i + 1) * self.width]
    }

    /// All parameters, row after row.
    pub fn flat(&self) -> &[f64] {
        &self.params
    }
}

/// A labelled training sample of some hypothesis class, with the cover operations.
pub trait Cover: Sync {
    /// Number of training points `n`.
    fn n(&self) -> usize;
    /// Values per query point.
    fn query_dim(&self) -> usize;
    /// Checks `queries` (`q x query_dim`, row-major) and returns `q`.
    fn check_queries(&self, queries: &[f64]) -> Result<usize>;
    /// `C_T` for the training points `idx` (distinct indices): one representative per labeling
    /// of those points, depending on the points only.
    fn cover(&self, idx: &[usize]) -> Result<Reps>;
    /// Mistakes of every representative on the whole labelled sample.
    fn mistakes(&self, reps: &Reps) -> Result<Vec<u64>>;
    /// The label the representative `rep` gives to `query`.
    fn label(&self, rep: &[f64], query: &[f64]) -> bool;
    /// The labels the representative `rep` gives to all `n` training points.
    fn relabel(&self, rep: &[f64]) -> Vec<bool>;
    /// A deterministic consistent learner for the realizable case: the class's exact ERM on the
    /// training points `idx` with labels `labels` (one per index). Returns its representative.
    fn consistent(&self, idx: &[usize], labels: &[bool]) -> Result<Vec<f64>>;
}

/// A sample of a class with real parameters ([`Class`]).
#[derive(Debug, Clone)]
pub struct RealCover {
    scorer: RepScorer,
}

impl RealCover {
    /// The sample: rows of `x` (`n x dim`, finite) with labels `y`.
    pub fn new(class: Class, x: &[f64], y: &[bool]) -> Result<Self> {
        Ok(RealCover {
            scorer: RepScorer::new(class, x, y)?,
        })
    }

    fn gather(&self, idx: &[usize]) -> Vec<f64> {
        let dim = self.scorer.class().dim();
        let x = self.scorer.points();
        let mut out = Vec::with_capacity(idx.len() * dim);
        for &i in idx {
            out.extend_from_slice(&x[i * dim..(i + 1) * dim]);
        }
        out
    }
}

impl Cover for RealCover {
    fn n(&self) -> usize {
        self.scorer.n_points()
    }

    fn query_dim(&self) -> usize {
        self.scorer.class().dim()
    }

    fn check_queries(&self, queries: &[f64]) -> Result<usize> {
        let q = check_shape(queries, self.query_dim(), "X")?;
        check_finite(queries, "X")?;
        Ok(q)
    }

    /// The dichotomies of `x[idx]`. A halfspace labeling whose representative could not be
    /// certified in double precision (NaN parameters; see `dichotomy::halfspaces`) is left out:
    /// that depends on the points of `idx` only, so the cover stays a function of them.
    fn cover(&self, idx: &[usize]) -> Result<Reps> {
        let class = self.scorer.class();
        let d = class.collect(&self.gather(idx), usize::MAX)?;
        let width = class.param_len();
        let mut params = Vec::with_capacity(d.len() * width);
        for i in 0..d.len() {
            let p = d.params(i);
            if !p.iter().any(|v| v.is_nan()) {
                params.extend_from_slice(p);
            }
        }
        Ok(Reps::new(params, width))
    }

    fn mistakes(&self, reps: &Reps) -> Result<Vec<u64>> {
        self.scorer.mistakes(reps.flat())
    }

    fn label(&self, rep: &[f64], query: &[f64]) -> bool {
        // A NaN representative (an uncertifiable halfspace ERM) labels everything 0.
        !rep.iter().any(|v| v.is_nan()) && self.scorer.class().eval(rep, query)
    }

    fn relabel(&self, rep: &[f64]) -> Vec<bool> {
        let dim = self.query_dim();
        self.scorer
            .points()
            .chunks(dim)
            .map(|p| self.label(rep, p))
            .collect()
    }

    fn consistent(&self, idx: &[usize], labels: &[bool]) -> Result<Vec<f64>> {
        let scorer = Scorer::new(labels, None)?;
        Ok(self.scorer.class().erm(&self.gather(idx), &scorer)?.1)
    }
}

/// A sample of an explicit finite class: an `N x M` boolean matrix over the domain
/// `{0, ..., M-1}` (row `r` is hypothesis `r`), training points given as domain indices.
#[derive(Debug, Clone)]
pub struct FiniteCover {
    matrix: Vec<bool>,
    rows: usize,
    cols: usize,
    x: Vec<usize>,
    y: Vec<bool>,
}

impl FiniteCover {
    /// The sample: domain indices `x` (integers in `[0, cols)`, as `f64`) with labels `y`, for
    /// the class `matrix` (`rows x cols`, row-major).
    pub fn new(matrix: &[bool], rows: usize, cols: usize, x: &[f64], y: &[bool]) -> Result<Self> {
        if rows == 0 || rows.checked_mul(cols) != Some(matrix.len()) {
            return Err(Error::invalid(
                "labels",
                format!(
                    "must be a non-empty {rows} x {cols} matrix, got {} values",
                    matrix.len()
                ),
            ));
        }
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
        let x = domain_indices(x, cols)?;
        Ok(FiniteCover {
            matrix: matrix.to_vec(),
            rows,
            cols,
            x,
            y: y.to_vec(),
        })
    }

    #[inline]
    fn at(&self, r: usize, j: usize) -> bool {
        self.matrix[r * self.cols + j]
    }

    /// The class restricted to the domain elements `pts` (`rows x pts.len()`).
    fn restricted(&self, pts: impl Iterator<Item = usize> + Clone) -> (Vec<bool>, usize) {
        let k = pts.clone().count();
        let mut out = Vec::with_capacity(self.rows * k);
        for r in 0..self.rows {
            out.extend(pts.clone().map(|j| self.at(r, j)));
        }
        (out, k)
    }

    fn unique(&self, idx: &[usize]) -> Result<Vec<u64>> {
        let (m, k) = self.restricted(idx.iter().map(|&i| self.x[i]));
        let d = finite::unique_rows(&m, self.rows, k, usize::MAX)?;
        Ok(d.params_flat().to_vec())
    }
}

fn domain_indices(x: &[f64], cols: usize) -> Result<Vec<usize>> {
    x.iter()
        .map(|&v| {
            if v >= 0.0 && v.fract() == 0.0 && v < cols as f64 {
                Ok(v as usize)
            } else {
                Err(Error::invalid(
                    "X",
                    format!("must hold domain indices, integers in [0, {cols}), got {v}"),
                ))
            }
        })
        .collect()
}

impl Cover for FiniteCover {
    fn n(&self) -> usize {
        self.x.len()
    }

    fn query_dim(&self) -> usize {
        1
    }

    fn check_queries(&self, queries: &[f64]) -> Result<usize> {
        Ok(domain_indices(queries, self.cols)?.len())
    }

    /// The distinct rows restricted to `x[idx]`, each represented by its lowest-index member.
    fn cover(&self, idx: &[usize]) -> Result<Reps> {
        let reps = self.unique(idx)?;
        Ok(Reps::new(reps.into_iter().map(|r| r as f64).collect(), 1))
    }

    fn mistakes(&self, reps: &Reps) -> Result<Vec<u64>> {
        Ok((0..reps.len())
            .map(|i| {
                let r = reps.get(i)[0] as usize;
                self.x
                    .iter()
                    .zip(&self.y)
                    .map(|(&j, &y)| u64::from(self.at(r, j) != y))
                    .sum()
            })
            .collect())
    }

    fn label(&self, rep: &[f64], query: &[f64]) -> bool {
        self.at(rep[0] as usize, query[0] as usize)
    }

    fn relabel(&self, rep: &[f64]) -> Vec<bool> {
        let r = rep[0] as usize;
        self.x.iter().map(|&j| self.at(r, j)).collect()
    }

    /// The representative of the first labeling of least error, in the order of
    /// `finite::unique_rows` (as `FiniteClass.erm` in Python).
    fn consistent(&self, idx: &[usize], labels: &[bool]) -> Result<Vec<f64>> {
        let (m, k) = self.restricted(idx.iter().map(|&i| self.x[i]));
        let d = finite::unique_rows(&m, self.rows, k, usize::MAX)?;
        let best = if d.words() == 0 {
            0
        } else {
            Scorer::new(labels, None)?
                .argmin(d.labels_flat(), d.words())?
                .map_or(0, |(i, _)| i)
        };
        Ok(vec![d.params(best)[0] as f64])
    }
}

/// Either kind of sample, behind one [`Cover`] (what the bindings build).
#[derive(Debug, Clone)]
pub enum AnyCover {
    /// A class with real parameters.
    Real(RealCover),
    /// An explicit finite class.
    Finite(FiniteCover),
}

macro_rules! delegate {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCover::Real($c) => $e,
            AnyCover::Finite($c) => $e,
        }
    };
}

impl Cover for AnyCover {
    fn n(&self) -> usize {
        delegate!(self, c => c.n())
    }
    fn query_dim(&self) -> usize {
        delegate!(self, c => c.query_dim())
    }
    fn check_queries(&self, queries: &[f64]) -> Result<usize> {
        delegate!(self, c => c.check_queries(queries))
    }
    fn cover(&self, idx: &[usize]) -> Result<Reps> {
        delegate!(self, c => c.cover(idx))
    }
    fn mistakes(&self, reps: &Reps) -> Result<Vec<u64>> {
        delegate!(self, c => c.mistakes(reps))
    }
    fn label(&self, rep: &[f64], query: &[f64]) -> bool {
        delegate!(self, c => c.label(rep, query))
    }
    fn relabel(&self, rep: &[f64]) -> Vec<bool> {
        delegate!(self, c => c.relabel(rep))
    }
    fn consistent(&self, idx: &[usize], labels: &[bool]) -> Result<Vec<f64>> {
        delegate!(self, c => c.consistent(idx, labels))
    }
}
