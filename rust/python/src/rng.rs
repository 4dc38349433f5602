//! `privlearn.random.Generator` and the resolution of every function's `rng=` argument.

use std::sync::{Mutex, MutexGuard};

use privlearn_core::Rng;
use privlearn_core::rng::RngState;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyTuple};

use crate::errors::{detach_guarded, invalid, to_py};

/// A ChaCha20 random number generator.
///
/// ``Generator()`` is keyed from the operating system's entropy source: the only construction
/// under which privacy guarantees hold. ``Generator(seed)`` with an integer in ``[0, 2**64)`` is
/// reproducible, for tests and experiments only: **a known seed voids every privacy guarantee**.
/// Passing ``rng=seed`` to a privlearn function is the same as passing ``rng=Generator(seed)``,
/// and gives the same result as the Rust core's ``Rng::from_seed(seed)``.
///
/// A generator is safe to share between threads (draws are serialised by a lock). Use
/// :meth:`spawn` to give independent streams to parallel workers.
#[pyclass(frozen, module = "privlearn._core", name = "Generator")]
pub struct Generator {
    inner: Mutex<Rng>,
    seeded: bool,
}

impl Generator {
    pub fn lock(&self) -> MutexGuard<'_, Rng> {
        // A panic while drawing (a bug, reported as InternalError) may poison the lock; the
        // generator's state is still a valid ChaCha state, so keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reads a seed: an integer in `[0, 2**64)` (not a bool).
fn seed_from(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<u64> {
    let bad = || {
        invalid(
            name,
            format!(
                "a seed must be an integer in [0, 2**64), got {}",
                describe(obj)
            ),
        )
    };
    if obj.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    let as_int = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else {
        // numpy integers and other objects with __index__.
        match obj.call_method0("__index__") {
            Ok(v) => v,
            Err(_) => return Err(bad()),
        }
    };
    as_int.extract::<u64>().map_err(|_| bad())
}

fn describe(obj: &Bound<'_, PyAny>) -> String {
    match obj.repr() {
        Ok(r) => {
            let r = r.to_string();
            if r.len() > 60 {
                format!("{}...", &r[..57])
            } else {
                r
            }
        }
        Err(_) => "an object".to_owned(),
    }
}

#[pymethods]
impl Generator {
    #[new]
    #[pyo3(signature = (seed=None))]
    fn py_new(seed: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match seed {
            None => Ok(Generator {
                inner: Mutex::new(Rng::from_entropy().map_err(to_py)?),
                seeded: false,
            }),
            Some(s) => Ok(Generator {
                inner: Mutex::new(Rng::from_seed(seed_from(s, "seed")?)),
                seeded: true,
            }),
        }
    }

    /// ``True`` if the generator derives from a caller-given seed (no privacy guarantee).
    #[getter]
    fn seeded(&self) -> bool {
        self.seeded
    }

    /// ``n`` independent child generators, keyed from this generator's output.
    fn spawn(&self, py: Python<'_>, n: usize) -> PyResult<Vec<Generator>> {
        let children = detach_guarded(py, || {
            let mut rng = self.lock();
            Ok((0..n).map(|_| rng.spawn()).collect::<Vec<_>>())
        })?;
        Ok(children
            .into_iter()
            .map(|r| Generator {
                inner: Mutex::new(r),
                seeded: self.seeded,
            })
            .collect())
    }

    /// Raw 64-bit outputs of the ChaCha20 stream: one ``int``, or a list of ``size`` ints.
    #[pyo3(signature = (size=None))]
    fn random_raw(&self, py: Python<'_>, size: Option<usize>) -> PyResult<Py<PyAny>> {
        let n = size.unwrap_or(1);
        let values = detach_guarded(py, || {
            let mut rng = self.lock();
            Ok((0..n).map(|_| rng.next_u64()).collect::<Vec<u64>>())
        })?;
        match size {
            None => Ok(values[0].into_pyobject(py)?.into_any().unbind()),
            Some(_) => Ok(values.into_pyobject(py)?.into_any().unbind()),
        }
    }

    fn __repr__(&self) -> String {
        if self.seeded {
            "Generator(<seeded: not private>)".into()
        } else {
            "Generator(<OS entropy>)".into()
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let state = this.lock().state();
        let ctor = py.get_type::<Generator>().getattr("_from_state")?;
        let args = (
            PyBytes::new(py, &state.key),
            state.stream,
            state.word_pos,
            state.reservoir,
            state.reservoir_bits,
            this.seeded,
        );
        PyTuple::new(py, [ctor, args.into_pyobject(py)?.into_any()])
    }

    /// Rebuilds a generator from ``__reduce__``'s state (used by pickle).
    #[staticmethod]
    fn _from_state(
        key: &[u8],
        stream: u64,
        word_pos: u128,
        reservoir: u64,
        reservoir_bits: u32,
        seeded: bool,
    ) -> PyResult<Self> {
        let key: [u8; 32] = key
            .try_into()
            .map_err(|_| invalid("key", "a generator key must be 32 bytes"))?;
        let rng = Rng::from_state(&RngState {
            key,
            stream,
            word_pos,
            reservoir,
            reservoir_bits,
        });
        Ok(Generator {
            inner: Mutex::new(rng),
            seeded,
        })
    }
}

/// A resolved `rng=` argument.
pub enum RngArg {
    /// A fresh generator (OS entropy) or a seeded one, owned by the call.
    Owned(Box<Rng>),
    /// A shared `Generator` whose stream the call advances.
    Shared(Py<Generator>),
}

impl RngArg {
    /// Resolves `None` / int seed / `Generator`.
    pub fn from_py(rng: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match rng {
            None => Ok(RngArg::Owned(Box::new(Rng::from_entropy().map_err(to_py)?))),
            Some(obj) if obj.is_none() => {
                Ok(RngArg::Owned(Box::new(Rng::from_entropy().map_err(to_py)?)))
            }
            Some(obj) => {
                if let Ok(g) = obj.cast::<Generator>() {
                    return Ok(RngArg::Shared(g.clone().unbind()));
                }
                if obj.is_instance_of::<PyBool>() {
                    return Err(rng_type_error(obj));
                }
                if obj.is_instance_of::<PyInt>() || obj.hasattr("__index__").unwrap_or(false) {
                    return Ok(RngArg::Owned(Box::new(Rng::from_seed(seed_from(
                        obj, "rng",
                    )?))));
                }
                Err(rng_type_error(obj))
            }
        }
    }

    /// Runs `f` on the generator (call inside `detach_guarded`).
    pub fn with<T>(&mut self, f: impl FnOnce(&mut Rng) -> T) -> T {
        match self {
            RngArg::Owned(rng) => f(rng),
            RngArg::Shared(g) => f(&mut g.get().lock()),
        }
    }
}

fn rng_type_error(obj: &Bound<'_, PyAny>) -> PyErr {
    invalid(
        "rng",
        format!(
            "must be None (fresh OS entropy), an integer seed in [0, 2**64), or a \
             privlearn.random.Generator, got {}",
            describe(obj)
        ),
    )
}
