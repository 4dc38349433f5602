"""privlearn.multi: details pinned by mutation testing (issue 16).

* ``LearnPoints`` decodes a released heavy point into a :class:`Point` of its coordinates (an
  integer only for a one-coordinate integer point), and draws from the caller's stream.
* MWEM applies the documented ten passes of the multiplicative weights update per round, checked
  against an independent re-implementation on data where the mechanisms are (numerically)
  exact.
* The default MWEM sample of :class:`SanitizerMultiLearner` is the documented Hoeffding and
  union-bound size ``ceil((2/alpha^2) ln(4 |C^xor| / beta))``.
* Bad arguments of the sample-size formulas are refused naming the parameter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn import InvalidParameterError
from privlearn.hypotheses import FiniteClass, Point
from privlearn.multi import PointMultiLearner, SanitizerMultiLearner, mwem, points_sample_size
from privlearn.random import Generator


def test_points_learner_decodes_multi_coordinate_points_with_an_integer_first_coordinate():
    # Realizable: concept 0 is the point (3, 0.5), concept 1 is the all-zero function.
    X = np.tile([[3.0, 0.5], [1.0, 2.0]], (200, 1))
    Y = np.zeros((400, 2), dtype=bool)
    Y[::2, 0] = True
    learner = PointMultiLearner(1.0, 1e-6, alpha=0.5, rng=0).fit(X, Y)
    assert learner.released_
    assert learner.hypotheses_[0] == Point((3.0, 0.5))
    assert learner.predict([[3.0, 0.5], [3.0, 2.0], [1.0, 2.0]])[:, 0].tolist() == [
        True,
        False,
        False,
    ]


def test_points_learner_keeps_a_fractional_one_coordinate_point_as_a_tuple():
    X = np.tile([2.5, 7.0], 200)
    Y = (X == 2.5)[:, None]
    learner = PointMultiLearner(1.0, 1e-6, alpha=0.5, rng=0).fit(X, Y)
    assert learner.hypotheses_ == [Point((2.5,))]
    assert learner.predict([2.5, 2.0, 7.0])[:, 0].tolist() == [True, False, False]


def test_points_learner_draws_from_the_callers_stream():
    X = np.tile([0.0, 1.0, 2.0], 100)
    Y = (X == 1.0)[:, None]
    gen_a, gen_b = Generator(7), Generator(7)
    a = PointMultiLearner(1.0, 1e-6, alpha=0.5, rng=gen_a).fit(X, Y)
    b = PointMultiLearner(1.0, 1e-6, alpha=0.5, rng=gen_b).fit(X, Y)
    assert a.hypotheses_ == b.hypotheses_ == [Point(1)]
    # Both fits consumed the same draws of the shared stream, and the stream advanced.
    after = gen_a.random_raw()
    assert after == gen_b.random_raw()
    assert after != Generator(7).random_raw()


def _mwem_reference(counts: np.ndarray, queries: np.ndarray, measured: list) -> np.ndarray:
    """MWEM's multiplicative weights (Hardt, Ligett and McSherry, Algorithm 1) with exact
    measurements: ten passes over the measurements so far after each round, average of the
    rounds' distributions."""
    n = counts.sum()
    a = np.full(counts.size, n / counts.size)
    total = np.zeros(counts.size)
    done = []
    for i in measured:
        done.append(i)
        for _ in range(10):
            for j in done:
                q = queries[j]
                a = a * np.exp(q * (counts @ q - a @ q) / (2.0 * n))
                a = a * (n / a.sum())
        total += a
    return total / total.sum()


def test_mwem_makes_ten_multiplicative_weights_passes_per_round():
    # A huge epsilon makes the exponential mechanism pick the worst query and the Laplace
    # measurement exact to about 1e-5 records; the passes are then deterministic.
    counts = np.array([50, 0, 0, 0])
    queries = np.array([[1, 0, 0, 0], [0, 1, 1, 0]], dtype=np.uint8)
    # Round 1: errors |12.5 - 50| = 37.5 and |25 - 0| = 25: query 0.
    dist1 = mwem(counts, queries, 1e6, rounds=1, rng=0)
    expected1 = _mwem_reference(counts, queries.astype(float), [0])
    assert np.max(np.abs(dist1 - expected1)) < 1e-6
    # Eleven passes would differ visibly.
    assert np.max(np.abs(expected1 - _eleven_passes(counts, queries.astype(float)))) > 1e-3


def _eleven_passes(counts: np.ndarray, queries: np.ndarray) -> np.ndarray:
    n = counts.sum()
    a = np.full(counts.size, n / counts.size)
    q = queries[0]
    for _ in range(11):
        a = a * np.exp(q * (counts @ q - a @ q) / (2.0 * n))
        a = a * (n / a.sum())
    return a / a.sum()


def test_sanitizer_default_mwem_sample_is_the_hoeffding_size():
    size = 200
    labels = np.zeros((3, size), dtype=np.uint8)
    labels[1, : size // 2] = 1
    labels[2, ::2] = 1
    # The queries C^xor: the distinct non-zero XORs of the three rows, counted independently.
    xors = {tuple(labels[a] ^ labels[b]) for a in range(3) for b in range(a + 1, 3)} - {
        tuple([0] * size)
    }
    assert len(xors) == 3
    alpha, beta = 0.3, 0.05
    m = math.ceil((2.0 / alpha**2) * math.log(4.0 * len(xors) / beta))
    X = np.arange(size).repeat(5)
    Y = np.stack([labels[1][X], labels[2][X]], axis=1)
    cls = FiniteClass(labels)
    default = SanitizerMultiLearner(cls, 50.0, alpha=alpha, beta=beta, rng=4).fit(X, Y)
    explicit = SanitizerMultiLearner(cls, 50.0, alpha=alpha, beta=beta, sample_size=m, rng=4)
    explicit.fit(X, Y)
    np.testing.assert_array_equal(default.sanitized_points_, explicit.sanitized_points_)
    # The sample matters: another size gives other sanitized points with this seed.
    other = SanitizerMultiLearner(cls, 50.0, alpha=alpha, beta=beta, sample_size=2 * m, rng=4)
    other.fit(X, Y)
    assert len(other.sanitized_points_) != len(default.sanitized_points_)


@pytest.mark.parametrize("beta", [0.0, 1.0, float("nan")])
def test_points_sample_size_names_beta(beta):
    with pytest.raises(InvalidParameterError) as info:
        points_sample_size(0.1, 1.0, 1e-6, beta)
    assert info.value.parameter == "beta"
    assert str(info.value).startswith("beta:")
