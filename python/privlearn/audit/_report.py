"""The audit report: a Markdown page and a JSON document for an
:class:`~privlearn.audit.AuditResult` or a :class:`~privlearn.audit.NeighbourAudit`, and a PNG of
the trade-off band against the claim's curve when there is one (:func:`write_report`,
:func:`verdict_line`).

Every file is written to a temporary file in the output directory and renamed into place
(:func:`os.replace`), after everything was rendered in memory: a failure leaves the previous
report or no report, never half of one.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from ..errors import InvalidParameterError
from ._neighbours import NeighbourAudit
from ._results import AuditResult

__all__ = ["write_report", "verdict_line"]

JSON_NAME = "audit.json"
MARKDOWN_NAME = "audit.md"
PLOT_NAME = "tradeoff.png"


def _split(result: Any) -> Tuple[AuditResult, Optional[NeighbourAudit]]:
    if isinstance(result, NeighbourAudit):
        return result.result, result
    if isinstance(result, AuditResult):
        return result, None
    raise InvalidParameterError(
        f"result: must be an AuditResult or a NeighbourAudit, got {type(result).__name__}",
        "result",
    )


def _claim_text(res: AuditResult) -> str:
    if res.claimed_mu is not None:
        return f"mu = {res.claimed_mu:g} (Gaussian DP)"
    if res.claimed_delta:
        return f"(epsilon, delta) = ({res.claimed_epsilon:g}, {res.claimed_delta:g})"
    return f"epsilon = {res.claimed_epsilon:g} (pure DP)"


def _bound_text(res: AuditResult) -> str:
    q = res.quantity
    at = f" at epsilon = {res.claimed_epsilon:g}" if q == "delta" else ""
    return f"{q} >= {res.bound:.6g}{at} (confidence 1 - {res.alpha:g})"


def verdict_line(result: Union[AuditResult, NeighbourAudit]) -> str:
    """One line: ``REFUTED`` or ``not refuted``, the bound with its confidence, the claim, the
    samples and (for a neighbour search) the pair.

    Examples
    --------
    >>> from privlearn.audit import audit, verdict_line
    >>> def laplace(center):
    ...     return lambda g, size: center + g.laplace(0.0, 1.0, size=size)
    >>> print(verdict_line(audit(laplace(0.0), laplace(3.0), 1.0, n=20_000, rng=0))[:30])
    REFUTED: epsilon >= 2.8...
    """
    res, found = _split(result)
    word = "not refuted" if res.passed else "REFUTED"
    cmp = "<=" if res.passed else ">"
    line = (
        f"{word}: {_bound_text(res)}, {cmp} the claimed {res.quantity} "
        f"{res.claimed_value:g}; claim {_claim_text(res)}; n = {res.n} per side"
    )
    if found is not None:
        line += f"; worst of {len(found.pilot)} {found.notion} pairs: {found.pair}"
    return line


def _verdict_words(res: AuditResult) -> str:
    q = res.quantity
    conf = f"{100 * (1 - res.alpha):.6g}%"
    if not res.passed:
        return (
            f"**The claim is refuted.** With confidence 1 - {res.alpha:g} ({conf}), the "
            f"mechanism's {q} is at least {res.bound:.6g}, more than the claimed "
            f"{res.claimed_value:g}. A correct mechanism produces such a result with "
            f"probability at most {res.alpha:g}."
        )
    return (
        f"**The claim is not refuted.** The lower confidence bound on {q}, {res.bound:.6g}, does "
        f"not exceed the claimed {res.claimed_value:g}. This is not a proof of privacy: an "
        f"audit tests only the neighbouring inputs and the events it tried."
    )


def _jsonable(obj: Any) -> Any:
    """Plain JSON values: numpy scalars and arrays converted, non-finite floats as ``None``
    (strict JSON has no infinities), as in :meth:`AuditResult.to_dict`."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _jsonable({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


