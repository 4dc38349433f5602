//! Bindings of the mechanisms of `privlearn_core::mechanisms` (thin: convert, release the GIL,
//! call the core, map errors).

use numpy::{IntoPyArray, PyArray1, PyArrayMethods};
use privlearn_core::expmech::Numerics;
use privlearn_core::mechanisms::gaussian::{
    Calibration, Gaussian, continuous_sigma, gaussian_fast,
};
use privlearn_core::mechanisms::laplace::{Laplace, laplace_fast};
use privlearn_core::mechanisms::select::{self, NoisyMaxNoise};
use privlearn_core::mechanisms::svt;
use privlearn_core::mechanisms::{self, response};
use privlearn_core::noise::{self, Ratio};
use privlearn_core::{Error as CoreError, Rng};
use pyo3::prelude::*;
use std::sync::Mutex;

use crate::convert::{Values, output, values_f64, values_i64, with_scores};
use crate::errors::{detach_guarded, invalid, to_py};
use crate::expmech::parse_numerics;
use crate::rng::RngArg;

fn parse<T: std::str::FromStr<Err = CoreError>>(s: &str) -> PyResult<T> {
    s.parse().map_err(to_py)
}

/// Laplace mechanism. See ``privlearn.mechanisms.laplace``.
#[pyfunction]
#[pyo3(signature = (value, sensitivity, epsilon, rng=None, numerics="exact"))]
pub fn laplace(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    sensitivity: f64,
    epsilon: f64,
    rng: Option<&Bound<'_, PyAny>>,
    numerics: &str,
) -> PyResult<Py<PyAny>> {
    let numerics = parse_numerics(numerics)?;
    let Values { data, shape } = values_f64(value, "value")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| match numerics {
            Numerics::Exact => Laplace::new(sensitivity, epsilon, data.len())?.apply(&data, r),
            Numerics::Fast => laplace_fast(&data, sensitivity, epsilon, r),
        })
    })?;
    output(py, out, shape)
}

/// Gaussian mechanism. See ``privlearn.mechanisms.gaussian``.
#[pyfunction]
#[pyo3(signature = (value, sensitivity, epsilon, delta, rng=None, numerics="exact", calibration="analytic"))]
#[allow(clippy::too_many_arguments)]
pub fn gaussian(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    sensitivity: f64,
    epsilon: f64,
    delta: f64,
    rng: Option<&Bound<'_, PyAny>>,
    numerics: &str,
    calibration: &str,
) -> PyResult<Py<PyAny>> {
    let numerics = parse_numerics(numerics)?;
    let calibration: Calibration = parse(calibration)?;
    let Values { data, shape } = values_f64(value, "value")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| match numerics {
            Numerics::Exact => {
                Gaussian::new(sensitivity, epsilon, delta, data.len(), calibration)?.apply(&data, r)
            }
            Numerics::Fast => gaussian_fast(&data, sensitivity, epsilon, delta, calibration, r),
        })
    })?;
    output(py, out, shape)
}

/// The noise standard deviation ``gaussian`` uses. See ``privlearn.mechanisms.gaussian_sigma``.
#[pyfunction]
#[pyo3(signature = (sensitivity, epsilon, delta, dim=1, numerics="exact", calibration="analytic"))]
pub fn gaussian_sigma(
    sensitivity: f64,
    epsilon: f64,
    delta: f64,
    dim: usize,
    numerics: &str,
    calibration: &str,
) -> PyResult<f64> {
    let numerics = parse_numerics(numerics)?;
    let calibration: Calibration = parse(calibration)?;
    if dim == 0 {
        return Err(invalid("dim", "must be an integer >= 1, got 0"));
    }
    match numerics {
        Numerics::Exact => Ok(Gaussian::new(sensitivity, epsilon, delta, dim, calibration)
            .map_err(to_py)?
            .sigma()),
        Numerics::Fast => {
            privlearn_core::error::check_sensitivity(sensitivity).map_err(to_py)?;
            privlearn_core::error::check_epsilon(epsilon, "epsilon").map_err(to_py)?;
            if !(delta > 0.0 && delta < 1.0) {
                return Err(invalid("delta", format!("must lie in (0, 1), got {delta}")));
            }
            continuous_sigma(sensitivity, epsilon, delta, calibration).map_err(to_py)
        }
    }
}

/// ``(grid step, sensitivity in grid units, sigma^2 in grid units)`` of the exact Gaussian
/// mechanism (``gaussian(..., numerics="exact")``) for these parameters: the rounded query's L2
/// sensitivity and the discrete Gaussian's variance parameter, both integers in units of the grid
/// step. The single source for guarantees computed on top of that sampler (its zCDP, RDP and PLD).
#[pyfunction]
#[pyo3(signature = (sensitivity, epsilon, delta, dim=1, calibration="analytic"))]
pub fn gaussian_plan(
    sensitivity: f64,
    epsilon: f64,
    delta: f64,
    dim: usize,
    calibration: &str,
) -> PyResult<(f64, u128, u128)> {
    let calibration: Calibration = parse(calibration)?;
    if dim == 0 {
        return Err(invalid("dim", "must be an integer >= 1, got 0"));
    }
    let m = Gaussian::new(sensitivity, epsilon, delta, dim, calibration).map_err(to_py)?;
    // An integer below 2^100 held exactly in the double: the conversion is exact.
    Ok((
        m.grid().step(),
        m.sensitivity_units() as u128,
        m.sigma2_units(),
    ))
}

