//! Bindings of `privlearn_core::suffstats` (thin: read or copy the arrays, release the GIL, call
//! the core, map errors). The Python API is `privlearn.learners._suffstats`, which validates the
//! data and bounds first and refuses non-finite values from the counts returned here.

use numpy::{IntoPyArray, PyArray1};
use privlearn_core::suffstats::{
    GramSpec, abs_counts, exact_gram_threads, gram_threads, round_entry, row_norm_counts,
};
use pyo3::prelude::*;

use crate::convert::{as_ndarray, require_1d, with_slice};
use crate::errors::{detach_guarded, invalid};

/// The exact upper triangle (row-major, ``p (p + 1) / 2`` entries) of ``T = sum_i q_i q_i^T``
/// for the clipped, truncated rows of ``[X, intercept, y]``; see
/// ``privlearn_core::suffstats::exact_gram``. ``x`` is ``X`` flattened row-major (float64, ``d``
/// values a row), ``y`` the labels (float64). Returns ``(hi, lo, rows, bad_x, bad_y)``: entry
/// ``k`` is ``hi[k] * 2**64 + lo[k]`` with ``0 <= lo[k] < 2**64``. Large inputs are split over
/// at most ``threads`` threads (``privlearn_core::suffstats::gram_threads``: also capped by the
/// work and the available cores); the result does not depend on it.
#[pyfunction]
#[pyo3(signature = (x, y, d, data_norm, label_bound, intercept, exps, threads = 1))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn suffstats_gram(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    d: usize,
    data_norm: f64,
    label_bound: f64,
    intercept: Option<f64>,
    exps: Vec<i32>,
    threads: usize,
) -> PyResult<(Vec<i128>, Vec<u64>, u64, u64, u64)> {
    let (xa, ya) = (as_ndarray(x)?, as_ndarray(y)?);
    require_1d(&xa, "X")?;
    require_1d(&ya, "y")?;
    let spec = GramSpec {
        d,
        data_norm,
        label_bound,
        intercept,
    };
    let gram = with_slice::<f64, _>(&xa, |xs| {
        with_slice::<f64, _>(&ya, |ys| {
            let parts = gram_threads(ys.len(), spec.columns(), threads);
            detach_guarded(py, || exact_gram_threads(xs, ys, &spec, &exps, parts))
        })
    })?;
    Ok((gram.hi, gram.lo, gram.rows, gram.bad_x, gram.bad_y))
}

/// ``(hi[k] * 2**64 + lo[k]) * 2**exponents[k]`` rounded once to the nearest float64 (ties to
/// even, subnormal-safe), for every ``k``; see ``privlearn_core::suffstats::round_entry``.
#[pyfunction]
pub fn suffstats_round<'py>(
    py: Python<'py>,
    hi: Vec<i128>,
    lo: Vec<u64>,
    exponents: Vec<i32>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    if hi.len() != lo.len() || hi.len() != exponents.len() {
        return Err(invalid(
            "exponents",
            "hi, lo and exponents must have the same length",
        ));
    }
    let out: Vec<f64> = hi
        .iter()
        .zip(&lo)
        .zip(&exponents)
        .map(|((&h, &l), &e)| round_entry(h, l, e))
        .collect();
    Ok(out.into_pyarray(py))
}

/// Counts as int64 (at most the number of rows, far below ``2**63``).
fn counts_array(py: Python<'_>, counts: Vec<u64>) -> Bound<'_, PyArray1<i64>> {
    let out: Vec<i64> = counts.into_iter().map(|c| c as i64).collect();
    out.into_pyarray(py)
}

/// ``(counts, bad)``: ``counts[k]`` the number of rows of ``x`` (flattened row-major, ``d``
/// float64 values a row) whose L2 norm is at most ``grid[k]``, ``bad`` the number of non-finite
/// entries (read as 0); see ``privlearn_core::suffstats::row_norm_counts``.
#[pyfunction]
pub fn suffstats_norm_counts<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    d: usize,
    grid: Vec<f64>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, u64)> {
    let xa = as_ndarray(x)?;
    require_1d(&xa, "X")?;
    let (counts, bad) = with_slice::<f64, _>(&xa, |xs| {
        detach_guarded(py, || row_norm_counts(xs, d, &grid))
    })?;
    Ok((counts_array(py, counts), bad))
}

/// ``(counts, bad)``: ``counts[k]`` the number of labels ``y`` (float64) with ``|y| <= grid[k]``,
/// ``bad`` the number of non-finite labels (read as 0); see
/// ``privlearn_core::suffstats::abs_counts``.
#[pyfunction]
pub fn suffstats_abs_counts<'py>(
    py: Python<'py>,
    y: &Bound<'py, PyAny>,
    grid: Vec<f64>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, u64)> {
    let ya = as_ndarray(y)?;
    require_1d(&ya, "y")?;
    let (counts, bad) =
        with_slice::<f64, _>(&ya, |ys| detach_guarded(py, || abs_counts(ys, &grid)))?;
    Ok((counts_array(py, counts), bad))
}