def _json_document(result: Any, title: str, command: Optional[str]) -> Dict[str, Any]:
    from .. import __version__

    res, found = _split(result)
    doc: Dict[str, Any] = {
        "title": title,
        "privlearn_version": __version__,
        "command": command,
        "verdict": "passed" if res.passed else "refuted",
        "passed": bool(res.passed),
    }
    if found is not None:
        doc.update(found.to_dict())
    else:
        doc["result"] = res.to_dict()
    return dict(_jsonable(doc))


def _plot(res: AuditResult) -> Tuple[Optional[bytes], str]:
    """The PNG of the trade-off band and the claim's curve, or None and the reason."""
    curve = res.tradeoff
    if curve is None:
        return None, (
            "No trade-off plot: this audit computed no trade-off curve (run it with "
            '`method="tradeoff"`, or make a Gaussian-DP claim, to get one).'
        )
    try:
        # The Agg canvas directly (no pyplot): the user's pyplot backend is left alone. The audit
        # imports nothing above the foundation (tests/test_import_layers.py), so not the
        # experiments' figure helper.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None, (
            "No trade-off plot: matplotlib is not installed (install privlearn[plot]); the "
            "band's points are in audit.json."
        )
    from ._claims import tradeoff_function

    grid = np.linspace(0.0, 1.0, 501)
    fig = Figure(figsize=(5.0, 5.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(
        grid,
        tradeoff_function(res._claim(), grid),
        color="black",
        lw=1.5,
        label=f"claim: {_claim_text(res)}",
    )
    band = curve.downsampled()  # at most 512 points, a subset of the tests (still a band)
    ax.plot(
        band.type1_hat,
        band.type2_hat,
        ".",
        ms=2,
        color="tab:blue",
        alpha=0.6,
        label="tests: empirical errors",
    )
    ax.plot(
        band.type1,
        band.type2,
        ".",
        ms=3,
        color="tab:red",
        label=f"tests: upper confidence bounds (1 - {curve.alpha:g}, simultaneous)",
    )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("type I error")
    ax.set_ylabel("type II error")
    ax.set_title("trade-off: a red point below the claim's curve refutes it")
    ax.legend(loc="upper right", fontsize="small")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue(), ""


def _fmt_data(data: Any, limit: int = 12) -> str:
    arr = np.asarray(data)
    if len(arr) <= limit:
        return json.dumps(arr.tolist())
    return f"{json.dumps(arr[:limit].tolist())[:-1]}, ...] ({len(arr)} rows)"


def _markdown(
    result: Any, title: str, command: Optional[str], plot_note: str, plotted: bool
) -> str:
    from .. import __version__

    res, found = _split(result)
    distinguisher = res.distinguisher
    lines: List[str] = [f"# {title}", "", _verdict_words(res), "", "## Result", ""]
    rows = [
        ("verdict", "not refuted" if res.passed else "refuted"),
        ("lower confidence bound", _bound_text(res)),
        ("claim", _claim_text(res)),
        ("samples per side (n)", str(res.n)),
        ("alpha (false-positive rate)", f"{res.alpha:g}"),
        ("method", res.method),
        ("event", str(res.event) if res.event is not None else "none significant"),
        (
            "distinguisher",
            str(distinguisher)
            if distinguisher is not None
            else "none (threshold and value events of the output or its statistic)",
        ),
    ]
    curve = res.tradeoff
    if curve is not None and hasattr(curve, "worst_violation"):
        try:
            worst = curve.worst_violation(res._claim())
            rows.append(
                ("trade-off: worst violation of the claim's curve (> 0 refutes)", f"{worst:.6g}")
            )
        except Exception:  # pragma: no cover - a report never fails on an optional row
            pass
    lines += ["| | |", "|---|---|"]
    lines += [f"| {k} | {v.replace('|', '/')} |" for k, v in rows]
    if found is not None:
        lines += [
            "",
            "## Neighbours",
            "",
            f"Notion: {found.notion}. The worst of {len(found.pilot)} candidate pairs by the "
            f"pilot audits, audited again on fresh samples (the pilot bounds only rank the "
            f"pairs; the verdict is the final audit's). A search tries a finite family of pairs "
            f"only.",
            "",
            f"- pair: `{found.pair}`",
            f"- data_a: `{_fmt_data(found.data_a)}`",
            f"- data_b: `{_fmt_data(found.data_b)}`",
            "",
            "| pair | pilot bound |",
            "|---|---|",
        ]
        for name, bound in found.pilot:
            mark = " (chosen)" if name == found.pair else ""
            lines.append(f"| {name}{mark} | {bound:.4g} |")
    lines += ["", "## Trade-off", ""]
    lines.append(f"![trade-off curve]({PLOT_NAME})" if plotted else plot_note)
    lines += ["", "## Reproduce", ""]
    if command:
        lines += ["```", command, "```", ""]
    lines.append(f"privlearn {__version__}.")
    return "\n".join(lines) + "\n"


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_report(
    result: Union[AuditResult, NeighbourAudit],
    out_dir: Union[str, "os.PathLike[str]"],
    *,
    title: str = "privlearn audit",
    command: Optional[str] = None,
) -> Dict[str, Path]:
    """Write an audit's report to ``out_dir`` (created if needed).

    Files: ``audit.json`` (the result's dictionary, the command and privlearn's version),
    ``audit.md`` (the verdict in words first, then the bound with its confidence, the claim,
    ``n``, ``alpha``, the method, event and distinguisher, the neighbour pilot table of a
    search, and the plot or why there is none) and ``tradeoff.png`` (only when the result
    holds a trade-off curve and matplotlib is installed: the band's upper confidence bounds
    on (type I, type II) errors and the claim's curve from
    :func:`~privlearn.audit.tradeoff_function`). Non-finite numbers appear in the JSON as
    ``null``; its ``"verdict"`` is ``"passed"`` or ``"refuted"``.

    Everything is rendered before anything is written, and each file is renamed into place
    from a temporary file, so a failure leaves no half-written report. A ``tradeoff.png`` left
    by an earlier report in the same directory is removed when this one has no plot.

    Parameters
    ----------
    result : AuditResult or NeighbourAudit
    out_dir : str or path
    title : str, default "privlearn audit"
        The Markdown page's title.
    command : str, optional
        The command that produced the result (recorded in both files).

    Returns
    -------
    dict of str to pathlib.Path
        ``"json"``, ``"markdown"`` and, when written, ``"plot"``.

    Raises
    ------
    InvalidParameterError
        When ``result`` is not an :class:`~privlearn.audit.AuditResult` or a
        :class:`~privlearn.audit.NeighbourAudit` (nothing is written).

    Examples
    --------
    >>> import json, tempfile
    >>> from privlearn.audit import audit, write_report
    >>> def laplace(center):
    ...     return lambda g, size: center + g.laplace(0.0, 1.0, size=size)
    >>> res = audit(laplace(0.0), laplace(1.0), 1.0, n=20_000, rng=0)
    >>> paths = write_report(res, tempfile.mkdtemp(), command="example")
    >>> sorted(paths)
    ['json', 'markdown']
    >>> doc = json.loads(paths["json"].read_text())
    >>> doc["verdict"], doc["command"], doc["result"]["n"]
    ('passed', 'example', 20000)
    """
    _split(result)
    if not isinstance(title, str):
        raise InvalidParameterError(f"title: must be a str, got {type(title).__name__}", "title")
    if command is not None and not isinstance(command, str):
        raise InvalidParameterError(
            f"command: must be a str or None, got {type(command).__name__}", "command"
        )
    res, _ = _split(result)
    png, note = _plot(res)
    doc = _json_document(result, title, command)
    text_json = json.dumps(doc, indent=2, allow_nan=False) + "\n"
    text_md = _markdown(result, title, command, note, png is not None)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: Dict[str, Path] = {"json": out / JSON_NAME, "markdown": out / MARKDOWN_NAME}
    if png is not None:
        paths["plot"] = out / PLOT_NAME
        _write_atomic(paths["plot"], png)
    elif (out / PLOT_NAME).exists():
        (out / PLOT_NAME).unlink()
    _write_atomic(paths["json"], text_json.encode("utf-8"))
    _write_atomic(paths["markdown"], text_md.encode("utf-8"))
    return paths
