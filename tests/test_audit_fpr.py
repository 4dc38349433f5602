"""False-positive rate of the issue-21 audits: at most the stated ``alpha`` on correct
mechanisms whose claim is TIGHT, checked over many seeds.

Each method (``epsilon``, ``hockey-stick``, ``tradeoff`` with an (epsilon, delta) claim and with
a :class:`~privlearn.audit.GaussianDP` claim, and ``distinguisher="logistic"``) audits a correct
mechanism at exactly its claimed privacy -- the Laplace mechanism at scale ``1 / epsilon``, the
Gaussian at its exact analytic ``(epsilon, delta)`` (``tests/audit_controls.py``), ``N(0, 1)``
against ``N(mu, 1)`` for ``mu``-GDP -- at a LARGE ``alpha = 0.1`` over ``M = 200`` seeds with a
small ``n`` per run. A valid audit refutes each run with probability at most ``alpha``, so the
number of refutations is stochastically below ``Binomial(M, alpha)``; the test asserts it is at
most that law's upper ``1 - 1e-6`` quantile (``scipy.stats.binom.ppf``), i.e. a valid audit
fails this test with probability at most 1e-6. For the trade-off method the DKW band of the
curve is checked the same way (``worst_violation(claim) > 0`` counts as a refutation: the band
holds with probability ``1 - alpha``).

Power check (every "passes" paired with one): the same harness, with a claim too strong
(epsilon 0.7 for the 1-DP Laplace, mu 0.75 for the 1-GDP pair, delta 0.02 or (0.75, 0.02) for
the (1, 0.05) Gaussian), counts MORE refutations than the quantile, so the test can see an
audit whose bounds are too high -- it is not vacuous at this ``n``. Measured (seeds 0-199): no
tight run is refuted by any method (the audits are conservative: Bonferroni over the tests kept,
the held-out split), and the too-strong claims are refuted in 181-200 of 200 runs.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest
from scipy import stats

import audit_controls as ac
from privlearn.audit import GaussianDP, audit, tradeoff_function

ALPHA = 0.1  # the audits' alpha: large, so that a too-high false-positive rate shows
M = 200  # seeds per method
LEVEL = 1e-6  # the test's own false-positive rate
# the largest number of refutations a valid audit reaches with probability >= 1 - LEVEL
MAX_REFUTED = int(stats.binom.ppf(1.0 - LEVEL, M, ALPHA))

SIGMA_1_005 = ac.analytic_gaussian_sigma(1.0, 0.05)  # (1, 0.05) exactly


def _laplace(center: float) -> Callable[..., np.ndarray]:
    return lambda g, size: center + g.laplace(0.0, 1.0, size=size)


def _normal(center: float, sigma: float = 1.0) -> Callable[..., np.ndarray]:
    return lambda g, size: center + g.normal(0.0, sigma, size=size)


# (id, run_a, run_b, tight claim, too-strong claim for the power check, audit kwargs, n)
CASES: List[Tuple[str, Any, Any, Any, Any, Dict[str, Any], int]] = [
    ("epsilon-laplace", _laplace(0.0), _laplace(1.0), 1.0, 0.7, dict(method="epsilon"), 4000),
    (
        "hockey-stick-laplace",
        _laplace(0.0),
        _laplace(1.0),
        1.0,
        0.7,
        dict(method="hockey-stick"),
        4000,
    ),
    (
        "hockey-stick-gaussian",
        _normal(1.0, SIGMA_1_005),
        _normal(0.0, SIGMA_1_005),
        (1.0, 0.05),
        (1.0, 0.02),
        dict(method="hockey-stick"),
        10_000,
    ),
    (
        "tradeoff-gaussian",
        _normal(1.0, SIGMA_1_005),
        _normal(0.0, SIGMA_1_005),
        (1.0, 0.05),
        (0.75, 0.02),
        dict(method="tradeoff"),
        4000,
    ),
    (
        "tradeoff-gdp",
        _normal(0.0),
        _normal(1.0),
        GaussianDP(1.0),
        GaussianDP(0.75),
        dict(method="tradeoff"),
        4000,
    ),
    (
        "logistic-laplace",
        _laplace(0.0),
        _laplace(1.0),
        1.0,
        0.7,
        dict(distinguisher="logistic"),
        4000,
    ),
]


def _refutations(case, claim) -> Tuple[int, int]:
    """(runs refuted by the verdict, runs whose trade-off band lies below the claim)."""
    _, run_a, run_b, _, _, kwargs, n = case
    refuted = band = 0
    for seed in range(M):
        res = audit(run_a, run_b, claim, n=n, alpha=ALPHA, rng=seed, **kwargs)
        refuted += not res.passed
        if res.tradeoff is not None:
            band += res.tradeoff.worst_violation(claim) > 0
    return refuted, band


def test_binomial_quantile():
    # the bound the counts are held to: about alpha M plus 4.75 standard deviations
    assert MAX_REFUTED == int(stats.binom.ppf(1.0 - 1e-6, 200, 0.1))
    assert 20 < MAX_REFUTED < 50
    assert stats.binom.sf(MAX_REFUTED, M, ALPHA) <= LEVEL


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_false_positive_rate_at_most_alpha(case):
    name, _, _, tight, too_strong, kwargs, _ = case
    refuted, band = _refutations(case, tight)
    print(f"{name}: {refuted}/{M} refuted, band below the claim {band}/{M} (max {MAX_REFUTED})")
    assert refuted <= MAX_REFUTED, f"{name}: {refuted} of {M} correct runs refuted at alpha {ALPHA}"
    assert band <= MAX_REFUTED, f"{name}: the DKW band lay below the claim in {band} of {M} runs"
    # power: the same harness sees a claim that is too strong
    refuted_wrong, band_wrong = _refutations(case, too_strong)
    print(f"{name} at {too_strong}: {refuted_wrong}/{M} refuted, band {band_wrong}/{M}")
    assert refuted_wrong > MAX_REFUTED, f"{name}: no power at n={case[-1]} ({refuted_wrong}/{M})"
    if kwargs.get("method") == "tradeoff":
        assert band_wrong > MAX_REFUTED, f"{name}: the band has no power ({band_wrong}/{M})"


def test_tradeoff_claim_curves_are_the_claims():
    """The curves the band is compared with: the tight Gaussian's exact trade-off curve lies on
    or above the (1, 0.05) claim's curve (it is (1, 0.05)-DP) and touches it; N(0,1) vs N(1,1)
    is exactly the 1-GDP curve (Dong, Roth and Su 2022, Def. 2.6)."""
    a = np.linspace(1e-6, 1 - 1e-6, 2001)
    # threshold tests of N(0, s^2) (b) against N(1, s^2) (a): type I a, type II
    # Phi(Phi^-1(1 - a) - 1 / s)
    s = SIGMA_1_005
    exact = stats.norm.cdf(stats.norm.ppf(1 - a) - 1.0 / s)
    claim = tradeoff_function((1.0, 0.05), a)
    assert np.all(exact >= claim - 1e-9)
    assert np.min(exact - claim) < 1e-4
    gdp = tradeoff_function(GaussianDP(1.0), a)
    assert np.allclose(gdp, stats.norm.cdf(stats.norm.ppf(1 - a) - 1.0), atol=1e-12)
