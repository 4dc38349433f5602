//! Bindings of `privlearn_core::multi` (seed 002's multi-concept learners). The Python API is
//! `privlearn.multi`, which validates the data and packs it first; matrices cross the boundary
//! packed as in `privlearn.gf2` (see [`crate::gf2`]).

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use privlearn_core::multi;
use pyo3::prelude::*;

use crate::errors::{detach_guarded, invalid, to_py};
use crate::gf2::{Words, read, write};
use crate::rng::RngArg;

/// A new one-dimensional `int64` array.
type Ints<'py> = Bound<'py, PyArray1<i64>>;

/// ``SearchParities``: ``(packed dim x k solution or None, number of subsamples)``.
#[pyfunction]
#[pyo3(signature = (x, dim, y, k, subsample_size, epsilon, delta, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn multi_search_parities<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u64>,
    dim: usize,
    y: PyReadonlyArray2<'py, u64>,
    k: usize,
    subsample_size: usize,
    epsilon: f64,
    delta: f64,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Option<Words<'py>>, usize)> {
    let x = read(&x, dim, "X")?;
    let y = read(&y, k, "Y")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| multi::search_parities(&x, &y, subsample_size, epsilon, delta, r))
    })?;
    let solution = out.solution.map(|s| write(py, &s)).transpose()?;
    Ok((solution, out.subsamples))
}

/// The noise scale ``b`` of both halves of ``LearnPoints`` at total ``epsilon`` (``4/epsilon``
/// rounded up by the sampler), as the smallest double at least it.
#[pyfunction]
pub fn multi_points_noise_scale(epsilon: f64) -> PyResult<f64> {
    Ok(multi::learn_points_noise_scale(epsilon)
        .map_err(to_py)?
        .times_pow2_up(0))
}

/// The stability histogram: ``(released indices, their noisy counts)``, indices increasing.
#[pyfunction]
#[pyo3(signature = (counts, epsilon, delta, rng=None))]
pub fn multi_stability_histogram<'py>(
    py: Python<'py>,
    counts: PyReadonlyArray1<'py, u64>,
    epsilon: f64,
    delta: f64,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let counts = counts.as_array().to_vec();
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| multi::stability_histogram(&counts, epsilon, delta, r))
    })?;
    let (idx, noisy): (Vec<i64>, Vec<i64>) = out.into_iter().map(|(i, v)| (i as i64, v)).unzip();
    Ok((idx.into_pyarray(py), noisy.into_pyarray(py)))
}

/// ``LearnPoints``: ``(heavy indices, packed |H| x k label vectors or None)``.
#[pyfunction]
#[pyo3(signature = (ids, n_keys, y, k, alpha, epsilon, delta, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn multi_learn_points<'py>(
    py: Python<'py>,
    ids: PyReadonlyArray1<'py, i64>,
    n_keys: usize,
    y: PyReadonlyArray2<'py, u64>,
    k: usize,
    alpha: f64,
    epsilon: f64,
    delta: f64,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Ints<'py>, Option<Words<'py>>)> {
    let ids: Vec<usize> = ids
        .as_array()
        .iter()
        .map(|&i| usize::try_from(i).map_err(|_| invalid("ids", "must be non-negative")))
        .collect::<PyResult<_>>()?;
    let labels = read(&y, k, "Y")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| multi::learn_points(&ids, n_keys, &labels, alpha, epsilon, delta, r))
    })?;
    let heavy: Vec<i64> = out.heavy.iter().map(|&i| i as i64).collect();
    let labels = out.labels.map(|m| write(py, &m)).transpose()?;
    Ok((heavy.into_pyarray(py), labels))
}

/// Disagreement counts ``(h, k)`` of packed predictions ``(h, words)`` with packed label
/// columns ``(k, words)``.
#[pyfunction]
pub fn multi_mistakes<'py>(
    py: Python<'py>,
    pred: PyReadonlyArray2<'py, u64>,
    labels: PyReadonlyArray2<'py, u64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (h, words) = (pred.shape()[0], pred.shape()[1]);
    let (k, lwords) = (labels.shape()[0], labels.shape()[1]);
    if lwords != words {
        return Err(invalid(
            "labels",
            format!("must have {words} words per row like pred, got {lwords}"),
        ));
    }
    let copy = |a: &PyReadonlyArray2<'py, u64>| match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    };
    let (p, l) = (copy(&pred), copy(&labels));
    let out = detach_guarded(py, move || multi::mistakes_matrix(&p, h, &l, k, words))?;
    out.into_pyarray(py).reshape([h, k])
}
