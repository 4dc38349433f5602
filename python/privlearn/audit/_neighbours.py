r"""Neighbour search: audit a mechanism on datasets on the worst of a finite family of
neighbouring pairs built from a declared domain (:class:`Domain`, :func:`neighbour_candidates`,
:func:`search_neighbours`, :class:`NeighbourAudit`).

An audit (:func:`~privlearn.audit.audit`) tests one pair of neighbouring inputs. Bugs in
sensitivities show up only on some pairs: a clipped mean on ``[-1, 1]`` calibrated as if the
lower bound were 0 (sensitivity ``upper / n`` instead of ``(upper - lower) / n`` under
replace-one) leaks only on pairs that move a row from one end of the range to the other, and
passes every audit on a pair that moves a row from the midpoint; a replace-one sensitivity used
for add/remove leaks only when a row is added. Searching a family of candidate pairs for the worst one and auditing it is the
dataset-search idea of DP-Auditorium (W. Kong, A. Muñoz Medina, M. Ribero, U. Syed,
"DP-Auditorium: a large scale library for auditing differential privacy", IEEE S&P 2024; github
google/differential-privacy, python/dp_auditorium), which splits testing into a distance
estimate between two output laws (its property testers) and a search for the neighbouring
datasets that maximise it (its dataset finders). Here the family is small
and fixed, made of the pairs where calibration errors are usually seen: the extremes of the
declared bounds, the midpoint against an extreme, per-column extremes and corners, duplicated
rows, seeded random pairs and, for add/remove neighbours, the empty dataset against a singleton.

**A search tries a finite family only.** A pair that is not in the family is not tested, so a
search that passes proves nothing about the pairs it did not try (and, like every black-box audit,
nothing about events of small probability).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._validate import check_choice, check_integer, check_probability
from ..errors import InvalidParameterError
from ..random import RngLike, as_generator, spawn_seeds
from ._audit import _takes_size
from ._results import AuditResult

__all__ = ["Domain", "NeighbourAudit", "neighbour_candidates", "search_neighbours"]

NOTIONS = ("replace-one", "add-remove")
# Seeded random pairs added to the generated family.
_RANDOM_PAIRS = 3

Pair = Tuple[str, np.ndarray, np.ndarray]


def _bound_vector(value: Any, name: str) -> np.ndarray:
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name}: must be a number or a 1-D array, got a bool", name)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name}: must be a number or a 1-D array of numbers, got {value!r}", name
        ) from None
    if arr.ndim > 1 or arr.size == 0:
        raise InvalidParameterError(
            f"{name}: must be a number or a non-empty 1-D array (one bound per column), got "
            f"shape {arr.shape}",
            name,
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{name}: bounds must be finite, got {value!r}", name)
    return arr


@dataclass(frozen=True, init=False)
class Domain:
    """The declared domain of a mechanism's datasets: rows of ``columns`` numbers, each column
    in ``[lower, upper]``, and the dataset size.

    Parameters
    ----------
    lower, upper : float or 1-D array
        The bounds of each column (a number: one column; arrays: one entry per column; a number
        next to an array is repeated for every column). ``lower < upper`` in every column.
    rows : int
        The dataset size (>= 1). Under replace-one neighbours both datasets have ``rows`` rows;
        under add/remove neighbours the larger one has at most ``rows`` rows.
    integer : bool, default False
        Whether values are integers (the bounds must then be integers; the midpoint rounds
        down).

    Attributes
    ----------
    lower, upper : tuple of float
        The bounds, one per column.
    rows : int
    integer : bool

    Examples
    --------
    >>> from privlearn.audit import Domain
    >>> d = Domain(0.0, [1.0, 10.0], rows=100)
    >>> d.columns, d.lower, d.upper
    (2, (0.0, 0.0), (1.0, 10.0))
    """

    lower: Tuple[float, ...]
    upper: Tuple[float, ...]
    rows: int
    integer: bool

    def __init__(self, lower: Any, upper: Any, rows: int, *, integer: bool = False) -> None:
        lo = _bound_vector(lower, "lower")
        hi = _bound_vector(upper, "upper")
        if lo.ndim == 1 and hi.ndim == 1 and lo.shape != hi.shape:
            raise InvalidParameterError(
                f"upper: must have one bound per column like lower ({lo.size}), got {hi.size}",
                "upper",
            )
        lo, hi = np.broadcast_arrays(np.atleast_1d(lo), np.atleast_1d(hi))
        if not np.all(lo < hi):
            raise InvalidParameterError(
                f"upper: must exceed lower in every column, got lower={lo.tolist()}, "
                f"upper={hi.tolist()}",
                "upper",
            )
        if not isinstance(integer, (bool, np.bool_)):
            raise InvalidParameterError(f"integer: must be a bool, got {integer!r}", "integer")
        if integer:
            for name, arr in (("lower", lo), ("upper", hi)):
                if not np.all(arr == np.round(arr)):
                    raise InvalidParameterError(
                        f"{name}: must be integers when integer=True, got {arr.tolist()}", name
                    )
        object.__setattr__(self, "lower", tuple(float(v) for v in lo))
        object.__setattr__(self, "upper", tuple(float(v) for v in hi))
        object.__setattr__(self, "rows", check_integer(rows, "rows", 1))
        object.__setattr__(self, "integer", bool(integer))

    @property
    def columns(self) -> int:
        """The number of columns."""
        return len(self.lower)

    @property
    def mid(self) -> np.ndarray:
        """The midpoint of each column (rounded down for integer domains)."""
        m = (np.asarray(self.lower) + np.asarray(self.upper)) / 2.0
        return np.floor(m) if self.integer else m

    def check(
        self, data: Any, name: str = "data", *, parameter: Optional[str] = None
    ) -> np.ndarray:
        """``data`` as a 2-D float array ``(rows, columns)`` inside the domain (any row count
        up to :attr:`rows`); an :class:`~privlearn.errors.InvalidParameterError` naming
        ``name`` (and ``parameter``, default ``name``, as its
        :attr:`~privlearn.errors.InvalidParameterError.parameter`) otherwise."""
        param = name if parameter is None else parameter
        try:
            arr = np.array(data, dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{name}: must be a 2-D array of numbers (rows, columns)", param
            ) from None
        if arr.size == 0 and arr.ndim <= 2 and (arr.ndim < 2 or arr.shape[0] == 0):
            arr = arr.reshape(0, self.columns)  # [] or an empty (0, k) array: no rows
        if arr.ndim != 2 or arr.shape[1] != self.columns:
            raise InvalidParameterError(
                f"{name}: must be a 2-D array (rows, {self.columns} columns), got shape "
                f"{arr.shape}",
                param,
            )
        if arr.shape[0] > self.rows:
            raise InvalidParameterError(
                f"{name}: has {arr.shape[0]} rows, more than the domain's {self.rows}", param
            )
        if not np.all(np.isfinite(arr)):
            raise InvalidParameterError(f"{name}: values must be finite", param)
        if not (np.all(arr >= np.asarray(self.lower)) and np.all(arr <= np.asarray(self.upper))):
            raise InvalidParameterError(
                f"{name}: values must lie within the domain's bounds lower={list(self.lower)}, "
                f"upper={list(self.upper)}",
                param,
            )
        if self.integer and not np.all(arr == np.round(arr)):
            raise InvalidParameterError(f"{name}: values must be integers (integer domain)", param)
        arr.setflags(write=False)
        return arr


def _replace_distance(a: np.ndarray, b: np.ndarray) -> int:
    """Rows of ``a`` not matched in ``b`` (multisets of rows)."""
    common = Counter(map(tuple, a.tolist())) & Counter(map(tuple, b.tolist()))
    return len(a) - sum(common.values())


def _check_relation(da: np.ndarray, db: np.ndarray, notion: str, what: str, param: str) -> None:
    """Refuse datasets that are not neighbours under ``notion`` (rows compared as multisets)."""
    if notion == "replace-one":
        if len(da) != len(db):
            raise InvalidParameterError(
                f"{param}: {what}: replace-one neighbours have the same number of rows, got "
                f"{len(da)} and {len(db)}",
                param,
            )
        if _replace_distance(da, db) > 1:
            raise InvalidParameterError(
                f"{param}: {what} differs in more than one row (replace-one)", param
            )
        return
    small, large = (da, db) if len(da) < len(db) else (db, da)
    if len(large) - len(small) != 1 or _replace_distance(small, large) != 0:
        raise InvalidParameterError(
            f"{param}: {what}: add/remove neighbours are one dataset and the same with one row "
            f"added, got {len(da)} and {len(db)} rows",
            param,
        )


def _check_pair(domain: Domain, notion: str, name: str, a: Any, b: Any) -> Pair:
    da = domain.check(a, f"candidates[{name!r}][1]", parameter="candidates")
    db = domain.check(b, f"candidates[{name!r}][2]", parameter="candidates")
    if notion == "replace-one" and (len(da) != domain.rows or len(db) != domain.rows):
        raise InvalidParameterError(
            f"candidates: pair {name!r}: replace-one datasets must both have the domain's "
            f"{domain.rows} rows, got {len(da)} and {len(db)}",
            "candidates",
        )
    _check_relation(da, db, notion, f"pair {name!r}", "candidates")
    return name, da, db


def _check_candidates(candidates: Any, domain: Domain, notion: str) -> List[Pair]:
    if isinstance(candidates, (str, bytes)) or not hasattr(candidates, "__iter__"):
        raise InvalidParameterError(
            "candidates: must be a sequence of (name, data_a, data_b) triples", "candidates"
        )
    pairs: List[Pair] = []
    for item in candidates:
        if not (isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str)):
            raise InvalidParameterError(
                f"candidates: each candidate must be a (name, data_a, data_b) triple with a str "
                f"name, got {type(item).__name__}",
                "candidates",
            )
        pairs.append(_check_pair(domain, notion, item[0], item[1], item[2]))
    if not pairs:
        raise InvalidParameterError("candidates: must hold at least one pair", "candidates")
    names = [p[0] for p in pairs]
    if len(set(names)) != len(names):
        raise InvalidParameterError("candidates: names must be distinct", "candidates")
    return pairs


def _replacements(
    domain: Domain, gen: np.random.Generator
) -> List[Tuple[str, np.ndarray, int, np.ndarray]]:
    """The replace-one family as (name, base dataset, replaced row index, new row)."""
    R, C = domain.rows, domain.columns
    lo, hi, mid = np.asarray(domain.lower), np.asarray(domain.upper), domain.mid
    last = R - 1
    out: List[Tuple[str, np.ndarray, int, np.ndarray]] = []

    def fill(row: np.ndarray) -> np.ndarray:
        return np.tile(row, (R, 1))

    out.append(("low-vs-one-high", fill(lo), last, hi))
    out.append(("high-vs-one-low", fill(hi), last, lo))
    out.append(("mid-vs-one-low", fill(mid), last, lo))
    out.append(("mid-vs-one-high", fill(mid), last, hi))
    if C > 1:
        for j in range(C):
            up = lo.copy()
            up[j] = hi[j]
            down = hi.copy()
            down[j] = lo[j]
            out.append((f"low-vs-one-high[col {j}]", fill(lo), last, up))
            out.append((f"high-vs-one-low[col {j}]", fill(hi), last, down))
    if 1 < C <= 3:
        for bits in itertools.product((0, 1), repeat=C):
            corner = np.where(np.array(bits) == 1, hi, lo)
            opposite = np.where(np.array(bits) == 1, lo, hi)
            label = "".join(map(str, bits))
            flipped = "".join(str(1 - b) for b in bits)
            out.append((f"corner {label}-vs-one-{flipped}", fill(corner), last, opposite))
            out.append((f"low-vs-one-corner {label}", fill(lo), last, corner))
            out.append((f"high-vs-one-corner {label}", fill(hi), last, corner))
    if R >= 2:
        spread = np.linspace(lo, hi, R)
        if domain.integer:
            spread = np.round(spread)
        out.append(("spread-vs-duplicate-high", spread, 0, spread[-1].copy()))
        half = np.vstack([np.tile(lo, ((R + 1) // 2, 1)), np.tile(hi, (R // 2, 1))])
        out.append(("half-low-half-high-vs-one-more-high", half, (R + 1) // 2 - 1, hi))
    for k in range(_RANDOM_PAIRS):
        if domain.integer:
            base = gen.integers(lo, hi + 1, size=(R, C)).astype(float)
            new = gen.integers(lo, hi + 1).astype(float)
        else:
            base = gen.uniform(lo, hi, size=(R, C))
            new = gen.uniform(lo, hi)
        out.append((f"random-{k + 1}", base, int(gen.integers(R)), new))
    return out


def _key(a: np.ndarray, b: np.ndarray) -> Tuple[Any, ...]:
    ka = (a.shape, a.tobytes())
    kb = (b.shape, b.tobytes())
    return (ka, kb) if ka <= kb else (kb, ka)


def neighbour_candidates(
    domain: Domain, *, notion: str = "replace-one", rng: RngLike = 0
) -> List[Pair]:
    """The candidate pairs :func:`search_neighbours` tries: a list of ``(name, data_a, data_b)``
    (read-only 2-D float arrays).

    **replace-one** (both datasets have ``domain.rows`` rows; the last row, or the named one,
    is replaced): ``low-vs-one-high`` (every row at the lower bounds against the same with one
    row at the upper bounds), ``high-vs-one-low``, ``mid-vs-one-low``, ``mid-vs-one-high``;
    with several columns, one column at a time (``low-vs-one-high[col j]``,
    ``high-vs-one-low[col j]``) and, with at most three columns, every corner of the box
    (all rows at a corner against one row at the opposite corner, and all rows low or high
    against one row at each corner); with at least two rows, duplicated rows
    (``spread-vs-duplicate-high``: evenly spread rows against the same with the lowest row
    replaced by a copy of the highest; ``half-low-half-high-vs-one-more-high``); and three
    seeded random pairs (``random-k``).

    **add-remove**: the empty dataset against one row at the lower, upper and mid point and,
    with at most three columns, at each corner (``empty-vs-low``, ``empty-vs-high``, ...);
    then each replace-one pair gives two pairs, the base without the replaced row against the
    base (``name/remove``) and against the base with the new row (``name/add``).

    Identical pairs (in either order) are listed once, under their first name.

    Parameters
    ----------
    domain : Domain
    notion : {"replace-one", "add-remove"}
    rng : None, int or Generator, default 0
        Seeds the random pairs (see :mod:`privlearn.random`).

    Returns
    -------
    list of (str, numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> from privlearn.audit import Domain, neighbour_candidates
    >>> pairs = neighbour_candidates(Domain(0.0, 1.0, rows=3))
    >>> [name for name, a, b in pairs][:4]
    ['low-vs-one-high', 'high-vs-one-low', 'mid-vs-one-low', 'mid-vs-one-high']
    >>> pairs[0][1].tolist(), pairs[0][2].tolist()
    ([[0.0], [0.0], [0.0]], [[0.0], [0.0], [1.0]])
    >>> [(n, len(a), len(b)) for n, a, b in
    ...  neighbour_candidates(Domain(0.0, 1.0, rows=3), notion="add-remove")][:2]
    [('empty-vs-low', 0, 1), ('empty-vs-high', 0, 1)]
    """
    if not isinstance(domain, Domain):
        raise InvalidParameterError(
            f"domain: must be a privlearn.audit.Domain, got {type(domain).__name__}", "domain"
        )
    notion = check_choice(notion, "notion", NOTIONS)
    gen = np.random.default_rng(spawn_seeds(rng, 1)[0])
    repl = _replacements(domain, gen)
    raw: List[Tuple[str, np.ndarray, np.ndarray]] = []
    if notion == "replace-one":
        for name, base, r, new in repl:
            changed = base.copy()
            changed[r] = new
            raw.append((name, base, changed))
    else:
        lo, hi = np.asarray(domain.lower), np.asarray(domain.upper)
        empty = np.empty((0, domain.columns))
        singles = [("low", lo), ("high", hi), ("mid", domain.mid)]
        if 1 < domain.columns <= 3:
            for bits in itertools.product((0, 1), repeat=domain.columns):
                singles.append(
                    ("corner " + "".join(map(str, bits)), np.where(np.array(bits) == 1, hi, lo))
                )
        for label, row in singles:
            raw.append((f"empty-vs-{label}", empty, row[None, :].astype(float)))
        for name, base, r, new in repl:
            small = np.delete(base, r, axis=0)
            raw.append((f"{name}/remove", small, base))
            raw.append((f"{name}/add", small, np.vstack([small, new[None, :]])))
    pairs: List[Pair] = []
    seen = set()
    for name, a, b in raw:
        a = np.ascontiguousarray(a, dtype=float)
        b = np.ascontiguousarray(b, dtype=float)
        key = _key(a, b)
        if key in seen or (a.shape == b.shape and np.array_equal(a, b)):
            continue
        seen.add(key)
        a.setflags(write=False)
        b.setflags(write=False)
        pairs.append((name, a, b))
    return pairs


@dataclass(frozen=True, eq=False)
class NeighbourAudit:
    """Outcome of :func:`search_neighbours`.

    Attributes
    ----------
    result : AuditResult
        The final audit, on fresh samples, of the worst pair.
    pair : str
        The name of that pair.
    data_a, data_b : numpy.ndarray
        Its datasets (2-D, rows by columns).
    notion : str
        ``"replace-one"`` or ``"add-remove"``.
    pilot : tuple of (str, float)
        Every candidate tried, in order, with its pilot bound (a ranking statistic, not a
        verdict).
    """

    result: AuditResult
    pair: str
    data_a: np.ndarray
    data_b: np.ndarray
    notion: str
    pilot: Tuple[Tuple[str, float], ...]

    @property
    def passed(self) -> bool:
        """``result.passed``."""
        return self.result.passed

    def to_dict(self) -> Dict[str, Any]:
        """Plain values for JSON: the result's dictionary under ``"result"``, the pair's name,
        datasets (nested lists), notion and the pilot table (``[{"pair", "bound"}]``)."""
        return {
            "result": self.result.to_dict(),
            "pair": self.pair,
            "notion": self.notion,
            "data_a": np.asarray(self.data_a).tolist(),
            "data_b": np.asarray(self.data_b).tolist(),
            "pilot": [{"pair": name, "bound": bound} for name, bound in self.pilot],
        }

    def __str__(self) -> str:
        return f"{self.result} [worst of {len(self.pilot)} {self.notion} pairs: {self.pair}]"


def _runner(
    mechanism: Callable[..., Any], data: np.ndarray, vectorised: bool
) -> Callable[..., Any]:
    if vectorised:

        def run_vectorised(g: np.random.Generator, size: int) -> Any:
            return mechanism(data.copy(), g, size=size)

        return run_vectorised

    def run(g: np.random.Generator) -> Any:
        return mechanism(data.copy(), g)

    return run


def _check_claim(claimed: Any) -> None:
    """Refuse a bad claim before anything is drawn (with the claim parser of :func:`audit`)."""
    from ._claims import _parse_claim

    _parse_claim(claimed)


def search_neighbours(
    mechanism: Callable[..., Any],
    domain: Domain,
    claimed: Any,
    *,
    notion: str = "replace-one",
    n: int = 200_000,
    pilot_n: int = 20_000,
    alpha: float = 1e-3,
    rng: RngLike = None,
    method: str = "auto",
    distinguisher: Any = None,
    statistic: Optional[Callable[[np.ndarray], Any]] = None,
    candidates: Optional[Sequence[Tuple[str, Any, Any]]] = None,
) -> NeighbourAudit:
    r"""Audit a mechanism on datasets on the worst of a family of neighbouring pairs.

    Each candidate pair (:func:`neighbour_candidates`, or ``candidates``) is audited with
    :func:`~privlearn.audit.audit` on ``pilot_n`` samples per side (the *pilot*); the pair with
    the largest pilot bound (ties: the first) is then audited again on ``n`` fresh samples per
    side, and that final audit is the result. This is DP-Auditorium's dataset search (Kong et
    al., IEEE S&P 2024) with a fixed family of candidates.

    **Correctness.** The pilot and the final audit draw from independent seeds, so the choice of
    the pair is independent of the final samples: conditionally on the chosen pair, the final
    audit is an ordinary audit of a fixed pair, and a correct mechanism fails it with
    probability at most ``alpha``. No correction for the number of candidates is needed, and
    the pilot bounds are only used to rank the pairs (they are not a verdict).

    **Scope.** A search tries a finite family only: a mechanism that leaks on a pair outside the
    family passes. Passing is evidence, not proof.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng)`` returns one output on ``data``, a 2-D float array ``(rows,
        columns)`` (rows may be 0 under add/remove), drawing its randomness from ``rng``, a
        :class:`numpy.random.Generator`. **Vectorised form:** with a ``size`` parameter,
        ``mechanism(data, rng, size=size)`` returns ``size`` outputs (first axis). Each call
        gets its own copy of ``data``.
    domain : Domain
        Bounds, dataset size and integrality of the data.
    claimed : number, (epsilon, delta), Budget or GaussianDP
        The claim, as accepted by :func:`~privlearn.audit.audit`.
    notion : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring notion the claim is made under.
    n : int, default 200_000
        Samples per side of the final audit.
    pilot_n : int, default 20_000
        Samples per side of each pilot audit.
    alpha : float, default 1e-3
        False-positive rate of the final audit.
    rng : None, int or Generator, optional
        See :mod:`privlearn.random`; a seed makes the search reproducible.
    method, distinguisher, statistic
        Passed to :func:`~privlearn.audit.audit` (pilot and final audits alike).
    candidates : sequence of (str, array, array), optional
        Pairs to try instead of the generated family; each is checked against ``domain`` and
        ``notion`` before anything is drawn.

    Returns
    -------
    NeighbourAudit

    Raises
    ------
    InvalidParameterError
        On a bad domain, notion, candidate, claim, ``n``, ``pilot_n`` or ``alpha``, before any
        sampling.

    Examples
    --------
    A sum of values in [0, 1] with Laplace noise of scale 1 is 1-DP (sensitivity 1); claiming
    0.5 is refuted on the pair that moves one row across the whole range:

    >>> import numpy as np
    >>> from privlearn.audit import Domain, search_neighbours
    >>> def noisy_sum(data, rng, size):
    ...     return data.sum() + rng.laplace(0.0, 1.0, size=size)
    >>> found = search_neighbours(noisy_sum, Domain(0.0, 1.0, rows=5), 0.5, n=100_000, rng=0)
    >>> found.passed, len(found.pilot)
    (False, 9)
    """
    if not callable(mechanism):
        raise InvalidParameterError(
            f"mechanism: must be callable, got {type(mechanism).__name__}", "mechanism"
        )
    if not isinstance(domain, Domain):
        raise InvalidParameterError(
            f"domain: must be a privlearn.audit.Domain, got {type(domain).__name__}", "domain"
        )
    notion = check_choice(notion, "notion", NOTIONS)
    n = check_integer(n, "n", 2)
    pilot_n = check_integer(pilot_n, "pilot_n", 2)
    alpha = check_probability(alpha, "alpha")
    _check_claim(claimed)
    if statistic is not None and not callable(statistic):
        raise InvalidParameterError(
            f"statistic: must be callable or None, got {type(statistic).__name__}", "statistic"
        )
    gen = as_generator(rng)
    seed_candidates, seed_pilot, seed_final = spawn_seeds(gen, 3)
    if candidates is None:
        pairs = neighbour_candidates(domain, notion=notion, rng=seed_candidates)
    else:
        pairs = _check_candidates(candidates, domain, notion)
    vectorised = _takes_size(mechanism)
    options: Dict[str, Any] = dict(statistic=statistic, alpha=alpha)
    # pass the newer options only when used, so that the call works with any audit() signature
    if method != "auto":
        options["method"] = method
    if distinguisher is not None:
        options["distinguisher"] = distinguisher

    from ._audit import audit

    pilot: List[Tuple[str, float]] = []
    best, best_bound = 0, -math.inf
    for i, ((name, a, b), seed) in enumerate(zip(pairs, spawn_seeds(seed_pilot, len(pairs)))):
        res = audit(
            _runner(mechanism, a, vectorised),
            _runner(mechanism, b, vectorised),
            claimed,
            n=pilot_n,
            rng=seed,
            **options,
        )
        pilot.append((name, float(res.bound)))
        if res.bound > best_bound:
            best, best_bound = i, res.bound
    name, a, b = pairs[best]
    final = audit(
        _runner(mechanism, a, vectorised),
        _runner(mechanism, b, vectorised),
        claimed,
        n=n,
        rng=seed_final,
        **options,
    )
    return NeighbourAudit(
        result=final, pair=name, data_a=a, data_b=b, notion=notion, pilot=tuple(pilot)
    )
