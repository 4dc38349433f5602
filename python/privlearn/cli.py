"""The ``privlearn`` command line.

::

    privlearn --version
    privlearn reproduce --list
    privlearn reproduce [NAME ...] [--quick] [--out DIR] [--seed S] [--n-jobs J] [--no-progress]

``privlearn reproduce`` with no NAME runs every registered experiment and writes an index.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence, TextIO

from . import __version__

__all__ = ["main"]

DEFAULT_OUT = "privlearn-results"
_EXIT_USAGE = 2


def _seed(text: str) -> Optional[int]:
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [0, 2**64) or 'none', got {text!r}"
        ) from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**64), got {value}")
    return value


def _n_jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-zero integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be a non-zero integer (-1: all cores), got 0")
    return value


def version_text() -> str:
    """What ``privlearn --version`` prints: ``privlearn <version>`` (the first line, for
    scripts), then the compiled core's build (``release`` or ``debug``, and whether it holds the
    test hooks of a development build) and the Python running it."""
    from . import _BUILD_PROFILE, _TEST_HOOKS

    build = f"{_BUILD_PROFILE} build"
    if _TEST_HOOKS:
        build += " with test hooks"
    python = ".".join(str(v) for v in sys.version_info[:3])
    return f"privlearn {__version__}\ncompiled core: {build}; Python {python}"


class _VersionAction(argparse.Action):
    """Prints :func:`version_text` as it is (argparse's own action reflows it into one line)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(version_text())
        parser.exit()


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privlearn",
        description="privlearn: differentially private learning theory that runs.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    reproduce = commands.add_parser(
        "reproduce",
        help="run the papers' experiments and write tables, plots and reports",
        description=(
            "Run registered experiments and write, for each, DIR/NAME/ with a Markdown report, "
            "one CSV per table, one PNG per figure (needs privlearn[plot]) and meta.json. "
            "Without NAME, run every experiment and write DIR/index.md. Runs are seeded (seed "
            "0) by default, so they are reproducible; a seeded run measures accuracy and is not "
            "itself private."
        ),
    )
    reproduce.add_argument("names", nargs="*", metavar="NAME", help="experiments to run")
    reproduce.add_argument(
        "--list", action="store_true", help="list the experiments (name, paper, title) and exit"
    )
    reproduce.add_argument("--quick", action="store_true", help="reduced runs (fewer repetitions)")
    reproduce.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"output directory (default: {DEFAULT_OUT})",
    )
    reproduce.add_argument(
        "--seed",
        metavar="S",
        type=_seed,
        default=0,
        help="root seed, or 'none' for OS entropy (default: 0)",
    )
    reproduce.add_argument(
        "--n-jobs",
        metavar="J",
        type=_n_jobs,
        default=1,
        help="parallel joblib workers, -1 for all cores (default: 1)",
    )
    reproduce.add_argument("--no-progress", action="store_true", help="do not show progress bars")
    return parser


def _list(stream: TextIO) -> None:
    from .experiments import list_experiments

    experiments = list_experiments()
    if not experiments:
        print("no experiments are registered", file=stream)
        return
    width = max(len(e.name) for e in experiments)
    for e in experiments:
        print(f"{e.name:<{width}}  {e.paper}", file=stream)
        print(f"{'':<{width}}  {e.title}", file=stream)


def _reproduce(args: argparse.Namespace) -> int:
    from .errors import InvalidParameterError
    from .experiments import list_experiments, run_all, run_experiment

    if args.list:
        if args.names:
            print("privlearn reproduce: --list takes no experiment names", file=sys.stderr)
            return _EXIT_USAGE
        _list(sys.stdout)
        return 0

    known = [e.name for e in list_experiments()]
    unknown = [name for name in args.names if name not in known]
    if unknown:
        print(
            f"privlearn reproduce: unknown experiment{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)}; known experiments: "
            f"{', '.join(known) or '(none)'}",
            file=sys.stderr,
        )
        return _EXIT_USAGE

    options = dict(
        out_dir=Path(args.out),
        quick=args.quick,
        seed=args.seed,
        n_jobs=args.n_jobs,
        progress=not args.no_progress,
    )
    try:
        if args.names:
            for name in dict.fromkeys(args.names):  # unique, in the order given
                dest = run_experiment(name, **options)
                print(f"{name}: results written to {dest}")
        else:
            index = run_all(**options)
            print(
                f"results of {len(known)} experiment{'s' if len(known) != 1 else ''} "
                f"written to {index.parent} (index: {index})"
            )
    except InvalidParameterError as err:
        print(f"privlearn reproduce: {err}", file=sys.stderr)
        return _EXIT_USAGE
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``privlearn`` command line with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status: 0 on success, 2 on a usage error (such as an unknown experiment).
    ``--help`` and ``--version`` and argparse's own usage errors exit through ``SystemExit``.
    """
    parser = _build_parser()
    args = parser.parse_args(None if argv is None else list(argv))
    if args.command is None:
        parser.print_help(sys.stderr)
        return _EXIT_USAGE
    if args.command == "reproduce":
        try:
            return _reproduce(args)
        except KeyboardInterrupt:
            print("privlearn reproduce: interrupted", file=sys.stderr)
            return 130
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover (argparse checks)
    return _EXIT_USAGE  # pragma: no cover
