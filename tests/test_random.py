"""privlearn.random: one RNG story (DESIGN principle 4)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from privlearn.errors import InvalidParameterError
from privlearn.mechanisms import exponential
from privlearn.random import Generator, as_generator, spawn_seeds

# The same values are asserted by rust/core/tests/golden.rs: the same seed gives the same
# output from Python and from Rust.
GOLDEN_RAW_42 = [7_702_011_131_394_881_055, 13_036_653_568_135_486_562, 12_937_070_681_655_084_054]
GOLDEN_SCORES = [0.0, 1.0, 2.0, 3.0, 0.5]
GOLDEN_INT_SCORES = np.array([0, 1, 2, 3, -1], dtype=np.int64)
GOLDEN_EXACT = [3, 3, 3, 3, 0, 2, 3, 2, 4, 3, 2, 4]
GOLDEN_FAST = [3, 3, 1, 3, 1, 2, 3, 2, 4, 3, 3, 4]
GOLDEN_INT = [2, 2, 1, 1, 3, 3, 1, 3, 4, 3, 1, 4]


def test_raw_stream_matches_rust():
    assert Generator(42).random_raw(3) == GOLDEN_RAW_42
    g = Generator(42)
    assert [g.random_raw() for _ in range(3)] == GOLDEN_RAW_42


def test_exponential_matches_rust_for_seeds():
    assert [exponential(GOLDEN_SCORES, 1.0, rng=k) for k in range(12)] == GOLDEN_EXACT
    assert [
        exponential(GOLDEN_SCORES, 1.0, rng=k, numerics="fast") for k in range(12)
    ] == GOLDEN_FAST
    assert [exponential(GOLDEN_INT_SCORES, 1.0, rng=k) for k in range(12)] == GOLDEN_INT


def test_int_seed_equals_fresh_generator_and_generators_advance():
    scores = np.arange(10.0)
    for seed in (0, 1, 2**64 - 1, np.uint64(7), np.int32(3)):
        assert exponential(scores, 1.0, rng=seed) == exponential(
            scores, 1.0, rng=Generator(int(seed))
        )
    g = Generator(3)
    draws = [exponential(scores, 0.1, rng=g) for _ in range(30)]
    assert len(set(draws)) > 1  # the stream advances between calls
    again = Generator(3)
    assert draws == [exponential(scores, 0.1, rng=again) for _ in range(30)]


def test_none_draws_fresh_entropy():
    assert not Generator().seeded and Generator(1).seeded
    assert Generator().random_raw() != Generator().random_raw()
    scores = np.zeros(1000)
    assert len({exponential(scores, 1.0) for _ in range(20)}) > 1


def test_spawn_gives_independent_reproducible_streams():
    kids = Generator(5).spawn(3)
    firsts = [k.random_raw() for k in kids]
    assert len(set(firsts)) == 3
    assert firsts == [k.random_raw() for k in Generator(5).spawn(3)]
    assert all(k.seeded for k in kids)
    assert spawn_seeds(9, 4) == Generator(9).random_raw(4)
    assert spawn_seeds(9, 0) == []
    with pytest.raises(InvalidParameterError):
        spawn_seeds(9, -1)


def test_pickle_resumes_the_stream():
    g = Generator(11)
    g.random_raw(5)
    h = pickle.loads(pickle.dumps(g))
    assert h.seeded
    assert h.random_raw(4) == g.random_raw(4)
    fresh = Generator()
    assert not pickle.loads(pickle.dumps(fresh)).seeded


def test_as_generator():
    g = Generator(1)
    assert as_generator(g) is g
    assert as_generator(4).random_raw() == Generator(4).random_raw()
    assert not as_generator(None).seeded
    for bad in (True, -3, 2**64, 1.5, "x"):
        with pytest.raises(InvalidParameterError) as err:
            as_generator(bad)
        assert err.value.parameter == "rng"


def test_generator_rejects_bad_seeds():
    for bad in (-1, 2**64, 1.5, "1", True):
        with pytest.raises(InvalidParameterError) as err:
            Generator(bad)
        assert err.value.parameter == "seed"


def test_repr_says_whether_private():
    assert "not private" in repr(Generator(1))
    assert "entropy" in repr(Generator())
