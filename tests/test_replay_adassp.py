"""Neighbour replay of AdaSSP (``privlearn.learners.adassp``), with ``tests/replay.py``.

Neighbours replace one row inside the declared bounds (``data_norm = label_bound = 1``, no
intercept, so the normalised problem is the raw one). Checked for every pair and seed: control
flow, identical ledgers (the composed event), output shapes, and (Gaussian) each released
statistic minus the same noise moves by at most its replace-one sensitivity, written here from the
derivations (Weyl: ``lambda_min`` 1; ``||x x^T - x' x'^T||_F <= sqrt(2)``; ``||x y - x' y'|| <= 2``).
The Laplace variant's sampler calls are checked by the tap (L1 move within the sensitivity they
were calibrated with, and the pair's loss at most the charged epsilon). With private bounds the
bound draws may differ, after which the releases legitimately differ (adaptive composition).
"""

from __future__ import annotations

import math

import numpy as np

from privlearn.learners.adassp import AdaSSPRegressor
from replay import Entry, check_entry, replace_one_pairs

N, D = 40, 3


def _pairs():
    g = np.random.default_rng(19)
    v = g.normal(size=(N, D))
    X = v / np.linalg.norm(v, axis=1)[:, None] * 0.9 * g.uniform(0, 1, (N, 1))
    y = g.uniform(-1, 1, N)
    e = np.eye(D)
    flat = np.ones(D) / math.sqrt(D)
    rows = [
        ("+e1, +1", (e[0], 1.0)),
        ("+e2, -1", (e[1], -1.0)),
        ("-e1, +1", (-e[0], 1.0)),
        ("flat, -1", (flat, -1.0)),
        ("zero", (np.zeros(D), 0.0)),
    ]
    return replace_one_pairs((X, y), rows, cross=((0, 1), (0, 2)))


def _run(noise, bound=1.0, epsilon=1.0):
    def run(data, acct, seed):
        X, y = data
        return AdaSSPRegressor(
            epsilon,
            noise=noise,
            data_norm=bound,
            label_bound=bound,
            fit_intercept=False,
            accountant=acct,
            rng=seed,
        ).fit(X, y)

    return run


# The releases carry a floating-point slack of at most 2^-44 p n (documented): below rel_tol.
ENTRIES = [
    Entry(
        "adassp gaussian lambda_min",
        _run("gaussian"),
        _pairs,
        sensitivity=1.0,
        release=lambda m: np.array([m.statistics_.lambda_min]),
    ),
    Entry(
        "adassp gaussian X^T X",
        _run("gaussian"),
        _pairs,
        sensitivity=math.sqrt(2.0),
        release=lambda m: m.statistics_.xtx,
    ),
    Entry(
        "adassp gaussian X^T y",
        _run("gaussian"),
        _pairs,
        sensitivity=2.0,
        release=lambda m: m.statistics_.xty,
    ),
    Entry("adassp laplace", _run("laplace"), _pairs),
    # n epsilon = 160 >= 128: private bounds are refused below (the documented plan).
    Entry("adassp gaussian private bounds", _run("gaussian", "private", 4.0), _pairs),
    Entry("adassp laplace private bounds", _run("laplace", "private", 4.0), _pairs),
]


def test_replay_adassp():
    for entry in ENTRIES:
        assert check_entry(entry) > 0
