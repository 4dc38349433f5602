"""Private preprocessing against scikit-learn and diffprivlib (issue 22): fit times of
privlearn's ``StandardScaler`` (declared bounds, Laplace), ``MinMaxScaler`` (private quantiles)
and ``PCA`` (Analyze Gauss, declared centre) on Gaussian float rows of 20 features.

scikit-learn's estimators are not private: the rows against them say what privacy costs in
time (target: privlearn at most 2 times scikit-learn's time for the scaler, ``>= 0.5x``).
diffprivlib's ``StandardScaler`` and ``PCA`` are private peers, imported lazily (it needs
scikit-learn < 1.8; the rows say how to install it when it is missing). diffprivlib has no
``MinMaxScaler``. All fits use the same data, bounds (``[-4, 4]`` per feature) and norm bound
(``data_norm = 8 sqrt(20)``, larger than every row's norm here), ``epsilon = 1`` (and ``delta =
1e-6`` for privlearn's PCA, whose Gaussian mechanism needs it; diffprivlib's PCA is pure DP).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, List, Optional

import numpy as np
from sklearn.decomposition import PCA as SkPCA
from sklearn.preprocessing import MinMaxScaler as SkMinMaxScaler
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from privlearn.preprocessing import PCA, MinMaxScaler, StandardScaler
from privlearn.random import Generator

from .common import Row, best_time

D = 20
LO, HI = -4.0, 4.0
NORM = 8.0 * math.sqrt(D)
INSTALL = "pip install diffprivlib (needs scikit-learn < 1.8)"


def _diffprivlib() -> Optional[Any]:
    try:
        import diffprivlib.models as dpm
    except ImportError:
        return None
    return dpm


def _quiet(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` with warnings silenced (diffprivlib warns about its own defaults)."""

    def run() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()

    return run


def _peer_rows(
    name: str, t_pl: float, sk_name: str, t_sk: float, sk_target: str, dp_time: Any
) -> List[Row]:
    out = [Row(name, t_pl, sk_name, t_sk, sk_target, note="not private")]
    dpm = _diffprivlib()
    dp_name = f"diffprivlib.models.{sk_name.rsplit('.', 1)[-1]}"
    if dpm is None:
        out.append(Row(name, t_pl, dp_name, None, "reported", note=INSTALL))
    else:
        out.append(Row(name, t_pl, dp_name, dp_time(dpm), "reported"))
    return out


def rows(quick: bool) -> List[Row]:
    reps = 3 if quick else 5
    gen = Generator(1)
    out: List[Row] = []
    bounds_dp = (np.full(D, LO), np.full(D, HI))

    for n in (100_000, 1_000_000):
        X = np.random.default_rng(0).normal(size=(n, D))
        r = reps if n <= 100_000 else max(2, reps - 2)
        t_pl = best_time(lambda X=X: StandardScaler(1.0, bounds=(LO, HI), rng=gen).fit(X), r)
        t_sk = best_time(lambda X=X: SkStandardScaler().fit(X), r)
        out += _peer_rows(
            f"StandardScaler fit, {n:,} x {D} (declared bounds, Laplace)",
            t_pl,
            "sklearn.preprocessing.StandardScaler",
            t_sk,
            ">= 0.5x",
            lambda dpm, X=X, r=r: best_time(
                _quiet(lambda: dpm.StandardScaler(epsilon=1.0, bounds=bounds_dp).fit(X)), r
            ),
        )

    n = 100_000
    X = np.random.default_rng(0).normal(size=(n, D))
    t_pl = best_time(lambda: MinMaxScaler(1.0, bounds=(LO, HI), rng=gen).fit(X), reps)
    t_sk = best_time(lambda: SkMinMaxScaler().fit(X), reps)
    out.append(
        Row(
            f"MinMaxScaler fit, {n:,} x {D} (declared bounds, private quantiles)",
            t_pl,
            "sklearn.preprocessing.MinMaxScaler",
            t_sk,
            "reported",
            note="not private; diffprivlib has no MinMaxScaler",
        )
    )

    t_pl = best_time(
        lambda: PCA(1.0, n_components=3, data_norm=NORM, delta=1e-6, rng=gen).fit(X), reps
    )
    t_sk = best_time(lambda: SkPCA(n_components=3).fit(X), reps)
    out += _peer_rows(
        f"PCA fit, {n:,} x {D}, 3 components (declared centre 0, Gaussian)",
        t_pl,
        "sklearn.decomposition.PCA",
        t_sk,
        "reported",
        lambda dpm: best_time(
            _quiet(
                lambda: dpm.PCA(n_components=3, epsilon=1.0, data_norm=NORM, centered=True).fit(X)
            ),
            reps,
        ),
    )
    return out
