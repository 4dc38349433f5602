"""Private classification-query release: misclassification against the number of queries.

Registered as ``query-release``. Seed 004 (Nandi and Bassily, "Privately answering
classification queries in the agnostic PAC model", ALT 2020). On three distributions over
``[0, 1]`` with thresholds ``1[x >= t]`` as the class,

* **realizable**: ``y = 1[x >= 0.5]`` (``γ = 0``);
* **label noise**: the same with each label flipped with probability 0.1 (``γ = 0.1``);
* **twin minima** (the notes' §4.2): ``y = 1`` iff ``x ∈ [0.3, 0.5) ∪ [0.7, 1]``; the thresholds
  0.3 and 0.7 are both optimal (``γ = 0.2``), so the sub-sample learners of plain
  subsample-and-aggregate split between them,

one private sample of ``n`` records answers ``m`` fresh queries under one budget
``(ε, δ) = (1, 10^-6)``, for several ``m``, with :class:`~privlearn.query_release.SubsampleSVT`
(``A_SubSamp``), :class:`~privlearn.query_release.AgnosticQueryRelease` (``A_AgPrivCl``) and
:class:`~privlearn.query_release.UniversalQueryRelease` (``A_UnvPrivCl``, ``m_o`` fixed). All use
the practical mode: the cut-off is the paper's ``T(m)`` at ``α = β = 0.1``, ``k`` the default
(the smallest ensemble whose unanimous votes clear the calibrated threshold), noise and
thresholds calibrated to the budget, with the exact accounting of the errata. The non-private
exact ERM on 10^6 of the records is the baseline.

**Answerable queries (issue 18).** The sparse vector's ``floor(T) + 1`` rounds are composed by
the tightest valid bound: Kairouz-Oh-Viswanath optimal composition of adaptively chosen pure-DP
rounds (``composition="optimal"``, the default; before issue 18: the smaller of basic and
advanced composition, ``composition="advanced"``). The table ``answerable-queries`` measures the
gain without randomness: for the ensemble size ``K`` that the old accounting needs at a
reference ``m`` (default ``k = 2 ceil(w + 8λ) + 2``, i.e. the same noise margin and the same
records per sub-sample), the largest number of queries ``m`` (with its cut-off ``T(m)``) whose
default ensemble is at most ``K``, under each accounting (bisection on ``m``; ``k`` grows with
``m``). Measured (``python -m privlearn reproduce query-release``, the table is the same in
``--quick`` for its one reference ``m = 800``):

=====================  ======  =======  ================  ================
algorithm              ref m   K        m (advanced)      m (optimal)
=====================  ======  =======  ================  ================
SubsampleSVT           100     884      103               103
SubsampleSVT           400     2436     400               400
SubsampleSVT           800     4244     806               1069 (+33%)
SubsampleSVT           3200    9404     3203              5607 (+75%)
AgnosticQueryRelease   100     7816     100               100
AgnosticQueryRelease   400     21468    400               400
AgnosticQueryRelease   800     37306    800               1069 (+34%)
AgnosticQueryRelease   3200    86050    3201              6243 (+95%)
=====================  ======  =======  ================  ================

With up to about 13 rounds (``m <= 400``) basic composition is already optimal for generic
``ε₀``-DP rounds, so nothing changes there; at ``m = 800`` (22 rounds) the round epsilon grows
from ``1/22`` to ``0.0526`` (``λ`` 44 to 38.05) and the default ensemble shrinks by 11-12%.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .. import _core
from ..hypotheses import Thresholds
from ..query_release import (
    AgnosticQueryRelease,
    SubsampleSVT,
    UniversalQueryRelease,
    theory_parameters,
)
from ..query_release._accounting import SVT_COMPOSITIONS, theory_cutoff
from ..random import Generator
from ._framework import ExperimentResult, RunConfig, Table, new_figure, register, run_trials

NAME = "query-release"

EPSILON, DELTA = 1.0, 1e-6
ALPHA = BETA = 0.1  # the cut-off T(m) of Alg. 3 step 1
SPLIT = 0.25  # UniversalQueryRelease: epsilon share of its second (semi-private) stage
ERM_RECORDS = 1_000_000  # the non-private baseline: exact ERM on this many of the records
DISTRIBUTIONS: Tuple[str, ...] = ("realizable", "label-noise", "twin-minima")
GAMMA = {"realizable": 0.0, "label-noise": 0.1, "twin-minima": 0.2}
ALGORITHMS: Tuple[str, ...] = (
    "SubsampleSVT",
    "AgnosticQueryRelease",
    "UniversalQueryRelease",
    "ERM (non-private)",
)


@dataclass(frozen=True)
class Setting:
    """One repetition: a distribution, a sample size, the query counts and ``m_o``."""

    distribution: str
    n: int
    ms: Tuple[int, ...]
    m_o: int
    rep: int


def sample(distribution: str, n: int, g: np.random.Generator) -> Tuple[np.ndarray, np.ndarray]:
    """``n`` labelled points of ``distribution``."""
    x = g.random(n)
    if distribution == "twin-minima":
        return x, ((x >= 0.3) & (x < 0.5)) | (x >= 0.7)
    y = x >= 0.5
    if distribution == "label-noise":
        y ^= g.random(n) < 0.1
    return x, y


def _erm(x: np.ndarray, y: np.ndarray) -> float:
    """The cut ``t`` of an exact ERM threshold ``1[x >= t]`` (the non-private baseline; the
    labelings' mistakes from :mod:`privlearn.query_release`'s prefix counts)."""
    i = int(np.argmin(_core.threshold_labeling_mistakes(x, y, "ge")))
    u = np.unique(x)
    return float(u[i]) if i < len(u) else float("inf")


def _errors(out: np.ndarray, y: np.ndarray) -> Tuple[float, float, float]:
    """(error with ⊥ counted as wrong, expected error with ⊥ replaced by a fair coin,
    fraction of ⊥)."""
    bottom = out < 0
    wrong = (out != y) & ~bottom
    return (
        float(np.mean(wrong | bottom)),
        float(np.mean(wrong) + 0.5 * np.mean(bottom)),
        float(np.mean(bottom)),
    )


def run_setting(setting: Setting, seed: int) -> List[List[Any]]:
    """All algorithms and query counts on one private sample (randomness from ``seed``)."""
    data = np.random.default_rng(seed)
    gen = Generator(seed)
    X, y = sample(setting.distribution, setting.n, data)
    erm = _erm(X[:ERM_RECORDS], y[:ERM_RECORDS])
    rows: List[List[Any]] = []
    for m in setting.ms:
        q, yq = sample(setting.distribution, m, data)
        cutoff = theory_cutoff(m, ALPHA, BETA)
        algos: Dict[str, Any] = {
            "SubsampleSVT": SubsampleSVT(
                Thresholds(), epsilon=EPSILON, delta=DELTA, m=m, cutoff=cutoff
            ),
            "AgnosticQueryRelease": AgnosticQueryRelease(
                Thresholds(), epsilon=EPSILON, delta=DELTA, m=m, cutoff=cutoff
            ),
            "UniversalQueryRelease": UniversalQueryRelease(
                Thresholds(),
                epsilon=EPSILON,
                delta=DELTA,
                m=m,
                m_o=setting.m_o,
                cutoff=theory_cutoff(min(m, setting.m_o), ALPHA, BETA),
                split=SPLIT,
            ),
        }
        for name, algo in algos.items():
            session = algo.start(X, y, rng=gen)
            out = session.answer_many(q)
            err, err_coin, bottom = _errors(out, yq)
            k = (
                session.details.k
                if name == "AgnosticQueryRelease"
                else (algo.k if name == "SubsampleSVT" else session._first.details.k)
            )
            rows.append(
                [
                    setting.distribution,
                    m,
                    name,
                    setting.rep,
                    err,
                    err_coin,
                    bottom,
                    session.unstable,
                    bool(session.halted),
                    k,
                    session.privacy.epsilon,
                    session.privacy.delta,
                ]
            )
        e = float(np.mean((q >= erm) != yq))
        rows.append(
            [
                setting.distribution,
                m,
                ALGORITHMS[3],
                setting.rep,
                e,
                e,
                0.0,
                0,
                False,
                0,
                None,
                None,
            ]
        )
    return rows


def _summary(raw: Table, ms: Sequence[int]) -> Table:
    out = Table(
        [
            "distribution",
            "gamma",
            "m",
            "algorithm",
            "error",
            "error_coin",
            "bottom_rate",
            "halted_rate",
            "k",
            "reps",
        ],
        description="Mean over repetitions. error: misclassification rate over the m queries "
        "with an unstable answer (⊥) counted as wrong; error_coin: the same with ⊥ replaced "
        "by a fair coin (the paper's 'random label'); bottom_rate: fraction of ⊥ answers; "
        "halted_rate: fraction of sessions that reached the cut-off (after it, every answer "
        "is ⊥); k: sub-samples of the sparse-vector stage.",
    )
    cols = {c: i for i, c in enumerate(raw.columns)}
    for dist in DISTRIBUTIONS:
        for m in ms:
            for alg in ALGORITHMS:
                sel = [r for r in raw.rows if r[0] == dist and r[1] == m and r[2] == alg]
                if not sel:
                    continue
                mean = lambda c: float(np.mean([r[cols[c]] for r in sel]))  # noqa: B023 (used at once)
                out.add_row(
                    [
                        dist,
                        GAMMA[dist],
                        m,
                        alg,
                        mean("error"),
                        mean("error_coin"),
                        mean("bottom_rate"),
                        mean("halted"),
                        int(mean("k")),
                        len(sel),
                    ]
                )
    return out


def _theory_table() -> Table:
    t = Table(
        [
            "m",
            "cutoff_T",
            "epsilon_hat",
            "delta_hat",
            "noise_scale",
            "k",
            "threshold_w",
            "n_required",
        ],
        description="Theory mode (Alg. 3 step 1 and Lemma 3.5) at (epsilon, delta, alpha, beta) "
        "= (1, 1e-6, 0.1, 0.1) and d = 1: the paper's constants need about 10^6 sub-samples "
        "and samples of order 10^9 or more (n_required is Lemma 3.5's reference size, whose "
        "constants the notes flag as loose); lambda, k and w are not monotone in m.",
    )
    for m in (10, 100, 1000, 10**4, 10**6):
        p = theory_parameters(1.0, 1e-6, 0.1, 0.1, m, d=1)
        t.add_row(
            [m, p.cutoff, p.epsilon_hat, p.delta_hat, p.noise_scale, p.k, p.threshold, p.n_required]
        )
    return t


def _default_k(algorithm: str, m: int, composition: str, n: int) -> int:
    """The default ensemble size of ``algorithm`` for ``m`` queries (cut-off ``T(m)``) at the
    experiment's budget, under ``composition``; for :class:`AgnosticQueryRelease` on ``n``
    records (its plan)."""
    cutoff = theory_cutoff(m, ALPHA, BETA)
    if algorithm == "SubsampleSVT":
        return SubsampleSVT(
            Thresholds(), epsilon=EPSILON, delta=DELTA, m=m, cutoff=cutoff, composition=composition
        ).k
    return (
        AgnosticQueryRelease(
            Thresholds(), epsilon=EPSILON, delta=DELTA, m=m, cutoff=cutoff, composition=composition
        )
        .plan(n)
        .k
    )


def answerable_queries(algorithm: str, k_max: int, composition: str, n: int) -> int:
    """The largest ``m`` whose default ensemble (:func:`_default_k`) has at most ``k_max``
    sub-samples: doubling then bisection on ``m`` (the default ``k`` grows with ``m``); 0 if
    even ``m = 1`` needs more."""
    if _default_k(algorithm, 1, composition, n) > k_max:
        return 0
    lo, hi = 1, 2
    while _default_k(algorithm, hi, composition, n) <= k_max:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _default_k(algorithm, mid, composition, n) <= k_max:
            lo = mid
        else:
            hi = mid
    return lo


def _answerable_table(ref_ms: Sequence[int], n: int) -> Table:
    t = Table(
        ["algorithm", "reference_m", "k", *(f"m_{c}" for c in SVT_COMPOSITIONS), "gain"],
        description="Answerable queries at a fixed ensemble size (issue 18): k is the default "
        "ensemble of the advanced accounting at reference_m; m_optimal and m_advanced are the "
        "largest numbers of queries (cut-off T(m)) whose default ensemble is at most k under "
        "KOV optimal and under advanced composition of the sparse vector's rounds; gain = "
        f"m_optimal / m_advanced. (epsilon, delta) = ({EPSILON}, {DELTA}); "
        f"AgnosticQueryRelease on n = {n:,} records.",
    )
    for algorithm in ALGORITHMS[:2]:
        for ref in ref_ms:
            k = _default_k(algorithm, ref, "advanced", n)
            ms = [answerable_queries(algorithm, k, c, n) for c in SVT_COMPOSITIONS]
            t.add_row([algorithm, ref, k, *ms, ms[0] / ms[1]])
    return t


def _draw(path: Path, summary: Table, n: int) -> None:
    dists = [d for d in DISTRIBUTIONS if d in summary.column("distribution")]
    fig = new_figure(figsize=(4.4 * len(dists), 4.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(dists), sharey=True))
    cols = {c: i for i, c in enumerate(summary.columns)}
    styles = {
        "SubsampleSVT": ("C0", "o"),
        "AgnosticQueryRelease": ("C1", "s"),
        "UniversalQueryRelease": ("C2", "^"),
        "ERM (non-private)": ("0.3", ""),
    }
    for ax, dist in zip(axes, dists):
        for alg in ALGORITHMS:
            rows = [r for r in summary.rows if r[0] == dist and r[3] == alg]
            if not rows:
                continue
            ms = [r[cols["m"]] for r in rows]
            color, marker = styles[alg]
            ax.plot(
                ms,
                [r[cols["error"]] for r in rows],
                marker=marker or None,
                color=color,
                label=alg,
                linestyle=":" if not marker else "-",
            )
        ax.axhline(GAMMA[dist], color="0.6", linestyle="--", label="γ = min err")
        ax.set_xscale("log")
        ax.set_xlabel("number of queries m")
        ax.set_title(f"{dist} (γ = {GAMMA[dist]})")
    axes[0].set_ylabel("misclassification rate (⊥ counted wrong)")
    axes[-1].legend(fontsize=8)
    fig.suptitle(f"Private classification-query release, thresholds, n = {n:,}, (ε, δ) = (1, 1e-6)")
    fig.savefig(path, dpi=120)


_DESCRIPTION = """\
Misclassification against the number of queries m for plain subsample-and-aggregate with the
sparse vector (A_SubSamp, Bassily-Thakurta-Thakkar 2018), the agnostic release of Nandi and
Bassily (A_AgPrivCl: relabel a 1/54 sub-sample with the exponential mechanism, resample, then
A_SubSamp) and their universal release (A_UnvPrivCl: A_AgPrivCl for the first m_o queries, then a
semi-private learner on those public query points), all at (epsilon, delta) = (1, 1e-6) with the
exact accounting of the errata, on thresholds over [0, 1]: realizable, 10% label noise, and the
twin-minima distribution where two thresholds are optimal. On twin minima plain
subsample-and-aggregate splits its votes between the two minima and exhausts its cut-off, while
relabelling with one privately chosen hypothesis keeps the ensemble stable. The price of the
relabelling step (LabelBoost's (4, 4e delta) and amplification by subsampling at rate about
epsilon/54) is a much larger private sample. A second table lists the paper's theory-mode
parameters."""


@register(
    NAME,
    title="Private classification-query release: error against the number of queries",
    paper="Nandi and Bassily, ALT 2020 (seed 004); Bassily, Thakurta and Thakkar, NeurIPS 2018",
    description=_DESCRIPTION,
)
def run(config: RunConfig) -> ExperimentResult:
    ms: Tuple[int, ...]
    dists: Tuple[str, ...]
    if config.quick:
        n, ms, m_o, reps, dists = 10_000_000, (20, 80), 40, 1, ("realizable", "twin-minima")
        ref_ms: Tuple[int, ...] = (800,)
    else:
        n, ms, m_o, reps, dists = (
            30_000_000,
            (10, 25, 50, 100, 200, 400, 800),
            100,
            5,
            DISTRIBUTIONS,
        )
        ref_ms = (100, 400, 800, 3200)
    settings = [Setting(d, n, ms, m_o, r) for d in dists for r in range(reps)]
    results = run_trials(
        run_setting,
        settings,
        seed=config.seed,
        n_jobs=config.n_jobs,
        desc=NAME,
        progress=config.progress,
    )
    raw = Table(
        [
            "distribution",
            "m",
            "algorithm",
            "rep",
            "error",
            "error_coin",
            "bottom_rate",
            "unstable",
            "halted",
            "k",
            "epsilon",
            "delta",
        ]
    )
    for rows in results:
        for row in rows:
            raw.add_row(row)
    summary = _summary(raw, ms)
    notes = [
        f"n = {n:,} private records; m_o = {m_o} for UniversalQueryRelease (epsilon share {SPLIT} "
        f"for its second stage); {reps} repetition(s) per distribution.",
        "Every session's exact guarantee (epsilon, delta columns of the raw table) is within "
        f"(epsilon, delta) = ({EPSILON}, {DELTA}).",
    ]
    cols = {c: i for i, c in enumerate(summary.columns)}
    for m in ms:
        twin = {
            r[cols["algorithm"]]: r for r in summary.rows if r[0] == "twin-minima" and r[2] == m
        }
        if "SubsampleSVT" in twin and "AgnosticQueryRelease" in twin:
            notes.append(
                f"twin minima, m = {m}: SubsampleSVT answers {twin['SubsampleSVT'][cols['bottom_rate']]:.0%} "
                f"of the queries with ⊥ (halted in {twin['SubsampleSVT'][cols['halted_rate']]:.0%} of the "
                f"runs); AgnosticQueryRelease {twin['AgnosticQueryRelease'][cols['bottom_rate']]:.0%}, "
                f"error {twin['AgnosticQueryRelease'][cols['error']]:.3f} against gamma = 0.2."
            )
    answerable = _answerable_table(ref_ms, 30_000_000)
    cols_a = {c: i for i, c in enumerate(answerable.columns)}
    for r in answerable.rows:
        notes.append(
            f"{r[cols_a['algorithm']]}: with the ensemble of k = {r[cols_a['k']]} sub-samples "
            f"(advanced accounting at m = {r[cols_a['reference_m']]}), KOV optimal composition "
            f"of the sparse vector's rounds answers m = {r[cols_a['m_optimal']]} queries, "
            f"advanced composition m = {r[cols_a['m_advanced']]} (x{r[cols_a['gain']]:.2f})."
        )
    return ExperimentResult(
        tables={
            "error-vs-m": summary,
            "runs": raw,
            "theory-parameters": _theory_table(),
            "answerable-queries": answerable,
        },
        figures={"error-vs-m": lambda path: _draw(path, summary, n)},
        notes=notes,
    )
