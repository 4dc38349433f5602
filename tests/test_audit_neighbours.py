"""Neighbour search (privlearn.audit search_neighbours, Domain, neighbour_candidates).

The mechanisms here are small numpy sums and means whose sensitivities are derived in the tests
from the declared bounds (replace-one: one row moves across the whole box, so a clipped sum
moves by at most ``upper - lower``; add/remove: by at most ``max(|lower|, |upper|)``). The broken
ones carry the calibration bugs neighbour search exists to find: a sensitivity computed as if the
lower bound were 0 (the leak shows only on pairs that move a row from one end to the other) and a
replace-one sensitivity used for add/remove. Statistical assertions run at alpha = 1e-6, and every
"passes" is paired with a power check (the same search refutes the mechanism at half its noise).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn.audit import audit
from privlearn.audit._neighbours import (
    Domain,
    NeighbourAudit,
    neighbour_candidates,
    search_neighbours,
)
from privlearn.errors import InvalidParameterError

ALPHA = 1e-6
EPS = 1.0
LO, HI, ROWS = -1.0, 1.0, 10


def clipped_sum(scale):
    """Sum of the rows clipped to [LO, HI] plus Laplace noise of the given scale."""

    def mechanism(data, rng, size):
        return np.clip(data, LO, HI).sum() + rng.laplace(0.0, scale, size=size)

    return mechanism


def mean_lower_bound_zero_bug(data, rng, size):
    """A clipped mean whose sensitivity is computed as ``upper / n`` (as if the lower bound
    were 0); the replace-one sensitivity is ``(upper - lower) / n``, twice as large here."""
    n = len(data)
    mean = np.clip(data, LO, HI).mean()
    return mean + rng.laplace(0.0, (HI / n) / EPS, size=size)


def _full_range_pair(found):
    """Whether the chosen pair moves one row from one end of the box to the other."""
    return abs(found.data_a.sum() - found.data_b.sum()) == pytest.approx(HI - LO)


# --------------------------------------------------------------------------------------------
# Statistical behaviour
# --------------------------------------------------------------------------------------------


def test_search_finds_the_extreme_pair_of_a_lower_bound_zero_bug():
    domain = Domain(LO, HI, rows=ROWS)
    found = search_neighbours(
        mean_lower_bound_zero_bug, domain, EPS, n=200_000, pilot_n=20_000, alpha=ALPHA, rng=1
    )
    assert isinstance(found, NeighbourAudit)
    assert not found.passed
    assert found.result.bound > 1.5 * EPS  # the true epsilon on the full-range pairs is 2
    assert _full_range_pair(found), found.pair
    # the leak is invisible on a pair that moves a row from the midpoint: an audit of that
    # pair alone passes (its epsilon is exactly the claim), so the search is what finds it
    mid = dict((name, (a, b)) for name, a, b in neighbour_candidates(domain, rng=0))
    a, b = mid["mid-vs-one-high"]
    naive = audit(
        lambda g, size: mean_lower_bound_zero_bug(a, g, size),
        lambda g, size: mean_lower_bound_zero_bug(b, g, size),
        EPS,
        n=200_000,
        alpha=ALPHA,
        rng=2,
    )
    assert naive.passed
    # the pilot ranks the full-range pairs above the midpoint pairs
    pilot = dict(found.pilot)
    assert max(pilot["low-vs-one-high"], pilot["high-vs-one-low"]) > pilot["mid-vs-one-high"]


def test_correct_clipped_sum_passes_and_half_noise_is_refuted():
    domain = Domain(LO, HI, rows=ROWS)
    scale = (HI - LO) / EPS  # replace-one sensitivity of the clipped sum: upper - lower
    ok = search_neighbours(clipped_sum(scale), domain, EPS, n=200_000, alpha=ALPHA, rng=3)
    assert ok.passed, str(ok)
    assert ok.result.bound > 0.8 * EPS  # the worst pair is nearly tight
    assert _full_range_pair(ok)
    broken = search_neighbours(clipped_sum(scale / 2), domain, EPS, n=200_000, alpha=ALPHA, rng=3)
    assert not broken.passed
    assert _full_range_pair(broken)


def test_add_remove_search_finds_a_replace_one_sensitivity_used_for_add_remove():
    # values in [0.5, 1]: replace-one moves the sum by 0.5, adding a row by up to 1
    domain = Domain(0.5, 1.0, rows=4)

    def noisy_sum(scale):
        def mechanism(data, rng, size):
            return np.clip(data, 0.5, 1.0).sum() + rng.laplace(0.0, scale, size=size)

        return mechanism

    bug = search_neighbours(
        noisy_sum(0.5 / EPS), domain, EPS, notion="add-remove", n=200_000, alpha=ALPHA, rng=4
    )
    assert not bug.passed
    assert abs(len(bug.data_a) - len(bug.data_b)) == 1
    ok = search_neighbours(
        noisy_sum(1.0 / EPS), domain, EPS, notion="add-remove", n=200_000, alpha=ALPHA, rng=4
    )
    assert ok.passed, str(ok)
    # the same mechanism under replace-one is correct: the search finds nothing
    assert search_neighbours(
        noisy_sum(0.5 / EPS), domain, EPS, n=200_000, alpha=ALPHA, rng=4
    ).passed


def test_empty_dataset_reaches_the_mechanism_under_add_remove():
    seen = []

    def mechanism(data, rng):
        seen.append(data.shape)
        return int(data.shape[0] > 0 and rng.random() < 0.5)

    search_neighbours(
        mechanism, Domain(0.0, 1.0, rows=1), 1.0, notion="add-remove", n=50, pilot_n=20, rng=0
    )
    assert (0, 1) in seen and (1, 1) in seen


# --------------------------------------------------------------------------------------------
# The candidate family
# --------------------------------------------------------------------------------------------


def _multiset(a):
    return sorted(map(tuple, np.asarray(a).tolist()))


def _replace_distance(a, b):
    ra, rb = _multiset(a), _multiset(b)
    common = 0
    for row in set(ra):
        common += min(ra.count(row), rb.count(row))
    return len(ra) - common


@pytest.mark.parametrize("columns", [1, 2, 3, 5])
def test_replace_one_candidates_are_neighbours_in_the_domain(columns):
    lo, hi = np.arange(columns) - 1.0, np.arange(columns) + 2.0
    domain = Domain(lo, hi, rows=6)
    pairs = neighbour_candidates(domain, rng=0)
    names = [p[0] for p in pairs]
    assert len(set(names)) == len(names)
    assert names[:2] == ["low-vs-one-high", "high-vs-one-low"]
    for name, a, b in pairs:
        assert a.shape == b.shape == (6, columns), name
        assert _replace_distance(a, b) == 1, name
        assert np.all(a >= lo) and np.all(a <= hi) and np.all(b >= lo) and np.all(b <= hi)
        assert not a.flags.writeable
    if columns > 1:
        assert f"low-vs-one-high[col {columns - 1}]" in names
    assert any("corner" in n for n in names) == (1 < columns <= 3)
    if columns <= 3:  # every corner of the box is some pair's changed row
        changed = {tuple(b[-1]) for _, a, b in pairs}
        for bits in np.ndindex(*(2,) * columns):
            assert tuple(np.where(np.array(bits) == 1, hi, lo)) in changed, bits
    assert sum(n.startswith("random-") for n in names) == 3
    assert "spread-vs-duplicate-high" in names
    a, b = dict((n, (a, b)) for n, a, b in pairs)["spread-vs-duplicate-high"]
    assert len({tuple(r) for r in b.tolist()}) == 5  # two equal rows
    # seeded: the same rng gives the same family, another seed other random pairs
    again = neighbour_candidates(domain, rng=0)
    assert all(np.array_equal(x[1], y[1]) for x, y in zip(pairs, again))
    other = dict((n, a) for n, a, _ in neighbour_candidates(domain, rng=1))
    assert not np.array_equal(other["random-1"], dict((n, a) for n, a, _ in pairs)["random-1"])


def test_add_remove_candidates_include_empty_vs_singleton_at_each_extreme():
    domain = Domain(0.0, 1.0, rows=3)
    pairs = neighbour_candidates(domain, notion="add-remove", rng=0)
    singles = {}
    for name, a, b in pairs:
        small, large = (a, b) if len(a) < len(b) else (b, a)
        assert len(large) - len(small) == 1, name
        assert _replace_distance(small, large[: len(small)]) <= len(small)
        assert len(large) <= 3
        if len(small) == 0:
            assert small.shape == (0, 1)
            singles[float(large[0, 0])] = name
    assert set(singles) == {0.0, 0.5, 1.0}
    assert singles[0.0] == "empty-vs-low" and singles[1.0] == "empty-vs-high"


def test_integer_domain_candidates_are_integers():
    domain = Domain(0, 5, rows=4, integer=True)
    assert domain.mid.tolist() == [2.0]
    for notion in ("replace-one", "add-remove"):
        for name, a, b in neighbour_candidates(domain, notion=notion, rng=0):
            assert np.array_equal(a, np.round(a)) and np.array_equal(b, np.round(b)), name


def test_domain_broadcasts_and_is_frozen():
    d = Domain(0.0, [1.0, 2.0], rows=3)
    assert d.lower == (0.0, 0.0) and d.upper == (1.0, 2.0) and d.columns == 2
    assert d == Domain([0, 0], [1, 2], 3)
    with pytest.raises(AttributeError):
        d.rows = 4  # type: ignore[misc]


# --------------------------------------------------------------------------------------------
# Validation before sampling
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, param",
    [
        ((1.0, 0.0, 3), {}, "upper"),
        ((0.0, 0.0, 3), {}, "upper"),
        (([0.0, 0.0], [1.0, 1.0, 1.0], 3), {}, "upper"),
        ((0.0, np.nan, 3), {}, "upper"),
        ((np.inf, 1.0, 3), {}, "lower"),
        (([[0.0]], 1.0, 3), {}, "lower"),
        (([], 1.0, 3), {}, "lower"),
        (("a", 1.0, 3), {}, "lower"),
        ((True, 1.0, 3), {}, "lower"),
        ((0.0, 1.0, 0), {}, "rows"),
        ((0.0, 1.0, 2.0), {}, "rows"),
        ((0.5, 2.0, 3), {"integer": True}, "lower"),
        ((0.0, 1.0, 3), {"integer": "yes"}, "integer"),
    ],
)
def test_bad_domains_are_refused(args, kwargs, param):
    with pytest.raises(InvalidParameterError) as info:
        Domain(*args, **kwargs)
    assert info.value.parameter == param
    assert str(info.value).startswith(f"{param}:")


class _Counting:
    """A vectorised mechanism that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, data, rng, size):
        self.calls += 1
        return data.sum() + rng.laplace(0.0, 1.0, size=size)


