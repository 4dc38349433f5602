"""The experiment registry, result types, parallel trial runner and report writer.

See :mod:`privlearn.experiments` for how an experiment module uses them.
"""

from __future__ import annotations

import csv
import json
import math
import numbers
import os
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from ..errors import InvalidParameterError
from ..random import RngLike, spawn_seeds

__all__ = [
    "Experiment",
    "ExperimentResult",
    "RunConfig",
    "Table",
    "get_experiment",
    "list_experiments",
    "register",
    "run_all",
    "run_experiment",
    "run_trials",
]

PathLike = Union[str, "os.PathLike[str]"]

_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Table and figure names become file names.
_FILE_STEM_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SEED_LIMIT = 2**64

_PLOT_HINT = "install privlearn[plot] for plots"


# --------------------------------------------------------------------------------------------
# Run configuration and results
# --------------------------------------------------------------------------------------------


def _check_seed(seed: Optional[int]) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise InvalidParameterError(
            f"seed: must be None or an integer in [0, 2**64), got {seed!r}", "seed"
        )
    if not 0 <= int(seed) < _SEED_LIMIT:
        raise InvalidParameterError(f"seed: must be in [0, 2**64), got {seed}", "seed")
    return int(seed)


def _check_n_jobs(n_jobs: Optional[int], allow_none: bool = False) -> Optional[int]:
    if n_jobs is None and allow_none:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise InvalidParameterError(
            "n_jobs: must be a non-zero integer (a positive number of workers, or -1 for "
            f"all cores, -2 for all but one, ...), got {n_jobs!r}",
            "n_jobs",
        )
    return int(n_jobs)


@dataclass(frozen=True)
class RunConfig:
    """How to run an experiment.

    Attributes
    ----------
    quick : bool, default False
        A reduced run (fewer repetitions) for smoke tests and a first look.
    seed : int or None, default 0
        Seed of the experiment's random streams; ``None`` draws them from OS entropy. A seeded run
        is reproducible and measures the mechanisms' accuracy, but is not itself private.
    n_jobs : int, default 1
        joblib workers for :func:`run_trials` (``-1``: all cores).
    progress : bool, default True
        Show tqdm progress bars on stderr.
    """

    quick: bool = False
    seed: Optional[int] = 0
    n_jobs: int = 1
    progress: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "seed", _check_seed(self.seed))
        object.__setattr__(self, "n_jobs", _check_n_jobs(self.n_jobs))
        object.__setattr__(self, "quick", bool(self.quick))
        object.__setattr__(self, "progress", bool(self.progress))


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _markdown_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.4g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))  # shortest string that round-trips exactly
    return str(value)


def _parse_csv_cell(text: str) -> Any:
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


