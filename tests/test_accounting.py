"""privlearn.accounting: budgets, the accountant, composition, amplification, group privacy.

Three kinds of oracle, as the anchors note (section 3.1) recommends for accountants:

* golden values computed by hand from the theorems (closed forms at special parameters);
* an independent high-precision computation with mpmath (80 digits) that evaluates each
  theorem's formula as printed (KOV's sum over l with mpmath binomials, no recurrence), over a
  grid, with the rule that privlearn's value is never below the oracle's and above it by at
  most a relative 1e-12;
* Google's dp_accounting (PLD accountant) where the definitions coincide, with the tolerances
  stated in each test.

Then hypothesis properties (monotonicity, the orderings that hold between bounds) and the
Accountant's behaviour (overspend refused with the state unchanged, transactions, children,
threads).
"""

from __future__ import annotations

import doctest
import math
import pickle
import threading
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import privlearn
from privlearn import accounting
from privlearn.accounting import (
    Accountant,
    Budget,
    LedgerEntry,
    amplify_by_subsampling,
    compose_advanced,
    compose_basic,
    compose_optimal,
    group_privacy,
)
from privlearn.errors import BudgetExceededError, InvalidParameterError, PrivlearnError

DPS = 80


# ============================================================================================
# Independent mpmath oracles (the theorems' formulas as printed)
# ============================================================================================


def kov_delta_i(eps, k, i, lo=0):
    """KOV Theorem 3.3's delta_i = sum_{l<i} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k.

    Terms l < lo are left out (only used with lo where they are below 1e-60 of the sum).
    """
    with mp.workdps(DPS):
        e = mp.mpf(eps)
        log_norm = k * mp.log1p(mp.exp(e))
        total = mp.fsum(
            mp.exp(mp.log(mp.binomial(k, l)) - log_norm)
            * (mp.exp((k - l) * e) - mp.exp((k - 2 * i + l) * e))
            for l in range(lo, i)
        )
        return total


def kov_hockey(eps, k, i, lo=0):
    """(A_i, B_i) with delta(eps~) = A_i - e^{eps~} B_i for eps~ in [(k-2i) eps, (k-2i+2) eps]."""
    with mp.workdps(DPS):
        e = mp.mpf(eps)
        log_norm = k * mp.log1p(mp.exp(e))
        a = mp.fsum(
            mp.exp(mp.log(mp.binomial(k, l)) + (k - l) * e - log_norm) for l in range(lo, i)
        )
        b = mp.fsum(mp.exp(mp.log(mp.binomial(k, l)) + l * e - log_norm) for l in range(lo, i))
        return a, b


def kov_oracle(eps, k, ds, lo=0):
    """Smallest eps~ >= 0 with delta_pure(eps~) <= ds (KOV's region, exact in between)."""
    with mp.workdps(DPS):
        ds = mp.mpf(ds)
        top = (k + 1) // 2
        # smallest i with delta(at (k - 2i) eps) > ds, by bisection (delta grows with i)

        def delta_at(i):
            if 2 * i <= k:
                return kov_delta_i(eps, k, i, lo)
            a, b = kov_hockey(eps, k, i, lo)  # k odd, i = (k+1)/2: value at eps~ = 0
            return a - b

        if delta_at(top) <= ds:
            return mp.mpf(0)
        lo_i, hi_i = 0, top  # delta_at(lo_i) <= ds < delta_at(hi_i)
        while hi_i - lo_i > 1:
            mid = (lo_i + hi_i) // 2
            if delta_at(mid) > ds:
                hi_i = mid
            else:
                lo_i = mid
        a, b = kov_hockey(eps, k, hi_i, lo)
        return max(mp.mpf(0), mp.log((a - ds) / b))


def assert_up(ours, truth, rel=1e-12, what=""):
    """ours >= truth (never under-reports) and ours - truth <= rel * max(1, truth)."""
    with mp.workdps(DPS):  # compare at full precision (mp.mpf would round to the current one)
        truth = mp.mpf(truth)
        assert mp.mpf(ours) >= truth, f"{what}: {ours!r} is below the true value {truth}"
        assert mp.mpf(ours) - truth <= rel * max(1, abs(truth)), f"{what}: {ours!r} vs {truth}"


# ============================================================================================
# Budget
# ============================================================================================


@pytest.mark.parametrize(
    "kwargs, parameter, fragment",
    [
        ({"epsilon": -0.1}, "epsilon", ">= 0"),
        ({"epsilon": float("nan")}, "epsilon", "finite"),
        ({"epsilon": float("inf")}, "epsilon", "finite"),
        ({"epsilon": "1"}, "epsilon", "finite number >= 0"),
        ({"epsilon": True}, "epsilon", "of type bool"),
        ({"epsilon": None}, "epsilon", "must be given"),
        ({"epsilon": Fraction(1, 3)}, "epsilon", "exactly representable"),
        ({"epsilon": 1.0, "delta": -1e-9}, "delta", "[0, 1)"),
        ({"epsilon": 1.0, "delta": 1.0}, "delta", "[0, 1)"),
        ({"epsilon": 1.0, "delta": float("nan")}, "delta", "[0, 1)"),
        ({"epsilon": 1.0, "delta": 2}, "delta", "[0, 1)"),
    ],
)
def test_budget_validation(kwargs, parameter, fragment):
    with pytest.raises(InvalidParameterError) as info:
        Budget(**kwargs)
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, PrivlearnError)
    assert err.parameter == parameter
    message = str(err)
    assert message.startswith(parameter + ":")
    assert fragment in message
    assert "got" in message  # states the value received


def test_budget_accepts_numbers():
    np = pytest.importorskip("numpy")
    assert Budget(1) == Budget(1.0)
    assert Budget(np.float64(0.5), np.float32(0.25)) == Budget(0.5, 0.25)
    assert Budget(np.int64(2)) == Budget(2.0)
    assert Budget(Fraction(1, 4)) == Budget(0.25)
    assert Budget(0.0).delta == 0.0
    assert math.copysign(1.0, Budget(-0.0).epsilon) == 1.0  # -0.0 normalised


def test_budget_immutable_hashable_picklable():
    b = Budget(0.5, 1e-6)
    with pytest.raises(AttributeError):
        b.epsilon = 1.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        b._epsilon = 1.0  # type: ignore[misc]
    assert hash(b) == hash(Budget(0.5, 1e-6))
    assert len({b, Budget(0.5, 1e-6), Budget(0.5)}) == 2
    assert pickle.loads(pickle.dumps(b)) == b
    assert eval(repr(b), {"Budget": Budget}) == b
    assert repr(Budget(1.0)) == "Budget(epsilon=1.0, delta=0.0)"


def test_budget_equality_is_exact_and_order_is_partial():
    a, b = Budget(1.0, 0.0), Budget(0.5, 1e-6)
    assert Budget(0.1) != Budget(0.1 + 1e-17 * 10)
    assert a != b and not (a <= b) and not (b <= a) and not (a < b) and not (a > b)
    assert Budget(0.5) <= Budget(0.5) and not (Budget(0.5) < Budget(0.5))
    assert Budget(0.5) < Budget(0.5, 1e-9) < Budget(1.0, 1e-9)
    assert Budget(1.0, 1e-9) > Budget(0.5) and Budget(1.0, 1e-9) >= Budget(1.0, 1e-9)
    assert (Budget(1.0) == 1.0) is False
    with pytest.raises(TypeError):
        _ = Budget(1.0) <= 1.0  # type: ignore[operator]


