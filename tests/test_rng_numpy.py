"""``rng=`` accepts numpy's random objects (issue 20, "Conventions users expect").

Every public entry point that takes ``rng`` also takes a :class:`numpy.random.Generator`, a
:class:`numpy.random.SeedSequence` and a legacy :class:`numpy.random.RandomState`, as
scikit-learn's ``random_state`` and SciPy's ``rng`` do (:mod:`privlearn.random` documents how
the ChaCha20 key is taken from them, and that they count as seeds: not private unless the numpy
state is unpredictable).

* the key derivation is checked against an independent ChaCha20 written here from RFC 8439's
  block function (no privlearn code), with the counter layout of ``rand_chacha`` (64-bit block
  counter in words 12-13, stream 0 in words 14-15), so the documented rule is what runs;
* every private release of the neighbour replay registries (all mechanisms, learners, ERM,
  prediction, multi-concept and query-release entry points) runs with a numpy Generator (twice
  from the same state: the same charge, output shape and noisy release) and with a seed
  sequence; estimators are cloned (the clone shares the numpy generator, as it shares an
  integer ``rng``) and refitted;
* the entry points outside the registries (datasets, attacks, GF(2), ``rls_out``,
  ``learn_columns``, the experiments' ``run_trials``, ``spawn_seeds``) too;
* :func:`privlearn.audit.audit` drives privlearn mechanisms with the numpy generators it
  passes, directly.
"""

from __future__ import annotations

import copy
import struct
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest
from sklearn.base import clone

import test_neighbour_replay as replay_main
import test_replay_adassp
import test_replay_logistic
import test_replay_tukey_boosted
from privlearn import audit as audit_mod
from privlearn._certified import SharedCloneMixin
from privlearn.accounting import Budget
from privlearn.attacks import BonehShawCode, TardosCode, pirate
from privlearn.datasets import make_concept_sample, random_concept, sample_points
from privlearn.errors import InvalidParameterError
from privlearn.experiments import run_trials
from privlearn.gf2 import GF2Matrix
from privlearn.hypotheses import Thresholds
from privlearn.learners import rls_out
from privlearn.mechanisms import exponential, gaussian, laplace
from privlearn.multi import StableParityLearner, StablePointLearner
from privlearn.query_release import relabel
from privlearn.random import Generator, as_generator, spawn_seeds
from replay import Entry, run_once, structure

# --------------------------------------------------------------------------------------------
# An independent ChaCha20 (RFC 8439, section 2.3) for the key derivation checks
# --------------------------------------------------------------------------------------------

_MASK = 0xFFFFFFFF


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & _MASK


