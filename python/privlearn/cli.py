"""The ``privlearn`` command line.

::

    privlearn --version
    privlearn reproduce --list
    privlearn reproduce [NAME ...] [--quick] [--out DIR] [--seed S] [--n-jobs J] [--no-progress]
    privlearn audit MODULE:CALLABLE --claim EPS[,DELTA] | --claim gdp:MU
        --neighbours A B | --neighbours search --bounds LO,HI --rows R [--columns C]
        [--notion replace-one|add-remove] [--integer] [--n N] [--pilot-n N] [--alpha A]
        [--method M] [--distinguisher D] [--statistic MODULE:CALLABLE] [--seed S] [--out DIR]
        [--json]

``privlearn reproduce`` with no NAME runs every registered experiment and writes an index.
``privlearn audit`` audits a privacy claim of any Python callable (see :func:`_audit_command`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, TextIO, Tuple

from . import __version__

__all__ = ["main"]

DEFAULT_OUT = "privlearn-results"
DEFAULT_AUDIT_OUT = "privlearn-audit"
_EXIT_USAGE = 2
_EXIT_REFUTED = 1


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
    _add_audit_parser(commands)
    return parser


_AUDIT_DESCRIPTION = """\
Audit a differential-privacy claim of any Python callable: run it many times on two
neighbouring datasets, compute a lower confidence bound on its privacy loss, and compare it
with the claim (privlearn.audit.audit; with --neighbours search, on the worst of a family of
candidate pairs, privlearn.audit.search_neighbours). Exit status: 0 when the claim is not
refuted, 1 when it is refuted (with confidence 1 - ALPHA), 2 on a usage error.

Calling convention: MODULE:CALLABLE names a function (dotted attributes allowed, e.g.
mymod:Cls.method; MODULE is imported with the current directory on sys.path, as python -m
does). It is called as CALLABLE(data, rng) -> one output, or, when it has a parameter named
size, as CALLABLE(data, rng, size=size) -> size outputs (first axis; much faster). data is a
2-D float numpy array (rows, columns); rng is a numpy.random.Generator from which all of its
randomness must be drawn. Outputs: numbers, integer vectors, or anything hashable; project
real vectors with --statistic MODULE:CALLABLE (called once with the array of outputs).

The report (audit.md, audit.json and, for trade-off audits with matplotlib, tradeoff.png) is
written to --out. An audit that passes is not a proof: it tries finitely many neighbours and
events."""


def _add_audit_parser(commands: Any) -> None:
    audit = commands.add_parser(
        "audit",
        help="audit a privacy claim of any Python callable and write a report",
        description=_AUDIT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("target", metavar="MODULE:CALLABLE", help="the mechanism to audit")
    audit.add_argument(
        "--claim",
        required=True,
        metavar="CLAIM",
        help="EPS (pure), EPS,DELTA or gdp:MU (Gaussian DP)",
    )
    audit.add_argument(
        "--neighbours",
        required=True,
        nargs="+",
        metavar="ARG",
        help=(
            "two Python literals, the datasets as lists of rows (e.g. '[[0.0],[0.0]]' "
            "'[[0.0],[1.0]]'; '[]' is the empty dataset), or 'search' with --bounds and --rows"
        ),
    )
    audit.add_argument(
        "--bounds",
        metavar="LO,HI",
        help="search: the bounds of every column (write --bounds=-1,1 for a negative LO)",
    )
    audit.add_argument("--rows", metavar="R", type=int, help="search: the dataset size")
    audit.add_argument(
        "--columns", metavar="C", type=int, default=None, help="search: columns (default 1)"
    )
    audit.add_argument(
        "--notion",
        choices=("replace-one", "add-remove"),
        default="replace-one",
        help="the neighbouring notion of the claim (default: replace-one)",
    )
    audit.add_argument("--integer", action="store_true", help="search: integer values")
    audit.add_argument(
        "--n",
        metavar="N",
        type=int,
        default=None,
        help="samples per side (default: 1000000 for two datasets, 200000 for a search)",
    )
    audit.add_argument(
        "--pilot-n",
        metavar="N",
        type=int,
        default=None,
        help="search: samples per side of each candidate's pilot audit (default: 20000)",
    )
    audit.add_argument(
        "--alpha",
        metavar="A",
        type=float,
        default=1e-3,
        help="false-positive rate: a correct mechanism is refuted with probability <= A "
        "(default: 0.001)",
    )
    audit.add_argument(
        "--method",
        choices=("auto", "epsilon", "hockey-stick", "tradeoff"),
        default="auto",
        help="what is bounded (default: auto, from the claim)",
    )
    audit.add_argument(
        "--distinguisher",
        choices=("logistic", "boosting", "kde"),
        default=None,
        help="learn the event with a classifier on half of the samples",
    )
    audit.add_argument(
        "--statistic", metavar="MODULE:CALLABLE", help="projection of the outputs to scalars"
    )
    audit.add_argument(
        "--seed",
        metavar="S",
        type=_seed,
        default=0,
        help="root seed of the audit's randomness, or 'none' for OS entropy (default: 0)",
    )
    audit.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_AUDIT_OUT,
        help=f"report directory (default: {DEFAULT_AUDIT_OUT})",
    )
    audit.add_argument(
        "--json", action="store_true", help="print the JSON report instead of the verdict line"
    )


class _UsageError(Exception):
    """A bad ``privlearn audit`` argument; the message names the option."""


def _load_callable(spec: str, option: str) -> Callable[..., Any]:
    """``MODULE:CALLABLE`` resolved (dotted attributes allowed), the current directory first on
    ``sys.path`` as with ``python -m``."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise _UsageError(f"{option}: expected MODULE:CALLABLE, got {spec!r}")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as err:  # ImportError, or an error raised while importing the module
        raise _UsageError(
            f"{option}: cannot import module {module_name!r}: {type(err).__name__}: {err}"
        ) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            missing = f" (no {part!r})" if part != attr else ""
            raise _UsageError(
                f"{option}: module {module_name!r} has no attribute {attr!r}{missing}"
            ) from None
    if not callable(obj):
        raise _UsageError(f"{option}: {spec} is not callable ({type(obj).__name__})")
    return obj