def test_budget_arithmetic_rounds_safely():
    assert Budget(0.5) + Budget(0.25, 1e-6) == Budget(0.75, 1e-6)
    assert 3 * Budget(0.5, 1e-6) == Budget(0.5, 1e-6) * 3 == Budget(1.5, 3e-6)
    assert 0 * Budget(0.5, 1e-6) == Budget(0.0)
    # float 0.1 is a little more than 1/10: ten of them exceed 1.0, and the sum says so
    ten = 10 * Budget(0.1)
    assert ten.epsilon > 1.0 and Fraction(ten.epsilon) >= 10 * Fraction(0.1)
    assert compose_basic([Budget(0.1)] * 10) == ten
    # division rounds down so that k parts never exceed the whole
    part = Budget(1.0, 1e-6) / 10
    assert part.epsilon == 0.09999999999999999
    assert 10 * Fraction(part.epsilon) <= 1 and 10 * Fraction(part.delta) <= Fraction(1e-6)
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 0"):
        _ = -1 * Budget(1.0)
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 1"):
        _ = Budget(1.0) / 0
    with pytest.raises(TypeError):
        _ = 1.5 * Budget(1.0)  # type: ignore[operator]
    with pytest.raises(InvalidParameterError, match=r"delta .* >= 1, a vacuous guarantee"):
        _ = Budget(1.0, 0.6) + Budget(1.0, 0.6)


@settings(max_examples=200, deadline=None)
@given(
    e=st.floats(0, 1e6, allow_subnormal=False),
    d=st.floats(0, 0.999, allow_subnormal=False),
    e2=st.floats(0, 1e6, allow_subnormal=False),
    k=st.integers(1, 10**6),
)
def test_budget_arithmetic_properties(e, d, e2, k):
    a, b = Budget(e, d / 2), Budget(e2, d / 2)
    s = a + b
    assert s >= a and s >= b and s == b + a
    assert Fraction(s.epsilon) >= Fraction(e) + Fraction(e2)
    part = a / k
    assert k * Fraction(part.epsilon) <= Fraction(a.epsilon)
    assert k * Fraction(part.delta) <= Fraction(a.delta)
    # k parts, composed exactly, fit in the whole: what the Accountant checks
    assert part <= a


# ============================================================================================
# Composition: golden values
# ============================================================================================


def test_compose_basic_golden_and_errors():
    assert compose_basic([]) == Budget(0.0)
    assert compose_basic([Budget(0.5), Budget(0.25, 1e-6), Budget(0.25, 1e-6)]) == Budget(1.0, 2e-6)
    assert compose_basic(iter([Budget(2.0)] * 3)) == Budget(6.0)
    with pytest.raises(InvalidParameterError, match=r"^budgets: must be a privlearn"):
        compose_basic([Budget(1.0), (1.0, 0.0)])  # type: ignore[list-item]
    with pytest.raises(InvalidParameterError, match=r"^budgets: .*vacuous"):
        compose_basic([Budget(0.0, 0.5), Budget(0.0, 0.5)])


def test_compose_advanced_golden():
    # sqrt(2 * 100 * ln(1e6)) * 0.1 + 100 * 0.1 * (e^0.1 - 1), by hand: 5.25653 + 1.05171
    b = compose_advanced(Budget(0.1, 1e-8), 100, 1e-6)
    assert b.epsilon == pytest.approx(6.308230950513409, rel=1e-15)
    assert b.delta == pytest.approx(100 * 1e-8 + 1e-6, rel=1e-15)
    assert compose_advanced(Budget(0.0), 10**6, 0.5) == Budget(0.0, 0.5)
    with pytest.raises(InvalidParameterError, match=r"^delta_slack: must be in \(0, 1\)"):
        compose_advanced(Budget(0.1), 10, 0.0)
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 1; got 0"):
        compose_advanced(Budget(0.1), 0, 1e-6)
    with pytest.raises(InvalidParameterError, match=r"^k: .*vacuous"):
        compose_advanced(Budget(0.1, 0.1), 10, 1e-6)


def test_compose_optimal_golden_k1_k2():
    """Closed forms for one and two mechanisms, from the theorem by hand.

    k = 1: delta(eps~) = (e^eps - e^eps~) / (1 + e^eps), so eps~ = ln(e^eps - s (1 + e^eps)).
    k = 2: delta_1 = tanh(eps/2) (at eps~ = 0), and for s < delta_1
           delta(eps~) = (e^{2 eps} - e^{eps~}) / (1 + e^eps)^2, eps~ = ln(e^{2eps} - s(1+e^eps)^2).
    """
    for eps in (0.1, 1.0, 3.0):
        for s in (1e-9, 1e-3, 0.05):
            with mp.workdps(DPS):
                e, sm = mp.mpf(eps), mp.mpf(s)
                want1 = max(0, mp.log(mp.exp(e) - sm * (1 + mp.exp(e))))
                want2 = max(0, mp.log(mp.exp(2 * e) - sm * (1 + mp.exp(e)) ** 2))
            one = compose_optimal(Budget(eps), 1, s).epsilon
            assert_up(one, want1, what="k=1")
            if s < math.tanh(eps / 2):
                two = compose_optimal(Budget(eps), 2, s).epsilon
                assert_up(two, want2, what="k=2")
        # at delta_slack >= tanh(eps/2) two eps-DP mechanisms are (0, delta_slack)-DP
        assert compose_optimal(Budget(eps), 2, math.tanh(eps / 2) * (1 + 1e-12)).epsilon == 0.0
    # delta_slack = 0 is basic composition; epsilon = 0 stays 0
    assert compose_optimal(Budget(0.5), 7, 0.0) == Budget(3.5)
    assert compose_optimal(Budget(0.0, 1e-3), 5, 0.25).epsilon == 0.0
    # total delta 1 - (1 - delta)^k (1 - s)
    b = compose_optimal(Budget(0.5, 1e-3), 5, 0.25)
    assert b.delta == pytest.approx(1 - (1 - 1e-3) ** 5 * 0.75, rel=1e-14)
    assert Fraction(b.delta) >= 1 - (1 - Fraction(1e-3)) ** 5 * (1 - Fraction(0.25))


def test_compose_optimal_hits_the_theorem_breakpoints():
    """At delta_slack = delta_i the optimum is exactly (k - 2i) eps (Theorem 3.3's points)."""
    eps, k = 0.5, 10
    for i in range(1, 6):
        d_i = kov_delta_i(eps, k, i)
        s = float(d_i)
        got = compose_optimal(Budget(eps), k, s).epsilon
        assert got == pytest.approx((k - 2 * i) * eps, abs=1e-12)


def test_compose_optimal_errors():
    with pytest.raises(
        InvalidParameterError, match=r"^delta_slack: must be a finite number in \[0, 1\)"
    ):
        compose_optimal(Budget(0.1), 10, 1.0)
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 1"):
        compose_optimal(Budget(0.1), 2.0, 0.1)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"^budget: must be a privlearn"):
        compose_optimal(0.1, 2, 0.1)  # type: ignore[arg-type]


# ============================================================================================
# Composition: against the mpmath oracle
# ============================================================================================


@pytest.mark.parametrize("eps", [0.001, 0.05, 0.5, 1.0, 3.0])
def test_compose_optimal_matches_mpmath(eps):
    for k in (1, 2, 3, 10, 51, 200):
        for s in (1e-12, 1e-6, 1e-3, 0.2, 0.7):
            for delta in (0.0, 1e-7):
                got = compose_optimal(Budget(eps, delta), k, s)
                assert_up(got.epsilon, kov_oracle(eps, k, s), what=f"eps={eps} k={k} s={s}")
                with mp.workdps(DPS):
                    total = 1 - (1 - mp.mpf(delta)) ** k * (1 - mp.mpf(s))
                assert_up(got.delta, total, rel=1e-15, what="total delta")


