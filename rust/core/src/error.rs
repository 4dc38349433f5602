//! The one error type of the core crate.
//!
//! Every fallible public function returns [`Result`]. The Python bindings map each variant to a
//! Python exception in one place (`rust/python/src/errors.rs`): [`Error::InvalidParameter`]
//! becomes `privlearn.InvalidParameterError` (a `ValueError`), the others `privlearn.PrivlearnError`
//! subclasses.

use std::borrow::Cow;

/// Errors raised by privlearn's core algorithms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A parameter is outside its allowed range. `name` is the parameter's public name (as in the
    /// Python API) and `message` says what is allowed and what was given.
    #[error("{name}: {message}")]
    InvalidParameter {
        /// Public name of the offending parameter.
        name: Cow<'static, str>,
        /// What is allowed, and what was received.
        message: String,
    },
    /// A stateful mechanism was used after it stopped answering (e.g. a sparse-vector instance
    /// that reached its number of positive answers).
    #[error("{0}")]
    Halted(String),
    /// The operating system's entropy source failed.
    #[error("the operating system's random source failed: {0}")]
    Entropy(String),
}

impl Error {
    /// Builds an [`Error::InvalidParameter`].
    pub fn invalid(name: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name: name.into(),
            message: message.into(),
        }
    }
}

/// Result alias used throughout the core crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Checks that a privacy parameter named `name` (`"epsilon"`, or `"epsilon0"`, `"epsilon1"`...
/// where a function takes several) is a finite number `> 0`.
pub fn check_epsilon(epsilon: f64, name: &'static str) -> Result<()> {
    check_finite_positive(epsilon, name)
}

/// Checks that a sensitivity is a finite number `> 0`.
pub fn check_sensitivity(sensitivity: f64) -> Result<()> {
    check_finite_positive(sensitivity, "sensitivity")
}

/// Checks that the parameter `name` is a finite number `> 0`.
fn check_finite_positive(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            format!("must be a finite number > 0, got {value}"),
        ))
    }
}
