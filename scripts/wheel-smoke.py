"""Smoke test of an INSTALLED privlearn wheel (scripts/build-wheel and the release workflow).

Run it with the interpreter of the environment the wheel was installed into, from a directory
outside the source tree (so that ``import privlearn`` cannot pick up ``python/privlearn``)::

    python scripts/wheel-smoke.py [--no-rust] [--reproduce DIR]

It checks that privlearn is imported from that environment's site-packages with its compiled
extension (an abi3 module outside Windows, without the test hooks), that the version of the package metadata, the module
and ``privlearn --version`` agree, that mechanisms backed by the Rust core run and are
reproducible under a seed, and that the ``privlearn`` command works. ``--no-rust`` also checks
that no Rust toolchain (``cargo``, ``rustc``) is on PATH; ``--reproduce DIR`` runs
``privlearn reproduce --quick`` into DIR and checks what it wrote, as .ci/run does for the
README's command. Exits non-zero with a message on the first failure. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(f"wheel-smoke: FAILED: {message}")


def run(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    check(done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-rust", action="store_true", help="require no cargo/rustc on PATH")
    parser.add_argument("--reproduce", metavar="DIR", help="run `privlearn reproduce --quick`")
    args = parser.parse_args()

    if args.no_rust:
        for tool in ("cargo", "rustc"):
            check(shutil.which(tool) is None, f"{tool} is on PATH: {shutil.which(tool)}")

    import numpy as np

    import privlearn
    from privlearn import _core, mechanisms

    prefix = Path(sys.prefix).resolve()
    where = Path(privlearn.__file__).resolve()
    check(prefix in where.parents, f"privlearn imported from {where}, not from {prefix}")
    core_file = Path(_core.__file__).name
    if os.name != "nt":
        check(".abi3." in core_file, f"the extension {core_file} is not an abi3 module")
    check(not hasattr(_core, "_panic_for_tests"), "the extension has the test hooks (test-hooks)")
    version = metadata.version("privlearn")
    check(privlearn.__version__ == version, f"{privlearn.__version__} != metadata {version}")

    # Mechanisms that run in the Rust core, twice under one seed: same answer.
    scores = np.array([0.0, 40.0, 0.0, 1.0])
    picks = [mechanisms.exponential(scores, epsilon=1.0, rng=7, size=50) for _ in range(2)]
    check(
        np.array_equal(picks[0], picks[1]), "the seeded exponential mechanism is not reproducible"
    )
    check(np.count_nonzero(picks[0] == 1) >= 45, f"exponential mechanism picks {picks[0]}")
    noisy = [mechanisms.laplace(np.arange(4.0), 1.0, 1.0, rng=3) for _ in range(2)]
    check(np.array_equal(noisy[0], noisy[1]), "the seeded Laplace mechanism is not reproducible")
    check(all(math.isfinite(v) for v in noisy[0]), f"Laplace mechanism returned {noisy[0]}")
    gauss = mechanisms.gaussian(0.0, 1.0, 1.0, 1e-6, rng=5)
    check(math.isfinite(float(gauss)), f"Gaussian mechanism returned {gauss}")

    # The command-line entry point installed by the wheel.
    exe = shutil.which("privlearn")
    check(exe is not None, "no `privlearn` command on PATH")
    assert exe is not None
    check(version in run(exe, "--version"), "`privlearn --version` does not show the version")
    check("reproduce" in run(exe, "--help"), "`privlearn --help` does not list `reproduce`")
    listed = run(exe, "reproduce", "--list")
    check(len(listed.strip().splitlines()) >= 1, "`privlearn reproduce --list` lists nothing")

    if args.reproduce:
        out = Path(args.reproduce)
        run(exe, "reproduce", "--quick", "--no-progress", "--out", str(out))
        check((out / "index.md").is_file(), f"no {out / 'index.md'}")
        reports = [p for p in out.rglob("*.md") if p.parent != out]
        metas = list(out.rglob("meta.json"))
        csvs = list(out.rglob("*.csv"))
        pngs = list(out.rglob("*.png"))
        for meta in metas:
            json.loads(meta.read_text(encoding="utf-8"))
        print(
            f"wheel-smoke: reproduce --quick wrote {len(reports)} reports, {len(csvs)} tables, "
            f"{len(pngs)} plots, {len(metas)} meta.json"
        )
        check(len(reports) >= 1 and len(csvs) >= 1, "the quick reproduction wrote no report")
        check(len(pngs) >= 1, "the quick reproduction drew no plot (is privlearn[plot] installed?)")
        check(len(metas) == len(reports), "a report has no meta.json")

    print(f"wheel-smoke: OK: privlearn {version} from {where.parent} ({core_file})")


if __name__ == "__main__":
    main()