class Table:
    """A table of results: named columns and rows of numbers or strings.

    Parameters
    ----------
    columns : sequence of str
        Column names (unique).
    rows : iterable of sequences, optional
        Rows, each with one value per column: ``int``, ``float`` (numpy scalars too), ``bool``,
        ``str`` or ``None`` (an empty cell).
    description : str, optional
        One paragraph printed under the table in the Markdown report.

    Notes
    -----
    :meth:`to_markdown` rounds real numbers to 4 significant digits; :meth:`to_csv` writes them
    at full precision (the shortest decimal that reads back to the same float), so
    :meth:`read_csv` recovers the values exactly.
    """

    def __init__(
        self,
        columns: Sequence[str],
        rows: Optional[Iterable[Sequence[Any]]] = None,
        *,
        description: str = "",
    ) -> None:
        cols = [str(c) for c in columns]
        if not cols:
            raise InvalidParameterError("columns: must name at least one column", "columns")
        if len(set(cols)) != len(cols):
            raise InvalidParameterError(f"columns: names must be unique, got {cols}", "columns")
        self.columns: List[str] = cols
        self.rows: List[List[Any]] = []
        self.description = description
        for row in rows or ():
            self.add_row(row)

    def add_row(self, row: Sequence[Any]) -> None:
        """Append one row (a value per column)."""
        values = list(row)
        if len(values) != len(self.columns):
            raise InvalidParameterError(
                f"row: expected {len(self.columns)} values ({', '.join(self.columns)}), "
                f"got {len(values)}",
                "row",
            )
        # Store plain Python scalars (numpy scalars print and serialise like them).
        self.rows.append([v.item() if _is_scalar_array(v) else v for v in values])

    def column(self, name: str) -> List[Any]:
        """The values of one column, top to bottom."""
        try:
            j = self.columns.index(name)
        except ValueError:
            raise InvalidParameterError(
                f"name: no column {name!r}; columns are {', '.join(self.columns)}", "name"
            ) from None
        return [row[j] for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return self.columns == other.columns and self.rows == other.rows

    def __repr__(self) -> str:
        return f"Table(columns={self.columns!r}, n_rows={len(self.rows)})"

    def to_markdown(self) -> str:
        """The table as GitHub-flavoured Markdown (numbers to 4 significant digits)."""
        header = "| " + " | ".join(_markdown_cell(c) for c in self.columns) + " |"
        align = (
            "|"
            + "|".join(
                "---:"
                if self.rows and all(_is_number(r[j]) or r[j] is None for r in self.rows)
                else "---"
                for j in range(len(self.columns))
            )
            + "|"
        )
        lines = [header, align]
        for row in self.rows:
            lines.append("| " + " | ".join(_markdown_cell(v) for v in row) + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self, path: PathLike) -> None:
        """Write the table as CSV (a header line, then full-precision values)."""
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(self.columns)
            for row in self.rows:
                writer.writerow([_csv_cell(v) for v in row])

    @classmethod
    def read_csv(cls, path: PathLike) -> "Table":
        """Read a table written by :meth:`to_csv` (cells become int, float, bool, str or None)."""
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            columns = next(reader)
            rows = [[_parse_csv_cell(cell) for cell in row] for row in reader]
        return cls(columns, rows)


def _is_scalar_array(value: Any) -> bool:
    # numpy scalars and 0-d arrays
    return getattr(value, "shape", None) == () and hasattr(value, "item")


@dataclass
class ExperimentResult:
    """What an experiment's ``run`` returns.

    Attributes
    ----------
    tables : dict of str to Table
        Tables by name; each is written as ``<name>.csv`` and in the Markdown report.
    figures : dict of str to callable
        Figures by name; ``figures[name](path)`` draws one PNG at ``path`` (``<name>.png``).
        matplotlib is imported only inside these callables, so that results can be written
        without it. :func:`new_figure` gives a figure on the Agg canvas.
    notes : list of str
        Free-text findings (e.g. an observed rate next to the theoretical one), listed in the
        report.
    """

    tables: Dict[str, Table] = field(default_factory=dict)
    figures: Dict[str, Callable[[Path], None]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)


def new_figure(*args: Any, **kwargs: Any) -> Any:
    """A :class:`matplotlib.figure.Figure` attached to the Agg canvas (no pyplot, no GUI).

    Arguments go to ``Figure``. Using the Agg canvas directly leaves the user's pyplot backend
    alone. Raises ImportError if matplotlib is not installed.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(*args, **kwargs)
    FigureCanvasAgg(fig)
    return fig


def _matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


_warned_no_matplotlib = False


def _warn_no_matplotlib() -> None:
    global _warned_no_matplotlib
    if not _warned_no_matplotlib:
        print(
            f"privlearn: matplotlib is not installed, so no figures are drawn ({_PLOT_HINT}); "
            "tables are still written.",
            file=sys.stderr,
        )
        _warned_no_matplotlib = True


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Experiment:
    """A registered experiment.

    Attributes
    ----------
    name : str
        Unique lowercase-hyphenated id (``privlearn reproduce NAME``).
    title : str
        One-line title.
    paper : str
        The paper (or topic) it reproduces.
    description : str
        What it measures and what to expect.
    run : callable
        ``run(config: RunConfig) -> ExperimentResult``.
    """

    name: str
    title: str
    paper: str
    description: str
    run: Callable[[RunConfig], ExperimentResult] = field(repr=False, compare=False)


_REGISTRY: Dict[str, Experiment] = {}


def register(
    name: str, *, title: str, paper: str, description: str
) -> Callable[[Callable[[RunConfig], ExperimentResult]], Callable[[RunConfig], ExperimentResult]]:
    """Decorator registering ``run(config: RunConfig) -> ExperimentResult`` as an experiment.

    Parameters
    ----------
    name : str
        Unique id: lowercase letters and digits in hyphen-separated words
        (``"warfarin-exponential-mechanism"``).
    title, paper, description : str
        Shown by ``privlearn reproduce --list`` and at the top of the report.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    InvalidParameterError
        If ``name`` is malformed or already registered by a different function. (Re-importing
        the module that registered it, e.g. with ``importlib.reload``, is allowed.)
    """
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise InvalidParameterError(
            f"name: must be lowercase letters and digits in hyphen-separated words, got {name!r}",
            "name",
        )

    def decorator(
        fn: Callable[[RunConfig], ExperimentResult],
    ) -> Callable[[RunConfig], ExperimentResult]:
        if not callable(fn):
            raise InvalidParameterError("fn: the registered object must be callable", "fn")
        old = _REGISTRY.get(name)
        if old is not None and _qualified(old.run) != _qualified(fn):
            raise InvalidParameterError(
                f"name: experiment {name!r} is already registered (by {_qualified(old.run)})",
                "name",
            )
        _REGISTRY[name] = Experiment(name, title, paper, description, fn)
        return fn

    return decorator


def _qualified(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def list_experiments() -> List[Experiment]:
    """Every registered experiment, in registration order."""
    return list(_REGISTRY.values())


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``.

    Raises
    ------
    InvalidParameterError
        If there is none; the message lists the known names.
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise InvalidParameterError(
            f"name: unknown experiment {name!r}; known experiments: {known}", "name"
        ) from None


# --------------------------------------------------------------------------------------------
# Parallel trials
# --------------------------------------------------------------------------------------------


def run_trials(
    fn: Callable[[Any, int], Any],
    tasks: Iterable[Any],
    *,
    seed: RngLike,
    n_jobs: Optional[int] = 1,
    desc: Optional[str] = None,
    progress: bool = True,
) -> List[Any]:
    """Run ``fn(task, seed_i)`` for every task in parallel with joblib; results in task order.

    The seeds are ``privlearn.random.spawn_seeds(seed, len(tasks))``: task ``i`` always gets
    the same seed, whatever ``n_jobs`` is or which worker runs it, so with an integer ``seed``
    the results are reproducible and independent of ``n_jobs``. ``fn`` should build its
    randomness from ``seed_i`` only (e.g. ``Generator(seed_i)``). Two calls with the same
    ``seed`` hand out the same seeds: give each call its own, e.g. from
    ``spawn_seeds(config.seed, 2)``, or put all tasks into one call.

    Work runs through ``joblib.Parallel(return_as="generator")``, so the joblib backend can be
    chosen by the caller, e.g. ``with joblib.parallel_config(backend="dask"):`` (or
    ``joblib.parallel_backend``) to run on a Dask or Ray cluster. With a process backend (the
    default ``loky``) ``fn`` and the tasks must be picklable; keep tasks coarse (a batch of
    repetitions each) so that the per-task overhead stays small.

    Parameters
    ----------
    fn : callable
        ``fn(task, seed)`` with ``seed`` an int in ``[0, 2**64)``.
    tasks : iterable
        The tasks.
    seed : None, int or Generator
        Root of the seeds (see :mod:`privlearn.random`); ``None`` draws from OS entropy.
    n_jobs : int or None, default 1
        joblib workers (``-1``: all cores). ``None`` defers to the active joblib configuration.
    desc : str, optional
        Label of the progress bar.
    progress : bool, default True
        Show a tqdm progress bar on stderr.

    Returns
    -------
    list
        ``[fn(task_0, seed_0), fn(task_1, seed_1), ...]``.
    """
    import joblib
    from tqdm import tqdm

    n_jobs = _check_n_jobs(n_jobs, allow_none=True)
    task_list = list(tasks)
    seeds = spawn_seeds(seed, len(task_list))
    if not task_list:
        return []
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    outputs = parallel(joblib.delayed(fn)(task, s) for task, s in zip(task_list, seeds))
    results: List[Any] = []
    with tqdm(
        total=len(task_list), desc=desc, disable=not progress, file=sys.stderr, leave=False
    ) as bar:
        for out in outputs:
            results.append(out)
            bar.update(1)
    return results


# --------------------------------------------------------------------------------------------
# Running and writing reports
# --------------------------------------------------------------------------------------------


def _privlearn_version() -> str:
    from .. import __version__

    return __version__


def _check_file_stem(kind: str, name: str) -> None:
    if not isinstance(name, str) or not _FILE_STEM_RE.match(name):
        raise InvalidParameterError(
            f"{kind}: names must be usable as file names (letters, digits, '.', '_', '-'), "
            f"got {name!r}",
            kind,
        )


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _format_seed(seed: Optional[int]) -> str:
    return "none (OS entropy)" if seed is None else str(seed)


def run_experiment(
    name: str,
    *,
    out_dir: PathLike,
    quick: bool = False,
    seed: Optional[int] = 0,
    n_jobs: int = 1,
    progress: bool = True,
) -> Path:
    """Run one registered experiment and write its report to ``out_dir/<name>/``.

    Writes ``<name>.md`` (title, paper, description, configuration, tables, notes, figure
    links), ``<table>.csv`` per table, ``<figure>.png`` per figure (skipped with one warning if
    matplotlib is missing: ``pip install privlearn[plot]``) and, last, ``meta.json`` (name,
    title, paper, seed, quick, n_jobs, privlearn version, start time, runtime, file names). A
    stale ``meta.json`` is removed before the run, so a ``meta.json`` is present only after a
    run that completed.

    Parameters
    ----------
    name : str
        A registered experiment (see :func:`list_experiments`).
    out_dir : str or path
        Parent directory of the results.
    quick : bool, default False
        A reduced run.
    seed : int or None, default 0
        Root seed; ``None`` for OS entropy. The default makes runs reproducible; a seeded run
        measures accuracy but is not itself private.
    n_jobs : int, default 1
        joblib workers.
    progress : bool, default True
        Show progress bars.

    Returns
    -------
    pathlib.Path
        The directory ``out_dir/<name>``.
    """
    experiment = get_experiment(name)
    config = RunConfig(quick=quick, seed=seed, n_jobs=n_jobs, progress=progress)
    dest = Path(out_dir) / experiment.name
    dest.mkdir(parents=True, exist_ok=True)
    meta_path = dest / "meta.json"
    if meta_path.exists():
        meta_path.unlink()

    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    result = experiment.run(config)
    if not isinstance(result, ExperimentResult):
        raise TypeError(
            f"experiment {experiment.name!r} returned {type(result).__name__}, "
            "not an ExperimentResult"
        )
    for table_name in result.tables:
        _check_file_stem("tables", table_name)
    for figure_name in result.figures:
        _check_file_stem("figures", figure_name)

    table_files: Dict[str, str] = {}
    for table_name, table in result.tables.items():
        file_name = f"{table_name}.csv"
        table.to_csv(dest / file_name)
        table_files[table_name] = file_name

    figure_files: Dict[str, str] = {}
    have_plots = _matplotlib_available() if result.figures else True
    if result.figures and not have_plots:
        _warn_no_matplotlib()
        for figure_name in result.figures:  # no stale PNG from an earlier run
            stale = dest / f"{figure_name}.png"
            if stale.exists():
                stale.unlink()
    elif result.figures:
        for figure_name, draw in result.figures.items():
            file_name = f"{figure_name}.png"
            draw(dest / file_name)
            figure_files[figure_name] = file_name
    runtime = time.perf_counter() - t0
    version = _privlearn_version()

    report = _render_report(
        experiment,
        config,
        result,
        table_files,
        figure_files,
        have_plots,
        started,
        runtime,
        version,
    )
    report_name = f"{experiment.name}.md"
    _atomic_write_text(dest / report_name, report)

    meta = {
        "name": experiment.name,
        "title": experiment.title,
        "paper": experiment.paper,
        "seed": config.seed,
        "quick": config.quick,
        "n_jobs": config.n_jobs,
        "privlearn_version": version,
        "start_time": started.isoformat(timespec="seconds"),
        "runtime_seconds": round(runtime, 3),
        "report": report_name,
        "tables": list(table_files.values()),
        "figures": list(figure_files.values()),
    }
    _atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    return dest


def _render_report(
    experiment: Experiment,
    config: RunConfig,
    result: ExperimentResult,
    table_files: Dict[str, str],
    figure_files: Dict[str, str],
    have_plots: bool,
    started: datetime,
    runtime: float,
    version: str,
) -> str:
    out: List[str] = [f"# {experiment.title}", ""]
    out += [f"**Experiment:** `{experiment.name}`  ", f"**Paper:** {experiment.paper}", ""]
    out += [experiment.description.strip(), ""]
    out += ["## Configuration", ""]
    out += [
        f"- mode: {'quick' if config.quick else 'full'}",
        f"- seed: {_format_seed(config.seed)}"
        + (
            " (reproducible; a seeded run measures accuracy and is not itself private)"
            if config.seed is not None
            else ""
        ),
        f"- n_jobs: {config.n_jobs}",
        f"- privlearn: {version}",
        f"- started: {started.isoformat(timespec='seconds')}",
        f"- runtime: {runtime:.1f} s",
        "",
    ]
    if result.tables:
        out += ["## Tables", ""]
        for table_name, table in result.tables.items():
            out += [f"### {table_name}", ""]
            if table.description:
                out += [table.description.strip(), ""]
            out += [
                table.to_markdown(),
                f"CSV: [{table_files[table_name]}]({table_files[table_name]})",
                "",
            ]
    if result.notes:
        out += ["## Notes", ""]
        out += [f"- {note}" for note in result.notes]
        out += [""]
    if result.figures:
        out += ["## Figures", ""]
        for figure_name in result.figures:
            if figure_name in figure_files:
                out += [f"![{figure_name}]({figure_files[figure_name]})", ""]
            else:
                out += [f"- {figure_name}: not drawn ({_PLOT_HINT})"]
        if not have_plots:
            out += [""]
    return "\n".join(out).rstrip("\n") + "\n"


def run_all(
    *,
    out_dir: PathLike,
    quick: bool = False,
    seed: Optional[int] = 0,
    n_jobs: int = 1,
    progress: bool = True,
) -> Path:
    """Run every registered experiment and write ``out_dir/index.md`` linking the reports.

    Parameters are those of :func:`run_experiment`. An error in one experiment stops the run
    (the experiments finished before it keep their results).

    Returns
    -------
    pathlib.Path
        The path of ``index.md``.
    """
    config = RunConfig(quick=quick, seed=seed, n_jobs=n_jobs, progress=progress)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for experiment in list_experiments():
        dest = run_experiment(
            experiment.name,
            out_dir=out,
            quick=config.quick,
            seed=config.seed,
            n_jobs=config.n_jobs,
            progress=config.progress,
        )
        meta = json.loads((dest / "meta.json").read_text(encoding="utf-8"))
        rows.append((experiment, meta))

    lines = [
        "# privlearn experiments",
        "",
        f"Mode: {'quick' if config.quick else 'full'}; seed: {_format_seed(config.seed)}; "
        f"n_jobs: {config.n_jobs}; privlearn {_privlearn_version()}.",
        "",
        "| experiment | title | paper | runtime (s) |",
        "|---|---|---|---:|",
    ]
    for experiment, meta in rows:
        link = f"[{experiment.name}]({experiment.name}/{meta['report']})"
        lines.append(
            f"| {link} | {_markdown_cell(experiment.title)} | {_markdown_cell(experiment.paper)}"
            f" | {meta['runtime_seconds']:.1f} |"
        )
    index = out / "index.md"
    _atomic_write_text(index, "\n".join(lines) + "\n")
    return index