def test_oracle_comparison_has_power():
    """The comparison used above rejects an epsilon under-reported by a relative 1e-12, one
    over-reported by 1e-9, and a total delta that forgets the (1 - delta)^k factor's cross
    terms (reporting 1 - (1 - delta)^k alone)."""
    eps, k, s = 0.1, 100, 1e-6
    truth = kov_oracle(eps, k, s)
    good = compose_optimal(Budget(eps, 1e-4), k, s)
    assert_up(good.epsilon, truth)
    with pytest.raises(AssertionError):
        assert_up(good.epsilon * (1 - 1e-12), truth)
    with pytest.raises(AssertionError):
        assert_up(good.epsilon * (1 + 1e-9), truth)
    with mp.workdps(DPS):
        total = 1 - (1 - mp.mpf(1e-4)) ** k * (1 - mp.mpf(s))
    assert_up(good.delta, total, rel=1e-15)
    with pytest.raises(AssertionError):
        assert_up(1 - (1 - 1e-4) ** k, total, rel=1e-15)


@pytest.mark.parametrize(
    "eps, k, s", [(0.01, 20000, 1e-6), (0.002, 30001, 1e-10), (0.2, 5000, 1e-3)]
)
def test_compose_optimal_matches_mpmath_large_k(eps, k, s):
    """Large k: the oracle still sums the theorem's terms with mpmath binomials, starting where
    they fall below e^-70 of the largest term (privlearn uses a recurrence from a Stirling anchor)."""
    with mp.workdps(DPS):
        e = mp.mpf(eps)
        p = 1 / (1 + mp.exp(e))
        mean, sd = k * p, mp.sqrt(k * p * (1 - p))
        lo = max(0, int(mean - 12 * sd))  # terms below: < e^-70 of the peak
    assert_up(compose_optimal(Budget(eps), k, s).epsilon, kov_oracle(eps, k, s, lo=lo))


def test_compose_optimal_huge_k_is_fast_and_sane():
    """k = 10^9: no overflow, and within the CLT picture (mean k eps tanh(eps/2), sd sqrt(k) eps)."""
    eps, k, s = 0.001, 10**9, 1e-9
    got = compose_optimal(Budget(eps), k, s).epsilon
    mean = k * eps * math.tanh(eps / 2)
    sd = math.sqrt(k) * eps
    assert mean + 3 * sd < got < mean + 7 * sd
    assert got < compose_advanced(Budget(eps), k, s).epsilon


def test_compose_advanced_matches_mpmath():
    for eps in (1e-4, 0.01, 0.3, 2.0):
        for k in (1, 7, 1000, 10**7):
            for s in (1e-15, 1e-5, 0.3):
                with mp.workdps(DPS):
                    e = mp.mpf(eps)
                    truth = mp.sqrt(2 * k * mp.log(1 / mp.mpf(s))) * e + k * e * mp.expm1(e)
                assert_up(compose_advanced(Budget(eps, 1e-12), k, s).epsilon, truth, rel=1e-14)


# ============================================================================================
# Composition: against Google's dp_accounting
# ============================================================================================


@pytest.fixture
def dp_accounting():
    """Google's dp_accounting: only the tests that ask for it are skipped without it."""
    return pytest.importorskip("dp_accounting")


@pytest.mark.parametrize(
    "eps, delta, k, s",
    [(0.1, 0.0, 100, 1e-6), (0.5, 1e-7, 20, 1e-5), (1.0, 0.0, 10, 1e-3), (0.05, 1e-8, 300, 1e-6)],
)
def test_compose_optimal_agrees_with_dp_accounting_pld(eps, delta, k, s, dp_accounting):
    """dp_accounting's `from_privacy_parameters` builds the PLD of the worst-case
    (eps, delta)-DP pair (mass delta at +inf, +-eps otherwise); composing it k times and asking
    `get_epsilon_for_delta(total delta)` is exactly KOV's question. Compared: the epsilons,
    absolute tolerance 1e-7 (observed: <= 8e-10; the PLD's own float sums are the limit)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    ours = compose_optimal(Budget(eps, delta), k, s)
    theirs = (
        pld.from_privacy_parameters(
            common.DifferentialPrivacyParameters(eps, delta), value_discretization_interval=1e-4
        )
        .self_compose(k)
        .get_epsilon_for_delta(ours.delta)
    )
    assert abs(theirs - ours.epsilon) <= 1e-7


@pytest.mark.parametrize("eps, k, s", [(0.1, 100, 1e-6), (1.0, 10, 1e-3), (0.3, 40, 1e-9)])
def test_compose_optimal_agrees_with_dp_accounting_randomized_response(eps, k, s, dp_accounting):
    """Binary randomized response with noise parameter 2/(1+e^eps) is the worst eps-DP
    mechanism (replace-one), so k of them through dp_accounting's PLDAccountant (REPLACE_ONE,
    grid 1e-4, pessimistic) give an epsilon >= KOV's optimum (minus float noise 1e-9) and at
    most k * 1e-4 above it (one grid step of rounding up per composition).

    The events are composed one call at a time: dp_accounting 0.6.0's PLDAccountant ignores
    `count` for RandomizedResponseDpEvent (`compose(event, k)` and
    `SelfComposedDpEvent(event, k)` both account for a single use).
    """
    from dp_accounting.pld import PLDAccountant

    event = dp_accounting.RandomizedResponseDpEvent(2 / (1 + math.exp(eps)), 2)
    acct = PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE, 1e-4)
    for _ in range(k):
        acct.compose(event)
    theirs = acct.get_epsilon(s)
    ours = compose_optimal(Budget(eps), k, s).epsilon
    assert ours - 1e-9 <= theirs <= ours + k * 1e-4


def test_laplace_composition_in_dp_accounting_is_within_kov(dp_accounting):
    """k Laplace mechanisms of scale 1/eps (each eps-DP) through dp_accounting's PLD: their
    epsilon at delta is at most the KOV optimum for all eps-DP mechanisms (+ grid 1e-4 * k)."""
    from dp_accounting.pld import PLDAccountant

    eps, k, s = 0.2, 50, 1e-6
    acct = PLDAccountant(value_discretization_interval=1e-4)
    acct.compose(dp_accounting.LaplaceDpEvent(1 / eps), k)
    assert acct.get_epsilon(s) <= compose_optimal(Budget(eps), k, s).epsilon + k * 1e-4


# ============================================================================================
# Composition: properties
# ============================================================================================

eps_st = st.floats(1e-4, 5.0)
slack_st = st.floats(1e-15, 0.9)
delta_st = st.sampled_from([0.0, 1e-12, 1e-6, 1e-3])


@settings(max_examples=150, deadline=None)
@given(eps=eps_st, delta=delta_st, k=st.integers(1, 3000), s=slack_st)
def test_optimal_never_worse_than_advanced_or_basic(eps, delta, k, s):
    assume(k * delta + s < 0.99)  # advanced composition's delta must stay below 1
    b = Budget(eps, delta)
    opt = compose_optimal(b, k, s)
    assert opt <= compose_advanced(b, k, s)  # both epsilon and delta
    assert opt.epsilon <= k * eps * (1 + 1e-15)
    assert compose_optimal(b, k, 0.0) <= k * b  # delta 1 - (1 - d)^k <= k d


@settings(max_examples=100, deadline=None)
@given(eps=eps_st, k=st.integers(1, 2000), dk=st.integers(1, 50), s=slack_st, f=st.floats(1.0, 3.0))
def test_optimal_monotone(eps, k, dk, s, f):
    b = Budget(eps)
    base = compose_optimal(b, k, s).epsilon
    assert compose_optimal(b, k + dk, s).epsilon >= base  # in k
    assert compose_optimal(Budget(min(eps * f, 10.0)), k, s).epsilon >= base  # in eps
    assert compose_optimal(b, k, s / f).epsilon >= base  # antitone in delta_slack
    adv = compose_advanced(b, k, s).epsilon
    assert compose_advanced(b, k + dk, s).epsilon >= adv


# ============================================================================================
# Amplification by subsampling
# ============================================================================================

LN3 = math.log(3.0)


def test_amplification_golden():
    """eps = ln 3, rate 1/2, by hand: bbg ln 2; Lemma 34 exact ln 2 - ln(2/3) = ln 3;
    relaxed 2 * (1/2) * (3 - 1/3) = 8/3; Lemma 31 ln(1 + (1/2) 3 (3 - 1)) = ln 4,
    delta' = (1/2) 3 delta."""
    b = Budget(LN3, 1e-6)
    bbg = amplify_by_subsampling(b, 0.5)
    assert bbg.epsilon == pytest.approx(math.log(2), rel=1e-15) and bbg.delta == pytest.approx(5e-7)
    l31 = amplify_by_subsampling(b, 0.5, method="lemma31")
    assert l31.epsilon == pytest.approx(math.log(4), rel=1e-15)
    assert l31.delta == pytest.approx(1.5e-6, rel=1e-15)
    pure = Budget(LN3)
    assert amplify_by_subsampling(pure, 0.5, method="lemma34").epsilon == pytest.approx(LN3)
    assert amplify_by_subsampling(pure, 0.5, method="lemma34-relaxed").epsilon == pytest.approx(
        8 / 3, rel=1e-15
    )
    # rate 1: no amplification; n given: the exact m/n is used
    assert amplify_by_subsampling(b, 1.0) == b
    assert amplify_by_subsampling(b, 0.1, n=30) == amplify_by_subsampling(b, 3 / 30)


