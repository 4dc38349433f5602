r"""Simultaneous private learning of many concepts (seed 002).

Bun, Nissim and Stemmer, "Simultaneous private learning of multiple concepts" (ITCS 2016; JMLR
20(94), 2019) ask what it costs to learn ``k`` concepts at once from one private data set whose
examples carry ``k`` labels. Every learner here takes the examples ``X`` and a label matrix ``Y``
of shape ``(n, k)`` (column ``j`` labels concept ``j``), returns ``k`` hypotheses
(``hypotheses_``) and predicts an ``(m, k)`` matrix.

**Neighbouring relation.** Two data sets are neighbours when they have the same number of rows
``n`` (public) and differ in one whole row: the example and all ``k`` of its labels
(replace-one). Every guarantee below is for that relation (errata 002-10).

=================================  ============================================================
learner                            what it is
=================================  ============================================================
:class:`IndependentMultiLearner`   the basic strategy (Observation 3.2): a private learner per
                                   concept, the budget split by the tightest valid composition
                                   (bounded-range for exponential mechanisms, else optimal);
                                   the sample size grows like ``k`` (basic) or ``sqrt(k)``
:class:`SanitizerMultiLearner`     the generic learner (Algorithm 2, Lemmas 3.6-3.7): sanitize
                                   the examples once, take the class's dichotomies on the
                                   sanitized points, one exponential mechanism per concept
:class:`ParityMultiLearner`        ``SearchParities`` (Theorem 3.12): parities under the uniform
                                   distribution, sample size independent of ``k``
:class:`PointMultiLearner`         ``LearnPoints`` (Theorem 3.13): point functions, sample size
                                   independent of ``k`` and of the domain
:class:`NonPrivateMultiLearner`    column-wise ERM, **not differentially private** (the baseline
                                   of the fingerprinting attack)
=================================  ============================================================

Base learners for :class:`IndependentMultiLearner` (one concept each, budget given by the
composite learner): :class:`ExponentialLearner` (the exponential mechanism over a finite,
data-independent candidate set: Kasiviswanathan et al.'s generic learner), and
:class:`StableParityLearner` and :class:`StablePointLearner` (the two stability learners run on
one concept at a time).

**Budgets.** Composite learners take *one* total budget and split it (errata 002-4, 002-5) by
``composition`` (:data:`COMPOSITIONS`; :func:`per_concept_budget`): ``"auto"`` (default) is
bounded-range composition when each concept's run is one exponential mechanism (Durfee and
Rogers 2019; Dong, Durfee and Rogers 2020), Kairouz, Oh and Viswanath's optimal composition
otherwise, and basic composition when ``delta = 0`` or ``k = 1``;
``fit`` charges the accountant the exact composed guarantee (``privacy_``, never more than the
total asked for) once, before anything is drawn, and a spend that does not fit raises
:class:`~privlearn.BudgetExceededError` with nothing computed. The theory's settings are
functions (:func:`per_concept_budget`, :func:`parity_subsamples`, :func:`parity_sample_size`,
:func:`points_sample_size`, :func:`exponential_sample_size`); the accuracy knobs
(``subsample_size``, ``alpha``, MWEM's ``rounds``, ...) can be set freely with the accounting
unchanged.

**Randomness.** ``rng`` as everywhere in privlearn: ``None`` (OS entropy) is the only choice
under which the guarantees hold; a seed makes a fit reproducible and voids its privacy.

Examples
--------
>>> import numpy as np
>>> from privlearn.datasets import make_concept_sample
>>> from privlearn.hypotheses import Parities
>>> from privlearn.multi import ParityMultiLearner, parity_sample_size
>>> n = parity_sample_size(dim=16, epsilon=1.0, delta=1e-6)     # independent of k
>>> data = make_concept_sample(Parities(16), n, n_concepts=1000, rng=0)
>>> learner = ParityMultiLearner(16, epsilon=1.0, delta=1e-6, rng=1).fit(data.X, data.y)
>>> learner.hypotheses_ == data.targets                          # all 1000 parities, exactly
True
>>> learner.privacy_
Budget(epsilon=1.0, delta=1e-06)
"""

from ._budget import COMPOSITIONS, per_concept_budget
from ._hypotheses import ZERO, ZeroHypothesis
from ._independent import IndependentMultiLearner
from ._nonprivate import NonPrivateMultiLearner
from ._parity import ParityMultiLearner
from ._points import PointMultiLearner
from ._sanitizer import SanitizerMultiLearner
from ._sanitizers import StabilityHistogram, mwem, stability_histogram
from ._single import (
    ExponentialLearner,
    SingleConceptLearner,
    StableParityLearner,
    StablePointLearner,
)
from ._theory import (
    exponential_sample_size,
    parity_sample_size,
    parity_subsamples,
    points_sample_size,
)

__all__ = [
    "IndependentMultiLearner",
    "SanitizerMultiLearner",
    "ParityMultiLearner",
    "PointMultiLearner",
    "NonPrivateMultiLearner",
    "SingleConceptLearner",
    "ExponentialLearner",
    "StableParityLearner",
    "StablePointLearner",
    "ZeroHypothesis",
    "ZERO",
    "StabilityHistogram",
    "stability_histogram",
    "mwem",
    "per_concept_budget",
    "parity_subsamples",
    "parity_sample_size",
    "points_sample_size",
    "exponential_sample_size",
    "COMPOSITIONS",
]