DOMAIN = Domain(0.0, 1.0, rows=2)


@pytest.mark.parametrize(
    "candidates, notion",
    [
        ([("x", [[0.0], [0.0]], [[0.0], [2.0]])], "replace-one"),  # outside the bounds
        ([("x", [[0.0], [0.0]], [[1.0], [1.0]])], "replace-one"),  # two rows differ
        ([("x", [[0.0]], [[1.0]])], "replace-one"),  # not the domain's row count
        ([("x", [[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]])], "replace-one"),  # columns
        ([("x", [[0.0], [np.nan]], [[0.0], [1.0]])], "replace-one"),
        ([("x", [0.0, 0.0], [0.0, 1.0])], "replace-one"),  # 1-D
        ([("x", [[0.0], [0.0]], [[0.0], [1.0]])], "add-remove"),  # same row count
        ([("x", [[0.0]], [[1.0], [1.0]])], "add-remove"),  # not a superset
        ([("x", [[0.0], [0.0]], [[0.0], [0.0], [0.0]])], "add-remove"),  # more rows than domain
        ([], "replace-one"),
        ([("x", [[0.0], [0.0]])], "replace-one"),
        ([(1, [[0.0], [0.0]], [[0.0], [1.0]])], "replace-one"),
        (
            [("x", [[0.0], [0.0]], [[0.0], [1.0]]), ("x", [[1.0], [1.0]], [[0.0], [1.0]])],
            "replace-one",
        ),
        ("pairs", "replace-one"),
    ],
)
def test_bad_candidates_raise_before_sampling(candidates, notion):
    mech = _Counting()
    with pytest.raises(InvalidParameterError) as info:
        search_neighbours(mech, DOMAIN, 1.0, notion=notion, candidates=candidates, rng=0)
    assert info.value.parameter == "candidates"
    assert mech.calls == 0


