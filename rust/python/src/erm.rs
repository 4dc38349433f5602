//! Bindings of `privlearn_core::erm` (thin: convert, copy, release the GIL, call the core, map
//! errors). The Python API is `privlearn.learners.erm`, which validates shapes first.

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use privlearn_core::erm::gibbs::{MalaSettings, Objective, mala};
use privlearn_core::erm::risk::{LinearData, linear_risks, threshold_mistakes};
use privlearn_core::erm::threshold::{ThresholdGrid, sample_threshold, threshold_pieces};
use privlearn_core::erm::{Loss, Quantizer};
use pyo3::prelude::*;

use crate::errors::{detach_guarded, to_py};
use crate::rng::RngArg;

/// A two-dimensional array's values (row-major), copied.
fn rows<T: numpy::Element + Copy>(a: &PyReadonlyArray2<'_, T>) -> Vec<T> {
    match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    }
}

/// A one-dimensional array's values, copied.
fn values<T: numpy::Element + Copy>(a: &PyReadonlyArray1<'_, T>) -> Vec<T> {
    a.as_array().to_vec()
}

/// Per-record integer losses ``round(clip(l, 0, B) / B * 2^frac_bits)`` (NaN counts as ``B``), by
/// the kernel's ``privlearn_core::erm::Quantizer`` (``int64``).
#[pyfunction]
pub fn erm_quantize<'py>(
    py: Python<'py>,
    losses: PyReadonlyArray1<'py, f64>,
    loss_bound: f64,
    frac_bits: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let quant = Quantizer::new(loss_bound, frac_bits).map_err(to_py)?;
    // Values are at most 2^40 (MAX_FRAC_BITS).
    let out: Vec<i64> = losses
        .as_array()
        .iter()
        .map(|&l| quant.quantize(l) as i64)
        .collect();
    Ok(out.into_pyarray(py))
}

/// Quantised total clipped loss of every linear candidate (``int64``); see
/// ``privlearn_core::erm::risk::linear_risks``.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn erm_linear_risks<'py>(
    py: Python<'py>,
    coef: PyReadonlyArray2<'py, f64>,
    intercept: PyReadonlyArray1<'py, f64>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    loss: &str,
    loss_bound: f64,
    frac_bits: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let loss: Loss = loss.parse().map_err(to_py)?;
    let d = x.shape()[1];
    let (coef, intercept, x, y) = (rows(&coef), values(&intercept), rows(&x), values(&y));
    let out = detach_guarded(py, move || {
        let quant = Quantizer::new(loss_bound, frac_bits)?;
        let data = LinearData::new(&x, &y, d)?;
        let totals = linear_risks(&coef, &intercept, &data, loss, &quant)?;
        // Totals are below 2^62 (checked by the core).
        Ok(totals.into_iter().map(|v| v as i64).collect::<Vec<i64>>())
    })?;
    Ok(out.into_pyarray(py))
}

/// Mistakes of every threshold candidate (``int64``); see
/// ``privlearn_core::erm::risk::threshold_mistakes``.
#[pyfunction]
pub fn erm_threshold_mistakes<'py>(
    py: Python<'py>,
    t: PyReadonlyArray1<'py, f64>,
    ge: PyReadonlyArray1<'py, bool>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (t, ge, x, y) = (values(&t), values(&ge), values(&x), values(&y));
    let out = detach_guarded(py, move || {
        let m = threshold_mistakes(&t, &ge, &x, &y)?;
        Ok(m.into_iter().map(|v| v as i64).collect::<Vec<i64>>())
    })?;
    Ok(out.into_pyarray(py))
}

/// The threshold grid of ``[low, high]`` as ``(g, j_lo, j_hi)``: thresholds ``j * 2**g``.
#[pyfunction]
pub fn erm_threshold_grid(low: f64, high: f64) -> PyResult<(i32, i64, i64)> {
    let g = ThresholdGrid::new(low, high).map_err(to_py)?;
    Ok((g.g, g.j_lo, g.j_hi))
}

type PiecesOut<'py> = (
    i32,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<i64>>,
);

/// The pieces of the threshold mistake count: ``(g, start, length, mistakes)``.
#[pyfunction]
pub fn erm_threshold_pieces<'py>(
    py: Python<'py>,
    low: f64,
    high: f64,
    ge: bool,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, bool>,
) -> PyResult<PiecesOut<'py>> {
    let (x, y) = (values(&x), values(&y));
    let (g, pieces) = detach_guarded(py, move || {
        let grid = ThresholdGrid::new(low, high)?;
        Ok((grid.g, threshold_pieces(&grid, ge, &x, &y)?))
    })?;
    let start: Vec<i64> = pieces.iter().map(|p| p.start).collect();
    let len: Vec<u64> = pieces.iter().map(|p| p.len).collect();
    let mistakes: Vec<i64> = pieces.iter().map(|p| p.mistakes as i64).collect();
    Ok((
        g,
        start.into_pyarray(py),
        len.into_pyarray(py),
        mistakes.into_pyarray(py),
    ))
}

/// One exact draw of the exponential mechanism over the thresholds of ``[low, high]``.
#[pyfunction]
#[pyo3(signature = (low, high, ge, x, y, epsilon, sensitivity, rng=None))]
#[allow(clippy::too_many_arguments)]
pub fn erm_sample_threshold(
    py: Python<'_>,
    low: f64,
    high: f64,
    ge: bool,
    x: PyReadonlyArray1<'_, f64>,
    y: PyReadonlyArray1<'_, bool>,
    epsilon: f64,
    sensitivity: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let (x, y) = (values(&x), values(&y));
    let mut rng = RngArg::from_py(rng)?;
    detach_guarded(py, move || {
        rng.with(|r| sample_threshold(low, high, ge, &x, &y, epsilon, sensitivity, r))
    })
}

type MalaOut<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<f64>>,
    Vec<usize>,
);

/// Independent MALA chains of the Gibbs density of penalized ERM over a ball:
/// ``(final states, F traces, accepted counts)``; see ``privlearn_core::erm::gibbs``.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (x, y, loss, loss_bound, ridge, beta, radius, step, steps, starts, rng=None))]
pub fn erm_mala<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    loss: &str,
    loss_bound: f64,
    ridge: f64,
    beta: f64,
    radius: f64,
    step: f64,
    steps: usize,
    starts: PyReadonlyArray2<'py, f64>,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<MalaOut<'py>> {
    let loss: Loss = loss.parse().map_err(to_py)?;
    let d = x.shape()[1];
    let chains = starts.shape()[0];
    let sd = starts.shape()[1];
    let (x, y, flat) = (rows(&x), values(&y), rows(&starts));
    let mut rng = RngArg::from_py(rng)?;
    let run = detach_guarded(py, move || {
        let objective = Objective {
            x: &x,
            y: &y,
            d,
            loss,
            bound: loss_bound,
            ridge,
        };
        let settings = MalaSettings {
            beta,
            radius,
            step,
            steps,
        };
        let starts: Vec<Vec<f64>> = if sd == 0 {
            vec![Vec::new(); chains]
        } else {
            flat.chunks(sd).map(<[f64]>::to_vec).collect()
        };
        rng.with(|r| mala(&objective, &settings, &starts, r))
    })?;
    let states: Vec<f64> = run.states.concat();
    let traces: Vec<f64> = run.traces.concat();
    Ok((
        states.into_pyarray(py).reshape([chains, sd])?,
        traces.into_pyarray(py).reshape([chains, steps])?,
        run.accepted,
    ))
}
