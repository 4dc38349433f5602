"""Private linear regression on the IWPC warfarin data: output perturbation against the
functional mechanism, and model inversion (seed paper 001: Wu, Fredrikson, Wu, Jha and Naughton,
"Revisiting differentially private regression", arXiv 1512.06388, Section 5).

Registered as ``wu-regression``. Each repetition splits the built-in data
(:func:`privlearn.datasets.load_warfarin`, 4,819 patients, d = 14) at random into 3,000 training
and 1,819 validation patients and fits, at every epsilon of the grid:

* the non-private least-squares model (no intercept, as the paper);
* the functional mechanism (:class:`~privlearn.learners.FunctionalMechanismRegressor`);
* rls-out (Algorithm 4) with the data-independent parameters (``R = 1``,
  ``lambda = sqrt(d / (n eps))``), with the "oracle" parameters (not DP: the best of
  ``R in {0.25, 0.5, 1, 2}`` x 25 log-spaced lambdas in ``[0.001, 0.5]`` by the exact expected
  training MSE), and privately tuned (Algorithm 5, strict selection) over ``R1 = {.25, .5, 1}`` or
  ``R2 = {.5, 1, 2}`` x ``Lambda = {0.002 * 2^j}``; Algorithm 5 with the paper's selection rule
  (not DP, errata B1) over ``R1``, for comparison;
* objective perturbation (CMS11 with the pseudo-Huber loss, errata B2(b)) with the data-independent
  lambda and ``delta = 1``, and tuned over ``delta in {0.25, 0.5, 1}`` x ``Lambda``;
* privlearn's tightest output perturbation: the data-independent parameters with Theorem 14's
  calibration and ``sensitivity_bound="tight"`` (``min(2 rho / (lambda n), 2R)``).

Utility is the validation MSE in the units of the data (the z-scored dose); invertibility is the
accuracy of Fredrikson et al.'s model-inversion attack on VKORC1
(:func:`privlearn.attacks.model_inversion`; prior from the training frequencies, sigma the
model's training RMSE). Figure 7's trend with training size subsamples the training split at
rates 10%..100% at epsilon = 0.5 (the paper's) and 5.

Data bounds: the paper scales its data "so that they lie in the unit ball". The experiment
declares the bounds of the public file (largest row norm 8.0034, largest |dose| 8.7123, rounded
up), so nothing is clipped and every learner sees the paper's scaling. Deriving bounds from the
data is not private; the experiment measures the mechanisms, as the paper does.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..attacks import model_inversion
from ..datasets import load_warfarin
from ..learners import (
    FunctionalMechanismRegressor,
    ObjectivePerturbationRegressor,
    OutputPerturbationRegressor,
    PrivateTuning,
    data_independent_parameters,
    oracle_parameters,
)
from ..learners.tuning import PAPER_LAMBDA_GRID, PAPER_RADII
from ..random import Generator
from ._framework import ExperimentResult, RunConfig, Table, new_figure, register, run_trials

NAME = "wu-regression"

EPSILONS_FULL: Tuple[float, ...] = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
EPSILONS_QUICK: Tuple[float, ...] = (0.1, 0.5, 2.0, 20.0)
REPETITIONS_FULL = 100
REPETITIONS_QUICK = 12
RATES_FULL: Tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(1, 11))
RATES_QUICK: Tuple[float, ...] = (0.1, 0.4, 1.0)
SIZE_EPSILONS: Tuple[float, ...] = (0.5, 5.0)  # the paper's Figure 7 is at 0.5

N_TRAIN = 3000
DATA_NORM = 8.01  # >= the largest row norm of the public file (8.0034)
LABEL_BOUND = 8.72  # >= the largest |dose| (8.7123)
VKORC1 = (12, 13)  # the one-hot columns of VKORC1 (CT, TT; reference CC)

ORACLE_RADII: Tuple[float, ...] = (0.25, 0.5, 1.0, 2.0)
# The paper's oracle searches lambda "in [0.001, 0.5]" along an arithmetic progression (size not
# stated); 25 evenly spaced points skip everything between 0.001 and 0.022, where the best lambda
# lies at large epsilon (the data-independent choice is 0.0068 at epsilon = 100), so the oracle
# uses 25 log-spaced points of the same range instead.
ORACLE_ALPHAS: Tuple[float, ...] = tuple(float(a) for a in np.geomspace(0.001, 0.5, 25))
HUBER_DELTAS: Tuple[float, ...] = (0.25, 0.5, 1.0)

#: (key, label, differentially private?)
METHODS: Tuple[Tuple[str, str, bool], ...] = (
    ("non_private", "Non-private (least squares)", False),
    ("fm", "Functional mechanism (Zhang et al.'s regularisation)", True),
    ("fm_noreg", "Functional mechanism, no regularisation (trimming only)", True),
    ("di", "Output perturbation, data-independent (rls-out)", True),
    ("oracle", "Output perturbation, oracle (not DP)", False),
    ("tuned_r1", "Output perturbation, tuned R1", True),
    ("tuned_r2", "Output perturbation, tuned R2", True),
    ("tuned_r1_paper", "Output perturbation, tuned R1, paper selection (not DP)", False),
    ("obj_di", "Objective perturbation, data-independent lambda", True),
    ("obj_tuned", "Objective perturbation, tuned", True),
    ("op_tight", "Output perturbation, Theorem 14 + tight bound (privlearn)", True),
)
LABELS = {key: label for key, label, _ in METHODS}
SIZE_METHODS: Tuple[str, ...] = ("tuned_r1", "di", "op_tight")

Z = 2.0  # one-sided z threshold of the ordering checks (about 2.3% per check)


def _common() -> Dict[str, Any]:
    return dict(data_norm=DATA_NORM, label_bound=LABEL_BOUND)


def fit_method(key: str, eps: float, X: np.ndarray, y: np.ndarray, gen: Any) -> Any:
    """Fit method ``key`` at ``eps`` on ``(X, y)`` drawing from ``gen``; returns a model with
    ``predict`` (or the coefficient vector, for the non-private fit)."""
    n, d = X.shape
    if key == "non_private":
        return np.linalg.lstsq(X, y, rcond=None)[0]
    if key == "fm":
        return FunctionalMechanismRegressor(eps, **_common(), rng=gen).fit(X, y)
    if key == "fm_noreg":
        return FunctionalMechanismRegressor(eps, reg_multiplier=0.0, **_common(), rng=gen).fit(X, y)
    if key == "di":
        params = data_independent_parameters(n, d, eps)
        return OutputPerturbationRegressor(
            eps,
            alpha=params["alpha"],
            radius=params["radius"],
            variant="rls_out",
            **_common(),
            rng=gen,
        ).fit(X, y)
    if key == "op_tight":
        return OutputPerturbationRegressor(
            eps, alpha="auto", radius=1.0, sensitivity_bound="tight", **_common(), rng=gen
        ).fit(X, y)
    if key == "oracle":
        base = OutputPerturbationRegressor(eps, variant="rls_out", **_common(), rng=gen)
        best = oracle_parameters(base, {"radius": ORACLE_RADII, "alpha": ORACLE_ALPHAS}, X, y)
        return base.set_params(**best).fit(X, y)
    if key.startswith("tuned_"):
        radii = PAPER_RADII["R2" if key == "tuned_r2" else "R1"]
        selection = "paper_not_dp" if key.endswith("_paper") else "strict"
        base = OutputPerturbationRegressor(None, variant="rls_out", **_common())
        grid = {"radius": radii, "alpha": PAPER_LAMBDA_GRID}
        return PrivateTuning(base, grid, eps, selection=selection, rng=gen).fit(X, y)
    if key == "obj_di":
        return ObjectivePerturbationRegressor(eps, alpha="auto", **_common(), rng=gen).fit(X, y)
    if key == "obj_tuned":
        base = ObjectivePerturbationRegressor(None, **_common())
        grid = {"huber_delta": HUBER_DELTAS, "alpha": PAPER_LAMBDA_GRID}
        return PrivateTuning(base, grid, eps, rng=gen).fit(X, y)
    raise KeyError(key)


def _predict(model: Any, X: np.ndarray) -> np.ndarray:
    return X @ model if isinstance(model, np.ndarray) else model.predict(X)


@dataclass(frozen=True)
class _Task:
    """One repetition: a random split, then every method at every epsilon (``kind="eps"``) or
    the size methods at every epsilon of ``SIZE_EPSILONS`` for every rate (``kind="size"``)."""

    kind: str
    epsilons: Tuple[float, ...]
    rates: Tuple[float, ...]


def _evaluate(
    model: Any, X: np.ndarray, y: np.ndarray, Xv: np.ndarray, yv: np.ndarray, prior: np.ndarray
) -> Tuple[float, float]:
    train_rmse = float(np.sqrt(np.mean((_predict(model, X) - y) ** 2)))
    mse = float(np.mean((_predict(model, Xv) - yv) ** 2))
    if not (np.isfinite(mse) and np.isfinite(train_rmse)) or train_rmse == 0.0:
        return mse, math.nan
    return mse, model_inversion(model, Xv, yv, columns=VKORC1, prior=prior, sigma=train_rmse)


def _prior(X: np.ndarray) -> np.ndarray:
    block = X[:, list(VKORC1)]
    truth = np.where(block.any(axis=1), block.argmax(axis=1) + 1, 0)
    counts = np.bincount(truth, minlength=len(VKORC1) + 1) + 1.0
    return counts / counts.sum()


def _trial(task: _Task, seed: int) -> Dict[str, np.ndarray]:
    """Returns ``{"mse": (methods, cells), "mi": (methods, cells), "baseline": (1,)}``."""
    X_all, y_all = load_warfarin(return_X_y=True)
    gen = Generator(seed)
    perm = np.random.default_rng([int(s) for s in gen.random_raw(4)]).permutation(y_all.size)
    tr, va = perm[:N_TRAIN], perm[N_TRAIN:]
    X, y, Xv, yv = X_all[tr], y_all[tr], X_all[va], y_all[va]
    prior = _prior(X)
    block = Xv[:, list(VKORC1)]
    truth = np.where(block.any(axis=1), block.argmax(axis=1) + 1, 0)
    baseline = float(np.mean(truth == int(np.argmax(prior))))
    if task.kind == "eps":
        keys = [key for key, _, _ in METHODS]
        cells = [(key, eps, X, y) for eps in task.epsilons for key in keys]
    else:
        keys = list(SIZE_METHODS)
        cells = []
        sub_rng = np.random.default_rng([int(s) for s in gen.random_raw(4)])
        for rate in task.rates:
            take = np.sort(sub_rng.permutation(N_TRAIN)[: int(round(rate * N_TRAIN))])
            cells += [(key, e, X[take], y[take]) for e in SIZE_EPSILONS for key in keys]
    mse = np.empty(len(cells))
    mi = np.empty(len(cells))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflowing predictions of wild models
        done: Dict[Tuple[str, int], Tuple[float, float]] = {}
        for i, (key, eps, Xt, yt) in enumerate(cells):
            if key == "non_private" and (key, id(Xt)) in done:  # the same at every epsilon
                mse[i], mi[i] = done[(key, id(Xt))]
                continue
            model = fit_method(key, eps, Xt, yt, gen)
            mse[i], mi[i] = done[(key, id(Xt))] = _evaluate(model, Xt, yt, Xv, yv, prior)
    shape = (-1, len(keys))
    return {
        "mse": mse.reshape(shape).T,
        "mi": mi.reshape(shape).T,
        "baseline": np.array([baseline]),
        "zero": np.array([float(np.mean(yv * yv))]),
    }


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


def summary(values: np.ndarray, *, log: bool) -> Tuple[float, float, float]:
    """Centre and 95% normal confidence interval over repetitions (finite values only): of the
    mean, or (``log=True``) of the geometric mean ``exp(mean(log v))``, which the heavy tails of
    noisy models' MSE do not dominate."""
    v = values[np.isfinite(values)]
    if log:
        v = np.log(v[v > 0])
    if v.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(np.mean(v))
    half = 1.96 * float(np.std(v, ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0
    out = (mean, mean - half, mean + half)
    return tuple(float(np.exp(x)) for x in out) if log else out  # type: ignore[return-value]


def paired_z(lower: np.ndarray, higher: np.ndarray, *, log: bool) -> Tuple[float, float]:
    """Mean over repetitions of ``higher - lower`` (of their logarithms if ``log``) and its
    z-score; the methods share each repetition's split, so the differences are paired."""
    a, b = (np.log(lower), np.log(higher)) if log else (lower, higher)
    with np.errstate(invalid="ignore"):
        diff = (b - a)[np.isfinite(a) & np.isfinite(b)]
    if diff.size < 2:
        return math.nan, math.nan
    mean = float(np.mean(diff))
    se = float(np.std(diff, ddof=1) / math.sqrt(diff.size))
    if se == 0.0:
        return mean, math.copysign(math.inf, mean) if mean != 0 else 0.0
    return mean, mean / se


def _verdict(z: float) -> str:
    if math.isnan(z):
        return "n/a"
    if z >= Z:
        return "holds"
    if z > 0:
        return "holds (not significant)"
    if z > -Z:
        return "fails (not significant)"
    return "fails"


def check_orderings(
    mse: Dict[str, np.ndarray],
    mi: Dict[str, np.ndarray],
    eps: Sequence[float],
    size_mse: Dict[Tuple[str, float], np.ndarray],
    size_mi: Dict[Tuple[str, float], np.ndarray],
    rates: Sequence[float],
    baseline: float,
) -> List[List[Any]]:
    """The orderings of the notes (spec/001 §5.6) as rows ``[id, claim, verdict, gap, z]``.

    ``mse[key]`` and ``mi[key]`` have shape ``(len(eps), reps)``; ``size_*[(key, eps)]`` shape
    ``(len(rates), reps)``. The gap is the mean paired difference over repetitions, signed so
    that a positive gap supports the claim: of log MSE for MSE claims (a ratio of geometric
    means), of accuracy for model-inversion claims.
    """
    eps = list(eps)
    rows: List[List[Any]] = []

    def add(
        ident: str, claim: str, lower: np.ndarray, higher: np.ndarray, log: bool = True
    ) -> None:
        gap, z = paired_z(lower, higher, log=log)
        rows.append([ident, claim, _verdict(z), gap, z])

    first, last = 0, len(eps) - 1
    small = [i for i, e in enumerate(eps) if e <= 1.0]
    private = ("fm", "fm_noreg", "di", "tuned_r1", "tuned_r2", "obj_di", "obj_tuned", "op_tight")
    for key in private + ("oracle",):
        add(
            f"1-{key}",
            f"{LABELS[key]}: MSE at eps={eps[last]:g} < at eps={eps[first]:g}",
            mse[key][last],
            mse[key][first],
        )
        for i in range(last):
            gap, z = paired_z(mse[key][i + 1], mse[key][i], log=True)
            if z <= -3.0:
                rows.append(
                    [
                        f"1-{key}-{eps[i]:g}",
                        f"{LABELS[key]}: MSE does not increase from eps={eps[i]:g} "
                        f"to {eps[i + 1]:g}",
                        "fails",
                        gap,
                        z,
                    ]
                )
    for key in ("di", "oracle", "op_tight", "tuned_r1", "tuned_r2", "obj_tuned"):
        for fm in ("fm", "fm_noreg"):
            for i in small:
                add(
                    f"2-{key}-{fm}-{eps[i]:g}",
                    f"{LABELS[key]} < {LABELS[fm]} in MSE at eps={eps[i]:g}",
                    mse[key][i],
                    mse[fm][i],
                )
    for i, e in enumerate(eps):
        add(
            f"3-{e:g}",
            f"oracle <= data-independent in MSE at eps={e:g}",
            mse["oracle"][i],
            mse["di"][i],
        )
    for key in ("tuned_r1", "tuned_r2"):
        for i in small:
            add(
                f"4-{key}-{eps[i]:g}",
                f"{LABELS[key]} >= data-independent in MSE at eps={eps[i]:g}",
                mse["di"][i],
                mse[key][i],
            )
    for key in ("di", "oracle", "op_tight", "fm"):
        add(
            f"5-{key}",
            f"{LABELS[key]}: MI accuracy at eps={eps[last]:g} > at eps={eps[first]:g}",
            mi[key][first],
            mi[key][last],
            log=False,
        )
    gap = float(np.nanmean(mi["fm"][first]) - baseline)
    rows.append(
        [
            "5-fm-baseline",
            f"functional mechanism's MI accuracy at eps={eps[first]:g} within 3 points "
            f"of the prior-mode baseline ({baseline:.3f})",
            "holds" if abs(gap) <= 0.03 else "fails",
            gap,
            math.nan,
        ]
    )
    for fm in ("fm", "fm_noreg"):
        for i in small:
            add(
                f"6-{fm}-{eps[i]:g}",
                f"oracle has higher MI accuracy than the {LABELS[fm]} at eps={eps[i]:g} "
                "(and lower MSE, item 2)",
                mi[fm][i],
                mi["oracle"][i],
                log=False,
            )
    if len(rates) >= 2:
        for e in SIZE_EPSILONS:
            for key in SIZE_METHODS:
                m, a = size_mse[(key, e)], size_mi[(key, e)]
                add(
                    f"7-{key}-{e:g}-mse",
                    f"{LABELS[key]}, eps={e:g}: MSE at {rates[-1]:.0%} of the training data "
                    f"< at {rates[0]:.0%}",
                    m[-1],
                    m[0],
                )
                add(
                    f"7-{key}-{e:g}-mi",
                    f"{LABELS[key]}, eps={e:g}: MI accuracy at {rates[-1]:.0%} of the "
                    f"training data > at {rates[0]:.0%}",
                    a[0],
                    a[-1],
                    log=False,
                )
    return rows


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

_STYLE = {
    "non_private": ("k", "-"),
    "fm": ("C3", "-"),
    "fm_noreg": ("C3", "--"),
    "di": ("C0", "-"),
    "oracle": ("C0", "--"),
    "tuned_r1": ("C2", "-"),
    "tuned_r2": ("C2", "--"),
    "tuned_r1_paper": ("C2", ":"),
    "obj_di": ("C4", "-"),
    "obj_tuned": ("C4", "--"),
    "op_tight": ("C1", "-"),
}


def _curve(ax: Any, x: np.ndarray, values: np.ndarray, key: str, log: bool) -> None:
    colour, style = _STYLE[key]
    stats = np.array([summary(v, log=log) for v in values])
    ax.fill_between(x, stats[:, 1], stats[:, 2], color=colour, alpha=0.15, linewidth=0)
    ax.plot(x, stats[:, 0], style, color=colour, marker="o", markersize=3, label=LABELS[key])


def _draw_epsilon_panels(
    path: Path,
    eps: np.ndarray,
    values: Dict[str, np.ndarray],
    panels: Sequence[Tuple[str, Sequence[str]]],
    *,
    log: bool,
    reference: Tuple[float, str],
    ylabel: str,
    title: str,
    width: float,
) -> None:
    """One panel per ``(title, methods)`` against epsilon, with a horizontal reference line."""
    fig = new_figure(figsize=(width, 5.2), layout="constrained")
    axes = fig.subplots(1, len(panels))
    for ax, (panel_title, keys) in zip(axes, panels):
        for key in keys:
            _curve(ax, eps, values[key], key, log=log)
        ax.axhline(
            reference[0], color="0.4", linestyle=":", label=f"{reference[1]} ({reference[0]:.3f})"
        )
        ax.set_xscale("log")
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("privacy parameter ε")
        ax.set_ylabel(ylabel)
        ax.set_title(panel_title, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=6.5)
    fig.suptitle(title)
    fig.savefig(path, dpi=120)


def _draw_mse(
    path: Path, eps: np.ndarray, mse: Dict[str, np.ndarray], zero: float, reps: int
) -> None:
    panels = (
        (
            "(Fig. 1) output perturbation vs functional mechanism",
            (
                "fm",
                "fm_noreg",
                "tuned_r1",
                "tuned_r2",
                "tuned_r1_paper",
                "di",
                "oracle",
                "op_tight",
                "non_private",
            ),
        ),
        ("(Fig. 2) data-independent vs oracle", ("di", "oracle", "op_tight", "non_private")),
        (
            "(Fig. 4) objective vs output perturbation",
            ("obj_tuned", "obj_di", "di", "oracle", "non_private"),
        ),
    )
    _draw_epsilon_panels(
        path,
        eps,
        mse,
        panels,
        log=True,
        reference=(zero, "predicting 0"),
        ylabel="validation MSE (z-scored dose), geometric mean",
        width=16,
        title=f"Private linear regression on IWPC warfarin (n = {N_TRAIN}, d = 14): geometric mean and 95% CI "
        f"over {reps} splits",
    )


def _draw_mi(
    path: Path, eps: np.ndarray, mi: Dict[str, np.ndarray], baseline: float, reps: int
) -> None:
    panels = (
        (
            "(Fig. 5) model inversion, all mechanisms",
            (
                "fm",
                "fm_noreg",
                "tuned_r1",
                "tuned_r2",
                "di",
                "oracle",
                "obj_tuned",
                "obj_di",
                "op_tight",
                "non_private",
            ),
        ),
        ("(Fig. 6) data-independent vs oracle", ("di", "oracle", "non_private")),
    )
    _draw_epsilon_panels(
        path,
        eps,
        mi,
        panels,
        log=False,
        reference=(baseline, "prior-mode guess"),
        ylabel="VKORC1 inversion accuracy",
        width=12,
        title=f"Fredrikson et al.'s model inversion of VKORC1: mean and 95% CI over {reps} splits",
    )


def _draw_size(
    path: Path,
    rates: np.ndarray,
    size_mse: Dict[Tuple[str, float], np.ndarray],
    size_mi: Dict[Tuple[str, float], np.ndarray],
    reps: int,
) -> None:
    fig = new_figure(figsize=(11, 4.4 * len(SIZE_EPSILONS)), layout="constrained")
    axes = fig.subplots(len(SIZE_EPSILONS), 2, squeeze=False)
    for (ax1, ax2), e in zip(axes, SIZE_EPSILONS):
        for key in SIZE_METHODS:
            _curve(ax1, rates * N_TRAIN, size_mse[(key, e)], key, log=True)
            _curve(ax2, rates * N_TRAIN, size_mi[(key, e)], key, log=False)
        ax1.set_yscale("log")
        ax1.set_ylabel("validation MSE (z-scored dose), geometric mean")
        ax2.set_ylabel("VKORC1 inversion accuracy")
        for ax in (ax1, ax2):
            ax.set_title(f"ε = {e:g}", fontsize=10)
            ax.set_xlabel("training rows")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
    fig.suptitle(f"(Fig. 7) more training data: 95% CI over {reps} repetitions")
    fig.savefig(path, dpi=120)


# --------------------------------------------------------------------------------------------
# The experiment
# --------------------------------------------------------------------------------------------

_DESCRIPTION = """\
Wu et al.'s study (arXiv 1512.06388, Section 5) on the built-in IWPC warfarin data (4,819
patients, d = 14): validation MSE against epsilon for the non-private least-squares fit, the
functional mechanism (Zhang et al. 2012), output perturbation (rls-out, Algorithm 4) with
data-independent, oracle (not DP) and privately tuned parameters (Algorithm 5: strict selection,
and the paper's selection, which is not DP), objective perturbation (Chaudhuri et al. 2011, with
the pseudo-Huber loss) and privlearn's tight output perturbation (Figures 1, 2 and 4);
Fredrikson et al.'s model-inversion accuracy on VKORC1 against epsilon (Figures 5 and 6); and the
trend with the training size at epsilon = 0.5 and 5 (Figure 7). Random 3,000 / 1,819 splits, one per
repetition; means with 95% confidence intervals. The orderings of the implementation notes are
checked with paired z-tests across repetitions."""


@register(
    NAME,
    title="Private regression on IWPC warfarin: output perturbation vs the functional mechanism, and model inversion",
    paper="Wu, Fredrikson, Wu, Jha and Naughton, Revisiting differentially private regression (arXiv 1512.06388)",
    description=_DESCRIPTION,
)
def run(config: RunConfig) -> ExperimentResult:
    """Run the experiment (see the module docstring)."""
    eps = EPSILONS_QUICK if config.quick else EPSILONS_FULL
    rates = RATES_QUICK if config.quick else RATES_FULL
    reps = REPETITIONS_QUICK if config.quick else REPETITIONS_FULL
    tasks = [_Task("eps", eps, ()) for _ in range(reps)] + [
        _Task("size", (), rates) for _ in range(reps)
    ]
    out = run_trials(
        _trial, tasks, seed=config.seed, n_jobs=config.n_jobs, desc=NAME, progress=config.progress
    )
    main, size = out[:reps], out[reps:]
    keys = [key for key, _, _ in METHODS]
    mse = {key: np.stack([o["mse"][k] for o in main], axis=1) for k, key in enumerate(keys)}
    mi = {key: np.stack([o["mi"][k] for o in main], axis=1) for k, key in enumerate(keys)}
    # Size cells are ordered rate-major, then epsilon, for each method.
    n_eps = len(SIZE_EPSILONS)
    size_mse = {
        (key, e): np.stack([o["mse"][k][j::n_eps] for o in size], axis=1)
        for k, key in enumerate(SIZE_METHODS)
        for j, e in enumerate(SIZE_EPSILONS)
    }
    size_mi = {
        (key, e): np.stack([o["mi"][k][j::n_eps] for o in size], axis=1)
        for k, key in enumerate(SIZE_METHODS)
        for j, e in enumerate(SIZE_EPSILONS)
    }
    baseline = float(np.mean([o["baseline"][0] for o in main]))
    zero = float(np.mean([o["zero"][0] for o in main]))

    def mse_rows(
        values: Dict[str, np.ndarray], keys_: Sequence[str], grid: Sequence[float]
    ) -> List[List[Any]]:
        rows = []
        for key in keys_:
            for i, g in enumerate(grid):
                v = values[key][i]
                finite = v[np.isfinite(v)]
                rows.append(
                    [
                        key,
                        g,
                        *summary(v, log=True),
                        float(np.median(finite)) if finite.size else math.nan,
                        float(np.mean(finite)) if finite.size else math.nan,
                        int(finite.size),
                    ]
                )
        return rows

    mse_table = Table(
        [
            "method",
            "epsilon",
            "geomean_mse",
            "ci95_low",
            "ci95_high",
            "median_mse",
            "mean_mse",
            "reps",
        ],
        mse_rows(mse, keys, eps),
        description=(
            "Validation MSE (z-scored dose units; predicting 0 gives the validation mean of y^2, about 1) per "
            f"method and epsilon over {reps} random splits: geometric mean with its normal 95% confidence "
            "interval (computed on log MSE), median and arithmetic mean (dominated by rare wild models). "
            "Methods: " + "; ".join(f"{k} = {LABELS[k]}" for k in keys) + "."
        ),
    )
    mi_table = Table(
        ["method", "epsilon", "mean_accuracy", "ci95_low", "ci95_high", "reps"],
        [
            [key, e, *summary(mi[key][i], log=False), int(np.sum(np.isfinite(mi[key][i])))]
            for key in keys
            for i, e in enumerate(eps)
        ],
        description=(
            f"Model-inversion accuracy on VKORC1 over the validation patients (prior-mode baseline {baseline:.4f}); "
            "sigma is each model's training RMSE."
        ),
    )
    size_table = Table(
        [
            "method",
            "epsilon",
            "rate",
            "training_rows",
            "geomean_mse",
            "mse_ci95_low",
            "mse_ci95_high",
            "mean_mi",
            "mi_ci95_low",
            "mi_ci95_high",
        ],
        [
            [
                key,
                e,
                r,
                int(round(r * N_TRAIN)),
                *summary(size_mse[(key, e)][i], log=True),
                *summary(size_mi[(key, e)][i], log=False),
            ]
            for e in SIZE_EPSILONS
            for key in SIZE_METHODS
            for i, r in enumerate(rates)
        ],
        description=(
            f"Figure 7: the training split subsampled at each rate, {reps} repetitions; validation MSE (geometric "
            "mean) and VKORC1 inversion accuracy, with 95% confidence intervals."
        ),
    )
    orderings = check_orderings(mse, mi, eps, size_mse, size_mi, rates, baseline)
    order_table = Table(
        ["id", "claim", "verdict", "mean_gap", "z"],
        orderings,
        description=(
            "Orderings of the implementation notes (spec/001 section 5.6) and of the paper, by paired z-tests "
            "over the repetitions (all methods share each repetition's split). mean_gap is the mean paired "
            "difference, of log MSE for MSE claims and of accuracy for inversion claims, signed so that a "
            f"positive gap supports the claim; 'holds' needs z >= {Z:g}. Monotonicity rows (1-KEY-EPS) appear "
            "only where a consecutive pair of epsilons shows a significant increase (z <= -3)."
        ),
    )
    nonpriv = float(np.mean(mse["non_private"]))
    held = sum(1 for r in orderings if r[2] == "holds")
    families = {
        "1": "MSE falls with epsilon",
        "2": "output perturbation beats the functional mechanism at eps <= 1",
        "3": "oracle <= data-independent",
        "4": "tuned >= data-independent at eps <= 1",
        "5": "inversion accuracy rises with epsilon",
        "6": "lower MSE, higher inversion accuracy",
        "7": "more data: lower MSE, higher inversion accuracy",
    }
    family_notes = []
    for key, what in families.items():
        rows_k = [r for r in orderings if r[0].split("-")[0] == key]
        if rows_k:
            family_notes.append(
                f"{key} ({what}): {sum(r[2] == 'holds' for r in rows_k)} of {len(rows_k)} hold"
            )
    notes = [
        f"{reps} repetitions; seed {config.seed if config.seed is not None else 'none (OS entropy)'}. A seeded run "
        "measures the mechanisms and is not itself private.",
        f"Non-private least squares: validation MSE {nonpriv:.4f}, MI accuracy "
        f"{float(np.nanmean(mi['non_private'])):.4f}; predicting 0: MSE {zero:.4f}; prior-mode guess of "
        f"VKORC1: accuracy {baseline:.4f}.",
        f"Orderings: {held} of {len(orderings)} checks hold at z >= {Z:g} (see the orderings table); by "
        "family: " + "; ".join(family_notes) + ".",
        "The functional mechanism with Zhang et al.'s regularisation (five noise standard deviations added to "
        "the diagonal of its quadratic form, as in their reference code) shrinks its model towards zero: its MSE "
        "stays near that of predicting 0, and noisy output-perturbation models can be worse at small epsilon. "
        "Without that regularisation (trimming only) its models are wild, as in the paper's figures (MSE 22.57 at "
        "epsilon 0.2). Both are shown, and the orderings are checked against both.",
        "The paper's absolute numbers are not expected to reproduce (implementation notes 5.7): its "
        "preprocessing, split and MSE units are not public.",
        "Objective perturbation uses the pseudo-Huber loss (CMS11's Theorem 9 needs a globally bounded "
        "gradient; errata B2), unconstrained, tuned over delta in {0.25, 0.5, 1} instead of the paper's radii.",
        "Tuned R1 with the paper's selection rule is not differentially private (errata B1); it is shown "
        "to compare with the paper's Figure 1.",
    ]

    eps_arr = np.array(eps, dtype=np.float64)
    rates_arr = np.array(rates, dtype=np.float64)
    return ExperimentResult(
        tables={
            "mse": mse_table,
            "model-inversion": mi_table,
            "training-size": size_table,
            "orderings": order_table,
        },
        figures={
            "mse": lambda p: _draw_mse(p, eps_arr, mse, zero, reps),
            "model-inversion": lambda p: _draw_mi(p, eps_arr, mi, baseline, reps),
            "training-size": lambda p: _draw_size(p, rates_arr, size_mse, size_mi, reps),
        },
        notes=notes,
    )
