r"""Hypothesis classes and their dichotomies on finite point sets.

Seeds 002, 003 and 004 reduce learning over an infinite class to learning over a finite one:
the distinct labelings ("dichotomies") :math:`\Pi_C(S) = \{(h(x_1), \dots, h(x_n)) : h \in C\}`
that the class induces on the sample, each with one representative hypothesis, followed by a
private choice among them (Bun, Nissim and Stemmer, "Simultaneous private learning of multiple
concepts", JMLR 20(94), 2019, Alg. 2 step 4; Dagan and Feldman, "PAC learning with stable and
private predictions", COLT 2020, §2, the class :math:`C_{S'}`; Nandi and Bassily, "Privately
answering classification queries in the agnostic PAC model", ALT 2020, Alg. 2 and 7). This
module provides the classes and a fast, exact enumeration in Rust.

Classes: :class:`Thresholds`, :class:`Intervals`, :class:`Rectangles`, :class:`Halfspaces`,
:class:`Parities`, :class:`Points`, :class:`FiniteClass`. Each has

* ``dichotomies(X, max_count=None)`` -> :class:`Dichotomies`: every distinct labeling of the
  rows of ``X`` exactly once, each with a representative hypothesis;
* ``iter_dichotomies(X, chunk_size)`` -> :class:`DichotomyStream`: the same, chunk by chunk;
* ``count_dichotomies(X)``, ``erm(X, y, sample_weight=None)``, ``predict(h, X)`` and
  ``vc_dimension``.

Guarantees, for every class (these are what the private algorithms' proofs need):

* **Exact.** The labelings are exactly :math:`\Pi_C(S)`, with no repetition and none missing,
  on any input: duplicate points (which always get equal labels), ties, collinear or coplanar
  points. Deduplication compares whole labelings (never a hash alone; ERRATA C6).
* **Data-independent representatives.** A labeling's representative is a deterministic function
  of the *set* of unlabeled points (never of labels, nor of the row order), a genuine member of
  the class, and reproduces the labeling exactly under :meth:`predict`.
* **Deterministic order**, documented per class, independent of the number of threads.

Labelings are bit-packed as ``uint64`` words: point ``j`` is bit ``j % 64`` of word ``j // 64``
(little-endian bit order), padding bits zero.

Examples
--------
>>> import numpy as np
>>> from privlearn.hypotheses import Intervals
>>> X = np.array([3.0, 1.0, 2.0])
>>> d = Intervals().dichotomies(X)
>>> len(d)                       # 3 * 4 / 2 + 1
7
>>> d.to_numpy()[2]              # ones on the two smallest values
array([False,  True,  True])
>>> d.hypothesis(2)
Interval(a=-inf, b=2.5)
>>> Intervals().erm(X, [1, 0, 1])
Interval(a=1.5, b=inf)
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._validate import check_choice, check_integer
from .errors import InvalidParameterError

__all__ = [
    "HypothesisClass",
    "Thresholds",
    "Intervals",
    "Rectangles",
    "Halfspaces",
    "Parities",
    "Points",
    "FiniteClass",
    "Dichotomies",
    "DichotomyStream",
    "Threshold",
    "Interval",
    "Rectangle",
    "Halfspace",
    "Parity",
    "Point",
    "FiniteMember",
]

Hypothesis = Any

# --------------------------------------------------------------------------------------------
# Hypotheses: small immutable value objects
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """``1[x >= t]`` (``orientation="ge"``) or ``1[x <= t]`` (``orientation="le"``)."""

    t: float
    orientation: str = "ge"


@dataclass(frozen=True)
class Interval:
    """``1[a <= x <= b]`` (the empty set when ``a > b``)."""

    a: float
    b: float


@dataclass(frozen=True)
class Rectangle:
    """``1[lo[k] <= x[k] <= hi[k] for every k]`` (empty when some ``lo[k] > hi[k]``)."""

    lo: Tuple[float, ...]
    hi: Tuple[float, ...]


@dataclass(frozen=True)
class Halfspace:
    """``1[w @ x + b >= 0]``, evaluated exactly (no rounding decides a point on or near the
    boundary)."""

    w: Tuple[float, ...]
    b: float


@dataclass(frozen=True)
class Parity:
    """``<a, x> mod 2`` on ``{0, 1}^dim``, with ``a`` the indicator of ``support``."""

    support: Tuple[int, ...]
    dim: int

    @property
    def a(self) -> np.ndarray:
        """The vector ``a`` as ``uint8`` zeros and ones."""
        out = np.zeros(self.dim, dtype=np.uint8)
        out[list(self.support)] = 1
        return out


@dataclass(frozen=True)
class Point:
    """``1[x = p]``: the indicator of the domain element ``p`` (a tuple of coordinates, or an
    integer on a finite domain)."""

    p: Union[Tuple[float, ...], int]


@dataclass(frozen=True)
class FiniteMember:
    """Member ``index`` of a :class:`FiniteClass`."""

    index: int


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def check_hypothesis_class(value: Any, name: str = "hypothesis_class") -> "HypothesisClass":
    """``value`` if it is a class of this module (:class:`HypothesisClass`); the one check of a
    hypothesis-class argument, used by every family."""
    if not isinstance(value, HypothesisClass):
        raise InvalidParameterError(
            f"{name}: must be a class from privlearn.hypotheses, got {type(value).__name__}", name
        )
    return value


def _real_array(X: Any, name: str) -> np.ndarray:
    try:
        a = np.asarray(X)
    except Exception as exc:  # pragma: no cover - numpy accepts almost anything
        raise InvalidParameterError(f"{name}: must be an array of numbers ({exc})", name) from exc
    if a.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{name}: must hold real numbers (a float, int or bool dtype), got dtype {a.dtype}",
            name,
        )
    f = a.astype(np.float64)
    if a.dtype.kind in "iu" and a.size and not np.array_equal(f.astype(a.dtype), a):
        # Distinct integers must stay distinct: the classes compute on doubles, exactly.
        raise InvalidParameterError(
            f"{name}: integers must be exactly representable as float64 (|x| <= 2**53)", name
        )
    a = f
    if not np.all(np.isfinite(a)):
        raise InvalidParameterError(f"{name}: must hold finite numbers (no NaN or infinity)", name)
    return a


def _points(X: Any, dim: int, name: str = "X") -> np.ndarray:
    """``X`` as a C-contiguous float64 ``(n, dim)`` array; ``(n,)`` is accepted when ``dim == 1``."""
    a = _real_array(X, name)
    if a.ndim == 1 and dim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2 or a.shape[1] != dim:
        want = "(n,) or (n, 1)" if dim == 1 else f"(n, {dim})"
        raise InvalidParameterError(f"{name}: must have shape {want}, got shape {a.shape}", name)
    return np.ascontiguousarray(a)


def _labels(y: Any, n: int) -> np.ndarray:
    a = np.asarray(y)
    if a.ndim != 1 or a.shape[0] != n:
        raise InvalidParameterError(f"y: must have shape ({n},), got shape {a.shape}", "y")
    if a.dtype.kind not in "biuf" or not np.all((a == 0) | (a == 1)):
        raise InvalidParameterError("y: must hold labels 0 or 1 (or booleans)", "y")
    return np.ascontiguousarray(a.astype(bool))


def _weights(sample_weight: Any, n: int) -> Optional[np.ndarray]:
    if sample_weight is None:
        return None
    w = _real_array(sample_weight, "sample_weight")
    if w.ndim != 1 or w.shape[0] != n:
        raise InvalidParameterError(
            f"sample_weight: must have shape ({n},), got shape {w.shape}", "sample_weight"
        )
    if np.any(w < 0):
        raise InvalidParameterError("sample_weight: must hold numbers >= 0", "sample_weight")
    return np.ascontiguousarray(w)


def _max_count(max_count: Any) -> Optional[int]:
    if max_count is None:
        return None
    return check_integer(max_count, "max_count", 0)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _unpack(packed: np.ndarray, n: int) -> np.ndarray:
    """Bit-packed rows (little-endian bit order) -> boolean ``(count, n)``."""
    as_bytes = np.ascontiguousarray(packed.astype("<u8", copy=False)).view(np.uint8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little", count=n).astype(bool)


# --------------------------------------------------------------------------------------------
# Dichotomies
# --------------------------------------------------------------------------------------------


class Dichotomies:
    """Distinct labelings of a point set, each with a representative hypothesis.

    Returned by :meth:`HypothesisClass.dichotomies` (or, chunk by chunk, by iterating a
    :class:`DichotomyStream`). Immutable.

    Attributes
    ----------
    packed : numpy.ndarray of uint64, shape (count, ceil(n_points / 64))
        The labelings, bit-packed: point ``j`` is bit ``j % 64`` of word ``j // 64``; padding
        bits are zero. Read-only.
    params : numpy.ndarray, shape (count, p)
        The representatives' parameters, in the class's raw layout (see each class). Read-only.
    n_points : int
        Number of points (rows of ``X``).
    hypothesis_class : HypothesisClass
        The class that produced them.
    offset : int
        Index of the first labeling in the whole enumeration (non-zero for stream chunks).
    """

    def __init__(
        self,
        hypothesis_class: "HypothesisClass",
        packed: np.ndarray,
        params: np.ndarray,
        n_points: int,
        offset: int = 0,
    ) -> None:
        self.hypothesis_class = hypothesis_class
        self.packed = _readonly(packed)
        self.params = _readonly(params)
        self.n_points = n_points
        self.offset = offset

    def __len__(self) -> int:
        return int(self.packed.shape[0])

    def __repr__(self) -> str:
        return (
            f"Dichotomies({len(self)} labelings of {self.n_points} points, "
            f"class {self.hypothesis_class!r})"
        )

    def to_numpy(self) -> np.ndarray:
        """The labelings as a boolean array of shape ``(count, n_points)``."""
        return _unpack(self.packed, self.n_points)

    def label(self, i: int) -> np.ndarray:
        """Labeling ``i`` as a boolean array of shape ``(n_points,)``."""
        return _unpack(self.packed[self._index(i)][None, :], self.n_points)[0]

    def _index(self, i: int) -> int:
        n = len(self)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= int(i) < n:
            raise InvalidParameterError(
                f"i: must be an integer index in [-{n}, {n}), got {i!r}", "i"
            )
        return int(i) % n

    def hypothesis(self, i: int) -> Hypothesis:
        """The representative hypothesis of labeling ``i``.

        Raises
        ------
        privlearn.PrivlearnError
            For a halfspace labeling of which no double-precision representative could be
            certified (see :class:`Halfspaces`).
        """
        return self.hypothesis_class._hypothesis(self.params[self._index(i)])

    def hypotheses(self) -> List[Hypothesis]:
        """The representatives of all labelings, in order."""
        return [self.hypothesis_class._hypothesis(p) for p in self.params]

    def chunks(self, size: int) -> Iterator["Dichotomies"]:
        """Consecutive views of at most ``size`` labelings each."""
        size = check_integer(size, "size")
        for s in range(0, len(self), size):
            yield Dichotomies(
                self.hypothesis_class,
                self.packed[s : s + size],
                self.params[s : s + size],
                self.n_points,
                self.offset + s,
            )

    def mistakes(self, y: Any, sample_weight: Any = None) -> np.ndarray:
        """Disagreements of every labeling with the labels ``y``.

        Computed in Rust (popcounts of ``label XOR y``, in parallel). With ``sample_weight``,
        each entry is the exact weighted sum of the disagreeing points' weights, rounded once
        to the nearest double.

        Parameters
        ----------
        y : array_like of 0/1 or bool, shape (n_points,)
        sample_weight : array_like of float >= 0, shape (n_points,), optional

        Returns
        -------
        numpy.ndarray, shape (count,)
            ``int64`` counts, or ``float64`` weighted sums.
        """
        yb = _labels(y, self.n_points)
        w = _weights(sample_weight, self.n_points)
        return _core.dichotomy_mistakes(np.ascontiguousarray(self.packed), yb, w)

    def mistakes_on(self, X: Any, y: Any) -> np.ndarray:
        """Mistakes of every labeling's **representative** on other labelled points ``X, y``.

        :meth:`mistakes` scores the labelings on the points they were enumerated on; this
        evaluates each representative, as a function on the whole domain, on the rows of ``X``
        (seed 003's class :math:`C_{S'}` of a subset, scored on the whole sample: Dagan and
        Feldman, COLT 2020, Theorem 1). Exact (the class's own prediction rule; exact
        predicates for halfspaces) and computed in Rust: binary searches on the sorted points
        for thresholds and intervals, a sorted-directions index for halfspaces in the plane,
        an evaluation of every representative on every point otherwise (in parallel). Real-
        parameter classes only (thresholds, intervals, rectangles, halfspaces, points); others
        loop over :meth:`HypothesisClass.predict`.

        Parameters
        ----------
        X : array_like
            Points of the class's shape.
        y : array_like of 0/1 or bool, shape (n,)

        Returns
        -------
        numpy.ndarray of int64, shape (count,)

        Raises
        ------
        privlearn.PrivlearnError
            For a halfspace labeling without a certified representative (see
            :class:`Halfspaces`).
        """
        h = self.hypothesis_class
        Xc = h._check_X(X)
        yb = _labels(y, Xc.shape[0])
        if isinstance(h, _Real):
            if not np.all(np.isfinite(self.params)):
                bad = int(np.flatnonzero(~np.all(np.isfinite(self.params), axis=1))[0])
                self.hypothesis(bad)  # raises the class's error
            params = np.ascontiguousarray(self.params, dtype=np.float64)
            return _core.representative_mistakes(h._spec(), params, Xc, yb)
        return np.array(
            [int(np.count_nonzero(h._predict(hh, Xc) != yb)) for hh in self.hypotheses()],
            dtype=np.int64,
        )

    def argmin(self, y: Any, sample_weight: Any = None) -> int:
        """Index of the first labeling of minimal (exact, weighted) disagreement with ``y``."""
        yb = _labels(y, self.n_points)
        w = _weights(sample_weight, self.n_points)
        i = _core.dichotomy_argmin(np.ascontiguousarray(self.packed), yb, w)
        if i is None:
            raise InvalidParameterError("there is no labeling to choose from", "y")
        return int(i)


class DichotomyStream:
    """The labelings of a point set, enumerated chunk by chunk.

    Iterating yields :class:`Dichotomies` chunks of at most ``chunk_size`` labelings, in the
    same order as :meth:`HypothesisClass.dichotomies` (each chunk's ``offset`` is its position).
    Every iteration starts the enumeration afresh. When :attr:`streamed` is true the labelings
    are generated in Rust one chunk at a time, so the whole set is never held in memory: the
    structural generators (thresholds, intervals, rectangles, points, parities, and halfspaces
    on points spanning at most a plane) produce each labeling exactly once by construction, so
    no seen-set is needed to exclude duplicates. Otherwise (halfspaces on points spanning three
    or more dimensions, which deduplicate globally, and finite classes, whose labelings are
    bounded by the input) the labelings are computed first and then handed out in chunks.
    """

    def __init__(self, hypothesis_class: "HypothesisClass", X: np.ndarray, chunk_size: int) -> None:
        self.hypothesis_class = hypothesis_class
        self._X = X
        self.n_points = int(X.shape[0])
        self.chunk_size = check_integer(chunk_size, "chunk_size")

    @property
    def streamed(self) -> bool:
        """``True`` if the labelings are generated chunk by chunk rather than computed first."""
        return self.hypothesis_class._streams(self._X)

    def __iter__(self) -> Iterator[Dichotomies]:
        return self.hypothesis_class._chunks(self._X, self.chunk_size)

    def __repr__(self) -> str:
        return f"DichotomyStream({self.n_points} points, chunk_size={self.chunk_size}, class {self.hypothesis_class!r})"

    def count(self) -> int:
        """Number of labelings (see :meth:`HypothesisClass.count_dichotomies`)."""
        return self.hypothesis_class.count_dichotomies(self._X)

    def mistakes(self, y: Any, sample_weight: Any = None) -> np.ndarray:
        """:meth:`Dichotomies.mistakes` of every labeling, chunk by chunk (one array)."""
        parts = [d.mistakes(y, sample_weight) for d in self]
        dtype = np.int64 if sample_weight is None else np.float64
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


# --------------------------------------------------------------------------------------------
# The classes
# --------------------------------------------------------------------------------------------


class HypothesisClass(abc.ABC):
    """Base class of the hypothesis classes (see the module documentation)."""

    @property
    @abc.abstractmethod
    def vc_dimension(self) -> Optional[int]:
        """The class's VC dimension."""

    @abc.abstractmethod
    def _check_X(self, X: Any) -> np.ndarray:
        """Validated points as the array the core expects."""

    @abc.abstractmethod
    def _hypothesis(self, params: np.ndarray) -> Hypothesis:
        """A hypothesis from a row of raw parameters."""

    @abc.abstractmethod
    def _predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        """Predictions of a validated hypothesis on validated points."""

    @abc.abstractmethod
    def _check_h(self, h: Any) -> Hypothesis:
        """``h`` if it is a hypothesis of this class, else an error."""

    def _params(self) -> Dict[str, Any]:
        """The constructor arguments that identify the class (for repr, equality, hashing)."""
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._params() == self._params()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._params().items())))

    # Core-backed classes with real parameters implement these through `_spec`.
    def _spec(self) -> Tuple[str, int, str, Optional[int]]:  # pragma: no cover
        raise NotImplementedError

    def _collect(self, X: np.ndarray, max_count: Optional[int]) -> Dichotomies:
        packed, params = _core.dichotomies(self._spec(), X, max_count)
        return Dichotomies(self, packed, params, X.shape[0])

    def _source(self, X: np.ndarray) -> _core.DichotomySource:
        return _core.DichotomySource(self._spec(), X)

    def _streams(self, X: np.ndarray) -> bool:
        return bool(self._source(X).streamed)

    def _chunks(self, X: np.ndarray, size: int) -> Iterator[Dichotomies]:
        src = self._source(X)
        offset = 0
        while True:
            nxt = src.next_chunk(size)
            if nxt is None:
                return
            packed, params = nxt
            yield Dichotomies(self, packed, params, X.shape[0], offset)
            offset += packed.shape[0]

    def _count(self, X: np.ndarray) -> int:
        return int(_core.dichotomy_count(self._spec(), X))

    def _erm(self, X: np.ndarray, y: np.ndarray, w: Optional[np.ndarray]) -> Hypothesis:
        _, params = _core.dichotomy_erm(self._spec(), X, y, w)
        return self._hypothesis(np.asarray(params))

    # Public API

    def dichotomies(self, X: Any, *, max_count: Optional[int] = None) -> Dichotomies:
        """Every distinct labeling of the rows of ``X``, each with a representative.

        Parameters
        ----------
        X : array_like
            The points (shape per class; see the class's documentation).
        max_count : int, optional
            Refuse (with :class:`~privlearn.InvalidParameterError`, before allocating the
            output) to return more labelings than this.

        Returns
        -------
        Dichotomies
        """
        Xc = self._check_X(X)
        return self._collect(Xc, _max_count(max_count))

    def iter_dichotomies(self, X: Any, chunk_size: int = 1 << 16) -> DichotomyStream:
        """The labelings of :meth:`dichotomies`, lazily, in chunks of ``chunk_size``.

        Returns
        -------
        DichotomyStream
            An iterable of :class:`Dichotomies` chunks (see :class:`DichotomyStream` for which
            classes stream).
        """
        Xc = self._check_X(X)
        return DichotomyStream(self, Xc, chunk_size)

    def count_dichotomies(self, X: Any) -> int:
        """The number of distinct labelings of the rows of ``X``, without materialising them
        where the class allows it (see each class)."""
        return self._count(self._check_X(X))

    def erm(self, X: Any, y: Any, sample_weight: Any = None) -> Hypothesis:
        """An exact empirical-risk minimiser: a hypothesis of minimal (weighted) 0-1 error.

        The errors are compared exactly (weights are summed as exact rationals). Ties go to the
        first minimal labeling in the order of :meth:`dichotomies`; the hypothesis returned is
        that labeling's representative, so it depends on ``y`` only through the choice of
        labeling.

        Parameters
        ----------
        X : array_like
        y : array_like of 0/1 or bool, shape (n,)
        sample_weight : array_like of float >= 0, shape (n,), optional

        Returns
        -------
        hypothesis
        """
        Xc = self._check_X(X)
        yb = _labels(y, Xc.shape[0])
        w = _weights(sample_weight, Xc.shape[0])
        return self._erm(Xc, yb, w)

    def predict(self, h: Hypothesis, X: Any) -> np.ndarray:
        """The labels ``h(x)`` of the rows of ``X``, as booleans of shape ``(n,)``."""
        return self._predict(self._check_h(h), self._check_X(X))


class _Real(HypothesisClass):
    """Classes over real points whose representatives have real parameters."""

    _dim: int

    @property
    def dim(self) -> int:
        """Dimension of the points."""
        return self._dim

    def _check_X(self, X: Any) -> np.ndarray:
        return _points(X, self._dim)

    def _check_h(self, h: Any) -> Hypothesis:
        t = self._htype()
        if not isinstance(h, t):
            raise InvalidParameterError(f"h: must be a {t.__name__}, got {h!r}", "h")
        return h

    @abc.abstractmethod
    def _htype(self) -> type: ...


class Thresholds(_Real):
    r"""Thresholds on the real line: ``1[x >= t]``, ``1[x <= t]``, or both.

    Parameters
    ----------
    orientation : {"ge", "le", "both"}, default "ge"
        ``"ge"`` is :math:`1[x \ge t]` (seed 003's convention), ``"le"`` is :math:`1[x \le t]`
        (seed 002's; ERRATA X-1), ``"both"`` the union of the two classes.

    Notes
    -----
    ``X`` has shape ``(n,)`` or ``(n, 1)``. On ``m`` distinct values there are ``m + 1``
    labelings per orientation and ``2m`` for ``"both"`` (one when ``m = 0``); VC dimension 1
    (2 for ``"both"``). Enumeration: sort and sweep (Nandi and Bassily, §4.1), ``O(n log n)``
    plus the output, streamed. Representatives: ``t = ±inf`` for the constant labelings, else
    a cut strictly between two consecutive distinct values (their rounded mid-point), so they
    depend on the set of values only. Order: ``"ge"`` labelings by increasing ``t`` (all ones
    to all zeros), then for ``"le"`` (or the non-constant ``"le"`` ones of ``"both"``) by
    increasing ``t``. Raw ``params``: ``[t, s]`` with ``s = +1`` (``>=``) or ``-1`` (``<=``).
    """

    _dim = 1

    def __init__(self, orientation: str = "ge") -> None:
        self.orientation = check_choice(orientation, "orientation", ("ge", "le", "both"))

    def _params(self) -> Dict[str, Any]:
        return {"orientation": self.orientation}

    @property
    def vc_dimension(self) -> int:
        return 2 if self.orientation == "both" else 1

    def _spec(self) -> Tuple[str, int, str, Optional[int]]:
        return "thresholds", 1, self.orientation, None

    def _htype(self) -> type:
        return Threshold

    def _hypothesis(self, params: np.ndarray) -> Threshold:
        return Threshold(float(params[0]), "ge" if params[1] > 0 else "le")

    def _check_h(self, h: Any) -> Hypothesis:
        h = super()._check_h(h)
        if h.orientation not in ("ge", "le") or math.isnan(h.t):
            raise InvalidParameterError(f"h: not a valid Threshold: {h!r}", "h")
        return h

    def _predict(self, h: Threshold, X: np.ndarray) -> np.ndarray:
        x = X[:, 0]
        return x >= h.t if h.orientation == "ge" else x <= h.t


class Intervals(_Real):
    """Closed intervals ``1[a <= x <= b]`` on the real line (the empty one included).

    Notes
    -----
    ``X`` has shape ``(n,)`` or ``(n, 1)``. On ``m`` distinct values there are
    ``m (m + 1) / 2 + 1`` labelings (Sauer–Shelah's bound for VC dimension 2, attained).
    Enumeration: incremental bitsets (Nandi and Bassily, §4.1): for each left end the right end
    grows one value at a time, ``O(n log n + m^2 n / 64)``; materialisation runs the left ends in
    parallel, streaming goes left end by left end. Representatives: ``[+inf, -inf]`` for the
    empty labeling, else the interval with ends at the cuts between the run and its neighbouring
    values (``-inf``/``+inf`` at the extremes). Order: the empty labeling, then runs ``(i, j)``
    of sorted distinct values in lexicographic order. Raw ``params``: ``[a, b]``.
    """

    _dim = 1

    @property
    def vc_dimension(self) -> int:
        return 2

    def _spec(self) -> Tuple[str, int, str, Optional[int]]:
        return "intervals", 1, "ge", None

    def _htype(self) -> type:
        return Interval

    def _hypothesis(self, params: np.ndarray) -> Interval:
        return Interval(float(params[0]), float(params[1]))

    def _predict(self, h: Interval, X: np.ndarray) -> np.ndarray:
        x = X[:, 0]
        return (h.a <= x) & (x <= h.b)


class Rectangles(_Real):
    """Axis-aligned boxes ``1[lo <= x <= hi]`` (coordinate-wise) in ``R^dim``.

    Parameters
    ----------
    dim : int, default 2
        Dimension of the points (``X`` has shape ``(n, dim)``; ``(n,)`` when ``dim = 1``).

    Notes
    -----
    VC dimension ``2 dim``. Enumeration: a non-empty set of points is a labeling iff it is the
    set of points inside its own bounding box, which is unique; the generator walks ranges of
    distinct values coordinate by coordinate (the last one with incremental bitsets) and emits
    a box only when each of its faces holds a chosen point, so every labeling appears exactly
    once, with no deduplication: ``O(m^{2 dim})`` boxes, streamed. ``count_dichotomies`` runs
    the same walk without building labelings. Representatives: the tight box widened to the cuts
    between its faces and the neighbouring coordinate values of the sample (``±inf`` at the
    extremes); the empty labeling is ``lo = +inf, hi = -inf``. Order: the empty labeling, then
    boxes by their coordinate ranges in lexicographic order. Raw ``params``: ``[lo..., hi...]``.

    ``erm`` in the plane (``dim = 2``) does not enumerate: for every range of distinct x values
    it finds the best tight box by exact prefix sums over the distinct y values in that range,
    ``O(n^3)`` in all (500 points: about 0.1 s on two cores), with the same answer as the
    enumeration, ties included. It falls back to the enumeration only for nonzero weights whose
    largest and smallest differ by more than about ``2^72 / n`` (about 10^19 at ``n = 500``):
    their exact sums need big integers.
    """

    def __init__(self, dim: int = 2) -> None:
        self._dim = check_integer(dim, "dim")

    def _params(self) -> Dict[str, Any]:
        return {"dim": self._dim}

    @property
    def vc_dimension(self) -> int:
        return 2 * self._dim

    def _spec(self) -> Tuple[str, int, str, Optional[int]]:
        return "rectangles", self._dim, "ge", None

    def _htype(self) -> type:
        return Rectangle

    def _hypothesis(self, params: np.ndarray) -> Rectangle:
        d = self._dim
        return Rectangle(tuple(float(v) for v in params[:d]), tuple(float(v) for v in params[d:]))

    def _check_h(self, h: Any) -> Hypothesis:
        h = super()._check_h(h)
        if len(h.lo) != self._dim or len(h.hi) != self._dim:
            raise InvalidParameterError(f"h: must have {self._dim} coordinates, got {h!r}", "h")
        return h

    def _predict(self, h: Rectangle, X: np.ndarray) -> np.ndarray:
        lo = np.asarray(h.lo, dtype=np.float64)
        hi = np.asarray(h.hi, dtype=np.float64)
        return np.all((lo <= X) & (X <= hi), axis=1)


class Halfspaces(_Real):
    r"""Affine halfspaces of ``R^dim``: :math:`h(x) = 1[w \cdot x + b \ge 0]`.

    Parameters
    ----------
    dim : int
        Dimension of the points (``X`` has shape ``(n, dim)``; ``(n,)`` when ``dim = 1``).

    Notes
    -----
    **Prediction is exact**: the sign of :math:`w \cdot x + b` is decided with a filtered exact
    predicate (floating point with a certified error bound, big-integer arithmetic when the
    bound does not decide; Shewchuk, DCG 1997), so no rounding decides a point on or near the
    boundary.

    **Counts.** VC dimension ``dim + 1``. On ``m`` distinct points in general position Cover's
    (1965) count :math:`2 \sum_{k \le dim} \binom{m-1}{k}` (``m^2 - m + 2`` in the plane);
    degenerate inputs (collinear, coplanar or duplicate points) give fewer, and the enumeration
    returns exactly those.

    **Algorithms.** Points are reduced exactly to their affine hull (dimension ``k``). ``k = 1``:
    two-sided thresholds along the line. ``k = 2``: a rotational sweep over the ``C(m, 2)``
    critical directions, sorted by a floating-point pseudo-angle with near-ties re-sorted by an
    exact orientation predicate; at each critical angle each block of points with equal
    projection reverses, and each cut inside a reversed block is a new split, emitted with its
    complement. Every split occupies one arc of directions, so each labeling is emitted once,
    on degenerate inputs too, in ``O(m^2 log m + output)`` time, streamed (the anchors note's
    target: ``m = 1000``, about ``10^6`` labelings). ``k >= 3``: the d-subset method (each
    labeling is induced by a hyperplane spanned by ``k`` points, the points on it labeled by a
    halfspace within it, found recursively), deduplicated by a hash table that compares whole
    labelings; ``O(m^{k+1})``, for small ``m``, not streamed. ``count_dichotomies`` sorts and
    groups the critical directions without building labelings when ``k <= 2`` (closed form
    ``2m`` when ``k = 1``), and enumerates them when ``k >= 3``.

    **Representatives** depend on the set of points only: ``w = 0, b = -1`` (all zeros),
    ``w = 0, b = 1`` (all ones); in the sweep a direction strictly between two consecutive
    critical angles of the labeling's arc of directions (the first such gap where doubles allow
    one) and an offset strictly between the two points adjacent to the cut, both certified with
    exact predicates; in the d-subset method the spanning hyperplane tilted by a small multiple
    of the representative within it, verified exactly on every point. A labeling for which no
    double-precision representative exists or can be certified has NaN ``params`` and
    :meth:`Dichotomies.hypothesis` raises for it: this needs points whose separating directions
    form an arc narrower than doubles resolve (e.g. two points ``1e-300`` apart that a line must
    separate while also separating points at distance 1); it does not happen on data of moderate
    dynamic range, including exactly or nearly collinear points.

    **Order**: the two constant labelings, then sweep order (``k <= 2``: each split when the
    sweep certifies its representative, i.e. at the critical angle where it appears except in
    near-degenerate cases; critical angles increasing, cuts by position, each split's ``1_B``
    before ``1_A``) or lexicographic order of the packed words (``k >= 3``). Raw ``params``:
    ``[w..., b]``.
    """

    def __init__(self, dim: int) -> None:
        self._dim = check_integer(dim, "dim")

    def _params(self) -> Dict[str, Any]:
        return {"dim": self._dim}

    @property
    def vc_dimension(self) -> int:
        return self._dim + 1

    def _spec(self) -> Tuple[str, int, str, Optional[int]]:
        return "halfspaces", self._dim, "ge", None

    def _htype(self) -> type:
        return Halfspace

    def _hypothesis(self, params: np.ndarray) -> Halfspace:
        if not np.all(np.isfinite(params)):
            from .errors import PrivlearnError

            raise PrivlearnError(
                "no double-precision representative could be certified for this labeling "
                "(its points' coordinates need more precision than doubles give)"
            )
        return Halfspace(tuple(float(v) for v in params[:-1]), float(params[-1]))

    def _check_h(self, h: Any) -> Hypothesis:
        h = super()._check_h(h)
        if len(h.w) != self._dim or not all(math.isfinite(v) for v in (*h.w, h.b)):
            raise InvalidParameterError(
                f"h: must have {self._dim} finite weights and a finite offset, got {h!r}", "h"
            )
        return h

    def _predict(self, h: Halfspace, X: np.ndarray) -> np.ndarray:
        return _core.halfspace_predict([*h.w, h.b], X)


class Points(_Real):
    """Point functions ``1[x = p]``: the indicator of one domain element.

    Parameters
    ----------
    dim : int, default 1
        Dimension of the points (``X`` has shape ``(n, dim)``; ``(n,)`` when ``dim = 1``).
    domain_size : int, optional
        If given, the domain is the finite set ``{0, ..., domain_size - 1}`` (then ``dim = 1``
        and ``X`` holds integers in that range); otherwise it is ``R^dim`` (coordinates compared
        exactly; ``-0.0 = 0.0``).

    Notes
    -----
    On ``m`` distinct points the labelings are the ``m`` indicators and, when some domain
    element lies outside the sample, the all-zero labeling (always, on an infinite domain):
    Bun, Nissim and Stemmer, §3.3. VC dimension 1 (0 for a one-element domain). Representatives:
    ``Point(p)`` for the indicator of ``p``; for the all-zero labeling, the smallest domain
    element outside the sample (finite domain) or ``(k, 0, ..., 0)`` with ``k`` the smallest
    non-negative integer not in the sample. Order: the all-zero labeling (if any), then the
    points in lexicographic order. Streamed. Raw ``params``: the point's coordinates.
    """

    def __init__(self, dim: int = 1, domain_size: Optional[int] = None) -> None:
        self._dim = check_integer(dim, "dim")
        if domain_size is not None:
            domain_size = check_integer(domain_size, "domain_size")
            if self._dim != 1:
                raise InvalidParameterError(
                    "domain_size: a finite domain {0..M-1} needs dim = 1", "domain_size"
                )
        self.domain_size = domain_size

    def _params(self) -> Dict[str, Any]:
        return {"dim": self._dim, "domain_size": self.domain_size}

    @property
    def vc_dimension(self) -> int:
        return 0 if self.domain_size == 1 else 1

    def _check_X(self, X: Any) -> np.ndarray:
        Xc = _points(X, self._dim)
        if self.domain_size is not None:
            x = Xc[:, 0]
            if not np.all((x >= 0) & (x < self.domain_size) & (x == np.floor(x))):
                raise InvalidParameterError(
                    f"X: must hold domain elements, integers in [0, {self.domain_size})", "X"
                )
        return Xc

    def _spec(self) -> Tuple[str, int, str, Optional[int]]:
        return "points", self._dim, "ge", self.domain_size

    def _htype(self) -> type:
        return Point

    def _hypothesis(self, params: np.ndarray) -> Point:
        if self.domain_size is not None:
            return Point(int(params[0]))
        return Point(tuple(float(v) for v in params))

    def _point(self, h: Point) -> np.ndarray:
        p = (h.p,) if isinstance(h.p, (int, float, np.integer, np.floating)) else h.p
        arr = np.asarray(p, dtype=np.float64)
        if arr.shape != (self._dim,):
            raise InvalidParameterError(
                f"h: must be a point of dimension {self._dim}, got {h!r}", "h"
            )
        return arr

    def _check_h(self, h: Any) -> Hypothesis:
        h = super()._check_h(h)
        self._point(h)
        return h

    def _predict(self, h: Point, X: np.ndarray) -> np.ndarray:
        return np.all(X == self._point(h), axis=1)


class Parities(HypothesisClass):
    r"""Parities :math:`\chi_a(x) = \langle a, x \rangle \bmod 2` on ``{0, 1}^dim``.

    Parameters
    ----------
    dim : int
        Dimension (``X`` has shape ``(n, dim)`` with entries 0 or 1, or booleans).

    Notes
    -----
    The labeling of the rows of ``X`` by :math:`\chi_a` is ``X a`` over GF(2), so the
    labelings are exactly the column space of ``X``: ``2^rank(X)`` of them (Bun, Nissim and
    Stemmer, §3.3 "PAR_d"), computed by ``count_dichotomies`` from the rank alone. VC dimension
    ``dim``.

    Enumeration: one elimination with privlearn's GF(2) core (:mod:`privlearn.gf2`) finds the
    pivot columns of ``X``; a Gray-code walk over the ``2^rank`` coefficient vectors emits each
    new labeling as the previous one XOR one basis column (one pass over its words), in
    parallel blocks when materialised and block by block when streamed. Feasible up to a rank of
    about 30 (the output has ``2^rank`` rows).

    Representatives: the unique ``a`` supported on the pivot columns of ``X`` (the
    lexicographically first basis of its columns, which depends on the set of points only) with
    ``X a`` equal to the labeling (:class:`Parity`). Order: labeling ``i`` has coefficient
    vector ``i XOR (i >> 1)`` over the pivots (bit ``k`` for the ``k``-th pivot); labeling 0 is
    all zeros. ERM enumerates all ``2^rank`` labelings (learning parities with noise is hard in
    general), exactly. Raw ``params``: ``a`` packed in ``ceil(dim / 64)`` ``uint64`` words.
    """

    def __init__(self, dim: int) -> None:
        self._dim = check_integer(dim, "dim")

    @property
    def dim(self) -> int:
        """Dimension of the cube."""
        return self._dim

    def _params(self) -> Dict[str, Any]:
        return {"dim": self._dim}

    @property
    def vc_dimension(self) -> int:
        return self._dim

    def _check_X(self, X: Any) -> np.ndarray:
        Xc = _points(X, self._dim)
        if not np.all((Xc == 0) | (Xc == 1)):
            raise InvalidParameterError("X: parities need entries 0 or 1 (or booleans)", "X")
        return np.ascontiguousarray(Xc.astype(bool))

    def rank(self, X: Any) -> int:
        """The GF(2) rank of the points: there are ``2**rank`` labelings."""
        return int(_core.parity_rank(self._check_X(X))[0])

    def _collect(self, X: np.ndarray, max_count: Optional[int]) -> Dichotomies:
        packed, params = _core.parity_dichotomies(X, max_count)
        return Dichotomies(self, packed, params, X.shape[0])

    def _source(self, X: np.ndarray) -> _core.DichotomySource:
        return _core.DichotomySource.parities(X)

    def _count(self, X: np.ndarray) -> int:
        return 2 ** int(_core.parity_rank(X)[0])

    def _erm(self, X: np.ndarray, y: np.ndarray, w: Optional[np.ndarray]) -> Hypothesis:
        _, params = _core.parity_erm(X, y, w)
        return self._hypothesis(np.asarray(params, dtype=np.uint64))

    def _hypothesis(self, params: np.ndarray) -> Parity:
        bits = np.unpackbits(
            np.ascontiguousarray(np.asarray(params).astype("<u8")).view(np.uint8),
            bitorder="little",
            count=self._dim,
        )
        return Parity(tuple(int(i) for i in np.flatnonzero(bits)), self._dim)

    def _check_h(self, h: Any) -> Hypothesis:
        if (
            not isinstance(h, Parity)
            or h.dim != self._dim
            or any(not 0 <= i < self._dim for i in h.support)
        ):
            raise InvalidParameterError(
                f"h: must be a Parity of dimension {self._dim}, got {h!r}", "h"
            )
        return h

    def _predict(self, h: Parity, X: np.ndarray) -> np.ndarray:
        if not h.support:
            return np.zeros(X.shape[0], dtype=bool)
        return (np.count_nonzero(X[:, list(h.support)], axis=1) % 2).astype(bool)


class FiniteClass(HypothesisClass):
    """An explicit finite class: a labeling matrix over a finite domain, or a list of callables.

    Parameters
    ----------
    labels : array_like of 0/1 or bool, shape (N, M), or sequence of callables
        Either row ``r`` gives hypothesis ``r``'s labels on the domain ``{0, ..., M-1}`` (then
        ``X`` holds domain indices, shape ``(n,)``), or each callable ``h`` maps the whole
        ``X`` (an array of ``n`` rows, of any shape and dtype) to ``n`` labels 0/1.

    Notes
    -----
    The labelings are the distinct rows of the class restricted to the sample (Bun, Nissim and
    Stemmer, §3.3), found by packing every hypothesis's labels, sorting and keeping the first of
    each run of equal rows: exact deduplication (ERRATA C6), ``O(N n / 64 + N log N)``.
    Representatives: the lowest-index member realising each labeling (:class:`FiniteMember`).
    Order: lexicographic order of the packed words (word 0 first, as unsigned integers).
    :attr:`vc_dimension` is computed exactly for a matrix (depth-first search over shattered
    sets, at most as many as distinct rows by Pajor's lemma) and is ``None`` for callables (the
    domain is unknown). Not streamed: the labelings never outnumber the ``N`` hypotheses.
    """

    def __init__(self, labels: Union[Any, Sequence[Callable[[Any], Any]]]) -> None:
        self._callables: Optional[List[Callable[[Any], Any]]] = None
        self._matrix: Optional[np.ndarray] = None
        if isinstance(labels, (list, tuple)) and labels and all(callable(h) for h in labels):
            self._callables = list(labels)
            self.size = len(self._callables)
        else:
            m = np.asarray(labels)
            if m.ndim != 2 or m.dtype.kind not in "biuf" or not np.all((m == 0) | (m == 1)):
                raise InvalidParameterError(
                    "labels: must be an (N, M) matrix of 0/1 labels or a non-empty list of callables",
                    "labels",
                )
            if m.shape[0] == 0:
                raise InvalidParameterError(
                    "labels: the class must hold at least one hypothesis", "labels"
                )
            self._matrix = _readonly(np.ascontiguousarray(m.astype(bool)))
            self.size = int(m.shape[0])
        self._vc: Optional[int] = None

    @property
    def domain_size(self) -> Optional[int]:
        """``M`` for a labeling matrix, ``None`` for callables."""
        return None if self._matrix is None else int(self._matrix.shape[1])

    def __repr__(self) -> str:
        if self._matrix is not None:
            return f"FiniteClass({self.size} hypotheses over a domain of {self.domain_size})"
        return f"FiniteClass({self.size} callables)"

    # Two finite classes are the same object only (their labels may be large, or callables).
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @property
    def vc_dimension(self) -> Optional[int]:
        if self._matrix is None:
            return None
        if self._vc is None:
            self._vc = int(_core.finite_vc_dimension(self._matrix))
        return self._vc

    def _check_X(self, X: Any) -> np.ndarray:
        if self._matrix is None:
            a = np.asarray(X)
            if a.ndim == 0:
                raise InvalidParameterError("X: must be an array of points (at least 1-D)", "X")
            return a
        a = np.asarray(X)
        if a.ndim != 1 or a.dtype.kind not in "biuf":
            raise InvalidParameterError(
                f"X: must be a 1-D array of domain indices, got shape {a.shape}", "X"
            )
        M = self._matrix.shape[1]
        if not np.all((a >= 0) & (a < M) & (a == np.floor(a))):
            raise InvalidParameterError(f"X: must hold domain indices, integers in [0, {M})", "X")
        return a.astype(np.int64)

    def _restricted(self, X: np.ndarray) -> np.ndarray:
        """Every hypothesis's labels on ``X``: boolean ``(N, n)``."""
        if self._matrix is not None:
            return np.ascontiguousarray(self._matrix[:, X])
        n = X.shape[0]
        rows = []
        for r, h in enumerate(self._callables or []):
            v = np.asarray(h(X))
            if v.shape != (n,) or not np.all((v == 0) | (v == 1)):
                raise InvalidParameterError(
                    f"labels: callable {r} must map X to {n} labels 0/1, got shape {v.shape}",
                    "labels",
                )
            rows.append(v.astype(bool))
        return np.ascontiguousarray(np.stack(rows))

    def _collect(self, X: np.ndarray, max_count: Optional[int]) -> Dichotomies:
        packed, params = _core.finite_dichotomies(self._restricted(X), max_count)
        return Dichotomies(self, packed, params, X.shape[0])

    def _streams(self, X: np.ndarray) -> bool:
        return False

    def _chunks(self, X: np.ndarray, size: int) -> Iterator[Dichotomies]:
        return self._collect(X, None).chunks(size)

    def _count(self, X: np.ndarray) -> int:
        return len(self._collect(X, None))

    def _erm(self, X: np.ndarray, y: np.ndarray, w: Optional[np.ndarray]) -> Hypothesis:
        d = self._collect(X, None)
        return d.hypothesis(d.argmin(y, w))

    def _hypothesis(self, params: np.ndarray) -> FiniteMember:
        return FiniteMember(int(params[0]))

    def _check_h(self, h: Any) -> Hypothesis:
        if not isinstance(h, FiniteMember) or not 0 <= h.index < self.size:
            raise InvalidParameterError(
                f"h: must be a FiniteMember with index in [0, {self.size}), got {h!r}", "h"
            )
        return h

    def _predict(self, h: FiniteMember, X: np.ndarray) -> np.ndarray:
        if self._matrix is not None:
            return self._matrix[h.index, X].copy()
        v = np.asarray((self._callables or [])[h.index](X))
        return v.astype(bool)
