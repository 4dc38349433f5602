"""The audit engine: lower confidence bounds on a privacy parameter from a mechanism's outputs
on two neighbouring inputs, for any *objective* -- the lower bound on the parameter that the
counts of one event ``S`` give (``epsilon``, ``delta`` at a fixed epsilon, or the Gaussian-DP
``mu``; see :mod:`privlearn.audit._intervals`). Event selection without double dipping
(candidate threshold, value and likelihood-ratio events chosen and scored on a selection split,
the best ones evaluated on the held-out samples), explicit event families, and the Bonferroni
accounting of the tests made: every event ``S`` is tried as ``S`` and its complement, each in
both directions (``a`` over ``b`` and ``b`` over ``a``), and every one-sided Clopper--Pearson
bound used is counted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._validate import check_probability
from ..errors import InvalidParameterError
from ._cells import _build_cells, _Cells, _fmt
from ._intervals import _gdp_bound, _hockey_stick_bound, _log_ratio_bound
from ._results import Event
from ._samples import _check_samples

# Fraction of each side's samples used to choose events when ``events="auto"``.
_SELECT_FRACTION = 0.1
# Number of (event, direction) tests kept for the final, Bonferroni-corrected bound.
_FINAL_TESTS = 8

EventsArg = Union[str, Callable[[np.ndarray], Any], Sequence[Any], np.ndarray]


# score(k_num, n_num, k_den, n_den, level): the lower bound on the audited quantity given by the
# one-sided level-``level`` Clopper--Pearson bounds lo(P_num(S)) (from k_num of n_num samples)
# and hi(P_den(S)) (from k_den of n_den); non-decreasing in lo and non-increasing in hi, so it
# is a valid lower bound whenever both confidence bounds hold.
Score = Callable[[Any, Any, Any, Any, float], np.ndarray]


@dataclass(frozen=True)
class _Objective:
    """What the engine lower-bounds: ``quantity`` (``"epsilon"``, ``"delta"`` or ``"mu"``) and
    the per-event ``score``. With ``predict``, the selection split scores each candidate by the
    bound it would give on the held-out samples if their frequencies were those of the
    selection split (its counts scaled to the held-out sizes); otherwise by the bound it gives
    on the selection split itself. An additive quantity (delta) needs the former: at the
    selection split's size the confidence bounds' widths swamp every difference and the
    emptiest events would score best."""

    quantity: str
    score: Score
    predict: bool = False


def _epsilon_objective(delta: float) -> _Objective:
    """``ln((lo P_num(S) - delta) / hi P_den(S))``: epsilon at ``delta``."""
    return _Objective(
        "epsilon", lambda kn, nn, kd, nd, a: _log_ratio_bound(kn, nn, kd, nd, a, delta)
    )


def _delta_objective(epsilon: float) -> _Objective:
    """``lo P_num(S) - e^epsilon hi P_den(S)``: the hockey-stick divergence at ``e^epsilon``."""
    return _Objective(
        "delta", lambda kn, nn, kd, nd, a: _hockey_stick_bound(kn, nn, kd, nd, a, epsilon), True
    )


def _mu_objective() -> _Objective:
    """``Phi^-1(lo P_num(S)) - Phi^-1(hi P_den(S))``: the Gaussian-DP mu."""
    return _Objective("mu", _gdp_bound)


def _split(n: int) -> int:
    """Size of the selection split of n samples."""
    if n < 2:
        return 0
    return min(n - 1, max(1, int(round(_SELECT_FRACTION * n))))


@dataclass
class _Test:
    mask: np.ndarray  # cells in the event
    numerator: str  # "a" or "b"
    description: str


def _candidate_events(
    cells: _Cells, ca: np.ndarray, cb: np.ndarray, na: int, nb: int
) -> np.ndarray:
    """Events (rows: cell masks) to try on the selection split: threshold sets (prefixes in the
    natural order, for ordered outputs), single cells, and likelihood-ratio sets (prefixes in the
    order of the estimated ratio P_a / P_b; their complements cover the reverse direction)."""
    C = cells.n_cells
    parts = []
    if cells.ordered:
        parts.append(np.tri(C, dtype=bool)[:-1])  # row j: cells 0..j
    seen = np.flatnonzero((ca + cb) > 0)
    parts.append(np.eye(C, dtype=bool)[seen])
    if len(seen) > 1:
        ratio = ((ca[seen] + 0.5) / na) / ((cb[seen] + 0.5) / nb)
        rank = np.full(C, C + 1)
        rank[seen[np.argsort(-ratio, kind="stable")]] = np.arange(len(seen))
        parts.append(rank[None, :] < np.arange(1, len(seen))[:, None])
    masks = np.concatenate(parts)
    # an event and its complement give the same four tests: keep one of each pair, once
    masks = np.where(masks[:, :1], ~masks, masks)
    masks = masks[masks.any(axis=1)]
    packed = np.ascontiguousarray(np.packbits(masks, axis=1))
    rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(rows, return_index=True)
    return masks[np.sort(first)]


def _select_tests(
    cells: _Cells,
    ca_sel: np.ndarray,
    cb_sel: np.ndarray,
    alpha: float,
    objective: _Objective,
    n_out: Tuple[int, int],
) -> List[_Test]:
    C = cells.n_cells
    # The first half of the selection split orders the cells by likelihood ratio; the second
    # half scores the candidates, so that an ordering fitted to noise is not rewarded.
    ha, hb = len(ca_sel) // 2, len(cb_sel) // 2
    na, nb = len(ca_sel) - ha, len(cb_sel) - hb
    if ha == 0 or hb == 0:
        return []
    ca1 = np.bincount(ca_sel[:ha], minlength=C)[:C]
    cb1 = np.bincount(cb_sel[:hb], minlength=C)[:C]
    masks = _candidate_events(cells, ca1, cb1, ha, hb)
    ca = np.bincount(ca_sel[ha:], minlength=C)[:C]
    cb = np.bincount(cb_sel[hb:], minlength=C)[:C]
    if len(masks) == 0:
        return []
    ka: np.ndarray = masks @ ca
    kb: np.ndarray = masks @ cb
    if objective.predict:
        ka, kb = ka * (n_out[0] / na), kb * (n_out[1] / nb)
        na, nb = n_out
    # four tests per event: S and its complement, each in both directions
    a_sel = alpha / (2 * _FINAL_TESTS)
    score = objective.score
    scores = np.stack(
        [
            score(ka, na, kb, nb, a_sel),
            score(kb, nb, ka, na, a_sel),
            score(na - ka, na, nb - kb, nb, a_sel),
            score(nb - kb, nb, na - ka, na, a_sel),
        ]
    )
    flat = np.argsort(-scores, axis=None, kind="stable")
    tests: List[_Test] = []
    for f in flat:
        if len(tests) == _FINAL_TESTS:
            break
        kind, e = divmod(int(f), len(masks))
        if not np.isfinite(scores[kind, e]) and tests:
            break
        mask = masks[e] if kind < 2 else ~masks[e]
        numerator = "a" if kind in (0, 2) else "b"
        tests.append(_Test(mask, numerator, cells.describe(mask)))
    return tests


def _evaluate(
    tests: List[_Test],
    ca_out: np.ndarray,
    cb_out: np.ndarray,
    C: int,
    alpha: float,
    objective: _Objective,
) -> Tuple[float, Optional[Event]]:
    na, nb = len(ca_out), len(cb_out)
    if not tests or na == 0 or nb == 0:
        return 0.0, None
    ca = np.bincount(ca_out, minlength=C)[:C]
    cb = np.bincount(cb_out, minlength=C)[:C]
    a_each = alpha / (2 * len(tests))
    best, best_event = 0.0, None
    for t in tests:
        ka, kb = int(ca[t.mask].sum()), int(cb[t.mask].sum())
        if t.numerator == "a":
            b = float(objective.score(ka, na, kb, nb, a_each))
        else:
            b = float(objective.score(kb, nb, ka, na, a_each))
        if b > best:
            best = b
            best_event = Event(t.description, t.numerator, ka, kb, na, nb, b)
    return best, best_event


def _fixed_events(
    events: Any, xa: np.ndarray, xb: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Indicator matrices (n, K) of an explicit event family on both sides, and descriptions."""

    def as_masks(out: Any, n: int, what: str) -> np.ndarray:
        m = np.asarray(out)
        if m.ndim == 1:
            m = m[:, None]
        if m.ndim != 2 or m.shape[0] != n or m.dtype.kind not in "bi":
            raise InvalidParameterError(
                f"events: {what} must return a boolean array of shape (n,) or (n, k) for n "
                f"samples, got {m.dtype} of shape {np.shape(out)}",
                "events",
            )
        return m.astype(bool, copy=False)

    if callable(events):
        name = getattr(events, "__name__", "events")
        ma = as_masks(events(xa), len(xa), name)
        mb = as_masks(events(xb), len(xb), name)
        if ma.shape[1] != mb.shape[1]:
            raise InvalidParameterError(
                "events: returned different numbers of events per side", "events"
            )
        k = ma.shape[1]
        descr = [f"{name}(x)" if k == 1 else f"{name}(x)[{i}]" for i in range(k)]
        return ma, mb, descr
    items = list(events)
    if not items:
        raise InvalidParameterError("events: must not be empty", "events")
    if all(callable(e) for e in items):
        cols_a, cols_b, descr = [], [], []
        for i, e in enumerate(items):
            name = getattr(e, "__name__", f"events[{i}]")
            if name == "<lambda>":
                name = f"events[{i}]"
            cols_a.append(as_masks(e(xa), len(xa), name)[:, 0])
            cols_b.append(as_masks(e(xb), len(xb), name)[:, 0])
            descr.append(f"{name}(x)")
        return np.stack(cols_a, axis=1), np.stack(cols_b, axis=1), descr
    thresholds = np.asarray(items)
    if (
        thresholds.ndim != 1
        or thresholds.dtype.kind not in "biuf"
        or np.isnan(thresholds.astype(float)).any()
    ):
        raise InvalidParameterError(
            "events: must be 'auto', a callable, a sequence of callables, or a sequence of "
            "numeric thresholds",
            "events",
        )
    if xa.ndim != 1 or xb.ndim != 1 or xa.dtype.kind not in "biuf" or xb.dtype.kind not in "biuf":
        raise InvalidParameterError(
            "events: thresholds need one-dimensional numeric samples", "events"
        )
    ma = xa[:, None] <= thresholds[None, :]
    mb = xb[:, None] <= thresholds[None, :]
    return ma, mb, [f"x <= {_fmt(t)}" for t in thresholds]


