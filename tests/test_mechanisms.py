"""Distribution tests of every mechanism and sampler (DESIGN principle 8).

Each test draws with a fixed seed, compares with the exact law (chi-square for discrete
outputs, Kolmogorov–Smirnov for continuous ones) at false-positive rate 1e-6, and runs the power
check: the same draws must be rejected against the law with its scale (or epsilon) off by 30%.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from privlearn import mechanisms as M
from privlearn.errors import HaltedError, InvalidParameterError
from privlearn.random import Generator
from stats_helpers import ALPHA, assert_fits, assert_rejects, softmax

N = 100_000
OFF = (0.7, 1.3)


def ks_fits(samples, cdf, what):
    p = stats.kstest(samples, cdf).pvalue
    assert p > ALPHA, f"{what}: KS rejects the exact law (p = {p:.3g})"


def ks_rejects(samples, cdf, what):
    p = stats.kstest(samples, cdf).pvalue
    assert p < ALPHA, f"{what}: power check failed (p = {p:.3g})"


# --------------------------------------------------------------------------------------------
# Exact integer samplers
# --------------------------------------------------------------------------------------------


def dlap_probs(support, scale):
    r = math.exp(-1.0 / scale)
    return np.array([(1 - r) / (1 + r) * r ** abs(z) for z in support])


@pytest.mark.parametrize("scale", [0.5, 3.0, 17.3])
def test_discrete_laplace_law(scale):
    z = M.discrete_laplace(np.zeros(N, dtype=np.int64), scale, rng=1)
    assert z.dtype == np.int64
    lo, hi = -int(12 * scale) - 3, int(12 * scale) + 3
    support = np.arange(lo, hi + 1)
    counts = np.array([(z == v).sum() for v in support])
    counts[0] += (z < lo).sum()
    counts[-1] += (z > hi).sum()
    assert_fits(counts, dlap_probs(support, scale), f"dlap {scale}")
    for f in OFF:
        assert_rejects(counts, dlap_probs(support, f * scale), f"dlap {scale} x{f}")


def dgauss_probs(support, sigma):
    full = np.arange(-int(60 * sigma) - 60, int(60 * sigma) + 61)
    w = np.exp(-(full.astype(float) ** 2) / (2 * sigma**2))
    total = w.sum()
    return np.exp(-(support.astype(float) ** 2) / (2 * sigma**2)) / total


@pytest.mark.parametrize("sigma", [0.7, 2.5, 10.0])
def test_discrete_gaussian_law(sigma):
    z = M.discrete_gaussian(np.zeros(N, dtype=np.int64), sigma, rng=2)
    lo, hi = -int(7 * sigma) - 2, int(7 * sigma) + 2
    support = np.arange(lo, hi + 1)
    counts = np.array([(z == v).sum() for v in support])
    assert counts.sum() == N  # nothing beyond 7 sigma in 1e5 draws (probability ~ 1e-6)
    assert_fits(counts, dgauss_probs(support, sigma), f"dgauss {sigma}")
    for f in OFF:
        assert_rejects(counts, dgauss_probs(support, f * sigma), f"dgauss {sigma} x{f}")


def test_integer_samplers_add_to_the_value():
    v = np.array([[10, -5], [0, 7]])
    out = M.discrete_laplace(v, 1e-9 * 0 + 2.0**-30, rng=3)  # tiny scale: no noise in practice
    assert out.shape == v.shape and (out == v).all()
    assert M.discrete_gaussian(100, 2.0**-20, rng=3) == 100
    assert isinstance(M.discrete_laplace(5, 1.0, rng=1), int)


# --------------------------------------------------------------------------------------------
# Laplace and Gaussian mechanisms
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("numerics", ["exact", "fast"])
@pytest.mark.parametrize("sens,eps", [(1.0, 1.0), (2.5, 0.3), (0.01, 4.0)])
def test_laplace_mechanism_law(numerics, sens, eps):
    v = 3.25
    out = M.laplace(np.full(N, v), sens, eps, rng=4, numerics=numerics)
    b = sens / eps
    noise = out - v
    ks_fits(noise, stats.laplace(scale=b).cdf, f"laplace {numerics}")
    for f in OFF:
        ks_rejects(noise, stats.laplace(scale=f * b).cdf, f"laplace {numerics} x{f}")


def test_laplace_scalar_and_shapes():
    assert isinstance(M.laplace(1.0, 1.0, 1.0, rng=1), float)
    assert isinstance(M.laplace(np.float64(1.0), 1.0, 1.0, rng=1), float)
    assert M.laplace(np.zeros((3, 4)), 1.0, 1.0, rng=1).shape == (3, 4)
    assert M.laplace(7, 1.0, 1.0, rng=5) == M.laplace(7.0, 1.0, 1.0, rng=5)
    # Huge values stay finite and are perturbed on their own scale.
    big = M.laplace(1e300, 1.0, 1.0, rng=1)
    assert big == 1e300


@pytest.mark.parametrize("numerics", ["exact", "fast"])
@pytest.mark.parametrize(
    "calibration,eps", [("analytic", 1.0), ("analytic", 3.0), ("classic", 0.5)]
)
def test_gaussian_mechanism_law(numerics, calibration, eps):
    sens, delta = 2.0, 1e-5
    # Scalar releases (the one-dimensional calibration), one call each.
    sigma = M.gaussian_sigma(sens, eps, delta, numerics=numerics, calibration=calibration)
    gen = Generator(6)
    out = np.array(
        [
            M.gaussian(0.0, sens, eps, delta, rng=gen, numerics=numerics, calibration=calibration)
            for _ in range(30_000)
        ]
    )
    ks_fits(out, stats.norm(scale=sigma).cdf, f"gaussian {numerics} {calibration}")
    for f in OFF:
        ks_rejects(out, stats.norm(scale=f * sigma).cdf, f"gaussian {numerics} x{f}")
    # One vector release: the whole array has L2 sensitivity `sens` (the calibration of dim d).
    d = 50_000
    sigma_d = M.gaussian_sigma(sens, eps, delta, dim=d, numerics=numerics, calibration=calibration)
    vec = M.gaussian(
        np.zeros(d), sens, eps, delta, rng=7, numerics=numerics, calibration=calibration
    )
    ks_fits(vec, stats.norm(scale=sigma_d).cdf, f"gaussian vector {numerics}")
    for f in OFF:
        ks_rejects(vec, stats.norm(scale=f * sigma_d).cdf, f"gaussian vector {numerics} x{f}")


def test_gaussian_calibrations():
    # Analytic (Balle–Wang) meets (eps, delta) with equality and is below the classic one.
    from scipy.stats import norm

    for eps, delta in [(0.5, 1e-5), (1.0, 1e-6), (4.0, 1e-3)]:
        s = M.gaussian_sigma(1.0, eps, delta, numerics="fast")
        d = norm.cdf(0.5 / s - eps * s) - math.exp(eps) * norm.cdf(-0.5 / s - eps * s)
        assert d == pytest.approx(delta, rel=1e-6)
        # The exact scalar path is within a relative 1e-5 of it (grid widening only).
        se = M.gaussian_sigma(1.0, eps, delta)
        assert s <= se <= s * (1 + 1e-5)
    assert M.gaussian_sigma(
        1.0, 0.5, 1e-5, numerics="fast", calibration="classic"
    ) == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5)
    # Vectors under exact numerics go through zCDP: more noise, never less.
    assert M.gaussian_sigma(1.0, 1.0, 1e-5, dim=10) > M.gaussian_sigma(
        1.0, 1.0, 1e-5, numerics="fast"
    )
    with pytest.raises(InvalidParameterError, match="classic"):
        M.gaussian(0.0, 1.0, 1.0, 1e-5, calibration="classic")


# --------------------------------------------------------------------------------------------
# Randomized response
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_randomized_response_law(eps):
    out = M.randomized_response(np.ones(N, dtype=bool), eps, rng=7)
    kept = int(out.sum())
    counts = [kept, N - kept]

    def law(e):
        p = math.exp(e) / (1 + math.exp(e))
        return [p, 1 - p]

    assert_fits(counts, law(eps), f"rr {eps}")
    for f in OFF:
        assert_rejects(counts, law(f * eps), f"rr {eps} x{f}")
    flipped = M.randomized_response(np.zeros(1000, dtype=bool), 50.0, rng=1)
    assert not flipped.any()


@pytest.mark.parametrize("k,eps", [(3, 1.0), (6, 2.0)])
def test_k_randomized_response_law(k, eps):
    out = M.randomized_response_k(np.full(N, 1), k, eps, rng=8)
    counts = np.bincount(out, minlength=k)

    def law(e):
        p = np.full(k, 1.0 / (math.exp(e) + k - 1))
        p[1] = math.exp(e) / (math.exp(e) + k - 1)
        return p

    assert_fits(counts, law(eps), f"krr {k}")
    for f in OFF:
        assert_rejects(counts, law(f * eps), f"krr {k} x{f}")


# --------------------------------------------------------------------------------------------
# l2-Laplace vectors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dim,scale", [(1, 1.0), (5, 0.7), (30, 2.0)])
def test_l2_laplace_noise_law(dim, scale):
    v = M.l2_laplace_noise(dim, scale, size=40_000, rng=9)
    assert v.shape == (40_000, dim)
    r = np.linalg.norm(v, axis=1)
    ks_fits(r, stats.gamma(dim, scale=scale).cdf, "radius")
    for f in OFF:
        ks_rejects(r, stats.gamma(dim, scale=f * scale).cdf, f"radius x{f}")
    if dim >= 2:
        # Uniform direction: the squared first coordinate of the unit vector is Beta(1/2, (d-1)/2).
        u2 = (v[:, 0] / r) ** 2
        ks_fits(u2, stats.beta(0.5, (dim - 1) / 2).cdf, "direction")
    assert M.l2_laplace_noise(dim, scale, rng=1).shape == (dim,)


# --------------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------------

SEL_SCORES = np.array([0.0, 1.0, 2.5, 0.5, 2.0])


def pf_law(scores, factor):
    """Exact permute-and-flip law by enumerating every order."""
    s = np.asarray(scores, float)
    acc = np.exp(factor * (s - s.max()))
    law = np.zeros(len(s))
    orders = list(itertools.permutations(range(len(s))))
    for order in orders:
        reach = 1.0 / len(orders)
        for i in order:
            law[i] += reach * acc[i]
            reach *= 1 - acc[i]
    return law


def laplace_rnm_law(scores, b):
    """Exact report-noisy-max law with Laplace(b) noise, by numerical integration."""
    s = np.asarray(scores, float)
    dist = stats.laplace(scale=b)
    law = []
    for i in range(len(s)):

        def integrand(x, i=i):
            others = [dist.cdf(x - s[j]) for j in range(len(s)) if j != i]
            return dist.pdf(x - s[i]) * np.prod(others)

        val, _ = integrate.quad(
            integrand, s.min() - 60 * b, s.max() + 60 * b, limit=400, epsabs=1e-12
        )
        law.append(val)
    return np.array(law)


def draw_counts(fn, n=40_000):
    gen = Generator(10)
    return np.bincount([fn(gen) for _ in range(n)], minlength=len(SEL_SCORES))


@pytest.mark.parametrize("eps", [0.8, 2.0])
def test_noisy_max_gumbel_is_the_exponential_mechanism(eps):
    counts = draw_counts(lambda g: M.report_noisy_max(SEL_SCORES, eps, rng=g))
    assert_fits(counts, softmax(SEL_SCORES, eps / 2), "gumbel")
    for f in OFF:
        assert_rejects(counts, softmax(SEL_SCORES, f * eps / 2), f"gumbel x{f}")


@pytest.mark.parametrize("eps", [0.8, 2.0])
def test_permute_and_flip_and_exponential_noise_law(eps):
    for fn in (
        lambda g: M.permute_and_flip(SEL_SCORES, eps, rng=g),
        lambda g: M.report_noisy_max(SEL_SCORES, eps, noise="exponential", rng=g),
    ):
        counts = draw_counts(fn)
        assert_fits(counts, pf_law(SEL_SCORES, eps / 2), "pf")
        for f in OFF:
            assert_rejects(counts, pf_law(SEL_SCORES, f * eps / 2), f"pf x{f}")


def test_noisy_max_laplace_law():
    eps = 1.5
    counts = draw_counts(lambda g: M.report_noisy_max(SEL_SCORES, eps, noise="laplace", rng=g))
    assert_fits(counts, laplace_rnm_law(SEL_SCORES, 2 / eps), "rnm laplace")
    for f in OFF:
        assert_rejects(counts, laplace_rnm_law(SEL_SCORES, f * 2 / eps), f"rnm laplace x{f}")


def stable_release_prob(gap, eps, delta, scale_factor=1.0):
    """P(release) of stable_argmax on integer scores with sensitivity 1, from its definition:
    release iff gap + Z >= 2 + t, Z discrete Laplace of scale b = 2/eps."""
    b = 2.0 / eps
    t = math.ceil(b * math.log(2.0 / (delta * (1.0 + math.exp(-1.0 / b))))) + 1
    b *= scale_factor
    r = math.exp(-1.0 / b)
    m = 2 + t - gap  # need Z >= m
    if m <= 0:
        return 1.0 - r ** (-m + 1) / (1 + r)  # 1 - P(Z <= m - 1) = 1 - P(Z >= 1 - m)
    return r**m / (1 + r)


def test_stable_argmax_law():
    eps, delta = 1.0, 1e-3
    b = 2.0 / eps
    t = math.ceil(b * math.log(2.0 / (delta * (1.0 + math.exp(-1.0 / b))))) + 1
    gap = 2 + t  # release probability about 1/2
    scores = np.array([0, gap, 0, -3], dtype=np.int64)
    gen = Generator(11)
    out = [M.stable_argmax(scores, eps, delta, rng=gen) for _ in range(N)]
    assert set(out) <= {1, None}
    released = sum(o == 1 for o in out)
    p = stable_release_prob(gap, eps, delta)
    assert_fits([released, N - released], [p, 1 - p], "stable_argmax")
    for f in OFF:
        q = stable_release_prob(gap, eps, delta, f)
        assert_rejects([released, N - released], [q, 1 - q], f"stable_argmax x{f}")
    # A tie releases with probability at most delta / 2.
    tie = np.array([4, 4, 0], dtype=np.int64)
    rel = sum(M.stable_argmax(tie, eps, delta, rng=gen) is not None for _ in range(20_000))
    assert rel <= stats.binom(20_000, delta / 2).isf(1e-6)


def diff_laplace_sf(d, b1, b2):
    """P(nu - rho >= -d) for independent Laplace(b1) nu and Laplace(b2) rho (continuous)."""

    def integrand(x):
        return stats.laplace(scale=b2).pdf(x) * stats.laplace(scale=b1).sf(x - d)

    val, _ = integrate.quad(integrand, -80 * b2, 80 * b2, limit=400, epsabs=1e-12)
    return val


def test_sparse_vector_single_answer_law():
    eps = 1.0
    gaps = [-3.0, 0.0, 2.0, 6.0]
    gen = Generator(12)
    for d in gaps:
        ans = [M.SparseVector(10.0, eps, rng=gen).query(10.0 + d) for _ in range(30_000)]
        above = int(sum(ans))
        p = diff_laplace_sf(d, 4 / eps, 2 / eps)
        assert_fits([above, len(ans) - above], [p, 1 - p], f"svt gap {d}")
        if d != 0.0:
            q = diff_laplace_sf(d, 1.3 * 4 / eps, 1.3 * 2 / eps)
            q2 = diff_laplace_sf(d, 0.7 * 4 / eps, 0.7 * 2 / eps)
            assert_rejects([above, len(ans) - above], [q, 1 - q], f"svt gap {d} x1.3")
            assert_rejects([above, len(ans) - above], [q2, 1 - q2], f"svt gap {d} x0.7")


def test_sparse_vector_halts_and_counts():
    sv = M.SparseVector(0.0, 1.0, max_positives=3, rng=13)
    answers = sv.query_many(np.r_[np.full(5, -1e6), np.full(10, 1e6)])
    assert list(answers) == [False] * 5 + [True] * 3
    assert sv.halted and sv.positives == 3 and sv.answered == 8
    with pytest.raises(HaltedError):
        sv.query(0.0)
    assert "halted=True" in repr(sv)


# --------------------------------------------------------------------------------------------
# Bad input: typed errors naming the parameter, nothing drawn
# --------------------------------------------------------------------------------------------

BAD = [
    ("value", lambda g: M.laplace(np.nan, 1.0, 1.0, rng=g)),
    ("value", lambda g: M.laplace([1.0, np.inf], 1.0, 1.0, rng=g)),
    ("value", lambda g: M.laplace("x", 1.0, 1.0, rng=g)),
    ("sensitivity", lambda g: M.laplace(1.0, 0.0, 1.0, rng=g)),
    ("epsilon", lambda g: M.laplace(1.0, 1.0, -1.0, rng=g)),
    ("epsilon", lambda g: M.laplace(1.0, 1.0, math.inf, rng=g)),
    ("numerics", lambda g: M.laplace(1.0, 1.0, 1.0, rng=g, numerics="float")),
    ("delta", lambda g: M.gaussian(1.0, 1.0, 1.0, 0.0, rng=g)),
    ("delta", lambda g: M.gaussian(1.0, 1.0, 1.0, 1.0, rng=g)),
    ("calibration", lambda g: M.gaussian(1.0, 1.0, 1.0, 1e-5, rng=g, calibration="x")),
    ("scale", lambda g: M.discrete_laplace(1, 0.0, rng=g)),
    ("scale", lambda g: M.discrete_laplace(1, 1e-40, rng=g)),
    ("value", lambda g: M.discrete_laplace(1.5, 1.0, rng=g)),
    ("sigma", lambda g: M.discrete_gaussian(1, -1.0, rng=g)),
    ("bits", lambda g: M.randomized_response([0, 2], 1.0, rng=g)),
    ("epsilon", lambda g: M.randomized_response([0, 1], 0.0, rng=g)),
    ("k", lambda g: M.randomized_response_k([0], 1, 1.0, rng=g)),
    ("values", lambda g: M.randomized_response_k([0, 5], 3, 1.0, rng=g)),
    ("dim", lambda g: M.l2_laplace_noise(0, 1.0, rng=g)),
    ("scale", lambda g: M.l2_laplace_noise(3, -1.0, rng=g)),
    ("size", lambda g: M.l2_laplace_noise(3, 1.0, size=-1, rng=g)),
    ("noise", lambda g: M.report_noisy_max([1.0, 2.0], 1.0, noise="cauchy", rng=g)),
    ("scores", lambda g: M.report_noisy_max([], 1.0, rng=g)),
    ("scores", lambda g: M.permute_and_flip([1.0, np.nan], 1.0, rng=g)),
    ("scores", lambda g: M.stable_argmax([1.0], 1.0, 1e-6, rng=g)),
    ("delta", lambda g: M.stable_argmax([1.0, 2.0], 1.0, 0.0, rng=g)),
    ("max_positives", lambda g: M.SparseVector(0.0, 1.0, max_positives=0, rng=g)),
    ("threshold", lambda g: M.SparseVector(np.nan, 1.0, rng=g)),
    ("epsilon", lambda g: M.SparseVector(0.0, 0.0, rng=g)),
]


@pytest.mark.parametrize("param,call", BAD, ids=[f"{p}-{i}" for i, (p, _) in enumerate(BAD)])
def test_bad_input_names_the_parameter_and_draws_nothing(param, call):
    g = Generator(21)
    with pytest.raises(InvalidParameterError) as err:
        call(g)
    assert err.value.parameter == param, str(err.value)
    assert g.random_raw() == Generator(21).random_raw()


# --------------------------------------------------------------------------------------------
# The caller's randomness is used (mutation-testing survivors, issue 16)
# --------------------------------------------------------------------------------------------

ZEROS = np.zeros(64, dtype=np.int64)

# Each entry: one call of a public sampler with ``rng``; its output is random enough that two
# independent calls agree with probability far below 1e-9 (64+ draws of non-degenerate noise).
SEEDED = [
    ("exponential", lambda rng: M.exponential(np.zeros(4), 1.0, size=64, rng=rng)),
    ("laplace", lambda rng: M.laplace(np.zeros(64), 1.0, 1.0, rng=rng)),
    ("gaussian", lambda rng: M.gaussian(np.zeros(64), 1.0, 1.0, 1e-5, rng=rng)),
    ("discrete_laplace", lambda rng: M.discrete_laplace(ZEROS, 3.0, rng=rng)),
    ("discrete_gaussian", lambda rng: M.discrete_gaussian(ZEROS, 3.0, rng=rng)),
    (
        "randomized_response",
        lambda rng: M.randomized_response(np.ones(256, dtype=bool), 0.5, rng=rng),
    ),
    (
        "randomized_response_k",
        lambda rng: M.randomized_response_k(np.zeros(256, dtype=np.int64), 4, 0.5, rng=rng),
    ),
    ("l2_laplace_noise", lambda rng: M.l2_laplace_noise(3, 1.0, size=32, rng=rng)),
    (
        "sparse_vector",
        lambda rng: M.SparseVector(0.0, 1.0, max_positives=256, rng=rng).query_many(np.zeros(128)),
    ),
]

# Samplers releasing one index: 64 calls on one Generator (flat scores: uniform choices).
SEEDED_SCALAR = [
    ("report_noisy_max", lambda g: M.report_noisy_max(np.zeros(4), 1.0, rng=g)),
    (
        "report_noisy_max laplace",
        lambda g: M.report_noisy_max(np.zeros(4), 1.0, noise="laplace", rng=g),
    ),
    ("permute_and_flip", lambda g: M.permute_and_flip(np.zeros(4), 1.0, rng=g)),
    ("exponential scalar", lambda g: M.exponential(np.zeros(4), 1.0, rng=g)),
    # gap 8 at epsilon 1, delta 0.1: released about half of the time
    ("stable_argmax", lambda g: M.stable_argmax([0, 8], 1.0, 0.1, rng=g)),
]


@pytest.mark.parametrize("name,draw", SEEDED, ids=[s[0] for s in SEEDED])
def test_the_callers_seed_and_generator_are_used(name, draw):
    # A seed makes the draws reproducible (privlearn.random): same seed, same output; another
    # seed, other output. A Generator is advanced by the call.
    first = np.asarray(draw(7))
    np.testing.assert_array_equal(first, np.asarray(draw(7)))
    assert not np.array_equal(first, np.asarray(draw(8)))
    g = Generator(11)
    a, b = np.asarray(draw(g)), np.asarray(draw(g))
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, np.asarray(draw(Generator(11))))


@pytest.mark.parametrize("name,draw", SEEDED_SCALAR, ids=[s[0] for s in SEEDED_SCALAR])
def test_the_callers_generator_is_used_by_index_samplers(name, draw):
    def run(seed):
        g = Generator(seed)
        return [draw(g) for _ in range(64)]

    first = run(7)
    assert first == run(7)
    assert first != run(8)
    assert len(set(first)) > 1


# --------------------------------------------------------------------------------------------
# k-ary randomized response with k = 2 (mutation-testing survivor, issue 16)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_k_randomized_response_with_two_values_is_binary_randomized_response(eps):
    # Kairouz, Bonawitz and Ramage 2016 (k-RR) at k = 2: keep with probability
    # e^eps / (e^eps + 1), Warner's binary randomized response. k = 2 is the documented minimum.
    values = np.tile(np.array([0, 1], dtype=np.int64), N // 2)
    out = M.randomized_response_k(values, 2, eps, rng=12)
    assert out.shape == values.shape and set(np.unique(out)) <= {0, 1}
    kept = int(np.sum(out == values))
    counts = [kept, N - kept]

    def law(e):
        p = math.exp(e) / (math.exp(e) + 1)
        return [p, 1 - p]

    assert_fits(counts, law(eps), f"krr k=2 eps={eps}")
    for f in OFF:
        assert_rejects(counts, law(f * eps), f"krr k=2 eps={eps} x{f}")


@pytest.mark.parametrize("k", [1, 0, -1])
def test_k_randomized_response_needs_two_values(k):
    g = Generator(5)
    with pytest.raises(InvalidParameterError) as err:
        M.randomized_response_k([0, 0], k, 1.0, rng=g)
    assert err.value.parameter == "k"
    assert str(err.value).startswith("k: must be an integer >= 2")
    assert g.random_raw() == Generator(5).random_raw()
