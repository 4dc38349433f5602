"""The neighbour replay harness (issue 16): run a private release on two neighbouring datasets
with the same seed and check, deterministically, everything that must not depend on the data.

A release is described by an :class:`Entry` (see ``tests/test_neighbour_replay.py`` for the
registry). For every pair of replace-one neighbours ``(a, b)`` it yields and every seed, the
release runs once on each side, each time with a fresh
:class:`~privlearn.accounting.Accountant` and ``rng=seed``, and :func:`check_pair` asserts:

(a) **control flow**: both sides return, or both raise the same exception type with the same
    message (an error after the data was read must not carry data-dependent values);
(b) **charge**: the two ledgers are identical (labels, budgets, kinds, native privacy events)
    and so is ``spent``;
(c) **shape**: the outputs have the same structure (types, dtypes, shapes, recursively through
    containers and the fitted attributes ``name_`` of estimators);
(d) **sensitivity of the release**: where the entry declares a noise-free part that moves
    additively with the same noise on both sides, ``||release(a) - release(b)|| <= Delta`` with
    ``Delta`` written in the test from the paper's formula (never read from the library);
(e) **mechanism calls** (a tap on the sampling functions of ``privlearn._core``, through which
    every public mechanism and every estimator draws): the two sides make the same calls with
    the same parameters (epsilon, delta, sensitivity, scale, sizes and shapes) up to the first
    call whose *output* differs (after it, adaptive composition lets the calls differ), each
    call's input moves by at most the sensitivity it was calibrated with (in the mechanism's
    norm: L-inf for score vectors, L1 for Laplace, L2 for Gaussian, absolute value for each
    sparse-vector query), and -- unless the entry relies on amplification by subsampling, which
    a replay with a fixed seed cannot see -- the privacy loss these calls bound for this pair,
    ``sum_i epsilon_i ||Delta input_i|| / sensitivity_i``, is at most the charged epsilon.

Tolerances (documented, not tuned): the exact samplers round the value to a grid of at most
``2^-20`` times the sensitivity per coordinate before adding integer noise, and the noisy grid
value is rounded once to a double. Two rounded values therefore differ from the true difference
by at most two grid steps per coordinate, at most ``2 * 2^-20 * Delta`` in the norms used (the
grid shrinks with ``d`` or ``sqrt(d)``), plus a few ulps of the output's magnitude. The checks
allow ``Delta * 2^-18`` (twice that) plus ``1e-12 * (1 + |output|)``; entries whose noise-free
part comes from an iterative solver declare their own (documented) relative tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from privlearn import _core
from privlearn.accounting import Accountant, Budget

#: Relative tolerance of the exact samplers' grid (two grid steps of at most 2^-20 Delta, doubled).
GRID_TOL = 2.0**-18
#: Absolute tolerance for the final rounding of the noisy value to a double.
ULP_TOL = 1e-12

Data = Any
Pair = Tuple[str, Data, Data]


@dataclass(frozen=True)
class Entry:
    """One private release in the replay registry.

    Attributes
    ----------
    name : str
        Test id.
    run : callable ``(data, accountant, seed) -> output``
        Builds the estimator or mechanism call with ``accountant`` and ``rng=seed`` and runs it
        on ``data`` (a fit, a fit then queries, a mechanism call on a query of the data...).
    pairs : callable ``() -> sequence of (label, data_a, data_b)``
        Replace-one neighbours inside the declared bounds.
    sensitivity : float, optional
        The declared sensitivity of ``release`` (written from the paper's formula).
    release : callable ``output -> array``, optional
        The part of the output that equals noise-free part + the same noise on both sides.
    norm : {0, 1, 2, inf}
        Norm of the sensitivity (0 counts the coordinates that differ).
    rel_tol : float
        Relative tolerance of the release check (see the module docstring).
    structure : callable ``output -> object``, optional
        Replaces :func:`structure` (for releases whose size is legitimately random).
    loss_sum : bool
        Check the per-pair loss sum of (e). Off when the guarantee uses amplification by
        subsampling (or another argument over the randomness a fixed seed hides), or when the
        release is not a privacy claim charged to the accountant.
    l2_noise : bool
        The release is ``noise-free part + l2_laplace_noise(d, scale)`` in the units of
        ``release``: the pair's privacy loss ``||Delta release|| / scale`` is added to the sum
        of check (e).
    expect_error : bool
        The release is expected to be refused on every pair (a regression test of a refusal);
        otherwise at least one run must succeed, so that an entry cannot pass vacuously.
    seeds : tuple of int
    total : Budget
        The accountant's total (large: the charge is compared, not limited).
    """

    name: str
    run: Callable[[Data, Accountant, int], Any]
    pairs: Callable[[], Sequence[Pair]]
    sensitivity: Optional[float] = None
    release: Optional[Callable[[Any], Any]] = None
    norm: float = 2
    rel_tol: float = GRID_TOL
    structure: Optional[Callable[[Any], Any]] = None
    loss_sum: bool = True
    l2_noise: bool = False
    expect_error: bool = False
    seeds: Tuple[int, ...] = (0, 1)
    total: Budget = field(default_factory=lambda: Budget(1e6, 0.5))


# ------------------------------------------------------------------------------------------
# The tap on the samplers
# ------------------------------------------------------------------------------------------


@dataclass
class Call:
    """One call of a sampling function of ``privlearn._core``."""

    name: str
    params: Dict[str, Any]
    value: Optional[np.ndarray] = None  # the data-dependent input
    sensitivity: Optional[float] = None
    epsilon: Optional[float] = None
    norm: float = math.inf
    output: Any = None


def _arr(x: Any) -> np.ndarray:
    return np.array(x, dtype=np.float64, copy=True, ndmin=0)


def _shape(x: Any) -> Tuple[int, ...]:
    return tuple(np.shape(x))


# name -> (positional parameter names, value parameter or None, sensitivity parameter,
#          epsilon parameter, norm). ``rng`` is never recorded.
_SPECS: Dict[str, Tuple[Tuple[str, ...], Optional[str], Optional[str], Optional[str], float]] = {
    "exponential": (
        ("scores", "epsilon", "sensitivity", "size", "rng", "numerics"),
        "scores",
        "sensitivity",
        "epsilon",
        math.inf,
    ),
    "report_noisy_max": (
        ("scores", "epsilon", "sensitivity", "noise", "rng"),
        "scores",
        "sensitivity",
        "epsilon",
        math.inf,
    ),
    "permute_and_flip": (
        ("scores", "epsilon", "sensitivity", "rng"),
        "scores",
        "sensitivity",
        "epsilon",
        math.inf,
    ),
    "stable_argmax": (
        ("scores", "epsilon", "delta", "sensitivity", "rng"),
        "scores",
        "sensitivity",
        "epsilon",
        math.inf,
    ),
    "laplace": (
        ("value", "sensitivity", "epsilon", "rng", "numerics"),
        "value",
        "sensitivity",
        "epsilon",
        1,
    ),
    "gaussian": (
        ("value", "sensitivity", "epsilon", "delta", "rng", "numerics", "calibration"),
        "value",
        "sensitivity",
        "epsilon",
        2,
    ),
    "l2_laplace_noise": (("dim", "scale", "size", "rng"), None, None, None, 2),
    "discrete_laplace": (("value", "scale", "rng"), None, None, None, 1),
    "discrete_gaussian": (("value", "sigma", "rng"), None, None, None, 2),
    "randomized_response": (("bits", "epsilon", "rng"), None, None, None, 0),
    "randomized_response_k": (("values", "k", "epsilon", "rng"), None, None, None, 0),
}


class Tap:
    """Context manager recording every call of the samplers in :data:`_SPECS` and every
    sparse-vector query (it replaces the attributes of ``privlearn._core``, which every caller
    reaches as ``_core.name``)."""

    def __init__(self) -> None:
        self.calls: List[Call] = []
        self._saved: Dict[str, Any] = {}

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        names, value_name, sens_name, eps_name, norm = _SPECS[name]
        calls = self.calls

        def tapped(*args: Any, **kwargs: Any) -> Any:
            bound = dict(zip(names, args))
            bound.update(kwargs)
            params: Dict[str, Any] = {}
            for key, val in bound.items():
                if key == "rng":
                    continue
                if key == value_name:
                    params["shape"] = _shape(val)
                elif key in ("bits", "values", "value"):
                    params["shape"] = _shape(val)  # data-dependent input without a sensitivity
                else:
                    params[key] = val
            call = Call(name, params, norm=norm)
            if value_name is not None:
                call.value = _arr(bound[value_name])
                call.sensitivity = float(bound[sens_name]) if sens_name else None
                call.epsilon = float(bound[eps_name]) if eps_name else None
            calls.append(call)
            out = fn(*args, **kwargs)
            call.output = np.array(out, copy=True) if out is not None else None
            return out

        return tapped

    def _wrap_svt(self, cls: Any) -> Callable[..., Any]:
        calls = self.calls

        def make(
            threshold: float, epsilon: float, sensitivity: float, max_positives: int, rng: Any
        ) -> Any:
            call = Call(
                "SparseVector",
                {
                    "threshold": threshold,
                    "epsilon": epsilon,
                    "sensitivity": sensitivity,
                    "max_positives": max_positives,
                },
                epsilon=float(epsilon),
            )
            calls.append(call)
            return _SVTProxy(
                cls(threshold, epsilon, sensitivity, max_positives, rng), float(sensitivity), calls
            )

        return make

    def __enter__(self) -> "Tap":
        for name in _SPECS:
            self._saved[name] = getattr(_core, name)
            setattr(_core, name, self._wrap(name, self._saved[name]))
        self._saved["SparseVector"] = _core.SparseVector
        _core.SparseVector = self._wrap_svt(self._saved["SparseVector"])
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, fn in self._saved.items():
            setattr(_core, name, fn)


class _SVTProxy:
    """Records each query of a sparse vector (value, sensitivity of the instance, answer)."""

    def __init__(self, inner: Any, sensitivity: float, calls: List[Call]) -> None:
        self._inner = inner
        self._sensitivity = sensitivity
        self._calls = calls

    def query(self, value: float) -> bool:
        call = Call(
            "SparseVector.query",
            {},
            value=_arr(value),
            sensitivity=self._sensitivity,
            norm=math.inf,
        )
        self._calls.append(call)
        call.output = bool(self._inner.query(value))
        return call.output

    def query_many(self, values: Any) -> Any:
        out = self._inner.query_many(values)
        vals = np.asarray(values, dtype=np.float64).ravel()
        for v, o in zip(vals, np.asarray(out).ravel()):
            c = Call(
                "SparseVector.query",
                {},
                value=_arr(v),
                sensitivity=self._sensitivity,
                norm=math.inf,
                output=bool(o),
            )
            self._calls.append(c)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


# ------------------------------------------------------------------------------------------
# One run, and the comparison of two
# ------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    value: Any
    error: Optional[Tuple[str, str]]
    ledger: Tuple[Tuple[str, Optional[Budget], str, Any], ...]
    spent: Budget
    calls: List[Call]


def run_once(entry: Entry, data: Data, seed: int) -> Outcome:
    acc = Accountant(entry.total)
    value: Any = None
    error: Optional[Tuple[str, str]] = None
    with Tap() as tap:
        try:
            value = entry.run(data, acc, seed)
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001 - the exception itself is compared
            error = (type(exc).__module__ + "." + type(exc).__qualname__, str(exc))
    # The native privacy event charged (issue 18) is compared too: the same mechanism, with the
    # same parameters, must be charged on both datasets.
    ledger = tuple((e.label, e.budget, e.kind, e.event) for e in acc.ledger)
    return Outcome(value, error, ledger, acc.spent, tap.calls)


def structure(obj: Any, depth: int = 0) -> Any:
    """A data-independent description of ``obj``: types, dtypes and shapes (no values),
    recursively through containers and the public fitted attributes (``name_``) of objects."""
    if depth > 6:
        return type(obj).__name__
    if obj is None or isinstance(obj, (bool, str, int, float, complex, np.generic)):
        return type(obj).__name__
    if isinstance(obj, np.ndarray):
        inner = (
            obj.dtype.str if obj.dtype != object else [structure(v, depth + 1) for v in obj.ravel()]
        )
        return ("ndarray", inner, obj.shape)
    if isinstance(obj, Budget):
        return "Budget"
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [structure(v, depth + 1) for v in obj])
    if isinstance(obj, dict):
        return ("dict", sorted((str(k), structure(v, depth + 1)) for k, v in obj.items()))
    fitted = {}
    for name in sorted(dir(obj)):
        if name.endswith("_") and not name.startswith("_"):
            try:
                val = getattr(obj, name)
            except Exception as exc:  # noqa: BLE001 - a property refusing is part of the shape
                val = ("raises", type(exc).__name__)
            if not callable(val) or isinstance(val, np.ndarray):
                fitted[name] = structure(val, depth + 1)
    return (type(obj).__name__, sorted(fitted.items()))


def _dist(a: np.ndarray, b: np.ndarray, norm: float) -> float:
    """Distance in ``norm``; equal infinities (excluded candidates) count as no change."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, f"shapes differ: {a.shape} vs {b.shape}"
    same_inf = np.isinf(a) & (a == b)
    assert np.array_equal(np.isinf(a), np.isinf(b)) and np.all(same_inf == np.isinf(a)), (
        "the excluded (infinite) entries differ between neighbours"
    )
    d = np.where(same_inf, 0.0, a - b).ravel()
    if d.size == 0:
        return 0.0
    if norm == 0:
        return float(np.count_nonzero(d))
    if norm == math.inf:
        return float(np.max(np.abs(d)))
    if norm == 1:
        return float(np.sum(np.abs(d)))
    return float(np.sqrt(np.sum(d * d)))


def _magnitude(a: Any) -> float:
    a = np.asarray(a, dtype=np.float64)
    finite = a[np.isfinite(a)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def _same_output(x: Any, y: Any) -> bool:
    if x is None or y is None:
        return x is y
    return bool(np.shape(x) == np.shape(y) and np.array_equal(np.asarray(x), np.asarray(y)))


def _params_equal(p: Dict[str, Any], q: Dict[str, Any]) -> bool:
    if p.keys() != q.keys():
        return False
    for k in p:
        a, b = p[k], q[k]
        if isinstance(a, float) or isinstance(b, float):
            if not (
                a == b
                or (
                    isinstance(a, float)
                    and isinstance(b, float)
                    and math.isnan(a)
                    and math.isnan(b)
                )
            ):
                return False
        elif a != b:
            return False
    return True


def check_calls(entry: Entry, a: Outcome, b: Outcome, where: str) -> float:
    """Check (e) on the tapped calls; returns the pair's privacy loss bound from them."""
    loss = 0.0
    svt_eps: Optional[float] = None
    svt_moved = False
    for i, (ca, cb) in enumerate(zip(a.calls, b.calls)):
        tag = f"{where}: mechanism call {i} ({ca.name})"
        assert ca.name == cb.name, f"{tag}: the neighbour calls {cb.name} instead"
        assert _params_equal(ca.params, cb.params), (
            f"{tag}: parameters depend on the data: {ca.params} vs {cb.params}"
        )
        if ca.name == "SparseVector":
            svt_eps, svt_moved = ca.epsilon, False
        if ca.value is not None and cb.value is not None:
            d = _dist(ca.value, cb.value, ca.norm)
            sens = ca.sensitivity
            assert sens is not None and sens > 0
            assert d <= sens * (1 + 1e-12), (
                f"{tag}: input moved by {d!r} > the sensitivity {sens!r} it was calibrated with"
            )
            if ca.epsilon is not None:
                draws = ca.params.get("size")
                loss += ca.epsilon * (1 if draws is None else int(draws)) * d / sens
            elif (
                ca.name == "SparseVector.query" and d > 0 and not svt_moved and svt_eps is not None
            ):
                svt_moved = True
                loss += svt_eps  # AboveThreshold's loss is at most its epsilon once a query moves
        if not _same_output(ca.output, cb.output):
            return loss  # adaptive composition: later calls may legitimately differ
    assert len(a.calls) == len(b.calls), (
        f"{where}: {len(a.calls)} vs {len(b.calls)} mechanism calls with identical outputs so far"
    )
    return loss


def check_pair(entry: Entry, label: str, data_a: Data, data_b: Data, seed: int) -> bool:
    """Run ``entry`` on both neighbours with ``seed`` and assert checks (a)-(e); returns whether
    the release succeeded."""
    where = f"{entry.name} [{label}, seed {seed}]"
    a = run_once(entry, data_a, seed)
    b = run_once(entry, data_b, seed)
    # (a) control flow and exceptions
    assert a.error == b.error, f"{where}: control flow depends on the data: {a.error} vs {b.error}"
    # (b) charge
    assert a.ledger == b.ledger, (
        f"{where}: the charge depends on the data: {a.ledger} vs {b.ledger}"
    )
    assert a.spent == b.spent, f"{where}: spent {a.spent} vs {b.spent}"
    # (e) mechanism calls (also on a refused run: nothing may have been drawn differently)
    loss = check_calls(entry, a, b, where)
    if a.error is not None:
        return False
    # (c) shape
    shape_of = entry.structure or structure
    sa, sb = shape_of(a.value), shape_of(b.value)
    assert sa == sb, f"{where}: the output's shape depends on the data:\n{sa}\nvs\n{sb}"
    # (d) sensitivity of the noise-free part
    if entry.release is not None:
        ra = np.asarray(entry.release(a.value), dtype=np.float64)
        rb = np.asarray(entry.release(b.value), dtype=np.float64)
        d = _dist(ra, rb, entry.norm)
        if entry.sensitivity is not None:
            bound = entry.sensitivity * (1 + entry.rel_tol) + ULP_TOL * (
                1 + max(_magnitude(ra), _magnitude(rb))
            )
            assert d <= bound, (
                f"{where}: the release moved by {d!r} > the declared sensitivity {entry.sensitivity!r}"
            )
        if entry.l2_noise:
            scales = [c.params["scale"] for c in a.calls if c.name == "l2_laplace_noise"]
            assert len(scales) == 1, (
                f"{where}: expected one l2_laplace_noise draw, saw {len(scales)}"
            )
            loss += d / float(scales[0])
    if entry.loss_sum and a.calls:
        eps = a.spent.epsilon
        assert loss <= eps * (1 + 1e-9) + 1e-12, (
            f"{where}: the mechanism calls bound this pair's privacy loss by {loss!r} > the charged epsilon {eps!r}"
        )
    return True


def check_entry(entry: Entry) -> int:
    """All pairs and seeds of ``entry``; returns the number of pairs replayed."""
    count = succeeded = 0
    for label, data_a, data_b in entry.pairs():
        for seed in entry.seeds:
            succeeded += check_pair(entry, label, data_a, data_b, seed)
            count += 1
    assert count > 0, f"{entry.name}: no neighbouring pairs"
    if entry.expect_error:
        assert succeeded == 0, f"{entry.name}: expected a refusal, but {succeeded} runs succeeded"
    else:
        assert succeeded > 0, f"{entry.name}: every run was refused (the entry is vacuous)"
    return count


# ------------------------------------------------------------------------------------------
# Neighbour generators
# ------------------------------------------------------------------------------------------


def replace_row(
    data: Tuple[np.ndarray, ...], index: int, row: Tuple[Any, ...]
) -> Tuple[np.ndarray, ...]:
    """``data`` (a tuple of arrays with one record per row) with record ``index`` replaced."""
    out = []
    for arr, value in zip(data, row):
        arr = np.array(arr, copy=True)
        arr[index] = value
        out.append(arr)
    return tuple(out)


def row_of(data: Tuple[np.ndarray, ...], index: int) -> Tuple[Any, ...]:
    return tuple(np.array(arr[index], copy=True) for arr in data)


def replace_one_pairs(
    base: Tuple[np.ndarray, ...],
    rows: Sequence[Tuple[str, Tuple[Any, ...]]],
    *,
    index: int = 0,
    cross: Iterable[Tuple[int, int]] = ((0, 1),),
    duplicate_of: Optional[int] = 1,
) -> List[Pair]:
    """Replace-one neighbours of ``base`` at record ``index``.

    Pairs: the base against each replacement in ``rows`` (extreme rows at the declared bounds,
    sign and label flips, a row at zero, ...), the base against a copy of record
    ``duplicate_of`` (a duplicated row), and replacement ``i`` against replacement ``j`` for
    each ``(i, j)`` in ``cross`` (for example both extremes: the worst case).
    """
    pairs: List[Pair] = []
    for label, row in rows:
        pairs.append((f"original vs {label}", base, replace_row(base, index, row)))
    if duplicate_of is not None:
        pairs.append(
            ("original vs duplicate", base, replace_row(base, index, row_of(base, duplicate_of)))
        )
    for i, j in cross:
        la, ra = rows[i]
        lb, rb = rows[j]
        pairs.append((f"{la} vs {lb}", replace_row(base, index, ra), replace_row(base, index, rb)))
    return pairs
