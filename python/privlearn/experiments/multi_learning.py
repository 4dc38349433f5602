"""Seed 002's experiments: the cost of learning many concepts privately, and the attack that
bounds it (Bun, Nissim and Stemmer, "Simultaneous private learning of multiple concepts").

``multi-sample-complexity``
    For ``k = 1 .. 1000`` concepts, the smallest sample size (on a grid of factor ``sqrt(2)``)
    at which a learner gets *every* concept right in at least 90% of repetitions, for parities
    under the uniform distribution on ``{0,1}^8`` (exact recovery) and for point functions on a
    Zipf-distributed domain of 100 points, targets among the 9 points of mass at least
    ``alpha = 0.02`` (error at most ``alpha`` per concept, computed exactly). The basic strategy (:class:`~privlearn.multi.IndependentMultiLearner` with the
    exponential mechanism and basic composition, or with the stability learner per concept and
    advanced composition) grows with ``k``; :class:`~privlearn.multi.ParityMultiLearner` and
    :class:`~privlearn.multi.PointMultiLearner` stay flat, as Theorems 3.12 and 3.13 say. The
    generic learner (:class:`~privlearn.multi.SanitizerMultiLearner`) is run on points.

    Issue 18 adds, for the same strategies, rows composed by the tightest valid composition
    (appended to :data:`LEARNERS`, so the former cells keep their task index and seed and are
    the comparison rows): the independent exponential mechanisms and the sanitizer's
    exponential mechanisms by bounded-range composition at ``(1, 1e-6)`` (Durfee and Rogers
    2019; Dong, Durfee and Rogers 2020: 0.01397 per concept at ``k = 1000`` against basic
    composition's 0.001 of a pure ``epsilon = 1``), the stability learners by Kairouz, Oh and
    Viswanath's optimal composition instead of advanced composition; the
    ``composition-gain`` table sets them side by side. Measured at ``k = 1000`` with the full
    run's cells and seeds (root seed 0; 10 repetitions, 9 must succeed)::

        python -c "from privlearn.experiments.multi_learning import *
        from privlearn.random import spawn_seeds
        cells = sample_complexity_cells(False); seeds = spawn_seeds(0, len(cells))
        [print(c.problem, c.key, needed_sample_size(c, s)) for c, s in zip(cells, seeds)
         if c.k == 1000 and c.key in ('independent-em', 'independent-em-br',
                                     'sanitizer', 'sanitizer-br')]"

    =================================================  ===============  ===========  =========
    k = 1000, (1, 1e-6)                                former           tightest     reduction
    =================================================  ===============  ===========  =========
    parities, independent exp. mechanism (BR)          65,536           4,096        94%
    points, independent exp. mechanism (BR)            > 262,144 (cap)  65,536       > 75%
    points, SanitizerMultiLearner (BR)                 > 262,144 (cap)  131,072      > 50%
    parities, independent SearchParities (optimal)     185,364          131,072      29%
    =================================================  ===============  ===========  =========

    The issue's target is at least 25% smaller at ``k = 1000``. At ``k = 300`` (the same
    command with ``c.k == 300``): 16,384 -> 2,896 (parities), 262,144 -> 32,768 (points) and
    741,455 -> 65,536 (sanitizer). The stability row (keys ``independent-stable`` and
    ``independent-stable-optimal``; points not measured) took 33 and 19 minutes on one loaded
    core. The full run is ``privlearn reproduce multi-sample-complexity --n-jobs 2``
    (``--quick`` for a smoke run).
``multi-fingerprinting-attack``
    :func:`~privlearn.attacks.fingerprinting_attack` with 8 users (a Tardos code with about
    3,100 positions, so about 3,100 concepts) against the non-private multi-learner and against
    private ones across epsilon: the identification rate is high for the non-private learner and
    stays below ``e^epsilon xi + n delta`` for the private ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..attacks import fingerprinting_attack
from ..audit import FALSE_POSITIVE_RATE
from ..gf2 import _pack
from ..hypotheses import Parities, Points
from ..multi import (
    ZERO,
    IndependentMultiLearner,
    NonPrivateMultiLearner,
    ParityMultiLearner,
    PointMultiLearner,
    SanitizerMultiLearner,
    StableParityLearner,
    StablePointLearner,
    parity_sample_size,
    points_sample_size,
)
from ..random import Generator
from ._framework import ExperimentResult, RunConfig, Table, new_figure, register, run_trials

EPSILON, DELTA = 1.0, 1e-6
#: The share of repetitions that must get every concept right.
SUCCESS = 0.9
PARITY_DIM = 8
POINT_DOMAIN, POINT_ALPHA = 100, 0.02

#: (problem, key, label) of every learner of the sample-size experiment.
LEARNERS: Tuple[Tuple[str, str, str], ...] = (
    ("parities", "multi", "ParityMultiLearner (SearchParities)"),
    ("parities", "independent-stable", "independent SearchParities, advanced composition"),
    ("parities", "independent-em", "independent exponential mechanism, basic composition"),
    ("points", "multi", "PointMultiLearner (LearnPoints)"),
    ("points", "independent-stable", "independent LearnPoints, advanced composition"),
    ("points", "independent-em", "independent exponential mechanism, basic composition"),
    ("points", "sanitizer", "SanitizerMultiLearner (stability histogram + exponential mechanisms)"),
    # Issue 18: the same strategies composed by the tightest valid composition (appended, so
    # the cells above keep their seeds and reproduce the former curves as the comparison rows).
    (
        "parities",
        "independent-em-br",
        "independent exponential mechanism, bounded-range composition",
    ),
    ("points", "independent-em-br", "independent exponential mechanism, bounded-range composition"),
    ("parities", "independent-stable-optimal", "independent SearchParities, optimal composition"),
    ("points", "independent-stable-optimal", "independent LearnPoints, optimal composition"),
    (
        "points",
        "sanitizer-br",
        "SanitizerMultiLearner, bounded-range composition of its exponential mechanisms",
    ),
)

#: The comparison rows of issue 18: (problem, former key, key with the tightest composition).
COMPOSITION_PAIRS: Tuple[Tuple[str, str, str], ...] = (
    ("parities", "independent-em", "independent-em-br"),
    ("points", "independent-em", "independent-em-br"),
    ("parities", "independent-stable", "independent-stable-optimal"),
    ("points", "independent-stable", "independent-stable-optimal"),
    ("points", "sanitizer", "sanitizer-br"),
)


def zipf_weights(m: int = POINT_DOMAIN) -> np.ndarray:
    """The point distribution: ``P(i) ∝ 1/(i+1)`` on ``{0, ..., m-1}``."""
    w = 1.0 / np.arange(1, m + 1)
    return w / w.sum()


def heavy_targets(w: np.ndarray) -> np.ndarray:
    """The points of mass at least ``alpha`` (the all-zero hypothesis is ``alpha``-good for any
    other target, so targets are drawn uniformly among these)."""
    return np.flatnonzero(w >= POINT_ALPHA)


def _learner(problem: str, key: str, gen: Generator) -> Any:
    if problem == "parities":
        if key == "multi":
            return ParityMultiLearner(PARITY_DIM, EPSILON, DELTA, rng=gen)
        if key.startswith("independent-stable"):
            comp = "advanced" if key == "independent-stable" else "optimal"
            return IndependentMultiLearner(
                StableParityLearner(PARITY_DIM), EPSILON, DELTA, composition=comp, rng=gen
            )
        if key == "independent-em-br":
            return IndependentMultiLearner(
                Parities(PARITY_DIM), EPSILON, DELTA, composition="bounded-range", rng=gen
            )
        # The former curve: pure epsilon, basic composition (optimal for a pure total).
        return IndependentMultiLearner(Parities(PARITY_DIM), EPSILON, composition="basic", rng=gen)
    if key == "multi":
        return PointMultiLearner(EPSILON, DELTA, POINT_ALPHA, rng=gen)
    if key.startswith("independent-stable"):
        comp = "advanced" if key == "independent-stable" else "optimal"
        return IndependentMultiLearner(
            StablePointLearner(POINT_ALPHA), EPSILON, DELTA, composition=comp, rng=gen
        )
    if key == "independent-em":
        return IndependentMultiLearner(
            Points(domain_size=POINT_DOMAIN), EPSILON, composition="basic", rng=gen
        )
    if key == "independent-em-br":
        return IndependentMultiLearner(
            Points(domain_size=POINT_DOMAIN), EPSILON, DELTA, composition="bounded-range", rng=gen
        )
    return SanitizerMultiLearner(
        Points(domain_size=POINT_DOMAIN),
        EPSILON,
        DELTA,
        sanitizer="points",
        composition="basic" if key == "sanitizer" else "bounded-range",
        rng=gen,
    )


def parity_task(
    n: int, k: int, g: np.random.Generator
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` uniform examples of ``{0,1}^8`` labelled by ``k`` random non-zero parities: the
    examples, the labels and the parities' indicator vectors (``8 x k``)."""
    X = g.integers(0, 2, size=(n, PARITY_DIM), dtype=np.uint8)
    S = g.integers(0, 2, size=(PARITY_DIM, k), dtype=np.uint8)
    zero = ~S.any(axis=0)
    while zero.any():
        S[:, zero] = g.integers(0, 2, size=(PARITY_DIM, int(zero.sum())), dtype=np.uint8)
        zero = ~S.any(axis=0)
    words = _core.gf2_mul(_pack(X), PARITY_DIM, _pack(S), k)
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(n, -1)
    Y = np.unpackbits(as_bytes, axis=1, count=k, bitorder="little").astype(bool)
    return X, Y, S