@pytest.mark.parametrize(
    "kwargs, param",
    [
        ({"claimed": -1.0}, "claimed"),
        ({"claimed": "one"}, "claimed"),
        ({"notion": "swap"}, "notion"),
        ({"n": 1}, "n"),
        ({"pilot_n": 0}, "pilot_n"),
        ({"alpha": 0.0}, "alpha"),
        ({"statistic": 3}, "statistic"),
        ({"domain": (0.0, 1.0, 2)}, "domain"),
        ({"mechanism": "sum"}, "mechanism"),
    ],
)
def test_bad_parameters_raise_before_sampling(kwargs, param):
    mech = _Counting()
    args = {"mechanism": mech, "domain": DOMAIN, "claimed": 1.0, **kwargs}
    mechanism, domain, claimed = args.pop("mechanism"), args.pop("domain"), args.pop("claimed")
    with pytest.raises(InvalidParameterError) as info:
        search_neighbours(mechanism, domain, claimed, rng=0, **args)
    assert info.value.parameter == param
    assert mech.calls == 0


# --------------------------------------------------------------------------------------------
# Mechanics: user candidates, ties, fresh seeds, calling forms, to_dict
# --------------------------------------------------------------------------------------------


def test_user_candidates_in_order_and_ties_go_to_the_first():
    def constant(data, rng, size):
        return np.zeros(size)

    cands = [
        ("first", [[0.0], [0.0]], [[0.0], [1.0]]),
        ("second", [[1.0], [1.0]], [[1.0], [0.0]]),
    ]
    found = search_neighbours(constant, DOMAIN, 1.0, candidates=cands, n=100, pilot_n=100, rng=0)
    assert [name for name, _ in found.pilot] == ["first", "second"]
    assert [bound for _, bound in found.pilot] == [0.0, 0.0]
    assert found.pair == "first" and found.passed
    assert found.data_b.tolist() == [[0.0], [1.0]]


