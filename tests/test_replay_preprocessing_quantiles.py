"""Neighbour replay of the private quantile scalers (``privlearn.preprocessing.MinMaxScaler`` and
``RobustScaler``), with ``tests/replay.py``.

Two features with declared bounds ``[-1, 1]`` and ``[0, 4]`` and a grid of 21 candidates each
(steps 0.1 and 0.2). Neighbours replace one row: rows at the lower bounds, at the upper bounds,
in the middle, beyond the bounds (clipped to them, so counted at the ends), on a grid point
and mixed corners. Checked for every pair and seed: control flow, identical ledgers (one
composed bounded-range event), output shapes, the sampler calls (the same parameters on both
sides: epsilon, sensitivity, sizes), each score vector moving within the sensitivity it was
calibrated with, and the pair's loss at most the charged epsilon.

The score vectors themselves are the release checked by (d): divided by ``2^10`` (the integer
scale the scores are given in) they are the utility ``u(g) = -max(c_<(g) - q n, q n - c_<=(g),
0)`` with ``c_<(g) = #{i : clip(x_i) < g}`` and ``c_<=(g) = #{i : clip(x_i) <= g}``. Replacing
one row moves each count at a fixed point by at most 1 and ``q n`` not at all, so each score
moves by at most **1** in those units (L-inf over all candidates, features and levels): the
sensitivity written here. It is attained (a row at the lower bound against one at the upper
bound), and half of it is refused (power check).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn.preprocessing import MinMaxScaler, RobustScaler
from replay import Entry, Tap, check_entry, replace_one_pairs

N = 30
LO = np.array([-1.0, 0.0])
HI = np.array([1.0, 4.0])
GRID = 21
#: Sensitivity of every score in units of a count (module docstring of the test).
SCORE_SENSITIVITY = 1.0
SCORE_UNIT = 2.0**10


def _pairs():
    g = np.random.default_rng(22)
    X = g.uniform(LO, HI, size=(N, 2))
    rows = [
        ("lower", (LO.copy(),)),
        ("upper", (HI.copy(),)),
        ("middle", ((LO + HI) / 2,)),
        ("beyond", (np.array([-7.0, 9.0]),)),
        ("beyond below", (np.array([-3.0, -0.5]),)),
        ("corner", (np.array([1.0, 0.0]),)),
        # candidates 13 and 7 of the documented grid l + (k (u - l)) / 20: a tie with a grid point
        ("grid point", (LO + (np.array([13.0, 7.0]) * (HI - LO)) / 20,)),
    ]
    return replace_one_pairs((X,), rows, cross=((0, 1), (1, 2), (3, 4), (0, 5), (2, 6)))


def _run(make):
    def run(data, acct, seed):
        (X,) = data
        est = make(acct, seed)
        with Tap() as inner:
            est.fit(X)
        scores = np.concatenate([np.asarray(c.value, dtype=np.float64) for c in inner.calls])
        return {"model": est, "scores": scores / SCORE_UNIT}

    return run


def _minmax(acct, seed):
    return MinMaxScaler(1.0, bounds=(LO, HI), grid_size=GRID, accountant=acct, rng=seed)


def _minmax_10_90(acct, seed):
    return MinMaxScaler(
        1.0,
        bounds=(LO, HI),
        quantile_range=(10.0, 90.0),
        clip=True,
        grid_size=GRID,
        accountant=acct,
        rng=seed,
    )


def _robust(acct, seed):
    return RobustScaler(1.0, bounds=(LO, HI), grid_size=GRID, accountant=acct, rng=seed)


def _robust_median(acct, seed):
    return RobustScaler(
        1.0, bounds=(LO, HI), with_scaling=False, grid_size=GRID, accountant=acct, rng=seed
    )


def _robust_scale(acct, seed):
    return RobustScaler(
        1.0,
        bounds=(LO, HI),
        with_centering=False,
        quantile_range=(10.0, 90.0),
        unit_variance=True,
        grid_size=GRID,
        accountant=acct,
        rng=seed,
    )


MAKERS = [
    ("minmax", _minmax),
    ("minmax 10-90 clip", _minmax_10_90),
    ("robust", _robust),
    ("robust median only", _robust_median),
    ("robust scale only", _robust_scale),
]

ENTRIES = [Entry(f"quantile {name}", _run(make), _pairs) for name, make in MAKERS] + [
    Entry(
        f"quantile {name} scores",
        _run(make),
        _pairs,
        sensitivity=SCORE_SENSITIVITY,
        release=lambda out: out["scores"],
        norm=np.inf,
    )
    for name, make in MAKERS
]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_neighbour_replay(entry):
    assert check_entry(entry) > 0


def test_the_lower_vs_upper_pair_moves_the_scores_by_the_full_sensitivity():
    from privlearn.accounting import Accountant, Budget

    (_, data_a, data_b) = next(p for p in _pairs() if p[0] == "lower vs upper")
    out_a = _run(_robust)(data_a, Accountant(Budget(10.0)), 0)
    out_b = _run(_robust)(data_b, Accountant(Budget(10.0)), 0)
    assert np.max(np.abs(out_a["scores"] - out_b["scores"])) == SCORE_SENSITIVITY


def test_power_half_the_sensitivity_fails():
    """The release check has power: the scores' move is refused against half of the sensitivity
    (the lower-vs-upper pair moves them by the full 1)."""
    wrong = Entry(
        "quantile half sensitivity",
        _run(_robust),
        _pairs,
        sensitivity=SCORE_SENSITIVITY / 2,
        release=lambda out: out["scores"],
        norm=np.inf,
    )
    with pytest.raises(AssertionError):
        check_entry(wrong)
