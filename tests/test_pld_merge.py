"""Exact merges before PLD discretisation (issue 18, speed): the Gaussian parts of a composed
event become one Gaussian of mu = sqrt(sum mu_i^2) (Dong, Roth and Su, JRSS-B 2022, Corollary
3.3), rounded up; repeated parts are composed once and self-composed by their common count.
Reference values are computed here with mpmath from the closed forms, never from the code."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import pytest

from privlearn.accounting import _pld
from privlearn.accounting._event import PrivacyEvent, _sqrt_up, _sum_squares_up
from privlearn.errors import InvalidParameterError

mp.mp.dps = 40
H = 1e-4
EPS = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0)


def _gauss_delta(mu: mp.mpf, eps: float) -> mp.mpf:
    """Balle and Wang (ICML 2018), Theorem 8: delta of the pair N(0,1), N(mu,1)."""
    e = mp.mpf(eps)
    return mp.ncdf(-e / mu + mu / 2) - mp.e**e * mp.ncdf(-e / mu - mu / 2)


def _mu_total(pairs) -> mp.mpf:
    return mp.sqrt(sum(k * (mp.mpf(d) / mp.mpf(s)) ** 2 for s, d, k in pairs))


PAIRS = [(1.0, 1.0, 1), (2.5, 1.0, 3), (3.7, 2.0, 1), (10.0, 0.5, 7), (0.9, 1.0, 2)]


def _gaussian_event(neighbours: str = "replace-one") -> PrivacyEvent:
    parts = [
        PrivacyEvent.gaussian(s, sensitivity=d, neighbours=neighbours)
        if k == 1
        else PrivacyEvent.repeated(
            PrivacyEvent.gaussian(s, sensitivity=d, neighbours=neighbours), k
        )
        for s, d, k in PAIRS
    ]
    # nested: a composition inside a composition
    return PrivacyEvent.composed([PrivacyEvent.composed(parts[:2]), *parts[2:]])


def test_merged_gaussians_bound_the_exact_curve_and_stay_within_one_grid_step() -> None:
    curve = _gaussian_event().to_pld(H)
    mu = _mu_total(PAIRS)
    for eps in EPS:
        got = curve.delta(eps)
        exact = _gauss_delta(mu, eps)
        assert got >= exact, (eps, got, exact)
        # one discretisation (connect-the-dots lies below rounding every loss up by h) plus err
        assert got <= _gauss_delta(mu, eps - H) + curve.error_bound + 1e-15, (eps, got)
    # epsilon at delta = 1e-6: at least the exact one, and close to it
    exact_eps = mp.findroot(lambda e: _gauss_delta(mu, e) - mp.mpf("1e-6"), 5)
    got_eps = curve.epsilon(1e-6)
    assert exact_eps <= got_eps <= exact_eps + 2 * H


def test_merge_detects_a_wrong_mu() -> None:
    """Power: the curve is not that of the largest part alone, nor of mu = sum mu_i."""
    curve = _gaussian_event().to_pld(H)
    mu_max = max(mp.mpf(d) / mp.mpf(s) for s, d, _ in PAIRS)
    mu_sum = sum(k * mp.mpf(d) / mp.mpf(s) for s, d, k in PAIRS)
    assert curve.delta(1.0) > _gauss_delta(mu_max, 1.0) + 1e-3
    assert curve.delta(1.0) < _gauss_delta(mu_sum, 1.0) - 1e-3


def test_merged_equals_the_unmerged_composition_within_discretisation() -> None:
    merged = _gaussian_event().to_pld(H)
    unmerged = _pld.compose_pld(
        [k * _pld.pld_gaussian(s, sensitivity=d, value_discretization=H) for s, d, k in PAIRS]
    )
    mu = _mu_total(PAIRS)
    n = sum(k for _, _, k in PAIRS)
    for eps in EPS:
        a, b = merged.delta(eps), unmerged.delta(eps)
        # both are upper bounds; the merge discretises once instead of n times
        assert a <= b + merged.error_bound + unmerged.error_bound
        assert b <= _gauss_delta(mu, eps - n * H) + unmerged.error_bound + 1e-15
        assert b - a <= 1e-7


def test_repeated_gaussian_is_one_gaussian_of_mu_sqrt_k() -> None:
    k = 400
    curve = PrivacyEvent.repeated(PrivacyEvent.gaussian(30.0), k).to_pld(H)
    mu = mp.sqrt(k) / 30
    for eps in EPS:
        assert _gauss_delta(mu, eps) <= curve.delta(eps) <= _gauss_delta(mu, eps - H) + 1e-12


def test_gaussian_and_pure_parts_match_the_exact_mixture() -> None:
    """composed(Gaussians, 5 x pure(e)): delta = sum_j Bin(5, j; p) delta_G(eps - l_j), the
    losses of the k-fold binary randomized response l_j = (2j - 5) e, p = e^e / (1 + e^e)."""
    k, e = 5, 0.3
    event = PrivacyEvent.composed(
        [_gaussian_event(), PrivacyEvent.repeated(PrivacyEvent.pure(e), k)]
    )
    curve = event.to_pld(H)
    mu = _mu_total(PAIRS)
    me = mp.mpf(e)
    p = mp.e**me / (1 + mp.e**me)

    def exact(eps: float) -> mp.mpf:
        return sum(
            mp.binomial(k, j) * p**j * (1 - p) ** (k - j) * _gauss_delta(mu, eps - (2 * j - k) * me)
            for j in range(k + 1)
        )

    for eps in EPS:
        got = curve.delta(eps)
        assert got >= exact(eps), eps
        assert got <= exact(eps - (k + 1) * H) + curve.error_bound + 1e-15, eps


def test_sqrt_and_sum_of_squares_round_up() -> None:
    for x in (Fraction(2), Fraction(1, 3), Fraction(10) ** -300, Fraction(10) ** 300, Fraction(9)):
        r = _sqrt_up(x)
        assert Fraction(r) ** 2 >= x
        assert Fraction(math.nextafter(r, 0.0)) ** 2 < x
    ratios = {(20.0 + 0.06 * j, 1.0 + 0.1 * (j % 3)): 1 + j % 4 for j in range(300)}
    exact = sum((k * (Fraction(d) / Fraction(s)) ** 2 for (s, d), k in ratios.items()), Fraction(0))
    up = _sum_squares_up(ratios)
    assert exact <= up <= exact * (1 + Fraction(1, 2**60))
    assert _sum_squares_up({(3.0, 1e-200): 1}) >= Fraction(1e-200) ** 2 / 9


def test_mixing_relations_is_refused() -> None:
    a = PrivacyEvent.gaussian(2.0)
    b = PrivacyEvent.gaussian(2.0, neighbours="add/remove-one")
    with pytest.raises(InvalidParameterError, match="events"):
        PrivacyEvent.composed([a, b])
    with pytest.raises(InvalidParameterError):
        _pld.compose_pld(
            [_pld.pld_gaussian(2.0), _pld.pld_gaussian(2.0, neighbours="add/remove-one")]
        )


def test_a_part_without_pld_form_still_raises() -> None:
    event = PrivacyEvent.composed([PrivacyEvent.gaussian(2.0), PrivacyEvent.zcdp(0.1)])
    with pytest.raises(InvalidParameterError, match="PLD"):
        event.to_pld(H)


def test_relation_is_kept() -> None:
    curve = _gaussian_event("add/remove-one").to_pld(H)
    assert curve.neighbours == "add/remove-one"


def test_common_count_factoring_agrees_with_separate_powers() -> None:
    """compose_pld([a] * 5 + [b] * 7 + [c]): (a + b) composed 5 times, then 2 b and c; the
    same mathematical PLD as 5 a + 7 b + c, so the two computations agree up to their float and
    truncation error bounds (same base discretisations)."""
    a = _pld.pld_laplace(5.0, value_discretization=H)
    b = _pld.pld_pure(0.2, value_discretization=H)
    c = _pld.pld_gaussian(3.0, value_discretization=H)
    fast = _pld.compose_pld([a] * 5 + [b] * 7 + [c])
    slow = (5 * a) + (7 * b) + c
    tol = fast.error_bound + slow.error_bound + 1e-14
    for eps in EPS:
        assert abs(fast.delta(eps) - slow.delta(eps)) <= tol, eps


def test_common_count_factoring_with_two_directions() -> None:
    s1 = _pld.pld_subsampled_gaussian(0.01, 1.0, value_discretization=H)
    s2 = _pld.pld_subsampled_gaussian(0.02, 1.5, value_discretization=H)
    g = _pld.pld_gaussian(4.0, neighbours="add/remove-one", value_discretization=H)
    fast = _pld.compose_pld([s1] * 30 + [s2] * 20 + [g])
    slow = (30 * s1) + (20 * s2) + g
    assert fast.directions == 2
    tol = fast.error_bound + slow.error_bound + 1e-14
    for eps in EPS:
        assert abs(fast.delta(eps) - slow.delta(eps)) <= tol, eps
    event = PrivacyEvent.composed(
        [
            PrivacyEvent.repeated(PrivacyEvent.subsampled_gaussian(0.01, 1.0), 30),
            PrivacyEvent.repeated(PrivacyEvent.subsampled_gaussian(0.02, 1.5), 20),
            PrivacyEvent.gaussian(4.0, neighbours="add/remove-one"),
        ]
    )
    assert abs(event.to_pld(H).epsilon(1e-6) - fast.epsilon(1e-6)) <= 1e-9
