"""Synthetic concept samples (privlearn.datasets.synthetic)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats

from privlearn import InvalidParameterError
from privlearn.datasets import make_concept_sample, random_concept, sample_points
from privlearn.hypotheses import (
    FiniteClass,
    Halfspaces,
    Intervals,
    Parities,
    Points,
    Rectangles,
    Thresholds,
)
from stats_helpers import ALPHA

CLASSES = [
    Thresholds(),
    Thresholds("le"),
    Thresholds("both"),
    Intervals(),
    Rectangles(2),
    Rectangles(3),
    Halfspaces(1),
    Halfspaces(2),
    Halfspaces(5),
    Parities(8),
    Points(),
    Points(dim=2),
    Points(domain_size=5),
    Points(domain_size=100),
    FiniteClass(np.eye(6, dtype=bool)),
]


@pytest.mark.parametrize("cls", CLASSES, ids=repr)
def test_labels_are_the_targets_predictions_and_the_class_accepts_the_points(cls):
    s = make_concept_sample(cls, 500, rng=1)
    assert s.y.shape == (500,) and s.y.dtype == bool
    np.testing.assert_array_equal(s.y, cls.predict(s.target, s.X))
    np.testing.assert_array_equal(s.y, s.clean)
    # The sample is realizable: exact ERM makes no mistake (on a prefix small enough for the
    # enumeration-based ERM of the higher-dimensional classes).
    cheap = isinstance(cls, (Parities, Points, FiniteClass)) or getattr(cls, "dim", 1) == 1
    m = 500 if cheap or isinstance(cls, Halfspaces) and cls.dim == 2 else 12
    h = cls.erm(s.X[:m], s.y[:m])
    assert not np.any(cls.predict(h, s.X[:m]) != s.y[:m])


@pytest.mark.parametrize("cls", CLASSES, ids=repr)
def test_samples_are_reproducible_under_a_seed(cls):
    a, b = make_concept_sample(cls, 50, rng=7), make_concept_sample(cls, 50, rng=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.targets == b.targets
    assert random_concept(cls, rng=3) == random_concept(cls, rng=3)
    np.testing.assert_array_equal(sample_points(cls, 9, rng=3), sample_points(cls, 9, rng=3))
    assert pickle.loads(pickle.dumps(a.target)) == a.target


def test_targets_are_non_trivial():
    # Every default concept labels a fair share of the points positive (both labels occur).
    for cls in CLASSES:
        for seed in range(20):
            s = make_concept_sample(cls, 2000, rng=seed)
            frac = s.y.mean()
            assert 0.02 < frac < 0.98, (cls, seed, frac)


def test_multi_concept_label_matrix():
    s = make_concept_sample(Parities(10), 300, n_concepts=25, rng=0)
    assert s.y.shape == (300, 25) and len(s.targets) == 25
    for j, h in enumerate(s.targets):
        np.testing.assert_array_equal(s.y[:, j], Parities(10).predict(h, s.X))
    assert len(set(s.targets)) > 20  # independent draws


def test_given_points_and_targets():
    X = np.linspace(0, 1, 11)
    h = random_concept(Thresholds(), rng=0)
    s = make_concept_sample(Thresholds(), X=X, targets=h)
    np.testing.assert_array_equal(s.X, X)
    assert s.target == h
    calls = FiniteClass([lambda x: x[:, 0] > 0, lambda x: x[:, 1] > 0])
    pts = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    s2 = make_concept_sample(calls, X=pts, rng=0)
    assert s2.y.shape == (3,)


def test_noise_flips_each_label_with_the_stated_probability():
    # A two-sided binomial test at ALPHA; power: the same test rejects a rate 30% off.
    n, noise = 200_000, 0.2
    s = make_concept_sample(Halfspaces(2), n, noise=noise, rng=11)
    flips = int(np.sum(s.y != s.clean))
    assert stats.binomtest(flips, n, noise).pvalue > ALPHA
    assert stats.binomtest(flips, n, noise * 1.3).pvalue < ALPHA


def test_uniform_points_pass_a_ks_test():
    x = sample_points(Thresholds(), 100_000, rng=5)
    assert stats.kstest(x, "uniform").pvalue > ALPHA
    assert stats.kstest(x, "uniform", args=(0, 1.3)).pvalue < ALPHA  # power


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n=0), "n"),
        (dict(n=10, X=np.zeros(3)), "n"),
        (dict(), "n"),
        (dict(n=10, noise=0.7), "noise"),
        (dict(n=10, noise=-0.1), "noise"),
        (dict(n=10, noise="x"), "noise"),
        (dict(n=10, n_concepts=0), "n_concepts"),
        (dict(n=10, targets=[]), "targets"),
    ],
)
def test_bad_arguments(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        make_concept_sample(Thresholds(), **kwargs)


def test_bad_class_and_unknown_domain():
    with pytest.raises(InvalidParameterError, match="hypothesis_class"):
        make_concept_sample("thresholds", 10)
    with pytest.raises(InvalidParameterError, match="X"):
        make_concept_sample(FiniteClass([lambda x: x > 0]), 10)
