"""The Rust constructors of PLDs (rust/core/src/accounting/pld_build.rs) and the batched Laplace
path of composed events (issue 18: 1000 distinct mechanisms quickly).

Randomized response (pure DP, approximate DP, k-ary) is built by splitting each atom between its
two grid points in closed form; Laplace by the grid evaluation of the old numpy path, in Rust.
Every curve is checked against exact hockey-stick values computed here with mpmath (never
below), against the previous numpy construction (the same connect-the-dots curve up to its
margins), and compositions against exact sums over all outcomes."""

from __future__ import annotations

import itertools
import math
from typing import List, Sequence, Tuple

import mpmath as mp
import numpy as np
import pytest

from privlearn.accounting import _event, _pld
from privlearn.accounting._event import PrivacyEvent
from privlearn.errors import InvalidParameterError

mp.mp.dps = 40


def mp_atoms_delta(atoms: Sequence[Tuple[mp.mpf, mp.mpf]], eps: float) -> mp.mpf:
    """Exact hockey-stick value of finitely many (loss, P-mass) atoms."""
    e = mp.mpf(eps)
    return mp.fsum(p * (1 - mp.exp(e - loss)) for loss, p in atoms if loss > e)


def mp_rr_atoms(eps: float, k: int = 2, inf: float = 0.0) -> List[Tuple[mp.mpf, mp.mpf]]:
    # k-ary randomized response: P = (e^eps, 1, ..., 1) / Z, Q = (1, e^eps, 1, ..., 1) / Z.
    e = mp.mpf(eps)
    z = mp.exp(e) + (k - 1)
    w = 1 - mp.mpf(inf)
    return [(e, w * mp.exp(e) / z), (-e, w / z), (mp.mpf(0), w * (k - 2) / z)]


def mp_laplace_delta(e0: float, eps: float) -> mp.mpf:
    """Exact curve of (Lap(0, b), Lap(Delta, b)) with e0 = Delta / b, integrated here: the loss is
    e0 with P-mass 1/2, -e0 with P-mass e^-e0 / 2, and has P-density e^((l - e0)/2) / 4 on
    (-e0, e0)."""
    a, e = mp.mpf(e0), mp.mpf(eps)
    atoms = mp_atoms_delta([(a, mp.mpf(1) / 2), (-a, mp.exp(-a) / 2)], eps)
    lo = max(e, -a)
    if lo >= a:
        return atoms
    cont = mp.quad(lambda l: mp.exp((l - a) / 2) / 4 * (1 - mp.exp(e - l)), [lo, a])
    return atoms + cont


def old_rr_curve(eps: float, k: int, inf: float, h: float) -> _pld.PldCurve:
    """The previous numpy construction: the atoms' curve evaluated on the grid (with margins)."""
    z = math.exp(eps) + (k - 1)
    losses = np.array([eps, -eps, 0.0])
    pm = (1.0 - inf) * np.array([math.exp(eps) / z, 1.0 / z, (k - 2) / z])
    return _pld._symmetric(
        -eps, eps, h, lambda e: _pld._atoms_deltas(losses, pm, inf, e), "replace-one"
    )


def old_laplace_curve(e0: float, h: float) -> _pld.PldCurve:
    """The previous numpy construction of the Laplace curve."""

    def f(eps: np.ndarray) -> np.ndarray:
        inside = -np.expm1((eps - e0) / 2.0)
        below = -np.expm1(eps)
        t = np.where(eps < -e0, below, np.where(eps >= e0, 0.0, inside))
        return _pld._up(t, np.zeros_like(t))

    return _pld._symmetric(-e0, e0, h, f, "replace-one")


