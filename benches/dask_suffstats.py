#!/usr/bin/env python3
"""Private linear regression on a Dask cluster: 10^8 rows x 20 features, never materialised.

The data are generated lazily by ``dask.array.random`` (``X`` standard normal, ``y = X w + 0.5
noise`` with ``||w|| = 1``) in row chunks; a ``dask.distributed.LocalCluster`` with worker
processes computes the exact clipped sufficient statistics blockwise
(``privlearn.learners._suffstats.sufficient_statistics``: one ``dask.compute``, only ``p x p``
integer matrices leave the workers) and the client adds the noise (``AdaSSPRegressor`` when it
exists; otherwise the statistics and a Gaussian noise step on them, reported as such).

Reported (one JSON line and one Markdown row): the fit's wall time (cluster start excluded),
the peak resident memory of every process (the workers through
``client.run(resource.getrusage)``; the client process, which also runs the scheduler and the
nannies of a ``LocalCluster``, through its own ``getrusage``), their sum (an upper bound of the simultaneous total), the cluster-total
worker memory sampled by ``distributed.diagnostics.MemorySampler`` (heartbeats: may miss short
spikes), and for scale, on a 10^6-row slice held in memory: scikit-learn ``Ridge``'s fit time
and privlearn's numpy statistics time. Target (issue 19): peak memory under 2 GB.

    python benches/dask_suffstats.py                     # 10^8 rows (about 1-3 minutes)
    python benches/dask_suffstats.py --rows 1000000      # a quick run
    python benches/dask_suffstats.py --json out.json

Needs ``dask[array]`` and ``distributed`` (the ``dask`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import resource
import sys
import time
from typing import Any, Dict, Optional

import numpy as np

DATA_NORM = 6.0  # sqrt(20) ~ 4.5 is the typical norm of a row: a few rows are clipped
LABEL_BOUND = 3.0  # y ~ N(0, 1.25)
SLICE_ROWS = 10**6


def _peak_rss_bytes() -> int:
    """This process's peak resident set size (``ru_maxrss`` is in KiB on Linux)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _data(rows: int, features: int, chunk_rows: int, seed: int) -> Any:
    import dask.array as da

    rng = da.random.default_rng(seed)
    X = rng.standard_normal((rows, features), chunks=(chunk_rows, features))
    w = np.random.default_rng(seed).standard_normal(features)
    w /= np.linalg.norm(w)
    y = X @ w + 0.5 * rng.standard_normal(rows, chunks=chunk_rows)
    return X, y


def _fit(X: Any, y: Any, epsilon: float, delta: float, seed: int) -> Dict[str, Any]:
    """The private fit on (possibly Dask) data: AdaSSP if available, else statistics + noise."""
    try:
        from privlearn.learners.adassp import AdaSSPRegressor
    except ImportError:
        AdaSSPRegressor = None
    if AdaSSPRegressor is not None:
        est = AdaSSPRegressor(
            epsilon, delta=delta, data_norm=DATA_NORM, label_bound=LABEL_BOUND, rng=seed
        ).fit(X, y)
        return {"method": "AdaSSPRegressor", "coef": np.asarray(est.coef_).tolist()}
    from privlearn.learners._suffstats import sufficient_statistics
    from privlearn.mechanisms import gaussian_noise

    s = sufficient_statistics(X, y, data_norm=DATA_NORM, label_bound=LABEL_BOUND, intercept=None)
    sigma = 2.0 * DATA_NORM**2 * math.sqrt(2 * math.log(1.25 / delta)) / epsilon  # illustrative
    noisy_xtx, _ = gaussian_noise(s.xtx, sigma, math.sqrt(2) * DATA_NORM**2, rng=seed)
    noisy_xty, _ = gaussian_noise(s.xty, sigma, 2 * DATA_NORM * LABEL_BOUND, rng=seed + 1)
    A = np.asarray(noisy_xtx) + sigma * np.eye(len(s.xty))
    coef = np.linalg.solve(A, np.asarray(noisy_xty))
    return {
        "method": "sufficient_statistics + gaussian_noise (no AdaSSP yet)",
        "coef": coef.tolist(),
    }


