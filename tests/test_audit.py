"""privlearn.audit: the epsilon lower bound, audits of correct and broken mechanisms (positive
controls), and the distribution-test helpers.

Audits of mechanisms run at ``alpha = 1e-6``: by construction of the Clopper-Pearson bound, a
correct mechanism fails with probability at most 1e-6. Neighbouring inputs are chosen so that
every broken variant's bound clears its claim by a wide margin (see ``CONTROLS``), so the
verdicts are reliable as well as reproducible (fixed seeds).
"""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError, dataclass

import numpy as np
import pytest
from scipy import stats

from dp_controls import laplace, report_noisy_max, svt
from privlearn.audit import (
    FALSE_POSITIVE_RATE,
    AuditResult,
    Event,
    audit,
    chi_square_pvalue,
    epsilon_lower_bound,
    ks_pvalue,
    power_check,
)
from privlearn.errors import InvalidParameterError
from privlearn.mechanisms import exponential
from privlearn.random import Generator

N = 1_000_000
ALPHA = 1e-6


def _em(scores, epsilon, numerics):
    """privlearn's exponential mechanism as a vectorised sampler."""

    def run(g, size):
        return exponential(
            scores, epsilon, size=size, rng=int(g.integers(2**63)), numerics=numerics
        )

    return run


def _last_value(y):
    """iSVT4 statistic: the released value when only the last query is positive, else +1e9."""
    only_last = (y[:, :-1] == -1000.0).all(axis=1) & (y[:, -1] > -1000.0)
    return np.where(only_last, y[:, -1], 1e9)


# --------------------------------------------------------------------------------------------
# Positive controls and their correct counterparts, on the same neighbouring inputs.
# (id, run_a, run_b, claimed epsilon, statistic, is the mechanism correct?)
# --------------------------------------------------------------------------------------------

RNM_A, RNM_B = [0, 3, 3, 3], [1, 2, 2, 2]  # every score moves by 1, in opposite directions
SVT_CASES = [
    # (id, queries a, queries b, epsilon, c, threshold, broken variant, correct variant, statistic)
    ("isvt1-no-query-noise", [0, 1], [1, 0], 1.0, 1, 0.5, "isvt1", "above_threshold", None),
    (
        "isvt2-not-halting",
        [1] * 5 + [0] * 5,
        [0] * 5 + [1] * 5,
        1.0,
        1,
        0.5,
        "isvt2",
        "above_threshold",
        None,
    ),
    (
        "isvt3-noise-not-scaled-with-c",
        [0, 0, 1] * 2,
        [1, 1, 0] * 2,
        1.0,
        2,
        0.5,
        "isvt3",
        "svt1",
        None,
    ),
    (
        "isvt4-releases-noisy-value",
        [0, 0, 0, 0, 1],
        [1, 1, 1, 1, 0],
        1.0,
        1,
        0.0,
        "isvt4",
        "above_threshold",
        _last_value,
    ),
    (
        "refresh-threshold-budget-not-split",
        [0, 1] * 4,
        [1, 0] * 4,
        2.0,
        4,
        0.5,
        "svt_refresh_unsplit",
        "svt2",
        None,
    ),
    (
        "reuse-threshold-noise-c1-scales",
        [0, 0, 1] * 4,
        [1, 1, 0] * 4,
        2.0,
        4,
        0.5,
        "svt_reuse_threshold",
        "svt1",
        None,
    ),
]

