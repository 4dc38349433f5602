"""Private selection with the exponential mechanism on the IWPC warfarin data.

Registered as ``warfarin-exponential-mechanism``. Two private selection problems on the built-in
data (:func:`privlearn.datasets.load_warfarin`, n = 4,819), each solved by the exponential
mechanism (McSherry and Talwar, FOCS 2007) across a grid of epsilons and compared with the
non-private answer:

(a) the median of the (z-scored) weekly dose, chosen from a fixed grid of candidates;
(b) the best single-feature threshold classifier of ``dose > 0`` on age, height or weight.

Both utilities are integers, so the mechanism's exact integer path is used. The utility guarantee
of the exponential mechanism, with ``OPT`` the best utility, ``Δ`` the sensitivity and ``G`` the
candidate set, is

    P[u(output) <= OPT - (2Δ/ε)(ln|G| + t)] <= exp(-t),

so with probability 0.9 (t = ln 10) the excess error is at most ``(2Δ/ε)(ln|G| + ln 10)`` in
utility units: a 1/(εn) rate once divided by the utility's scale n. The experiment checks the
rate and the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..datasets import load_warfarin
from ..mechanisms import exponential
from ..random import Generator
from ._framework import ExperimentResult, RunConfig, Table, new_figure, register, run_trials

NAME = "warfarin-exponential-mechanism"

EPSILONS: Tuple[float, ...] = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
REPETITIONS_FULL = 300
REPETITIONS_QUICK = 40

# (a) Declared candidate range of the z-scored dose: fixed in advance, never read from the data.
MEDIAN_GRID = np.linspace(-4.0, 10.0, 1401)
MEDIAN_SENSITIVITY = 2

# (b) Thresholds on the standardised numeric features, fixed in advance.
THRESHOLD_FEATURES: Tuple[str, ...] = ("age", "height", "weight")
THRESHOLD_GRID = np.linspace(-3.0, 3.0, 121)
THRESHOLD_SENSITIVITY = 1

FAILURE_T = math.log(10.0)  # P[bound fails] <= e^{-t} = 0.1
# Window of the log-log slope fit: the mean error is clearly above its floor (the error of the
# best candidates, the ε -> ∞ limit) and clearly below its ε -> 0 level (a uniform choice).
_ABOVE_FLOOR = 1.25
_BELOW_UNIFORM = 0.5

_DESCRIPTION = """\
Private selection with the exponential mechanism (McSherry and Talwar, FOCS 2007) on the built-in
IWPC warfarin data (n = 4,819 patients), across epsilon, against the non-private answer.
(a) Private median of the z-scored weekly dose: candidates are a data-independent grid of 1,401
points on [-4, 10]; the utility is u(c) = -|2 #{i : y_i <= c} - n| (sensitivity 2 under
replacing one record). Errors: the rank error |F_n(c) - 1/2| and the absolute error in dose units.
(b) Private best single-feature threshold classifier of z = 1[dose > 0]: 726 hypotheses
(age, height or weight; 121 thresholds on [-3, 3]; both orientations); utility minus the number
of training mistakes (sensitivity 1). Error: the excess empirical 0-1 error over the best
hypothesis. Each part is compared with the mechanism's utility guarantee at probability 0.9,
which decays as 1/(epsilon n)."""


# --------------------------------------------------------------------------------------------
# Utilities (data-dependent, computed once; the draws are independent of them otherwise)
# --------------------------------------------------------------------------------------------


def median_utilities(y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Integer utilities ``u(c) = -|2 #{i : y_i <= c} - n|`` of the median candidates ``grid``.

    Sensitivity 2 under replace-one neighbours: replacing one record changes the count
    ``#{i : y_i <= c}`` by at most 1 (the old record may leave the set and the new one may enter
    it, and at most one of these changes the count), so ``2 * count - n`` changes by at most 2,
    and so does its absolute value (``| |a| - |b| | <= |a - b|``); ``n`` is public.
    """
    y_sorted = np.sort(np.asarray(y, dtype=np.float64))
    n = y_sorted.size
    counts = np.searchsorted(y_sorted, grid, side="right").astype(np.int64)
    return -np.abs(2 * counts - n)


