"""Neighbour replay of the private preprocessing (``privlearn.preprocessing``), with
``tests/replay.py``.

StandardScaler on two features with declared bounds ``[-1, 1]`` and ``[0, 4]`` (midpoints 0 and
2, half-ranges 1 and 2). Neighbours replace one row inside or outside the bounds (outside rows
are clipped): rows at the lower bounds, at the upper bounds, at the midpoints, beyond the
bounds, and mixed corners. Checked for every pair and seed: control flow, identical ledgers (the
composed event), output shapes, the sampler calls (the same parameters on both sides, each
value moving within the sensitivity it was calibrated with, the pair's loss at most the
charged epsilon), and the released sums minus the same noise moving by at most the
sensitivities written here from the module docstring's derivation. The released sums are
normalised, ``T1_j = sum_i z_ij`` and ``T2_j = sum_i z_ij^2`` with ``z_ij = (clip(x_ij) - m_j) /
r_j`` in ``[-1, 1]``: one replaced row moves each ``T1_j`` by at most 2 and each ``T2_j`` by at
most 1, whatever the ranges, so with ``d = 2`` features ``T1`` moves by ``2 d = 4`` in L1
(``2 sqrt(2)`` in L2) and ``T2`` by ``d = 2`` in L1 (``sqrt(2)`` in L2). Centring only
(``with_std=False``) the released vector is ``V_j = rho_j T1_j``, ``rho = r / ||r||_p``: it
moves by at most ``2 ||rho||_p = 2`` in L1 (Laplace) and in L2 (Gaussian).

The released sums are read through an inner sampler tap (the outputs of the two sampler calls
of a fit), since the fitted ``mean_`` and ``var_`` are clipped post-processing of them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn.preprocessing import StandardScaler
from replay import Entry, Tap, check_entry, replace_one_pairs

N = 30
LO = np.array([-1.0, 0.0])
HI = np.array([1.0, 4.0])


def _pairs():
    g = np.random.default_rng(22)
    X = g.uniform(LO, HI, size=(N, 2))
    rows = [
        ("lower", (LO.copy(),)),
        ("upper", (HI.copy(),)),
        ("midpoint", ((LO + HI) / 2,)),
        ("beyond", (np.array([-7.0, 9.0]),)),
        ("corner", (np.array([1.0, 0.0]),)),
    ]
    return replace_one_pairs((X,), rows, cross=((0, 1), (1, 2), (3, 4)))


def _run(delta=0.0, with_std=True):
    def run(data, acct, seed):
        (X,) = data
        est = StandardScaler(
            1.0, bounds=(LO, HI), delta=delta, with_std=with_std, accountant=acct, rng=seed
        )
        with Tap() as inner:
            est.fit(X)
        sums = [np.asarray(c.output, dtype=np.float64) for c in inner.calls]
        return {"model": est, "sums": sums}

    return run


D = 2
L1_SUM, L1_SQ = 2.0 * D, 1.0 * D  # 4 and 2
L2_SUM, L2_SQ = 2.0 * math.sqrt(D), math.sqrt(D)
# Centring only: V_j = rho_j T1_j with rho = r / ||r||_p moves by at most 2 rho_j, so by
# 2 ||rho||_p = 2 in L1 (Laplace, rho = (1, 2) / 3) and in L2 (Gaussian, rho = (1, 2) / sqrt(5)).
L1_MEAN = L2_MEAN = 2.0

ENTRIES = [
    Entry("scaler laplace", _run(), _pairs),
    Entry(
        "scaler laplace normalised sums",
        _run(),
        _pairs,
        sensitivity=L1_SUM,
        release=lambda out: out["sums"][0],
        norm=1,
    ),
    Entry(
        "scaler laplace normalised second moments",
        _run(),
        _pairs,
        sensitivity=L1_SQ,
        release=lambda out: out["sums"][1],
        norm=1,
    ),
    Entry(
        "scaler laplace mean only",
        _run(with_std=False),
        _pairs,
        sensitivity=L1_MEAN,
        release=lambda out: out["sums"][0],
        norm=1,
    ),
    Entry(
        "scaler gaussian mean only",
        _run(delta=1e-6, with_std=False),
        _pairs,
        sensitivity=L2_MEAN,
        release=lambda out: out["sums"][0],
        norm=2,
    ),
    Entry(
        "scaler gaussian normalised sums",
        _run(delta=1e-6),
        _pairs,
        sensitivity=L2_SUM,
        release=lambda out: out["sums"][0],
        norm=2,
    ),
    Entry(
        "scaler gaussian normalised second moments",
        _run(delta=1e-6),
        _pairs,
        sensitivity=L2_SQ,
        release=lambda out: out["sums"][1],
        norm=2,
    ),
]

# Very different ranges (2 and 4000): the normalised sums' sensitivities do not change.
WIDE_LO, WIDE_HI = np.array([-1.0, 0.0]), np.array([1.0, 4000.0])


def _wide_pairs():
    g = np.random.default_rng(25)
    X = g.uniform(WIDE_LO, WIDE_HI, size=(N, 2))
    rows = [
        ("lower", (WIDE_LO.copy(),)),
        ("upper", (WIDE_HI.copy(),)),
        ("midpoint", ((WIDE_LO + WIDE_HI) / 2,)),
        ("beyond", (np.array([-7.0, 9000.0]),)),
    ]
    return replace_one_pairs((X,), rows, cross=((0, 1), (1, 2), (0, 3)))


def _run_wide(delta=0.0):
    def run(data, acct, seed):
        (X,) = data
        est = StandardScaler(1.0, bounds=(WIDE_LO, WIDE_HI), delta=delta, accountant=acct, rng=seed)
        with Tap() as inner:
            est.fit(X)
        return {"model": est, "sums": [np.asarray(c.output, dtype=np.float64) for c in inner.calls]}

    return run


ENTRIES += [
    Entry(
        "scaler laplace normalised sums, ranges 2 and 4000",
        _run_wide(),
        _wide_pairs,
        sensitivity=L1_SUM,
        release=lambda out: out["sums"][0],
        norm=1,
    ),
    Entry(
        "scaler gaussian normalised second moments, ranges 2 and 4000",
        _run_wide(delta=1e-6),
        _wide_pairs,
        sensitivity=L2_SQ,
        release=lambda out: out["sums"][1],
        norm=2,
    ),
]


def _pipeline_pairs():
    """Replace-one neighbours of ``(X, y)``: the scaler's worst rows with extreme labels."""
    g = np.random.default_rng(23)
    X = g.uniform(LO, HI, size=(N, 2))
    y = g.uniform(-1.0, 1.0, size=N)
    rows = [
        ("lower, label -1", (LO.copy(), -1.0)),
        ("upper, label +1", (HI.copy(), 1.0)),
        ("beyond, label 5", (np.array([-7.0, 9.0]), 5.0)),
    ]
    return replace_one_pairs((X, y), rows, cross=((0, 1),))