def test_amplification_with_replacement_golden():
    """n = 2, m = 2, eps = ln 3 (pure): eta = 1 - (1/2)^2 = 3/4, eps' = ln(1 + 3/4 * 2) = ln 2.5;
    delta' = P(drawn twice) * (e^{2eps} - e^eps)/(1 + e^{2eps}) = 1/4 * (9 - 3)/10 = 0.15."""
    got = amplify_by_subsampling(Budget(LN3), 1.0, replacement=True, n=2)
    assert got.epsilon == pytest.approx(math.log(2.5), rel=1e-14)
    assert got.delta == pytest.approx(0.15, rel=1e-14)
    # m = 1 draw is the same as sampling one record without replacement
    one = amplify_by_subsampling(Budget(1.0, 1e-6), 0.01, replacement=True, n=100)
    wor = amplify_by_subsampling(Budget(1.0, 1e-6), 0.01, n=100)
    assert one.epsilon == pytest.approx(wor.epsilon, rel=1e-14)
    assert one.delta == pytest.approx(wor.delta, rel=1e-14)


def wr_oracle(eps, delta, m, n):
    """Theorem 10 with the group-privacy profile bound, summed term by term with mpmath."""
    with mp.workdps(DPS):
        e, d = mp.mpf(eps), mp.mpf(delta)
        q = 1 / mp.mpf(n)
        eta = 1 - (1 - q) ** m
        total = mp.mpf(0)
        for j in range(1, m + 1):
            dj = d * (mp.expm1(j * e) / mp.expm1(e) if eps > 0 else j)
            h = (mp.exp(j * e) - mp.exp(e)) / (1 + mp.exp(j * e))
            prof = min(1, dj + (1 - dj) * h) if dj < 1 else 1
            total += mp.binomial(m, j) * q**j * (1 - q) ** (m - j) * prof
        return mp.log1p(eta * mp.expm1(e)), total


def test_amplification_matches_mpmath():
    for eps in (1e-5, 0.1, 1.0, 4.0, 20.0):
        for rate in (1e-6, 0.01, 0.3, 0.5, 0.9):
            for delta in (0.0, 1e-9, 1e-3):
                b = Budget(eps, delta)
                with mp.workdps(DPS):
                    e, g, d = mp.mpf(eps), mp.mpf(rate), mp.mpf(delta)
                    want = {
                        "bbg": (mp.log1p(g * mp.expm1(e)), g * d),
                        "lemma31": (mp.log1p(g * mp.exp(e) * mp.expm1(e)), g * mp.exp(e) * d),
                        "lemma34": (mp.log1p(g * mp.expm1(e)) - mp.log1p(g * mp.expm1(-e)), 0),
                        "lemma34-relaxed": (2 * g * (mp.exp(e) - mp.exp(-e)), 0),
                    }
                for method, (we, wd) in want.items():
                    if method.startswith("lemma34") and delta > 0:
                        continue
                    if method == "lemma34-relaxed" and rate > 0.5:
                        continue
                    if method == "lemma31" and wd >= 1:
                        continue
                    got = amplify_by_subsampling(b, rate, method=method)
                    assert_up(got.epsilon, we, rel=1e-14, what=method)
                    assert_up(got.delta, wd, rel=1e-14, what=method)
    for eps in (0.01, 0.5, 2.0):
        for delta in (0.0, 1e-6):
            for n, m in ((10, 3), (7, 7), (5, 40), (1000, 100), (3, 1)):
                got = amplify_by_subsampling(Budget(eps, delta), m / n, replacement=True, n=n)
                we, wd = wr_oracle(eps, delta, m, n)
                assert_up(got.epsilon, we, rel=1e-14, what="wr eps")
                assert_up(got.delta, wd, rel=1e-12, what="wr delta")


def test_bbg_is_attained_by_randomized_response_on_membership():
    """Exact enumeration (n = 6, m = 2, all 15 subsets): M = eps-randomized response on "the
    sample contains the record that differs"; its worst log-ratio equals the bbg epsilon and is
    below Lemma 34's. (Replace-one: on x' no sampled record is the special one.)"""
    from itertools import combinations

    n, m, eps = 6, 2, 1.2
    with mp.workdps(DPS):
        keep = mp.exp(eps) / (1 + mp.exp(eps))
        subsets = list(combinations(range(n), m))
        p1 = mp.fsum(keep if 0 in s else 1 - keep for s in subsets) / len(subsets)  # x: record 0
        q1 = 1 - keep  # x': the differing record is gone, output 1 w.p. 1 - keep
        worst = max(mp.log(p1 / q1), mp.log((1 - q1) / (1 - p1)))
    bbg = amplify_by_subsampling(Budget(eps), m / n, n=n).epsilon
    assert_up(bbg, worst, rel=1e-14)
    assert amplify_by_subsampling(Budget(eps), m / n, n=n, method="lemma34").epsilon > bbg


def test_with_replacement_bound_holds_for_a_concrete_mechanism():
    """A mechanism that is eps-DP on multisets and loses j*eps when the record is drawn j times
    (output 1 with probability sigmoid(j eps - s)); its exact hockey-stick divergence at
    e^{eps'} after sampling with replacement stays below delta' for every shift s."""
    for eps, n, m in ((0.5, 10, 10), (2.0, 5, 20), (1.0, 100, 50)):
        got = amplify_by_subsampling(Budget(eps), m / n, replacement=True, n=n)
        with mp.workdps(40):
            e, ep = mp.mpf(eps), mp.mpf(got.epsilon)
            pk = [
                mp.binomial(m, j) * mp.mpf(1) / n**j * (1 - mp.mpf(1) / n) ** (m - j)
                for j in range(m + 1)
            ]
            for s in [x / 2 for x in range(-40, 41)]:
                p1 = mp.fsum(pk[j] / (1 + mp.exp(s - j * e)) for j in range(m + 1))
                q1 = 1 / (1 + mp.exp(s))
                P, Q = (p1, 1 - p1), (q1, 1 - q1)
                d = max(
                    sum(max(0, P[o] - mp.exp(ep) * Q[o]) for o in (0, 1)),
                    sum(max(0, Q[o] - mp.exp(ep) * P[o]) for o in (0, 1)),
                )
                assert d <= got.delta