def probe_points(lo: float, hi: float, h: float) -> List[float]:
    """Grid points (at most ~150, always the ends) and off-grid points across [lo, hi]."""
    a, b = math.floor(lo / h) - 2, math.ceil(hi / h) + 3
    step = max(1, (b - a) // 150)
    pts = [i * h for i in list(range(a, b, step)) + list(range(a, a + 5)) + list(range(b - 5, b))]
    rng = np.random.default_rng(18)
    pts += list(rng.uniform(lo - 2 * h, hi + 2 * h, 60))
    return pts


RR_CASES = [
    (0.0123, 2, 0.0, 1e-3),
    (0.5, 2, 0.0, 1e-3),
    (0.3, 5, 0.0, 1e-3),
    (2.0 * 2.0**-10, 3, 0.0, 2.0**-10),  # atoms exactly on the grid
    (1e-4, 2, 0.0, 1e-3),  # eps below h
    (1.0, 2, 1e-5, 1e-4),  # approximate DP
    (0.018000000000000002, 2, 0.0, 1e-4),  # eps / h rounds down across a grid point
]


@pytest.mark.parametrize("eps,k,inf,h", RR_CASES)
def test_rr_never_below_exact_and_tight(eps: float, k: int, inf: float, h: float) -> None:
    if inf > 0:
        curve = _pld.pld_approx(eps, inf, value_discretization=h)
    else:
        curve = _pld.pld_randomized_response(eps, k, value_discretization=h)
    atoms = mp_rr_atoms(eps, k, inf)
    for e in probe_points(-eps, eps, h):
        exact = mp_atoms_delta(atoms, e) + mp.mpf(inf)
        got = curve.delta(e)
        assert got >= exact, (e, got, exact)
        # Connect-the-dots: exact at the grid points (up to the error bound and the read-out
        # margin, ~ n u for n atoms), the chord
        # in between (above the curve by less than h times the moved mass).
        assert got <= exact + h + 1e-12, (e, got, exact)
        if abs(e / h - round(e / h)) < 1e-9 and e > -eps:
            assert got <= exact + 1e-13 + 4 * (2 * eps / h) * 2.0**-53, (e, got, exact)


@pytest.mark.parametrize("eps,k,inf,h", RR_CASES)
def test_rr_agrees_with_the_numpy_construction(eps: float, k: int, inf: float, h: float) -> None:
    new = _pld._rr(eps, k, inf, h, "replace-one")
    old = old_rr_curve(eps, k, inf, h)
    assert new.error_bound < 1e-13
    for e in probe_points(-eps, eps, h):
        # The same chords; the old one carries its margins (relative 1e-12) and error bound.
        assert new.delta(e) <= old.delta(e) + 1e-14, e
        assert old.delta(e) <= new.delta(e) + 1e-11, e
    for d in (1e-3, 1e-6):
        assert new.epsilon(d) <= old.epsilon(d) + 1e-12


def test_rr_masses_are_at_most_four_atoms() -> None:
    curve = _pld.pld_pure(0.0123, value_discretization=1e-4)
    (core,) = curve._dirs
    masses = core.masses
    assert np.count_nonzero(masses) == 4
    assert abs(masses.sum() - 1.0) < 1e-14
    assert core.lo == math.floor(-0.0123 / 1e-4)


@pytest.mark.parametrize("scale", [2.0, 26.5, 0.77])
def test_laplace_never_below_exact_and_agrees_with_numpy(scale: float) -> None:
    h = 1e-3
    new = _pld.pld_laplace(scale, value_discretization=h)
    e0 = _pld._laplace_e0(scale, 1.0)
    assert e0 >= 1.0 / scale
    old = old_laplace_curve(e0, h)
    for e in probe_points(-e0, e0, h)[::2]:
        got = new.delta(e)
        assert got >= mp_laplace_delta(1.0 / scale, e), e
        assert abs(got - old.delta(e)) <= 1e-12 * max(got, 1e-3), e
    for d in (1e-2, 1e-5):
        assert abs(new.epsilon(d) - old.epsilon(d)) <= 1e-9


def test_laplace_batch_is_the_single_constructor() -> None:
    h = 1e-4
    e0s = [_pld._laplace_e0(20.0 + 0.06 * j, 1.0) for j in range(7)]
    batch = _pld._laplace_many(e0s, h, "replace-one")
    for e0, curve in zip(e0s, batch):
        single = _pld.pld_laplace(1.0, sensitivity=e0, value_discretization=h)
        assert np.array_equal(curve._dirs[0].masses, single._dirs[0].masses)
        assert curve._dirs[0].lo == single._dirs[0].lo
        assert curve._dirs[0].err == single._dirs[0].err


def test_composed_event_with_batched_laplace_matches_per_event_curves() -> None:
    h = 1e-3
    events = [PrivacyEvent.laplace(3.0 + 0.5 * j) for j in range(6)]
    events += [PrivacyEvent.laplace(3.0), PrivacyEvent.pure(0.05), PrivacyEvent.gaussian(4.0)]
    _event._pld_of.cache_clear()
    composed = PrivacyEvent.composed(events).to_pld(h)
    # The same leaves one by one (cached per event), composed by compose_pld.
    leaves = [e.to_pld(h) for e in events[:-1]] + [PrivacyEvent.gaussian(4.0).to_pld(h)]
    merged = _pld.compose_pld(leaves)
    for d in (1e-3, 1e-6):
        assert abs(composed.epsilon(d) - merged.epsilon(d)) <= 1e-9


def exact_rr_composition_delta(eps_list: Sequence[float], eps: float) -> mp.mpf:
    """Exact delta of the composition of binary randomized responses: a sum over all 2^k
    outcomes (losses add, P-masses multiply)."""
    es = [mp.mpf(x) for x in eps_list]
    p_up = [mp.exp(x) / (1 + mp.exp(x)) for x in es]
    total = mp.mpf(0)
    target = mp.mpf(eps)
    for signs in itertools.product((1, -1), repeat=len(es)):
        loss = mp.fsum(s * x for s, x in zip(signs, es))
        if loss > target:
            p = mp.fprod(pu if s == 1 else 1 - pu for s, pu in zip(signs, p_up))
            total += p * (1 - mp.exp(target - loss))
    return total


def test_composition_of_distinct_pure_events_never_below_exact() -> None:
    h = 1e-3
    eps_list = [0.05 + 0.0131 * j for j in range(11)]
    events = [PrivacyEvent.pure(e) for e in eps_list]
    curve = PrivacyEvent.composed(events).to_pld(h)
    for e in (0.0, 0.2, 0.5, 0.8, 1.0):
        exact = exact_rr_composition_delta(eps_list, e)
        got = curve.delta(e)
        assert got >= exact, (e, got, exact)
        # The per-event discretisations add up: a few h in the loss at most.
        assert got <= exact_rr_composition_delta(eps_list, e - 11 * h) + 1e-12, (e, got)


def test_composition_of_equal_pure_events_matches_binomial_sum() -> None:
    # Exact k-fold of eps-DP randomized response (a binomial sum; Kairouz, Oh and Viswanath).
    h, k, eps0 = 1e-4, 40, 0.0123
    # Distinct curves (eps0 + 1e-9 j >= eps0), so that compose_all composes them one by one.
    curves = [_pld.pld_pure(eps0 + 1e-9 * j, value_discretization=h) for j in range(k)]
    curve = _pld.compose_pld(curves)
    e0 = mp.mpf(eps0)
    p = mp.exp(e0) / (1 + mp.exp(e0))

    def exact(e: float) -> mp.mpf:
        return mp.fsum(
            mp.binomial(k, i) * p**i * (1 - p) ** (k - i) * (1 - mp.exp(e - (2 * i - k) * e0))
            for i in range(k + 1)
            if (2 * i - k) * e0 > e
        )

    for e in (0.0, 0.05, 0.1, 0.2):
        got = curve.delta(e)
        assert got >= exact(e), (e, got, exact(e))
        # Each event's atoms move by less than h (plus 4e-8 in epsilon here).
        assert got <= exact(e - k * h - 2e-6) + 1e-12, (e, got)


def test_compose_all_order_does_not_matter_beyond_error_bounds() -> None:
    h = 1e-4
    parts = [_pld.pld_laplace(20.0 + 0.7 * j, value_discretization=h) for j in range(9)]
    parts += [_pld.pld_pure(0.01 + 0.002 * j, value_discretization=h) for j in range(8)]
    parts.append(_pld.pld_gaussian(3.0, value_discretization=h))
    a = _pld.compose_pld(parts)
    b = _pld.compose_pld(parts[::-1])
    for e in (0.0, 0.3, 0.8, 1.5):
        assert abs(a.delta(e) - b.delta(e)) <= a.error_bound + b.error_bound + 1e-12


def test_bad_inputs_raise_named_errors() -> None:
    with pytest.raises(InvalidParameterError) as info:
        _pld.pld_randomized_response(1.0, 2**63)
    assert info.value.parameter == "k"
    with pytest.raises(InvalidParameterError) as info:
        _pld.pld_pure(701.0)
    assert info.value.parameter == "epsilon"
    with pytest.raises(InvalidParameterError) as info:
        _pld.pld_pure(1.0, value_discretization=1e-310)
    assert info.value.parameter == "value_discretization"
    with pytest.raises(InvalidParameterError) as info:
        _pld.pld_laplace(1e-3)  # losses up to 1000
    assert info.value.parameter == "scale"


def test_div_up_is_the_exact_quotient_rounded_up() -> None:
    from fractions import Fraction

    rng = np.random.default_rng(1818)
    nums = list(rng.uniform(1e-3, 1e3, 300)) + [1.0, 3.0, 0.1, 2.0**-1020, 1e300]
    dens = list(rng.uniform(1e-3, 1e3, 300)) + [3.0, 1.0, 0.3, 2.0**40, 7.0]
    for n, d in zip(nums, dens):
        got = _pld._div_up(float(n), float(d))
        exact = Fraction(float(n)) / Fraction(float(d))
        assert Fraction(got) >= exact
        assert Fraction(math.nextafter(got, 0.0)) < exact
