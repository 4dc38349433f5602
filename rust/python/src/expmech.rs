//! Bindings of the exponential mechanism and log-sum-exp.

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use privlearn_core::expmech::{self, Numerics};
use privlearn_core::vmath;
use pyo3::prelude::*;

use crate::errors::{detach_guarded, invalid, to_py};
use crate::rng::RngArg;

/// Scores copied out of Python into an owned buffer.
pub enum Scores {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

fn as_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        return Ok(arr.clone());
    }
    let np = obj.py().import("numpy")?;
    let arr = np.getattr("asarray")?.call1((obj,))?;
    arr.cast_into::<PyUntypedArray>().map_err(PyErr::from)
}

fn copy_f64(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<f64>> {
    let typed = arr.cast::<PyArray1<f64>>()?;
    let ro = typed.readonly();
    Ok(match ro.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => ro.as_array().iter().copied().collect(),
    })
}

fn copy_i64(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<i64>> {
    let typed = arr.cast::<PyArray1<i64>>()?;
    let ro = typed.readonly();
    Ok(match ro.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => ro.as_array().iter().copied().collect(),
    })
}

/// Copies a one-dimensional numeric array-like. Floating dtypes become `f64`; integer and bool
/// dtypes stay integers (`i64`), so that the exact mechanism can use them without a grid.
pub fn extract_scores(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<Scores> {
    let arr = as_ndarray(obj)?;
    if arr.ndim() != 1 {
        let dims: Vec<String> = arr.shape().iter().map(ToString::to_string).collect();
        let shape = if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        };
        return Err(invalid(
            name,
            format!("must be one-dimensional, got shape {shape}"),
        ));
    }
    let py = obj.py();
    let dtype = arr.dtype();
    let kind = dtype.kind();
    let np = || py.import("numpy");
    match kind {
        b'f' => {
            if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
                Ok(Scores::Float(copy_f64(&arr)?))
            } else {
                let conv = arr.call_method1("astype", (np()?.getattr("float64")?,))?;
                Ok(Scores::Float(copy_f64(conv.cast::<PyUntypedArray>()?)?))
            }
        }
        b'i' | b'u' | b'b' => {
            if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
                return Ok(Scores::Int(copy_i64(&arr)?));
            }
            if kind == b'u' && dtype.itemsize() == 8 && arr.len() > 0 {
                let too_big: bool = arr.call_method0("max")?.gt((1u64 << 63) - 1)?;
                if too_big {
                    return Err(invalid(name, "integer scores must fit in int64"));
                }
            }
            let conv = arr.call_method1("astype", (np()?.getattr("int64")?,))?;
            Ok(Scores::Int(copy_i64(conv.cast::<PyUntypedArray>()?)?))
        }
        _ => Err(invalid(
            name,
            format!(
                "must hold real numbers (a float, int or bool dtype), got dtype {}",
                dtype.str()?
            ),
        )),
    }
}

fn parse_numerics(numerics: &str) -> PyResult<Numerics> {
    numerics.parse().map_err(to_py)
}

/// Exponential mechanism: index ``i`` with probability proportional to
/// ``exp(epsilon * scores[i] / (2 * sensitivity))``. See ``privlearn.mechanisms.exponential``.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, sensitivity=1.0, rng=None, numerics="exact"))]
pub fn exponential(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    epsilon: f64,
    sensitivity: f64,
    rng: Option<&Bound<'_, PyAny>>,
    numerics: &str,
) -> PyResult<usize> {
    let numerics = parse_numerics(numerics)?;
    let scores = extract_scores(scores, "scores")?;
    let mut rng = RngArg::from_py(rng)?;
    detach_guarded(py, move || {
        rng.with(|r| match &scores {
            Scores::Float(s) => expmech::exponential(s, epsilon, sensitivity, numerics, r),
            Scores::Int(s) => expmech::exponential_int(s, epsilon, sensitivity, numerics, r),
        })
    })
}

/// ``log(sum(exp(x)))`` over all elements, computed stably. See
/// ``privlearn.mechanisms.log_sum_exp``.
#[pyfunction]
pub fn log_sum_exp(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<f64> {
    let arr = as_ndarray(x)?;
    let flat = arr.call_method0("ravel")?;
    let values = match extract_scores(&flat, "x")? {
        Scores::Float(v) => v,
        Scores::Int(v) => v.into_iter().map(|s| s as f64).collect(),
    };
    detach_guarded(py, move || Ok(vmath::log_sum_exp(&values)))
}

/// Panics inside the guarded section (tests only): must raise ``InternalError``.
#[pyfunction]
pub fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    detach_guarded(py, || -> Result<(), privlearn_core::Error> {
        panic!("deliberate panic for the test suite")
    })
}
