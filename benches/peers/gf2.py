"""GF(2) linear algebra against M4RI and galois (issue 5).

* Reduced row echelon form of random dense n x n matrices, n = 4096, 8192, 16384, against
  M4RI's ``mzd_echelonize(A, full=1)``. M4RI (GPL) is not a Python package: a tiny C harness
  of ours (``benches/m4ri/m4ri_echelon.c``) is compiled at benchmark time against the system's
  ``libm4ri`` (Debian's ``libm4ri-dev``; when it is missing and this runs as root with
  ``apt-get``, it is installed, else the rows say how to get it). Nothing of M4RI is linked
  into privlearn. Both sides reduce the *same* matrix (the words of a splitmix64 stream, built
  identically in C and here) and the ranks are compared. Debian builds M4RI without OpenMP, so
  the comparison row runs privlearn on one thread too (``RAYON_NUM_THREADS=1`` in a child
  process); a second row reports privlearn on all cores.
* The same at n = 2048 against galois's ``row_reduce`` (one run: galois takes seconds).
* The product of two 4096 x 4096 matrices against M4RI's ``mzd_mul`` (reported).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

from .common import Row

HARNESS = Path(__file__).resolve().parent.parent / "m4ri" / "m4ri_echelon.c"
M4RI_HEADER = Path("/usr/include/m4ri/m4ri.h")
M4RI_CONFIG = Path("/usr/include/m4ri/m4ri_config.h")
SEED = 1
TARGET_M4RI = ">= 0.67x"  # privlearn at most 1.5x M4RI's time

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


def splitmix_words(count: int, seed: int) -> np.ndarray:
    """The first ``count`` outputs of splitmix64 started at ``seed`` (as in the C harness)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + _GAMMA * np.arange(1, count + 1, dtype=np.uint64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def splitmix_matrix_words(n: int, seed: int, offset: int = 0) -> np.ndarray:
    """Packed rows of the harness's ``n x n`` matrix (draw ``offset`` on, last word masked)."""
    wpr = (n + 63) // 64
    words = splitmix_words(offset + n * wpr, seed)[offset:].reshape(n, wpr).copy()
    if n % 64:
        words[:, -1] &= np.uint64((1 << (n % 64)) - 1)
    return words


# Timing code run in a child process (so that the thread count can be set before the Rust
# thread pool starts). Prints {"best": seconds, "rank": r}.
_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from peers.gf2 import splitmix_matrix_words
from privlearn.gf2 import GF2Matrix, rref
n, reps, seed, op = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
a = GF2Matrix.from_packed(splitmix_matrix_words(n, seed), n)
if op == "mul":
    b = GF2Matrix.from_packed(splitmix_matrix_words(n, seed, offset=n * ((n + 63) // 64)), n)
    run = lambda: (a @ b, None)
else:
    run = lambda: (None, len(rref(a)[1]))
best, rank = float("inf"), None
for _ in range(reps):
    t0 = time.perf_counter()
    _, r = run()
    best = min(best, time.perf_counter() - t0)
    rank = r if r is not None else rank
print(json.dumps({"best": best, "rank": rank}))
"""


def privlearn_time(
    n: int, reps: int, op: str = "rref", threads: Optional[int] = None
) -> Tuple[float, Optional[int]]:
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(HARNESS.parent.parent),
            str(n),
            str(reps),
            str(SEED),
            op,
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return float(res["best"]), res["rank"]


def _m4ri_description() -> str:
    version = "unknown version"
    try:
        v = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "libm4ri-dev"], capture_output=True, text=True
        )
        if v.returncode == 0 and v.stdout:
            version = v.stdout.strip()
    except OSError:
        pass
    openmp = "OpenMP unknown"
    if M4RI_CONFIG.exists():
        m = re.search(r"__M4RI_HAVE_OPENMP\s+(\d)", M4RI_CONFIG.read_text())
        if m:
            openmp = "built with OpenMP" if m.group(1) == "1" else "built without OpenMP"
    return f"libm4ri {version}, {openmp}"


def build_harness(workdir: Path) -> Tuple[Optional[Path], str]:
    """Compiles the C harness against libm4ri; returns (binary, description) or (None, why)."""
    if (
        not M4RI_HEADER.exists()
        and hasattr(os, "geteuid")
        and os.geteuid() == 0
        and shutil.which("apt-get")
    ):
        print(
            "gf2: libm4ri-dev is missing; installing it with apt-get (benchmark only)",
            file=sys.stderr,
        )
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "libm4ri-dev"],
            env=env,
            capture_output=True,
            timeout=600,
        )
    if not M4RI_HEADER.exists():
        return None, "M4RI absent: install libm4ri-dev (Debian/Ubuntu) to compare"
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None, "no C compiler (cc) to build the M4RI harness"
    binary = workdir / "m4ri_echelon"
    res = subprocess.run(
        [cc, "-O2", str(HARNESS), "-o", str(binary), "-lm4ri"], capture_output=True, text=True
    )
    if res.returncode != 0:
        return None, f"could not build the M4RI harness: {res.stderr.strip()[:200]}"
    return binary, _m4ri_description()


def m4ri_time(binary: Path, n: int, reps: int, algo: str = "echelonize") -> Tuple[float, int]:
    out = subprocess.run(
        [str(binary), str(n), str(reps), str(SEED), algo],
        capture_output=True,
        text=True,
        check=True,
    )
    fields = dict(kv.split("=", 1) for kv in out.stdout.split())
    return float(fields["best_s"]), int(fields["rank"])


def rows(quick: bool) -> List[Row]:
    out: List[Row] = []
    sizes = [(4096, 3 if quick else 7), (8192, 2 if quick else 5), (16384, 1 if quick else 3)]
    with tempfile.TemporaryDirectory() as tmp:
        binary, desc = build_harness(Path(tmp))
        for n, reps in sizes:
            name = f"rref, random dense {n}x{n}"
            # Alternate the two programs (two rounds) so that background load hits both alike.
            ours, theirs, rank_ours, rank_theirs = [], [], None, None
            for _ in range(1 if quick else 2):
                t, rank_ours = privlearn_time(n, reps, threads=1)
                ours.append(t)
                if binary is not None:
                    t, rank_theirs = m4ri_time(binary, n, reps)
                    theirs.append(t)
            t_ours = min(ours)
            if binary is None:
                out.append(
                    Row(
                        name + ", 1 thread",
                        t_ours,
                        "M4RI mzd_echelonize",
                        None,
                        TARGET_M4RI,
                        note=desc,
                    )
                )
                continue
            agree = (
                "ranks agree"
                if rank_ours == rank_theirs
                else f"RANKS DIFFER {rank_ours} vs {rank_theirs}"
            )
            out.append(
                Row(
                    name + ", 1 thread",
                    t_ours,
                    "M4RI mzd_echelonize(A, full=1), 1 thread",
                    min(theirs),
                    TARGET_M4RI,
                    note=f"{desc}; same matrix, {agree}",
                )
            )
            t_par, _ = privlearn_time(n, reps)
            out.append(
                Row(
                    name + f", {os.cpu_count()} threads",
                    t_par,
                    "M4RI, 1 thread (no OpenMP)",
                    min(theirs),
                    "reported",
                )
            )
        if binary is not None:
            t_mul, _ = privlearn_time(4096, 3 if quick else 5, op="mul", threads=1)
            t_mm, _ = m4ri_time(binary, 4096, 3 if quick else 5, algo="mul")
            out.append(
                Row(
                    "product 4096x4096 @ 4096x4096, 1 thread",
                    t_mul,
                    "M4RI mzd_mul, 1 thread",
                    t_mm,
                    "reported",
                )
            )

    # galois at n = 2048: one run each (galois takes seconds).
    n = 2048
    t_ours, _ = privlearn_time(n, 3, threads=1)
    try:
        import galois

        a = galois.GF(2)(splitmix_matrix_to_bits(n))
        t0 = time.perf_counter()
        a.row_reduce()
        t_galois = time.perf_counter() - t0
        out.append(
            Row(
                f"rref, random dense {n}x{n}, 1 thread",
                t_ours,
                "galois FieldArray.row_reduce",
                t_galois,
                ">= 100x",
                note="galois timed once (one run takes seconds)",
            )
        )
    except ImportError:
        out.append(
            Row(
                f"rref, random dense {n}x{n}, 1 thread",
                t_ours,
                "galois",
                None,
                ">= 100x",
                note="pip install galois",
            )
        )
    return out


def splitmix_matrix_to_bits(n: int) -> np.ndarray:
    """The harness's matrix as a ``uint8`` array of zeros and ones."""
    from privlearn.gf2 import GF2Matrix

    return GF2Matrix.from_packed(splitmix_matrix_words(n, SEED), n).to_numpy()
