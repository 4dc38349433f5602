"""Neighbour replay of :class:`privlearn.preprocessing.Clipper`, with ``tests/replay.py``.

Twenty rows in R^3 (norms about 0.3 to 6) with labels. Neighbours replace one record
``(x, y)``: a row whose norm is a grid point (a candidate the mechanism can release), a row far
beyond the grid (norm ``1e9``), the zero row, a large label (``1e9``), a negative label, a row
at the declared bound of the declared entry and its negation, and crossings of these. Checked for every pair and
seed: control flow, identical ledgers (one composed event of bounded-range events, or nothing),
shapes, the sampler calls (same parameters, the scores moving within the sensitivity the
sampler is told, the pair's loss at most the charged epsilon), and the release written here:

* the private bounds' scores divided by the sensitivity the sampler is told are the quantile
  utility ``u(g)`` in counts; replacing one record moves every count ``#{v <= x}`` at a public
  point by at most one, so ``u`` (a maximum of terms that each move by at most one) moves by at
  most **1** in the sup norm, for the row norms and for ``|y|`` alike (McSherry and Talwar's
  sensitivity, replace-one);
* with declared bounds the transformed data move in one row only, each output row of norm at
  most ``C = 2``: by at most ``2 C = 4`` in the Frobenius norm (``transform`` is a per-row map;
  attained by the row at the bound against its negation).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn._private_quantile import DEFAULT_GRID
from privlearn.preprocessing import Clipper
from replay import Entry, Tap, check_entry, replace_one_pairs

N = 20
UTILITY_SENSITIVITY = 1.0  # counts (see the module docstring)
C_DECLARED = 2.0


def _pairs():
    g = np.random.default_rng(22)
    X = g.normal(size=(N, 3)) * 1.5
    y = g.normal(size=N) * 2.0
    on_grid = float(DEFAULT_GRID[170])  # about 2.4: a candidate bound
    rows = [
        ("row on a grid point", (np.array([on_grid, 0.0, 0.0]), 0.5)),
        ("row beyond the grid", (np.array([1e9, -1e9, 0.0]), 0.5)),
        ("zero row", (np.zeros(3), 0.0)),
        ("large label", (np.array([0.1, 0.2, 0.3]), 1e9)),
        ("negative label", (np.array([0.1, 0.2, 0.3]), -3.0)),
        ("row at the declared bound", (np.array([0.0, C_DECLARED, 0.0]), C_DECLARED)),
        ("row at minus the bound", (np.array([0.0, -C_DECLARED, 0.0]), -C_DECLARED)),
    ]
    cross = ((0, 1), (1, 2), (2, 3), (1, 3), (2, 5), (5, 6))
    return replace_one_pairs((X, y), rows, cross=cross)


def _run(**kw):
    def run(data, acct, seed):
        X, y = data
        est = Clipper(accountant=acct, rng=seed, **kw)
        with Tap() as inner:
            est.fit(X, y)
        utility = [
            np.asarray(c.value, dtype=np.float64) / c.sensitivity
            for c in inner.calls
            if c.name == "exponential"
        ]
        return {"model": est, "utility": utility, "transformed": est.transform(X)}

    return run


def _utility(out):
    return np.concatenate(out["utility"])


ENTRIES = [
    Entry("clipper private norm", _run(epsilon=0.8, data_norm="private"), _pairs),
    Entry(
        "clipper private norm scores",
        _run(epsilon=0.8, data_norm="private"),
        _pairs,
        sensitivity=UTILITY_SENSITIVITY,
        release=_utility,
        norm=np.inf,
    ),
    Entry(
        "clipper private label scores",
        _run(epsilon=0.8, label_bound="private"),
        _pairs,
        sensitivity=UTILITY_SENSITIVITY,
        release=_utility,
        norm=np.inf,
    ),
    Entry(
        "clipper private norm and label scores",
        _run(epsilon=0.8, data_norm="private", label_bound="private", rescale=True),
        _pairs,
        sensitivity=UTILITY_SENSITIVITY,
        release=_utility,
        norm=np.inf,
    ),
    Entry(
        "clipper declared bounds",
        _run(data_norm=C_DECLARED, label_bound=1.0),
        _pairs,
        sensitivity=2 * C_DECLARED,
        release=lambda out: out["transformed"],
        norm=2,
    ),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_neighbour_replay(entry):
    assert check_entry(entry) > 0


@pytest.mark.parametrize("bound", ["data_norm", "label_bound"])
def test_power_half_the_utility_sensitivity_fails(bound):
    """The release check has power: replacing a record moves the utility by the full 1 (for
    the row norms and for the labels), which half of it does not allow."""
    wrong = Entry(
        "clipper half sensitivity",
        _run(epsilon=0.8, **{bound: "private"}),
        _pairs,
        sensitivity=UTILITY_SENSITIVITY / 2,
        release=_utility,
        norm=np.inf,
    )
    with pytest.raises(AssertionError, match="declared sensitivity"):
        check_entry(wrong)


def test_power_declared_transform_at_half_its_sensitivity_fails():
    wrong = Entry(
        "clipper declared half",
        _run(data_norm=C_DECLARED, label_bound=1.0),
        _pairs,
        sensitivity=C_DECLARED,
        release=lambda out: out["transformed"],
        norm=2,
    )
    with pytest.raises(AssertionError, match="declared sensitivity"):
        check_entry(wrong)