def _parse_claim(text: str) -> Any:
    from .audit._neighbours import _check_claim
    from .errors import InvalidParameterError

    try:
        if text.strip().lower().startswith("gdp:"):
            from .audit._claims import GaussianDP

            claim: Any = GaussianDP(float(text.split(":", 1)[1]))
        elif "," in text:
            eps, delta = text.split(",")
            claim = (float(eps), float(delta))
        else:
            claim = float(text)
        _check_claim(claim)
    except (ValueError, InvalidParameterError) as err:
        raise _UsageError(
            f"--claim: expected EPS, EPS,DELTA or gdp:MU, got {text!r} ({err})"
        ) from None
    return claim


def _parse_dataset(text: str, which: str) -> Any:
    import numpy as np

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise _UsageError(
            f"--neighbours: dataset {which} is not a Python literal: {text!r}"
        ) from None
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise _UsageError(
            f"--neighbours: dataset {which} must be a list of rows of numbers, got {text!r}"
        ) from None
    if arr.ndim == 1 and arr.size == 0:
        return arr  # [], the empty dataset: its columns are the other dataset's
    if arr.ndim != 2:
        raise _UsageError(
            f"--neighbours: dataset {which} must be 2-D (a list of rows, e.g. [[0.0], [1.0]]), "
            f"got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise _UsageError(f"--neighbours: dataset {which} has non-finite values")
    return arr


def _parse_bounds(text: Optional[str]) -> Tuple[float, float]:
    if text is None:
        raise _UsageError("--bounds: required with --neighbours search (e.g. --bounds 0,1)")
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise _UsageError(f"--bounds: expected LO,HI (two numbers), got {text!r}") from None


# the options of `privlearn audit` by the parameter names of the library's errors
_OPTION_OF = {
    "claimed": "--claim",
    "n": "--n",
    "pilot_n": "--pilot-n",
    "alpha": "--alpha",
    "method": "--method",
    "distinguisher": "--distinguisher",
    "statistic": "--statistic",
    "lower": "--bounds",
    "upper": "--bounds",
    "rows": "--rows",
    "notion": "--notion",
    "candidates": "--neighbours",
    "neighbours": "--neighbours",
    "rng": "--seed",
}


def _run_audit(args: argparse.Namespace, mechanism: Callable[..., Any]) -> Any:
    from .audit import audit
    from .audit._audit import _takes_size
    from .audit._neighbours import Domain, _check_relation, _runner, search_neighbours

    claim = _parse_claim(args.claim)
    statistic = None
    if args.statistic is not None:
        statistic = _load_callable(args.statistic, "--statistic")
    options: Dict[str, Any] = dict(statistic=statistic, alpha=args.alpha, rng=args.seed)
    if args.method != "auto":
        options["method"] = args.method
    if args.distinguisher is not None:
        options["distinguisher"] = args.distinguisher

    if args.neighbours == ["search"]:
        lo, hi = _parse_bounds(args.bounds)
        if args.rows is None:
            raise _UsageError("--rows: required with --neighbours search")
        columns = 1 if args.columns is None else args.columns
        if columns < 1:
            raise _UsageError(f"--columns: must be >= 1, got {columns}")
        domain = Domain([lo] * columns, [hi] * columns, args.rows, integer=args.integer)
        return search_neighbours(
            mechanism,
            domain,
            claim,
            notion=args.notion,
            n=200_000 if args.n is None else args.n,
            pilot_n=20_000 if args.pilot_n is None else args.pilot_n,
            **options,
        )
    if len(args.neighbours) != 2:
        raise _UsageError(
            f"--neighbours: expected two datasets or 'search', got {len(args.neighbours)} "
            f"argument{'s' if len(args.neighbours) != 1 else ''}"
        )
    for option, value in (
        ("--bounds", args.bounds),
        ("--rows", args.rows),
        ("--columns", args.columns),
        ("--pilot-n", args.pilot_n),
    ):
        if value is not None:
            raise _UsageError(f"{option}: applies only with --neighbours search")
    if args.integer:
        raise _UsageError("--integer: applies only with --neighbours search")
    a = _parse_dataset(args.neighbours[0], "A")
    b = _parse_dataset(args.neighbours[1], "B")
    if a.ndim == 1 and b.ndim == 1:
        raise _UsageError("--neighbours: both datasets are empty")
    if a.ndim == 1:  # [] : no rows, as many columns as the other dataset
        a = a.reshape(0, b.shape[1])
    if b.ndim == 1:
        b = b.reshape(0, a.shape[1])
    if a.shape[1] != b.shape[1]:
        raise _UsageError(f"--neighbours: the datasets have {a.shape[1]} and {b.shape[1]} columns")
    _check_relation(a, b, args.notion, "the datasets", "neighbours")
    vectorised = _takes_size(mechanism)
    return audit(
        _runner(mechanism, a, vectorised),
        _runner(mechanism, b, vectorised),
        claim,
        n=1_000_000 if args.n is None else args.n,
        **options,
    )


def _audit_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """``privlearn audit``: 0 when the claim is not refuted, 1 when refuted, 2 on usage errors."""
    from .audit._report import verdict_line, write_report
    from .errors import InvalidParameterError

    prog = "privlearn audit"
    try:
        mechanism = _load_callable(args.target, "MODULE:CALLABLE")
        try:
            result = _run_audit(args, mechanism)
        except InvalidParameterError as err:
            option = _OPTION_OF.get(err.parameter or "")
            if option is None:
                raise _UsageError(f"{args.target}: {err}") from None
            message = str(err)
            if message.startswith(f"{err.parameter}: "):
                message = message[len(err.parameter or "") + 2 :]
            raise _UsageError(f"{option}: {message}") from None
    except _UsageError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return _EXIT_USAGE
    except Exception as err:  # the audited callable failed: report it as a usage error
        print(
            f"{prog}: calling {args.target} failed: {type(err).__name__}: {err} (it is called as "
            f"CALLABLE(data, rng) or CALLABLE(data, rng, size=size); see privlearn audit --help)",
            file=sys.stderr,
        )
        return _EXIT_USAGE
    command = "privlearn " + " ".join(shlex.quote(a) for a in argv)
    paths = write_report(
        result, args.out, title=f"privlearn audit of {args.target}", command=command
    )
    if args.json:
        print(paths["json"].read_text(encoding="utf-8"), end="")
    else:
        print(verdict_line(result))
        print(f"report: {paths['markdown']}")
    return 0 if result.passed else _EXIT_REFUTED


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

    Returns the exit status: 0 on success, 2 on a usage error (such as an unknown experiment or
    a bad ``privlearn audit`` option); ``privlearn audit`` returns 1 when the claim is refuted.
    ``--help`` and ``--version`` and argparse's own usage errors exit through ``SystemExit``.
    """
    parser = _build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return _EXIT_USAGE
    if args.command == "reproduce":
        try:
            return _reproduce(args)
        except KeyboardInterrupt:
            print("privlearn reproduce: interrupted", file=sys.stderr)
            return 130
    if args.command == "audit":
        try:
            return _audit_command(args, argv)
        except KeyboardInterrupt:
            print("privlearn audit: interrupted", file=sys.stderr)
            return 130
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover (argparse checks)
    return _EXIT_USAGE  # pragma: no cover
