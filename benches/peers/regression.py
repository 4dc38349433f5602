"""Private regression and classification against diffprivlib (seed 001), on the same data and
epsilons, and fit time against scikit-learn's Ridge.

* Warfarin (the built-in IWPC data, random 3,000 / 1,819 splits): validation MSE of privlearn's
  best output perturbation (``OutputPerturbationRegressor`` with the data-independent parameters
  ``R = 1``, ``alpha = sqrt(d / (n eps))``, Theorem 14's calibration and
  ``sensitivity_bound="tight"``; bounds: the data's largest row norm and |dose|, nothing
  clipped) against diffprivlib's ``LinearRegression`` (a functional mechanism; per-feature bounds
  = the data's column ranges, ``bounds_y`` = the dose range; the better of
  ``fit_intercept=True/False``). Target: privlearn at or below diffprivlib at every epsilon,
  at most half of it for epsilon <= 1 (ratio = peer MSE / privlearn MSE).
* Breast cancer (scikit-learn's ``load_breast_cancer``, random stratified 70/30 splits,
  features standardised on the training split, rows clipped to the declared norm ``sqrt(30)``,
  intercepts fitted): test error of privlearn's private logistic models (objective
  perturbation, and output perturbation with the tight bound; ``alpha="auto"``) against
  diffprivlib's ``LogisticRegression`` (objective perturbation, same ``data_norm``). Target:
  privlearn's error at or below diffprivlib's (ratio = peer error / privlearn error >= 1).
* Fit time of ``OutputPerturbationRegressor`` on all 4,819 x 14 warfarin rows against
  ``sklearn.linear_model.Ridge``: at most twice Ridge's (ratio >= 0.5).
* Fit time of the front doors (:func:`front_door_fit_rows`; ``delta = 1e-6``, declared bounds
  and ``bounds="private"``): ``PrivateLinearRegression`` against ``Ridge`` on 3,000 x 14
  warfarin rows and on 100,000 x 20 synthetic rows; ``PrivateLogisticRegression`` at epsilon
  0.5, 1 and 5 against ``LogisticRegression`` on the 569 x 30 standardised breast-cancer rows.
  Target: at most twice scikit-learn's time (ratio >= 0.5). Warm fits (a calibration that
  reads public parameters only is memoised by the library).

diffprivlib 0.6.6 needs scikit-learn < 1.8 (see the ``bench`` extra); without it the accuracy
rows report privlearn's value alone (peer "-", the reason in the note) and the fit-time rows,
which need scikit-learn only, still run. Run alone with ``python benches/compare.py
regression``. On a shared machine, set ``OPENBLAS_NUM_THREADS=1``: a 569 x 31 Gram matrix with
two BLAS threads on two busy cores took 2-40 ms instead of 0.1 ms in issue 19's measurements.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, List, Tuple

import numpy as np

from privlearn.datasets import load_warfarin
from privlearn.learners import (
    ObjectivePerturbationClassifier,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
)

from .common import Row, per_call

EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
N_TRAIN = 3000
DATA_NORM, LABEL_BOUND = 8.01, 8.72  # the warfarin rows' largest norm and |dose|, rounded up


def _splits(n: int, reps: int, train: int, seed: int) -> List[Tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        perm = rng.permutation(n)
        out.append((perm[:train], perm[train:]))
    return out


def warfarin_mse(reps: int, peer_factory: Any = None) -> List[Tuple[float, float, float, float]]:
    """``(eps, privlearn mean MSE, peer mean MSE, peer median MSE)`` per epsilon."""
    X, y = load_warfarin(return_X_y=True)
    bounds_X = (X.min(axis=0), X.max(axis=0))
    bounds_y = (float(y.min()), float(y.max()))
    splits = _splits(y.size, reps, N_TRAIN, 0)
    out = []
    for k, eps in enumerate(EPSILONS):
        ours, peer = [], {True: [], False: []}
        for r, (tr, va) in enumerate(splits):
            model = OutputPerturbationRegressor(
                eps,
                alpha="auto",
                radius=1.0,
                sensitivity_bound="tight",
                data_norm=DATA_NORM,
                label_bound=LABEL_BOUND,
                rng=1000 * k + r,
            ).fit(X[tr], y[tr])
            ours.append(np.mean((model.predict(X[va]) - y[va]) ** 2))
            if peer_factory is not None:
                for intercept in (True, False):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        m = peer_factory(eps, bounds_X, bounds_y, intercept, 1000 * k + r).fit(
                            X[tr], y[tr]
                        )
                        peer[intercept].append(np.mean((m.predict(X[va]) - y[va]) ** 2))
        if peer_factory is None:
            out.append((eps, float(np.mean(ours)), math.nan, math.nan))
            continue
        best = min(peer.values(), key=lambda v: float(np.mean(v)))
        out.append((eps, float(np.mean(ours)), float(np.mean(best)), float(np.median(best))))
    return out


def breast_cancer_error(
    reps: int, peer_factory: Any = None
) -> List[Tuple[float, float, float, float]]:
    """``(eps, objective-perturbation error, output-perturbation error, peer error)``."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    norm = math.sqrt(X.shape[1])
    out = []
    for k, eps in enumerate(EPSILONS):
        errs: List[List[float]] = [[], [], []]
        for r in range(reps):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=r)
            scaler = StandardScaler().fit(Xtr)  # non-private preprocessing, shared by every model
            Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
            seed = 1000 * k + r
            models = [
                ObjectivePerturbationClassifier(
                    eps, data_norm=norm, fit_intercept=True, classes=[0, 1], rng=seed
                ),
                OutputPerturbationClassifier(
                    eps,
                    data_norm=norm,
                    sensitivity_bound="tight",
                    fit_intercept=True,
                    classes=[0, 1],
                    rng=seed,
                ),
            ]
            if peer_factory is not None:
                models.append(peer_factory(eps, norm, seed))
            for i, m in enumerate(models):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    errs[i].append(1.0 - m.fit(Xtr, ytr).score(Xte, yte))
        out.append(
            (
                eps,
                float(np.mean(errs[0])),
                float(np.mean(errs[1])),
                float(np.mean(errs[2])) if errs[2] else math.nan,
            )
        )
    return out


