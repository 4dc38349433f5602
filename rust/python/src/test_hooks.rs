//! Hooks for the Python test suite, compiled only with the `test-hooks` cargo feature (the
//! developer and CI test builds: `maturin develop --features test-hooks`). Wheels, and so every
//! installed privlearn, are built without it and do not contain these functions.
//!
//! The hooks are set as module attributes without entering `__all__`: the stub
//! (`python/privlearn/_core.pyi`, checked by `mypy.stubtest`) describes the wheel, and stubtest
//! ignores private attributes that are not exported, so it passes on both builds.

use pyo3::prelude::*;

use crate::errors::detach_guarded;

/// Sets the hooks on the module `m` (not listed in its `__all__`).
pub(crate) fn install(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.setattr("_panic_for_tests", wrap_pyfunction!(_panic_for_tests, m)?)
}

/// Panics inside the guarded section: must raise ``InternalError`` (tests/test_binding.py).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    detach_guarded(py, || -> Result<(), privlearn_core::Error> {
        panic!("deliberate panic for the test suite")
    })
}
