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
to declared bounds (``data_norm``, ``label_bound``: required, no default; a missing bound is
refused before the data are read, charging nothing) instead of reading them from the data; and
spends ``epsilon`` from an optional ``accountant`` on each fit. Clones (``sklearn.base.clone``,
pipelines, cross-validation) share the accountant and the random generator.

Practical private linear models (issue 19; replace-one neighbours, ``n`` public; every clipping
bound declared or chosen privately with ``"private"``, never defaulted):

* the **front doors** :class:`PrivateLinearRegression` and :class:`PrivateLogisticRegression`,
  which pick the measured best method for the privacy notion asked for (``delta > 0`` or pure);
* :class:`AdaSSPRegressor` — sufficient-statistics perturbation with a private ridge (Wang, UAI
  2018, Algorithm 2), Gaussian ((epsilon, delta)-DP, zCDP-calibrated) or Laplace (pure), on numpy
  or Dask input (statistics computed blockwise, noise added once on the client);
* :class:`BoostedAdaSSPRegressor` — gradient boosting over AdaSSP rounds (Tang et al. 2023);
* :class:`TukeyEMRegressor` — the exponential mechanism over approximate Tukey depth of models
  fit on disjoint batches (Amin, Joseph, Ribero and Vassilvitskii, ICLR 2023); needs no bounds;
* :class:`DPGradientDescentClassifier` (full-batch DP gradient descent, Gaussian noise) and
  :class:`ObjectivePerturbationLogistic` (objective perturbation with Redberg, Koskela and Wang's
  analysis, NeurIPS 2023, re-derived for replace-one neighbours).

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
from .adassp import AdaSSPRegressor
from .boosted_adassp import BoostedAdaSSPRegressor
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
from .front_doors import PrivateLinearRegression, PrivateLogisticRegression
from .functional import FunctionalMechanismRegressor
from .gibbs import ApproximateGibbsERM
from .logistic import DPGradientDescentClassifier, ObjectivePerturbationLogistic
from .objective_perturbation import ObjectivePerturbationClassifier, ObjectivePerturbationRegressor
from .output_perturbation import (
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
    data_independent_parameters,
    rls_out,
)
from .tukey import TukeyEMRegressor
from .tuning import PrivateTuning, oracle_parameters

__all__ = [
    "PrivateLinearRegression",
    "PrivateLogisticRegression",
    "AdaSSPRegressor",
    "BoostedAdaSSPRegressor",
    "TukeyEMRegressor",
    "DPGradientDescentClassifier",
    "ObjectivePerturbationLogistic",
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
