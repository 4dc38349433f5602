"""privlearn.attacks: fingerprinting codes (API, parameters, determinism, errors, the laws of
the biases, bits and innocent scores, pirate strategies and the marking assumption, the
Boneh–Shaw structure).

The guarantees (false-accusation and miss rates) are tested by experiment in
``test_fingerprinting.py``. Distribution tests here use a fixed seed, false-positive rate
``ALPHA = 1e-6``, and a power check: the same data must be rejected by the same test against a
law that is off (a 30%-off shape or scale, or a deliberately broken score).
"""

from __future__ import annotations

import doctest
import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import privlearn.attacks as A
import privlearn.attacks.codes as codes_module
from privlearn.attacks import (
    PIRATE_STRATEGIES,
    BonehShawCode,
    TardosCode,
    boneh_shaw_parameters,
    is_feasible,
    pirate,
    tardos_parameters,
)
from privlearn.errors import InvalidParameterError
from privlearn.random import Generator
from stats_helpers import ALPHA, assert_ks_fits, assert_power_check

Z_CRIT = stats.norm.isf(ALPHA / 2)  # two-sided z test at level ALPHA


# --------------------------------------------------------------------------------------------
# Documentation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [A, codes_module])
def test_doctests_and_docstrings(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name


def test_docstrings_define_the_rates_and_cite_the_sources():
    doc = inspect.getdoc(TardosCode)
    assert "*any* innocent" in doc and "ε1 = ξ/n" in doc
    params_doc = inspect.getdoc(tardos_parameters)
    assert "Tardos" in params_doc and "Škorić" in params_doc and "Reconstructed" in params_doc
    assert "ε1^(c/4)" in params_doc
    bs_doc = inspect.getdoc(BonehShawCode)
    assert "Boneh and Shaw" in bs_doc and "Lemma 4.5" in bs_doc


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


def test_tardos_constants():
    p = tardos_parameters(100, 5, 1e-3, variant="tardos")
    assert p.per_user_false_accusation == pytest.approx(1e-5)
    assert p.kappa == math.ceil(math.log(1e5)) == 12
    assert p.length == 100 * 25 * 12
    assert p.certified_threshold == 20 * 5 * 12
    assert 0 < p.threshold - p.certified_threshold < 1e-6
    assert p.cutoff == pytest.approx(1 / 1500)
    assert p.miss_rate == pytest.approx(1e-5**1.25, rel=1e-12)


def test_per_user_rate_for_small_n_follows_the_errata():
    # ERRATA 002-13: n < 4 uses min(ξ/n, ξ^(4/c)), and κ from that ε1; the miss rate is <= ξ.
    for n, c, xi in [(2, 2, 0.1), (3, 3, 0.1), (3, 1, 0.2), (1, 1, 0.5)]:
        p = tardos_parameters(n, c, xi, variant="tardos")
        e1 = min(xi / n, xi ** (4 / c))
        assert p.per_user_false_accusation == pytest.approx(e1, rel=1e-12)
        assert p.kappa == math.ceil(math.log(1 / e1))
        assert p.miss_rate <= xi * (1 + 1e-9)
    assert tardos_parameters(4, 4, 0.1).per_user_false_accusation == pytest.approx(0.025)


def test_symmetric_length_is_about_eleven_c_squared_ln():
    for c in (2, 5, 10):
        sym = tardos_parameters(1000, c, 1e-3)
        orig = tardos_parameters(1000, c, 1e-3, variant="tardos")
        ratio = sym.length / (c * c * math.log(1 / sym.per_user_false_accusation))
        assert 10.5 < ratio < 15, ratio
        assert sym.length < orig.length / 6
        assert sym.miss_rate == pytest.approx(orig.miss_rate, rel=1e-9)


def test_lengths_grow_with_users_coalition_and_security():
    base = tardos_parameters(100, 4, 1e-2)
    assert tardos_parameters(1000, 4, 1e-2).length > base.length
    assert tardos_parameters(100, 8, 1e-2).length > base.length
    assert tardos_parameters(100, 4, 1e-4).length > base.length
    b = boneh_shaw_parameters(8, 0.1)
    assert (b.repetitions, b.length) == (650, 9 * 650)  # the seed 002 note's R = 650
    assert b.log_term >= math.log(160)
    assert boneh_shaw_parameters(9, 0.1).length > b.length
    assert boneh_shaw_parameters(8, 0.01).length > b.length


def test_given_length_certifies_threshold_and_miss_rate():
    full = tardos_parameters(40, 5, 0.2)
    short = tardos_parameters(40, 5, 0.2, length=int(full.length * 0.8))
    assert short.length_given and not full.length_given
    assert full.miss_rate < short.miss_rate < 1.0
    assert short.certified_threshold < full.certified_threshold
    assert tardos_parameters(40, 5, 0.2, length=5).miss_rate == 1.0
    t = tardos_parameters(40, 5, 0.2, variant="tardos", length=full.length)
    assert t.miss_rate <= 1.0 and t.certified_threshold > 0


# --------------------------------------------------------------------------------------------
# Determinism, seeds, the packed layout
# --------------------------------------------------------------------------------------------


def test_same_seed_same_code():
    a, b, c = (TardosCode(70, 3, 0.1, rng=s) for s in (5, 5, 6))
    assert np.array_equal(a.packed_codewords, b.packed_codewords)
    assert np.array_equal(a.biases, b.biases)
    assert not np.array_equal(a.packed_codewords, c.packed_codewords)
    x = BonehShawCode(5, 0.1, rng=1).column_types
    assert np.array_equal(x, BonehShawCode(5, 0.1, rng=1).column_types)
    assert not np.array_equal(x, BonehShawCode(5, 0.1, rng=2).column_types)


def test_golden_code_of_seed_42():
    # The same values are asserted by rust/core/tests/golden.rs: the same seed gives the same
    # code from Python and from Rust.
    code = TardosCode(10, 2, 0.1, rng=42)
    assert code.length == 210
    assert code.biases[:3].tolist() == [0.37841847062342016, 0.7887481895705585, 0.7821482613510357]
    assert code.packed_codewords[:3, 0].tolist() == [
        807771702136404374,
        842604230535602102,
        16877742304114308023,
    ]


def test_shared_generator_advances_and_none_is_fresh():
    g = Generator(3)
    a = TardosCode(20, 2, 0.1, rng=g)
    b = TardosCode(20, 2, 0.1, rng=g)
    assert not np.array_equal(a.packed_codewords, b.packed_codewords)
    assert np.array_equal(TardosCode(20, 2, 0.1, rng=Generator(3)).biases, a.biases)
    u = TardosCode(20, 2, 0.1)
    v = TardosCode(20, 2, 0.1)
    assert not np.array_equal(u.biases, v.biases)


def test_codewords_views_agree():
    code = TardosCode(130, 3, 0.1, length=200, rng=1)
    cw = code.codewords
    assert cw.shape == (130, 200) and cw.dtype == bool
    packed = code.packed_codewords
    assert packed.shape == (130, 4) and packed.dtype == np.uint64
    # Element j of a row is bit j % 64 of word j // 64; padding bits are zero.
    j = np.arange(200)
    bits = (packed[:, j // 64] >> (j % 64).astype(np.uint64)) & np.uint64(1)
    assert np.array_equal(bits.astype(bool), cw)
    assert np.all(packed[:, 3] >> np.uint64(8) == 0)
    assert np.array_equal(code.codewords_of([7, 0, 129]), cw[[7, 0, 129]])


# --------------------------------------------------------------------------------------------
# Errors (clear, named, raised before anything is drawn)
# --------------------------------------------------------------------------------------------


def _assert_error(parameter, fn, *args, **kwargs):
    with pytest.raises(InvalidParameterError) as info:
        fn(*args, **kwargs)
    assert info.value.parameter == parameter, str(info.value)
    assert str(info.value).startswith(parameter)


def test_bad_code_parameters():
    _assert_error("coalition_size", TardosCode, 5, 6)
    _assert_error("coalition_size", TardosCode, 5, 0)
    _assert_error("n_users", TardosCode, 0, 1)
    _assert_error("n_users", TardosCode, 2.5, 1)
    _assert_error("n_users", TardosCode, True, 1)
    for bad in (0.0, 1.0, -0.5, 1.5, float("nan"), float("inf"), "0.1", True):
        _assert_error("false_accusation", TardosCode, 10, 2, bad)
        _assert_error("false_accusation", BonehShawCode, 10, bad)
    _assert_error("variant", TardosCode, 10, 2, variant="skoric")
    _assert_error("length", TardosCode, 10, 2, length=0)
    _assert_error("length", TardosCode, 10, 2, length=10.0)
    _assert_error("n_users", BonehShawCode, 0, 0.1)
    _assert_error("n_users", BonehShawCode, 100_000, 0.1)  # > 2**40 positions
    _assert_error("rng", TardosCode, 10, 2, rng="seed")


def test_bad_words_and_coalitions():
    code = TardosCode(30, 3, 0.1, rng=0)
    m = code.length
    _assert_error("word", code.trace, np.zeros(m + 1))
    _assert_error("word", code.scores, np.zeros(m - 1))
    _assert_error("word", code.trace, np.zeros((2, m)))
    _assert_error("word", code.trace, np.full(m, 2))
    _assert_error("word", code.trace, np.full(m, 0.5))
    _assert_error("word", code.trace, np.full(m, np.nan))
    _assert_error("word", code.trace, np.array(["a"] * m))
    _assert_error("threshold", code.trace, np.zeros(m), threshold=float("nan"))
    bs = BonehShawCode(4, 0.1, rng=0)
    _assert_error("word", bs.trace, np.zeros(bs.length - 1))
    _assert_error("strategy", pirate, code, [1, 2], "median")
    _assert_error("coalition", pirate, code, [], "majority")
    _assert_error("coalition", pirate, code, [0, 30], "majority")
    _assert_error("coalition", pirate, code, [-1], "majority")
    _assert_error("coalition", pirate, code, [3, 3], "majority")
    _assert_error("coalition", pirate, code, [True, False], "majority")
    _assert_error("codewords", pirate, np.zeros(5), [0], "majority")
    _assert_error("codewords", pirate, np.full((3, 4), 3), [0], "majority")
    _assert_error("word", is_feasible, np.zeros(5), np.zeros((2, 4)))
    _assert_error("coalition_codewords", is_feasible, np.zeros(4), np.full((2, 4), 0.5))


def test_errors_draw_nothing():
    g = Generator(11)
    with pytest.raises(InvalidParameterError):
        TardosCode(5, 6, 0.1, rng=g)
    with pytest.raises(InvalidParameterError):
        BonehShawCode(5, 2.0, rng=g)
    code = TardosCode(10, 2, 0.1, rng=0)
    with pytest.raises(InvalidParameterError):
        pirate(code, [0, 1], "nope", rng=g)
    assert g.random_raw() == Generator(11).random_raw()


def test_integer_like_arguments_are_accepted():
    code = TardosCode(np.int64(12), np.int32(2), np.float32(0.25), length=np.uint16(100), rng=1)
    assert (code.n_users, code.coalition_size, code.length) == (12, 2, 100)
    word = pirate(code, np.array([1, 5]), "random", rng=2)
    assert code.trace(word.astype(np.uint8)).dtype == np.int64
    assert np.array_equal(code.scores(word.astype(float)), code.scores(word))


# --------------------------------------------------------------------------------------------
# The laws of the biases, the bits and the innocent scores
# --------------------------------------------------------------------------------------------


def _truncated_beta_cdf(a, t):
    lo, hi = stats.beta.cdf([t, 1 - t], a, a)
    return lambda p: (stats.beta.cdf(p, a, a) - lo) / (hi - lo)


@pytest.mark.parametrize("coalition", [1, 7])
def test_biases_follow_the_truncated_arcsine_law(coalition):
    code = TardosCode(coalition, coalition, 0.5, variant="tardos", length=100_000, rng=coalition)
    p = code.biases
    t = code.cutoff
    assert t == pytest.approx(1 / (300 * coalition))
    assert p.min() >= t and p.max() <= 1 - t
    t0 = math.asin(math.sqrt(t))
    exact = lambda x: (np.arcsin(np.sqrt(x)) - t0) / (math.pi / 2 - 2 * t0)  # noqa: E731
    assert_ks_fits(p, exact, "biases")
    # The arcsine law is Beta(1/2, 1/2): the same samples must reject a 30%-off shape.
    assert_power_check(lambda f: stats.kstest(p, _truncated_beta_cdf(0.5 * f, t)).pvalue, "biases")


def test_bits_follow_the_biases():
    n = 3000
    code = TardosCode(n, 2, 0.5, length=400, rng=4)
    ones = code.codewords.sum(axis=0)
    p = code.biases

    def pvalue(q):
        x2 = np.sum((ones - n * q) ** 2 / (n * q * (1 - q)))
        return stats.chi2.sf(x2, df=len(q))

    assert pvalue(p) > ALPHA
    assert pvalue(np.clip(1.3 * p, 0, 0.999)) < ALPHA
    assert pvalue(0.7 * p) < ALPHA


def _reference_scores(code, word, variant, biases=None):
    p = code.biases if biases is None else biases
    x = code.codewords.astype(float)
    u = (x - p) / np.sqrt(p * (1 - p))
    y = np.asarray(word, dtype=float)
    g = 2 * y - 1 if variant == "symmetric" else y
    return u @ g


@pytest.mark.parametrize("variant", ["symmetric", "tardos"])
def test_scores_match_the_definition(variant):
    code = TardosCode(300, 4, 0.1, variant=variant, length=3000, rng=8)
    word = pirate(code, [1, 2, 3], "interleave", rng=3)
    got = code.scores(word)
    want = _reference_scores(code, word, variant)
    assert np.max(np.abs(got - want)) <= code.parameters.score_error + 1e-9 * np.max(np.abs(want))
    assert code.parameters.score_error < 1e-6
    accused = code.trace(word)
    assert np.array_equal(accused, np.flatnonzero(got > code.threshold))
    assert len(code.trace(word, threshold=-np.inf)) == 300
    assert len(code.trace(word, threshold=np.inf)) == 0


@pytest.mark.parametrize("variant", ["symmetric", "tardos"])
def test_innocent_scores_have_mean_zero_and_the_right_variance(variant):
    # Given the biases and a word independent of the codewords, innocent scores are i.i.d. with
    # mean 0 and variance m (symmetric) or |y|_1 (Tardos): z tests on the mean and on E[S^2].
    n = 4000
    code = TardosCode(n, 5, 0.1, variant=variant, length=2000, rng=12)
    word = (np.array(Generator(5).random_raw(2000), dtype=np.uint64) & np.uint64(1)) == 1
    var = 2000 if variant == "symmetric" else int(word.sum())

    def z_mean(s):
        return abs(s.mean()) / math.sqrt(var / n)

    def z_var(s, v):
        sq = s * s
        return abs(sq.mean() - v) / (sq.std() / math.sqrt(n))

    s = code.scores(word)
    assert z_mean(s) < Z_CRIT and z_var(s, var) < Z_CRIT
    # Power: a score that centres with the wrong bias (30% off) fails the mean test, and the
    # variance test rejects a variance 30% off.
    broken = _reference_scores(code, word, variant, biases=np.clip(0.7 * code.biases, 1e-4, 1))
    assert z_mean(broken) > Z_CRIT
    assert z_var(s, 1.3 * var) > Z_CRIT and z_var(s, 0.7 * var) > Z_CRIT


# --------------------------------------------------------------------------------------------
# Pirates and the marking assumption
# --------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 9),
    m=st.integers(1, 150),
    seed=st.integers(0, 2**32),
    strategy=st.sampled_from(PIRATE_STRATEGIES),
    data=st.data(),
)
def test_every_strategy_obeys_the_marking_assumption(n, m, seed, strategy, data):
    rng = np.random.default_rng(seed)
    cw = rng.random((n, m)) < rng.random(m)
    members = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    word = pirate(cw, members, strategy, rng=seed)
    assert word.shape == (m,) and word.dtype == bool
    assert is_feasible(word, cw[members])
    # Marked positions carry the common bit; a word that flips one of them is infeasible.
    sub = cw[members]
    marked = np.flatnonzero(sub.all(axis=0) | ~sub.any(axis=0))
    if marked.size:
        bad = word.copy()
        bad[marked[0]] ^= True
        assert not is_feasible(bad, sub)
    # Any word that is free only on the unmarked positions is feasible (seed 002 note §7.1 #7).
    free = ~(sub.all(axis=0) | ~sub.any(axis=0))
    other = np.where(free, rng.random(m) < 0.5, sub[0])
    assert is_feasible(other, sub)


def test_strategies_do_what_they_say():
    cw = np.array([[1, 1, 1, 0, 1], [1, 0, 1, 0, 0], [0, 0, 1, 0, 1]], dtype=bool)
    # Position 0: two ones of three; 1: one of three; 2: 1-marked; 3: 0-marked; 4: two of three.
    assert pirate(cw, [0, 1, 2], "majority").tolist() == [1, 0, 1, 0, 1]
    assert pirate(cw, [0, 1, 2], "minority").tolist() == [0, 1, 1, 0, 0]
    assert pirate(cw, [0, 1, 2], "all-zeros-where-free").tolist() == [0, 0, 1, 0, 0]
    assert pirate(cw, [0, 1, 2], "all-ones-where-free").tolist() == [1, 1, 1, 0, 1]
    # Interleave copies a member at every position; random is a coin on free positions.
    words = np.array([pirate(cw, [0, 1, 2], "interleave", rng=s) for s in range(200)])
    assert np.all(words[:, 2]) and not np.any(words[:, 3])
    assert 0.2 < words[:, 1].mean() < 0.5  # one member of three has a 1
    coins = np.array([pirate(cw, [0, 1], "random", rng=s) for s in range(200)])
    assert 0.35 < coins[:, 1].mean() < 0.65 and np.all(coins[:, 0])
    # Ties (two members disagreeing) are broken by a fair coin, reproducibly.
    ties = np.array([pirate(cw, [0, 1], "majority", rng=s)[1] for s in range(200)])
    assert 0.35 < ties.mean() < 0.65
    assert np.array_equal(
        pirate(cw, [0, 1], "majority", rng=9), pirate(cw, [0, 1], "majority", rng=9)
    )


def test_pirate_on_codes_equals_pirate_on_their_codewords():
    code = TardosCode(50, 4, 0.1, rng=2)
    bs = BonehShawCode(5, 0.2, rng=2)
    for c, members in ((code, [3, 9, 49]), (bs, [0, 4])):
        for s in PIRATE_STRATEGIES:
            a = pirate(c, members, s, rng=5)
            b = pirate(c.codewords, members, s, rng=5)
            assert np.array_equal(a, b)
            assert is_feasible(a, c.codewords_of(members))


def test_a_lone_pirate_is_traced():
    code = TardosCode(100, 3, 0.05, rng=4)
    for u in (0, 42, 99):
        for s in PIRATE_STRATEGIES:
            assert code.trace(pirate(code, [u], s)).tolist() == [u]


# --------------------------------------------------------------------------------------------
# Boneh–Shaw structure
# --------------------------------------------------------------------------------------------


def test_boneh_shaw_structure_and_compatibility_with_thresholds():
    code = BonehShawCode(7, 0.2, rng=3)
    types = code.column_types
    assert np.array_equal(np.bincount(types, minlength=8), np.full(8, code.repetitions))
    cw = code.codewords
    # Every column is the threshold labelling c_t(x) = 1[x <= t] of the users x = 1..n.
    users = np.arange(1, 8)[:, None]
    assert np.array_equal(cw, users <= types[None, :])
    # Rows are nested (monotone in the user index).
    assert np.all(cw[:-1] >= cw[1:])
    assert np.array_equal(code.codewords_of([6, 2]), cw[[6, 2]])
    word = pirate(code, [2, 3], "majority", rng=1)
    counts = code.counts(word)
    assert counts.sum() == word.sum() and counts[0] == 0 and counts[-1] == code.repetitions


def test_boneh_shaw_traces_every_feasible_word():
    # Completeness is deterministic: every feasible word accuses a member, every time.
    g = Generator(7)
    pick = np.random.default_rng(7)
    for trial in range(30):
        code = BonehShawCode(6, 0.2, rng=g)
        members = sorted(pick.choice(6, size=1 + trial % 6, replace=False).tolist())
        for s in PIRATE_STRATEGIES:
            accused = code.trace(pirate(code, members, s, rng=g)).tolist()
            assert accused and set(accused) <= set(members), (s, members, accused)