def _bound_fixed(
    events: Any, xa: np.ndarray, xb: np.ndarray, alpha: float, objective: _Objective
) -> Tuple[float, Optional[Event]]:
    ma, mb, descr = _fixed_events(events, xa, xb)
    na, nb = len(xa), len(xb)
    ka = ma.sum(axis=0)
    kb = mb.sum(axis=0)
    K = len(descr)
    a_each = alpha / (4 * K)  # lower and upper bounds on P_a(S) and P_b(S), every event
    score = objective.score
    rows = [
        (score(ka, na, kb, nb, a_each), "a", False),
        (score(kb, nb, ka, na, a_each), "b", False),
        (score(na - ka, na, nb - kb, nb, a_each), "a", True),
        (score(nb - kb, nb, na - ka, na, a_each), "b", True),
    ]
    best, best_event = 0.0, None
    for values, numerator, complement in rows:
        i = int(np.argmax(values))
        if values[i] > best:
            best = float(values[i])
            d = f"not ({descr[i]})" if complement else descr[i]
            ca_i = int(na - ka[i]) if complement else int(ka[i])
            cb_i = int(nb - kb[i]) if complement else int(kb[i])
            best_event = Event(d, numerator, ca_i, cb_i, na, nb, best)
    return best, best_event


def _engine_bound(
    samples_a: Any, samples_b: Any, alpha: float, objective: _Objective, events: EventsArg
) -> Tuple[float, Optional[Event]]:
    """The largest lower bound ``objective`` gives over the tests of ``events`` (or 0.0), and
    the event attaining it; all confidence bounds hold together with probability ``1 - alpha``.
    """
    alpha = check_probability(alpha, "alpha")
    xa = _check_samples(samples_a, "samples_a")
    xb = _check_samples(samples_b, "samples_b")
    if isinstance(events, str):
        if events != "auto":
            raise InvalidParameterError(
                f"events: must be 'auto', a callable or a sequence, got {events!r}", "events"
            )
        if xa.ndim > 2 or xb.ndim > 2:
            raise InvalidParameterError(
                f"samples_a: outputs must be scalars or vectors for events='auto', got shapes "
                f"{xa.shape} and {xb.shape}",
                "samples_a",
            )
        if xa.ndim != xb.ndim or (xa.ndim == 2 and xa.shape[1] != xb.shape[1]):
            raise InvalidParameterError(
                f"samples_b: outputs must have the shape of samples_a's, got {xb.shape[1:]} and {xa.shape[1:]}",
                "samples_b",
            )
        sa_n, sb_n = _split(len(xa)), _split(len(xb))
        if sa_n == 0 or sb_n == 0:
            return 0.0, None
        cells, ca_sel, cb_sel, ca_out, cb_out = _build_cells(
            xa[:sa_n], xb[:sb_n], xa[sa_n:], xb[sb_n:]
        )
        n_out = (len(xa) - sa_n, len(xb) - sb_n)
        tests = _select_tests(cells, ca_sel, cb_sel, alpha, objective, n_out)
        return _evaluate(tests, ca_out, cb_out, cells.n_cells, alpha, objective)
    return _bound_fixed(events, xa, xb, alpha, objective)
