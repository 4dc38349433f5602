"""Output binning: partitions of the output space into cells, learned on the selection split,
whose unions are the candidate events of ``events="auto"``. Ordered (numeric) outputs get
intervals (quantiles, denser in the tails) or one cell per value and per gap between values;
unordered outputs (strings, integer vectors, any hashable) get one cell per frequent value and
one for all others. Each cell family can describe a union of its cells in words."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..errors import InvalidParameterError
from ._samples import _hashable, _object_array

# A numeric output with at most this many distinct values (in the selection split) is treated
# as discrete: every value is an event of its own.
_MAX_POINTS = 128
# An unordered output keeps its this many most frequent values (in the selection split) as
# events of their own; the others form one cell.
_MAX_CATEGORIES = 512
# Quantile levels per tail for the cells of a continuous output.
_TAIL_LEVELS = 40


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, np.generic):
        return repr(v.item())
    return repr(v)


class _Cells:
    """A partition of the outputs into cells; events are unions of cells."""

    ordered: bool
    n_cells: int

    def assign(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self, mask: np.ndarray) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class _OrderedCells(_Cells):
    """Cells of an ordered (numeric) output.

    ``kind="intervals"``: cells ``(e[j-1], e[j]]`` between sorted edges ``e`` (continuous
    outputs). ``kind="points"``: each value ``v[i]`` is a cell, and so is each gap between
    consecutive values (discrete outputs); cell ``2 i + 1`` is ``{v[i]}``, cell ``2 i`` the open
    gap below it.
    """

    ordered = True

    def __init__(self, values: np.ndarray, kind: str) -> None:
        self.values = values
        self.kind = kind
        L = len(values)
        self.n_cells = L + 1 if kind == "intervals" else 2 * L + 1
        # (low, low_closed, high, high_closed) of every cell
        lo: List[Any] = []
        hi: List[Any] = []
        loc: List[bool] = []
        hic: List[bool] = []
        if kind == "intervals":
            for j in range(L + 1):
                lo.append(values[j - 1] if j > 0 else -math.inf)
                hi.append(values[j] if j < L else math.inf)
                loc.append(False)
                hic.append(j < L)
        else:
            for j in range(2 * L + 1):
                i = j // 2
                if j % 2 == 1:
                    lo.append(values[i])
                    hi.append(values[i])
                    loc.append(True)
                    hic.append(True)
                else:
                    lo.append(values[i - 1] if i > 0 else -math.inf)
                    hi.append(values[i] if i < L else math.inf)
                    loc.append(False)
                    hic.append(False)
        self._lo, self._hi, self._loc, self._hic = lo, hi, loc, hic

    def assign(self, x: np.ndarray) -> np.ndarray:
        idx = np.searchsorted(self.values, x, side="left")
        if self.kind == "intervals":
            return idx
        L = len(self.values)
        exact = self.values[np.minimum(idx, L - 1)] == x
        exact &= idx < L
        return 2 * idx + exact

    def _run(self, s: int, t: int) -> str:
        lo, loc = self._lo[s], self._loc[s]
        hi, hic = self._hi[t], self._hic[t]
        lo_inf = isinstance(lo, float) and lo == -math.inf
        hi_inf = isinstance(hi, float) and hi == math.inf
        if lo_inf and hi_inf:
            return "any x"
        if lo_inf:
            return f"x {'<=' if hic else '<'} {_fmt(hi)}"
        if hi_inf:
            return f"x {'>=' if loc else '>'} {_fmt(lo)}"
        if loc and hic and lo == hi:
            return f"x == {_fmt(lo)}"
        return f"{_fmt(lo)} {'<=' if loc else '<'} x {'<=' if hic else '<'} {_fmt(hi)}"

    def describe(self, mask: np.ndarray) -> str:
        idx = np.flatnonzero(mask)
        if len(idx) == 0:
            return "no x"
        breaks = np.flatnonzero(np.diff(idx) > 1)
        starts = np.concatenate([[idx[0]], idx[breaks + 1]])
        ends = np.concatenate([idx[breaks], [idx[-1]]])
        if len(starts) > 6:
            return f"x in a union of {len(starts)} intervals"
        return " or ".join(self._run(int(s), int(t)) for s, t in zip(starts, ends))


class _CategoricalCells(_Cells):
    """Cells of an unordered output: one per value seen in the selection split, plus one for
    every other value."""

    ordered = False

    def __init__(self, labels: List[Any]) -> None:
        self.labels = labels
        self.index = {lab: i for i, lab in enumerate(labels)}
        self.n_cells = len(labels) + 1

    def assign(self, x: np.ndarray) -> np.ndarray:
        other = len(self.labels)
        return np.fromiter((self.index.get(v, other) for v in x), dtype=np.int64, count=len(x))

    def describe(self, mask: np.ndarray) -> str:
        idx = np.flatnonzero(mask)
        names = [_fmt(self.labels[i]) if i < len(self.labels) else "<other>" for i in idx]
        if len(names) == 1:
            return f"x == {names[0]}"
        if len(names) > 8:
            return f"x in a set of {len(names)} values"
        return "x in {" + ", ".join(names) + "}"


class _KeyCells(_CategoricalCells):
    """Categorical cells over integer keys (rows packed into int64), mapped vectorised."""

    def __init__(self, keys: np.ndarray, labels: List[Any]) -> None:
        super().__init__(labels)
        self.keys = keys  # sorted, unique

    def assign(self, x: np.ndarray) -> np.ndarray:
        L = len(self.keys)
        if L == 0:
            return np.zeros(len(x), dtype=np.int64)
        idx = np.searchsorted(self.keys, x)
        hit = (idx < L) & (self.keys[np.minimum(idx, L - 1)] == x)
        return np.where(hit, idx, L)


def _rows_to_keys(arrays: List[np.ndarray]) -> Optional[Tuple[List[np.ndarray], np.ndarray, int]]:
    """Pack integer rows into int64 keys (mixed radix) when they fit: (keys, mins, base)."""
    for x in arrays:
        if x.dtype.kind not in "biu" or (x.dtype.kind == "u" and x.dtype.itemsize == 8):
            return None
    d = arrays[0].shape[1]
    nonempty = [x for x in arrays if len(x)]
    if d == 0 or not nonempty:
        return [np.zeros(len(x), dtype=np.int64) for x in arrays], np.zeros(d, dtype=np.int64), 1
    mins = np.min([x.min(axis=0) for x in nonempty], axis=0).astype(np.int64)
    maxs = np.max([x.max(axis=0) for x in nonempty], axis=0).astype(np.int64)
    base = max(int(hi) - int(lo) for lo, hi in zip(mins, maxs)) + 1  # Python ints: no overflow
    if base**d >= 2**62:
        return None
    keys = []
    for x in arrays:
        k = np.zeros(len(x), dtype=np.int64)
        for j in range(d):
            k *= base
            k += x[:, j].astype(np.int64)
            k -= mins[j]
        keys.append(k)
    return keys, mins, base


def _top_values(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of the (at most _MAX_CATEGORIES) most frequent values, in their original order."""
    if len(values) <= _MAX_CATEGORIES:
        return np.arange(len(values))
    keep = np.argsort(-counts, kind="stable")[:_MAX_CATEGORIES]
    return np.sort(keep)


