"""privlearn.accounting._bounded_range: adaptive composition of bounded-range mechanisms.

Oracles:

* an independent mpmath computation (60 digits) of the Rényi route as printed in the
  docstring: the Rényi divergence of generalised randomized response ``RR_{eps,t}`` maximised
  over ``t`` *numerically* (grid and golden section, not the module's closed form), composed
  ``k`` times and converted with Balle et al. (2020, Theorem 21), minimised over ``alpha``; the
  module's value must be at least that minimum and above it by at most a relative 1e-9;
* a lower bound that holds for *every* valid bound: ``k`` copies of ``RR_{eps,t}`` are a
  composition of ``eps``-BR mechanisms, so their exact privacy profile (a binomial sum, the
  non-adaptive construction of Dong, Durfee and Rogers 2020) at the claimed total epsilon must
  not exceed the claimed delta, for every ``t``;
* power checks: the same two checks reject deliberately wrong formulas.

No golden values from Dong, Durfee and Rogers (2020) are used: their figures plot the
non-adaptive optimum, which this module does not compute (see its docstring).
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from privlearn.accounting import Budget, compose_advanced, compose_optimal
from privlearn.accounting._bounded_range import (
    compose_bounded_range,
    max_bounded_range_epsilon,
)
from privlearn.accounting._rdp import _br_renyi
from privlearn.errors import InvalidParameterError

DPS = 60


# --------------------------------------------------------------------------------------------
# Independent reference (mpmath)
# --------------------------------------------------------------------------------------------


def _golden(f, a, b, iters):
    """argmin of f on [a, b] by golden section (f unimodal)."""
    g = (mp.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        if f1 <= f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = f(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = f(x2)
    return (x1, f1) if f1 <= f2 else (x2, f2)


def _rr_q(eps, t):
    """P-probability of the loss value t in RR_{eps,t} (so that E_P[e^{-L}] = 1)."""
    return (mp.exp(eps) - mp.exp(t)) / (mp.exp(eps) - 1)


def _rr_renyi(eps, alpha, t):
    q = _rr_q(eps, t)
    c = alpha - 1
    return mp.log(q * mp.exp(c * t) + (1 - q) * mp.exp(c * (t - eps))) / c


def ref_renyi(eps, alpha):
    """max over t in [0, eps] of D_alpha(RR_{eps,t}), numerically."""
    grid = [eps * i / 64 for i in range(1, 64)]
    i = max(range(len(grid)), key=lambda j: _rr_renyi(eps, alpha, grid[j]))
    lo, hi = eps * i / 64, eps * (i + 2) / 64
    _, neg = _golden(lambda t: -_rr_renyi(eps, alpha, t), lo, hi, 90)
    return -neg


def ref_rdp_total(eps, k, delta):
    """min over alpha of k * R(alpha) + conversion (Balle et al. 2020, Theorem 21)."""
    with mp.workdps(DPS):
        eps, delta = mp.mpf(eps), mp.mpf(delta)

        def total(x):  # x = ln(alpha - 1)
            alpha = 1 + mp.exp(x)
            return k * ref_renyi(eps, alpha) + (
                mp.log(1 / delta) + (alpha - 1) * mp.log(1 - 1 / alpha) - mp.log(alpha)
            ) / (alpha - 1)

        xs = [mp.mpf(-6) + j * mp.mpf(18) / 36 for j in range(37)]
        j = min(range(len(xs)), key=lambda i: total(xs[i]))
        _, best = _golden(total, xs[max(j - 1, 0)], xs[min(j + 1, len(xs) - 1)], 90)
        return best


def lower_bound_delta(eps, k, total, n_t=40):
    """max over a grid of t of the exact delta(total) of k copies of RR_{eps,t}."""
    with mp.workdps(30):
        eps, total = mp.mpf(eps), mp.mpf(total)
        best = mp.mpf(0)
        for i in range(1, n_t):
            t = eps * i / n_t
            q = _rr_q(eps, t)
            s = mp.mpf(0)
            for j in range(k + 1):  # j losses of t - eps, k - j of t
                loss = k * t - j * eps
                if loss <= total:
                    break
                s += mp.binomial(k, j) * (1 - q) ** j * q ** (k - j) * (1 - mp.exp(total - loss))
            best = max(best, s)
        return best


def check_claim(total, eps, k, delta):
    """The two oracles applied to a claimed total epsilon (AssertionError if rejected)."""
    ref = ref_rdp_total(eps, k, delta)
    assert mp.mpf(total) >= ref, (total, ref)
    assert mp.mpf(total) <= ref * (1 + mp.mpf("1e-9")), (total, ref)
    assert lower_bound_delta(eps, k, total) <= delta, "a valid bound cannot be below this"


# Cases where the Rényi route is binding (below Kairouz-Oh-Viswanath).
CASES = [(0.014, 1000, 1e-6), (0.1, 100, 1e-6), (0.05, 300, 1e-9), (0.3, 20, 1e-5)]


@pytest.mark.parametrize("eps,k,delta", CASES)
def test_agrees_with_mpmath_reference(eps, k, delta):
    got = compose_bounded_range(eps, k, delta)
    assert got.delta == delta
    assert got.epsilon < compose_optimal(Budget(eps), k, delta).epsilon
    check_claim(got.epsilon, eps, k, delta)


def test_power_wrong_formulas_are_rejected():
    eps, k, delta = 0.014, 1000, 1e-6
    right = compose_bounded_range(eps, k, delta).epsilon
    check_claim(right, eps, k, delta)
    # 1. Dropping the max over t (the BR pair fixed at t = eps / 4).
    with mp.workdps(DPS):
        e, d = mp.mpf(eps), mp.mpf(delta)

        def fixed_t(x):
            alpha = 1 + mp.exp(x)
            conv = (mp.log(1 / d) + (alpha - 1) * mp.log(1 - 1 / alpha) - mp.log(alpha)) / (
                alpha - 1
            )
            return k * _rr_renyi(e, alpha, e / 4) + conv

        _, wrong_t = _golden(fixed_t, mp.mpf(-6), mp.mpf(8), 120)
    # 2. Treating each mechanism as (eps/2)-DP: Kairouz-Oh-Viswanath at eps / 2.
    wrong_half = compose_optimal(Budget(eps / 2), k, delta).epsilon
    # 3. The zCDP constant of pure DP's exponential-mechanism folklore taken 4x too small.
    rho = k * eps**2 / 32
    wrong_rho = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    # 4. Treating each mechanism as 2 * eps-BR (safe, but not what the module claims).
    wrong_double = compose_bounded_range(2 * eps, k, delta).epsilon
    for wrong in (float(wrong_t), wrong_half, wrong_rho, wrong_double):
        with pytest.raises(AssertionError):
            check_claim(wrong, eps, k, delta)


def test_lower_bound_is_close():
    """The gap to the non-adaptive optimum (a lower bound on any adaptive bound) is small."""
    eps, k, delta = 0.014, 1000, 1e-6
    total = compose_bounded_range(eps, k, delta).epsilon
    # At 10% below the claimed total the k-fold RR_{eps,t} already needs more than delta
    # (the crossing is near 7.5% below).
    assert lower_bound_delta(eps, k, 0.90 * total) > delta


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


def test_renyi_curve_below_zcdp_and_close():
    with mp.workdps(DPS):
        import decimal

        from privlearn.accounting._numerics import _context

        for eps in (1e-4, 0.01, 0.5, 2.0):
            for alpha in (1.5, 4.0, 30.0):
                with decimal.localcontext(_context(80)):
                    got = _br_renyi(decimal.Decimal(eps), decimal.Decimal(alpha - 1))
                ref = ref_renyi(mp.mpf(eps), mp.mpf(alpha))
                assert abs(mp.mpf(str(got)) - ref) <= ref * mp.mpf("1e-20")
                assert float(got) <= alpha * eps**2 / 8


def test_monotone_in_k_and_epsilon():
    delta = 1e-6
    ks = [1, 2, 5, 10, 100, 1000, 10_000]
    by_k = [compose_bounded_range(0.01, k, delta).epsilon for k in ks]
    assert by_k == sorted(by_k) and len(set(by_k)) == len(by_k)
    epss = [1e-5, 1e-3, 0.01, 0.05, 0.2, 1.0, 5.0]
    by_eps = [compose_bounded_range(e, 100, delta).epsilon for e in epss]
    assert by_eps == sorted(by_eps) and len(set(by_eps)) == len(by_eps)


@pytest.mark.parametrize(
    "eps,k,delta",
    [(0.01, 1000, 1e-6), (0.5, 10, 1e-6), (2.0, 3, 1e-3), (1e-4, 10**6, 1e-8), (10.0, 2, 1e-6)],
)
def test_never_worse_than_optimal_composition_or_basic(eps, k, delta):
    got = compose_bounded_range(eps, k, delta)
    assert got.epsilon <= compose_optimal(Budget(eps), k, delta).epsilon
    assert got.epsilon <= k * eps * (1 + 2**-50)


def test_one_mechanism():
    # k = 1: never above epsilon (an eps-BR mechanism is eps-DP), below it when delta > 0.
    for eps in (0.01, 0.5, 1.0, 3.0):
        assert compose_bounded_range(eps, 1, 1e-6).epsilon <= eps
    assert max_bounded_range_epsilon(Budget(0.7), 1) == 0.7
    assert max_bounded_range_epsilon(Budget(0.7, 1e-6), 1) >= 0.7


def test_zero_epsilon():
    assert compose_bounded_range(0.0, 10, 1e-6) == Budget(0.0, 1e-6)


def test_max_epsilon_is_feasible_and_tight():
    for total, k in [(Budget(1.0, 1e-6), 1000), (Budget(0.5, 1e-9), 50), (Budget(3.0, 1e-5), 7)]:
        eps = max_bounded_range_epsilon(total, k)
        assert compose_bounded_range(eps, k, total.delta).epsilon <= total.epsilon
        assert compose_bounded_range(eps * (1 + 1e-9), k, total.delta).epsilon > total.epsilon


def test_max_epsilon_pure_total_is_basic_split():
    assert max_bounded_range_epsilon(Budget(1.0), 10) == (Budget(1.0) / 10).epsilon


def _max_eps(compose, total, k):
    """Largest per-mechanism epsilon with compose(eps) <= total (bisection, for comparison)."""
    lo, hi = 0.0, total.epsilon
    for _ in range(60):
        mid = (lo + hi) / 2
        if compose(mid).epsilon <= total.epsilon:
            lo = mid
        else:
            hi = mid
    return lo


def test_issue_target_k1000(capsys):
    """Issue 18's target: k = 1000 exponential mechanisms within (1, 1e-6)."""
    total, k = Budget(1.0, 1e-6), 1000
    br = max_bounded_range_epsilon(total, k)
    kov = _max_eps(lambda e: compose_optimal(Budget(e), k, total.delta), total, k)
    adv = _max_eps(lambda e: compose_advanced(Budget(e), k, total.delta), total, k)
    with capsys.disabled():
        print(
            f"\nk=1000, total (1, 1e-6): bounded range {br:.6f}, optimal {kov:.6f}, "
            f"advanced {adv:.6f}"
        )
    assert br >= 0.0112
    assert br >= 1.5 * kov
    assert 0.0074 <= kov <= 0.0076 and 0.0057 <= adv <= 0.0059


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,name",
    [
        ((-0.1, 10, 1e-6), "epsilon"),
        ((math.nan, 10, 1e-6), "epsilon"),
        ((math.inf, 10, 1e-6), "epsilon"),
        ((None, 10, 1e-6), "epsilon"),
        ((True, 10, 1e-6), "epsilon"),
        ((0.1, 0, 1e-6), "k"),
        ((0.1, 2.0, 1e-6), "k"),
        ((0.1, True, 1e-6), "k"),
        ((0.1, 10, 0.0), "delta"),
        ((0.1, 10, 1.0), "delta"),
        ((0.1, 10, -1e-6), "delta"),
        ((0.1, 10, math.nan), "delta"),
    ],
)
def test_bad_arguments(args, name):
    with pytest.raises(InvalidParameterError, match=f"^{name}:"):
        compose_bounded_range(*args)


