"""scikit-learn conformance of privlearn.learners (``parametrize_with_checks``).

Every check of scikit-learn's suite runs on every estimator, with no exclusion. Two properties
are declared through the estimators' tags instead, because they are what a private estimator
is, not defects:

* ``regressor_tags.poor_score`` / ``classifier_tags.poor_score``: the noise that buys privacy
  costs accuracy, and the checks' toy data are clipped to the default declared bounds (rows to
  norm 1, labels to [-1, 1]), so their accuracy thresholds do not apply;
* ``classifier_tags.multi_class = False``: the classifiers are binary (a one-vs-rest wrapper
  would have to split epsilon between the classes); the suite then checks that multiclass
  targets raise "Only binary classification is supported".

The estimators get an integer ``rng``, so each fit is reproducible (tag
``non_deterministic=False``) and the idempotence and pipeline-consistency checks run too. Checks
that need pandas or the array API skip themselves when those are not installed.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from privlearn.learners import (
    FunctionalMechanismRegressor,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
    PrivateTuning,
)

ESTIMATORS = [
    OutputPerturbationRegressor(1.0, rng=0),
    OutputPerturbationRegressor(1.0, alpha=0.1, variant="rls_out", sensitivity_bound="tight", fit_intercept=True, rng=0),
    OutputPerturbationClassifier(1.0, rng=0),
    OutputPerturbationClassifier(1.0, loss="smoothed_hinge", radius=1.0, variant="general_convex", fit_intercept=True, rng=0),
    ObjectivePerturbationClassifier(1.0, rng=0),
    ObjectivePerturbationRegressor(1.0, fit_intercept=True, rng=0),
    FunctionalMechanismRegressor(1.0, rng=0),
    PrivateTuning(OutputPerturbationRegressor(None), {"alpha": [0.1, 1.0]}, 1.0, rng=0),
    PrivateTuning(OutputPerturbationClassifier(None), {"alpha": [0.1, 1.0]}, 1.0, rng=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_conformance(estimator, check):
    check(estimator)
