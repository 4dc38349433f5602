"""Neighbour replay (tests/replay.py) of the private logistic learners of issue 19.

* DP gradient descent, one step from ``theta_0 = 0`` (no intercept, rows clipped to ``B``):
  the released ``theta_1 = -eta (g + noise) / n`` with the same noise on both sides, so its
  noise-free part moves by at most ``eta * 2R / n`` in the normalised problem (``2R = 2``: one
  example's gradient has norm at most ``R = 1``; ``eta = 1 / (1/4 + alpha)``). Several steps:
  control flow, charge, shapes and the sampler calls (same sigma and shapes) are compared.
  With ``data_norm="private"`` the exponential mechanism's scores move by at most its
  sensitivity and, while the released bound is the same on both sides, so do the steps.
  With ``center="private"`` the released mean (rows clipped to ``B``, same noise on both sides)
  moves by at most ``2 B / n``.
* Objective perturbation: the noise ``b`` is the same on both sides with the same seed, the two
  objectives differ by one loss term (gradient difference at most ``2L = 2``) and are
  ``lam``-strongly convex, so the minimisers differ by at most ``2L / lam``; AMP's solver
  residual adds at most ``2 tau / lam`` (``tau = 1e-9 n``), and its output noise is the same.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, List, Tuple

import numpy as np
import pytest

from privlearn.learners.logistic import DPGradientDescentClassifier, ObjectivePerturbationLogistic
from replay import Entry, check_entry, replace_one_pairs

N, D, B = 24, 3, 1.5
ALPHA_GD = 1e-3
LAM = 4.0


@lru_cache(maxsize=None)
def pairs() -> List[Tuple[str, Any, Any]]:
    g = np.random.default_rng(191)
    X = g.uniform(-1, 1, (N, D))
    y = (X[:, 0] > 0).astype(int)
    e1 = np.eye(D)[0]
    rows = [
        ("extreme +B e1, 1", (B * e1, 1)),
        ("extreme -B e1, 1", (-B * e1, 1)),
        ("far outside, 0", (50.0 * e1, 0)),
        ("label flip", (X[0], 1 - y[0])),
        ("zero row", (np.zeros(D), 0)),
    ]
    return replace_one_pairs((X, y), rows, cross=((0, 1), (0, 2)))


def _normalised_w(est: Any) -> np.ndarray:
    """The released model in the normalised units (no intercept: rows divided by B)."""
    return np.asarray(est.coef_[0]) * B


ENTRIES = [
    Entry(
        "DPGradientDescentClassifier one step",
        lambda d, acc, s: DPGradientDescentClassifier(
            1.0,
            1e-6,
            data_norm=B,
            alpha=ALPHA_GD,
            max_iter=1,
            fit_intercept=False,
            classes=[0, 1],
            accountant=acc,
            rng=s,
        ).fit(*d),
        pairs,
        sensitivity=(1.0 / (0.25 + ALPHA_GD)) * 2.0 / N,
        release=_normalised_w,
    ),
    Entry(
        "DPGradientDescentClassifier ten steps",
        lambda d, acc, s: DPGradientDescentClassifier(
            0.5, 1e-6, data_norm=B, max_iter=10, classes=[0, 1], accountant=acc, rng=s
        ).fit(*d),
        pairs,
    ),
    Entry(
        "DPGradientDescentClassifier private data_norm",
        lambda d, acc, s: DPGradientDescentClassifier(
            1.0, 1e-6, data_norm="private", max_iter=5, classes=[0, 1], accountant=acc, rng=s
        ).fit(*d),
        pairs,
    ),
    Entry(
        "DPGradientDescentClassifier private centring",
        lambda d, acc, s: DPGradientDescentClassifier(
            1.0,
            1e-6,
            data_norm=B,
            center="private",
            max_iter=3,
            classes=[0, 1],
            accountant=acc,
            rng=s,
        ).fit(*d),
        pairs,
        sensitivity=2.0 * B / N,
        release=lambda est: np.asarray(est.center_),
    ),
    Entry(
        "ObjectivePerturbationLogistic",
        lambda d, acc, s: ObjectivePerturbationLogistic(
            1.0,
            1e-6,
            data_norm=B,
            alpha=LAM,
            fit_intercept=False,
            classes=[0, 1],
            accountant=acc,
            rng=s,
        ).fit(*d),
        pairs,
        sensitivity=(2.0 + 2.0 * 1e-9 * N) / LAM,
        release=_normalised_w,
        rel_tol=1e-6,
    ),
    Entry(
        "ObjectivePerturbationLogistic auto",
        lambda d, acc, s: ObjectivePerturbationLogistic(
            2.0, 1e-6, data_norm=B, classes=[0, 1], accountant=acc, rng=s
        ).fit(*d),
        pairs,
    ),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_replay(entry):
    check_entry(entry)


def test_replay_catches_a_third_of_the_sensitivity():
    """Power: at theta_0 = 0 each gradient is -y x / 2 (|l'(0)| = 1/2), so the extreme pair
    (+B e1 vs -B e1, same label) moves the sum by exactly R = half the bound 2R; declaring a
    third of the one-step sensitivity fails."""
    bad = Entry(
        "DP-GD at a third of its sensitivity",
        ENTRIES[0].run,
        pairs,
        sensitivity=ENTRIES[0].sensitivity / 3.0,
        release=_normalised_w,
    )
    with pytest.raises(AssertionError, match="declared sensitivity"):
        check_entry(bad)
