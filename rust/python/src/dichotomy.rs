//! Bindings of `privlearn_core::dichotomy` (thin: convert, release the GIL, call the core, map
//! errors). The Python API is `privlearn.hypotheses`, which validates shapes first.

use std::sync::Mutex;

use numpy::{
    IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use privlearn_core::dichotomy::parities::Parities;
use privlearn_core::dichotomy::represent::RepScorer;
use privlearn_core::dichotomy::score::{Scorer, erm_stream};
use privlearn_core::dichotomy::thresholds::Orientation;
use privlearn_core::dichotomy::{Class, Dichotomies, RealSource, Stream, finite, halfspaces};
use pyo3::prelude::*;

use crate::errors::{detach_guarded, invalid, to_py};

/// A class with real parameters, as ``(kind, dim, orientation, domain_size)``.
pub(crate) type Spec = (String, usize, String, Option<u64>);

/// The class named by `spec`.
pub(crate) fn class(spec: Spec) -> PyResult<Class> {
    let (kind, dim, orientation, domain_size) = spec;
    Ok(match kind.as_str() {
        "thresholds" => Class::Thresholds(orientation.parse::<Orientation>().map_err(to_py)?),
        "intervals" => Class::Intervals,
        "rectangles" => Class::Rectangles(dim),
        "halfspaces" => Class::Halfspaces(dim),
        "points" => Class::Points(dim, domain_size),
        _ => {
            return Err(invalid(
                "kind",
                format!("unknown hypothesis class {kind:?}"),
            ));
        }
    })
}

/// Labels and optional weights, copied (the GIL is released afterwards).
fn scoring_inputs(
    y: &PyReadonlyArray1<'_, bool>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
) -> (Vec<bool>, Option<Vec<f64>>) {
    (
        y.as_array().to_vec(),
        sample_weight.map(|w| w.as_array().to_vec()),
    )
}

/// A C-contiguous array's values, copied (the GIL is released afterwards).
pub(crate) fn owned<T: numpy::Element + Copy>(a: &PyReadonlyArray2<'_, T>) -> Vec<T> {
    match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    }
}

type Parts<'py, P> = (Bound<'py, PyArray2<u64>>, Bound<'py, PyArray2<P>>);

/// Packed labelings and parameters of either type.
type AnyParts<'py> = (Bound<'py, PyArray2<u64>>, Bound<'py, PyAny>);

/// Packed labelings `(count, words)` and parameters `(count, param_len)` as numpy arrays.
fn to_numpy<P: numpy::Element + Copy>(py: Python<'_>, d: Dichotomies<P>) -> PyResult<Parts<'_, P>> {
    let (count, words, plen) = (d.len(), d.words(), d.param_len());
    let (labels, params) = d.into_parts();
    Ok((
        labels.into_pyarray(py).reshape([count, words])?,
        params.into_pyarray(py).reshape([count, plen])?,
    ))
}

/// All labelings of a real-parameter class. See ``privlearn.hypotheses``.
#[pyfunction]
pub fn dichotomies<'py>(
    py: Python<'py>,
    spec: Spec,
    x: PyReadonlyArray2<'py, f64>,
    max_count: Option<usize>,
) -> PyResult<Parts<'py, f64>> {
    let cls = class(spec)?;
    let data = owned(&x);
    let d = detach_guarded(py, move || {
        cls.collect(&data, max_count.unwrap_or(usize::MAX))
    })?;
    to_numpy(py, d)
}

/// Number of labelings of a real-parameter class (a Python int).
#[pyfunction]
pub fn dichotomy_count(py: Python<'_>, spec: Spec, x: PyReadonlyArray2<'_, f64>) -> PyResult<u128> {
    let cls = class(spec)?;
    let data = owned(&x);
    detach_guarded(py, move || cls.count(&data))
}

/// Index and parameters of an exact empirical-risk minimiser of a real-parameter class.
#[pyfunction]
#[pyo3(signature = (spec, x, y, sample_weight=None))]
pub fn dichotomy_erm<'py>(
    py: Python<'py>,
    spec: Spec,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<(usize, Vec<f64>)> {
    let cls = class(spec)?;
    let data = owned(&x);
    let (y, w) = scoring_inputs(&y, sample_weight);
    detach_guarded(py, move || {
        let scorer = Scorer::new(&y, w.as_deref())?;
        cls.erm(&data, &scorer)
    })
}

enum State {
    Streaming(Stream<RealSource>),
    Buffered(Dichotomies<f64>),
    Parities(Stream<Parities>),
}

