//! Bindings of `privlearn_core::prediction` (thin: convert, release the GIL, call the core, map
//! errors). The Python API is `privlearn.prediction`, which validates parameters, computes the
//! certificates and charges the accountant before calling these.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use privlearn_core::prediction::cover::{AnyCover, FiniteCover, RealCover};
use privlearn_core::prediction::private2::{self, Private2Config};
use privlearn_core::prediction::stable::{self, StableConfig};
use privlearn_core::prediction::{Flip, aggregate};
use pyo3::prelude::*;

use crate::dichotomy::{Spec, class};
use crate::errors::{detach_guarded, to_py};
use crate::rng::RngArg;

/// A C-contiguous array's values, copied (the GIL is released afterwards).
fn owned<T: numpy::Element + Copy>(a: &PyReadonlyArray2<'_, T>) -> Vec<T> {
    match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    }
}

/// The labelled sample: a real-parameter class (``spec``) or, with ``finite_labels``, an explicit
/// finite class over domain indices.
fn sample(
    spec: Spec,
    finite_labels: Option<PyReadonlyArray2<'_, bool>>,
    x: &PyReadonlyArray2<'_, f64>,
    y: &PyReadonlyArray1<'_, bool>,
) -> PyResult<AnyCover> {
    let xs = owned(x);
    let ys = y.as_array().to_vec();
    Ok(match finite_labels {
        Some(m) => {
            let (rows, cols) = (m.shape()[0], m.shape()[1]);
            AnyCover::Finite(FiniteCover::new(&owned(&m), rows, cols, &xs, &ys).map_err(to_py)?)
        }
        None => AnyCover::Real(RealCover::new(class(spec)?, &xs, &ys).map_err(to_py)?),
    })
}

fn flip(f: Option<(u64, u64)>) -> PyResult<Option<Flip>> {
    f.map(|(num, den)| Flip::new(num, den).map_err(to_py))
        .transpose()
}

/// Labels of the stable predictor (Theorem 1), flipped when ``flip = (num, den)`` is given
/// (Corollary 1). See ``privlearn.prediction``.
#[pyfunction]
#[pyo3(signature = (spec, finite_labels, x, y, queries, m, epsilon0, flip_ratio=None, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn prediction_stable<'py>(
    py: Python<'py>,
    spec: Spec,
    finite_labels: Option<PyReadonlyArray2<'py, bool>>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    queries: PyReadonlyArray2<'py, f64>,
    m: usize,
    epsilon0: f64,
    flip_ratio: Option<(u64, u64)>,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let cover = sample(spec, finite_labels, &x, &y)?;
    let q = owned(&queries);
    let cfg = StableConfig {
        m,
        epsilon0,
        flip: flip(flip_ratio)?,
    };
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| stable::predict(&cover, &q, &cfg, r))
    })?;
    Ok(out.into_pyarray(py))
}

/// Rao-Blackwellised probabilities of label 1 of the stable predictor (no privacy).
#[pyfunction]
#[pyo3(signature = (spec, finite_labels, x, y, queries, m, epsilon0, n_subsets, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn prediction_stable_proba<'py>(
    py: Python<'py>,
    spec: Spec,
    finite_labels: Option<PyReadonlyArray2<'py, bool>>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    queries: PyReadonlyArray2<'py, f64>,
    m: usize,
    epsilon0: f64,
    n_subsets: usize,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let cover = sample(spec, finite_labels, &x, &y)?;
    let q = owned(&queries);
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| stable::proba(&cover, &q, m, epsilon0, n_subsets, r))
    })?;
    Ok(out.into_pyarray(py))
}

/// Labels of the Theorem 2 predictor; ``block_of[i]`` is the block of example ``i``.
#[pyfunction]
#[pyo3(signature = (spec, finite_labels, x, y, queries, m, epsilon1, block_of, n_blocks, flip_ratio=None, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn prediction_theorem2<'py>(
    py: Python<'py>,
    spec: Spec,
    finite_labels: Option<PyReadonlyArray2<'py, bool>>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
    queries: PyReadonlyArray2<'py, f64>,
    m: usize,
    epsilon1: f64,
    block_of: PyReadonlyArray1<'py, u64>,
    n_blocks: usize,
    flip_ratio: Option<(u64, u64)>,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let cover = sample(spec, finite_labels, &x, &y)?;
    let q = owned(&queries);
    let blocks: Vec<usize> = block_of.as_array().iter().map(|&b| b as usize).collect();
    let cfg = Private2Config::from_assignment(m, epsilon1, &blocks, n_blocks, flip(flip_ratio)?)
        .map_err(to_py)?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| private2::predict(&cover, &q, &cfg, r))
    })?;
    Ok(out.into_pyarray(py))
}

/// The private vote on a ``(queries, teachers)`` vote matrix: the exponential mechanism with
/// ``epsilon`` on the counts of each row.
#[pyfunction]
#[pyo3(signature = (votes, epsilon, rng=None))]
pub fn prediction_noisy_vote<'py>(
    py: Python<'py>,
    votes: PyReadonlyArray2<'py, bool>,
    epsilon: f64,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let k = votes.shape()[1];
    let v = owned(&votes);
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| aggregate::noisy_vote(&v, k, epsilon, r))
    })?;
    Ok(out.into_pyarray(py))
}

/// Randomized response on a ``(queries, teachers)`` vote matrix: a uniformly random teacher's
/// vote, flipped with probability ``num / den``.
#[pyfunction]
#[pyo3(signature = (votes, flip_ratio, rng=None))]
pub fn prediction_randomized_response<'py>(
    py: Python<'py>,
    votes: PyReadonlyArray2<'py, bool>,
    flip_ratio: (u64, u64),
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let k = votes.shape()[1];
    let v = owned(&votes);
    let f = Flip::new(flip_ratio.0, flip_ratio.1).map_err(to_py)?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| aggregate::randomized_response(&v, k, f, r))
    })?;
    Ok(out.into_pyarray(py))
}