def test_bad_arguments_max():
    with pytest.raises(InvalidParameterError, match="^total:"):
        max_bounded_range_epsilon(1.0, 10)
    with pytest.raises(InvalidParameterError, match="^k:"):
        max_bounded_range_epsilon(Budget(1.0, 1e-6), 0)


def test_huge_epsilon_is_refused_or_basic():
    # Above the Rényi route's range the bound is that of optimal composition (no overflow).
    got = compose_bounded_range(1e3, 3, 1e-6)
    assert got.epsilon <= 3e3


def test_doctests():
    import doctest

    from privlearn.accounting import _bounded_range

    # The public functions are documented as privlearn.accounting.<name> (their __module__),
    # which testmod would skip: run their docstrings directly.
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for f in (_bounded_range.compose_bounded_range, _bounded_range.max_bounded_range_epsilon):
        for test in doctest.DocTestFinder().find(f, f.__name__, globs={}):
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 2 and result.failed == 0


def test_huge_k_skips_kov_and_stays_fast_and_safe():
    # Beyond 10**6 mechanisms the second bound is basic composition (KOV's cost grows like
    # sqrt(k)); the RDP route is the tight one there. Its value is checked independently: the
    # bound is at least the zCDP route's lower envelope k eps^2 / 8 (a k-fold composition's
    # epsilon at any delta < 1/2 is at least its mean privacy loss, which for k eps-BR
    # mechanisms can reach k eps^2 / 8 (Dong, Durfee and Rogers 2020)), and at most the zCDP
    # route rho + 2 sqrt(rho ln(1/delta)) with rho = k eps^2 / 8 (Bun and Steinke 2016).
    import math

    k, eps, delta = 10**30, 1e-16, 1e-6
    got = compose_bounded_range(eps, k, delta)
    rho = k * eps**2 / 8
    assert got.delta == delta
    assert rho <= got.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / delta)) + 1e-12
    assert compose_bounded_range(eps, 10**7, delta).epsilon <= 10**7 * eps * (1 + 1e-15)
