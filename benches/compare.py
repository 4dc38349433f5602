#!/usr/bin/env python3
"""privlearn against its peers, measured in the same run (DESIGN principle 9).

Prints a Markdown table of times and ratios (peer time / privlearn time) with the target each
ratio must meet. Run it on a release build (``pip install .`` or ``maturin develop --release``);
peers are benchmark-only dependencies: ``pip install scipy opendp`` (the ``bench`` extra).

    python benches/compare.py            # full sizes
    python benches/compare.py --quick    # smaller repetition counts
    python benches/compare.py --json out.json

Each timing is the minimum over repetitions (the least disturbed run) of wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import timeit
from dataclasses import asdict, dataclass
from typing import Callable, List, Optional

import numpy as np

import privlearn
from privlearn import _core
from privlearn.mechanisms import exponential, log_sum_exp
from privlearn.random import Generator


@dataclass
class Row:
    benchmark: str
    privlearn_s: float
    peer: str
    peer_s: Optional[float]
    target: str
    ratio: Optional[float] = None
    passed: Optional[bool] = None
    note: str = ""


def best_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_call(fn: Callable[[], object], number: int, repeats: int = 5) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number


def numpy_em(x: np.ndarray, a: float, buf: np.ndarray, rng: np.random.Generator) -> int:
    """The best numpy composition of the float exponential mechanism: max, exp, cumsum,
    searchsorted, all in place in a preallocated buffer."""
    m = x.max()
    np.subtract(x, m, out=buf)
    buf *= a
    np.exp(buf, out=buf)
    np.cumsum(buf, out=buf)
    return int(np.searchsorted(buf, rng.random() * buf[-1], side="right"))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    reps = 3 if args.quick else 7

    if _core.build_profile != "release":
        print("warning: privlearn is a debug build; install it in release mode to benchmark", file=sys.stderr)

    rows: List[Row] = []
    gen = Generator(1)
    nprng = np.random.default_rng(0)

    # 1. Fast path, 10^7 float64 scores.
    x = nprng.random(10_000_000) * 10.0
    buf = np.empty_like(x)
    t_fast = best_time(lambda: exponential(x, 1.0, rng=gen, numerics="fast"), reps)
    t_np = best_time(lambda: numpy_em(x, 0.5, buf, nprng), reps)
    rows.append(Row("exponential, fast path, 1e7 float64", t_fast, "numpy max/exp/cumsum/searchsorted", t_np, ">= 4x"))
    try:
        from scipy.special import logsumexp

        t_scipy = best_time(lambda: logsumexp(x), reps)
        rows.append(Row("exponential, fast path, 1e7 float64", t_fast, "scipy.special.logsumexp alone", t_scipy, ">= 10x"))
        t_lse = best_time(lambda: log_sum_exp(x), reps)
        rows.append(Row("log_sum_exp, 1e7 float64", t_lse, "scipy.special.logsumexp", t_scipy, "(none)"))
    except ImportError:
        rows.append(Row("exponential, fast path, 1e7 float64", t_fast, "scipy (not installed)", None, ">= 10x", note="pip install scipy"))
    t_exact_f = best_time(lambda: exponential(x, 1.0, rng=gen), reps)
    rows.append(Row("exponential, exact path, 1e7 float64", t_exact_f, "numpy float composition (not exact)", t_np, "(none)"))

    # 2. Exact path, 10^6 integer utilities, against OpenDP's exact noisy max.
    u = -nprng.integers(0, 1000, 1_000_000)
    t_exact = best_time(lambda: exponential(u, 1.0, rng=gen), reps)
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        u_list = [int(v) for v in u]
        domain = dp.vector_domain(dp.atom_domain(T=int))
        metric = dp.linf_distance(T=int, monotonic=False)
        # Gumbel noise under zCDP: the same output law as the exponential mechanism.
        em = dp.m.make_noisy_max(domain, metric, dp.zero_concentrated_divergence(), scale=2.0)
        t_odp = best_time(lambda: em(u_list), 1 if args.quick else 2)
        rows.append(Row("exponential, exact path, 1e6 int utilities", t_exact, "OpenDP make_noisy_max (exact, Gumbel)", t_odp, ">= 100x"))
        rnm = dp.m.make_noisy_max(domain, metric, dp.max_divergence(), scale=2.0)
        t_rnm = best_time(lambda: rnm(u_list), 1 if args.quick else 2)
        rows.append(Row("exponential, exact path, 1e6 int utilities", t_exact, "OpenDP make_noisy_max (exact, exponential noise)", t_rnm, "(reference)"))
        small_list = [int(v) for v in u[:10]]
        t_odp_small = per_call(lambda: em(small_list), number=200)
    except ImportError:
        rows.append(Row("exponential, exact path, 1e6 int utilities", t_exact, "OpenDP (not installed)", None, ">= 100x", note="pip install opendp"))
        t_odp_small = None

    # 3. Call overhead from Python with 10 scores.
    s10 = np.arange(10.0)
    t_call = per_call(lambda: exponential(s10, 1.0, rng=gen), number=20_000)
    t_call_none = per_call(lambda: exponential(s10, 1.0), number=20_000)
    rows.append(Row("exponential, exact, 10 scores, per call (shared Generator)", t_call, "OpenDP make_noisy_max, 10 scores", t_odp_small, "<= 5 us"))
    rows.append(Row("exponential, exact, 10 scores, per call (rng=None: OS entropy)", t_call_none, "-", None, "<= 5 us"))

    for r in rows:
        if r.peer_s is not None:
            r.ratio = r.peer_s / r.privlearn_s
        if r.target.startswith(">="):
            need = float(r.target.split()[1].rstrip("x"))
            r.passed = None if r.ratio is None else r.ratio >= need
        elif r.target.startswith("<="):
            r.passed = r.privlearn_s <= 5e-6

    def fmt_t(t: Optional[float]) -> str:
        if t is None:
            return "-"
        return f"{t * 1e6:.2f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"

    print(f"privlearn {privlearn.__version__} ({_core.build_profile} build), numpy {np.__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}")
    print()
    print("| benchmark | privlearn | peer | peer time | ratio (peer/privlearn) | target | met |")
    print("|---|---:|---|---:|---:|---|---|")
    for r in rows:
        ratio = "-" if r.ratio is None else f"{r.ratio:.1f}x"
        met = {True: "yes", False: "NO", None: "-"}[r.passed]
        print(f"| {r.benchmark} | {fmt_t(r.privlearn_s)} | {r.peer} | {fmt_t(r.peer_s)} | {ratio} | {r.target} | {met} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