def _quarter(s: List[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & _MASK
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & _MASK
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & _MASK
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & _MASK
    s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_words(key: bytes, n: int) -> List[int]:
    """The first ``n`` 64-bit outputs of ChaCha20 keyed with ``key`` (stream 0, block 0):
    the block's 32-bit words in order, two per output, the first as the low half."""
    assert len(key) == 32 and n <= 8
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *struct.unpack("<8I", key)]
    state += [0, 0, 0, 0]  # block counter 0 (words 12-13), stream 0 (words 14-15)
    w = list(state)
    for _ in range(10):
        _quarter(w, 0, 4, 8, 12)
        _quarter(w, 1, 5, 9, 13)
        _quarter(w, 2, 6, 10, 14)
        _quarter(w, 3, 7, 11, 15)
        _quarter(w, 0, 5, 10, 15)
        _quarter(w, 1, 6, 11, 12)
        _quarter(w, 2, 7, 8, 13)
        _quarter(w, 3, 4, 9, 14)
    out = [(a + b) & _MASK for a, b in zip(w, state)]
    return [out[2 * i] | (out[2 * i + 1] << 32) for i in range(n)]


def test_reference_chacha_matches_integer_seeds():
    """The reference above is the core's generator: an integer seed is the key ``seed`` (8 bytes,
    little-endian) followed by 24 zero bytes (privlearn.random, rust/core/src/rng.rs)."""
    for seed in (0, 42, 2**64 - 1):
        key = seed.to_bytes(8, "little") + bytes(24)
        assert Generator(seed).random_raw(4) == chacha20_words(key, 4)


# --------------------------------------------------------------------------------------------
# The documented key derivation
# --------------------------------------------------------------------------------------------


def test_numpy_generator_keys_from_four_raw_words_and_advances():
    g = np.random.default_rng(123)
    twin = copy.deepcopy(g)
    words = twin.bit_generator.random_raw(4)
    key = b"".join(int(w).to_bytes(8, "little") for w in words)
    derived = as_generator(g)
    assert derived.seeded  # a numpy generator counts as a seed
    assert derived.random_raw(5) == chacha20_words(key, 5)
    # g advanced by exactly four raw words: the next call gets the next key.
    assert g.bit_generator.random_raw() == twin.bit_generator.random_raw()
    assert as_generator(np.random.default_rng(123)).random_raw(2) == chacha20_words(key, 2)


def test_other_bit_generators_work_too():
    g = np.random.Generator(np.random.Philox(7))
    twin = copy.deepcopy(g)
    key = b"".join(int(w).to_bytes(8, "little") for w in twin.bit_generator.random_raw(4))
    assert as_generator(g).random_raw(3) == chacha20_words(key, 3)


def test_seed_sequence_keys_from_generate_state_and_repeats():
    ss = np.random.SeedSequence(2024)
    words = ss.generate_state(8, dtype=np.uint32)
    key = b"".join(int(w).to_bytes(4, "little") for w in words)
    first = as_generator(ss)
    assert first.seeded
    assert first.random_raw(4) == chacha20_words(key, 4)
    # A seed sequence is not advanced: the same one gives the same stream, like an int seed.
    assert as_generator(ss).random_raw(4) == chacha20_words(key, 4)
    spawned = ss.spawn(1)[0]
    assert as_generator(spawned).random_raw(1) != chacha20_words(key, 1)


def test_random_state_keys_from_four_uint64_and_advances():
    rs = np.random.RandomState(5)
    twin = copy.deepcopy(rs)
    words = twin.randint(0, 2**64, size=4, dtype=np.uint64)
    key = b"".join(int(w).to_bytes(8, "little") for w in words)
    assert as_generator(rs).random_raw(2) == chacha20_words(key, 2)
    assert rs.randint(0, 2**32) == twin.randint(0, 2**32)


@pytest.mark.parametrize(
    "bad", [True, np.bool_(False), 1.5, "0", [1, 2], object(), np.float64(3.0), -1, 2**64]
)
def test_bad_rng_values_name_rng(bad):
    for call in (
        lambda: as_generator(bad),
        lambda: laplace(0.0, 1.0, 1.0, rng=bad),
        lambda: GF2Matrix.random(2, 2, rng=bad),
    ):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.parameter == "rng"
        assert str(info.value).startswith("rng:")


def test_mechanism_semantics():
    """A numpy generator advances between calls (like a shared Generator); a seed sequence
    repeats (like an integer seed); the same numpy state reproduces the same noise."""
    scores = np.arange(50.0)
    g = np.random.default_rng(9)
    draws = [exponential(scores, 0.05, rng=g) for _ in range(20)]
    assert len(set(draws)) > 1
    g2 = np.random.default_rng(9)
    assert draws == [exponential(scores, 0.05, rng=g2) for _ in range(20)]
    ss = np.random.SeedSequence(3)
    assert len({laplace(0.0, 1.0, 1.0, rng=ss) for _ in range(5)}) == 1
    assert gaussian(np.zeros(3), 1.0, 1.0, 1e-6, rng=ss).tolist() == (
        gaussian(np.zeros(3), 1.0, 1.0, 1e-6, rng=np.random.SeedSequence(3)).tolist()
    )


# --------------------------------------------------------------------------------------------
# Every release of the replay registries
# --------------------------------------------------------------------------------------------

REGISTRY: List[Entry] = (
    list(replay_main.REGISTRY)
    + list(test_replay_adassp.ENTRIES)
    + list(test_replay_logistic.ENTRIES)
    + list(test_replay_tukey_boosted.ENTRIES)
)


def _state(g: np.random.Generator) -> Any:
    return g.bit_generator.state["state"]


def _same_run(entry: Entry, a: Any, b: Any) -> None:
    assert a.error == b.error
    if entry.expect_error:
        assert a.error is not None
        return
    assert a.error is None, f"{entry.name}: {a.error}"
    assert a.ledger == b.ledger
    shape_of = entry.structure or structure
    assert shape_of(a.value) == shape_of(b.value)
    if entry.release is not None:
        ra = np.asarray(entry.release(a.value), dtype=np.float64)
        rb = np.asarray(entry.release(b.value), dtype=np.float64)
        np.testing.assert_array_equal(ra, rb)


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.name)
def test_every_release_takes_numpy_rng(entry: Entry) -> None:
    _, data, _ = entry.pairs()[0]
    g = np.random.default_rng(11)
    before = _state(g)
    first = run_once(entry, data, g)
    if first.calls:  # a release that samples (a few entries are noise-free parts)
        assert _state(g) != before, f"{entry.name}: the numpy generator was not drawn from"
    _same_run(entry, first, run_once(entry, data, np.random.default_rng(11)))
    ss = np.random.SeedSequence(11)
    _same_run(entry, run_once(entry, data, ss), run_once(entry, data, ss))
    model = first.value
    if first.error is None and hasattr(model, "get_params") and "rng" in model.get_params():
        refit_clone(model, data, g)


