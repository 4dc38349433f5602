"""privlearn.attacks.fingerprinting_attack: seed 002's lower-bound reduction run as an attack.

Against the non-private multi-learner (column-wise ERM) the attack identifies a member of the
data in most trials: a Clopper-Pearson lower bound at level 1e-6 on its identification rate is
above 1/2. The power check: the same assertion fails for a private learner, whose rate stays
within what its (epsilon, delta) allows (e^epsilon xi + n delta).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn import InvalidParameterError
from privlearn.attacks import (
    FingerprintingAttackResult,
    distinguishing_point,
    fingerprinting_attack,
)
from privlearn.hypotheses import FiniteClass, Parities, Points, Thresholds
from privlearn.multi import (
    IndependentMultiLearner,
    NonPrivateMultiLearner,
    PointMultiLearner,
    SanitizerMultiLearner,
)

ALPHA = 1e-6


def _identifies_usefully(res: FingerprintingAttackResult) -> bool:
    return res.identification_interval[0] > 0.5


def test_attack_identifies_members_of_a_non_private_learners_data():
    res = fingerprinting_attack(
        NonPrivateMultiLearner(Points(domain_size=4)), 8, trials=40, alpha=ALPHA, rng=1
    )
    assert _identifies_usefully(res), res
    assert (
        res.feasible == res.trials
    )  # ERM is accurate: the pirate word obeys the marking assumption
    assert res.code_length > 1000 and res.claimed is None and res.dp_bound is None
    # Soundness: the replaced user is innocent, accused at most at the code's per-user rate.
    from privlearn.audit._intervals import _cp_lower

    assert (
        _cp_lower(np.array([res.target_accused_out]), np.array([res.trials]), ALPHA)[0]
        <= res.per_user_false_accusation
    )
    assert "identified" in str(res)


def test_attack_epsilon_lower_bound_exposes_the_non_private_learner():
    res = fingerprinting_attack(
        NonPrivateMultiLearner(Points(domain_size=4)), 6, trials=80, alpha=ALPHA, rng=2
    )
    assert res.target_accused_in > 5 * res.target_accused_out
    assert res.epsilon_lower_bound > 1.0


@pytest.mark.parametrize(
    "learner",
    [
        IndependentMultiLearner(Points(domain_size=4), 1.0),
        SanitizerMultiLearner(Points(), 1.0, 1e-6),
        PointMultiLearner(1.0, 1e-6),
    ],
    ids=["independent", "sanitizer", "points"],
)
def test_power_check_private_learners_stay_within_their_bound(learner):
    res = fingerprinting_attack(learner, 8, trials=30, alpha=ALPHA, rng=3)
    assert not _identifies_usefully(res), res  # the same assertion fails here
    assert not res.refutes_claim and res.identification_interval[0] <= res.dp_bound
    assert res.epsilon_lower_bound <= res.claimed.epsilon


def test_attack_leaves_the_learner_and_its_accountant_alone():
    from privlearn.accounting import Accountant, Budget

    acct = Accountant(Budget(1.0))
    learner = IndependentMultiLearner(Points(domain_size=2), 1.0, accountant=acct, rng=5)
    fingerprinting_attack(learner, 4, trials=2, length=200, rng=0)
    assert acct.spent == Budget(0.0) and not hasattr(learner, "hypotheses_")


def test_distinguishing_points():
    assert np.array_equal(distinguishing_point(Parities(3)), [1, 0, 0])
    assert distinguishing_point(Points(domain_size=5)) == 0
    assert distinguishing_point(Thresholds()) == 0.5
    assert distinguishing_point(FiniteClass(np.array([[0, 0, 1], [0, 1, 1]]))) == 1
    with pytest.raises(InvalidParameterError, match="point"):
        distinguishing_point(FiniteClass(np.array([[0, 1], [0, 1]])))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n_users=0), "n_users"),
        (dict(trials=0), "trials"),
        (dict(variant="best"), "variant"),
        (dict(alpha=0.0), "alpha"),
        (dict(false_accusation=1.5), "false_accusation"),
    ],
)
def test_bad_parameters(kwargs, name):
    with pytest.raises(InvalidParameterError) as err:
        fingerprinting_attack(NonPrivateMultiLearner(Points(domain_size=2)), **kwargs)
    assert err.value.parameter == name
    with pytest.raises(InvalidParameterError, match="learner"):
        fingerprinting_attack(object())