def run(
    rows: int,
    features: int,
    chunk_rows: int,
    workers: int,
    memory_limit: str,
    epsilon: float,
    delta: float,
    seed: int,
    ridge: bool,
) -> Dict[str, Any]:
    import dask
    import distributed
    from distributed.diagnostics import MemorySampler

    import privlearn

    out: Dict[str, Any] = {
        "rows": rows,
        "features": features,
        "chunk_rows": chunk_rows,
        "workers": workers,
        "memory_limit": memory_limit,
        "epsilon": epsilon,
        "delta": delta,
        "privlearn": privlearn.__version__,
        "dask": dask.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    t0 = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=workers,
            processes=True,
            threads_per_worker=1,
            memory_limit=memory_limit,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(lambda: __import__("privlearn.learners._suffstats"))  # imports, not timed
        out["cluster_start_s"] = round(time.perf_counter() - t0, 2)
        X, y = _data(rows, features, chunk_rows, seed)
        sampler = MemorySampler()
        t = time.perf_counter()
        with sampler.sample("fit", measure="process", interval=0.25):
            fitted = _fit(X, y, epsilon, delta, seed)
        out["fit_s"] = round(time.perf_counter() - t, 2)
        out["method"] = fitted["method"]
        samples = sampler.samples.get("fit", [])
        out["cluster_sampled_peak_MB"] = round(max((b for _, b in samples), default=0) / 1e6, 1)
        workers_peak = client.run(_peak_rss_bytes)
        out["worker_peak_MB"] = [round(v / 1e6, 1) for v in workers_peak.values()]
        out["client_peak_MB"] = round(_peak_rss_bytes() / 1e6, 1)
        total = sum(workers_peak.values()) + _peak_rss_bytes()
        out["sum_of_peaks_MB"] = round(total / 1e6, 1)
        out["target_met"] = total < 2e9
        out["fit_s_per_1e6_rows"] = round(out["fit_s"] * 1e6 / rows, 3)
        if ridge:
            m = min(rows, SLICE_ROWS)
            Xs, ys = dask.compute(X[:m], y[:m])
    if ridge:
        out.update(_slice_times(Xs, ys))
    return out


def _slice_times(Xs: np.ndarray, ys: np.ndarray) -> Dict[str, Any]:
    """scikit-learn Ridge and privlearn's numpy statistics on an in-memory slice (one process)."""
    from sklearn.linear_model import Ridge

    from privlearn.learners._suffstats import sufficient_statistics

    def best(f: Any, reps: int = 3) -> float:
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        return min(times)

    m = int(Xs.shape[0])
    return {
        "slice_rows": m,
        "ridge_slice_s": round(best(lambda: Ridge(alpha=1.0).fit(Xs, ys)), 3),
        "numpy_suffstats_slice_s": round(
            best(
                lambda: sufficient_statistics(
                    Xs, ys, data_norm=DATA_NORM, label_bound=LABEL_BOUND, intercept=DATA_NORM
                )
            ),
            3,
        ),
        "plain_float_xtx_slice_s": round(best(lambda: (Xs.T @ Xs, Xs.T @ ys)), 3),
    }


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rows", type=int, default=10**8, help="number of rows (default 10^8)")
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--chunk-rows", type=int, default=250_000, help="rows per Dask chunk")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GiB", help="per worker (enforced by the nanny)")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=1e-6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-ridge", action="store_true", help="skip the in-memory slice timings")
    ap.add_argument("--json", metavar="PATH", help="also write the result as JSON")
    args = ap.parse_args(argv)
    out = run(
        args.rows,
        args.features,
        args.chunk_rows,
        args.workers,
        args.memory_limit,
        args.epsilon,
        args.delta,
        args.seed,
        not args.no_ridge,
    )
    print(json.dumps(out))
    print()
    print(
        "| rows x features | method | fit (s) | worker peaks (MB) | client peak (MB) "
        "| sum of peaks (MB) | < 2 GB | Ridge on 10^6 rows (s) |"
    )
    print("|---|---|---:|---|---:|---:|---|---:|")
    print(
        f"| {out['rows']:.0e} x {out['features']} | {out['method']} | {out['fit_s']} "
        f"| {out['worker_peak_MB']} | {out['client_peak_MB']} | {out['sum_of_peaks_MB']} "
        f"| {'yes' if out['target_met'] else 'NO'} | {out.get('ridge_slice_s', '-')} |"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