CONTROLS = [
    ("laplace", laplace(0.0, 1.0), laplace(1.0, 1.0), 1.0, None, True),
    ("laplace-scale-20%-small", laplace(0.0, 1.0, 0.8), laplace(1.0, 1.0, 0.8), 1.0, None, False),
    (
        "noisy-max-lap(2/eps)",
        report_noisy_max(RNM_A, 1.0, 2.0),
        report_noisy_max(RNM_B, 1.0, 2.0),
        1.0,
        None,
        True,
    ),
    (
        "noisy-max-half-noise",
        report_noisy_max(RNM_A, 1.0, 1.0),
        report_noisy_max(RNM_B, 1.0, 1.0),
        1.0,
        None,
        False,
    ),
    ("exponential-exact", _em(RNM_A, 1.0, "exact"), _em(RNM_B, 1.0, "exact"), 1.0, None, True),
    ("exponential-fast", _em(RNM_A, 1.0, "fast"), _em(RNM_B, 1.0, "fast"), 1.0, None, True),
    # forgetting the factor 2 in exp(eps u / (2 Delta)) = calling the mechanism with 2 epsilon
    (
        "exponential-exact-no-factor-2",
        _em(RNM_A, 2.0, "exact"),
        _em(RNM_B, 2.0, "exact"),
        1.0,
        None,
        False,
    ),
    (
        "exponential-fast-no-factor-2",
        _em(RNM_A, 2.0, "fast"),
        _em(RNM_B, 2.0, "fast"),
        1.0,
        None,
        False,
    ),
]
for _id, _qa, _qb, _eps, _c, _t, _broken, _correct, _stat in SVT_CASES:
    CONTROLS.append(
        (
            f"svt-{_id}-correct-{_correct}",
            svt(_qa, _eps, _t, _correct, _c),
            svt(_qb, _eps, _t, _correct, _c),
            _eps,
            None,
            True,
        )
    )
    CONTROLS.append(
        (
            f"svt-{_id}",
            svt(_qa, _eps, _t, _broken, _c),
            svt(_qb, _eps, _t, _broken, _c),
            _eps,
            _stat,
            False,
        )
    )


def _run_control(control, seed):
    name, run_a, run_b, eps, statistic, correct = control
    return audit(run_a, run_b, eps, n=N, statistic=statistic, alpha=ALPHA, rng=seed)


@pytest.mark.parametrize("control", CONTROLS, ids=[c[0] for c in CONTROLS])
def test_correct_mechanisms_pass_and_broken_ones_fail(control):
    name, _, _, eps, _, correct = control
    result = _run_control(control, seed=2024)
    print(f"{name}: {result}")
    assert isinstance(result, AuditResult)
    assert result.n == N and result.alpha == ALPHA and result.claimed_epsilon == eps
    if correct:
        assert result.passed, f"{name}: a correct mechanism failed its audit: {result}"
    else:
        assert not result.passed, f"{name}: the broken variant was not caught: {result}"
        # caught with a wide margin, so the verdict does not hinge on the seed
        assert result.bound > 1.1 * eps, result
        assert result.event is not None and result.event.bound == result.bound


@pytest.mark.slow
@pytest.mark.parametrize("control", CONTROLS, ids=[c[0] for c in CONTROLS])
def test_verdicts_are_stable_across_seeds(control):
    name, _, _, eps, _, correct = control
    for seed in (1, 2):
        result = _run_control(control, seed)
        assert result.passed == correct, f"{name} (seed {seed}): {result}"


def test_audits_are_tight_for_correct_mechanisms():
    # Tightness (anchors section 3.3: within 1-2% for Laplace-type mechanisms at N = 1e6).
    res = audit(laplace(0.0, 1.0), laplace(1.0, 1.0), 1.0, n=N, alpha=1e-3, rng=3)
    assert 0.97 <= res.bound <= 1.0, res
    # The exponential mechanism on these neighbours has privacy loss ln(2.437) = 0.891 exactly.
    p_a = 1 / (1 + 3 * math.exp(1.5))
    p_b = math.exp(0.5) / (math.exp(0.5) + 3 * math.exp(1.0))
    loss = math.log(p_b / p_a)
    res = audit(_em(RNM_A, 1.0, "exact"), _em(RNM_B, 1.0, "exact"), 1.0, n=N, alpha=1e-3, rng=4)
    assert loss - 0.05 <= res.bound <= loss, (res, loss)
    assert (
        res.event is not None and res.event.description == "x == 0" and res.event.numerator == "b"
    )


# --------------------------------------------------------------------------------------------
# epsilon_lower_bound: validity (never above the truth but with probability alpha), tightness
# --------------------------------------------------------------------------------------------


def _rr(g, n, eps, bit):
    """Randomized response on one bit: keeps it with probability e^eps / (1 + e^eps)."""
    keep = g.random(n) < math.exp(eps) / (1 + math.exp(eps))
    return np.where(keep, bit, 1 - bit)


