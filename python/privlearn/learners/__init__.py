"""Private learners as scikit-learn estimators.

Seed 001 (Wu, Fredrikson, Wu, Jha and Naughton, "Revisiting differentially private regression:
lessons from learning theory and their consequences", arXiv 1512.06388): regularised empirical
risk minimisation made private

* by **output perturbation** — :class:`OutputPerturbationRegressor`,
  :class:`OutputPerturbationClassifier` and :func:`rls_out` (the paper's Algorithms 1, 2 and 4),
  with :func:`data_independent_parameters` (its data-independent setting);
* by **objective perturbation** — :class:`ObjectivePerturbationClassifier` and
  :class:`ObjectivePerturbationRegressor` (Chaudhuri, Monteleoni and Sarwate 2011, the paper's
  Algorithm 3 with its errata);
* by the **functional mechanism** — :class:`FunctionalMechanismRegressor` (Zhang et al. 2012,
  the paper's baseline);
* with parameters chosen by :class:`PrivateTuning` (the paper's Algorithm 5, strict by default)
  or by the non-private :func:`oracle_parameters` benchmark.

Every seed-001 learner is ``epsilon``-differentially private (pure DP, replace-one neighbours,
``n`` public) with ``rng=None``; states its source and guarantee in its docstring; clips the data
to declared bounds (``data_norm``, ``label_bound``) instead of reading them from the data; and
spends ``epsilon`` from an optional ``accountant`` on each fit. Clones (``sklearn.base.clone``,
pipelines, cross-validation) share the accountant and the random generator.

Seed 000 (Wang, Lei and Fienberg, "Learning with differential privacy: stability,
learnability and the sufficiency and necessity of ERM principle", JMLR 2016): learning by the
exponential mechanism over (penalized) empirical risk — :class:`ExponentialMechanismERM`
(Algorithm 1) over candidate sets, grids, reference dichotomies and exact continuous
thresholds, with the :class:`SubsampledERM`, :class:`BoostedERM` and :class:`BestSubsetERM`
wrappers (pure DP) and :class:`ApproximateGibbsERM` (a MALA sampler: no privacy claim unless
given a proven worst-case total-variation bound ``tau``, then ``(epsilon, tau (1 + e^epsilon))``;
see its docstring).
"""

from __future__ import annotations

from . import functional, objective_perturbation, output_perturbation, tuning
from .erm import (
    ContinuousThresholds,
    ExponentialMechanismERM,
    FiniteCandidates,
    Grid,
    LinearCandidates,
    LinearModel,
    ReferenceDichotomies,
    ThresholdCandidates,
    example20_epsilon,
    example21_epsilon,
    excess_risk_bound,
    linear_loss_bound,
    reference_threshold_grid,
)
from .erm_wrappers import BestSubsetERM, BoostedERM, SubsampledERM, boosting_excess_risk_bound
from .functional import FunctionalMechanismRegressor
from .gibbs import ApproximateGibbsERM
from .objective_perturbation import ObjectivePerturbationClassifier, ObjectivePerturbationRegressor
from .output_perturbation import (
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
    data_independent_parameters,
    rls_out,
)
from .tuning import PrivateTuning, oracle_parameters

__all__ = [
    "OutputPerturbationRegressor",
    "OutputPerturbationClassifier",
    "rls_out",
    "data_independent_parameters",
    "ObjectivePerturbationClassifier",
    "ObjectivePerturbationRegressor",
    "FunctionalMechanismRegressor",
    "PrivateTuning",
    "oracle_parameters",
    "ApproximateGibbsERM",
    "BestSubsetERM",
    "BoostedERM",
    "ContinuousThresholds",
    "ExponentialMechanismERM",
    "FiniteCandidates",
    "Grid",
    "LinearCandidates",
    "LinearModel",
    "ReferenceDichotomies",
    "SubsampledERM",
    "ThresholdCandidates",
    "boosting_excess_risk_bound",
    "example20_epsilon",
    "example21_epsilon",
    "excess_risk_bound",
    "linear_loss_bound",
    "reference_threshold_grid",
]

del functional, objective_perturbation, output_perturbation, tuning
