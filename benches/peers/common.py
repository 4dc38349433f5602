"""Shared helpers of the benchmark sections."""

from __future__ import annotations

import time
import timeit
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass
class Row:
    """One comparison: privlearn's time, the peer's time, and the target the ratio must meet.

    ``target`` is ``">= Nx"`` (peer time / privlearn time must reach N), ``"<= T us"`` (absolute
    time), or free text (reported, not checked). ``unit`` is ``"s"`` for times; a row comparing
    a loss instead (lower is better, e.g. ``"MSE"``) names it, and the ratio is then peer loss /
    privlearn loss.
    """

    benchmark: str
    privlearn_s: float
    peer: str
    peer_s: Optional[float]
    target: str
    note: str = ""
    ratio: Optional[float] = None
    passed: Optional[bool] = None
    unit: str = "s"

    def evaluate(self) -> "Row":
        if self.peer_s is not None:
            self.ratio = self.peer_s / self.privlearn_s
        t = self.target.split()
        if len(t) == 2 and t[0] == ">=" and t[1].endswith("x"):
            self.passed = None if self.ratio is None else self.ratio >= float(t[1][:-1])
        elif len(t) == 3 and t[0] == "<=":
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[t[2]]
            self.passed = self.privlearn_s <= float(t[1]) * scale
        return self


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """Minimum wall-clock time of ``fn()`` over ``repeats`` runs, after one warm-up run."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_call(fn: Callable[[], object], number: int, repeats: int = 5) -> float:
    """Seconds per call of a fast ``fn``, the minimum over ``repeats`` batches of ``number``."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number
