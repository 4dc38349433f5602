//! Bindings of `privlearn_core::query_release` (thin: convert, release the GIL, call the core,
//! map errors). The Python API is `privlearn.query_release`, which validates shapes first.

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use privlearn_core::dichotomy::thresholds::Orientation;
use privlearn_core::query_release::{ensemble, relabel, sampling};
use pyo3::prelude::*;

use crate::dichotomy::{Spec, class, owned};
use crate::errors::{detach_guarded, invalid, to_py};
use crate::rng::RngArg;

fn to_i64(v: Vec<u64>) -> Vec<i64> {
    // Counts are at most the number of hypotheses or points, far below 2^63.
    v.into_iter().map(|c| c as i64).collect()
}

fn indices(v: Vec<usize>) -> Vec<i64> {
    v.into_iter().map(|i| i as i64).collect()
}

/// ``k`` hypotheses of a real-parameter class, prepared for counting votes.
#[pyclass(frozen, module = "privlearn._core", name = "HypothesisEnsemble")]
pub struct HypothesisEnsemble {
    inner: ensemble::Ensemble,
}

#[pymethods]
impl HypothesisEnsemble {
    /// The ensemble of the hypotheses whose parameters are the rows of ``params``.
    #[new]
    fn py_new(py: Python<'_>, spec: Spec, params: PyReadonlyArray2<'_, f64>) -> PyResult<Self> {
        let cls = class(spec)?;
        let data = owned(&params);
        let inner = detach_guarded(py, move || ensemble::Ensemble::new(cls, &data))?;
        Ok(HypothesisEnsemble { inner })
    }

    /// Number of hypotheses.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// For each row of ``x``, the number of hypotheses that label it 1 (``int64``).
    fn votes<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let data = owned(&x);
        let out = detach_guarded(py, || self.inner.votes(&data))?;
        Ok(to_i64(out).into_pyarray(py))
    }
}

/// ``k`` indices in ``0..n``: a uniform subset in increasing order (``replacement=False``) or
/// independent uniform draws (``replacement=True``).
#[pyfunction]
#[pyo3(signature = (n, k, replacement, rng=None))]
pub fn sample_indices<'py>(
    py: Python<'py>,
    n: usize,
    k: usize,
    replacement: bool,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if i64::try_from(n).is_err() {
        return Err(invalid("n", format!("must be below 2**63, got {n}")));
    }
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| {
            if replacement {
                sampling::with_replacement(n, k, r)
            } else {
                sampling::without_replacement(n, k, r)
            }
        })
    })?;
    Ok(indices(out).into_pyarray(py))
}

/// A uniformly random permutation of ``0..n``.
#[pyfunction]
#[pyo3(signature = (n, rng=None))]
pub fn permutation<'py>(
    py: Python<'py>,
    n: usize,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if i64::try_from(n).is_err() {
        return Err(invalid("n", format!("must be below 2**63, got {n}")));
    }
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || rng.with(|r| sampling::permutation(n, r)))?;
    Ok(indices(out).into_pyarray(py))
}

/// Mistakes against ``y`` of every threshold labeling of ``x``, in enumeration order.
#[pyfunction]
pub fn threshold_labeling_mistakes<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    orientation: &str,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let o = orientation.parse::<Orientation>().map_err(to_py)?;
    let data = x.as_array().to_vec();
    let labels = y.as_array().to_vec();
    let out = detach_guarded(py, move || relabel::threshold_mistakes(&data, &labels, o))?;
    Ok(to_i64(out).into_pyarray(py))
}

/// Threshold labeling ``index`` (enumeration order) of the points ``x``.
#[pyfunction]
pub fn threshold_labeling<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    orientation: &str,
    index: usize,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let o = orientation.parse::<Orientation>().map_err(to_py)?;
    let data = x.as_array().to_vec();
    let out = detach_guarded(py, move || relabel::threshold_labeling(&data, o, index))?;
    Ok(out.into_pyarray(py))
}

/// Exact threshold ERMs ``[t, s]`` of the blocks ``order[j*size:(j+1)*size]`` of ``(x, y)``.
#[pyfunction]
pub fn threshold_erm_blocks<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    order: PyReadonlyArray1<'py, i64>,
    size: usize,
    orientation: &str,
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let o = orientation.parse::<Orientation>().map_err(to_py)?;
    let data = x.as_array().to_vec();
    let labels = y.as_array().to_vec();
    let idx: Vec<usize> = order
        .as_array()
        .iter()
        .map(|&i| usize::try_from(i).map_err(|_| invalid("order", format!("negative index {i}"))))
        .collect::<PyResult<_>>()?;
    let out = detach_guarded(py, move || {
        relabel::threshold_erm_blocks(&data, &labels, &idx, size, o)
    })?;
    let rows = out.len();
    let flat: Vec<f64> = out.into_iter().flatten().collect();
    flat.into_pyarray(py).reshape([rows, 2])
}
