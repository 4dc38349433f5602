//! Bindings of the exponential mechanism and log-sum-exp.

use numpy::IntoPyArray;
use privlearn_core::expmech::{self, Numerics, Scores};
use privlearn_core::vmath;
use pyo3::prelude::*;

use crate::convert::{as_ndarray, with_scores};
use crate::errors::{detach_guarded, invalid, to_py};
use crate::rng::RngArg;

pub(crate) fn parse_numerics(numerics: &str) -> PyResult<Numerics> {
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
