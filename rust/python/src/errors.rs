//! The one place where core errors and Rust panics become Python exceptions.
//!
//! The exception classes live in Python (`privlearn/errors.py`) so that they can use multiple
//! inheritance (`InvalidParameterError` is both a `PrivlearnError` and a `ValueError`); they are
//! imported lazily on first use.

use std::panic::{AssertUnwindSafe, catch_unwind};

use privlearn_core::Error as CoreError;
use pyo3::prelude::*;

pyo3::import_exception!(privlearn.errors, InvalidParameterError);
pyo3::import_exception!(privlearn.errors, EntropyError);
pyo3::import_exception!(privlearn.errors, InternalError);
pyo3::import_exception!(privlearn.errors, HaltedError);

/// Maps a core error to its Python exception.
pub fn to_py(err: CoreError) -> PyErr {
    match err {
        CoreError::InvalidParameter { name, message } => {
            InvalidParameterError::new_err((format!("{name}: {message}"), name.into_owned()))
        }
        CoreError::Entropy(message) => EntropyError::new_err(message),
        CoreError::Halted(message) => HaltedError::new_err(message),
    }
}

/// An `InvalidParameterError` raised by the bindings themselves (argument conversion).
pub fn invalid(name: &'static str, message: impl Into<String>) -> PyErr {
    to_py(CoreError::invalid(name, message))
}

/// Runs `f` with the GIL released, turning core errors and panics into Python exceptions.
///
/// Callers copy their inputs into owned buffers first (DESIGN principle 6). A panic is a bug in
/// privlearn: it surfaces as `privlearn.errors.InternalError`, never as PyO3's `PanicException`
/// (which derives from `BaseException` and escapes `except Exception`).
pub fn detach_guarded<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> Result<T, CoreError> + Send,
    T: Send,
{
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    match outcome {
        Ok(result) => result.map_err(to_py),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(InternalError::new_err(format!(
                "internal error in privlearn's Rust core (please report it): {what}"
            )))
        }
    }
}
