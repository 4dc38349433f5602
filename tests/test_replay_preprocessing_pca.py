"""Neighbour replay of the private PCA (``privlearn.preprocessing.PCA``), with
``tests/replay.py``.

Three features, ``data_norm = C = 2``. Neighbours replace one row: rows at the norm bound along
two orthogonal axes (the pair of largest move), opposite rows, a row far beyond the bound
(clipped), the centre itself (a zero row after centring), and a row so large that its squared
norm overflows (mapped to the zero row). Checked for every pair and seed: control flow,
identical ledgers (the composed discrete-Gaussian event), output shapes, the sampler calls (same
parameters on both sides), and the noise-free part of the release moving by at most the
sensitivity derived here:

* declared centre: the released ``second_moment_`` (``C^2`` times the noisy ``sum_i y_i y_i^T``
  of the centred rows clipped to norm ``C``) in Frobenius coordinates (``M_jj``, ``sqrt(2)
  M_jk``) moves by ``||x x^T - x' x'^T||_F <= sqrt(||x||^4 + ||x'||^4) <= sqrt(2) C^2`` for
  clipped rows ``x, x'``, the same noise on both sides;
* ``centering="private"``: ``mean_ = m + clip(S~ / n, -r, r)`` and clipping is 1-Lipschitz per
  coordinate, so ``mean_`` moves by at most ``||S_a - S_b|| / n <= sqrt(sum_j (u_j -
  l_j)^2) / n`` (the centred sums of values clipped to the bounds). The matrix of that variant is
  centred at the released mean, which differs between the sides, so it has no fixed-noise
  sensitivity and is checked only for control flow, ledger, shapes and calls.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn.preprocessing import PCA
from replay import Entry, check_entry, replace_one_pairs

N, D, C = 25, 3, 2.0
CENTRE = np.array([0.5, -0.25, 1.0])
LO = np.array([-3.0, -2.0, -1.0])
HI = np.array([3.0, 2.0, 4.0])


def _pairs():
    g = np.random.default_rng(31)
    X = CENTRE + g.normal(size=(N, D))
    e = np.eye(D)
    rows = [
        ("C e1", (CENTRE + C * e[0],)),
        ("C e2", (CENTRE + C * e[1],)),
        ("beyond", (CENTRE + np.array([7.0, -9.0, 3.0]),)),
        ("centre", (CENTRE.copy(),)),
        ("-C e1", (CENTRE - C * e[0],)),
        ("overflow", (np.array([1e300, -1e300, 1e300]),)),
    ]
    return replace_one_pairs((X,), rows, cross=((0, 1), (2, 3), (0, 4), (5, 1)))


def _run(centering):
    def run(data, acct, seed):
        (X,) = data
        bounds = (LO, HI) if isinstance(centering, str) else None
        est = PCA(
            1.0,
            n_components=2,
            delta=1e-6,
            data_norm=C,
            centering=centering,
            bounds=bounds,
            accountant=acct,
            rng=seed,
        )
        return est.fit(X)

    return run


def _frobenius(M):
    r, c = np.triu_indices(M.shape[0])
    return M[r, c] * np.where(r == c, 1.0, math.sqrt(2.0))


SENS_MATRIX = math.sqrt(2.0) * C**2
SENS_MEAN = math.sqrt(float(np.sum((HI - LO) ** 2))) / N

ENTRIES = [
    Entry("pca declared centre", _run(CENTRE), _pairs),
    Entry(
        "pca declared centre second moment",
        _run(CENTRE),
        _pairs,
        sensitivity=SENS_MATRIX,
        release=lambda est: _frobenius(est.second_moment_),
        norm=2,
    ),
    Entry("pca private centre", _run("private"), _pairs),
    Entry(
        "pca private centre mean",
        _run("private"),
        _pairs,
        sensitivity=SENS_MEAN,
        release=lambda est: est.mean_,
        norm=2,
    ),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_neighbour_replay(entry):
    assert check_entry(entry) > 0


def test_worst_pair_moves_the_matrix_by_its_full_sensitivity():
    """The orthogonal pair at the norm bound attains ``sqrt(2) C^2`` (the bound is tight), and
    the release check has power: half of it is refused."""
    (label, Xa, Xb) = [p for p in _pairs() if p[0] == "C e1 vs C e2"][0]
    run = _run(CENTRE)
    from privlearn.accounting import Accountant, Budget

    a = run(Xa, Accountant(Budget(10.0, 1e-3)), 0)
    b = run(Xb, Accountant(Budget(10.0, 1e-3)), 0)
    moved = float(np.linalg.norm(_frobenius(a.second_moment_) - _frobenius(b.second_moment_)))
    assert abs(moved - SENS_MATRIX) <= SENS_MATRIX * 2.0**-18 + 1e-9
    wrong = Entry(
        "pca half sensitivity",
        _run(CENTRE),
        _pairs,
        sensitivity=SENS_MATRIX / 2,
        release=lambda est: _frobenius(est.second_moment_),
        norm=2,
    )
    with pytest.raises(AssertionError, match="declared sensitivity"):
        check_entry(wrong)