def refit_clone(model: Any, data: Any, g: np.random.Generator) -> None:
    """A clone of a fitted estimator refits with the numpy generator. Every privlearn estimator
    (``SharedCloneMixin``: the learners, and since issue 20 the ERM, multi-concept and
    prediction estimators too; ``tests/test_clone.py``) shares ``rng`` and ``accountant`` with
    its clones, as with an integer or a privlearn Generator: the clone draws from ``g`` again.
    A registry entry that fit on a view of ``data`` (the first column) is refitted on that
    view. Another estimator uses scikit-learn's default clone, which deep-copies the generator:
    the copy continues from ``g``'s state."""
    if isinstance(model, SharedCloneMixin):
        twin = clone(model)
        params = twin.get_params()
        assert params["rng"] is g
        if "accountant" in params:
            assert params["accountant"] is model.get_params()["accountant"]
            twin.set_params(accountant=None)
        X, *rest = data
        n_in = getattr(model, "n_features_in_", None)
        if n_in is not None and np.ndim(X) == 2 and np.shape(X)[1] > n_in:
            X = np.asarray(X)[:, :n_in]
        before = _state(g)
        twin.fit(X, *rest)
        assert _state(g) != before
        return
    model.set_params(accountant=None)
    twin = clone(model)
    assert isinstance(twin.get_params()["rng"], np.random.Generator)
    assert _state(twin.get_params()["rng"]) == _state(g)


# --------------------------------------------------------------------------------------------
# Entry points outside the registries
# --------------------------------------------------------------------------------------------

_BITS = np.random.default_rng(0).integers(0, 2, size=(40, 4)).astype(np.uint8)
_LINE_X = np.linspace(0.0, 1.0, 30)[:, None]
_LINE_Y = (_LINE_X[:, 0] >= 0.5).astype(int)
_REG_X = np.random.default_rng(1).uniform(-0.5, 0.5, size=(30, 2))
_REG_Y = _REG_X @ np.array([0.5, -0.3])


def _trial(task: int, seed: int) -> Tuple[int, int]:
    return task, seed


