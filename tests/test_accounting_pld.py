"""Privacy-loss-distribution accounting (privlearn.accounting._pld, Rust core accounting::pld).

Exact values are derived here with mpmath from the papers' formulas (Gaussian: Balle and Wang
2018, Theorem 8; randomized response and pure DP: binomial sums over the losses), never from
the code under test; agreement with Google's dp_accounting PLD at the same discretisation.
"""

from __future__ import annotations

import math
import pickle

import mpmath
import pytest

from privlearn.accounting._budget import Budget
from privlearn.accounting._convert import rdp_to_dp
from privlearn.accounting._pld import (
    PldCurve,
    compose_pld,
    pld_approx,
    pld_discrete_gaussian,
    pld_discrete_laplace,
    pld_gaussian,
    pld_laplace,
    pld_pure,
    pld_randomized_response,
    pld_subsampled_gaussian,
    pld_subsampled_laplace,
)
from privlearn.accounting._rdp import rdp_gaussian
from privlearn.errors import InvalidParameterError

mpmath.mp.dps = 50

EPS_POINTS = [0.0, 0.05, 0.2, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def gauss_delta_exact(mu: float, eps: float) -> mpmath.mpf:
    """Balle and Wang 2018, Theorem 8: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    mu = mpmath.mpf(mu)
    eps = mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def rr_kfold_delta_exact(e0: float, k: int, eps: float, kary: int = 2) -> mpmath.mpf:
    """k-fold k-ary randomized response: losses e0 (prob e^e0/Z), -e0 (1/Z), 0 ((kary-2)/Z);
    the k-fold loss is (a - b) e0 with multinomial counts; delta = E[(1 - e^{eps - L})_+]."""
    e0m = mpmath.mpf(e0)
    z = mpmath.exp(e0m) + kary - 1
    pa, pb, pc = mpmath.exp(e0m) / z, 1 / z, mpmath.mpf(kary - 2) / z
    total = mpmath.mpf(0)
    for a in range(k + 1):
        for b in range(k - a + 1):
            c = k - a - b
            if c and pc == 0:
                continue
            loss = (a - b) * e0m
            if loss <= eps:
                continue
            prob = (
                mpmath.factorial(k)
                / (mpmath.factorial(a) * mpmath.factorial(b) * mpmath.factorial(c))
                * pa**a
                * pb**b
                * (pc**c if c else 1)
            )
            total += prob * (1 - mpmath.exp(mpmath.mpf(eps) - loss))
    return total


def laplace_delta_exact(e0: float, eps: float) -> mpmath.mpf:
    """Laplace pair (Lap(0,b), Lap(D,b)), e0 = D/b, by direct integration of the densities."""
    b = mpmath.mpf(1)
    d = mpmath.mpf(e0)
    p = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    q = lambda x: mpmath.exp(-abs(x - d) / b) / (2 * b)  # noqa: E731
    f = lambda x: max(p(x) - mpmath.exp(eps) * q(x), 0)  # noqa: E731
    # Break the integral where the integrand has kinks: 0, D and the crossing (D - b eps) / 2.
    points = sorted({mpmath.mpf(0), d, min(max((d - b * eps) / 2, mpmath.mpf(0)), d)})
    return mpmath.quad(f, [-mpmath.inf, *points, mpmath.inf])


# --------------------------------------------------------------------------------------------
# Safe side against exact values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("k", [1, 4, 25])
def test_gaussian_never_below_exact_and_tight(sigma: float, k: int) -> None:
    curve = k * pld_gaussian(sigma, value_discretization=1e-3)
    mu = math.sqrt(k) / sigma  # the k-fold Gaussian is the Gaussian with mu sqrt(k)
    for eps in EPS_POINTS:
        exact = gauss_delta_exact(mu, eps)
        got = curve.delta(eps)
        assert got >= exact, (eps, got, exact)
        assert got <= exact + 2e-3 * max(mu, 1.0) + 1e-9, (eps, got, exact)


def test_gaussian_power_detects_a_violation() -> None:
    # Power check: a curve for twice the noise falls below the exact delta of the real noise.
    # (4 compositions at sigma = 4 have mu = 1/2; the claim tested above is for mu = 1.)
    weak = 4 * pld_gaussian(4.0, value_discretization=1e-3)
    assert weak.delta(1.0) < gauss_delta_exact(1.0, 1.0)


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("kary", [2, 3])
def test_randomized_response_k_fold_exact(k: int, kary: int) -> None:
    e0 = 0.5  # a multiple of the grid step: the discrete PLD is exact up to err
    curve = k * pld_randomized_response(e0, kary, value_discretization=1e-3)
    for eps in [0.0, 0.25, 0.5, 1.0, 1.7, 2.5]:
        exact = rr_kfold_delta_exact(e0, k, eps, kary)
        got = curve.delta(eps)
        assert got >= exact, (eps, got, exact)
        assert got <= exact + 1e-9, (eps, got, exact)


def test_pure_is_binary_randomized_response_and_safe_off_grid() -> None:
    e0 = 0.123456  # not on the grid: connect-the-dots stays above
    curve = 5 * pld_pure(e0, value_discretization=1e-3)
    for eps in [0.0, 0.1, 0.3, 0.6]:
        exact = rr_kfold_delta_exact(e0, 5, eps)
        assert curve.delta(eps) >= exact
        assert curve.delta(eps) <= exact + 2e-3


def test_approx_dp_curve() -> None:
    e0, d0 = 0.5, 1e-5
    curve = pld_approx(e0, d0, value_discretization=1e-3)
    for eps in [0.0, 0.2, 0.5, 1.0]:
        exact = d0 + (1 - d0) * rr_kfold_delta_exact(e0, 1, eps)
        assert exact <= curve.delta(eps) <= exact + 1e-9
    # (eps, delta)-DP composed k times: delta(eps) at least 1 - (1 - d0)^k.
    assert (3 * curve).delta(10.0) >= 1 - (1 - d0) ** 3


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_laplace_never_below_exact(scale: float) -> None:
    curve = pld_laplace(scale, value_discretization=1e-3)
    e0 = 1.0 / scale
    for eps in [0.0, 0.1, 0.3, 0.45, 1.0, 1.9]:
        exact = laplace_delta_exact(e0, eps)
        got = curve.delta(eps)
        assert got >= exact, (eps, got, exact)
        assert got <= exact + 1e-3, (eps, got, exact)


def test_epsilon_is_safe_and_inverts_delta() -> None:
    sigma, k = 1.0, 10
    curve = k * pld_gaussian(sigma)
    mu = math.sqrt(k) / sigma
    for delta in [1e-2, 1e-5, 1e-8]:
        eps = curve.epsilon(delta)
        assert curve.delta(eps) <= delta
        assert gauss_delta_exact(mu, eps) <= delta
        # Not loose: slightly smaller epsilons violate the exact curve's delta by little.
        assert gauss_delta_exact(mu, eps - 0.01) > delta * 0.9
    b = curve.to_dp(1e-5)
    assert isinstance(b, Budget) and b.delta == 1e-5 and b.epsilon == curve.epsilon(1e-5)


def test_pld_gaussian_beats_rdp() -> None:
    for sigma, k in [(1.0, 1), (2.0, 50), (5.0, 1000)]:
        pld_eps = (k * pld_gaussian(sigma, value_discretization=1e-3)).epsilon(1e-6)
        rdp_eps = rdp_to_dp(k * rdp_gaussian(sigma), 1e-6).epsilon
        assert pld_eps <= rdp_eps, (sigma, k, pld_eps, rdp_eps)


# --------------------------------------------------------------------------------------------
# Agreement with dp_accounting at the same discretisation
# --------------------------------------------------------------------------------------------

dpa = pytest.importorskip("dp_accounting")
from dp_accounting.pld import privacy_loss_distribution as dpa_pld  # noqa: E402


def _close(ours: float, theirs: float, rel: float = 5e-3, abs_: float = 2e-3) -> None:
    assert abs(ours - theirs) <= abs_ + rel * abs(theirs), (ours, theirs)


@pytest.mark.parametrize("sigma,k", [(1.0, 1), (2.0, 10), (5.0, 200)])
def test_gaussian_agrees_with_dp_accounting(sigma: float, k: int) -> None:
    h = 1e-3
    theirs = dpa_pld.from_gaussian_mechanism(sigma, value_discretization_interval=h)
    theirs = theirs.self_compose(k) if k > 1 else theirs
    ours = k * pld_gaussian(sigma, value_discretization=h)
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))
    for eps in [0.5, 1.0, 2.0]:
        assert abs(ours.delta(eps) - theirs.get_delta_for_epsilon(eps)) <= 1e-4


@pytest.mark.parametrize("scale,k", [(1.0, 1), (2.0, 20)])
def test_laplace_agrees_with_dp_accounting(scale: float, k: int) -> None:
    h = 1e-3
    theirs = dpa_pld.from_laplace_mechanism(scale, value_discretization_interval=h)
    theirs = theirs.self_compose(k) if k > 1 else theirs
    ours = k * pld_laplace(scale, value_discretization=h)
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))


def test_subsampled_gaussian_agrees_with_dp_accounting() -> None:
    h, q, sigma, k = 1e-3, 0.05, 1.5, 100
    theirs = dpa_pld.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=h
    ).self_compose(k)
    ours = k * pld_subsampled_gaussian(q, sigma, value_discretization=h)
    assert ours.neighbours == "add/remove-one" and ours.directions == 2
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))


def test_subsampled_laplace_agrees_with_dp_accounting() -> None:
    h, q, scale, k = 1e-3, 0.1, 1.0, 50
    theirs = dpa_pld.from_laplace_mechanism(
        scale, sampling_prob=q, value_discretization_interval=h
    ).self_compose(k)
    ours = k * pld_subsampled_laplace(q, scale, value_discretization=h)
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))


def test_discrete_laplace_agrees_with_dp_accounting() -> None:
    h = 1e-3
    # dp_accounting's discrete Laplace has P(Z = z) ~ exp(-parameter |z|): parameter = 1/scale.
    theirs = dpa_pld.from_discrete_laplace_mechanism(
        1.0 / 2.0, sensitivity=1, value_discretization_interval=h
    ).self_compose(10)
    ours = 10 * pld_discrete_laplace(2.0, value_discretization=h)
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))


def test_discrete_gaussian_agrees_with_dp_accounting() -> None:
    h = 1e-3
    theirs = dpa_pld.from_discrete_gaussian_mechanism(
        2.0, sensitivity=1, value_discretization_interval=h
    ).self_compose(10)
    ours = 10 * pld_discrete_gaussian(2.0, value_discretization=h)
    for delta in [1e-3, 1e-6]:
        _close(ours.epsilon(delta), theirs.get_epsilon_for_delta(delta))


def test_discrete_gaussian_is_close_to_continuous_for_large_sigma() -> None:
    cont = pld_gaussian(20.0, value_discretization=1e-3)
    disc = pld_discrete_gaussian(20.0, value_discretization=1e-3)
    for eps in [0.0, 0.05, 0.1]:
        assert abs(cont.delta(eps) - disc.delta(eps)) < 1e-3


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


def test_monotone_in_k() -> None:
    base = pld_gaussian(3.0, value_discretization=1e-3)
    prev = None
    for k in [1, 2, 3, 5, 8, 13]:
        cur = k * base
        if prev is not None:
            for eps in EPS_POINTS:
                assert cur.delta(eps) >= prev.delta(eps) - prev.error_bound - cur.error_bound
        prev = cur


def test_composition_is_associative_and_order_free() -> None:
    h = 1e-3
    a = pld_gaussian(2.0, value_discretization=h)
    b = pld_laplace(1.5, value_discretization=h)
    c = pld_pure(0.3, value_discretization=h)
    left = (a + b) + c
    right = a + (b + c)
    alls = compose_pld([c, a, b])
    tol = left.error_bound + right.error_bound + alls.error_bound + 1e-12
    for eps in EPS_POINTS:
        assert abs(left.delta(eps) - right.delta(eps)) <= tol
        assert abs(left.delta(eps) - alls.delta(eps)) <= tol


def test_self_composition_equals_repeated_composition() -> None:
    g = pld_gaussian(2.0, value_discretization=1e-3)
    seq = g
    for _ in range(6):
        seq = seq + g
    fast = 7 * g
    grouped = compose_pld([g] * 7)
    for eps in EPS_POINTS:
        tol = seq.error_bound + fast.error_bound + 1e-12
        assert abs(seq.delta(eps) - fast.delta(eps)) <= tol
        assert abs(grouped.delta(eps) - fast.delta(eps)) <= tol + grouped.error_bound


def test_symmetric_and_two_direction_curves_compose() -> None:
    h = 1e-3
    sub = pld_subsampled_gaussian(0.1, 1.0, value_discretization=h)
    g = pld_gaussian(2.0, neighbours="add/remove-one", value_discretization=h)
    both = sub + g
    assert both.directions == 2
    assert both.delta(1.0) >= sub.delta(1.0) - 1e-12


def test_immutable_and_pickles() -> None:
    g = pld_gaussian(2.0, value_discretization=1e-3)
    with pytest.raises(AttributeError):
        g._h = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        PldCurve()
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.delta(0.5) == g.delta(0.5)
    assert g2.neighbours == g.neighbours and g2.value_discretization == g.value_discretization
    assert "PldCurve" in repr(g)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: pld_gaussian(0.0), "sigma"),
        (lambda: pld_gaussian(float("nan")), "sigma"),
        (lambda: pld_gaussian(1.0, sensitivity=-1.0), "sensitivity"),
        (lambda: pld_gaussian(1.0, neighbours="bogus"), "neighbours"),
        (lambda: pld_gaussian(1.0, value_discretization=0.0), "value_discretization"),
        (lambda: pld_gaussian(1.0, value_discretization=float("inf")), "value_discretization"),
        (lambda: pld_gaussian(1e-6, value_discretization=1e-6), "value_discretization"),
        (lambda: pld_laplace(-1.0), "scale"),
        (lambda: pld_randomized_response(0.0), "epsilon"),
        (lambda: pld_randomized_response(1.0, 1), "k"),
        (lambda: pld_randomized_response(1.0, True), "k"),
        (lambda: pld_pure(float("inf")), "epsilon"),
        (lambda: pld_pure(1000.0), "epsilon"),
        (lambda: pld_approx(1.0, 1.0), "delta"),
        (lambda: pld_approx(1.0, -0.1), "delta"),
        (lambda: pld_subsampled_gaussian(0.0, 1.0), "rate"),
        (lambda: pld_subsampled_gaussian(1.0, 1.0), "rate"),
        (lambda: pld_subsampled_gaussian(0.1, 0.0), "sigma"),
        (lambda: pld_subsampled_laplace(0.1, "a"), "scale"),
        (lambda: pld_discrete_laplace(1.0, sensitivity=1.5), "sensitivity"),
        (lambda: pld_discrete_gaussian(1.0, sensitivity=0), "sensitivity"),
    ],
)
def test_bad_arguments(call, param: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.parameter == param


def test_bad_compositions_and_readouts() -> None:
    a = pld_gaussian(1.0, value_discretization=1e-3)
    b = pld_gaussian(1.0, value_discretization=2e-3)
    c = pld_subsampled_gaussian(0.1, 1.0, value_discretization=1e-3)
    with pytest.raises(InvalidParameterError, match="value_discretization"):
        a + b
    with pytest.raises(InvalidParameterError, match="neighbours"):
        a + c  # replace-one with add/remove-one: refused, no silent mixing
    with pytest.raises(InvalidParameterError):
        compose_pld([])
    with pytest.raises(InvalidParameterError):
        compose_pld([a, "x"])  # type: ignore[list-item]
    with pytest.raises(InvalidParameterError):
        0 * a
    with pytest.raises(TypeError):
        a * 1.5  # type: ignore[operator]
    with pytest.raises(InvalidParameterError):
        a.epsilon(0.0)
    with pytest.raises(InvalidParameterError):
        a.epsilon(1.0)
    with pytest.raises(InvalidParameterError):
        a.delta(float("nan"))
    # A delta below the +inf mass has no finite epsilon.
    approx = pld_approx(1.0, 1e-3, value_discretization=1e-3)
    assert approx.epsilon(1e-4) == math.inf
    with pytest.raises(InvalidParameterError):
        approx.to_dp(1e-4)