/// Chunk-by-chunk enumeration; see ``privlearn.hypotheses.DichotomyStream``.
#[pyclass(frozen, module = "privlearn._core", name = "DichotomySource")]
pub struct DichotomySource {
    state: Mutex<State>,
    streamed: bool,
}

#[pymethods]
impl DichotomySource {
    /// The labelings of a real-parameter class: streamed where the class allows it, computed
    /// first otherwise.
    #[new]
    fn py_new(py: Python<'_>, spec: Spec, x: PyReadonlyArray2<'_, f64>) -> PyResult<Self> {
        let cls = class(spec)?;
        let data = owned(&x);
        let state = detach_guarded(py, move || {
            Ok(match cls.source(&data)? {
                Some(s) => State::Streaming(Stream::new(s)),
                None => State::Buffered(cls.collect(&data, usize::MAX)?),
            })
        })?;
        let streamed = !matches!(state, State::Buffered(_));
        Ok(DichotomySource {
            state: Mutex::new(state),
            streamed,
        })
    }

    /// The parity labelings of the rows of ``x`` (booleans), streamed (a Gray-code walk).
    #[staticmethod]
    fn parities(py: Python<'_>, x: PyReadonlyArray2<'_, bool>) -> PyResult<Self> {
        let dim = x.shape()[1];
        let data = owned(&x);
        let p = detach_guarded(py, move || Parities::new(&data, dim))?;
        Ok(DichotomySource {
            state: Mutex::new(State::Parities(Stream::new(p))),
            streamed: true,
        })
    }

    /// ``True`` if labelings are generated chunk by chunk (not held in memory at once).
    #[getter]
    fn streamed(&self) -> bool {
        self.streamed
    }

    /// The next (at most) ``size`` labelings as ``(packed, params)``, or ``None`` at the end.
    fn next_chunk<'py>(&self, py: Python<'py>, size: usize) -> PyResult<Option<AnyParts<'py>>> {
        if size == 0 {
            return Err(invalid("chunk_size", "must be at least 1"));
        }
        enum Chunk {
            Real(Dichotomies<f64>),
            Bits(Dichotomies<u64>),
        }
        let chunk = detach_guarded(py, || {
            let mut st = self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Ok(match &mut *st {
                State::Streaming(s) => s.next_chunk(size).map(Chunk::Real),
                State::Buffered(d) => (!d.is_empty()).then(|| Chunk::Real(d.split_front(size))),
                State::Parities(s) => s.next_chunk(size).map(Chunk::Bits),
            })
        })?;
        Ok(match chunk {
            None => None,
            Some(Chunk::Real(d)) => {
                let (l, p) = to_numpy(py, d)?;
                Some((l, p.into_any()))
            }
            Some(Chunk::Bits(d)) => {
                let (l, p) = to_numpy(py, d)?;
                Some((l, p.into_any()))
            }
        })
    }
}

/// Distinct rows of a boolean matrix with the lowest index of each, in lexicographic order.
#[pyfunction]
pub fn finite_dichotomies<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray2<'py, bool>,
    max_count: Option<usize>,
) -> PyResult<Parts<'py, u64>> {
    let (rows, cols) = (labels.shape()[0], labels.shape()[1]);
    let data = owned(&labels);
    let d = detach_guarded(py, move || {
        finite::unique_rows(&data, rows, cols, max_count.unwrap_or(usize::MAX))
    })?;
    to_numpy(py, d)
}

/// Exact VC dimension of the class given by a boolean matrix (one row per hypothesis).
#[pyfunction]
pub fn finite_vc_dimension(py: Python<'_>, labels: PyReadonlyArray2<'_, bool>) -> PyResult<usize> {
    let (rows, cols) = (labels.shape()[0], labels.shape()[1]);
    let data = owned(&labels);
    detach_guarded(py, move || finite::vc_dimension(&data, rows, cols))
}

/// Exact predictions ``1[w . x + b >= 0]`` of the rows of ``x`` for ``params = [w, b]``.
#[pyfunction]
pub fn halfspace_predict<'py>(
    py: Python<'py>,
    params: Vec<f64>,
    x: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, numpy::PyArray1<bool>>> {
    let data = owned(&x);
    let out = detach_guarded(py, move || halfspaces::predict(&params, &data))?;
    Ok(out.into_pyarray(py))
}