def _build_cells(
    sa: np.ndarray, sb: np.ndarray, xa: np.ndarray, xb: np.ndarray
) -> Tuple[_Cells, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Learn cells on the selection split (sa, sb); return them and the cell index of every
    selection and held-out sample: (cells, ca_sel, cb_sel, ca_out, cb_out)."""
    if sa.ndim == 1 and sb.ndim == 1 and sa.dtype.kind in "biuf" and sb.dtype.kind in "biuf":
        dtype = np.result_type(sa.dtype, sb.dtype)
        if dtype.kind == "b":
            dtype = np.dtype(np.int64)
        pooled = np.sort(np.concatenate([sa.astype(dtype), sb.astype(dtype)]))
        distinct = pooled[np.concatenate([[True], pooled[1:] != pooled[:-1]])]
        if len(distinct) <= _MAX_POINTS:
            cells: _Cells = _OrderedCells(distinct, "points")
        else:
            N = len(pooled)
            q = np.geomspace(min(0.5, 20.0 / N), 0.5, _TAIL_LEVELS)
            levels = np.concatenate([q, 1.0 - q])
            pos = np.clip(np.floor(levels * N).astype(np.int64), 0, N - 1)
            edges = np.unique(pooled[pos])
            cells = _OrderedCells(edges, "intervals")

        def assign(x: np.ndarray) -> np.ndarray:
            return cells.assign(x.astype(dtype, copy=False))

        return cells, assign(sa), assign(sb), assign(xa), assign(xb)

    if (
        sa.ndim == 2
        and sb.ndim == 2
        and sa.shape[1] == sb.shape[1]
        and sa.dtype.kind in "biu"
        and sb.dtype.kind in "biu"
    ):
        packed = _rows_to_keys([sa, sb, xa, xb])
        if packed is not None:
            (ka_sel, kb_sel, ka_out, kb_out), mins, base = packed
            keys, counts = np.unique(np.concatenate([ka_sel, kb_sel]), return_counts=True)
            keys = keys[_top_values(keys, counts)]
            d = sa.shape[1]
            digits = (keys[:, None] // base ** np.arange(d - 1, -1, -1, dtype=np.int64)) % base
            labels = [tuple((row + mins).tolist()) for row in digits]
            kcells = _KeyCells(keys, labels)
            return (
                kcells,
                kcells.assign(ka_sel),
                kcells.assign(kb_sel),
                kcells.assign(ka_out),
                kcells.assign(kb_out),
            )

    if sa.ndim >= 2 and sa.dtype.kind == "f" or sb.ndim >= 2 and sb.dtype.kind == "f":
        raise InvalidParameterError(
            "samples_a: vector outputs of a floating dtype have no default events; project them "
            "to scalars (audit's statistic=) or pass events=",
            "samples_a",
        )

    def hashables(x: np.ndarray) -> List[Any]:
        if x.ndim == 1:
            return [_hashable(v) for v in x]
        return [tuple(np.asarray(v).ravel().tolist()) for v in x]

    ha_sel, hb_sel = hashables(sa), hashables(sb)
    seen: Dict[Any, int] = {}
    for v in ha_sel + hb_sel:
        seen[v] = seen.get(v, 0) + 1
    values = list(seen)
    labels = [values[i] for i in _top_values(np.arange(len(values)), np.array(list(seen.values())))]
    try:
        labels.sort()
    except TypeError:
        pass
    ccells = _CategoricalCells(labels)
    return (
        ccells,
        ccells.assign(_object_array(ha_sel)),
        ccells.assign(_object_array(hb_sel)),
        ccells.assign(_object_array(hashables(xa))),
        ccells.assign(_object_array(hashables(xb))),
    )
