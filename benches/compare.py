#!/usr/bin/env python3
"""privlearn against its peers, measured in the same run (DESIGN principle 9).

Prints a Markdown table of times and ratios (peer time / privlearn time) with the target each
ratio must meet. Run it on a release build (``pip install .`` or ``maturin develop --release``),
on a quiet machine; peers are benchmark-only dependencies (``pip install ".[bench]"``).

    python benches/compare.py                 # every section, full sizes
    python benches/compare.py --quick         # fewer repetitions
    python benches/compare.py expmech gf2     # chosen sections
    python benches/compare.py --json out.json

Sections are the modules of ``benches/peers/`` (one per hot path). Each timing is the minimum
wall-clock time over repetitions.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
from dataclasses import asdict
from pathlib import Path
from typing import List, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import privlearn  # noqa: E402
from peers.common import Row  # noqa: E402
from privlearn import _core  # noqa: E402

SECTIONS = sorted(
    p.stem for p in (HERE / "peers").glob("*.py") if p.stem not in ("__init__", "common")
)


def _fmt(t: Optional[float], unit: str = "s") -> str:
    if t is None:
        return "-"
    if unit != "s":
        return f"{t:.4g} {unit}"
    if t < 1e-6:
        return f"{t * 1e9:.1f} ns"
    if t < 1e-3:
        return f"{t * 1e6:.2f} us"
    return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "sections", nargs="*", help=f"sections to run (default: all of {', '.join(SECTIONS)})"
    )
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown section(s) {unknown}; known: {SECTIONS}")
    if _core.build_profile != "release":
        print(
            "warning: privlearn is a debug build; install it in release mode to benchmark",
            file=sys.stderr,
        )

    rows: List[Row] = []
    for name in args.sections or SECTIONS:
        module = importlib.import_module(f"peers.{name}")
        rows.extend(r.evaluate() for r in module.rows(args.quick))

    print(
        f"privlearn {privlearn.__version__} ({_core.build_profile} build), numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    print()
    print("| benchmark | privlearn | peer | peer time | ratio (peer/privlearn) | target | met |")
    print("|---|---:|---|---:|---:|---|---|")
    for r in rows:
        ratio = "-" if r.ratio is None else f"{r.ratio:.1f}x"
        met = {True: "yes", False: "NO", None: "-"}[r.passed]
        note = f" ({r.note})" if r.note else ""
        print(
            f"| {r.benchmark} | {_fmt(r.privlearn_s, r.unit)} | {r.peer}{note} | {_fmt(r.peer_s, r.unit)} | {ratio} | {r.target} | {met} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump([asdict(r) for r in rows], f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