def parity_success(learner: Any, S: np.ndarray) -> bool:
    """Every concept recovered exactly (under the uniform distribution any other parity has
    error 1/2)."""
    if isinstance(learner, ParityMultiLearner):
        return bool(np.array_equal(learner.coefficients_, S))
    got = np.stack([h.a for h in learner.hypotheses_], axis=1)
    return bool(np.array_equal(got, S))


def point_errors(hypotheses: Sequence[Any], targets: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Exact population errors of point hypotheses (or the all-zero one) against the targets."""
    out = np.empty(len(targets))
    for j, (h, t) in enumerate(zip(hypotheses, targets)):
        if h is ZERO:
            out[j] = w[t]
        else:
            p = h.p if isinstance(h.p, int) else int(round(h.p[0]))
            out[j] = 0.0 if p == t else w[t] + w[p]
    return out


@dataclass(frozen=True)
class SearchCell:
    """The search for one learner and one ``k``: grid ``n_min * 2^(i/2)`` up to ``n_max`` (and
    ``n * k <= max_labels``), ``reps`` repetitions per size of which ``needed`` must succeed."""

    problem: str
    key: str
    k: int
    reps: int
    needed: int
    n_min: int
    n_max: int
    max_labels: int


def size_grid(n_min: int, n_max: int) -> List[int]:
    """Sizes ``round(n_min * 2^(i/2))`` up to ``n_max`` (distinct, increasing)."""
    out: List[int] = []
    i = 0
    while True:
        n = int(round(n_min * 2 ** (i / 2)))
        if n > n_max:
            return out
        if not out or n > out[-1]:
            out.append(n)
        i += 1


def needed_sample_size(cell: SearchCell, seed: int) -> Optional[int]:
    """The first size of the grid at which at least ``needed`` of ``reps`` repetitions get every
    concept right (``None``: none up to the cap). Each repetition draws fresh data and targets;
    a size is abandoned as soon as it cannot reach ``needed``."""
    gen = Generator(seed)
    g = np.random.default_rng(np.asarray(gen.random_raw(4), dtype=np.uint64))
    w = zipf_weights()
    for n in size_grid(cell.n_min, cell.n_max):
        if n * cell.k > cell.max_labels:
            return None
        wins = losses = 0
        while wins < cell.needed and losses <= cell.reps - cell.needed:
            learner = _learner(cell.problem, cell.key, gen)
            if cell.problem == "parities":
                X, Y, S = parity_task(n, cell.k, g)
                ok = parity_success(learner.fit(X, Y), S)
            else:
                X = g.choice(POINT_DOMAIN, size=n, p=w)
                targets = g.choice(heavy_targets(w), size=cell.k)
                Y = X[:, None] == targets[None, :]
                ok = bool(
                    point_errors(learner.fit(X, Y).hypotheses_, targets, w).max() <= POINT_ALPHA
                )
            wins += int(ok)
            losses += int(not ok)
        if wins >= cell.needed:
            return n
    return None


def _slope(ks: Sequence[int], ns: Sequence[Optional[int]]) -> Optional[float]:
    """Least-squares slope of log n against log k over the ``k >= 10`` with a result."""
    pts = [(math.log(k), math.log(n)) for k, n in zip(ks, ns) if n is not None and k >= 10]
    if len(pts) < 2:
        return None
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def _sample_ks(quick: bool) -> Tuple[int, ...]:
    return (1, 10, 100) if quick else (1, 3, 10, 30, 100, 300, 1000)


def sample_complexity_cells(quick: bool = False) -> List[SearchCell]:
    """The cells of ``multi-sample-complexity`` in task order: cell ``i`` runs with seed
    ``privlearn.random.spawn_seeds(seed, len(cells))[i]`` (``seed = 0`` by default), so one
    cell can be re-run alone with the seed of the full run."""
    reps = 5 if quick else 10
    needed = reps if quick else math.ceil(SUCCESS * reps)
    n_max = 2**16 if quick else 2**21
    max_labels = 2**23 if quick else 2**28
    return [
        SearchCell(problem, key, k, reps, needed, 16, n_max, max_labels)
        for problem, key, _ in LEARNERS
        for k in _sample_ks(quick)
    ]


_SAMPLE_DESCRIPTION = """\
Bun, Nissim and Stemmer, Theorems 3.12 and 3.13 against the basic strategy (Observation 3.2).
For k = 1 to 1000 concepts, the smallest sample size (grid of factor sqrt 2) at which a learner
gets every concept right in at least 90% of repetitions (fresh data and targets each time);
epsilon = 1, delta = 1e-6. Parities: uniform examples of {0,1}^8, exact recovery. Points:
a Zipf distribution on 100 points, targets uniform among the 9 points of mass >= 0.02, error at
most 0.02 per concept (computed exactly). Sizes beyond the cap (n * k labels) are reported as missing."""


@register(
    "multi-sample-complexity",
    title="Private multi-learning: sample size against the number of concepts",
    paper="seed 002 (Bun, Nissim, Stemmer), Theorems 3.12, 3.13, Observation 3.2",
    description=_SAMPLE_DESCRIPTION,
)
def run_sample_complexity(config: RunConfig) -> ExperimentResult:
    ks = _sample_ks(config.quick)
    cells = sample_complexity_cells(config.quick)
    reps, needed, n_max, max_labels = (
        cells[0].reps,
        cells[0].needed,
        cells[0].n_max,
        cells[0].max_labels,
    )
    found = run_trials(
        needed_sample_size,
        cells,
        seed=config.seed,
        n_jobs=config.n_jobs,
        desc="multi-sample-complexity",
        progress=config.progress,
    )
    by_cell = dict(zip(cells, found))
    theory = {
        "parities": parity_sample_size(PARITY_DIM, EPSILON, DELTA, 1 - SUCCESS),
        "points": points_sample_size(POINT_ALPHA, EPSILON, DELTA, 1 - SUCCESS),
    }
    table = Table(
        ["problem", "learner", "k", "n_needed", "reps", "needed_successes", "theory_n"],
        description="n_needed: the first grid size at which the learner got every concept right in "
        "needed_successes of reps repetitions (empty: beyond the cap). theory_n: the sample size of "
        "Theorem 3.12 / 3.13 (privlearn.multi.parity_sample_size / points_sample_size) at beta = 0.1, "
        "independent of k, for the multi-learners.",
    )
    slopes = Table(["problem", "learner", "slope_log_n_vs_log_k", "expected"])
    expected = {
        "multi": "0 (flat)",
        "independent-stable": "about 1/2",
        "independent-em": "about 1",
        "sanitizer": "about 1 (additive: sanitizer + k VC)",
        "independent-em-br": "about 1/2",
        "independent-stable-optimal": "about 1/2",
        "sanitizer-br": "below 1 (additive: sanitizer + sqrt(k) VC)",
    }
    series: Dict[Tuple[str, str], List[Optional[int]]] = {}
    labels = {(problem, key): label for problem, key, label in LEARNERS}
    for problem, key, label in LEARNERS:
        ns = [by_cell[SearchCell(problem, key, k, reps, needed, 16, n_max, max_labels)] for k in ks]
        series[(problem, key)] = ns
        for k, n in zip(ks, ns):
            table.add_row(
                [problem, label, k, n, reps, needed, theory[problem] if key == "multi" else None]
            )
        s = _slope(ks, ns)
        slopes.add_row([problem, label, None if s is None else round(s, 3), expected[key]])
    gain = Table(
        ["problem", "k", "former", "n_former", "tightest", "n_tightest", "reduction"],
        description="Issue 18: the needed sample size of the same strategy with its former "
        "composition and with the tightest valid one (bounded-range for exponential mechanisms, "
        "optimal (Kairouz-Oh-Viswanath) for the stability learners). reduction = 1 - "
        "n_tightest / n_former; a former size beyond the cap gives a lower bound (>).",
    )
    for problem, old, new in COMPOSITION_PAIRS:
        for k, n_old, n_new in zip(ks, series[(problem, old)], series[(problem, new)]):
            if n_new is None:
                red = None
            elif n_old is None:
                cap = min(n_max, max_labels // k)
                red = f"> {1 - n_new / cap:.0%}"
            else:
                red = f"{1 - n_new / n_old:.0%}"
            gain.add_row(
                [problem, k, labels[(problem, old)], n_old, labels[(problem, new)], n_new, red]
            )
    notes = [
        f"epsilon = {EPSILON}, delta = {DELTA}; {reps} repetitions per size, {needed} must get every "
        f"concept right; grid factor sqrt(2) from n = 16, cap n <= {n_max} and n k <= {max_labels}.",
        "The multi-learners' sizes do not grow with k (Theorems 3.12, 3.13); the basic strategy's "
        "grow like k (pure, basic composition) or about sqrt(k) (advanced, optimal or "
        "bounded-range composition).",
        "The former exponential-mechanism curves are pure (epsilon = 1, delta = 0: basic "
        "composition, the optimum for a pure total); the bounded-range rows spend delta = 1e-6 "
        "as every other learner here does (k = 1000: 0.01397 per concept against 0.001).",
    ]

    def draw(path: Any) -> None:
        fig = new_figure(figsize=(11, 4.4), layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, problem in zip(axes, ("parities", "points")):
            # A tightest-composition row: the colour of its former row, dashed.
            former = {(p, new): old for p, old, new in COMPOSITION_PAIRS}
            colours = ("multi", "independent-stable", "independent-em", "sanitizer")
            for p, key, label in LEARNERS:
                if p != problem:
                    continue
                base = former.get((p, key), key)
                colour = f"C{colours.index(base)}"
                style = "s--" if (p, key) in former else "o-"
                ns = series[(p, key)]
                xs = [k for k, n in zip(ks, ns) if n is not None]
                ys = [n for n in ns if n is not None]
                ax.plot(xs, ys, style, color=colour, label=label)
                over = [k for k, n in zip(ks, ns) if n is None]
                if over:
                    cap = [min(n_max, max_labels // k) for k in over]
                    ax.plot(over, cap, "^", color=colour, markerfacecolor="none")
            ax.axhline(
                theory[problem], color="0.4", linestyle="--", label="theory (multi-learner), any k"
            )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("number of concepts k")
            ax.set_ylabel("sample size needed")
            ax.set_title(
                "parities on {0,1}^8, exact"
                if problem == "parities"
                else "points, Zipf on 100, error <= 0.02"
            )
            ax.legend(fontsize=7, loc="upper left")
        fig.savefig(path, dpi=120)

    return ExperimentResult(
        tables={"sample-sizes": table, "slopes": slopes, "composition-gain": gain},
        figures={"sample-size-vs-k": draw},
        notes=notes,
    )


# --------------------------------------------------------------------------------------------
# The fingerprinting attack
# --------------------------------------------------------------------------------------------

ATTACK_USERS, ATTACK_XI, ATTACK_DELTA = 8, 0.1, 1e-6

#: (key, label) of the attacked learners.
ATTACKED: Tuple[Tuple[str, str], ...] = (
    ("non-private", "NonPrivateMultiLearner (column-wise ERM)"),
    ("independent-basic", "independent exponential mechanism, basic composition"),
    ("independent-advanced", "independent exponential mechanism, advanced composition"),
    ("sanitizer", "SanitizerMultiLearner (stability histogram + exponential mechanisms)"),
    ("points", "PointMultiLearner (LearnPoints)"),
)


def _attacked(key: str, epsilon: float) -> Any:
    if key == "non-private":
        return NonPrivateMultiLearner(Points(domain_size=2))
    if key == "independent-basic":
        return IndependentMultiLearner(Points(domain_size=2), epsilon)
    if key == "independent-advanced":
        return IndependentMultiLearner(
            Points(domain_size=2), epsilon, ATTACK_DELTA, composition="advanced"
        )
    if key == "sanitizer":
        return SanitizerMultiLearner(Points(), epsilon, ATTACK_DELTA)
    return PointMultiLearner(epsilon, ATTACK_DELTA)


@dataclass(frozen=True)
class AttackCell:
    key: str
    epsilon: float
    trials: int


def attack_cell(cell: AttackCell, seed: int) -> Dict[str, Any]:
    """One run of :func:`~privlearn.attacks.fingerprinting_attack` (all randomness from
    ``seed``)."""
    res = fingerprinting_attack(
        _attacked(cell.key, cell.epsilon),
        ATTACK_USERS,
        trials=cell.trials,
        false_accusation=ATTACK_XI,
        alpha=FALSE_POSITIVE_RATE,
        rng=seed,
    )
    lo, hi = res.identification_interval
    return {
        "identified": res.identified,
        "feasible": res.feasible,
        "in": res.target_accused_in,
        "out": res.target_accused_out,
        "lo": lo,
        "hi": hi,
        "bound": res.dp_bound,
        "refutes": res.refutes_claim,
        "eps_lb": res.epsilon_lower_bound,
        "k": res.code_length,
        "claimed": None if res.claimed is None else (res.claimed.epsilon, res.claimed.delta),
    }


_ATTACK_DESCRIPTION = """\
Bun, Nissim and Stemmer, Theorem 4.7 run as an attack: 8 users' Tardos codewords (about 3,100
positions, false-accusation bound xi = 0.1) are the labels of 8 rows at one example; the learner's
hypotheses, rounded, form a pirate word that is traced. A non-private learner (column majority)
gets a member identified almost always; an (epsilon, delta)-DP learner at most with probability
e^epsilon xi + 8 delta (the dp_bound column). Every rate has Clopper-Pearson bounds at level
1e-6; refuted = the lower bound exceeds dp_bound."""


@register(
    "multi-fingerprinting-attack",
    title="Fingerprinting attack on multi-learners: identification rate against epsilon",
    paper="seed 002 (Bun, Nissim, Stemmer), Theorems 4.3, 4.7, Corollary 4.10",
    description=_ATTACK_DESCRIPTION,
)
def run_attack(config: RunConfig) -> ExperimentResult:
    epsilons = (1.0, 16.0, 256.0, 4096.0) if config.quick else tuple(2.0**i for i in range(-1, 13))
    trials = 6 if config.quick else 100
    cells = [AttackCell("non-private", 0.0, trials)] + [
        AttackCell(key, eps, trials) for key, _ in ATTACKED[1:] for eps in epsilons
    ]
    results = run_trials(
        attack_cell,
        cells,
        seed=config.seed,
        n_jobs=config.n_jobs,
        desc="multi-fingerprinting-attack",
        progress=config.progress,
    )
    by_cell = dict(zip(cells, results))
    labels = dict(ATTACKED)
    table = Table(
        [
            "learner",
            "epsilon",
            "delta",
            "k",
            "trials",
            "identified",
            "rate",
            "rate_cp_lower",
            "rate_cp_upper",
            "dp_bound",
            "refuted",
            "feasible_words",
            "target_in",
            "target_out",
            "epsilon_lower_bound",
        ],
        description="rate: trials in which some user was identified; dp_bound = min(1, e^eps xi + n delta); "
        "target_in / target_out: a random user accused with their row in the data / replaced by a "
        "nonce row; epsilon_lower_bound: the resulting lower confidence bound on the learner's epsilon.",
    )
    for cell in cells:
        r = by_cell[cell]
        claimed = r["claimed"]
        table.add_row(
            [
                labels[cell.key],
                claimed[0] if claimed else None,
                claimed[1] if claimed else None,
                r["k"],
                cell.trials,
                r["identified"],
                r["identified"] / cell.trials,
                r["lo"],
                r["hi"],
                r["bound"],
                "yes" if r["refutes"] else "no",
                r["feasible"],
                r["in"],
                r["out"],
                r["eps_lb"],
            ]
        )
    np_rate = by_cell[cells[0]]["identified"] / trials
    refuted = [row for row in table.rows if row[10] == "yes"]
    notes = [
        f"n = {ATTACK_USERS} users, xi = {ATTACK_XI}, k = {by_cell[cells[0]]['k']} concepts, "
        f"{trials} trials per point.",
        f"non-private learner: identification rate {np_rate:.2f} (Clopper-Pearson lower bound "
        f"{by_cell[cells[0]]['lo']:.3f}).",
        "no private learner's identification rate exceeds what its (epsilon, delta) allows"
        if not refuted
        else f"REFUTED claims: {len(refuted)} rows",
    ]

    def draw(path: Any) -> None:
        fig = new_figure(figsize=(7.5, 4.8), layout="constrained")
        ax = fig.subplots()
        xs = np.array(epsilons)
        for i, (key, label) in enumerate(ATTACKED[1:]):
            rates = [by_cell[AttackCell(key, e, trials)]["identified"] / trials for e in epsilons]
            ax.plot(xs, rates, "o-", color=f"C{i}", label=label)
        bound = np.minimum(
            1.0, np.exp(np.minimum(xs, 700.0)) * ATTACK_XI + ATTACK_USERS * ATTACK_DELTA
        )
        ax.plot(xs, bound, "k--", label="(epsilon, delta)-DP bound e^eps xi + n delta")
        ax.axhline(np_rate, color="C3", linestyle=":", label="non-private learner")
        ax.set_xscale("log", base=2)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("total epsilon of the learner (k concepts)")
        ax.set_ylabel("identification rate")
        ax.set_title(
            f"fingerprinting attack: n = {ATTACK_USERS}, k = {by_cell[cells[0]]['k']}", fontsize=11
        )
        ax.legend(fontsize=7, loc="center right")
        fig.savefig(path, dpi=120)

    return ExperimentResult(
        tables={"identification": table}, figures={"identification-vs-epsilon": draw}, notes=notes
    )