def test_amplification_agrees_with_dp_accounting_poisson_laplace(dp_accounting):
    """Where the definitions coincide: BBG's Theorem 8 (Poisson sampling, add/remove) has the
    same formula ln(1 + q(e^eps - 1)) as Theorem 9 (without replacement, replace-one), and it is
    attained by the Laplace mechanism. dp_accounting's PLD of Poisson-subsampled Laplace
    (scale 1/eps, add/remove, grid 1e-5, pessimistic) at delta = 0 must give our epsilon,
    from above, within 2 grid steps."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    for eps, q in ((1.0, 0.01), (0.5, 0.1), (2.0, 0.3)):
        ours = amplify_by_subsampling(Budget(eps), q).epsilon
        theirs = pld.from_laplace_mechanism(
            1 / eps, sampling_prob=q, value_discretization_interval=1e-5
        ).get_epsilon_for_delta(0.0)
        assert ours - 1e-12 <= theirs <= ours + 2e-5


@settings(max_examples=200, deadline=None)
@given(
    eps=st.floats(1e-6, 8.0),
    rate=st.floats(1e-6, 1.0),
    f=st.floats(0.05, 1.0),
    delta=st.sampled_from([0.0, 1e-9, 1e-4]),
)
def test_amplification_orderings_and_monotonicity(eps, rate, f, delta):
    b = Budget(eps, delta)
    bbg = amplify_by_subsampling(b, rate)
    assert bbg <= b  # never worse than no subsampling
    assert amplify_by_subsampling(b, rate * f) <= bbg  # monotone in rate
    assert amplify_by_subsampling(Budget(eps * f, delta), rate) <= bbg  # monotone in epsilon
    l31_delta = rate * math.exp(eps) * delta
    if l31_delta < 0.5:
        assert bbg <= amplify_by_subsampling(b, rate, method="lemma31")
    pure = Budget(eps)
    p_bbg = amplify_by_subsampling(pure, rate).epsilon
    l34 = amplify_by_subsampling(pure, rate, method="lemma34").epsilon
    assert p_bbg <= l34
    if rate <= 0.5:
        assert l34 <= amplify_by_subsampling(pure, rate, method="lemma34-relaxed").epsilon


@settings(max_examples=100, deadline=None)
@given(eps=st.floats(1e-4, 5.0), n=st.integers(1, 10**6), m=st.integers(1, 3000))
def test_with_replacement_properties(eps, n, m):
    try:
        got = amplify_by_subsampling(Budget(eps, 1e-8), m / n, replacement=True, n=n)
        more = amplify_by_subsampling(Budget(eps, 1e-8), (m + 1) / n, replacement=True, n=n)
    except InvalidParameterError as err:  # a record drawn many times: delta' rounds to 1
        assert "vacuous" in str(err)
        assume(False)
    assert got.epsilon <= eps * (1 + 1e-15)
    assert got <= more  # more draws, weaker guarantee


@pytest.mark.parametrize(
    "kwargs, parameter, fragment",
    [
        ({"rate": 0.0}, "rate", "in (0, 1]"),
        ({"rate": 1.5}, "rate", "in (0, 1]"),
        ({"rate": float("nan")}, "rate", "in (0, 1]"),
        ({"rate": 0.5, "method": "magic"}, "method", "'bbg'"),
        ({"rate": 0.6, "method": "lemma34-relaxed", "budget": Budget(1.0)}, "rate", "<= 1/2"),
        ({"rate": 0.5, "method": "lemma34"}, "budget", "pure DP"),
        ({"rate": 0.5, "method": "lemma34-relaxed"}, "budget", "pure DP"),
        ({"rate": 0.5, "replacement": True}, "n", "required"),
        ({"rate": 0.5, "replacement": True, "n": 5}, "rate", "whole sample size"),
        ({"rate": 0.5, "replacement": True, "n": 4, "method": "lemma31"}, "method", "only 'bbg'"),
        ({"rate": 0.5, "n": 0}, "n", ">= 1"),
        ({"rate": 0.5, "replacement": 1}, "replacement", "True or False"),
        ({"rate": 0.9, "method": "lemma31", "budget": Budget(3.0, 0.1)}, "budget", "vacuous"),
    ],
)
def test_amplification_errors(kwargs, parameter, fragment):
    budget = kwargs.pop("budget", Budget(1.0, 1e-6))
    with pytest.raises(InvalidParameterError) as info:
        amplify_by_subsampling(budget, **kwargs)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(parameter + ":")
    assert fragment in str(info.value)


# ============================================================================================
# Group privacy
# ============================================================================================


def test_group_privacy():
    assert group_privacy(Budget(0.5, 1e-6), 1) == Budget(0.5, 1e-6)
    g = group_privacy(Budget(0.5, 1e-6), 3)
    assert g.epsilon == 1.5
    with mp.workdps(DPS):
        want = 3 * mp.exp(1) * mp.mpf(1e-6)
    assert_up(g.delta, want, rel=1e-14)
    assert group_privacy(Budget(2.0), 10**6) == Budget(2e6)
    with pytest.raises(InvalidParameterError, match=r"^k: .*vacuous"):
        group_privacy(Budget(1.0, 1e-3), 20)
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 1"):
        group_privacy(Budget(1.0), 0)


@settings(max_examples=100, deadline=None)
@given(eps=st.floats(0, 3.0), k=st.integers(1, 50))
def test_group_privacy_monotone(eps, k):
    assume((k + 1) * math.exp(k * eps) * 1e-12 < 0.5)
    b = Budget(eps, 1e-12)
    assert group_privacy(b, k) <= group_privacy(b, k + 1)
    assert group_privacy(b, k) >= k * b  # never better than k-fold composition


# ============================================================================================
# The accountant
# ============================================================================================


def state(acct):
    return (acct.spent, acct.remaining, acct.ledger)


def test_accountant_spend_and_ledger():
    acct = Accountant(Budget(1.0, 1e-6))
    assert acct.total == Budget(1.0, 1e-6) and acct.spent == Budget(0.0) and acct.ledger == ()
    e1 = acct.spend(Budget(0.25), "count")
    e2 = acct.spend(Budget(0.5, 5e-7), "mean")
    assert isinstance(e1, LedgerEntry) and (e1.label, e1.budget, e1.kind) == (
        "count",
        Budget(0.25),
        "spend",
    )
    assert e1.timestamp <= e2.timestamp
    assert acct.ledger == (e1, e2)
    assert acct.spent == Budget(0.75, 5e-7)
    assert acct.remaining == Budget(0.25, 5e-7)
    with pytest.raises(AttributeError):
        acct.ledger[0].label = "x"  # entries are frozen
    assert isinstance(acct.ledger, tuple)
    assert "Accountant(total=Budget(epsilon=1.0" in repr(acct)


def test_overspend_raises_and_leaves_state_unchanged():
    acct = Accountant(Budget(1.0, 1e-6))
    acct.spend(Budget(0.75, 1e-6), "first")
    before = state(acct)
    for too_much in (Budget(0.5), Budget(0.0, 1e-9), Budget(2.0, 1e-3)):
        with pytest.raises(BudgetExceededError) as info:
            acct.spend(too_much, "second")
        assert info.value.requested == too_much
        assert info.value.remaining == Budget(0.25, 0.0)
        assert info.value.label == "second"
        assert state(acct) == before
    acct.spend(acct.remaining, "the rest")  # the remaining budget always fits
    assert acct.remaining == Budget(0.0)


def test_pure_total_refuses_any_delta():
    acct = Accountant(Budget(1.0))
    with pytest.raises(BudgetExceededError):
        acct.spend(Budget(0.1, 1e-12), "gaussian")
    assert acct.ledger == ()


def test_exact_accounting_and_splitting():
    acct = Accountant(Budget(1.0))
    for _ in range(9):
        acct.spend(Budget(0.1), "tenth")
    # Float 0.1 is a little more than a tenth: the tenth spend exceeds 1.0 by about 6e-17,
    # within the documented relative slack of 2**-40; the ledger keeps the exact sum.
    acct.spend(Budget(0.1), "tenth")
    assert acct.spent.epsilon > 1.0
    assert acct.remaining == Budget(0.0)
    with pytest.raises(BudgetExceededError):
        acct.spend(Budget(1e-9), "one more")
    tight = Accountant(Budget(1.0))
    with pytest.raises(BudgetExceededError, match="relative 1e-9"):
        tight.spend(Budget(1.0 + 1e-11), "just over")
    acct = Accountant(Budget(1.0, 1e-5))
    for _ in range(10):
        acct.spend(acct.total / 10, "tenth")
    for k in (3, 7, 49):
        acct = Accountant(Budget(0.7, 3e-7))
        for _ in range(k):
            acct.spend(acct.total / k, "part")


def test_accountant_argument_errors():
    with pytest.raises(InvalidParameterError, match=r"^total: must be a privlearn"):
        Accountant((1.0, 0.0))  # type: ignore[arg-type]
    acct = Accountant(Budget(1.0))
    with pytest.raises(InvalidParameterError, match=r"^budget: must be a privlearn"):
        acct.spend(0.5, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"^label: must be a str"):
        acct.spend(Budget(0.5), None)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"^label"):
        acct.transaction(Budget(0.5), 3)  # type: ignore[arg-type]
    assert acct.ledger == ()


def test_transaction_commits_on_success():
    acct = Accountant(Budget(1.0))
    with acct.transaction(Budget(0.5), "laplace") as tx:
        assert tx is None
        assert acct.remaining == Budget(0.5)  # reserved
        assert acct.spent == Budget(0.0)  # not yet committed
        with pytest.raises(BudgetExceededError):
            acct.spend(Budget(0.75), "concurrent")  # the reservation is protected
    assert acct.spent == Budget(0.5) and acct.remaining == Budget(0.5)
    assert [(e.label, e.budget, e.kind) for e in acct.ledger] == [("laplace", Budget(0.5), "spend")]


def test_transaction_rolls_back_on_error():
    acct = Accountant(Budget(1.0))
    acct.spend(Budget(0.25), "first")
    before = state(acct)
    with pytest.raises(InvalidParameterError):
        with acct.transaction(Budget(0.5), "laplace"):
            raise InvalidParameterError("value: must be finite; got nan", "value")
    assert state(acct) == before
    with pytest.raises(KeyboardInterrupt):
        with acct.transaction(Budget(0.5), "laplace"):
            raise KeyboardInterrupt
    assert state(acct) == before


def test_transaction_without_room_does_not_run_the_block():
    acct = Accountant(Budget(1.0))
    ran = []
    with pytest.raises(BudgetExceededError):
        with acct.transaction(Budget(1.5), "too big"):
            ran.append(True)
    assert ran == [] and acct.ledger == () and acct.remaining == Budget(1.0)
    tx = acct.transaction(Budget(0.1), "once")
    with tx:
        pass
    with pytest.raises(RuntimeError):
        with tx:
            pass
    assert len(acct.ledger) == 1


def test_child_budgets():
    parent = Accountant(Budget(1.0, 1e-6))
    child = parent.child(Budget(0.5, 1e-6), "learner")
    assert isinstance(child, Accountant) and child.total == Budget(0.5, 1e-6)
    assert parent.remaining == Budget(0.5, 0.0)
    assert [(e.label, e.kind, e.budget) for e in parent.ledger] == [
        ("learner", "child", Budget(0.5, 1e-6))
    ]
    child.spend(Budget(0.25, 5e-7), "step 1")
    grandchild = child.child(Budget(0.25), "inner")
    grandchild.spend(Budget(0.25), "all of it")
    assert [e.label for e in child.ledger] == ["step 1", "inner"]
    assert len(parent.ledger) == 1  # the child's spends are in the child's ledger only
    with pytest.raises(BudgetExceededError):
        child.spend(Budget(0.1), "step 2")
    with pytest.raises(BudgetExceededError):
        parent.child(Budget(0.75), "second learner")
    assert parent.remaining == Budget(0.5, 0.0) and len(parent.ledger) == 1


def test_concurrent_spends_never_oversubscribe():
    """16 threads race 40 spends each of 1/64 against a total of 1: exactly 64 succeed."""
    import sys

    acct = Accountant(Budget(1.0, 1e-6))
    step = Budget(2.0**-6, 1e-6 / 128)
    barrier = threading.Barrier(16)
    ok, refused = [], []

    def worker(i):
        barrier.wait()
        for j in range(40):
            try:
                if j % 2:
                    acct.spend(step, f"t{i}")
                else:
                    with acct.transaction(step, f"t{i}"):
                        pass
                ok.append(1)
            except BudgetExceededError:
                refused.append(1)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert len(ok) == 64 and len(refused) == 16 * 40 - 64
    assert len(acct.ledger) == 64
    assert acct.spent == Budget(1.0, 64 * 1e-6 / 128) and acct.remaining.epsilon == 0.0


# ============================================================================================
# Errors, exports, documentation
# ============================================================================================


def test_budget_exceeded_error_is_exported_and_picklable():
    assert privlearn.BudgetExceededError is BudgetExceededError
    assert "BudgetExceededError" in privlearn.__all__
    assert "BudgetExceededError" in privlearn.errors.__all__
    assert issubclass(BudgetExceededError, PrivlearnError)
    assert not issubclass(BudgetExceededError, ValueError)
    err = BudgetExceededError("msg", Budget(1.0), Budget(0.5), "lbl")
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.requested, back.remaining, back.label) == (
        "msg",
        Budget(1.0),
        Budget(0.5),
        "lbl",
    )


def test_doctests_and_docstrings():
    result = doctest.testmod(
        accounting, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0 and result.attempted > 10
    sources = {
        "compose_basic": ["Dwork and Roth", "Theorem 3.16"],
        "compose_advanced": ["Dwork, Rothblum and Vadhan", "Theorem 3.20"],
        "compose_optimal": ["Kairouz, Oh and Viswanath", "Theorem 3.3"],
        "amplify_by_subsampling": [
            "Balle, Barthe and",
            "Theorem 9",
            "Theorem 10",
            "Lemma 34",
            "Lemma 31",
        ],
        "group_privacy": ["Dwork and Roth", "Theorem 2.2"],
    }
    for name, needles in sources.items():
        doc = getattr(accounting, name).__doc__
        for needle in needles:
            assert needle in doc, (name, needle)
        assert "neighbour" in doc or "replace-one" in doc, name
    assert "not a hot" in accounting.__doc__


# ============================================================================================
# Mutation-testing survivors (issue 16): behaviour no test above pinned
# ============================================================================================


def _float_up_oracle(q):
    """The least float >= the rational q (written here, not taken from the library)."""
    x = float(q)
    return x if Fraction(x) >= q else math.nextafter(x, math.inf)


def _float_down_oracle(q):
    """The largest float <= the rational q (q >= 0)."""
    x = float(q)
    return x if Fraction(x) <= q else math.nextafter(x, -math.inf)


def test_open_transactions_reserve_their_delta():
    # A transaction's budget is reserved from entry to exit (Accountant.transaction docstring),
    # delta as well as epsilon: while open, nothing else may use it.
    total = Budget(1.0, 1e-5)
    left_after_a = Budget(
        _float_down_oracle(Fraction(1.0) - Fraction(0.25)),
        _float_down_oracle(Fraction(1e-5) - Fraction(6e-6)),
    )
    acct = Accountant(total)
    with acct.transaction(Budget(0.25, 6e-6), "a"):
        assert acct.remaining == left_after_a
        assert acct.spent == Budget(0.0)
        with pytest.raises(BudgetExceededError):  # 6e-6 + 6e-6 > 1e-5 while "a" is open
            acct.spend(Budget(0.0, 6e-6), "concurrent")
        with pytest.raises(BudgetExceededError):
            with acct.transaction(Budget(0.0, 6e-6), "nested"):
                pass  # pragma: no cover
    # Committed: the delta moved from reserved to spent, counted once.
    assert acct.spent == Budget(0.25, 6e-6)
    assert acct.remaining == left_after_a
    with pytest.raises(BudgetExceededError):
        acct.spend(Budget(0.0, 6e-6), "after")
    assert [e.label for e in acct.ledger] == ["a"]


def test_nested_open_transactions_add_their_reservations():
    # Two transactions open at once reserve the sum of their deltas (and epsilons).
    acct = Accountant(Budget(1.0, 1e-5))
    with acct.transaction(Budget(0.125, 1e-6), "outer"):
        with pytest.raises(RuntimeError):
            with acct.transaction(Budget(0.25, 6e-6), "inner"):
                want = Budget(
                    _float_down_oracle(1 - Fraction(0.125) - Fraction(0.25)),
                    _float_down_oracle(Fraction(1e-5) - Fraction(1e-6) - Fraction(6e-6)),
                )
                assert acct.remaining == want
                with pytest.raises(BudgetExceededError):  # 1e-6 + 6e-6 + 3.5e-6 > 1e-5
                    acct.spend(Budget(0.0, 3.5e-6), "third")
                with pytest.raises(BudgetExceededError):  # 0.125 + 0.25 + 0.7 > 1
                    acct.spend(Budget(0.7), "third")
                raise RuntimeError("inner release failed")
        # The failed inner one released exactly its own reservation.
        assert acct.remaining == Budget(0.875, _float_down_oracle(Fraction(1e-5) - Fraction(1e-6)))
    assert acct.spent == Budget(0.125, 1e-6)
    assert acct.remaining == Budget(0.875, _float_down_oracle(Fraction(1e-5) - Fraction(1e-6)))
    acct.spend(acct.remaining, "the rest")  # nothing is left reserved


def test_refused_transaction_reports_its_label_and_request():
    acct = Accountant(Budget(1.0, 1e-6))
    with pytest.raises(BudgetExceededError) as info:
        with acct.transaction(Budget(1.5), "too big"):
            pass  # pragma: no cover
    assert info.value.label == "too big"
    assert info.value.requested == Budget(1.5)
    assert info.value.remaining == Budget(1.0, 1e-6)
    assert "'too big'" in str(info.value)


def test_transaction_cannot_be_reentered_while_open_or_after_release():
    acct = Accountant(Budget(1.0))
    tx = acct.transaction(Budget(0.25), "once")
    with tx:
        with pytest.raises(RuntimeError, match="only once"):
            with tx:
                pass  # pragma: no cover
    released = acct.transaction(Budget(0.25), "released")
    with pytest.raises(KeyError):
        with released:
            raise KeyError("x")
    with pytest.raises(RuntimeError, match="only once"):
        with released:
            pass  # pragma: no cover
    assert [e.label for e in acct.ledger] == ["once"]
    assert acct.spent == Budget(0.25)


def test_amplify_any_by_subsampling_uses_the_exact_ratio_m_over_n():
    # Wang, Lei and Fienberg (JMLR 2016), Lemma 29: a subsample of m of n rows, drawn without
    # replacement, makes any algorithm (0, m/n)-DP (replace-one). With n given, delta is the
    # exact m/n rounded up, not the float rate.
    cases = [
        (0.3, 10, Fraction(3, 10)),  # float 0.3 < 3/10: rounded up to the next float
        (0.1, 10, Fraction(1, 10)),  # m = 1, the smallest sample
        (1 / 3, 3, Fraction(1, 3)),
        (0.5, 2, Fraction(1, 2)),
        (0.07, 100_000, Fraction(7, 100)),  # 0.07 * 100000 = 7000.000000000001 in floats: m = 7000
        # rate * n = 3 + 2e-9: whole up to the documented relative 1e-9 of max(1, rate * n)
        # (an absolute 1e-9 would refuse it).
        ((3 + 2e-9) / 10, 10, Fraction(3, 10)),
    ]
    for rate, n, exact in cases:
        got = accounting.amplify_any_by_subsampling(rate, n=n)
        assert got == Budget(0.0, _float_up_oracle(exact)), (rate, n)
        assert Fraction(got.delta) >= exact
    assert accounting.amplify_any_by_subsampling(0.3, n=10).delta == math.nextafter(0.3, 1.0)
    assert accounting.amplify_any_by_subsampling(0.3) == Budget(0.0, 0.3)  # without n: the rate
    np = pytest.importorskip("numpy")
    assert accounting.amplify_any_by_subsampling(0.1, n=np.int64(10)) == Budget(0.0, 0.1)


@pytest.mark.parametrize(
    "rate, n, parameter",
    [
        (0.35, 10, "rate"),  # m = 3.5 is not a sample size
        (1e-3, 10, "rate"),  # m = 0.01 rounds to 0: an empty sample
        (0.10000000015, 10, "rate"),  # m = 1 + 1.5e-9: not whole (beyond float rounding)
        ((1 - 1.5e-9) / 2, 2, "rate"),  # m = 1 - 1.5e-9: not whole either (below m)
        (0.5, 0, "n"),
        (0.5, 2.0, "n"),
    ],
)
def test_amplify_any_by_subsampling_refuses_non_whole_samples(rate, n, parameter):
    with pytest.raises(InvalidParameterError) as info:
        accounting.amplify_any_by_subsampling(rate, n=n)
    assert info.value.parameter == parameter
    assert str(info.value).startswith(parameter + ": ")
    if parameter == "rate":
        assert "whole sample size" in str(info.value)


@pytest.mark.parametrize(
    "rate, fragment",
    [
        ("0.5", "in (0, 1)"),
        (True, "in (0, 1)"),
        (None, "in (0, 1)"),
        (Fraction(1, 3), "exactly representable"),  # rounding it would under-report delta
    ],
)
def test_amplify_any_by_subsampling_refuses_non_float_rates(rate, fragment):
    with pytest.raises(InvalidParameterError) as info:
        accounting.amplify_any_by_subsampling(rate)
    assert info.value.parameter == "rate"
    assert str(info.value).startswith("rate: ")
    assert fragment in str(info.value)


@pytest.mark.parametrize("rate", [0.0, -0.0, -0.5, 1.5, 2.0, math.inf, -math.inf, math.nan])
def test_amplify_any_by_subsampling_rate_outside_unit_interval(rate):
    for n in (None, 2):
        with pytest.raises(InvalidParameterError) as info:
            accounting.amplify_any_by_subsampling(rate, n=n)
        assert info.value.parameter == "rate"
        assert str(info.value).startswith("rate: ")


def test_amplify_any_by_subsampling_of_everything_is_vacuous():
    # rate = 1 (the whole dataset) would be (0, 1)-DP, no guarantee at all: refused.
    for n in (None, 1, 4):
        with pytest.raises(InvalidParameterError) as info:
            accounting.amplify_any_by_subsampling(1.0, n=n)
        assert info.value.parameter == "rate"  # not a Budget error naming delta
    with pytest.raises(InvalidParameterError) as info:  # rounds to m = n
        accounting.amplify_any_by_subsampling(1.0 - 1e-12, n=4)
    assert info.value.parameter == "rate"
    assert accounting.amplify_any_by_subsampling(0.75, n=4) == Budget(0.0, 0.75)


def test_budget_strict_order_defers_to_other_types():
    a, b = Budget(1.0), Budget(2.0, 1e-9)
    assert a.__lt__(b) is True and b.__gt__(a) is True
    assert a.__lt__(a) is False and a.__gt__(a) is False
    assert b.__lt__(a) is False and a.__gt__(b) is False
    for op in ("__lt__", "__gt__", "__le__", "__ge__"):
        assert getattr(a, op)(1.0) is NotImplemented, op

    class Other:
        """A foreign type that knows how to compare itself with a Budget."""

        def __gt__(self, other):
            return "Other.__gt__"

        def __lt__(self, other):
            return "Other.__lt__"

    # Python's protocol: Budget returns NotImplemented, so the reflected method is asked.
    assert (a < Other()) == "Other.__gt__"
    assert (a > Other()) == "Other.__lt__"
    with pytest.raises(TypeError):
        _ = a < 3  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = a > 3  # type: ignore[operator]


def test_budget_hash_spreads_distinct_budgets():
    budgets = [Budget(k / 8, d) for k in range(32) for d in (0.0, 1e-6)]
    assert len({hash(b) for b in budgets}) > len(budgets) // 2
    assert len(set(budgets)) == len(budgets)


def test_accountant_repr_shows_the_spent_budget_rounded_up():
    acct = Accountant(Budget(1.0, 1e-6))
    assert repr(acct) == (
        "Accountant(total=Budget(epsilon=1.0, delta=1e-06), "
        "spent=Budget(epsilon=0.0, delta=0.0), entries=0)"
    )
    acct.spend(Budget(0.1, 1e-7), "a")
    acct.spend(Budget(0.2, 2e-7), "b")
    eps = _float_up_oracle(Fraction(0.1) + Fraction(0.2))
    dlt = _float_up_oracle(Fraction(1e-7) + Fraction(2e-7))
    assert eps == 0.30000000000000004  # the exact sum lies above the float 0.3
    assert repr(acct) == (
        f"Accountant(total=Budget(epsilon=1.0, delta=1e-06), "
        f"spent=Budget(epsilon={eps!r}, delta={dlt!r}), entries=2)"
    )


def test_vacuous_arithmetic_errors_quote_the_exact_value():
    # The epsilon overflows a float: the message quotes the exact rational in scientific form.
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(1.7e308) * 2
    assert info.value.parameter == "k"
    assert str(info.value) == (
        "k: the epsilon of the 2-fold composition does not fit in a float "
        "(it is about 3.400000e+308)"
    )
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(1.5e308) + Budget(1e308)
    assert str(info.value).endswith("(it is about 2.500000e+308)")
    # A delta >= 1: quoted to 6 significant digits.
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(0.0, 0.6) * 2
    assert (
        str(info.value) == "k: the delta of the 2-fold composition is 1.2 >= 1, a vacuous guarantee"
    )
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(0.0, 0.123456789) + Budget(0.0, 0.9)
    assert "is 1.02346 >= 1" in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(0.0, 0.5) * 10**7
    assert str(info.value).endswith("composition is 5e+06 >= 1, a vacuous guarantee")
    # A non-integer rational beyond the float range: 0.1 (the float) times 3**700.
    exact = Fraction(0.1) * 3**700
    assert exact.denominator > 1
    exponent = len(str(exact.numerator // exact.denominator)) - 1
    mantissa = round(exact * Fraction(10) ** (6 - exponent))  # 7 significant digits
    quoted = f"{str(mantissa)[0]}.{str(mantissa)[1:]}e+{exponent}"
    assert quoted == "9.657802e+332"
    with pytest.raises(InvalidParameterError) as info:
        _ = Budget(0.1) * 3**700
    assert str(info.value).endswith(f"does not fit in a float (it is about {quoted})")


def test_vacuous_sum_names_the_other_operand():
    # Budget + Budget: a vacuous sum is blamed on the right operand, "other".
    for left, right, what in (
        (Budget(0.0, 0.6), Budget(0.0, 0.6), "the delta of the sum of the budgets is 1.2 >= 1"),
        (Budget(1.5e308), Budget(1e308), "the epsilon of the sum of the budgets does not fit"),
    ):
        with pytest.raises(InvalidParameterError) as info:
            _ = left + right
        assert info.value.parameter == "other"
        assert str(info.value).startswith(f"other: {what}")


def test_spend_slack_is_exactly_a_relative_two_to_the_minus_40():
    # The Accountant docstring: spends are accepted when they exceed the total by at most a
    # relative 2**-40 (to absorb decimal inputs such as ten spends of 0.1), and no more.
    total = Budget(1.0, 2.0**-20)
    at_eps = Budget(1.0 + 2.0**-40)
    over_eps = Budget(1.0 + 2.0**-40 + 2.0**-52)
    at_delta = Budget(0.0, 2.0**-20 + 2.0**-60)
    over_delta = Budget(0.0, 2.0**-20 + 2.0**-60 + 2.0**-72)
    for fits, over in ((at_eps, over_eps), (at_delta, over_delta)):
        with pytest.raises(BudgetExceededError, match="relative 1e-9"):
            Accountant(total).spend(over, "just over the slack")
        acct = Accountant(total)
        acct.spend(fits, "at the slack")
        assert acct.spent == fits  # the exact, slightly larger, sum is reported
        left = total.delta if fits is at_eps else 0.0
        assert acct.remaining == Budget(1.0 - fits.epsilon if fits is at_delta else 0.0, left)
    # A budget split as total / 2 fits without using the slack; the slack is not cumulative.
    acct = Accountant(total)
    acct.spend(Budget(0.5 + 2.0**-40), "half and a hair")
    acct.spend(Budget(0.5), "half")
    with pytest.raises(BudgetExceededError):
        acct.spend(Budget(2.0**-52), "one ulp more")


def test_overspend_hint_only_for_overshoots_below_a_relative_1e9():
    # The refusal suggests `budget / k` only when the spend misses by less than a relative 1e-9
    # in both epsilon and delta (the typical float-rounding overshoot of a hand-made split).
    hint = "over by less than a relative 1e-9"
    total = Budget(1.0, 2.0**-20)

    def message(spend, acct_total=total):
        with pytest.raises(BudgetExceededError) as info:
            Accountant(acct_total).spend(spend, "x")
        return str(info.value)

    assert hint in message(Budget(1.0 + 5e-10))  # epsilon 5e-10 over, delta within
    assert hint in message(Budget(0.0, 2.0**-20 * (1 + 5e-10)))  # delta 5e-10 over
    assert hint in message(Budget(1.0 + 5e-10, 2.0**-20 * (1 + 5e-10)))
    assert hint not in message(Budget(1.0 + 2e-9))
    assert hint not in message(Budget(0.0, 2.0**-20 * (1 + 2e-9)))
    assert hint not in message(Budget(1.0 + 5e-10, 2.0**-19))  # delta far over
    assert hint not in message(Budget(2.0, 2.0**-20 * (1 + 5e-10)))  # epsilon far over
    assert hint not in message(Budget(1.5))
    # Against a zero total, any overshoot is infinitely large relatively: no hint, even for the
    # smallest positive float.
    assert hint not in message(Budget(0.0, 5e-324), Budget(1.0))
    assert hint not in message(Budget(5e-324), Budget(0.0, 1e-6))
