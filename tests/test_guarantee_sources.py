"""One source for every constant a guarantee depends on (issue 16).

The Python guarantees of the query-release algorithms, the sample size of the point
multi-learner and the ERM quantisation read the exact samplers' grid steps, noise scales and
quantiser from the Rust core (``_core.laplace_plan``, ``_core.sparse_vector_plan``,
``_core.multi_points_noise_scale``, ``_core.erm_quantize``) instead of restating them. These tests
pin those exposed values to what the samplers actually do: the grid step exactly (read from
released outputs), the noise scales statistically (chi-square, fixed seeds, false-positive rate
``1e-6``, with a power check at a scale 30% off), and the documented bounds of each value.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest

from privlearn import _core
from privlearn.learners import _erm_losses
from privlearn.mechanisms import SparseVector, laplace
from privlearn.random import Generator
from stats_helpers import assert_power_check, chi_square_pvalue


def _two_adic_exponent(x: float) -> int:
    q = Fraction(x)
    num, den = abs(q.numerator), q.denominator
    return (num & -num).bit_length() - 1 - (den.bit_length() - 1)


def _laplace_bins(scale: float) -> "tuple[np.ndarray, callable]":
    edges = np.array([-3.0, -2.0, -1.0, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0, 2.0, 3.0])

    def probs(b: float) -> np.ndarray:
        cdf = lambda x: 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)
        pts = [0.0] + [cdf(e * scale) for e in edges] + [1.0]
        return np.diff(pts)

    return edges * scale, probs


def _binned(samples: np.ndarray, edges: np.ndarray) -> np.ndarray:
    idx = np.searchsorted(edges, samples, side="right")
    return np.bincount(idx, minlength=len(edges) + 1)


# --------------------------------------------------------------------------------------------
# The exact Laplace sampler (DistanceToInstability)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_laplace_plan_is_what_the_sampler_uses(epsilon):
    step, scale = _core.laplace_plan(1.0, epsilon)
    # Documented bounds: 2^k <= 2^-20 min(1, 1/eps); the scale is 1/eps widened by one grid step
    # (a relative 2^-20) and rounded up to 2^-30 steps.
    assert step <= 2.0**-20 * min(1.0, 1.0 / epsilon)
    assert 1.0 / epsilon <= scale <= (1.0 / epsilon) * (1.0 + 2.0**-19) + step * 2.0**-29
    gen = Generator(12345)
    draws = np.array([laplace(0.0, 1.0, epsilon, rng=gen) for _ in range(20_000)])
    # The grid: every output is a multiple of the step, and not all of twice the step.
    assert min(_two_adic_exponent(float(x)) for x in draws if x != 0.0) == int(math.log2(step))
    # The scale: chi-square on bins in units of the plan's scale, power at 30% off.
    edges, probs = _laplace_bins(scale)
    counts = _binned(draws, edges)
    assert_power_check(
        lambda f: chi_square_pvalue(counts, probs(scale * f)), f"laplace eps={epsilon}"
    )


def test_distance_to_instability_uses_the_plan():
    from privlearn import query_release as Q

    eps, gamma_t = 0.5, 4.0
    step, scale = _core.laplace_plan(1.0, eps)
    delta = Q.DistanceToInstability(eps, gamma_t).privacy.delta
    # delta = P(dist 0 released) <= 1/2 exp(-(Gamma - 2 step) / scale), rounded up (not below it,
    # and not loosened by more than float rounding).
    bound = 0.5 * math.exp(-(gamma_t - 2 * step) / scale)
    assert bound <= delta <= bound * (1 + 1e-12)
    # and the plan's scale is at least the nominal 1/eps (the bound is on the safe side).
    assert delta >= 0.5 * math.exp(-gamma_t * eps)


# --------------------------------------------------------------------------------------------
# The exact sparse vector (the query-release stage)
# --------------------------------------------------------------------------------------------


def _sum_laplace_tail(a: float, b1: float, b2: float) -> float:
    """``P(X + Y >= a)`` for independent Laplace ``X ~ Lap(b1)``, ``Y ~ Lap(b2)``, ``a >= 0``,
    ``b1 != b2`` (the density of the sum is ``(b1 e^{-|x|/b1} - b2 e^{-|x|/b2}) / (2(b1²-b2²))``)."""
    return (b1**2 * math.exp(-a / b1) - b2**2 * math.exp(-a / b2)) / (2 * (b1**2 - b2**2))


def test_sparse_vector_plan_is_what_the_sampler_uses():
    lam, rounds = 3.0, 2
    from privlearn.query_release import _accounting as acc

    eps = acc._sampler_epsilon(lam, rounds)
    step, rho_scale, nu_scale = _core.sparse_vector_plan(eps, 1.0, rounds)
    assert step == 2.0**-20
    assert lam <= rho_scale <= lam * (1 + 2.0**-19) + 2.0**-49
    assert 2 * lam <= nu_scale <= 2 * lam * (1 + 2.0**-19) + 2.0**-49
    # "Above" for a query a below the threshold: P(nu - rho >= a) = P(nu + rho >= a).
    a = 2.0 * lam
    gen = Generator(777)
    n = 20_000
    above = 0
    for _ in range(n):
        sv = SparseVector(0.0, eps, 1.0, max_positives=rounds, rng=gen)
        above += bool(sv.query(-a))
    counts = np.array([above, n - above])

    def pvalue(f: float) -> float:
        p = _sum_laplace_tail(a, nu_scale * f, rho_scale * f)
        return chi_square_pvalue(counts, [p, 1.0 - p])

    assert_power_check(pvalue, "sparse vector scales")


def test_svt_guarantee_reads_the_plan():
    from privlearn.query_release import _accounting as acc

    lam, cutoff, m, w = 10.0, 4.7, 100, 200.0
    g = acc.svt_guarantee(lam, cutoff, m, w)
    step, rho_scale, nu_scale = _core.sparse_vector_plan(g.sampler_epsilon, 1.0, g.rounds)
    scale = max(rho_scale, nu_scale / 2)
    # p(w) = (4 e^{-w/(2 s)} - e^{-w/s}) / 6, evaluated at w - 3 grid steps.
    t = w - 3 * step
    p = (4 * math.exp(-t / (2 * scale)) - math.exp(-t / scale)) / 6
    assert m * p <= g.stable_release_delta <= m * p * (1 + 1e-9)


# --------------------------------------------------------------------------------------------
# The point multi-learner's noise scale
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [1.0, 0.3])
def test_points_noise_scale_is_what_the_histogram_uses(epsilon):
    b = _core.multi_points_noise_scale(epsilon)
    assert 4.0 / epsilon <= b <= 4.0 / epsilon + 2.0**-30
    # learn_points runs the histogram at epsilon/2: its noise on a large count (always released).
    counts = np.full(20_000, 10**6, dtype=np.uint64)
    _, noisy = _core.multi_stability_histogram(counts, epsilon / 2.0, 1e-6, Generator(31))
    noise = np.asarray(noisy, dtype=np.float64) - 1e6
    assert len(noise) == len(counts)
    # Integer noise: bins at half-integers (discrete Laplace P(Z = z) ∝ r^|z|, r = e^{-1/b}).
    cuts = [-3, -2, -1, 0, 1, 2, 3]
    edges = np.array([c * b for c in cuts])
    edges = np.round(edges) + 0.5

    def probs(scale: float) -> np.ndarray:
        r = math.exp(-1.0 / scale)

        def cdf(x: float) -> float:  # P(Z <= x) for x a half-integer
            k = math.floor(x)
            if k < 0:
                return r ** (-k) / (1 + r)
            return 1.0 - r ** (k + 1) / (1 + r)

        pts = [0.0] + [cdf(e) for e in edges] + [1.0]
        return np.diff(pts)

    c = _binned(noise, edges)
    assert_power_check(lambda f: chi_square_pvalue(c, probs(b * f)), "stability histogram")


# --------------------------------------------------------------------------------------------
# The ERM quantiser and the absence of restated constants
# --------------------------------------------------------------------------------------------


def test_quantize_is_the_kernels_map():
    # round(clip(l, 0, B) / B * 2^k), ties to even, NaN counts as B; values chosen so that every
    # step is exact in floating point.
    B, k = 2.0, 3
    losses = np.array([np.nan, -1.0, 0.0, 0.25, 0.125, 0.375, 0.625, 2.0, 5.0, np.inf, -np.inf])
    want = np.array([8, 0, 0, 1, 0, 2, 2, 8, 8, 8, 0])
    got = _erm_losses._quantize(losses, B, k)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        _erm_losses._quantize(losses.reshape(1, -1), B, k), want.reshape(1, -1)
    )


def test_no_restated_grid_constants():
    import importlib
    import pkgutil

    from privlearn import multi
    from privlearn.query_release import (
        _accounting,
        _agnostic,
        _common,
        _relabel,
        _semiprivate,
        _stability,
        _subsample,
        _universal,
    )

    release = (_common, _stability, _subsample, _relabel, _agnostic, _semiprivate, _universal)
    # privlearn.multi is a package: read its private modules too.
    multi_parts = [
        importlib.import_module(f"{multi.__name__}.{m.name}")
        for m in pkgutil.iter_modules(multi.__path__)
    ]
    for mod in (_accounting, *release, multi, *multi_parts):
        src = inspect.getsource(mod)
        for literal in ("2.0**-20", "2**-20", "2.0**-19", "2.0**-49", "1.0+2.0**-20"):
            assert literal not in src.replace(" ", ""), (mod.__name__, literal)
    assert "np.rint" not in inspect.getsource(_erm_losses._quantize)
