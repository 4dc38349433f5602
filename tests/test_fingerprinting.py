"""The guarantees of the fingerprinting codes, tested by experiment.

* False accusation: over many fresh codes, the rate of codes on which *some* innocent user is
  accused stays below ``false_accusation`` (one-sided Clopper–Pearson upper bound at level
  ``ALPHA = 1e-6``), for every pirate strategy and for infeasible framing words.
* Catch rate: for coalitions of ``c = 2, 5, 10, 20`` users and every strategy, the rate of codes
  on which no member is accused stays below the code's stated miss rate (same bound). At the
  default lengths this is testable for ``c = 2`` and ``c = 5`` (small codes with stated miss
  rates of a few percent); for ``c = 10`` and ``c = 20`` the default lengths' stated rates
  (``1e-6`` and below) are beyond any number of trials, so the codes are shortened (``length=``)
  to a certified miss rate of about 5%, which tests the certificate that sets the default
  length. The full c x strategy table at realistic sizes is the ``fingerprinting-codes``
  experiment (``privlearn reproduce fingerprinting-codes``).

Every check has a power check: the same check must fail on a broken variant (a threshold that
is too low; a code that is too short for the miss rate it claims; the literal Boneh–Shaw trace).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn.attacks import PIRATE_STRATEGIES, BonehShawCode, pirate, tardos_parameters
from privlearn.experiments.fingerprinting import (
    FRAMING_WORDS,
    Cell,
    cp_upper,
    length_for_miss_rate,
    run_cell,
)
from privlearn.random import Generator


def rate_within(events: int, trials: int, bound: float) -> bool:
    """The check of every test: the Clopper–Pearson upper bound (level 1e-6) on the rate is at
    most ``bound``. A correct code fails it with probability at most 1e-6."""
    return cp_upper(events, trials) <= bound


def play(cells, seed):
    return [run_cell(cell, seed + i) for i, cell in enumerate(cells)]


# --------------------------------------------------------------------------------------------
# False accusation
# --------------------------------------------------------------------------------------------

N_FA, C_FA, XI_FA = 40, 5, 0.2  # ε1 = 0.005; 600 codes resolve ξ = 0.2 (bound 0.023 at 0 events)


def false_accusations(variant, threshold_scale=1.0, codes=60):
    cells = [
        Cell(variant, N_FA, C_FA, XI_FA, word, codes, threshold_scale=threshold_scale)
        for word in PIRATE_STRATEGIES + FRAMING_WORDS
    ]
    results = play(cells, seed=100)
    return sum(r.false_accusations for r in results), sum(r.trials for r in results)


@pytest.mark.parametrize("variant", ["symmetric", "tardos"])
def test_false_accusation_rate_is_below_xi(variant):
    events, trials = false_accusations(variant)
    assert rate_within(events, trials, XI_FA), (events, trials, cp_upper(events, trials))
    # Power: with the threshold at a quarter of its value the same check, on as many codes,
    # fails.
    broken_events, broken_trials = false_accusations(variant, threshold_scale=0.25)
    assert not rate_within(broken_events, broken_trials, XI_FA), (broken_events, broken_trials)


# --------------------------------------------------------------------------------------------
# Catch rate at the default lengths (c = 2 and c = 5)
# --------------------------------------------------------------------------------------------

# (c, n_users, false_accusation, codes per strategy): stated miss rates 0.071 and 0.117.
DEFAULT_CASES = [(2, 40, 0.2, 300), (5, 5, 0.9, 200)]


@pytest.mark.parametrize("variant", ["symmetric", "tardos"])
@pytest.mark.parametrize("c,n,xi,codes", DEFAULT_CASES)
def test_catch_rate_at_the_default_length(variant, c, n, xi, codes):
    stated = tardos_parameters(n, c, xi, variant=variant).miss_rate
    assert 0.05 < stated < 0.2
    for i, strategy in enumerate(PIRATE_STRATEGIES):
        r = run_cell(Cell(variant, n, c, xi, strategy, codes), seed=200 + i)
        assert rate_within(r.misses, r.trials, stated), (strategy, r, stated)


@pytest.mark.parametrize("variant,factor", [("symmetric", 4), ("tardos", 10)])
def test_catch_rate_power_check_too_short_code(variant, factor):
    # A code `factor` times shorter than its variant's length (Tardos' has more slack), claiming
    # the default length's miss rate: the same check on as many codes fails.
    c, n, xi, codes = DEFAULT_CASES[1]
    params = tardos_parameters(n, c, xi, variant=variant)
    for i, strategy in enumerate(("majority", "interleave")):
        cell = Cell(variant, n, c, xi, strategy, codes, length=params.length // factor)
        r = run_cell(cell, seed=300 + i)
        assert not rate_within(r.misses, r.trials, params.miss_rate), (strategy, r)


# --------------------------------------------------------------------------------------------
# Catch rate of shortened codes (c = 10, 20): the certificate at a testable level
# --------------------------------------------------------------------------------------------

N_CERT, XI_CERT, TARGET = 40, 0.2, 0.05


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["symmetric", "tardos"])
@pytest.mark.parametrize("c", [10, 20])
def test_certified_miss_rate_holds_for_shortened_codes(variant, c):
    m = length_for_miss_rate(variant, N_CERT, c, XI_CERT, TARGET)
    params = tardos_parameters(N_CERT, c, XI_CERT, variant=variant, length=m)
    assert (
        params.miss_rate <= TARGET
        and m < tardos_parameters(N_CERT, c, XI_CERT, variant=variant).length
    )
    fa_events = fa_trials = 0
    for i, strategy in enumerate(PIRATE_STRATEGIES):
        r = run_cell(Cell(variant, N_CERT, c, XI_CERT, strategy, 400, length=m), seed=400 + i)
        assert rate_within(r.misses, r.trials, params.miss_rate), (strategy, r, params.miss_rate)
        fa_events += r.false_accusations
        fa_trials += r.trials
    assert rate_within(fa_events, fa_trials, XI_CERT)
    # Power: a sixth of the certified length, claiming the same miss rate, fails the same check.
    r = run_cell(Cell(variant, N_CERT, c, XI_CERT, "majority", 400, length=m // 6), seed=499)
    assert not rate_within(r.misses, r.trials, params.miss_rate), r


# --------------------------------------------------------------------------------------------
# Boneh–Shaw: soundness for any word, deterministic completeness
# --------------------------------------------------------------------------------------------


def boneh_shaw_game(n, xi, codes, seed, literal_trace=False):
    """Coalitions that exclude user 0 forge every strategy's word and the framing words; counts
    codes with an innocent accused (per word) and codes with no member accused (feasible words
    only). ``literal_trace`` adds the Boneh–Shaw trace's first step (accuse user 1 on a 1 in a
    type-0 column), which infeasible words exploit."""
    gen = Generator(seed)
    pick = np.random.default_rng(seed)
    innocent = misses = trials = 0
    for _ in range(codes):
        code = BonehShawCode(n, xi, rng=gen)
        members = np.sort(1 + pick.choice(n - 1, size=int(pick.integers(1, n)), replace=False))
        words = {s: pirate(code, members, s, rng=gen) for s in PIRATE_STRATEGIES}
        words["all-ones"] = np.ones(code.length, dtype=bool)
        words["anti-majority"] = ~words["majority"]
        words["uniform"] = np.asarray(gen.random_raw(code.length), dtype=object) % 2 == 1
        for kind, word in words.items():
            accused = set(code.trace(word).tolist())
            if literal_trace and code.counts(word)[0] > 0:
                accused.add(0)
            innocent += bool(accused - set(members.tolist()))
            trials += 1
            if kind in PIRATE_STRATEGIES:
                misses += not (accused & set(members.tolist()))
    return innocent, misses, trials


def test_boneh_shaw_soundness_and_completeness():
    n, xi = 8, 0.2
    innocent, misses, trials = boneh_shaw_game(n, xi, codes=60, seed=5)
    assert misses == 0  # completeness is deterministic for feasible words
    assert rate_within(innocent, trials, xi), (innocent, trials)
    # Power: the literal trace is framed by infeasible words (user 1 is innocent in every game).
    framed, _, trials2 = boneh_shaw_game(n, xi, codes=20, seed=6, literal_trace=True)
    assert not rate_within(framed, trials2, xi), (framed, trials2)


# --------------------------------------------------------------------------------------------
# The experiment
# --------------------------------------------------------------------------------------------


def test_experiment_quick_run(tmp_path):
    from privlearn.experiments import Table, run_experiment

    dest = run_experiment(
        "fingerprinting-codes", out_dir=tmp_path, quick=True, seed=0, progress=False
    )
    catch = Table.read_csv(dest / "catch-rates.csv")
    assert set(catch.column("strategy")) == set(PIRATE_STRATEGIES)
    assert set(catch.column("c")) == {2, 5}
    for name in ("catch-rates", "false-accusations", "certificate"):
        assert "yes" not in Table.read_csv(dest / f"{name}.csv").column("refuted"), name
    assert "no stated bound is refuted" in (dest / "fingerprinting-codes.md").read_text()
