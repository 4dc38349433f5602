#!/usr/bin/env python3
"""Private StandardScaler (issue 22): error of ``mean_`` / ``scale_`` against scikit-learn's
StandardScaler with declared bounds and with private bounds (``bounds="private"``, or
``"private"`` for some sides), and the choice of the defaults ``bounds_quantile`` and the plan
of ``bounds_fraction``.

Data (all rows, the whole matrix fitted; ``n`` public):

* ``warfarin``: ``privlearn.datasets.load_warfarin().X`` (4819 x 14: age, height, weight
  z-scored, then eleven 0/1 indicator columns, 0.3% to 36% ones);
* ``cancer``: scikit-learn's ``load_breast_cancer`` raw features (569 x 30, all > 0, scales
  from 1e-3 to 4e3);
* ``synthetic``: 2000 x 8 continuous features of mixed sign and location (Student-t(3),
  shifted log-normal, normal with sd 5, uniform on [-3, 10], Student-t(5), N(2, 1), Laplace,
  N(-1, 2)), seed 0.

Bounds compared:

* ``declared``: what a user could declare without the data, made generous where the domain is
  unknown. warfarin: the integer box around each z-scored column and ``[0, 1]`` for the
  indicators; cancer: ``[0, 2 M_j]`` with ``M_j`` the column maximum rounded to one significant
  digit; synthetic: the integer box around each column widened by 1. (Declared from the data
  here, so optimistic: a user without the data would declare wider.)
* ``private``: ``bounds="private"`` (both sides of every feature released).
* ``mixed``: the known sides declared, the others private: warfarin's indicators ``[0, 1]``
  and the three numeric columns private; cancer ``(0, "private")``.

Reported per setting (mean over ``--reps`` seeded fits; seeded: reproducible, not private):
the median over features of ``|mean_ - mean| / sd`` and of ``|scale_ - sd| / sd`` (``mean``,
``sd`` scikit-learn's), the mean over features of the RMS over rows of the difference of the
two transforms (``(x - mean_) / scale_`` against scikit-learn's ``(x - mean) / sd``; large when
a feature's bound lands far off), and the number of fits refused (``n epsilon_b < 16``).

    python benches/scaler_private_bounds.py                    # the defaults only (~1 min)
    python benches/scaler_private_bounds.py --grid             # q x fraction grid (~5 min)
    python benches/scaler_private_bounds.py --reps 5 --data warfarin
"""

from __future__ import annotations

import argparse
import itertools
from typing import Dict, List, Optional, Tuple

import numpy as np

from privlearn.errors import InvalidParameterError
from privlearn.preprocessing import StandardScaler
from privlearn.preprocessing._scaler import BOUNDS_QUANTILE
from privlearn.random import Generator

EPSILONS = (0.5, 1.0, 2.0)


def _synthetic() -> np.ndarray:
    g = np.random.default_rng(0)
    n = 2000
    return np.column_stack(
        [
            g.standard_t(3, n) * 2 + 1,
            g.lognormal(0, 1, n) - 1,
            g.normal(0, 5, n),
            g.uniform(-3, 10, n),
            g.standard_t(5, n),
            g.normal(2, 1, n),
            g.laplace(0, 0.3, n),
            g.normal(-1, 2, n),
        ]
    )


def datasets(names: List[str]) -> Dict[str, Tuple[np.ndarray, Dict[str, object]]]:
    out: Dict[str, Tuple[np.ndarray, Dict[str, object]]] = {}
    if "warfarin" in names:
        from privlearn.datasets import load_warfarin

        X = load_warfarin().X
        lo, hi = np.floor(X.min(0)), np.ceil(X.max(0))
        mlo: List[object] = ["private"] * 3 + list(lo[3:])
        mhi: List[object] = ["private"] * 3 + list(hi[3:])
        out["warfarin"] = (
            X,
            {"declared": (lo, hi), "private": "private", "mixed": (mlo, mhi)},
        )
    if "cancer" in names:
        from sklearn.datasets import load_breast_cancer

        X = load_breast_cancer().data
        hi = np.array([2 * float(f"{v:.0e}") for v in X.max(0)])
        hi = np.maximum(hi, X.max(0))
        out["cancer"] = (
            X,
            {"declared": (0.0, hi), "private": "private", "mixed": (0.0, "private")},
        )
    if "synthetic" in names:
        X = _synthetic()
        out["synthetic"] = (
            X,
            {"declared": (np.floor(X.min(0)) - 1, np.ceil(X.max(0)) + 1), "private": "private"},
        )
    return out


def errors(sc: StandardScaler, X: np.ndarray) -> Tuple[float, float, float]:
    m, s = X.mean(0), X.std(0)
    em = np.abs(sc.mean_ - m) / s
    es = np.abs(sc.scale_ - s) / s
    ez = np.sqrt(np.mean(((X - m) / s - (X - sc.mean_) / sc.scale_) ** 2, axis=0))
    return float(np.median(em)), float(np.median(es)), float(np.mean(ez))


def run(
    X: np.ndarray,
    bounds: object,
    eps: float,
    reps: int,
    q: float,
    f: Optional[float],
    seed: int = 0,
) -> Tuple[np.ndarray, int]:
    g = Generator(seed)
    out, refused = [], 0
    for _ in range(reps):
        sc = StandardScaler(eps, bounds=bounds, bounds_quantile=q, bounds_fraction=f, rng=g)
        try:
            sc.fit(X)
        except InvalidParameterError:
            refused += 1
            continue
        out.append(errors(sc, X))
    res = np.mean(out, axis=0) if out else np.full(3, np.nan)
    return res, refused


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--data", default="warfarin,cancer,synthetic")
    ap.add_argument("--grid", action="store_true", help="search q x fraction")
    args = ap.parse_args()
    qs: Tuple[float, ...] = (BOUNDS_QUANTILE,)
    fs: Tuple[Optional[float], ...] = (None,)
    if args.grid:
        qs = (0.9, 0.95, 0.98, 0.99)
        fs = (None, 0.1, 0.2, 0.3, 0.5)
    print(
        "| data | eps | bounds | q | fraction | med abs(d mean)/sd | med abs(d scale)/sd "
        "| mean RMS(d z) | refused |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (X, configs) in datasets(args.data.split(",")).items():
        for eps in EPSILONS:
            for mode, bounds in configs.items():
                grid = (
                    [(BOUNDS_QUANTILE, None)] if mode == "declared" else itertools.product(qs, fs)
                )
                for q, f in grid:
                    r, refused = run(X, bounds, eps, args.reps, q, f)
                    qtxt = "-" if mode == "declared" else f"{q:g}"
                    ftxt = "-" if mode == "declared" else ("plan" if f is None else f"{f:g}")
                    print(
                        f"| {name} | {eps:g} | {mode} | {qtxt} | {ftxt} | {r[0]:.4f} | "
                        f"{r[1]:.4f} | {r[2]:.4g} | {refused}/{args.reps} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
