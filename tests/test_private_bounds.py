"""Private clipping bounds (issue 19): the private quantile of ``learners._private_bounds``.

What is pinned, independently of the module's own code:

* **Calibration.** The output law of :func:`private_quantile_bound` on small datasets is
  computed here from the exponential mechanism's formula (McSherry and Talwar 2007):
  ``P(g) ∝ exp(epsilon u(g) / 2)`` with the guarded utility ``u(g) = -max(|c(g) - q n|,
  #{16 g < v_i <= g_K}, #{g_1 / 16 < v_i <= g / 16})``, ``c(x) = #{v_i <= x}`` (``B = 4``
  doublings written here; counts by a plain loop, probabilities with mpmath), and a chi-square test (fixed seed, false-positive
  rate 1e-6) accepts it and rejects the laws with the scale 30% off, twice the epsilon, half
  the sensitivity and (where the guard binds) the plain utility ``-|c(g) - q n|``.
* **Sensitivity.** Brute force over replace-one neighbour pairs, on values that make each
  guard term bind: the utility written here moves by at most 1 (attained), and the score vector
  the module hands to the sampler (seen through the tap of ``tests/replay.py``) divided by the
  sensitivity it declares is that utility.
* **Far tail.** On values where the plain utility puts a large mass far outside the data, the
  module's exact far-tail probability equals the one computed here, is below the docstring's
  bound ``K exp(-epsilon (n - r) / 2)``, and draws agree with it (not with the plain law's).
* **Replay.** A wrapper charging the returned event (as a learner does) in the neighbour replay
  harness.
* **Audit.** Worst-case neighbours (the mass near the target falls while a far candidate rises)
  through :func:`privlearn.audit.audit`: the claim holds, and twice the epsilon is caught.
* Bad input, the counts path equal to the values path for a seed, and the exact epsilon split.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from privlearn._private_quantile import (
    DEFAULT_GRID,
    GUARD_DOUBLINGS,
    count_points,
    far_tail_probability,
    geometric_grid,
    private_quantile_bound,
    private_quantile_from_counts,
)
from privlearn.accounting._event import PrivacyEvent
from privlearn.audit import audit
from privlearn.errors import InvalidParameterError
from privlearn.learners._base import charged
from privlearn.learners._private_bounds import bound_or_private, release_bounds, split_epsilon
from privlearn.mechanisms import exponential
from privlearn.random import Generator
from replay import Entry, Tap, check_entry, replace_one_pairs
from stats_helpers import ALPHA, assert_fits, assert_power_check, assert_rejects, chi_square_pvalue

# ------------------------------------------------------------------------------------------
# The formula, written here (not read from the module)
# ------------------------------------------------------------------------------------------


B = 4  # the guard's doublings, written here (the module's GUARD_DOUBLINGS is pinned to it)


def _count(values, x):
    return sum(1 for v in values if v <= x)


def utility(values, grid, q, guard=True):
    """``u(g) = -max(|c(g) - q n|, #{2^B g < v <= g_K}, #{2^-B g_1 < v <= 2^-B g})`` by a
    plain loop (exact rationals); ``guard=False``: the plain ``-|c(g) - q n|``."""
    n = len(values)
    top, low = max(grid), min(grid) / 2**B
    out = []
    for g in grid:
        near = abs(_count(values, g) - Fraction(q) * n)
        if guard:
            above = sum(1 for v in values if g * 2**B < v <= top)
            below = sum(1 for v in values if low < v <= g / 2**B)
            near = max(near, above, below)
        out.append(-Fraction(near))
    return out


def exact_law(values, grid, q, epsilon, sensitivity=1.0, guard=True):
    """``P(g) ∝ exp(epsilon u(g) / (2 sensitivity))`` with mpmath (50 digits)."""
    mpmath.mp.dps = 50
    w = [
        mpmath.exp(
            mpmath.mpf(epsilon) * mpmath.mpf(u.numerator) / u.denominator / (2 * sensitivity)
        )
        for u in utility(values, grid, q, guard)
    ]
    total = mpmath.fsum(w)
    return np.array([float(x / total) for x in w])


GRID = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 8.0]
VALUES = [0.2, 0.7, 1.5, 2.5, 2.6, 3.9, 4.5, 6.0, 7.0, 9.0]  # n = 10


def _draws(values, q, epsilon, grid, n, seed):
    gen = Generator(seed)
    out = [
        private_quantile_bound(values, quantile=q, epsilon=epsilon, rng=gen, grid=grid)[0]
        for _ in range(n)
    ]
    return np.array([grid.index(x) for x in out])


@pytest.mark.parametrize("q, epsilon", [(0.5, 1.0), (0.9, 2.0)])
def test_output_law_is_the_exponential_mechanism(q, epsilon):
    n = 20_000
    idx = _draws(VALUES, q, epsilon, GRID, n, seed=1234 + int(10 * q))
    counts = np.bincount(idx, minlength=len(GRID))
    law = exact_law(VALUES, GRID, q, epsilon)
    assert_fits(counts, law, f"q={q}, eps={epsilon}")
    # Power: twice the epsilon, and (the same law) half the sensitivity, are rejected.
    assert_rejects(counts, exact_law(VALUES, GRID, q, 2 * epsilon), "twice epsilon")
    assert_rejects(counts, exact_law(VALUES, GRID, q, epsilon, sensitivity=0.5), "half sens.")
    # ... and so is the law with epsilon 30% off either way.
    assert_power_check(
        lambda f: chi_square_pvalue(counts, exact_law(VALUES, GRID, q, f * epsilon)),
        f"q={q}, eps={epsilon}",
    )


# Values 1 and 1.5 (a factor 16 = 2^B of room inside a wide grid) and a few far ones, so that
# both guard terms bind on part of the grid and the guarded law differs from the plain one.
WIDE_GRID = [2.0**k for k in range(-7, 9)]
WIDE_VALUES = [0.03, 1.0, 1.0, 1.5, 1.5, 1.5, 2.0, 2.0, 3.0, 200.0]


@pytest.mark.parametrize("q, epsilon", [(0.25, 1.0), (0.75, 1.5)])
def test_output_law_where_the_guard_binds(q, epsilon):
    plain_u = utility(WIDE_VALUES, WIDE_GRID, q, guard=False)
    assert utility(WIDE_VALUES, WIDE_GRID, q) != plain_u  # the guard binds somewhere
    idx = _draws(WIDE_VALUES, q, epsilon, WIDE_GRID, 20_000, seed=77 + int(100 * q))
    counts = np.bincount(idx, minlength=len(WIDE_GRID))
    assert_fits(counts, exact_law(WIDE_VALUES, WIDE_GRID, q, epsilon), f"guard q={q}")
    assert_rejects(counts, exact_law(WIDE_VALUES, WIDE_GRID, q, epsilon, guard=False), "plain")
    assert_rejects(counts, exact_law(WIDE_VALUES, WIDE_GRID, q, 2 * epsilon), "twice epsilon")


def test_guard_doublings_constant_is_the_tested_one():
    assert GUARD_DOUBLINGS == B
    # count_points: the grid and its images under 2^B and 2^-B, sorted, no repeats.
    grid = [0.1, 1.0, 10.0]
    want = sorted({g * f for g in grid for f in (1.0, 2.0**B, 2.0**-B)})
    assert count_points(grid).tolist() == want
    # on the default grid (8 points per doubling) the images are grid points except near the ends
    assert count_points().size == DEFAULT_GRID.size + 2 * 8 * B


def test_counts_path_equals_values_path_for_a_seed():
    rs = np.random.default_rng(3)
    v = rs.lognormal(0.0, 1.5, size=500)
    counts = [sum(1 for x in v if x <= g) for g in count_points()]
    for seed in range(20):
        a = private_quantile_bound(v, quantile=0.9, epsilon=0.5, rng=seed)
        b = private_quantile_from_counts(counts, len(v), quantile=0.9, epsilon=0.5, rng=seed)
        assert a == b
    grid = [0.1, 1.0, 10.0]
    c3 = [sum(1 for x in v if x <= g) for g in count_points(grid)]
    for seed in range(5):
        assert private_quantile_bound(
            v, quantile=0.5, epsilon=1.0, rng=seed, grid=grid
        ) == private_quantile_from_counts(c3, 500, quantile=0.5, epsilon=1.0, rng=seed, grid=grid)


def test_returns_the_native_bounded_range_event_and_charges_nothing():
    bound, event = private_quantile_bound([1.0, 2.0, 3.0], quantile=0.5, epsilon=0.3, rng=0)
    assert event == PrivacyEvent.bounded_range(0.3)
    assert bound in set(DEFAULT_GRID.tolist())


# ------------------------------------------------------------------------------------------
# Sensitivity, brute-forced over neighbour pairs through the tap
# ------------------------------------------------------------------------------------------


def _tapped_call(values, q, epsilon, grid, seed=0):
    with Tap() as tap:
        out = private_quantile_bound(values, quantile=q, epsilon=epsilon, rng=seed, grid=grid)
    calls = [c for c in tap.calls if c.name == "exponential"]
    assert len(calls) == 1
    return out, calls[0]


def test_sensitivity_brute_force_over_replace_one_pairs():
    grid = [1.0, 2.0, 3.0, 4.0]
    # on, between, below and above the grid points, and beyond 2^-B and 2^B times them (so that
    # each guard term binds for some pairs)
    support = [0.0, 0.0625, 0.1, 1.0, 1.5, 2.0, 3.5, 5.0, 16.0, 40.0, 70.0]
    rs = np.random.default_rng(0)
    worst = 0.0
    for q in (0.25, 0.5, 0.9):
        for _ in range(25):
            base = list(rs.choice(support, size=5))
            for j in range(5):
                for new in support:
                    other = list(base)
                    other[j] = new
                    # the formula written here: sensitivity 1 for this pair
                    d_formula = max(
                        abs(a - b) for a, b in zip(utility(base, grid, q), utility(other, grid, q))
                    )
                    assert d_formula <= 1
                    _, ca = _tapped_call(base, q, 1.0, grid)
                    _, cb = _tapped_call(other, q, 1.0, grid)
                    assert ca.epsilon == cb.epsilon == 1.0
                    assert ca.sensitivity == cb.sensitivity
                    ua, ub = ca.value / ca.sensitivity, cb.value / cb.sensitivity
                    # the scores are the utility (target q n rounded to 2^-10 at most)
                    ref_a = np.array([float(u) for u in utility(base, grid, q)])
                    assert np.max(np.abs(ua - ref_a)) <= 2.0**-11
                    d = float(np.max(np.abs(ua - ub)))
                    assert d <= 1.0
                    worst = max(worst, d)
    assert worst == 1.0  # the bound is attained


# ------------------------------------------------------------------------------------------
# Neighbour replay
# ------------------------------------------------------------------------------------------

EPS_R = 0.7


def _run_bound(data, accountant, seed):
    (values,) = data
    return charged(
        accountant,
        EPS_R,
        "private 0.9-quantile bound",
        lambda: private_quantile_bound(values, quantile=0.9, epsilon=EPS_R, rng=seed)[0],
        event=lambda: PrivacyEvent.bounded_range(EPS_R),
    )


def _bound_pairs():
    base = (np.array([0.3, 1.2, 2.5, 2.5, 4.0, 7.5, 0.0, 11.0]),)
    rows = [("zero", (0.0,)), ("huge", (1e9,)), ("on a grid point", (float(DEFAULT_GRID[140]),))]
    return replace_one_pairs(base, rows, cross=((0, 1), (1, 2)))


def test_replay_private_quantile_bound():
    entry = Entry("private quantile bound", _run_bound, _bound_pairs, seeds=(0, 1, 2))
    assert check_entry(entry) > 0


# ------------------------------------------------------------------------------------------
# Audit on worst-case neighbours
# ------------------------------------------------------------------------------------------

# Twenty grid points with no value between them hold the target count (q n = 2) on A; the
# replaced value moves from below them to above the last point, so on B all twenty fall by one
# while the last (far) point rises by one: the privacy loss of the last point is
# eps/2 + log((20 + e^-eps/2) / (20 e^-eps/2 + 1)) = 0.95 eps at eps = 1.
AUDIT_GRID = [1.0 + 0.05 * i for i in range(20)] + [5.0]
AUDIT_A = [0.5, 0.5, 2.0, 9.0]
AUDIT_B = [9.0, 0.5, 2.0, 9.0]


def test_audit_worst_case_neighbours_and_power():
    # Pin the release map: the module's draw is the exponential mechanism on the tapped scores.
    calls = {}
    for name, vals in (("a", AUDIT_A), ("b", AUDIT_B)):
        for seed in range(5):
            (bound, _), call = _tapped_call(vals, 0.5, 1.0, AUDIT_GRID, seed=seed)
            i = exponential(call.value.astype(np.int64), 1.0, call.sensitivity, rng=seed)
            assert bound == AUDIT_GRID[i]
        calls[name] = call
    sa, sb = calls["a"].value.astype(np.int64), calls["b"].value.astype(np.int64)
    sens = calls["a"].sensitivity
    # The loss of this pair, from the formula (written here): at least 0.9 epsilon.
    pa, pb = exact_law(AUDIT_A, AUDIT_GRID, 0.5, 1.0), exact_law(AUDIT_B, AUDIT_GRID, 0.5, 1.0)
    assert 0.9 < float(np.max(np.abs(np.log(pa / pb)))) <= 1.0

    def sampler(scores, eps):
        return lambda g, size: exponential(scores, eps, sens, size=size, rng=int(g.integers(2**63)))

    good = audit(sampler(sa, 1.0), sampler(sb, 1.0), 1.0, n=1_000_000, alpha=ALPHA, rng=7)
    assert good.passed, f"lower bound {good.bound:.3f} exceeds the claim 1"
    bad = audit(sampler(sa, 2.0), sampler(sb, 2.0), 1.0, n=1_000_000, alpha=ALPHA, rng=8)
    assert not bad.passed, f"twice epsilon not caught (bound {bad.bound:.3f})"


# ------------------------------------------------------------------------------------------
# Bad input: InvalidParameterError naming the parameter, nothing drawn
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(values=[1.0, float("nan")]), "values"),
        (dict(values=[1.0, float("inf")]), "values"),
        (dict(values=[1.0, -0.5]), "values"),
        (dict(values=[]), "values"),
        (dict(values=[[1.0, 2.0]]), "values"),
        (dict(values="abc"), "values"),
        (dict(quantile=0.0), "quantile"),
        (dict(quantile=1.0), "quantile"),
        (dict(quantile=-0.1), "quantile"),
        (dict(quantile=float("nan")), "quantile"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=None), "epsilon"),
        (dict(grid=[1.0, 1.0]), "grid"),
        (dict(grid=[0.0, 1.0]), "grid"),
        (dict(grid=[]), "grid"),
        (dict(grid=[2.0, 1.0]), "grid"),
    ],
)
def test_bad_input(kwargs, param):
    args = dict(values=[1.0, 2.0], quantile=0.5, epsilon=1.0)
    args.update(kwargs)
    values = args.pop("values")
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        private_quantile_bound(values, rng=0, **args)
    assert err.value.parameter == param
    assert not tap.calls


@pytest.mark.parametrize(
    "counts, n, param",
    [
        ([0, 1], 2, "counts_below"),  # wrong length for the 3-point grid
        ([0, 2, 1], 2, "counts_below"),  # decreasing
        ([0, 1, 3], 2, "counts_below"),  # above n
        ([-1, 1, 2], 2, "counts_below"),
        ([0.5, 1, 2], 2, "counts_below"),
        ([0, 1, 2], 0, "n"),
    ],
)
def test_bad_counts(counts, n, param):
    with pytest.raises(InvalidParameterError) as err:
        private_quantile_from_counts(
            counts, n, quantile=0.5, epsilon=1.0, rng=0, grid=[1.0, 2.0, 3.0]
        )
    assert err.value.parameter == param


def test_bound_or_private():
    assert bound_or_private("private", "data_norm") == "private"
    assert bound_or_private(2.5, "data_norm") == 2.5
    with pytest.raises(InvalidParameterError, match="a declared bound is required") as err:
        bound_or_private(None, "label_bound")
    assert err.value.parameter == "label_bound" and "'private'" in str(err.value)
    for bad in ("Private", "auto", 0.0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(InvalidParameterError) as err:
            bound_or_private(bad, "data_norm")
        assert err.value.parameter == "data_norm"


# ------------------------------------------------------------------------------------------
# The epsilon split and the grid
# ------------------------------------------------------------------------------------------


def test_split_rounds_down_exactly():
    rs = np.random.default_rng(5)
    cases = [(1.0, 0.1, 2), (0.5, 0.1, 2), (0.1, 0.3, 3), (2.0, 0.2, 1), (1e-3, 0.7, 7)]
    cases += [
        (float(rs.uniform(1e-3, 10)), float(rs.uniform(0.01, 0.99)), int(rs.integers(1, 6)))
        for _ in range(300)
    ]
    for eps, frac, parts in cases:
        shares, rest = split_epsilon(eps, frac, parts)
        assert len(shares) == parts and len(set(shares)) == 1
        s = Fraction(shares[0])
        assert s <= Fraction(eps) * Fraction(frac) / parts
        assert (
            Fraction(math.nextafter(shares[0], math.inf)) > Fraction(eps) * Fraction(frac) / parts
        )
        assert parts * s + Fraction(rest) <= Fraction(eps)
        assert rest > 0 and float(parts * s + Fraction(rest)) >= eps * (1 - 1e-15)
    for bad in (dict(fraction=0.0), dict(fraction=1.0), dict(parts=0), dict(epsilon=-1.0)):
        args = dict(epsilon=1.0, fraction=0.1, parts=2)
        args.update(bad)
        with pytest.raises(InvalidParameterError):
            split_epsilon(**args)


def test_default_grid_is_public_geometric_and_wide():
    g = DEFAULT_GRID
    assert g[0] >= 1e-4 and g[0] < 1e-4 * 2 ** (1 / 8)
    assert g[-1] <= 1e8 and g[-1] > 1e8 / 2 ** (1 / 8)
    assert np.allclose(g[1:] / g[:-1], 2 ** (1 / 8), rtol=1e-14)
    assert 1.0 in set(g.tolist()) and 2.0 in set(g.tolist())
    assert np.array_equal(g, geometric_grid())
    with pytest.raises(ValueError):
        g[0] = 1.0  # read-only


def test_quantile_outside_the_grid_gives_the_flat_top():
    # The 0.5-quantile (1e12) is above the grid; the largest value inside it is 1e6: every grid
    # point at or above 1e6 has the best utility, so the output is one of them (and never a
    # point beyond the grid).
    v = np.array([1e6] * 60 + [1e12] * 140)
    top = DEFAULT_GRID[DEFAULT_GRID >= 1e6]
    outs = {private_quantile_bound(v, quantile=0.5, epsilon=5.0, rng=s)[0] for s in range(40)}
    assert outs <= set(top.tolist()) and len(outs) > 1
    # Symmetrically below the grid: the flat bottom below the smallest value inside it.
    v = np.array([1e-9] * 120 + [1e-2] * 80)
    bottom = DEFAULT_GRID[DEFAULT_GRID < 1e-2]
    outs = {private_quantile_bound(v, quantile=0.5, epsilon=5.0, rng=s)[0] for s in range(40)}
    assert outs <= set(bottom.tolist()) and len(outs) > 1
    # No value inside the grid: every candidate has the same utility (uniform output).
    outs = {
        private_quantile_bound(np.full(50, 1e12), quantile=0.5, epsilon=5.0, rng=s)[0]
        for s in range(40)
    }
    assert len(outs) > 20


def test_accuracy_on_many_values():
    v = np.random.default_rng(1).lognormal(0.0, 1.0, size=20_000)
    for q in (0.25, 0.5, 0.75, 0.9, 0.99):
        b, _ = private_quantile_bound(v, quantile=q, epsilon=1.0, rng=2)
        rank = np.mean(v <= b)
        # the guard's documented distortion: the rank error is at most the guard count at the
        # output (values B doublings away) plus the mechanism's own error
        guard = max(np.mean(v <= b / 2**B), np.mean(v > b * 2**B))
        assert abs(rank - q) < guard + 0.015  # + a grid step (9%) in rank
        if q in (0.25, 0.5, 0.75):
            assert abs(rank - q) < 0.015


# ------------------------------------------------------------------------------------------
# Mutation-testing details (issue 19 sample)
# ------------------------------------------------------------------------------------------


def test_geometric_grid_names_the_bad_argument():
    for kwargs, param in [
        (dict(low=0.0), "low"),
        (dict(low=2.0, high=1.0), "high"),
        (dict(high=float("inf")), "high"),
        (dict(steps_per_doubling=0), "steps_per_doubling"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            geometric_grid(**kwargs)
        assert err.value.parameter == param
        assert str(err.value).startswith(param + ":")


def test_private_quantile_bound_takes_epsilon_exactly():
    """An ``epsilon`` that is not exactly a float (``Fraction(1, 3)``) is refused naming
    ``epsilon``, with nothing drawn (the event would otherwise claim a rounded epsilon);
    ``Fraction(1, 4)`` is 0.25 exactly and accepted."""
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        private_quantile_bound([1.0, 2.0], quantile=0.5, epsilon=Fraction(1, 3), rng=0)
    assert err.value.parameter == "epsilon"
    assert not tap.calls
    _, event = private_quantile_bound([1.0, 2.0], quantile=0.5, epsilon=Fraction(1, 4), rng=0)
    assert event == PrivacyEvent.bounded_range(0.25)


# ------------------------------------------------------------------------------------------
# The far tail: small with the guard where the plain utility made it large
# ------------------------------------------------------------------------------------------

# 40 values in [1, 2): the plain utility scores every one of the ~300 default-grid points
# outside the data -20 (= -q n), within e^-5 of the quantile at epsilon 0.5; the guard scores
# the points more than B doublings outside the data -40.
TAIL_VALUES = [1.0 + i / 40 for i in range(40)]
TAIL_EPS = 0.5


def _far_mass(law, grid, values, factor):
    lo, hi = min(values) / factor, factor * max(values)
    return float(sum(p for p, g in zip(law, grid) if g < lo or g > hi))


def test_far_tail_probability_is_small_and_exact():
    grid = DEFAULT_GRID.tolist()
    n = len(TAIL_VALUES)
    factor = 2.0**B  # beyond B doublings every point scores -n under the guard
    guarded = exact_law(TAIL_VALUES, grid, 0.5, TAIL_EPS)
    plain = exact_law(TAIL_VALUES, grid, 0.5, TAIL_EPS, guard=False)
    p_guard = _far_mass(guarded, grid, TAIL_VALUES, factor)
    p_plain = _far_mass(plain, grid, TAIL_VALUES, factor)
    assert p_plain > 0.4  # the old score: often far outside the data
    # the docstring's bound K exp(-eps (n - r) / 2), r = -max u (computed here)
    r = -max(utility(TAIL_VALUES, grid, 0.5))
    bound = len(grid) * math.exp(-TAIL_EPS * (n - float(r)) / 2)
    assert p_guard <= bound < 0.05 and p_guard < p_plain / 50
    # the module's exact diagnostic equals the law computed here
    got = far_tail_probability(TAIL_VALUES, quantile=0.5, epsilon=TAIL_EPS, factor=factor)
    assert got == pytest.approx(p_guard, rel=1e-9)
    # draws: the far count is what the guarded law allows, far below the plain law's
    gen = Generator(2026)
    draws = [
        private_quantile_bound(TAIL_VALUES, quantile=0.5, epsilon=TAIL_EPS, rng=gen)[0]
        for _ in range(3000)
    ]
    far = sum(1 for g in draws if g < 1.0 / factor or g > factor * max(TAIL_VALUES))
    from scipy.stats import binom

    assert far <= binom.isf(1e-6, 3000, p_guard)
    assert far < binom.ppf(1e-6, 3000, p_plain)


# ------------------------------------------------------------------------------------------
# Neighbour replay of the counts path (release_bounds: one counting pass at count_points)
# ------------------------------------------------------------------------------------------


def _run_release_bounds(data, accountant, seed):
    X, y = data
    shares = (0.4, 0.4)
    return charged(
        accountant,
        0.8,
        "private bounds (counts path)",
        lambda: np.array(
            release_bounds(X, y, "private", "private", shares, (0.25, 0.75), Generator(seed))
        ),
        event=lambda: PrivacyEvent.composed([PrivacyEvent.bounded_range(s) for s in shares]),
    )


def _release_pairs():
    rs = np.random.default_rng(5)
    X = rs.normal(size=(12, 3))
    y = rs.normal(size=12)
    rows = [
        ("zero", (np.zeros(3), 0.0)),
        ("huge", (np.full(3, 1e6), 1e7)),  # beyond 2^B times every value: guard terms move
        ("tiny", (np.full(3, 1e-3), 1e-4)),
    ]
    return replace_one_pairs((X, y), rows, cross=((0, 1), (1, 2)))


def test_replay_release_bounds_counts_path():
    entry = Entry(
        "private bounds, counts path", _run_release_bounds, _release_pairs, seeds=(0, 1, 2)
    )
    assert check_entry(entry) > 0


def test_quantile_from_counts_takes_epsilon_exactly_and_refuses_negative_counts():
    """private_quantile_from_counts: an epsilon no float holds (1/3) is refused naming it, and
    counts below 0 are refused naming counts_below (before anything is drawn)."""
    from fractions import Fraction

    k = count_points().size
    counts = np.full(k, 5, dtype=np.int64)
    with pytest.raises(InvalidParameterError) as err:
        private_quantile_from_counts(counts, 10, quantile=0.5, epsilon=Fraction(1, 3), rng=0)
    assert err.value.parameter == "epsilon"
    bad = counts.copy()
    bad[0] = -1  # non-decreasing and <= n, only the sign is wrong
    with pytest.raises(InvalidParameterError) as err:
        private_quantile_from_counts(bad, 10, quantile=0.5, epsilon=1.0, rng=0)
    assert err.value.parameter == "counts_below"
