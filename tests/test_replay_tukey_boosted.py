"""Neighbour replay (tests/replay.py) of TukeyEM and Boosted AdaSSP: same seed on replace-one
neighbours gives the same control flow, errors, charge and shapes; the tapped PTR Laplace input
``k`` moves by at most its sensitivity 1 (the distance lower bound of Brown et al.); for TukeyEM
the batch models not containing the replaced row are identical (one record changes one model);
Boosted AdaSSP's Gaussian calls have the same parameters on both sides."""

from __future__ import annotations

import numpy as np
import pytest

from privlearn.learners.boosted_adassp import BoostedAdaSSPRegressor
from privlearn.learners.tukey import TukeyEMRegressor, batch_models, partition
from privlearn.random import as_generator
from replay import Entry, check_entry, replace_one_pairs

DELTA = 1e-6


def _base(n, d, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, d))
    y = X @ np.arange(1.0, d + 1) + 0.3 * g.normal(size=n)
    return X, y


def _tukey_pairs_small():
    X, y = _base(240, 2)
    rows = [
        ("far outlier", (np.array([1e6, -1e6]), 1e9)),
        ("opposite outlier", (np.array([-1e6, 1e6]), -1e9)),
        ("zero", (np.zeros(2), 0.0)),
    ]
    return replace_one_pairs((X, y), rows, index=5)


def _tukey_pairs_large():
    X, y = _base(6000, 2)
    rows = [
        ("far outlier", (np.array([1e3, -1e3]), 1e5)),
        ("opposite outlier", (np.array([-1e3, 1e3]), -1e5)),
    ]
    return replace_one_pairs((X, y), rows, index=17)


def _boost_pairs():
    X, y = _base(200, 3)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    rows = [
        ("e1", (np.array([1.0, 0.0, 0.0]), 2.0)),
        ("-e1", (np.array([-1.0, 0.0, 0.0]), 2.0)),
        ("e2 label flip", (np.array([0.0, 1.0, 0.0]), -2.0)),
        ("outside the bounds", (np.array([50.0, 50.0, 0.0]), 1e4)),
    ]
    return replace_one_pairs((X, y), rows, index=3)


ENTRIES = [
    Entry(
        "TukeyEM (PTR fails)",
        lambda data, acc, seed: TukeyEMRegressor(
            1.0, DELTA, n_models=24, accountant=acc, rng=seed
        ).fit(*data),
        _tukey_pairs_small,
    ),
    Entry(
        "TukeyEM (PTR passes)",
        lambda data, acc, seed: TukeyEMRegressor(
            2.0, DELTA, n_models=1000, accountant=acc, rng=seed
        ).fit(*data),
        _tukey_pairs_large,
    ),
    Entry(
        "BoostedAdaSSP",
        lambda data, acc, seed: BoostedAdaSSPRegressor(
            1.0, DELTA, data_norm=1.0, gradient_clip=2.0, n_rounds=3, accountant=acc, rng=seed
        ).fit(*data),
        _boost_pairs,
    ),
    Entry(
        "BoostedAdaSSP (no intercept, label bound)",
        lambda data, acc, seed: BoostedAdaSSPRegressor(
            0.5,
            DELTA,
            data_norm=1.0,
            label_bound=2.0,
            fit_intercept=False,
            accountant=acc,
            rng=seed,
        ).fit(*data),
        _boost_pairs,
    ),
    Entry(
        "BoostedAdaSSP (private bounds, n eps = 200)",
        lambda data, acc, seed: BoostedAdaSSPRegressor(
            1.0,
            DELTA,
            data_norm="private",
            label_bound="private",
            n_rounds=3,
            accountant=acc,
            rng=seed,
        ).fit(*data),
        _boost_pairs,
    ),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_replay(entry):
    assert check_entry(entry) > 0


def test_tukey_passing_entry_really_passes():
    X, y = _tukey_pairs_large()[0][1]
    assert TukeyEMRegressor(2.0, DELTA, n_models=1000, rng=0).fit(X, y).ptr_passed_


@pytest.mark.parametrize("seed", [0, 1])
def test_tukey_one_record_changes_one_model(seed):
    for _, (Xa, ya), (Xb, yb) in _tukey_pairs_small():
        n = len(ya)
        Xa1 = np.hstack([Xa, np.ones((n, 1))])
        Xb1 = np.hstack([Xb, np.ones((n, 1))])
        ba = partition(n, 24, as_generator(seed))
        bb = partition(n, 24, as_generator(seed))
        assert np.array_equal(ba, bb)  # the partition does not look at the data
        ma, mb = batch_models(Xa1, ya, ba), batch_models(Xb1, yb, bb)
        differ = np.flatnonzero(np.any(ma != mb, axis=1))
        holder = [i for i in range(24) if 5 in ba[i]]
        assert set(differ) <= set(holder) and len(holder) <= 1


@pytest.mark.parametrize("entry", ENTRIES[2:4], ids=lambda e: e.name)
def test_boosted_noise_free_parts_move_within_their_sensitivities(entry, monkeypatch):
    """``gaussian_noise`` wrapped on both sides of every pair (same seed): each release's
    noise-free value moves by at most the sensitivity derived here (replace-one, ``B`` the
    augmented row bound; the releases are in normalised units, divided by ``B^2``, ``B^2`` and
    ``B C_g``): ``sqrt(2) B^2`` (``X^T X`` as ``(M_ii; sqrt(2) M_ij)``), ``B^2``
    (``lambda_min``), ``2 B C_g`` (each round's ``X^T r``; the rounds' ``theta`` differ between
    the sides, so this checks the per-round bound only where the previous ``theta`` agrees: the
    first round), and the sampler receives the same sigma and sensitivity on both sides."""
    import math

    import privlearn.mechanisms as mech

    real = mech.gaussian_noise
    for _, a, b in entry.pairs():
        logs = []
        for data in (a, b):
            seen = []

            def wrapper(value, sigma, sensitivity, *, rng=None, seen=seen):
                seen.append(
                    (np.atleast_1d(np.asarray(value, dtype=float)).copy(), sigma, sensitivity)
                )
                return real(value, sigma, sensitivity, rng=rng)

            monkeypatch.setattr(mech, "gaussian_noise", wrapper)
            est = entry.run(data, None, 0)
            monkeypatch.setattr(mech, "gaussian_noise", real)
            logs.append(seen)
        intercept = est.fit_intercept
        B = 1.0 * (math.sqrt(2) if intercept else 1.0)  # data_norm = 1.0 in both entries
        cg = 2.0
        bounds = [math.sqrt(2) * B * B / B**2, B * B / B**2, 2 * B * cg / (B * cg)]
        la, lb = logs
        assert len(la) == len(lb) == 2 + est.n_rounds
        for j, ((va, sa, da), (vb, sb, db)) in enumerate(zip(la[:3], lb[:3])):
            assert sa == sb and da == db
            assert np.linalg.norm(va - vb) <= bounds[j] * (1 + 1e-12), (j, np.linalg.norm(va - vb))
