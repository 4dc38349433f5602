r"""Stable and private prediction (seed 003): Dagan and Feldman, "PAC learning with stable and
private predictions" (COLT 2020).

A predictor holds a labelled sample and answers each query ``x`` with one randomised label. Two
per-query guarantees, over samples of the same public size ``n`` that differ by replacing one
labelled example:

* **γ-uniform stability**: the probability of each answer moves by at most ``γ``;
* **ε-private prediction**: it moves by at most a factor ``e^ε`` (for both labels).

=====================================  ==========================================================
:class:`StablePredictor`               Theorem 1: a random subset's class of labelings, the
                                       exponential mechanism scored on all the data; γ-stable
:class:`PrivatePredictor`              ``method="corollary1"``: the same, flipped (Corollary 1);
                                       ``method="theorem2"``: the selected hypothesis relabels
                                       the data for a realizable private learner (Theorem 2)
:class:`SubsampleAggregatePredictor`   the baseline: teachers on disjoint blocks (any
                                       scikit-learn classifier, trained through joblib), a
                                       private vote or randomized response
:class:`ERMClassifier`                 exact (non-private) ERM of a class, as a base estimator
=====================================  ==========================================================

Certificates and theory (functions of public parameters only): :func:`stable_gamma`,
:func:`corollary1_epsilon`, :func:`theorem2_epsilon`, :func:`randomized_response_epsilon`;
:func:`growth_function`, :func:`epsilon_net_size`, :func:`uniform_convergence_size`;
:func:`stable_setting`, :func:`corollary1_setting`, :func:`theorem2_setting` (the sample size
and parameters of the theorems for a target accuracy; Theorem 2's are of order ``10^7``
examples), :func:`default_flip_probability` (the practical mode's choice).

Privacy discipline (project ERRATA 003-1, 003-2, 003-7): a private predictor releases exactly one
sampled label per query and nothing else, so none has ``predict_proba``; every query uses fresh
randomness and ``q`` answers cost ``q`` times the per-query epsilon, charged to the
``accountant`` before anything is drawn; a seeded ``rng`` voids the guarantee (it is for tests
and experiments). :meth:`StablePredictor.predict_proba` is a stability-only confidence output,
with no privacy.

Examples
--------
>>> import numpy as np
>>> from privlearn.accounting import Accountant, Budget
>>> from privlearn.hypotheses import Intervals
>>> from privlearn.prediction import PrivatePredictor
>>> g = np.random.default_rng(1)
>>> X = g.random(3000); y = ((0.3 <= X) & (X <= 0.7)) ^ (g.random(3000) < 0.05)
>>> acct = Accountant(Budget(20.0))
>>> clf = PrivatePredictor(Intervals(), epsilon=1.0, accountant=acct, rng=0).fit(X, y)
>>> clf.predict([0.1, 0.5, 0.9]).shape      # three private answers: 3 * epsilon_ charged
(3,)
>>> acct.spent.epsilon <= 3.0
True
"""

from ._predictors import (
    ERMClassifier,
    PrivatePredictor,
    StablePredictor,
    SubsampleAggregatePredictor,
)
from ._theory import (
    PredictionSetting,
    Theorem2Certificate,
    corollary1_epsilon,
    corollary1_setting,
    default_flip_probability,
    epsilon_net_size,
    growth_function,
    randomized_response_epsilon,
    stable_gamma,
    stable_setting,
    theorem2_epsilon,
    theorem2_setting,
    uniform_convergence_size,
)

__all__ = [
    "StablePredictor",
    "PrivatePredictor",
    "SubsampleAggregatePredictor",
    "ERMClassifier",
    "stable_gamma",
    "corollary1_epsilon",
    "theorem2_epsilon",
    "Theorem2Certificate",
    "randomized_response_epsilon",
    "growth_function",
    "epsilon_net_size",
    "uniform_convergence_size",
    "PredictionSetting",
    "stable_setting",
    "corollary1_setting",
    "theorem2_setting",
    "default_flip_probability",
]