def _diffprivlib() -> Tuple[Callable[..., Any], Callable[..., Any]]:
    from diffprivlib.models import LinearRegression, LogisticRegression

    def linear(eps: float, bx: Any, by: Any, intercept: bool, seed: int) -> Any:
        return LinearRegression(
            epsilon=eps, bounds_X=bx, bounds_y=by, fit_intercept=intercept, random_state=seed
        )

    def logistic(eps: float, norm: float, seed: int) -> Any:
        return LogisticRegression(epsilon=eps, data_norm=norm, random_state=seed)

    return linear, logistic


def rows(quick: bool) -> List[Row]:
    reps = 10 if quick else 50
    out: List[Row] = []
    try:
        linear, logistic = _diffprivlib()
        peer_note = ""
    except ImportError as err:  # diffprivlib missing, or a scikit-learn it cannot import with
        linear = logistic = None
        peer_note = f"diffprivlib unavailable ({err}); pip install '.[bench]'"

    for eps, ours, peer, peer_median in warfarin_mse(reps, linear):
        target = ">= 2x" if eps <= 1 else ">= 1x"
        note = peer_note or f"median {peer_median:.3g}; mean of {reps} splits"
        out.append(
            Row(
                f"warfarin MSE, eps={eps:g}: OutputPerturbationRegressor (tight, data-independent)",
                ours,
                "diffprivlib LinearRegression",
                None if math.isnan(peer) else peer,
                target,
                note=note,
                unit="MSE",
            )
        )
    for eps, obj, outp, peer in breast_cancer_error(reps, logistic):
        for name, err in (
            ("ObjectivePerturbationClassifier", obj),
            ("OutputPerturbationClassifier (tight)", outp),
        ):
            out.append(
                Row(
                    f"breast cancer test error, eps={eps:g}: {name}",
                    err,
                    "diffprivlib LogisticRegression",
                    None if math.isnan(peer) else peer,
                    ">= 1x",
                    note=peer_note,
                    unit="error",
                )
            )

    X, y = load_warfarin(return_X_y=True)
    from sklearn.linear_model import Ridge

    model = OutputPerturbationRegressor(1.0, data_norm=DATA_NORM, label_bound=LABEL_BOUND, rng=0)
    ridge = Ridge(alpha=1.0)
    number = 200 if quick else 1000
    t_ours = per_call(lambda: model.fit(X, y), number)
    t_ridge = per_call(lambda: ridge.fit(X, y), number)
    out.append(
        Row(
            "fit, 4,819 x 14 warfarin rows: OutputPerturbationRegressor",
            t_ours,
            "sklearn Ridge.fit",
            t_ridge,
            ">= 0.5x",
            note="target: at most 2x Ridge's time",
        )
    )
    out += front_door_fit_rows(quick)
    return out