/// Disagreements of every packed labeling with ``y``: ``int64`` counts, or ``float64`` exact
/// weighted sums rounded once when ``sample_weight`` is given.
#[pyfunction]
#[pyo3(signature = (packed, y, sample_weight=None))]
pub fn dichotomy_mistakes<'py>(
    py: Python<'py>,
    packed: PyReadonlyArray2<'py, u64>,
    y: PyReadonlyArray1<'py, bool>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Py<PyAny>> {
    let (count, words) = (packed.shape()[0], packed.shape()[1]);
    let (y, w) = scoring_inputs(&y, sample_weight);
    // The packed labelings are read in place with the GIL released (as numpy's own loops do):
    // the Python API hands in a read-only array that nothing else writes.
    let labels = packed
        .as_slice()
        .map_err(|_| invalid("packed", "must be C-contiguous"))?;
    let weighted = w.is_some();
    let (counts, sums) = detach_guarded(py, move || {
        let scorer = Scorer::new(&y, w.as_deref())?;
        Ok(match (words, weighted) {
            (0, _) => (vec![0; count], vec![0.0; count]), // no points: no disagreement
            (_, true) => (Vec::new(), scorer.weighted(labels, words)?),
            (_, false) => (scorer.counts(labels, words)?, Vec::new()),
        })
    })?;
    Ok(if weighted {
        sums.into_pyarray(py).into_any().unbind()
    } else {
        let as_i64: Vec<i64> = counts.into_iter().map(|c| c as i64).collect();
        as_i64.into_pyarray(py).into_any().unbind()
    })
}

/// Index of the first packed labeling of minimal (weighted) error, or ``None`` if there is none.
#[pyfunction]
#[pyo3(signature = (packed, y, sample_weight=None))]
pub fn dichotomy_argmin<'py>(
    py: Python<'py>,
    packed: PyReadonlyArray2<'py, u64>,
    y: PyReadonlyArray1<'py, bool>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Option<usize>> {
    let (count, words) = (packed.shape()[0], packed.shape()[1]);
    let (y, w) = scoring_inputs(&y, sample_weight);
    let labels = packed
        .as_slice()
        .map_err(|_| invalid("packed", "must be C-contiguous"))?;
    detach_guarded(py, move || {
        let scorer = Scorer::new(&y, w.as_deref())?;
        if words == 0 {
            return Ok((count > 0).then_some(0));
        }
        Ok(scorer.argmin(labels, words)?.map(|(i, _)| i))
    })
}

/// All ``2^rank`` parity labelings of the rows of ``x`` (booleans, ``n x dim``).
#[pyfunction]
pub fn parity_dichotomies<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, bool>,
    max_count: Option<usize>,
) -> PyResult<Parts<'py, u64>> {
    let dim = x.shape()[1];
    let data = owned(&x);
    let d = detach_guarded(py, move || {
        Parities::new(&data, dim)?.collect(max_count.unwrap_or(usize::MAX))
    })?;
    to_numpy(py, d)
}

/// The GF(2) rank of the points and the pivot columns (the representatives' support).
#[pyfunction]
pub fn parity_rank(py: Python<'_>, x: PyReadonlyArray2<'_, bool>) -> PyResult<(usize, Vec<usize>)> {
    let dim = x.shape()[1];
    let data = owned(&x);
    detach_guarded(py, move || {
        let p = Parities::new(&data, dim)?;
        Ok((p.rank(), p.pivots().to_vec()))
    })
}

/// Index and representative (packed ``a``) of an exact empirical-risk minimiser over parities.
#[pyfunction]
#[pyo3(signature = (x, y, sample_weight=None))]
pub fn parity_erm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, bool>,
    y: PyReadonlyArray1<'py, bool>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<(usize, Vec<u64>)> {
    let dim = x.shape()[1];
    let data = owned(&x);
    let (y, w) = scoring_inputs(&y, sample_weight);
    detach_guarded(py, move || {
        let scorer = Scorer::new(&y, w.as_deref())?;
        let mut p = Parities::new(&data, dim)?;
        Ok(erm_stream(&mut p, &scorer)?.expect("there is always the zero parity"))
    })
}

/// Mistakes of representatives (``params``, one row each, a real-parameter class) on the
/// labelled points ``x``, ``y``: exact, evaluated with the class's own prediction rule.
#[pyfunction]
pub fn representative_mistakes<'py>(
    py: Python<'py>,
    spec: Spec,
    params: PyReadonlyArray2<'py, f64>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
    let cls = class(spec)?;
    if params.shape()[1] != cls.param_len() {
        return Err(invalid(
            "params",
            format!(
                "must have {} parameters per representative, got {}",
                cls.param_len(),
                params.shape()[1]
            ),
        ));
    }
    let p = owned(&params);
    let data = owned(&x);
    let labels = y.as_array().to_vec();
    let out = detach_guarded(py, move || {
        let scorer = RepScorer::new(cls, &data, &labels)?;
        scorer.mistakes(&p)
    })?;
    Ok(out
        .into_iter()
        .map(|v| v as i64)
        .collect::<Vec<i64>>()
        .into_pyarray(py))
}
