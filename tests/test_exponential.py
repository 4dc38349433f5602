"""The exponential mechanism: distribution, properties, edge cases, errors.

Distribution tests compare selection frequencies with the exact softmax
``exp(epsilon * s / (2 * sensitivity))`` by a chi-square test at false-positive rate 1e-6, with a
power check: the same draws must be rejected against epsilon * 0.7 and epsilon * 1.3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlearn.errors import InvalidParameterError
from privlearn.mechanisms import exponential, log_sum_exp
from privlearn.random import Generator
from stats_helpers import assert_fits, assert_rejects, softmax

NUMERICS = ["exact", "fast"]
N_DRAWS = 100_000

# (id, scores, epsilon, sensitivity)
CASES = [
    ("ints", np.array([0, 1, 2, 3, 4, 5, -2], dtype=np.int64), 1.0, 1.0),
    ("reals", np.array([0.1234, 1.5, 2.25, -0.7, 3.0, 2.9999]), 1.7, 1.3),
    ("neg-inf", np.array([0.0, -np.inf, 1.0, 2.0, -np.inf]), 2.0, 1.0),
    ("huge-offset", 1e12 + np.array([0.0, 1.0, 2.0, 3.0]), 1.0, 1.0),
    ("sensitivity-10", np.array([0, 10, 20, 30], dtype=np.int64), 1.0, 10.0),
    ("small-epsilon", np.array([0.0, 1000.0, 2000.0]), 1e-3, 1.0),
    ("peaked", np.array([0, 5, 10], dtype=np.int64), 3.0, 1.0),
    ("int32", np.array([3, 1, 4, 1, 5], dtype=np.int32), 0.8, 1.0),
    ("float32", np.array([0.5, 1.5, -1.0], dtype=np.float32), 2.0, 1.0),
]


def _draw_counts(scores, eps, sens, numerics, seed, n=N_DRAWS):
    idx = exponential(scores, eps, sens, size=n, rng=seed, numerics=numerics)
    return np.bincount(idx, minlength=len(scores))


@pytest.mark.parametrize("numerics", NUMERICS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_frequencies_match_softmax_with_power(case, numerics):
    name, scores, eps, sens = case
    counts = _draw_counts(scores, eps, sens, numerics, seed=1234)
    s = np.asarray(scores, dtype=float)
    assert_fits(counts, softmax(s, eps / (2 * sens)), f"{name}/{numerics}")
    for off in (0.7, 1.3):
        assert_rejects(counts, softmax(s, off * eps / (2 * sens)), f"{name}/{numerics} x{off}")


@pytest.mark.parametrize("numerics", NUMERICS)
def test_single_draws_follow_the_same_law(numerics):
    # The size=None path, one call per draw, sharing one Generator.
    scores = np.array([0.0, 1.0, 2.0, 0.5])
    gen = Generator(99)
    idx = [exponential(scores, 1.0, rng=gen, numerics=numerics) for _ in range(40_000)]
    counts = np.bincount(idx, minlength=4)
    assert_fits(counts, softmax(scores, 0.5), numerics)
    assert_rejects(counts, softmax(scores, 0.5 * 1.3), numerics)


@pytest.mark.parametrize("numerics", NUMERICS)
def test_many_candidates_parallel_path(numerics):
    # 300,000 candidates (parallel, chunked code paths) on four score levels. Check the level
    # frequencies and, within the top level, that every candidate is equally likely (10 bins).
    rng = np.random.default_rng(5)
    levels = rng.choice(4, size=300_000, p=[0.02, 0.08, 0.3, 0.6])
    scores = -levels.astype(np.int64)
    eps = 2.0  # weight e^-level per candidate
    idx = exponential(scores, eps, size=30_000, rng=7, numerics=numerics)
    level_counts = np.bincount(levels[idx], minlength=4)
    n_per_level = np.bincount(levels, minlength=4)
    p = n_per_level * np.exp(-np.arange(4))
    assert_fits(level_counts, p, "levels")
    assert_rejects(level_counts, n_per_level * np.exp(-1.3 * np.arange(4)), "levels x1.3")
    top = np.flatnonzero(levels == 0)
    chosen_top = idx[levels[idx] == 0]
    position = np.searchsorted(top, chosen_top)
    bins = np.bincount(position * 10 // len(top), minlength=10)
    assert_fits(bins, np.ones(10), "uniform within the top level")


def test_integer_and_real_paths_agree_in_law():
    ints = np.array([0, 2, 3, -1, 1], dtype=np.int64)
    a = _draw_counts(ints, 1.0, 1.0, "exact", seed=3)
    b = _draw_counts(ints.astype(float), 1.0, 1.0, "exact", seed=4)
    # Two-sample homogeneity: both fit the same softmax.
    assert_fits(a, softmax(ints, 0.5), "int")
    assert_fits(b, softmax(ints, 0.5), "real")


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

finite_scores = st.lists(
    st.one_of(
        st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
        st.floats(-10, 10, allow_nan=False),
        st.just(-math.inf),
    ),
    min_size=1,
    max_size=50,
).filter(lambda xs: any(math.isfinite(x) for x in xs))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scores=finite_scores,
    eps=st.floats(1e-6, 1e6),
    sens=st.floats(1e-3, 1e3),
    numerics=st.sampled_from(NUMERICS),
    seed=st.integers(0, 2**64 - 1),
)
def test_index_in_range_and_never_neg_inf(scores, eps, sens, numerics, seed):
    i = exponential(scores, eps, sens, rng=seed, numerics=numerics)
    assert isinstance(i, int)
    assert 0 <= i < len(scores)
    assert math.isfinite(scores[i])


@settings(max_examples=100, deadline=None)
@given(
    ticks=st.lists(st.integers(-4096, 4096), min_size=1, max_size=40),
    shift=st.integers(-(10**6), 10**6),
    eps=st.floats(0.01, 10),
    numerics=st.sampled_from(NUMERICS),
    seed=st.integers(0, 2**64 - 1),
)
def test_shifting_all_scores_changes_nothing(ticks, shift, eps, numerics, seed):
    # Dyadic scores keep the shift exact in floating point; integers are exact anyway.
    t = np.array(ticks, dtype=np.int64)
    real = exponential(t / 64.0, eps, rng=seed, numerics=numerics)
    real_shifted = exponential((t + shift) / 64.0, eps, rng=seed, numerics=numerics)
    assert real == real_shifted
    ints = exponential(t, eps, rng=seed, numerics=numerics)
    ints_shifted = exponential(t + shift, eps, rng=seed, numerics=numerics)
    assert ints == ints_shifted


@settings(max_examples=100, deadline=None)
@given(
    scores=st.lists(st.floats(-100, 0), min_size=1, max_size=50),
    best=st.integers(0, 49),
    numerics=st.sampled_from(NUMERICS),
    seed=st.integers(0, 2**64 - 1),
)
def test_dominant_score_wins_as_epsilon_grows(scores, best, numerics, seed):
    scores = list(scores)
    best %= len(scores)
    scores[best] = 1.0  # a gap of at least one sensitivity
    # At epsilon = 200 the failure probability is below n * e^-100.
    assert exponential(scores, 200.0, rng=seed, numerics=numerics) == best


def test_probability_of_the_best_grows_with_epsilon():
    scores = np.array([0.0, 1.0, 0.5, -1.0])
    freq = [
        np.mean(exponential(scores, e, size=20_000, rng=11) == 1) for e in (0.1, 1.0, 5.0, 20.0)
    ]
    assert all(a < b for a, b in zip(freq, freq[1:])), freq


@pytest.mark.parametrize("numerics", NUMERICS)
def test_huge_magnitudes_do_not_overflow(numerics):
    scores = np.array([1e300, -1e300, 1e300 - 1e290, np.finfo(float).max, -np.finfo(float).max])
    assert set(exponential(scores, 1.0, size=50, rng=1, numerics=numerics)) == {3}
    tie = np.array([1e300, 1e300, -1e300])
    counts = np.bincount(exponential(tie, 1.0, size=20_000, rng=2, numerics=numerics), minlength=3)
    assert counts[2] == 0
    assert_fits(counts[:2], [0.5, 0.5], "tie at 1e300")
    ints = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0])
    assert exponential(ints, 1.0, rng=3, numerics=numerics) == 1


def test_size_zero_and_dtype_of_batches():
    out = exponential([1.0, 2.0], 1.0, size=0, rng=1)
    assert isinstance(out, np.ndarray) and out.shape == (0,) and out.dtype == np.int64
    out = exponential([1.0, 2.0], 1.0, size=3, rng=1)
    assert out.shape == (3,)


def test_batch_equals_consecutive_single_draws():
    scores = np.array([0.0, 1.0, 2.0, 0.25])
    for numerics in NUMERICS:
        batch = exponential(scores, 1.0, size=25, rng=Generator(8), numerics=numerics)
        gen = Generator(8)
        singles = [exponential(scores, 1.0, rng=gen, numerics=numerics) for _ in range(25)]
        assert list(batch) == singles


def test_accepts_lists_bools_and_strided_arrays():
    assert exponential([0, 100], 10.0, rng=0) == 1
    assert exponential(np.array([False, True]), 100.0, rng=0) == 1
    strided = np.zeros(20)[::2]
    strided[3] = 50.0
    assert exponential(strided, 10.0, rng=0) == 3
    big = np.zeros(200_000)[::2]  # long and not contiguous: copied
    big[12_345] = 100.0
    assert exponential(big, 10.0, rng=0) == 12_345


# --------------------------------------------------------------------------------------------
# Errors: typed, naming the parameter, raised before anything is drawn
# --------------------------------------------------------------------------------------------

BAD_CALLS = [
    ("scores", dict(scores=[], epsilon=1.0)),
    ("scores", dict(scores=[1.0, np.nan], epsilon=1.0)),
    ("scores", dict(scores=[1.0, np.inf], epsilon=1.0)),
    ("scores", dict(scores=[-np.inf, -np.inf], epsilon=1.0)),
    ("scores", dict(scores=np.zeros((2, 2)), epsilon=1.0)),
    ("scores", dict(scores=["a", "b"], epsilon=1.0)),
    ("scores", dict(scores=np.array([1 + 2j]), epsilon=1.0)),
    ("scores", dict(scores=np.array([2**63], dtype=np.uint64), epsilon=1.0)),
    ("epsilon", dict(scores=[1.0], epsilon=0.0)),
    ("epsilon", dict(scores=[1.0], epsilon=-1.0)),
    ("epsilon", dict(scores=[1.0], epsilon=np.inf)),
    ("epsilon", dict(scores=[1.0], epsilon=np.nan)),
    ("sensitivity", dict(scores=[1.0], epsilon=1.0, sensitivity=0.0)),
    ("sensitivity", dict(scores=[1.0], epsilon=1.0, sensitivity=np.inf)),
    ("sensitivity", dict(scores=[1.0], epsilon=1.0, sensitivity=1e-300, numerics="exact")),
    ("numerics", dict(scores=[1.0], epsilon=1.0, numerics="float")),
    ("size", dict(scores=[1.0], epsilon=1.0, size=-2)),
    ("rng", dict(scores=[1.0], epsilon=1.0, rng="seed")),
    ("rng", dict(scores=[1.0], epsilon=1.0, rng=-1)),
    ("rng", dict(scores=[1.0], epsilon=1.0, rng=2**64)),
    ("rng", dict(scores=[1.0], epsilon=1.0, rng=True)),
    ("rng", dict(scores=[1.0], epsilon=1.0, rng=1.5)),  # numpy generators: accepted (issue 20)
]


@pytest.mark.parametrize("numerics", NUMERICS)
@pytest.mark.parametrize(
    "param,kwargs", BAD_CALLS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(BAD_CALLS)]
)
def test_bad_input_is_a_clear_error_and_draws_nothing(param, kwargs, numerics):
    kwargs = dict(kwargs)
    kwargs.setdefault("numerics", numerics)
    gen_kwargs = dict(kwargs)
    if "rng" not in gen_kwargs:
        gen = Generator(5)
        gen_kwargs["rng"] = gen
    else:
        gen = None
    with pytest.raises(InvalidParameterError) as err:
        exponential(**gen_kwargs)
    assert err.value.parameter == param
    assert str(err.value).startswith(param + ":")
    assert isinstance(err.value, ValueError)
    if gen is not None:
        # Nothing was drawn: the generator's stream is where a fresh one's is.
        assert gen.random_raw() == Generator(5).random_raw()


def test_error_messages_state_the_allowed_range():
    with pytest.raises(InvalidParameterError, match=r"finite number > 0, got 0"):
        exponential([1.0], 0.0)
    with pytest.raises(InvalidParameterError, match=r"one-dimensional, got shape \(2, 3\)"):
        exponential(np.zeros((2, 3)), 1.0)


# --------------------------------------------------------------------------------------------
# log_sum_exp
# --------------------------------------------------------------------------------------------


def test_log_sum_exp_matches_scipy():
    from scipy.special import logsumexp

    rng = np.random.default_rng(0)
    for n in (1, 7, 1000, 300_001):
        x = rng.normal(scale=50, size=n)
        assert log_sum_exp(x) == pytest.approx(logsumexp(x), rel=1e-13, abs=1e-13)
    x = rng.normal(size=(30, 40))
    assert log_sum_exp(x) == pytest.approx(logsumexp(x), rel=1e-13)
    assert log_sum_exp([1, 2, 3]) == pytest.approx(logsumexp([1.0, 2.0, 3.0]), rel=1e-14)


def test_log_sum_exp_edge_cases():
    assert log_sum_exp([]) == -math.inf
    assert log_sum_exp([-math.inf, -math.inf]) == -math.inf
    assert log_sum_exp([1.0, math.inf]) == math.inf
    assert math.isnan(log_sum_exp([1.0, math.nan, math.inf]))
    assert log_sum_exp([1e308, 1e308]) == pytest.approx(1e308, rel=1e-15)
    assert log_sum_exp([-1e308, 0.0]) == 0.0
    assert log_sum_exp([0.0, 0.0]) == pytest.approx(math.log(2), rel=1e-15)
    with pytest.raises(InvalidParameterError):
        log_sum_exp(["x"])