@pytest.mark.parametrize("kind", ["laplace", "randomized-response"])
def test_bound_exceeds_the_true_epsilon_at_most_alpha_of_the_time(kind):
    # At a large alpha the failure rate is measurable: 300 independent bounds at alpha = 0.3
    # exceed the true epsilon (= 1) at most about 30% of the time (Clopper-Pearson with Bonferroni
    # is conservative, so far less in practice).
    trials, alpha, exceed = 300, 0.3, 0
    for seed in range(trials):
        g = np.random.default_rng(seed)
        if kind == "laplace":
            a, b = g.laplace(0, 1, 4000), g.laplace(1, 1, 4000)
        else:
            a, b = _rr(g, 4000, 1.0, 1), _rr(g, 4000, 1.0, 0)
        exceed += epsilon_lower_bound(a, b, alpha=alpha) > 1.0
    assert exceed <= stats.binom.ppf(1 - 1e-6, trials, alpha)
    assert exceed <= 0.05 * trials  # conservative in practice


@pytest.mark.parametrize("kind", ["real", "integers", "strings", "rows"])
def test_identical_laws_give_zero_no_double_dipping(kind):
    # Same law on both sides: epsilon = 0, so any positive bound is a false positive. Choosing
    # events on the samples used for the bound (double dipping) would make these common.
    positives = 0
    for seed in range(60):
        g = np.random.default_rng(seed)
        if kind == "real":
            a, b = g.standard_cauchy(3000), g.standard_cauchy(3000)
        elif kind == "integers":
            a, b = g.integers(0, 60, 3000), g.integers(0, 60, 3000)
        elif kind == "strings":
            labels = np.array([f"v{i}" for i in range(40)])
            a, b = labels[g.integers(0, 40, 3000)], labels[g.integers(0, 40, 3000)]
        else:
            a, b = g.integers(0, 2, (3000, 6)), g.integers(0, 2, (3000, 6))
        positives += epsilon_lower_bound(a, b, alpha=0.05) > 0
    assert positives <= stats.binom.ppf(1 - 1e-6, 60, 0.05)
    assert positives <= 3


def test_laplace_bound_is_tight_at_a_million_samples():
    g = np.random.default_rng(11)
    a, b = g.laplace(0.0, 1.0, N), g.laplace(1.0, 1.0, N)
    assert 0.97 <= epsilon_lower_bound(a, b) <= 1.0
    # a 20%-too-small scale (true epsilon 1.25) is caught with the same samples' budget
    a2, b2 = g.laplace(0.0, 0.8, N), g.laplace(1.0, 0.8, N)
    assert 1.2 <= epsilon_lower_bound(a2, b2) <= 1.25


