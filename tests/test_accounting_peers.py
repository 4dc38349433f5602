"""Cross-checks of privlearn's accounting against two more peers (issue 18), beside dp_accounting
(tests/test_accounting_interop.py):

* Microsoft's ``prv_accountant`` (Gopi, Lee and Wutschitz, "Numerical Composition of Differential
  Privacy", NeurIPS 2021): its ``compute_epsilon`` returns a lower bound, an estimate and an upper
  bound of the true epsilon, within its stated ``eps_error``. privlearn's PLD epsilon is an upper
  bound of the true epsilon, so it must lie at or above prv's lower bound (else privlearn
  under-reports) and, being tighter, at or below prv's upper bound.
* ``autodp`` (Zhu and Wang; ``rdp_bank`` and the Poisson amplification of Zhu and Wang, ICML 2019):
  exact Rényi curves of the Gaussian, Laplace and randomized-response mechanisms and the
  Poisson-subsampled Gaussian at integer orders. privlearn's curves are exact there too, rounded
  up: never below autodp's value, and above it only by rounding.

Both are optional test dependencies (``pip install prv-accountant autodp``); the tests are skipped
when they are missing. Neighbouring notions: prv's and autodp's mechanisms are the shifted pairs
N(0, s^2) vs N(1, s^2) and Lap(0, b) vs Lap(1, b) (sensitivity 1), which are privlearn's
replace-one pairs with ``sensitivity=1``; the subsampled Gaussian is add/remove-one on all sides.
"""

from __future__ import annotations

import functools
import math
import warnings

import pytest

from privlearn.accounting import (
    RDP_ORDERS,
    pld_gaussian,
    pld_laplace,
    pld_pure,
    pld_subsampled_gaussian,
    rdp_gaussian,
    rdp_laplace,
    rdp_randomized_response,
    rdp_subsampled_gaussian,
)

INTEGER_ORDERS = [a for a in RDP_ORDERS if a == int(a) and a >= 2]


def _prv_epsilon(prvs, counts, delta):
    prv = pytest.importorskip("prv_accountant")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = prv.PRVAccountant(
            prvs=prvs, max_self_compositions=counts, eps_error=0.01, delta_error=delta * 1e-4
        )
        return acc.compute_epsilon(delta=delta, num_self_compositions=counts)


@functools.lru_cache(maxsize=None)
def _subsampled_bracket():
    """prv's bracket and privlearn's epsilon for the issue's benchmark: q = 0.01, sigma = 1,
    10^4 folds, epsilon at delta = 1e-6 (computed once for the two tests that use it)."""
    pytest.importorskip("prv_accountant")
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    low, _, up = _prv_epsilon(
        [PoissonSubsampledGaussianMechanism(noise_multiplier=1.0, sampling_probability=0.01)],
        [10_000],
        1e-6,
    )
    ours = (10_000 * pld_subsampled_gaussian(0.01, 1.0)).epsilon(1e-6)
    return low, ours, up


def test_prv_brackets_the_subsampled_gaussian_after_ten_thousand_folds():
    low, ours, up = _subsampled_bracket()
    assert low <= ours <= up, (low, ours, up)


def test_prv_brackets_a_heterogeneous_composition():
    """100 Gaussians (sigma 5), 100 Laplace mechanisms (scale 20: prv's loss bound mu = 1/20)
    and 100 pure 0.02-DP releases, composed."""
    pytest.importorskip("prv_accountant")
    from prv_accountant.privacy_random_variables import (
        GaussianMechanism,
        LaplaceMechanism,
        PureDPMechanism,
    )

    low, _, up = _prv_epsilon(
        [GaussianMechanism(5.0), LaplaceMechanism(1 / 20), PureDPMechanism(0.02)],
        [100, 100, 100],
        1e-6,
    )
    ours = (100 * pld_gaussian(5.0) + 100 * pld_laplace(20.0) + 100 * pld_pure(0.02)).epsilon(1e-6)
    assert low <= ours <= up, (low, ours, up)


def _check_exact_up(ours: float, theirs: float) -> None:
    # Both are the exact Rényi divergence; privlearn's is rounded up.
    assert ours >= theirs * (1 - 1e-12) - 1e-300
    assert ours <= theirs * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("sigma", [0.5, 2.0, 30.0])
def test_autodp_gaussian_rdp(sigma):
    rdp_bank = pytest.importorskip("autodp.rdp_bank")
    curve = rdp_gaussian(sigma)
    for a in INTEGER_ORDERS:
        _check_exact_up(curve.at(a), rdp_bank.RDP_gaussian({"sigma": sigma}, float(a)))


@pytest.mark.parametrize("scale", [0.7, 3.0, 50.0])
def test_autodp_laplace_rdp(scale):
    rdp_bank = pytest.importorskip("autodp.rdp_bank")
    curve = rdp_laplace(scale)
    for a in INTEGER_ORDERS:
        theirs = rdp_bank.RDP_laplace({"b": scale}, float(a))
        if math.isfinite(theirs):
            _check_exact_up(curve.at(a), theirs)


@pytest.mark.parametrize("p", [0.55, 0.7, 0.9])
def test_autodp_randomized_response_rdp(p):
    """Binary randomized response telling the truth with probability p: epsilon = log(p/(1-p))."""
    rdp_bank = pytest.importorskip("autodp.rdp_bank")
    curve = rdp_randomized_response(math.log(p / (1 - p)))
    for a in INTEGER_ORDERS:
        # The epsilon passed to privlearn is rounded; allow that rounding's effect (relative
        # 1e-15 in epsilon) on top of the exact-up check.
        theirs = rdp_bank.RDP_randresponse({"p": p}, float(a))
        assert curve.at(a) >= theirs * (1 - 1e-12)
        assert curve.at(a) <= theirs * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("q, sigma", [(0.01, 1.0), (0.1, 2.0), (0.5, 0.8)])
def test_autodp_poisson_subsampled_gaussian_rdp(q, sigma):
    """Zhu and Wang's exact integer-order formula for the Poisson-subsampled Gaussian
    (``improved_bound_flag=True``), against privlearn's (Mironov, Talwar and Zhang 2019)."""
    pytest.importorskip("autodp")
    from autodp.mechanism_zoo import GaussianMechanism
    from autodp.transformer_zoo import AmplificationBySampling

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = AmplificationBySampling(PoissonSampling=True)(
            GaussianMechanism(sigma, name="GM"), q, improved_bound_flag=True
        )
        curve = rdp_subsampled_gaussian(q, sigma)
        for a in INTEGER_ORDERS:
            value = theirs.RenyiDP(float(a))
            if math.isfinite(value) and value < 1e3:
                assert curve.at(a) >= value * (1 - 1e-9), (a, curve.at(a), value)
                assert curve.at(a) <= value * (1 + 1e-6) + 1e-15, (a, curve.at(a), value)


def test_a_wrong_epsilon_would_be_caught():
    """Power: the bracket is narrow enough to catch an accountant 2% off in either direction."""
    low, ours, up = _subsampled_bracket()
    assert not low <= ours * 0.98 <= up
    assert not low <= ours * 1.02 <= up