/// ``(grid step, noise scale)`` of the exact Laplace mechanism (``laplace(..., numerics="exact")``)
/// for these parameters: the scale in the value's units, rounded up to a double. The single
/// source for guarantees computed on top of that sampler.
#[pyfunction]
#[pyo3(signature = (sensitivity, epsilon, dim=1))]
pub fn laplace_plan(sensitivity: f64, epsilon: f64, dim: usize) -> PyResult<(f64, f64)> {
    if dim == 0 {
        return Err(invalid("dim", "must be an integer >= 1, got 0"));
    }
    let m = Laplace::new(sensitivity, epsilon, dim).map_err(to_py)?;
    Ok((m.grid().step(), m.scale()))
}

/// ``(grid step, threshold noise scale, query noise scale)`` of ``SparseVector`` for these
/// parameters (scales in the value's units, rounded up to doubles). The single source for
/// guarantees computed on top of that sampler.
#[pyfunction]
#[pyo3(signature = (epsilon, sensitivity=1.0, max_positives=1))]
pub fn sparse_vector_plan(
    epsilon: f64,
    sensitivity: f64,
    max_positives: u64,
) -> PyResult<(f64, f64, f64)> {
    let plan = svt::SparseVectorPlan::new(epsilon, sensitivity, max_positives).map_err(to_py)?;
    Ok((plan.grid.step(), plan.threshold_scale(), plan.query_scale()))
}

/// Exact discrete Laplace noise added to integers. See ``privlearn.mechanisms.discrete_laplace``.
#[pyfunction]
#[pyo3(signature = (value, scale, rng=None))]
pub fn discrete_laplace(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    scale: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let scale = Ratio::from_f64(scale, "scale").map_err(to_py)?;
    let Values { data, shape } = values_i64(value, "value")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| mechanisms::discrete_laplace_integers(&data, scale, r))
    })?;
    output(py, out, shape)
}

/// Exact discrete Gaussian noise added to integers. See ``privlearn.mechanisms.discrete_gaussian``.
#[pyfunction]
#[pyo3(signature = (value, sigma, rng=None))]
pub fn discrete_gaussian(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    sigma: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = noise::sigma2_from_f64(sigma, "sigma").map_err(to_py)?;
    let Values { data, shape } = values_i64(value, "value")?;
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| mechanisms::discrete_gaussian_integers(&data, (a, b), r))
    })?;
    output(py, out, shape)
}

/// Binary randomized response. See ``privlearn.mechanisms.randomized_response``.
#[pyfunction]
#[pyo3(signature = (bits, epsilon, rng=None))]
pub fn randomized_response(
    py: Python<'_>,
    bits: &Bound<'_, PyAny>,
    epsilon: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let Values { data, shape } = values_i64(bits, "bits")?;
    if data.iter().any(|&b| b != 0 && b != 1) {
        return Err(invalid("bits", "must be booleans or 0/1 integers"));
    }
    let bools: Vec<bool> = data.iter().map(|&b| b == 1).collect();
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| response::randomized_response(&bools, epsilon, r))
    })?;
    output(py, out, shape)
}

/// k-ary randomized response. See ``privlearn.mechanisms.randomized_response_k``.
#[pyfunction]
#[pyo3(signature = (values, k, epsilon, rng=None))]
pub fn randomized_response_k(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    k: i64,
    epsilon: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let Values { data, shape } = values_i64(values, "values")?;
    if k < 2 {
        return Err(invalid("k", format!("must be an integer >= 2, got {k}")));
    }
    // A negative value becomes >= 2^63 >= k here, so the core's domain check refuses it too.
    let as_u: Vec<u64> = data.iter().map(|&v| v as u64).collect();
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| response::randomized_response_k(&as_u, k as u64, epsilon, r))
    })?;
    output(
        py,
        out.into_iter().map(|v| v as i64).collect::<Vec<i64>>(),
        shape,
    )
}

/// l2-Laplace vector noise. See ``privlearn.mechanisms.l2_laplace_noise``.
#[pyfunction]
#[pyo3(signature = (dim, scale, size=None, rng=None))]
pub fn l2_laplace_noise(
    py: Python<'_>,
    dim: i64,
    scale: f64,
    size: Option<i64>,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let dim = usize::try_from(dim)
        .ok()
        .filter(|&d| d >= 1)
        .ok_or_else(|| invalid("dim", format!("must be an integer >= 1, got {dim}")))?;
    let count = match size {
        None => 1,
        Some(n) => usize::try_from(n)
            .map_err(|_| invalid("size", format!("must be None or an integer >= 0, got {n}")))?,
    };
    let mut rng = RngArg::from_py(rng)?;
    let out = detach_guarded(py, move || {
        rng.with(|r| noise::l2_laplace(r, dim, scale, count))
    })?;
    let arr = out.into_pyarray(py);
    let shaped = match size {
        None => arr.into_any(),
        Some(_) => arr.reshape([count, dim])?.into_any(),
    };
    Ok(shaped.unbind())
}

