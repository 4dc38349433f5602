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

Every learner is ``epsilon``-differentially private (pure DP, replace-one neighbours, ``n``
public) with ``rng=None``; states its source and guarantee in its docstring; clips the data to
declared bounds (``data_norm``, ``label_bound``) instead of reading them from the data; and
spends ``epsilon`` from an optional ``accountant`` on each fit. Clones (``sklearn.base.clone``,
pipelines, cross-validation) share the accountant and the random generator.
"""

from __future__ import annotations

from . import functional, objective_perturbation, output_perturbation, tuning
from .functional import FunctionalMechanismRegressor
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
]

del functional, objective_perturbation, output_perturbation, tuning