def _synthetic_regression(n: int, d: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """``X`` uniform on ``[-1, 1]^d`` (row norms at most ``sqrt(d)``), ``y = X beta + 0.1 Z``
    with ``beta`` uniform on ``[-1, 1]^d / sqrt(d)`` (``|X beta| <= ||beta||_1 <= sqrt(d)``)."""
    g = np.random.default_rng(seed)
    X = g.uniform(-1.0, 1.0, (n, d))
    beta = g.uniform(-1.0, 1.0, d) / math.sqrt(d)
    return X, X @ beta + 0.1 * g.standard_normal(n)


#: Declared bounds of the synthetic rows: ``sqrt(20)`` (exact for the cube) and ``|y| <= 4``
#: (from the generator, not read from the data; the rare larger labels are clipped).
SYNTHETIC_BOUNDS = (math.sqrt(20.0), 4.0)
#: Declared bound of the standardised breast-cancer rows (their largest norm, rounded up).
BREAST_CANCER_NORM = 20.6


def front_door_fit_rows(quick: bool) -> List[Row]:
    """Fit time of the issue-19 front doors against scikit-learn on the same data, at
    ``delta = 1e-6``, with declared bounds and with ``bounds="private"``:

    * ``PrivateLinearRegression(1.0)`` against ``Ridge(alpha=1.0)`` (both fit an intercept) on
      3,000 x 14 warfarin rows (the first training split of the MSE rows) and on 100,000 x 20
      synthetic rows (:func:`_synthetic_regression`);
    * ``PrivateLogisticRegression`` at ``epsilon`` 0.5, 1 and 5 (DP gradient descent, CMS11
      objective perturbation, DP gradient descent: the front door's rule) against
      ``LogisticRegression(max_iter=1000)`` on the 569 x 30 standardised breast-cancer rows.

    Target: at most twice scikit-learn's time (ratio >= 0.5). Each time is the best batch mean
    of :func:`~.common.per_call`, so these are warm fits: a calibration that depends on public
    parameters only (``epsilon``, ``delta``, the number of steps, ``d``) is memoised by the
    library, and the first fit at a new budget pays it once (about 10 ms for DP gradient
    descent). A front door whose delegate this build lacks is reported as skipped."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression, Ridge

    number = 20 if quick else 100
    X, y = load_warfarin(return_X_y=True)
    train = _splits(y.size, 1, N_TRAIN, 0)[0][0]
    Xw, yw = X[train], y[train]
    Xs, ys = _synthetic_regression(100_000, 20, 0)
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xb = (Xb - Xb.mean(axis=0)) / Xb.std(axis=0)  # public-file standardisation, as the experiment
    out: List[Row] = []
    try:
        from privlearn.learners.front_doors import (
            PrivateLinearRegression,
            PrivateLogisticRegression,
        )
    except ImportError as err:  # pragma: no cover (older builds)
        return [Row("fit: front doors", math.nan, "-", None, ">= 0.5x", note=str(err))]

    def bound_text(b: Any) -> str:
        if isinstance(b, str):
            return "private"
        return "declared " + ", ".join(f"{v:.3g}" for v in np.atleast_1d(b))

    cases: List[Tuple[str, Callable[[], Any], str, Callable[[], Any], int]] = []
    for label, A, t, declared, k in (
        ("3,000 x 14 warfarin rows", Xw, yw, (DATA_NORM, LABEL_BOUND), number),
        ("100,000 x 20 synthetic rows", Xs, ys, SYNTHETIC_BOUNDS, max(2, number // 10)),
    ):
        for b in ("private", declared):
            cases.append(
                (
                    f"fit, {label}: PrivateLinearRegression(1.0), bounds {bound_text(b)}",
                    lambda A=A, t=t, b=b: PrivateLinearRegression(
                        1.0, delta=1e-6, bounds=b, rng=0
                    ).fit(A, t),
                    "sklearn Ridge.fit",
                    lambda A=A, t=t: Ridge(alpha=1.0).fit(A, t),
                    k,
                )
            )
    for eps in (0.5, 1.0, 5.0):
        for b in ("private", BREAST_CANCER_NORM):
            cases.append(
                (
                    f"fit, 569 x 30 breast-cancer rows: PrivateLogisticRegression({eps:g}), "
                    f"bounds {bound_text(b)}",
                    lambda eps=eps, b=b: PrivateLogisticRegression(
                        eps, delta=1e-6, bounds=b, classes=[0, 1], rng=0
                    ).fit(Xb, yb),
                    "sklearn LogisticRegression.fit",
                    lambda: LogisticRegression(max_iter=1000).fit(Xb, yb),
                    number,
                )
            )
    for name, ours, peer, theirs, k in cases:
        try:
            ours()
        except Exception as err:  # noqa: BLE001  (a delegate this build lacks)
            out.append(Row(name, math.nan, peer, None, ">= 0.5x", note=f"skipped: {err}"))
            continue
        t_ours = per_call(ours, k)
        t_peer = per_call(theirs, k)
        out.append(
            Row(name, t_ours, peer, t_peer, ">= 0.5x", note="target: at most 2x the peer's time")
        )
    return out
