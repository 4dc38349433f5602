//! `privlearn._core`: thin PyO3 bindings over `privlearn-core`.
//!
//! Each binding validates and copies its inputs into owned buffers, releases the GIL, calls one
//! core function, and maps errors in one place ([`errors`]). No algorithm lives here.

mod accounting;
mod convert;
mod dichotomy;
mod erm;
mod errors;
mod expmech;
mod gf2;
mod mechanisms;
mod multi;
mod prediction;
mod query_release;
mod rng;
mod suffstats;
mod tardos;
#[cfg(feature = "test-hooks")]
mod test_hooks;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
mod _core {
    #[pymodule_export]
    use crate::accounting::PldCore;
    #[pymodule_export]
    use crate::dichotomy::representative_mistakes;
    #[pymodule_export]
    use crate::dichotomy::{
        DichotomySource, dichotomies, dichotomy_argmin, dichotomy_count, dichotomy_erm,
        dichotomy_mistakes, finite_dichotomies, finite_vc_dimension, halfspace_predict,
        parity_dichotomies, parity_erm, parity_rank,
    };
    #[pymodule_export]
    use crate::erm::{
        erm_linear_risks, erm_mala, erm_quantize, erm_sample_threshold, erm_threshold_grid,
        erm_threshold_mistakes, erm_threshold_pieces,
    };
    #[pymodule_export]
    use crate::expmech::{exponential, log_sum_exp};
    #[pymodule_export]
    use crate::gf2::{
        gf2_inverse, gf2_mul, gf2_nullspace, gf2_random, gf2_rank, gf2_rref, gf2_solve,
        gf2_transpose,
    };
    #[pymodule_export]
    use crate::mechanisms::{
        SparseVector, discrete_gaussian, discrete_laplace, gaussian, gaussian_plan, gaussian_sigma,
        l2_laplace_noise, laplace, laplace_plan, permute_and_flip, randomized_response,
        randomized_response_k, report_noisy_max, sparse_vector_plan, stable_argmax,
    };
    #[pymodule_export]
    use crate::multi::{
        multi_learn_points, multi_mistakes, multi_points_noise_scale, multi_search_parities,
        multi_stability_histogram,
    };
    #[pymodule_export]
    use crate::prediction::{
        prediction_noisy_vote, prediction_randomized_response, prediction_stable,
        prediction_stable_proba, prediction_theorem2,
    };
    #[pymodule_export]
    use crate::query_release::{
        HypothesisEnsemble, permutation, sample_indices, threshold_erm_blocks, threshold_labeling,
        threshold_labeling_mistakes,
    };
    #[pymodule_export]
    use crate::rng::Generator;
    #[pymodule_export]
    use crate::suffstats::{
        suffstats_abs_counts, suffstats_gram, suffstats_norm_counts, suffstats_round,
    };
    #[pymodule_export]
    use crate::tardos::{
        BonehShawCore, TardosCodeCore, TardosParams, boneh_shaw_generate, boneh_shaw_params,
        is_feasible_packed, pirate_packed, tardos_generate, tardos_parameters,
    };

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add(
            "build_profile",
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
        )?;
        #[cfg(feature = "test-hooks")]
        crate::test_hooks::install(m)?;
        Ok(())
    }
}