/// Report-noisy-max. See ``privlearn.mechanisms.report_noisy_max``.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, sensitivity=1.0, noise="gumbel", rng=None))]
pub fn report_noisy_max(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    epsilon: f64,
    sensitivity: f64,
    noise: &str,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<usize> {
    let noise: NoisyMaxNoise = parse(noise)?;
    let mut rng = RngArg::from_py(rng)?;
    with_scores(scores, "scores", |scores| {
        detach_guarded(py, move || {
            rng.with(|r| select::report_noisy_max(scores, epsilon, sensitivity, noise, r))
        })
    })
}

/// Permute-and-flip. See ``privlearn.mechanisms.permute_and_flip``.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, sensitivity=1.0, rng=None))]
pub fn permute_and_flip(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    epsilon: f64,
    sensitivity: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<usize> {
    let mut rng = RngArg::from_py(rng)?;
    with_scores(scores, "scores", |scores| {
        detach_guarded(py, move || {
            rng.with(|r| select::permute_and_flip(scores, epsilon, sensitivity, r))
        })
    })
}

/// Smith–Thakurta stable selection. See ``privlearn.mechanisms.stable_argmax``.
#[pyfunction]
#[pyo3(signature = (scores, epsilon, delta, sensitivity=1.0, rng=None))]
pub fn stable_argmax(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<usize>> {
    let mut rng = RngArg::from_py(rng)?;
    with_scores(scores, "scores", |scores| {
        detach_guarded(py, move || {
            rng.with(|r| select::stable_argmax(scores, epsilon, delta, sensitivity, r))
        })
    })
}

/// The sparse vector technique (AboveThreshold with ``max_positives`` runs). See
/// ``privlearn.mechanisms.SparseVector``.
#[pyclass(frozen, module = "privlearn._core", name = "SparseVector")]
pub struct SparseVector {
    state: Mutex<(svt::SparseVector, Option<Rng>)>,
    shared: Option<Py<crate::rng::Generator>>,
}

impl SparseVector {
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut svt::SparseVector, &mut Rng) -> Result<T, CoreError> + Send,
    ) -> PyResult<T> {
        let shared = self.shared.as_ref().map(|g| g.clone_ref(py));
        detach_guarded(py, move || {
            let mut guard = self
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let (sv, own) = &mut *guard;
            match (own.as_mut(), shared) {
                (Some(r), _) => f(sv, r),
                (None, Some(g)) => f(sv, &mut g.get().lock()),
                (None, None) => unreachable!("a SparseVector always has a generator"),
            }
        })
    }
}

#[pymethods]
impl SparseVector {
    #[new]
    #[pyo3(signature = (threshold, epsilon, sensitivity=1.0, max_positives=1, rng=None))]
    fn py_new(
        py: Python<'_>,
        threshold: f64,
        epsilon: f64,
        sensitivity: f64,
        max_positives: i64,
        rng: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let c = u64::try_from(max_positives)
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| {
                invalid(
                    "max_positives",
                    format!("must be an integer >= 1, got {max_positives}"),
                )
            })?;
        let rng = RngArg::from_py(rng)?;
        let (own, shared) = match rng {
            RngArg::Owned(r) => (Some(*r), None),
            RngArg::Shared(g) => (None, Some(g)),
        };
        let shared_for_init = shared.as_ref().map(|g| g.clone_ref(py));
        let (sv, own) = detach_guarded(py, move || {
            let mut own = own;
            let sv = match (own.as_mut(), shared_for_init) {
                (Some(r), _) => svt::SparseVector::new(threshold, epsilon, sensitivity, c, r)?,
                (None, Some(g)) => {
                    svt::SparseVector::new(threshold, epsilon, sensitivity, c, &mut g.get().lock())?
                }
                (None, None) => unreachable!(),
            };
            Ok((sv, own))
        })?;
        Ok(SparseVector {
            state: Mutex::new((sv, own)),
            shared,
        })
    }

    /// Answers one query: ``True`` if it is (noisily) above the threshold.
    fn query(&self, py: Python<'_>, value: f64) -> PyResult<bool> {
        self.run(py, move |sv, r| sv.query(value, r))
    }

    /// Answers queries in order until the instance halts; returns the answers given.
    fn query_many<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let Values { data, .. } = values_f64(values, "values")?;
        let out = self.run(py, move |sv, r| sv.query_many(&data, r))?;
        Ok(out.into_pyarray(py))
    }

    /// Whether the instance has given ``max_positives`` positive answers and stopped.
    #[getter]
    fn halted(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            .halted()
    }

    /// Number of positive answers so far.
    #[getter]
    fn positives(&self) -> u64 {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            .positives()
    }

    /// Number of queries answered so far.
    #[getter]
    fn answered(&self) -> u64 {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            .answered()
    }

    /// The number of positive answers after which the instance halts.
    #[getter]
    fn max_positives(&self) -> u64 {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0
            .max_positives()
    }
}
