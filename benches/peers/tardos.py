"""Fingerprinting codes against numpy (fingerprinting-codes issue): generation and tracing of a
Tardos code with n = 10^5 users and m = 10^4 positions.

* Generation: privlearn draws the biases and the 10^9 codeword bits exactly from ChaCha20,
  bit-packed; numpy's best formulation is ``rng.random(..., dtype=float32) < p`` (or a uint32
  comparison) in row blocks into a boolean matrix (8x the memory of the packed code).
* Tracing: every user's score for one pirate word. numpy: the 0/1 matrix times the score vector
  (``uint8`` matrix with a float32 or float64 vector, whole or in row blocks), and, for
  reference, a pre-expanded float32 matrix with BLAS ``sgemv`` (32x the memory of the packed
  code). The ratio's peer is the fastest of them. The absolute time per user-position is also
  measured on one thread (``RAYON_NUM_THREADS=1``, in a subprocess).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Callable, Dict, List

import numpy as np

from privlearn.attacks import TardosCode, pirate
from privlearn.random import Generator

from .common import Row, best_time

N_USERS = 100_000
LENGTH = 10_000
COALITION = 10
BLOCK = 4_096


def _numpy_generate_f32(rng: np.random.Generator, p: np.ndarray, out: np.ndarray) -> None:
    p32 = p.astype(np.float32)
    for s in range(0, out.shape[0], BLOCK):
        blk = out[s : s + BLOCK]
        np.less(rng.random(blk.shape, dtype=np.float32), p32, out=blk)


def _numpy_generate_u32(rng: np.random.Generator, p: np.ndarray, out: np.ndarray) -> None:
    thr = np.minimum(p * 2.0**32, 2.0**32 - 1).astype(np.uint32)
    for s in range(0, out.shape[0], BLOCK):
        blk = out[s : s + BLOCK]
        np.less(rng.integers(0, 2**32, size=blk.shape, dtype=np.uint32), thr, out=blk)


def _numpy_scores_blocked(x: np.ndarray, w: np.ndarray, const: float) -> np.ndarray:
    out = np.empty(x.shape[0], dtype=w.dtype)
    for s in range(0, x.shape[0], BLOCK):
        np.matmul(x[s : s + BLOCK], w, out=out[s : s + BLOCK])
    return out + const


_ONE_THREAD = r"""
import time, numpy as np
from privlearn.attacks import TardosCode, pirate
code = TardosCode({n}, {c}, 1e-3, length={m}, rng=1)
word = pirate(code, list(range({c})), "majority", rng=2)
code.scores(word)
best = min((lambda t0: (code.scores(word), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range({reps}))
print(best)
"""


def _one_thread_scores(reps: int) -> float:
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    src = _ONE_THREAD.format(n=N_USERS, c=COALITION, m=LENGTH, reps=reps)
    out = subprocess.run(
        [sys.executable, "-c", src], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def rows(quick: bool) -> List[Row]:
    reps = 3 if quick else 5
    out: List[Row] = []
    gen = Generator(1)
    nprng = np.random.default_rng(0)
    size = "n = 1e5 users x m = 1e4 positions"

    # Generation --------------------------------------------------------------------------
    t_gen = best_time(lambda: TardosCode(N_USERS, COALITION, 1e-3, length=LENGTH, rng=gen), reps)
    code = TardosCode(N_USERS, COALITION, 1e-3, length=LENGTH, rng=gen)
    p = code.biases
    bits = np.empty((N_USERS, LENGTH), dtype=bool)
    peers: Dict[str, Callable[[], object]] = {
        "numpy rng.random(float32) < p, row blocks": lambda: _numpy_generate_f32(nprng, p, bits),
        "numpy rng.integers(uint32) < p * 2^32, row blocks": lambda: _numpy_generate_u32(
            nprng, p, bits
        ),
    }
    times = {name: best_time(fn, 1 if quick else 2) for name, fn in peers.items()}
    best = min(times, key=times.__getitem__)
    out.append(
        Row(
            f"Tardos generation, {size} (packed, exact, ChaCha20)",
            t_gen,
            best,
            times[best],
            ">= 5x",
        )
    )
    for name, t in times.items():
        if name != best:
            out.append(Row(f"Tardos generation, {size}", t_gen, name, t, "reported"))
    bits = None  # free the matrix before the tracing benchmarks

    # Tracing ------------------------------------------------------------------------------
    word = pirate(code, list(range(COALITION)), "majority", rng=gen)
    t_scores = best_time(lambda: code.scores(word), reps)
    t_trace = best_time(lambda: code.trace(word), reps)
    x8 = code.codewords.view(np.uint8)
    y = word.astype(np.float64)
    sigma = np.sqrt(p * (1 - p))
    w64 = (2 * y - 1) / sigma
    const = float(-np.sum((2 * y - 1) * p / sigma))
    w32 = w64.astype(np.float32)
    peers = {
        "numpy uint8 matrix @ float32 vector": lambda: x8 @ w32 + const,
        "numpy uint8 matrix @ float64 vector": lambda: x8 @ w64 + const,
        "numpy uint8 matrix @ float32 vector, row blocks": lambda: _numpy_scores_blocked(
            x8, w32, const
        ),
    }
    times = {name: best_time(fn, 1 if quick else 2) for name, fn in peers.items()}
    x32 = x8.astype(np.float32)
    times["numpy float32 matrix (pre-expanded, 32x memory) @ float32 vector (sgemv)"] = best_time(
        lambda: x32 @ w32 + const, 2 if quick else 3
    )
    x32 = None
    best = min(times, key=times.__getitem__)
    out.append(Row(f"Tardos tracing (all scores), {size}", t_scores, best, times[best], ">= 5x"))
    for name, t in times.items():
        if name != best:
            out.append(Row(f"Tardos tracing (all scores), {size}", t_scores, name, t, "reported"))
    out.append(Row(f"Tardos trace (scores + accusation), {size}", t_trace, "-", None, "reported"))
    t_one = _one_thread_scores(reps)
    per_entry = t_one / (N_USERS * LENGTH)
    out.append(
        Row(
            f"Tardos tracing, one thread (RAYON_NUM_THREADS=1), {size}",
            t_one,
            "-",
            None,
            "<= 300 ms",
            note=f"{per_entry * 1e9:.3f} ns per user-position; target 0.3 ns",
        )
    )
    return out
