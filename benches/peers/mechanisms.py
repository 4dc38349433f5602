"""Noise mechanisms against OpenDP and numpy (mechanisms issue): exact discrete Laplace batched,
the scalar Laplace call overhead, l2-Laplace vector noise, and the floating-point
(``numerics="fast"``) Gaussian and Laplace mechanisms, whose samplers are ``rand_distr``'s
(issue 20: ziggurat normal and exponential, Marsaglia-Tsang Gamma).

Issue 20 measured the switch to ``rand_distr`` with ``python benches/compare.py mechanisms
expmech`` on a full release build (``maturin build --release`` into a separate target directory,
the wheel's contents first on ``PYTHONPATH``), before and after; the tables are in
``benches/results/issue20-rand-distr.md``."""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn import mechanisms as M
from privlearn.random import Generator

from .common import Row, best_time, per_call


def _numpy_l2_laplace(rng: np.random.Generator, n: int, dim: int, scale: float) -> np.ndarray:
    """The same math in numpy: Gamma radius, normalised Gaussian direction."""
    g = rng.standard_normal((n, dim))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    g *= rng.gamma(dim, scale, size=(n, 1))
    return g


def rows(quick: bool) -> List[Row]:
    reps = 3 if quick else 5
    out: List[Row] = []
    gen = Generator(1)

    zeros = np.zeros(1_000_000, dtype=np.int64)
    t_dlap = best_time(lambda: M.discrete_laplace(zeros, 1.0, rng=gen), reps)
    name = "discrete Laplace, exact, 1e6 samples batched (scale 1)"
    t_call = per_call(lambda: M.laplace(1.0, 1.0, 1.0, rng=gen), number=20_000)
    t_call_none = per_call(lambda: M.laplace(1.0, 1.0, 1.0), number=20_000)
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        meas = dp.m.make_laplace(
            dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1.0
        )
        small = [0] * 100_000
        t_odp = best_time(lambda: meas(small), 1 if quick else 2) * 10  # per 1e6 samples
        out.append(
            Row(
                name,
                t_dlap,
                "OpenDP make_laplace on ints (exact), rate scaled to 1e6",
                t_odp,
                ">= 100x",
            )
        )
        scalar = dp.m.make_laplace(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0
        )
        t_odp_call = per_call(lambda: scalar(1.0), number=200)
    except ImportError:
        out.append(Row(name, t_dlap, "OpenDP", None, ">= 100x", note="pip install opendp"))
        t_odp_call = None
    out.append(
        Row(
            "laplace, exact, one scalar call (shared Generator)",
            t_call,
            "OpenDP make_laplace, scalar float call",
            t_odp_call,
            "<= 5 us",
        )
    )
    out.append(Row("laplace, exact, one scalar call (rng=None)", t_call_none, "-", None, "<= 5 us"))

    nprng = np.random.default_rng(0)
    values = np.zeros(1_000_000)
    t_gf = best_time(lambda: M.gaussian(values, 1.0, 1.0, 1e-6, rng=gen, numerics="fast"), reps)
    sigma = M.gaussian_sigma(1.0, 1.0, 1e-6, numerics="fast")
    t_gnp = best_time(lambda: values + sigma * nprng.standard_normal(values.size), reps)
    out.append(
        Row(
            "gaussian, fast path, 1e6 values",
            t_gf,
            "numpy values + sigma * standard_normal",
            t_gnp,
            "reported",
        )
    )
    t_lf = best_time(lambda: M.laplace(values, 1.0, 1.0, rng=gen, numerics="fast"), reps)
    t_lnp = best_time(lambda: values + nprng.laplace(0.0, 1.0, values.size), reps)
    out.append(
        Row("laplace, fast path, 1e6 values", t_lf, "numpy values + laplace", t_lnp, "reported")
    )

    t_l2 = best_time(lambda: M.l2_laplace_noise(100, 1.0, size=100_000, rng=gen), reps)
    t_np = best_time(lambda: _numpy_l2_laplace(nprng, 100_000, 100, 1.0), reps)
    out.append(
        Row(
            "l2_laplace_noise, 1e5 vectors of dim 100",
            t_l2,
            "numpy (gamma, standard_normal, norm)",
            t_np,
            ">= 0.5x",
            note="target: within 2x of numpy",
        )
    )
    return out