def threshold_mistakes(
    X: np.ndarray, z: np.ndarray, grid: np.ndarray
) -> Tuple[np.ndarray, List[Tuple[int, str, float]]]:
    """Training mistakes of every threshold hypothesis on every column of ``X``.

    Hypotheses, in order: for each column ``j`` of ``X``, first ``x_j > thr`` for every ``thr``
    in ``grid``, then ``x_j <= thr`` for every ``thr`` (both predict label 1 when true).

    Returns
    -------
    mistakes : numpy.ndarray of int64, shape (2 * X.shape[1] * len(grid),)
    hypotheses : list of (column, orientation, threshold)
        ``orientation`` is ``">"`` or ``"<="``.
    """
    z = np.asarray(z, dtype=bool)
    n = z.size
    parts = []
    hypotheses: List[Tuple[int, str, float]] = []
    for j in range(X.shape[1]):
        x = X[:, j]
        pos_sorted = np.sort(x[z])
        neg_sorted = np.sort(x[~z])
        pos_le = np.searchsorted(pos_sorted, grid, side="right")  # positives predicted 0
        neg_le = np.searchsorted(neg_sorted, grid, side="right")
        greater = pos_le + (neg_sorted.size - neg_le)  # mistakes of "x > thr"
        parts += [greater, n - greater]  # "x <= thr" gets every other point wrong
        hypotheses += [(j, ">", float(t)) for t in grid]
        hypotheses += [(j, "<=", float(t)) for t in grid]
    return np.concatenate(parts).astype(np.int64), hypotheses


# --------------------------------------------------------------------------------------------
# Draws
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _DrawTask:
    part: str
    epsilon: float
    scores: np.ndarray
    sensitivity: int
    repetitions: int


def _draw_task(task: _DrawTask, seed: int) -> np.ndarray:
    """``repetitions`` independent exponential-mechanism draws for one (part, epsilon)."""
    rng = Generator(seed)
    return np.fromiter(
        (
            exponential(task.scores, task.epsilon, task.sensitivity, rng=rng)
            for _ in range(task.repetitions)
        ),
        dtype=np.int64,
        count=task.repetitions,
    )


def _summary(errors: np.ndarray) -> Tuple[float, float, float]:
    """Mean, standard error and 90% quantile."""
    mean = float(np.mean(errors))
    se = float(np.std(errors, ddof=1) / math.sqrt(errors.size)) if errors.size > 1 else 0.0
    return mean, se, float(np.quantile(errors, 0.9))


def _fit_slope(
    eps: np.ndarray, mean: np.ndarray, floor: float, uniform: float
) -> Tuple[Optional[float], np.ndarray]:
    """Slope of log(mean - floor) against log(eps) over the window where the error is above
    its floor and below its ε -> 0 level; returns (slope or None, epsilons used)."""
    use = (mean > _ABOVE_FLOOR * floor) & (mean > floor) & (mean <= _BELOW_UNIFORM * uniform)
    if np.count_nonzero(use) < 2:
        return None, eps[use]
    slope = np.polyfit(np.log(eps[use]), np.log(mean[use] - floor), 1)[0]
    return float(slope), eps[use]


