//! Conversions of Python inputs for the bindings: array-likes to numpy arrays of the core's
//! types, copied into owned buffers or read in place (see [`with_slice`]), and outputs back.

use numpy::{
    IntoPyArray, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use privlearn_core::expmech::Scores;
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

use crate::errors::invalid;

/// Arrays at least this long are read in place, with the GIL released, instead of being copied
/// (see [`with_scores`]).
const IN_PLACE_MIN_LEN: usize = 1 << 16;

/// Converts an array-like into a numpy array (no copy for an ndarray).
pub(crate) fn as_ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        return Ok(arr.clone());
    }
    let np = obj.py().import("numpy")?;
    let arr = np.getattr("asarray")?.call1((obj,))?;
    arr.cast_into::<PyUntypedArray>().map_err(PyErr::from)
}

/// A new array converted to `dtype` (owned by this call alone).
pub(crate) fn converted<'py>(
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
pub(crate) fn with_slice<T: numpy::Element + Copy + Send + Sync, R>(
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
    require_1d(&arr, name)?;
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

/// Numeric values of any shape, copied: the flat values and the shape (`None` for a Python
/// scalar or a 0-d array, which then come back as Python scalars).
pub(crate) struct Values<T> {
    pub data: Vec<T>,
    pub shape: Option<Vec<usize>>,
}

fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

/// One-dimensional check with the shape in the message.
pub(crate) fn require_1d(arr: &Bound<'_, PyUntypedArray>, name: &'static str) -> PyResult<()> {
    if arr.ndim() == 1 {
        Ok(())
    } else {
        Err(invalid(
            name,
            format!(
                "must be one-dimensional, got shape {}",
                shape_text(arr.shape())
            ),
        ))
    }
}

/// Real values of any shape (floats, ints or bools), as `f64`.
pub(crate) fn values_f64(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<Values<f64>> {
    if obj.is_instance_of::<PyFloat>()
        || (obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>())
    {
        return Ok(Values {
            data: vec![obj.extract::<f64>()?],
            shape: None,
        });
    }
    let arr = as_ndarray(obj)?;
    match arr.dtype().kind() {
        b'f' | b'i' | b'u' | b'b' => {}
        _ => {
            return Err(invalid(
                name,
                format!(
                    "must hold real numbers (a float, int or bool dtype), got dtype {}",
                    arr.dtype().str()?
                ),
            ));
        }
    }
    let flat = converted(&arr, "float64")?.call_method0("ravel")?;
    let shape = if arr.ndim() == 0 {
        None
    } else {
        Some(arr.shape().to_vec())
    };
    let typed = flat.cast::<PyArray1<f64>>()?.readonly();
    Ok(Values {
        data: typed.as_array().iter().copied().collect(),
        shape,
    })
}

/// Integer values of any shape (ints or bools; floats must be integral), as `i64`.
pub(crate) fn values_i64(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<Values<i64>> {
    if obj.is_instance_of::<PyInt>() {
        let v = obj
            .extract::<i64>()
            .map_err(|_| invalid(name, "must fit in a 64-bit signed integer"))?;
        return Ok(Values {
            data: vec![v],
            shape: None,
        });
    }
    let arr = as_ndarray(obj)?;
    match arr.dtype().kind() {
        b'i' | b'u' | b'b' => {}
        _ => {
            return Err(invalid(
                name,
                format!(
                    "must hold integers (an int or bool dtype), got dtype {}",
                    arr.dtype().str()?
                ),
            ));
        }
    }
    if arr.dtype().kind() == b'u' && arr.dtype().itemsize() == 8 && arr.len() > 0 {
        let too_big: bool = arr.call_method0("max")?.gt((1u64 << 63) - 1)?;
        if too_big {
            return Err(invalid(name, "must fit in a 64-bit signed integer"));
        }
    }
    let flat = converted(&arr, "int64")?.call_method0("ravel")?;
    let shape = if arr.ndim() == 0 {
        None
    } else {
        Some(arr.shape().to_vec())
    };
    let typed = flat.cast::<PyArray1<i64>>()?.readonly();
    Ok(Values {
        data: typed.as_array().iter().copied().collect(),
        shape,
    })
}

/// Returns `data` with `shape` (a Python scalar when `shape` is `None`).
pub(crate) fn output<'py, T>(
    py: Python<'py>,
    data: Vec<T>,
    shape: Option<Vec<usize>>,
) -> PyResult<Py<PyAny>>
where
    T: numpy::Element + IntoPyObject<'py> + Copy,
{
    match shape {
        None => Ok(data[0].into_bound_py_any(py)?.unbind()),
        Some(shape) => {
            let arr = data.into_pyarray(py).reshape(shape)?;
            Ok(arr
                .cast_into::<PyArrayDyn<T>>()
                .map_err(PyErr::from)?
                .into_any()
                .unbind())
        }
    }
}
