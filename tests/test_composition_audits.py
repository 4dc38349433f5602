"""Privacy audits of composed mechanisms against the accounting's (epsilon, delta) claim.

Each case runs ``k`` of privlearn's own mechanisms (vectorised: one call draws all ``n * k``
outputs) on a pair of worst-case neighbouring inputs, projects the joint output onto its
optimal statistic (the privacy loss, or a sufficient statistic monotone in it), and computes
:func:`privlearn.audit.audit`'s Clopper-Pearson lower bound on epsilon at the claimed delta,
with false-positive rate ``ALPHA = 1e-6``. The claim is the accounting's, through the route
under test:

(a) ``k`` Laplace mechanisms, claimed by ``rdp_to_dp(k * rdp_laplace(b), delta)`` (Mironov
    2017 Proposition 6, composed as RDP, converted by Canonne-Kamath-Steinke 2020);
(b) ``k`` exponential mechanisms at ``max_bounded_range_epsilon(total, k)`` each, claimed to be
    ``total`` (bounded-range composition), over 2 and 3 candidates whose scores move by the
    sensitivity in opposite directions;
(c) ``k`` Gaussian mechanisms, claimed by ``zcdp_to_dp(k * zcdp_gaussian(sigma), delta)``
    (Bun-Steinke 2016, CKS 2020 Corollary 13);
(d) ``k`` binary randomized responses, claimed by the RDP route.

The lower bound must stay at or below the claim (a correct claim fails with probability at
most 1e-6). **Power check:** the same audit on the mechanisms with half the noise (twice the
per-step epsilon) must exceed the claim. Each case also checks that the claim is well below
basic composition, so the audit is of the composition route, not of ``k * epsilon``. Claims
are at delta = 1e-2 or 1e-3: at smaller delta the events that separate a correct from a broken
claim have probabilities below what 10^6 samples can estimate (the power check then fails).

The Laplace and Gaussian mechanisms use ``numerics="fast"`` (continuous noise of exactly the
stated scale, the mechanism the accounting describes); the exponential mechanism and
randomized response use their exact samplers.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from privlearn import mechanisms as M
from privlearn.accounting import Budget
from privlearn.accounting._bounded_range import compose_bounded_range, max_bounded_range_epsilon
from privlearn.accounting._convert import rdp_to_dp, zcdp_to_dp
from privlearn.accounting._rdp import rdp_laplace, rdp_randomized_response
from privlearn.accounting._zcdp import zcdp_gaussian
from privlearn.audit import audit

ALPHA = 1e-6
N = 1_000_000  # joint outputs per side (continuous noise: fast samplers)
N_EM = 400_000  # exact discrete samplers (exponential mechanism, randomized response)

Sampler = Callable[..., np.ndarray]


def _seed(g: np.random.Generator) -> int:
    return int(g.integers(2**63))


def _audit_pair(
    make: Callable[[float, int], Sampler],
    factor: float,
    claim: Budget,
    statistic: Callable[[np.ndarray], np.ndarray],
    seed: int,
    n: int = N,
) -> float:
    """The audit's lower bound for the mechanisms run with ``factor`` times the per-step
    epsilon (1: as accounted; 2: half the noise), on the neighbouring inputs 0 and 1."""
    result = audit(
        make(factor, 0),
        make(factor, 1),
        claim,
        n=n,
        alpha=ALPHA,
        statistic=statistic,
        rng=seed,
        method="epsilon",
    )
    assert result.claimed_delta == claim.delta
    return result.bound


def _check(good: float, bad: float, claim: Budget) -> None:
    assert good <= claim.epsilon, f"claim {claim} refuted: lower bound {good:.4f}"
    assert bad > claim.epsilon, f"half the noise not caught: {bad:.4f} <= {claim.epsilon:.4f}"


# ============================================================================================
# (a) k Laplace mechanisms, RDP route
# ============================================================================================

LAPLACE_CASES = [(10, 4.0, 1e-2), (20, 6.0, 1e-2)]  # (k, per-step scale b, delta)


@pytest.mark.parametrize("k, scale, delta", LAPLACE_CASES)
def test_k_laplace_rdp_claim_survives_audit_and_half_noise_is_caught(k, scale, delta):
    claim = rdp_to_dp(k * rdp_laplace(scale), delta)
    assert claim.epsilon < 0.95 * k / scale  # strictly better than basic composition

    def make(factor: float, centre: int) -> Sampler:
        def run(g: np.random.Generator, size: int) -> np.ndarray:
            value = np.full((size, k), float(centre))
            # every step's query moves by its sensitivity 1: noise of scale b / factor
            return M.laplace(value, 1.0, factor / scale, rng=_seed(g), numerics="fast")

        return run

    # privacy loss of the joint output: sum_i (|y_i - 1| - |y_i|) / b, a decreasing function of
    # sum_i clip(y_i, 0, 1) (the Neyman-Pearson statistic)
    def stat(y: np.ndarray) -> np.ndarray:
        return np.clip(y, 0.0, 1.0).sum(axis=1)

    good = _audit_pair(make, 1.0, claim, stat, seed=11 + k)
    bad = _audit_pair(make, 2.0, claim, stat, seed=21 + k)
    _check(good, bad, claim)


# ============================================================================================
# (b) k exponential mechanisms, bounded-range composition
# ============================================================================================

# (k, total, scores on input a, scores on input b): every score moves by at most 1
EM_CASES = [
    (10, Budget(2.0, 1e-2), [1, 0], [0, 1]),
    (20, Budget(2.0, 1e-2), [1, 0, 0], [0, 1, 1]),
]


@pytest.mark.parametrize("k, total, scores_a, scores_b", EM_CASES)
def test_k_exponential_mechanisms_bounded_range_claim(k, total, scores_a, scores_b):
    eps = max_bounded_range_epsilon(total, k)
    assert compose_bounded_range(eps, k, total.delta).epsilon <= total.epsilon
    assert k * eps > 2.0 * total.epsilon  # the claim is far below basic composition
    scores = (np.asarray(scores_a), np.asarray(scores_b))

    def make(factor: float, side: int) -> Sampler:
        def run(g: np.random.Generator, size: int) -> np.ndarray:
            picks = M.exponential(scores[side], factor * eps, size=size * k, rng=_seed(g))
            return np.asarray(picks).reshape(size, k)

        return run

    # the outputs are independent across steps and candidate 0 is the only one whose
    # probability ratio differs: the number of 0s is sufficient (discrete, k + 1 values)
    def stat(y: np.ndarray) -> np.ndarray:
        return (y == 0).sum(axis=1)

    good = _audit_pair(make, 1.0, total, stat, seed=31 + k, n=N_EM)
    bad = _audit_pair(make, 2.0, total, stat, seed=41 + k, n=N_EM)
    _check(good, bad, total)


# ============================================================================================
# (c) k Gaussian mechanisms, zCDP route
# ============================================================================================

# (k, per-step (epsilon, delta) the mechanism is calibrated to, delta of the claim)
GAUSS_CASES = [(10, (1.0, 1e-3), 1e-2), (20, (0.5, 1e-3), 1e-2)]


@pytest.mark.parametrize("k, step, delta", GAUSS_CASES)
def test_k_gaussian_mechanisms_zcdp_claim(k, step, delta):
    eps0, delta0 = step
    sigma = M.gaussian_sigma(1.0, eps0, delta0, numerics="fast")
    claim = zcdp_to_dp(k * zcdp_gaussian(sigma), delta)
    assert claim.epsilon < 0.5 * k * eps0  # far below basic composition of the steps

    def make(factor: float, centre: int) -> Sampler:
        def run(g: np.random.Generator, size: int) -> np.ndarray:
            value = np.full((size, k), float(centre))
            # sigma is proportional to the sensitivity: sensitivity 1/2 gives sigma / 2
            return M.gaussian(value, 1.0 / factor, eps0, delta0, rng=_seed(g), numerics="fast")

        return run

    assert M.gaussian_sigma(0.5, eps0, delta0, numerics="fast") == pytest.approx(sigma / 2)

    # the sum is sufficient for k Gaussians with a common mean shift (loss is linear in it)
    def stat(y: np.ndarray) -> np.ndarray:
        return y.sum(axis=1)

    good = _audit_pair(make, 1.0, claim, stat, seed=51 + k)
    bad = _audit_pair(make, 2.0, claim, stat, seed=61 + k)
    _check(good, bad, claim)
    # A zCDP claim with half the rho (the factor 2 of Delta^2 / (2 sigma^2) dropped twice) is
    # refuted by the very samples of the correct mechanism
    wrong = zcdp_to_dp(k * zcdp_gaussian(sigma * 2**0.5), delta)
    assert good > wrong.epsilon, (good, wrong)


# ============================================================================================
# (d) k randomized responses, RDP route
# ============================================================================================


@pytest.mark.parametrize("k, eps0, delta", [(12, 0.35, 1e-2)])
def test_k_randomized_responses_rdp_claim(k, eps0, delta):
    claim = rdp_to_dp(k * rdp_randomized_response(eps0), delta)
    assert claim.epsilon < 0.8 * k * eps0

    def make(factor: float, bit: int) -> Sampler:
        def run(g: np.random.Generator, size: int) -> np.ndarray:
            bits = np.full(size * k, bool(bit))
            out = M.randomized_response(bits, factor * eps0, rng=_seed(g))
            return np.asarray(out).reshape(size, k)

        return run

    def stat(y: np.ndarray) -> np.ndarray:  # number of reported ones: sufficient
        return y.sum(axis=1)

    good = _audit_pair(make, 1.0, claim, stat, seed=71, n=N_EM)
    bad = _audit_pair(make, 2.0, claim, stat, seed=81, n=N_EM)
    _check(good, bad, claim)