def _run_pipeline(data, acct, seed):
    """A scaler and a private regressor under one pipeline accountant (one composed charge)."""
    from privlearn.learners import AdaSSPRegressor
    from privlearn.pipeline import make_private_pipeline

    X, y = data
    pipe = make_private_pipeline(
        StandardScaler(0.5, bounds=(LO, HI), rng=seed),
        AdaSSPRegressor(0.5, delta=1e-6, data_norm=4.0, label_bound=1.0, rng=seed + 1),
        accountant=acct,
    )
    pipe.fit(X, y)
    return {"pipeline": pipe, "coef": pipe[-1].coef_}


ENTRIES.append(Entry("pipeline scaler and adassp, one charge", _run_pipeline, _pipeline_pairs))


# Private bounds (bounds="private" or "private" for some sides): one private quantile per
# feature with a private side, then the sums on the released bounds. Neighbours replace a row by
# rows at 0, beyond every grid point (1e9: it moves every count of the quantile), large negative,
# of mixed signs and tiny; the checks of tests/replay.py apply to every sampler call (the
# quantile scores move by at most their sensitivity 2^10, the normalised sums by theirs, the
# same as with declared bounds) and to the pair's loss; the charge and the refusal (n epsilon_b
# < 16) must not depend on the data.


def _private_pairs():
    g = np.random.default_rng(24)
    X = g.uniform(LO, HI, size=(N, 2))
    rows = [
        ("zero", (np.zeros(2),)),
        ("beyond everything", (np.array([1e9, 1e9]),)),
        ("large negative", (np.array([-1e9, -1e9]),)),
        ("mixed signs", (np.array([-1e9, 1e9]),)),
        ("tiny", (np.array([1e-6, -1e-6]),)),
    ]
    return replace_one_pairs((X,), rows, cross=((0, 1), (1, 2), (0, 3), (2, 4)))


def _run_private(bounds="private", delta=0.0, with_std=True, epsilon=4.0):
    def run(data, acct, seed):
        (X,) = data
        est = StandardScaler(
            epsilon,
            bounds=bounds,
            delta=delta,
            with_std=with_std,
            accountant=acct,
            rng=seed,
        )
        est.fit(X)
        return {"model": est}

    return run


ENTRIES += [
    Entry("scaler private bounds laplace", _run_private(), _private_pairs),
    Entry("scaler private bounds gaussian", _run_private(delta=1e-6), _private_pairs),
    Entry(
        "scaler private upper, declared lower", _run_private(bounds=(LO, "private")), _private_pairs
    ),
    Entry(
        "scaler private lower, declared upper, mean only",
        _run_private(bounds=("private", HI), with_std=False),
        _private_pairs,
    ),
    Entry(
        "scaler mixed per-feature bounds gaussian",
        _run_private(bounds=(["private", 0.0], ["private", "private"]), delta=1e-6),
        _private_pairs,
    ),
    Entry(
        "scaler private bounds refused (n epsilon_b < 16)",
        _run_private(epsilon=1.0),
        _private_pairs,
        expect_error=True,
    ),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_neighbour_replay(entry):
    assert check_entry(entry) > 0


def test_power_half_the_sensitivity_fails():
    """The release check has power: the move of T1 is refused against half of its sensitivity
    (the lower-vs-upper pair moves it by the full 2 d = 4)."""
    wrong = Entry(
        "scaler half sensitivity",
        _run(),
        _pairs,
        sensitivity=L1_SUM / 2,
        release=lambda out: out["sums"][0],
        norm=1,
    )
    with pytest.raises(AssertionError):
        check_entry(wrong)
