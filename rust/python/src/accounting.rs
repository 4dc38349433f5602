//! Bindings of `privlearn_core::accounting` (thin: copy, release the GIL, call the core, map
//! errors). The Python API is `privlearn.accounting._pld`, which validates arguments first and
//! computes the mechanisms' curves.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use privlearn_core::accounting::{Pld, pld_build};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::detach_guarded;

/// A discretised privacy-loss distribution (see ``privlearn_core::accounting::pld``). Immutable.
#[pyclass(frozen, module = "privlearn._core", name = "PldCore")]
pub struct PldCore {
    inner: Pld,
}

#[pymethods]
impl PldCore {
    /// Connect-the-dots PLD from upper bounds ``deltas[j]`` of the hockey-stick curve at
    /// ``(lo + j) * h``.
    #[staticmethod]
    fn from_deltas(
        py: Python<'_>,
        h: f64,
        lo: i64,
        deltas: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let data = deltas.as_array().to_vec();
        let inner = detach_guarded(py, move || Pld::from_delta_grid(h, lo, &data))?;
        Ok(PldCore { inner })
    }

    /// Connect-the-dots PLD from upper bounds ``excess[j]`` of ``delta - (1 - e^eps)_+`` at
    /// ``(lo + j) * h``.
    #[staticmethod]
    fn from_excess(
        py: Python<'_>,
        h: f64,
        lo: i64,
        excess: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let data = excess.as_array().to_vec();
        let inner = detach_guarded(py, move || Pld::from_excess_grid(h, lo, &data))?;
        Ok(PldCore { inner })
    }

    /// A PLD from its parts (checked; the caller vouches for the safe side).
    #[staticmethod]
    fn from_parts(
        py: Python<'_>,
        h: f64,
        lo: i64,
        masses: PyReadonlyArray1<'_, f64>,
        inf_mass: f64,
        err: f64,
    ) -> PyResult<Self> {
        let data = masses.as_array().to_vec();
        let inner = detach_guarded(py, move || Pld::from_parts(h, lo, data, inf_mass, err))?;
        Ok(PldCore { inner })
    }

    /// k-ary randomized response with ``inf_mass`` on ``+inf`` (pure DP: ``k = 2``, no mass;
    /// approximate DP: ``k = 2``, ``inf_mass = delta``), connect-the-dots in closed form.
    #[staticmethod]
    fn randomized_response(
        py: Python<'_>,
        h: f64,
        epsilon: f64,
        k: u64,
        inf_mass: f64,
    ) -> PyResult<Self> {
        let inner = detach_guarded(py, move || {
            pld_build::randomized_response(h, epsilon, k, inf_mass)
        })?;
        Ok(PldCore { inner })
    }

    /// The Laplace mechanism's PLD for ``e0 = sensitivity / scale``.
    #[staticmethod]
    fn laplace(py: Python<'_>, h: f64, e0: f64) -> PyResult<Self> {
        let inner = detach_guarded(py, move || pld_build::laplace(h, e0))?;
        Ok(PldCore { inner })
    }

    /// The Laplace mechanism's PLDs for each of ``e0s``, built in parallel.
    #[staticmethod]
    fn laplace_many(py: Python<'_>, h: f64, e0s: Vec<f64>) -> PyResult<Vec<Self>> {
        let plds = detach_guarded(py, move || pld_build::laplace_many(h, &e0s))?;
        Ok(plds.into_iter().map(|inner| PldCore { inner }).collect())
    }

    /// The composition of all ``plds`` (a non-empty list), smallest first.
    #[staticmethod]
    fn compose_all(py: Python<'_>, plds: Vec<PyRef<'_, PldCore>>, tail: f64) -> PyResult<Self> {
        let owned: Vec<Pld> = plds.iter().map(|p| p.inner.clone()).collect();
        let inner = detach_guarded(py, move || Pld::compose_all(&owned, tail))?;
        Ok(PldCore { inner })
    }

    /// The composition of ``self`` and ``other``.
    fn compose(&self, py: Python<'_>, other: PyRef<'_, PldCore>, tail: f64) -> PyResult<Self> {
        let b = other.inner.clone();
        let inner = detach_guarded(py, || self.inner.compose(&b, tail))?;
        Ok(PldCore { inner })
    }

    /// ``self`` composed with itself ``k`` times.
    fn self_compose(&self, py: Python<'_>, k: u64, tail: f64) -> PyResult<Self> {
        let inner = detach_guarded(py, || self.inner.self_compose(k, tail))?;
        Ok(PldCore { inner })
    }

    /// Upper bound of delta at ``epsilon`` (error bound included).
    fn delta(&self, py: Python<'_>, epsilon: f64) -> PyResult<f64> {
        detach_guarded(py, || Ok(self.inner.delta(epsilon)))
    }

    /// Smallest epsilon >= 0 (rounded up) whose delta is at most ``delta``; ``inf`` if none.
    fn epsilon(&self, py: Python<'_>, delta: f64) -> PyResult<f64> {
        detach_guarded(py, || self.inner.epsilon(delta))
    }

    /// The grid step.
    #[getter]
    fn h(&self) -> f64 {
        self.inner.h()
    }

    /// The grid index of the first atom.
    #[getter]
    fn lo(&self) -> i64 {
        self.inner.lo()
    }

    /// The mass on ``+inf``.
    #[getter]
    fn inf_mass(&self) -> f64 {
        self.inner.inf_mass()
    }

    /// The absolute error bound included in every delta.
    #[getter]
    fn err(&self) -> f64 {
        self.inner.err()
    }

    /// A copy of the finite masses.
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.masses().to_vec().into_pyarray(py)
    }

    /// Number of atoms.
    fn __len__(&self) -> usize {
        self.inner.masses().len()
    }

    /// Pickling: rebuilt from its parts.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<PldCore>().getattr("from_parts")?;
        let args = (
            self.inner.h(),
            self.inner.lo(),
            self.masses(py),
            self.inner.inf_mass(),
            self.inner.err(),
        );
        PyTuple::new(py, [cls.into_any(), args.into_pyobject(py)?.into_any()])
    }
}
