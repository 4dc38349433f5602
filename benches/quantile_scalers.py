#!/usr/bin/env python3
"""Private MinMaxScaler / RobustScaler (issue 22) against scikit-learn's: error of the fitted
statistics and the time of one fit.

Data: the warfarin features (``privlearn.datasets.load_warfarin().X``, 4819 x 14: age, height
and weight z-scored, declared bounds ``[-5, 8]``; eleven 0/1 columns, bounds ``[0, 1]``) and
synthetic sets of ``n = 5000`` rows and 5 features (normal with bounds ``+-6`` and the loose
``+-20``, uniform on the bounds ``[0, 1]``, log-normal with bounds ``[0, 50]``). For every
setting, ``--reps`` seeded fits (seeded: reproducible, not private).

Reported:

* MinMaxScaler: the mean over features and fits of ``(|data_min_ - min| + |data_max_ - max|) /
  2``, divided by the true range ``max - min`` (scikit-learn's ``data_min_`` / ``data_max_``),
  for several ``quantile_range`` values (the default's choice);
* RobustScaler (default levels 25 / 50 / 75): ``|center_ - sklearn center_| / sklearn scale_``
  and ``|scale_ / sklearn scale_ - 1|``;
* the time of one fit on warfarin, privlearn and scikit-learn, and the ratio.

    python benches/quantile_scalers.py             # 20 fits per setting (about 20 s)
    python benches/quantile_scalers.py --reps 5
"""

from __future__ import annotations

import argparse
import time
from typing import Dict, Tuple

import numpy as np
from sklearn import preprocessing as skp

from privlearn.datasets import load_warfarin
from privlearn.preprocessing import MinMaxScaler, RobustScaler

RANGES = ((0.0, 100.0), (0.1, 99.9), (1.0, 99.0), (5.0, 95.0))
EPSILONS = (0.1, 1.0)


def datasets() -> Dict[str, Tuple[np.ndarray, object, object]]:
    X = load_warfarin().X
    d = X.shape[1]
    lo = np.array([-5.0] * 3 + [0.0] * (d - 3))
    hi = np.array([8.0] * 3 + [1.0] * (d - 3))
    g = np.random.default_rng(0)
    n = 5000
    return {
        "warfarin, 3 continuous": (X[:, :3], lo[:3], hi[:3]),
        "warfarin, all 14": (X, lo, hi),
        "normal, bounds +-6": (g.normal(0, 1, (n, 5)), -6.0, 6.0),
        "normal, bounds +-20": (g.normal(0, 1, (n, 5)), -20.0, 20.0),
        "uniform, bounds [0, 1]": (g.uniform(0, 1, (n, 5)), 0.0, 1.0),
        "log-normal, bounds [0, 50]": (g.lognormal(0, 1, (n, 5)), 0.0, 50.0),
    }


def minmax_error(X, lo, hi, eps, qr, reps):
    sk = skp.MinMaxScaler().fit(X)
    width = sk.data_max_ - sk.data_min_
    errs = []
    for r in range(reps):
        p = MinMaxScaler(eps, bounds=(lo, hi), quantile_range=qr, rng=1000 + r).fit(X)
        e = (np.abs(p.data_min_ - sk.data_min_) + np.abs(p.data_max_ - sk.data_max_)) / 2
        errs.append(np.mean(e / width))
    return float(np.mean(errs))


def robust_error(X, lo, hi, eps, reps):
    sk = skp.RobustScaler().fit(X)
    ce, se = [], []
    for r in range(reps):
        p = RobustScaler(eps, bounds=(lo, hi), rng=2000 + r).fit(X)
        ce.append(np.mean(np.abs(p.center_ - sk.center_) / sk.scale_))
        se.append(np.mean(np.abs(p.scale_ / sk.scale_ - 1)))
    return float(np.mean(ce)), float(np.mean(se))


def fit_time(est, X, k=50):
    est.fit(X)
    t0 = time.perf_counter()
    for _ in range(k):
        est.fit(X)
    return (time.perf_counter() - t0) / k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    data = datasets()
    print(f"MinMaxScaler: relative error of data_min_ / data_max_ ({args.reps} fits)\n")
    head = " | ".join(f"{a:g}-{b:g}" for a, b in RANGES)
    print(f"| data | epsilon | {head} |")
    print("|---|---|" + "---|" * len(RANGES))
    for name, (X, lo, hi) in data.items():
        for eps in EPSILONS:
            cells = " | ".join(
                f"{minmax_error(X, lo, hi, eps, qr, args.reps):.3f}" for qr in RANGES
            )
            print(f"| {name} | {eps:g} | {cells} |")
    print("\nRobustScaler: error of center_ (in sklearn scale_ units) and scale_ (relative)\n")
    print("| data | epsilon | center_ | scale_ |")
    print("|---|---|---|---|")
    for name, (X, lo, hi) in data.items():
        if name == "warfarin, all 14":
            continue  # the 0/1 columns have an interquartile range of 0 (scale_ 1)
        for eps in EPSILONS:
            c, s = robust_error(X, lo, hi, eps, args.reps)
            print(f"| {name} | {eps:g} | {c:.3f} | {s:.3f} |")
    X, lo, hi = data["warfarin, all 14"]
    print("\nOne fit on warfarin (4819 x 14), epsilon = 1, grid_size = 1000:\n")
    for cls, sk_cls in ((MinMaxScaler, skp.MinMaxScaler), (RobustScaler, skp.RobustScaler)):
        tp = fit_time(cls(1.0, bounds=(lo, hi), rng=0), X)
        ts = fit_time(sk_cls(), X)
        print(
            f"{cls.__name__}: privlearn {tp * 1e3:.2f} ms, scikit-learn {ts * 1e3:.2f} ms, "
            f"ratio {tp / ts:.1f}"
        )


if __name__ == "__main__":
    main()
