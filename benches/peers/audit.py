"""The auditor at 10^6 samples per side (issue 21: under 10 s for a scalar mechanism).

Each row times one whole :func:`privlearn.audit.audit` call on the Laplace (pure claims) or
Gaussian (approximate and Gaussian-DP claims) mechanism on the neighbouring values 0 and 1:
drawing 10^6 outputs per side through the vectorised form, choosing events on the selection
split and bounding them on the held-out samples. No auditing library is on PyPI to compare with
(DP-Auditorium lives in google/differential-privacy's source tree only; TensorFlow Privacy's
``EpsilonLowerBound`` needs TensorFlow), so the "peer" column is numpy drawing the same 2 x 10^6
samples alone: the ratio says how small a share of the audit the drawing is, and the target is the
issue's absolute one.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

from privlearn.audit import GaussianDP, audit

from .common import Row, best_time

_N = 1_000_000


def _laplace(center: float) -> Callable[..., np.ndarray]:
    return lambda g, size: center + g.laplace(0.0, 1.0, size=size)


def _gaussian(center: float) -> Callable[..., np.ndarray]:
    return lambda g, size: center + g.normal(0.0, 1.0, size=size)


def _draw_only(sampler: Callable[[float], Callable[..., np.ndarray]]) -> None:
    g = np.random.default_rng(0)
    sampler(0.0)(g, size=_N)
    sampler(1.0)(g, size=_N)


def rows(quick: bool) -> List[Row]:
    reps = 1 if quick else 3
    cases: List[Dict[str, Any]] = [
        dict(what="epsilon audit, Laplace, claim 1", mech=_laplace, claim=1.0, kw={}),
        dict(
            what="hockey-stick (delta) audit, Gaussian, claim (1, 0.13)",
            mech=_gaussian,
            claim=(1.0, 0.13),
            kw={},
        ),
        dict(
            what="trade-off audit, Gaussian, claim 1-GDP",
            mech=_gaussian,
            claim=GaussianDP(1.0),
            kw={},
        ),
        dict(
            what="epsilon audit through a logistic distinguisher, Laplace, claim 1",
            mech=_laplace,
            claim=1.0,
            kw={"distinguisher": "logistic"},
        ),
    ]
    out: List[Row] = []
    for case in cases:
        mech = case["mech"]

        def run(mech: Any = mech, case: Dict[str, Any] = case) -> None:
            audit(mech(0.0), mech(1.0), case["claim"], n=_N, rng=0, **case["kw"])

        t = best_time(run, reps)
        t_draw = best_time(lambda mech=mech: _draw_only(mech), reps)
        res = audit(mech(0.0), mech(1.0), case["claim"], n=_N, rng=0, **case["kw"])
        out.append(
            Row(
                f"audit at 10^6 samples per side: {case['what']}",
                t,
                "numpy drawing the 2 x 10^6 samples alone",
                t_draw,
                "<= 10 s",
                note=f"{res.quantity} >= {res.bound:.4g}, passed={res.passed}",
            )
        )
    return out