def _slope_note(label: str, slope: Optional[float], used: np.ndarray, theory: str) -> str:
    if slope is None:
        return f"{label}: too few epsilons above the floor to fit a slope ({theory})."
    return (
        f"{label}: fitted log-log slope of the mean error (minus its floor) against epsilon = "
        f"{slope:.2f} over epsilon in [{used.min():g}, {used.max():g}] ({used.size} values); "
        f"{theory}."
    )


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def _error_panel(
    ax: Any, eps: np.ndarray, mean: np.ndarray, se: np.ndarray, colour: str, label: str
) -> None:
    positive = mean > 0
    lower = np.where(mean - 2 * se > 0, mean - 2 * se, np.nan)
    ax.fill_between(
        eps,
        np.nan_to_num(lower, nan=mean[positive].min() / 10 if positive.any() else 1e-12),
        mean + 2 * se,
        color=colour,
        alpha=0.2,
        linewidth=0,
        label="±2 standard errors",
    )
    ax.plot(eps[positive], mean[positive], "o-", color=colour, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("privacy parameter ε")
    ax.grid(True, which="major", alpha=0.3)


def _draw_median_figure(
    path: Path,
    eps: np.ndarray,
    rank: Dict[str, np.ndarray],
    dose: Dict[str, np.ndarray],
    rank_floor: float,
    dose_floor: float,
    n: int,
    reps: int,
) -> None:
    fig = new_figure(figsize=(11, 4.4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    _error_panel(ax1, eps, rank["mean"], rank["se"], "C0", "mean rank error")
    ax1.plot(eps, rank["bound"], "--", color="C3", label="90% utility bound (McSherry–Talwar)")
    ax1.axhline(
        rank_floor,
        color="0.4",
        linestyle=":",
        label=f"best candidate's rank error ({rank_floor:.3g}, ties)",
    )
    ax1.set_ylabel("rank error |F_n(c) − 1/2|")
    ax1.set_title("rank error")
    ax1.legend(fontsize=8, loc="upper right")

    _error_panel(ax2, eps, dose["mean"], dose["se"], "C1", "mean |c − median| (dose units)")
    ax2.axhline(
        dose_floor,
        color="0.4",
        linestyle=":",
        label=f"best candidate's error ({dose_floor:.3g}, grid)",
    )
    ax2.set_ylabel("absolute error (z-scored dose)")
    ax2.set_title("error in dose units")
    ax2.legend(fontsize=8, loc="upper right")
    fig.suptitle(
        f"(a) Private median dose by the exponential mechanism, IWPC n = {n}, {reps} draws per ε"
    )
    fig.savefig(path, dpi=120)


def _draw_threshold_figure(
    path: Path,
    eps: np.ndarray,
    excess: Dict[str, np.ndarray],
    n: int,
    reps: int,
    n_hypotheses: int,
) -> None:
    fig = new_figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.subplots()
    _error_panel(ax, eps, excess["mean"], excess["se"], "C2", "mean excess 0-1 error")
    ax.plot(eps, excess["bound"], "--", color="C3", label="90% utility bound (McSherry–Talwar)")
    ax.axhline(1.0 / n, color="0.4", linestyle=":", label="one extra mistake (1/n)")
    ax.set_ylabel("excess empirical 0-1 error over the best hypothesis")
    ax.set_title(
        f"(b) Private threshold classifier of dose > 0\n"
        f"{n_hypotheses} hypotheses, IWPC n = {n}, {reps} draws per ε",
        fontsize=11,
    )
    ax.legend(fontsize=8, loc="lower left")
    fig.savefig(path, dpi=120)


# --------------------------------------------------------------------------------------------
# The experiment
# --------------------------------------------------------------------------------------------


def _columns(rows: Sequence[Dict[str, float]], key: str) -> np.ndarray:
    return np.array([row[key] for row in rows], dtype=np.float64)


@register(
    NAME,
    title="Private selection with the exponential mechanism on the IWPC warfarin data",
    paper="McSherry and Talwar, Mechanism design via differential privacy (FOCS 2007)",
    description=_DESCRIPTION,
)
def run(config: RunConfig) -> ExperimentResult:
    """Run the experiment (see the module docstring)."""
    data = load_warfarin()
    y = data.y
    n = y.size
    reps = REPETITIONS_QUICK if config.quick else REPETITIONS_FULL
    eps = np.array(EPSILONS, dtype=np.float64)

    # (a) median.
    grid = MEDIAN_GRID
    u_med = median_utilities(y, grid)
    median = float(np.median(y))
    y_sorted = np.sort(y)
    ecdf = np.searchsorted(y_sorted, grid, side="right") / n
    rank_err_grid = np.abs(ecdf - 0.5)  # equals -u / (2n)
    dose_err_grid = np.abs(grid - median)
    opt_med = int(u_med.max())
    best_med = u_med == opt_med
    rank_floor = float(rank_err_grid[best_med].min())  # = -OPT / (2n)
    dose_floor = float(dose_err_grid[best_med].mean())  # the ε -> ∞ limit
    # u(out) > OPT - (2Δ/ε)(ln|G| + t) w.p. >= 0.9, and rank error = -u / (2n), so
    # rank error < -OPT/(2n) + (Δ/(ε n))(ln|G| + t) = rank_floor + (2/(ε n))(ln|G| + t);
    # a rank error is also at most 1/2.
    rank_bound = np.minimum(
        0.5,
        rank_floor + MEDIAN_SENSITIVITY * (math.log(grid.size) + FAILURE_T) / (eps * n),
    )

    # (b) threshold classifier.
    z = y > 0.0
    cols = [data.feature_names.index(f) for f in THRESHOLD_FEATURES]
    mistakes, hypotheses = threshold_mistakes(data.X[:, cols], z, THRESHOLD_GRID)
    u_thr = -mistakes
    best_mistakes = int(mistakes.min())
    excess_grid = (mistakes - best_mistakes) / n
    # excess mistakes < (2Δ/ε)(ln|H| + t) w.p. >= 0.9; the excess error is also at most its
    # largest value over H.
    thr_bound = np.minimum(
        float(excess_grid.max()),
        2 * THRESHOLD_SENSITIVITY * (math.log(mistakes.size) + FAILURE_T) / (eps * n),
    )

    tasks = [_DrawTask("a", float(e), u_med, MEDIAN_SENSITIVITY, reps) for e in eps]
    tasks += [_DrawTask("b", float(e), u_thr, THRESHOLD_SENSITIVITY, reps) for e in eps]
    draws = run_trials(
        _draw_task,
        tasks,
        seed=config.seed,
        n_jobs=config.n_jobs,
        desc=NAME,
        progress=config.progress,
    )
    draws_a, draws_b = draws[: eps.size], draws[eps.size :]

    med_rows: List[Dict[str, float]] = []
    for e, idx, bound in zip(eps, draws_a, rank_bound):
        r_mean, r_se, r_q90 = _summary(rank_err_grid[idx])
        d_mean, d_se, d_q90 = _summary(dose_err_grid[idx])
        med_rows.append(
            dict(
                epsilon=float(e),
                mean=r_mean,
                se=r_se,
                q90=r_q90,
                bound=float(bound),
                coverage=float(np.mean(rank_err_grid[idx] <= bound)),
                dose_mean=d_mean,
                dose_se=d_se,
                dose_q90=d_q90,
            )
        )
    thr_rows: List[Dict[str, float]] = []
    for e, idx, bound in zip(eps, draws_b, thr_bound):
        x_mean, x_se, x_q90 = _summary(excess_grid[idx])
        thr_rows.append(
            dict(
                epsilon=float(e),
                mean=x_mean,
                se=x_se,
                q90=x_q90,
                bound=float(bound),
                coverage=float(np.mean(excess_grid[idx] <= bound)),
            )
        )

    median_table = Table(
        [
            "epsilon",
            "mean_rank_error",
            "se_rank_error",
            "q90_rank_error",
            "theory_bound_90",
            "coverage",
            "mean_abs_dose_error",
            "se_abs_dose_error",
            "q90_abs_dose_error",
        ],
        [
            [
                r["epsilon"],
                r["mean"],
                r["se"],
                r["q90"],
                r["bound"],
                r["coverage"],
                r["dose_mean"],
                r["dose_se"],
                r["dose_q90"],
            ]
            for r in med_rows
        ],
        description=(
            f"(a) Private median dose, {reps} draws per epsilon. Rank error |F_n(c) - 1/2|; "
            "theory_bound_90 = min(1/2, -OPT/(2n) + (2/(epsilon n))(ln|G| + ln 10)) holds with "
            "probability >= 0.9; coverage is the fraction of draws within it. Absolute error "
            "|c - median(y)| in z-scored dose units."
        ),
    )
    threshold_table = Table(
        [
            "epsilon",
            "mean_excess_error",
            "se_excess_error",
            "q90_excess_error",
            "theory_bound_90",
            "coverage",
        ],
        [[r["epsilon"], r["mean"], r["se"], r["q90"], r["bound"], r["coverage"]] for r in thr_rows],
        description=(
            f"(b) Private threshold classifier of dose > 0, {reps} draws per epsilon. Excess "
            "empirical 0-1 error of the chosen hypothesis over the best of the 726; "
            "theory_bound_90 = (2/(epsilon n))(ln|H| + ln 10) (capped at the largest possible "
            "excess) holds with probability >= 0.9."
        ),
    )

    rank = {k: _columns(med_rows, k) for k in ("mean", "se", "bound")}
    dose = {"mean": _columns(med_rows, "dose_mean"), "se": _columns(med_rows, "dose_se")}
    excess = {k: _columns(thr_rows, k) for k in ("mean", "se", "bound")}

    best_j, best_orient, best_thr = hypotheses[int(np.argmin(mistakes))]
    rank_slope, rank_used = _fit_slope(eps, rank["mean"], rank_floor, float(rank_err_grid.mean()))
    dose_slope, dose_used = _fit_slope(eps, dose["mean"], dose_floor, float(dose_err_grid.mean()))
    thr_slope, thr_used = _fit_slope(eps, excess["mean"], 0.0, float(excess_grid.mean()))
    min_cov_a = min(r["coverage"] for r in med_rows)
    min_cov_b = min(r["coverage"] for r in thr_rows)
    notes = [
        f"Data: IWPC warfarin, n = {n}; {reps} independent draws per epsilon and part; "
        f"seed {config.seed if config.seed is not None else 'none (OS entropy)'}. A seeded run "
        "measures accuracy and is not itself private.",
        f"(a) Non-private median dose {median:.4g}; best candidate utility OPT = {opt_med} "
        f"(< 0: n is odd and {int(np.sum(y == median))} patients share the median value), so "
        f"the best achievable rank error on the grid is -OPT/(2n) = {rank_floor:.4g} and the best "
        f"candidate's dose error is {dose_floor:.4g}.",
        _slope_note(
            "(a) rank error",
            rank_slope,
            rank_used,
            "theory: -1, the (2/(epsilon n))(ln|G| + ln 10) bound",
        ),
        _slope_note(
            "(a) dose error",
            dose_slope,
            dose_used,
            "no theory rate: it depends on the data's density near the median",
        ),
        f"(a) Fraction of draws within the 90% bound: at least {min_cov_a:.3f} at every "
        "epsilon (theory: at least 0.9).",
        f"(b) Best hypothesis: predict dose > 0 when {THRESHOLD_FEATURES[best_j]} "
        f"{best_orient} {best_thr:g}, empirical error {best_mistakes / n:.4f} "
        f"(base rate of dose > 0: {z.mean():.4f}).",
        _slope_note(
            "(b) excess error",
            thr_slope,
            thr_used,
            "theory: -1, the (2/(epsilon n))(ln|H| + ln 10) bound",
        ),
        f"(b) Fraction of draws within the 90% bound: at least {min_cov_b:.3f} at every "
        "epsilon (theory: at least 0.9).",
    ]

    def draw_median(path: Path) -> None:
        _draw_median_figure(path, eps, rank, dose, rank_floor, dose_floor, n, reps)

    def draw_threshold(path: Path) -> None:
        _draw_threshold_figure(path, eps, excess, n, reps, mistakes.size)

    return ExperimentResult(
        tables={"a-median-dose": median_table, "b-threshold-classifier": threshold_table},
        figures={"a-median-dose": draw_median, "b-threshold-classifier": draw_threshold},
        notes=notes,
    )