def test_final_audit_uses_fresh_samples_and_is_reproducible():
    cands = [("only", [[0.0], [0.0]], [[0.0], [1.0]])]
    mech = clipped_sum(1.0)
    a = search_neighbours(mech, DOMAIN, 1.0, candidates=cands, n=20_000, pilot_n=20_000, rng=5)
    b = search_neighbours(mech, DOMAIN, 1.0, candidates=cands, n=20_000, pilot_n=20_000, rng=5)
    assert a.result == b.result and a.pilot == b.pilot  # seeded
    # same pair, same n: the final bound differs from the pilot's (other samples)
    assert a.result.bound != a.pilot[0][1]


def test_one_output_per_call_form_and_private_copies():
    calls = []

    def mutating(data, rng):
        calls.append(float(data.sum()))
        data[:] = 99.0  # must not leak into later calls
        return int(rng.random() < 0.5)

    found = search_neighbours(mutating, DOMAIN, 1.0, n=30, pilot_n=10, rng=0)
    assert max(calls) <= 2.0
    assert found.passed
    assert not found.data_a.flags.writeable


def test_to_dict_and_str():
    found = search_neighbours(clipped_sum(2.0), DOMAIN, 1.0, n=2_000, pilot_n=500, rng=0)
    d = found.to_dict()
    assert set(d) == {"result", "pair", "notion", "data_a", "data_b", "pilot"}
    assert d["pair"] == found.pair and d["notion"] == "replace-one"
    assert d["data_a"] == found.data_a.tolist()
    assert [p["pair"] for p in d["pilot"]] == [name for name, _ in found.pilot]
    assert d["result"]["bound"] == found.result.bound
    assert found.pair in str(found)


def test_claims_and_methods_pass_through_to_audit():
    from privlearn.audit._claims import GaussianDP

    def gaussian_sum(data, rng, size):
        return data.sum() + rng.normal(0.0, 1.0, size=size)  # sensitivity 1: 1-GDP

    gdp = search_neighbours(gaussian_sum, DOMAIN, GaussianDP(1.0), n=20_000, pilot_n=2_000, rng=0)
    assert gdp.result.quantity == "mu" and gdp.result.tradeoff is not None
    assert gdp.result.claimed_mu == 1.0
    hs = search_neighbours(
        gaussian_sum, DOMAIN, (1.0, 1e-3), method="hockey-stick", n=20_000, pilot_n=2_000, rng=0
    )
    assert hs.result.quantity == "delta" and hs.result.method == "hockey-stick"
    assert not hs.passed  # the Gaussian with sigma = 1 has delta ~ 0.13 at epsilon = 1


def test_user_add_remove_candidates_accept_the_empty_dataset():
    def count(data, rng, size):
        return len(data) + rng.laplace(0.0, 1.0, size=size)

    cands = [("empty", [], [[1.0]]), ("one", [[0.0]], [[0.0], [1.0]])]
    found = search_neighbours(
        count, DOMAIN, 1.0, notion="add-remove", candidates=cands, n=2_000, pilot_n=500, rng=0
    )
    assert [name for name, _ in found.pilot] == ["empty", "one"]
    shapes = {found.data_a.shape, found.data_b.shape}
    assert shapes in ({(0, 1), (1, 1)}, {(1, 1), (2, 1)})