def test_discrete_outputs_every_representation():
    g = np.random.default_rng(12)
    n = 200_000
    a, b = _rr(g, n, 1.0, 1), _rr(g, n, 1.0, 0)
    ints = epsilon_lower_bound(a, b)
    assert 0.95 <= ints <= 1.0
    assert 0.95 <= epsilon_lower_bound(a.astype(bool), b.astype(bool)) <= 1.0
    assert 0.95 <= epsilon_lower_bound(a.astype(float), b.astype(float)) <= 1.0
    words = np.array(["no", "yes"])
    assert 0.95 <= epsilon_lower_bound(words[a], words[b]) <= 1.0
    # vectors of integers: each distinct row is one output
    rows_a = np.stack([a, np.zeros(n, dtype=int)], axis=1)
    rows_b = np.stack([b, np.zeros(n, dtype=int)], axis=1)
    assert 0.95 <= epsilon_lower_bound(rows_a, rows_b) <= 1.0
    # ragged tuples (e.g. a sparse-vector transcript that halts early)
    ta = [(0,) * int(v + 1) for v in a[:20_000]]
    tb = [(0,) * int(v + 1) for v in b[:20_000]]
    assert 0.8 <= epsilon_lower_bound(ta, tb) <= 1.0
    # unequal sample sizes
    assert 0.9 <= epsilon_lower_bound(a, b[: n // 3]) <= 1.0


def test_disjoint_supports_give_a_large_finite_bound():
    a = np.zeros(100_000, dtype=int)
    b = np.ones(100_000, dtype=int)
    bound = epsilon_lower_bound(a, b)
    # p_a(0) >= ~1, p_b(0) <= ln(4 * 8 / alpha) / n: bound ~ ln(n / 10)
    assert 8.0 < bound < 12.0


def test_delta_is_subtracted():
    # The Gaussian mechanism (sigma = sensitivity = 1) is (1, delta_1)-DP exactly at
    # delta_1 = Phi(-1/2) - e Phi(-3/2) (Balle-Wang 2018), and not (eps, 0)-DP for any eps.
    delta_1 = stats.norm.cdf(-0.5) - math.e * stats.norm.cdf(-1.5)
    g = np.random.default_rng(13)
    a, b = g.normal(0, 1, N), g.normal(1, 1, N)
    assert epsilon_lower_bound(a, b, alpha=1e-6) > 2.0
    at_delta = epsilon_lower_bound(a, b, alpha=1e-6, delta=delta_1)
    assert 0.9 <= at_delta <= 1.0
    res_ok = audit(
        lambda g, size: g.normal(0, 1, size),
        lambda g, size: g.normal(1, 1, size),
        (1.0, delta_1),
        n=N,
        alpha=1e-6,
        rng=1,
    )
    assert res_ok.passed and res_ok.claimed_delta == delta_1
    res_bad = audit(
        lambda g, size: g.normal(0, 1, size),
        lambda g, size: g.normal(1, 1, size),
        (1.0, 0.0),
        n=N,
        alpha=1e-6,
        rng=1,
    )
    assert not res_bad.passed


def test_nothing_significant_gives_zero():
    assert epsilon_lower_bound([0.1, 0.2, 0.3], [0.4, 0.5, 0.6]) == 0.0
    assert epsilon_lower_bound([1.0], [2.0]) == 0.0
    assert epsilon_lower_bound(np.ones(1000), np.ones(1000)) == 0.0


# --------------------------------------------------------------------------------------------
# Explicit event families
# --------------------------------------------------------------------------------------------


def _cp_bound(k_num, n_num, k_den, n_den, a):
    lo = stats.beta.ppf(a, k_num, n_num - k_num + 1) if k_num > 0 else 0.0
    hi = stats.beta.ppf(1 - a, k_den + 1, n_den - k_den) if k_den < n_den else 1.0
    return math.log(lo / hi) if lo > 0 else -math.inf


def test_explicit_thresholds_follow_the_documented_formula():
    g = np.random.default_rng(14)
    n = 100_000
    a, b = g.laplace(0, 1, n), g.laplace(1, 1, n)
    thresholds = [0.0, 1.0]
    alpha = 1e-3
    got = epsilon_lower_bound(a, b, alpha=alpha, events=thresholds)
    # 2 events, each with its complement in both directions: 4 one-sided bounds per event
    level = alpha / (4 * len(thresholds))
    want = 0.0
    for t in thresholds:
        ka, kb = int((a <= t).sum()), int((b <= t).sum())
        want = max(
            want,
            _cp_bound(ka, n, kb, n, level),
            _cp_bound(kb, n, ka, n, level),
            _cp_bound(n - ka, n, n - kb, n, level),
            _cp_bound(n - kb, n, n - ka, n, level),
        )
    assert got == pytest.approx(want, rel=1e-7)
    assert 0.93 < got <= 1.0


def test_explicit_callable_events():
    g = np.random.default_rng(15)
    a, b = g.laplace(0, 1, 100_000), g.laplace(1, 1, 100_000)
    one = epsilon_lower_bound(a, b, events=[lambda x: x <= 0.0])
    two = epsilon_lower_bound(a, b, events=[lambda x: x <= 0.0, lambda x: x > 1.0])
    matrix = epsilon_lower_bound(a, b, events=lambda x: np.stack([x <= 0.0, x > 1.0], axis=1))
    assert 0.93 < one <= 1.0 and 0.93 < two <= 1.0
    assert matrix == two  # the same family, vectorised
    assert two < one  # a larger family pays a larger Bonferroni correction on the same event


def test_audit_reports_the_event_with_consistent_counts():
    res = audit(laplace(0.0, 1.0, 0.5), laplace(1.0, 1.0, 0.5), 1.0, n=200_000, rng=5)
    ev = res.event
    assert isinstance(ev, Event)
    assert not res.passed and ev.bound == res.bound
    assert ev.n_a == ev.n_b == 180_000  # 10% held out to choose the events
    assert ev.numerator in ("a", "b")
    num, den = (ev.count_a, ev.count_b) if ev.numerator == "a" else (ev.count_b, ev.count_a)
    assert math.log(num / den) > res.bound  # the point estimate is above the lower bound
    assert "x" in ev.description and str(ev).startswith(ev.description)
    assert "FAILED" in str(res) and "epsilon >=" in str(res)


# --------------------------------------------------------------------------------------------
# audit: sampling forms, rng, claims, statistics
# --------------------------------------------------------------------------------------------


def test_scalar_and_vectorised_sampling_forms():
    calls = {"scalar": 0, "vector": 0}

    def scalar(g):
        calls["scalar"] += 1
        return g.laplace()

    def vector(g, size):
        calls["vector"] += 1
        return 1.0 + g.laplace(size=size)

    res = audit(scalar, vector, 1.0, n=5000, rng=1)
    assert calls == {"scalar": 5000, "vector": 1}
    assert res.passed

    def optional(g, size=None):
        calls["optional"] = calls.get("optional", 0) + 1
        return g.laplace(size=size)

    audit(optional, optional, 1.0, n=300, rng=1, vectorized=False)
    assert calls["optional"] == 600  # forced one output per call
    audit(optional, optional, 1.0, n=300, rng=1)
    assert calls["optional"] == 602  # detected from the size parameter


def test_seeded_audits_are_reproducible_and_accept_generators():
    run_a, run_b = laplace(0.0, 1.0), laplace(1.0, 1.0)
    r1 = audit(run_a, run_b, 1.0, n=50_000, rng=77)
    r2 = audit(run_a, run_b, 1.0, n=50_000, rng=77)
    r3 = audit(run_a, run_b, 1.0, n=50_000, rng=Generator(77))
    r4 = audit(run_a, run_b, 1.0, n=50_000, rng=78)
    assert r1 == r2 == r3
    assert r4.bound != r1.bound
    # the two sides get independent streams
    seen = []
    audit(
        lambda g, size: seen.append(g.random()) or np.zeros(size),
        lambda g, size: seen.append(g.random()) or np.zeros(size),
        1.0,
        n=10,
        rng=3,
    )
    assert seen[0] != seen[1]
    # rng=None works (OS entropy)
    assert audit(run_a, run_b, 1.0, n=1000).n == 1000


@dataclass(frozen=True)
class _BudgetLike:
    epsilon: float
    delta: float = 0.0


def test_claims_budget_tuple_or_number():
    run_a, run_b = laplace(0.0, 1.0), laplace(1.0, 1.0)
    for claim in (1.0, 1, (1.0, 0.0), _BudgetLike(1.0)):
        res = audit(run_a, run_b, claim, n=20_000, rng=9)
        assert res.claimed_epsilon == 1.0 and res.claimed_delta == 0.0 and res.passed
    res = audit(run_a, run_b, _BudgetLike(0.5, 1e-9), n=200_000, rng=9)
    assert res.claimed_delta == 1e-9 and not res.passed
    with pytest.raises(FrozenInstanceError):
        res.bound = 0.0  # type: ignore[misc]


def test_statistics_and_vector_outputs():
    def vec(shift):
        return lambda g, size: shift + g.laplace(0, 1, size=(size, 3))

    res = audit(vec(0.0), vec(1.0 / 3), 1.0, n=100_000, statistic=lambda y: y.sum(axis=1), rng=2)
    assert res.passed
    with pytest.raises(InvalidParameterError) as err:
        audit(vec(0.0), vec(1.0), 1.0, n=1000, rng=2)
    assert err.value.parameter == "statistic"
    with pytest.raises(InvalidParameterError) as err:
        audit(vec(0.0), vec(1.0), 1.0, n=1000, statistic=lambda y: y[:10, 0], rng=2)
    assert err.value.parameter == "statistic"
    # integer vectors default to discrete values (each distinct vector is one output)
    res = audit(
        svt([0, 1], 1.0, 0.5, "isvt1"), svt([1, 0], 1.0, 0.5, "isvt1"), 1.0, n=20_000, rng=2
    )
    assert not res.passed and res.event is not None and "(" in res.event.description


def test_transcripts_of_variable_length_from_scalar_calls():
    # AboveThreshold called one output at a time, returning the transcript up to the halt.
    def above_threshold(queries, eps=1.0, t=0.5):
        def run(g):
            rho = g.laplace(0, 2 / eps)
            out = []
            for q in queries:
                hit = q + g.laplace(0, 4 / eps) >= t + rho
                out.append(bool(hit))
                if hit:
                    break
            return out

        return run

    res = audit(above_threshold([0, 0, 1]), above_threshold([1, 1, 0]), 1.0, n=30_000, rng=4)
    assert res.passed and res.event is not None


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "param,kwargs",
    [
        ("samples_a", dict(samples_a=[], samples_b=[1.0])),
        ("samples_b", dict(samples_a=[1.0], samples_b=[np.nan])),
        ("samples_a", dict(samples_a=3.0, samples_b=[1.0])),
        ("samples_a", dict(samples_a=np.zeros((5, 2)), samples_b=np.zeros((5, 2)))),
        ("samples_b", dict(samples_a=np.zeros(5), samples_b=np.zeros((5, 2), dtype=int))),
        (
            "samples_a",
            dict(
                samples_a=np.zeros((5, 2, 2), dtype=int), samples_b=np.zeros((5, 2, 2), dtype=int)
            ),
        ),
        ("samples_a", dict(samples_a=np.ones(4, dtype=complex), samples_b=np.ones(4))),
        ("alpha", dict(samples_a=[1.0], samples_b=[1.0], alpha=0.0)),
        ("alpha", dict(samples_a=[1.0], samples_b=[1.0], alpha=1.0)),
        ("alpha", dict(samples_a=[1.0], samples_b=[1.0], alpha=True)),
        ("delta", dict(samples_a=[1.0], samples_b=[1.0], delta=-0.1)),
        ("delta", dict(samples_a=[1.0], samples_b=[1.0], delta=1.0)),
        ("events", dict(samples_a=[1.0], samples_b=[1.0], events="thresholds")),
        ("events", dict(samples_a=[1.0], samples_b=[1.0], events=[])),
        ("events", dict(samples_a=[1.0], samples_b=[1.0], events=["a"])),
        (
            "events",
            dict(samples_a=[1.0], samples_b=[1.0], events=lambda x: np.zeros(7, dtype=bool)),
        ),
        ("events", dict(samples_a=[1.0], samples_b=[1.0], events=lambda x: x)),
    ],
)
def test_epsilon_lower_bound_errors(param, kwargs):
    with pytest.raises(InvalidParameterError) as err:
        epsilon_lower_bound(**kwargs)
    assert err.value.parameter == param
    assert str(err.value).startswith(param + ":")


def _never(g, size=None):
    raise AssertionError("nothing may be drawn on invalid parameters")


@pytest.mark.parametrize(
    "param,kwargs",
    [
        ("claimed", dict(claimed="1")),
        ("claimed", dict(claimed=-1.0)),
        ("claimed", dict(claimed=(1.0, 1.5))),
        ("claimed", dict(claimed=math.inf)),
        ("claimed", dict(claimed=_BudgetLike(1.0, -0.5))),
        ("n", dict(claimed=1.0, n=1)),
        ("n", dict(claimed=1.0, n=10.0)),
        ("alpha", dict(claimed=1.0, alpha=2.0)),
        ("statistic", dict(claimed=1.0, statistic=3)),
        ("events", dict(claimed=1.0, events="all")),
        ("rng", dict(claimed=1.0, rng=-1)),
        ("rng", dict(claimed=1.0, rng=1.5)),  # numpy generators are accepted (issue 20)
    ],
)
def test_audit_errors_draw_nothing(param, kwargs):
    with pytest.raises(InvalidParameterError) as err:
        audit(_never, _never, **kwargs)
    assert err.value.parameter == param


def test_audit_rejects_samplers_returning_the_wrong_count():
    with pytest.raises(InvalidParameterError) as err:
        audit(lambda g, size: np.zeros(size - 1), lambda g, size: np.zeros(size), 1.0, n=100, rng=1)
    assert err.value.parameter == "run_a"
    with pytest.raises(InvalidParameterError) as err:
        audit(lambda g: 0.0, "not callable", 1.0, n=100, rng=1)  # type: ignore[arg-type]
    assert err.value.parameter == "run_b"


# --------------------------------------------------------------------------------------------
# Distribution tests
# --------------------------------------------------------------------------------------------


def test_false_positive_rate_constant():
    assert FALSE_POSITIVE_RATE == 1e-6


def test_chi_square_matches_scipy_without_pooling():
    g = np.random.default_rng(20)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    counts = np.bincount(g.choice(4, 10_000, p=probs), minlength=4)
    want = stats.chisquare(counts, probs * counts.sum()).pvalue
    assert chi_square_pvalue(counts, probs) == pytest.approx(want, rel=1e-12)
    assert chi_square_pvalue(counts, 10 * probs) == pytest.approx(want, rel=1e-12)  # weights


def test_chi_square_pools_small_categories():
    # expected counts 50, 45, 3, 2: the last two pool into one category of 5
    counts = [52, 43, 1, 4]
    probs = [0.5, 0.45, 0.03, 0.02]
    want = stats.chisquare([52, 43, 5], [50, 45, 5]).pvalue
    assert chi_square_pvalue(counts, probs) == pytest.approx(want, rel=1e-12)
    # a pool below 5 merges into the smallest kept category: expected 60, 38, 2
    counts = [61, 36, 3]
    want = stats.chisquare([61, 39], [60, 40]).pvalue
    assert chi_square_pvalue(counts, [0.6, 0.38, 0.02]) == pytest.approx(want, rel=1e-12)
    # an outcome of probability zero is an outright rejection; one category is vacuous
    assert chi_square_pvalue([5, 1], [1.0, 0.0]) == 0.0
    assert chi_square_pvalue([7], [1.0]) == 1.0


@pytest.mark.parametrize(
    "param,counts,probs",
    [
        ("probs", [1, 2], [0.5, 0.25, 0.25]),
        ("counts", [1, -2], [0.5, 0.5]),
        ("probs", [1, 2], [0.0, 0.0]),
        ("probs", [1, 2], [np.nan, 1.0]),
    ],
)
def test_chi_square_errors(param, counts, probs):
    with pytest.raises(InvalidParameterError) as err:
        chi_square_pvalue(counts, probs)
    assert err.value.parameter == param


def test_ks_with_power_check_on_laplace_and_exponential():
    g = np.random.default_rng(21)
    x = g.laplace(0.0, 2.0, 50_000)
    check = power_check(lambda f: ks_pvalue(x, stats.laplace(scale=2.0 * f)))
    assert check.passed and check.fits and check.detects, check
    assert [f for f, _ in check.off_pvalues] == [0.7, 1.3]
    # a plain callable CDF works too
    e = g.exponential(0.5, 20_000)
    assert power_check(lambda f: ks_pvalue(e, lambda t: stats.expon.cdf(t, scale=0.5 * f))).passed


def test_power_check_reports_missing_power_and_wrong_laws():
    g = np.random.default_rng(22)
    few = g.laplace(0.0, 1.0, 40)  # too few samples to see a 30% error
    weak = power_check(lambda f: ks_pvalue(few, stats.laplace(scale=f)))
    assert weak.fits and not weak.detects and not weak.passed
    assert "no power" in str(weak)
    wrong = power_check(lambda f: ks_pvalue(g.normal(size=20_000), stats.laplace(scale=f)))
    assert not wrong.fits and not wrong.passed
    assert "rejects the exact law" in str(wrong)
    with pytest.raises(InvalidParameterError):
        power_check(lambda f: 1.0, off=1.5)
    with pytest.raises(InvalidParameterError):
        power_check(3.0)  # type: ignore[arg-type]


def test_ks_errors():
    with pytest.raises(InvalidParameterError) as err:
        ks_pvalue(np.zeros((3, 3)), stats.norm)
    assert err.value.parameter == "samples"
    with pytest.raises(InvalidParameterError) as err:
        ks_pvalue([0.0, np.nan], stats.norm)
    assert err.value.parameter == "samples"
    with pytest.raises(InvalidParameterError) as err:
        ks_pvalue([0.0, 1.0], "norm")
    assert err.value.parameter == "cdf"


def test_stats_helpers_delegate_to_privlearn_audit():
    import stats_helpers

    counts, probs = [52, 43, 1, 4], [0.5, 0.45, 0.03, 0.02]
    assert stats_helpers.chi_square_pvalue(counts, probs) == chi_square_pvalue(counts, probs)
    assert stats_helpers.ALPHA == FALSE_POSITIVE_RATE
    x = np.random.default_rng(23).laplace(0.0, 1.0, 20_000)
    stats_helpers.assert_ks_fits(x, stats.laplace)
    stats_helpers.assert_ks_rejects(x, stats.laplace(scale=1.3))
    stats_helpers.assert_power_check(lambda f: ks_pvalue(x, stats.laplace(scale=f)))
