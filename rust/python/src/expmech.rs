//! Bindings of the exponential mechanism and log-sum-exp.

use numpy::{
    IntoPyArray, PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use privlearn_core::expmech::{self, Numerics, Scores};
use privlearn_core::vmath;
use pyo3::prelude::*;

use crate::errors::{detach_guarded, invalid, to_py};
use crate::rng::RngArg;

/// Arrays at least this long are read in place, with the GIL released, instead of being copied
/// (see [`with_scores`]).
const IN_PLACE_MIN_LEN: usize = 1 << 16;

/// Converts an array-like into a numpy array (no copy for an ndarray).
fn as_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        return Ok(arr.clone());
    }
    let np = obj.py().import("numpy")?;
    let arr = np.getattr("asarray")?.call1((obj,))?;
    arr.cast_into::<PyUntypedArray>().map_err(PyErr::from)
}

/// A new array converted to `dtype` (owned by this call alone).
fn converted<'py>(
    arr: &Bound<'py, PyUntypedArray>,
    dtype: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let np = arr.py().import("numpy")?;
    let conv = np
        .getattr("ascontiguousarray")?
        .call1((arr, np.getattr(dtype)?))?;
    conv.cast_into::<PyUntypedArray>().map_err(PyErr::from)
}

/// Runs `f` (which releases the GIL) on the elements of a one-dimensional array of `T`.
///
/// DESIGN principle 6 copies inputs into owned buffers before the GIL is released, and that is
/// what happens for short arrays and for arrays that need a conversion (a new array that only
/// this call can see). For long contiguous arrays of the native dtype a copy would cost as much
/// as the streaming computation itself (mostly in page faults), so they are read in place while
/// the GIL is released, as numpy's own ufunc loops do: the call holds a reference and a shared
/// rust-numpy borrow, so the buffer stays alive and no Rust code may write it; modifying the array
/// from another thread during the call gives an unspecified result.
fn with_slice<T: numpy::Element + Copy + Send + Sync, R>(
    arr: &Bound<'_, PyUntypedArray>,
    f: impl FnOnce(&[T]) -> PyResult<R>,
) -> PyResult<R> {
    let ro = arr.cast::<PyArray1<T>>()?.readonly();
    match ro.as_slice() {
        Ok(s) if s.len() >= IN_PLACE_MIN_LEN => f(s),
        // The copy is the point: `f` releases the GIL (DESIGN principle 6).
        #[allow(clippy::unnecessary_to_owned)]
        Ok(s) => f(&s.to_vec()),
        Err(_) => f(&ro.as_array().iter().copied().collect::<Vec<T>>()),
    }
}

/// Hands a one-dimensional numeric array-like to `f`. Floating dtypes become `f64`; integer and
/// bool dtypes stay integers (`i64`), so that the exact mechanism can use them without a grid.
pub fn with_scores<R>(
    obj: &Bound<'_, PyAny>,
    name: &'static str,
    f: impl FnOnce(Scores<'_>) -> PyResult<R>,
) -> PyResult<R> {
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
    match dtype.kind() {
        b'f' => {
            let arr = if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
                arr
            } else {
                converted(&arr, "float64")?
            };
            with_slice::<f64, R>(&arr, |s| f(Scores::Real(s)))
        }
        kind @ (b'i' | b'u' | b'b') => {
            if kind == b'u' && dtype.itemsize() == 8 && arr.len() > 0 {
                let too_big: bool = arr.call_method0("max")?.gt((1u64 << 63) - 1)?;
                if too_big {
                    return Err(invalid(name, "integer scores must fit in int64"));
                }
            }
            let arr = if dtype.is_equiv_to(&numpy::dtype::<i64>(py)) {
                arr
            } else {
                converted(&arr, "int64")?
            };
            with_slice::<i64, R>(&arr, |s| f(Scores::Int(s)))
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
/// ``exp(epsilon * scores[i] / (2 * sensitivity))``; ``size`` independent draws if given. See
/// ``privlearn.mechanisms.exponential``.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, sensitivity=1.0, size=None, rng=None, numerics="exact"))]
pub fn exponential(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    epsilon: f64,
    sensitivity: f64,
    size: Option<i64>,
    rng: Option<&Bound<'_, PyAny>>,
    numerics: &str,
) -> PyResult<Py<PyAny>> {
    let numerics = parse_numerics(numerics)?;
    let size =
        match size {
            None => None,
            Some(n) => Some(usize::try_from(n).map_err(|_| {
                invalid("size", format!("must be None or an integer >= 0, got {n}"))
            })?),
        };
    let mut rng = RngArg::from_py(rng)?;
    let draws = with_scores(scores, "scores", |scores| {
        detach_guarded(py, move || {
            rng.with(|r| {
                expmech::exponential_draws(
                    scores,
                    epsilon,
                    sensitivity,
                    numerics,
                    size.unwrap_or(1),
                    r,
                )
            })
        })
    })?;
    match size {
        None => Ok(draws[0].into_pyobject(py)?.into_any().unbind()),
        Some(_) => {
            let as_i64: Vec<i64> = draws.into_iter().map(|i| i as i64).collect();
            Ok(as_i64.into_pyarray(py).into_any().unbind())
        }
    }
}

/// ``log(sum(exp(x)))`` over all elements, computed stably. See
/// ``privlearn.mechanisms.log_sum_exp``.
#[pyfunction]
pub fn log_sum_exp(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<f64> {
    let flat = as_ndarray(x)?.call_method0("ravel")?;
    with_scores(&flat, "x", |values| {
        detach_guarded(py, move || {
            Ok(match values {
                Scores::Real(s) => vmath::log_sum_exp(s),
                Scores::Int(s) => {
                    vmath::log_sum_exp(&s.iter().map(|&v| v as f64).collect::<Vec<_>>())
                }
            })
        })
    })
}

/// Panics inside the guarded section (tests only): must raise ``InternalError``.
#[pyfunction]
pub fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    detach_guarded(py, || -> Result<(), privlearn_core::Error> {
        panic!("deliberate panic for the test suite")
    })
}
