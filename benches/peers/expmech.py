"""The exponential mechanism and log-sum-exp against numpy, scipy and OpenDP (foundation
issue): fast path on 10^7 float64 scores, exact path on 10^6 integer utilities, and the call
overhead with 10 scores."""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn.mechanisms import exponential, log_sum_exp
from privlearn.random import Generator

from .common import Row, best_time, per_call


def _numpy_em(x: np.ndarray, a: float, buf: np.ndarray, rng: np.random.Generator) -> int:
    """The best numpy composition of the float exponential mechanism: max, exp, cumsum and
    searchsorted, all in place in a preallocated buffer."""
    m = x.max()
    np.subtract(x, m, out=buf)
    buf *= a
    np.exp(buf, out=buf)
    np.cumsum(buf, out=buf)
    return int(np.searchsorted(buf, rng.random() * buf[-1], side="right"))


def rows(quick: bool) -> List[Row]:
    reps = 3 if quick else 7
    out: List[Row] = []
    gen = Generator(1)
    nprng = np.random.default_rng(0)

    x = nprng.random(10_000_000) * 10.0
    buf = np.empty_like(x)
    t_fast = best_time(lambda: exponential(x, 1.0, rng=gen, numerics="fast"), reps)
    t_np = best_time(lambda: _numpy_em(x, 0.5, buf, nprng), reps)
    name = "exponential, fast path, 1e7 float64"
    out.append(Row(name, t_fast, "numpy max/exp/cumsum/searchsorted", t_np, ">= 4x"))
    try:
        from scipy.special import logsumexp

        t_scipy = best_time(lambda: logsumexp(x), reps)
        out.append(Row(name, t_fast, "scipy.special.logsumexp alone", t_scipy, ">= 10x"))
        t_lse = best_time(lambda: log_sum_exp(x), reps)
        out.append(
            Row("log_sum_exp, 1e7 float64", t_lse, "scipy.special.logsumexp", t_scipy, "reported")
        )
    except ImportError:
        out.append(Row(name, t_fast, "scipy", None, ">= 10x", note="pip install scipy"))
    t_exact_f = best_time(lambda: exponential(x, 1.0, rng=gen), reps)
    out.append(
        Row(
            "exponential, exact path, 1e7 float64",
            t_exact_f,
            "numpy float composition (not exact)",
            t_np,
            "reported",
        )
    )

    u = -nprng.integers(0, 1000, 1_000_000)
    t_exact = best_time(lambda: exponential(u, 1.0, rng=gen), reps)
    name = "exponential, exact path, 1e6 int utilities"
    t_odp_small = None
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        u_list = [int(v) for v in u]
        domain = dp.vector_domain(dp.atom_domain(T=int))
        metric = dp.linf_distance(T=int, monotonic=False)
        # Gumbel noise under zCDP: the same output law as the exponential mechanism.
        em = dp.m.make_noisy_max(domain, metric, dp.zero_concentrated_divergence(), scale=2.0)
        t_odp = best_time(lambda: em(u_list), 1 if quick else 2)
        out.append(Row(name, t_exact, "OpenDP make_noisy_max (exact, Gumbel)", t_odp, ">= 100x"))
        rnm = dp.m.make_noisy_max(domain, metric, dp.max_divergence(), scale=2.0)
        t_rnm = best_time(lambda: rnm(u_list), 1 if quick else 2)
        out.append(
            Row(
                name, t_exact, "OpenDP make_noisy_max (exact, exponential noise)", t_rnm, "reported"
            )
        )
        small = [int(v) for v in u[:10]]
        t_odp_small = per_call(lambda: em(small), number=200)
    except ImportError:
        out.append(Row(name, t_exact, "OpenDP", None, ">= 100x", note="pip install opendp"))

    s10 = np.arange(10.0)
    t_call = per_call(lambda: exponential(s10, 1.0, rng=gen), number=20_000)
    t_call_none = per_call(lambda: exponential(s10, 1.0), number=20_000)
    out.append(
        Row(
            "exponential, exact, 10 scores, per call (shared Generator)",
            t_call,
            "OpenDP make_noisy_max, 10 scores",
            t_odp_small,
            "<= 5 us",
        )
    )
    out.append(
        Row("exponential, exact, 10 scores, per call (rng=None)", t_call_none, "-", None, "<= 5 us")
    )
    return out