OTHER: List[Tuple[str, Callable[[Any], Any]]] = [
    ("datasets.sample_points", lambda r: sample_points(Thresholds(), 5, rng=r)),
    ("datasets.random_concept", lambda r: repr(random_concept(Thresholds(), rng=r))),
    ("datasets.make_concept_sample", lambda r: make_concept_sample(Thresholds(), 6, rng=r).X),
    ("attacks.TardosCode", lambda r: TardosCode(6, 2, 0.1, rng=r).codewords),
    ("attacks.BonehShawCode", lambda r: BonehShawCode(4, 0.2, rng=r).codewords),
    (
        "attacks.pirate",
        lambda r: pirate(TardosCode(6, 2, 0.1, rng=5), [0, 1], "random", rng=r),
    ),
    ("gf2.GF2Matrix.random", lambda r: GF2Matrix.random(5, 70, rng=r).to_numpy()),
    (
        "learners.rls_out",
        lambda r: rls_out(
            _REG_X, _REG_Y, 1.0, alpha=0.5, radius=2.0, data_norm=1.0, label_bound=1.0, rng=r
        ),
    ),
    (
        "multi.StableParityLearner.learn_columns",
        lambda r: [
            repr(h)
            for h in StableParityLearner(4).learn_columns(
                _BITS, _BITS[:, :2] ^ _BITS[:, 2:], 2.0, 1e-3, r
            )
        ],
    ),
    (
        "multi.StablePointLearner.learn_columns",
        lambda r: [
            repr(h) for h in StablePointLearner().learn_columns(_BITS, _BITS[:, :2], 2.0, 1e-3, r)
        ],
    ),
    ("query_release.relabel", lambda r: relabel(_LINE_X, _LINE_Y, Thresholds(), rng=r)),
    ("experiments.run_trials", lambda r: run_trials(_trial, [0, 1, 2], seed=r, progress=False)),
    ("random.spawn_seeds", lambda r: spawn_seeds(r, 3)),
]


def _canon(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tolist())
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    return value


@pytest.mark.parametrize("name, call", OTHER, ids=[name for name, _ in OTHER])
def test_other_entry_points_take_numpy_rng(name: str, call: Callable[[Any], Any]) -> None:
    g = np.random.default_rng(21)
    before = _state(g)
    out = call(g)
    assert _state(g) != before, name
    assert _canon(out) == _canon(call(np.random.default_rng(21)))
    ss = np.random.SeedSequence(21)
    assert _canon(call(ss)) == _canon(call(ss))
    call(np.random.RandomState(21))


def test_audit_drives_privlearn_mechanisms_directly():
    """audit passes numpy generators to the callables; privlearn's mechanisms take them as rng
    (no seed plumbing). A correct Laplace passes at its claim and fails a claim 40% too low."""

    def run(value: float) -> Callable[..., np.ndarray]:
        def draw(g: np.random.Generator, size: int) -> np.ndarray:
            return np.asarray(laplace(np.full(size, value), 1.0, 1.0, rng=g))

        return draw

    ok = audit_mod.audit(run(0.0), run(1.0), Budget(1.0), n=100_000, alpha=1e-6, rng=0)
    assert ok.passed
    low = audit_mod.audit(run(0.0), run(1.0), Budget(0.6), n=100_000, alpha=1e-6, rng=0)
    assert not low.passed

    def single(value: float) -> Callable[[np.random.Generator], int]:
        return lambda g: exponential([value, 0.0], 1.0, rng=g)

    res = audit_mod.audit(single(0.0), single(1.0), Budget(1.0), n=20_000, alpha=1e-6, rng=1)
    assert res.passed


def test_estimator_tags_follow_the_rng_kind():
    from privlearn.learners import OutputPerturbationRegressor

    def tags(rng: Any) -> bool:
        est = OutputPerturbationRegressor(1.0, data_norm=1.0, label_bound=1.0, rng=rng)
        return est.__sklearn_tags__().non_deterministic

    assert not tags(0) and not tags(np.random.SeedSequence(0))
    assert tags(None) and tags(np.random.default_rng(0)) and tags(Generator(0))
