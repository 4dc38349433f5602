//! The two Tardos variants: which code length, threshold and accusation score a code uses.
//!
//! A small vocabulary module below both [`super::params`] (which derives the constants of each
//! variant) and [`super::score`] (which computes each variant's score), so that neither of those
//! two needs the other for the type.

use crate::error::{Error, Result};

/// Which code (length, threshold) and which score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    /// Tardos' original constants and asymmetric score.
    Tardos,
    /// The symmetric score of Škorić et al. with a certified length (the default).
    #[default]
    Symmetric,
}

impl std::str::FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "tardos" => Ok(Variant::Tardos),
            "symmetric" => Ok(Variant::Symmetric),
            other => Err(Error::invalid(
                "variant",
                format!("must be 'symmetric' or 'tardos', got {other:?}"),
            )),
        }
    }
}

impl Variant {
    /// The public name (`"tardos"` or `"symmetric"`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tardos => "tardos",
            Variant::Symmetric => "symmetric",
        }
    }
}
