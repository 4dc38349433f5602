"""Linear algebra over GF(2) on bit-packed matrices.

:class:`GF2Matrix` stores a matrix over the field with two elements as packed rows of
little-endian ``uint64`` words: column ``j`` of a row is bit ``j % 64`` of word ``j // 64``
(LSB-first) and the bits past the last column are zero, the bit-packing convention shared by all
of privlearn. The functions :func:`rank`, :func:`rref`, :func:`solve`, :func:`nullspace`,
:func:`inverse` and :func:`learn_parity` accept a :class:`GF2Matrix` or any two-dimensional
array of zeros and ones (``bool`` or an integer dtype, galois ``GF(2)`` arrays included).

Everything is exact and deterministic: there is no rounding over GF(2), and the same input
always gives the same output.

Algorithms (Rust core, ``privlearn_core::gf2``)
-----------------------------------------------
* Elimination (:func:`rref`, :func:`rank`, and through them :func:`solve`, :func:`nullspace`,
  :func:`inverse`): a blocked Method of the Four Russians. Strips of 256 columns are processed
  in turn: their pivots are found with Bard's M4RI tables (G. V. Bard, 2006; Albrecht, Bard and
  Pernet, "Efficient dense Gaussian elimination over the field with two elements",
  arXiv:1111.6549), and the rows below receive the strip's pivot rows through a Four-Russians
  product (M4RM) with one 256-entry table per byte of the strip, built per cache-sized column
  segment. The reduced form is finished by a triangular solve on the free columns only. For a
  random ``n x n`` matrix this is about ``n^3 / 3`` bit operations done eight bits of the inner
  dimension per table lookup, i.e. ``n^3 / 1536`` 64-bit XORs; vectorised with AVX-512 or AVX2
  when the CPU has them (chosen at run time), and large updates are split over threads
  (rayon; ``RAYON_NUM_THREADS`` sets their number). The result never depends on either.
* Multiplication (``@``): M4RM (Albrecht, Bard and Hart, "Efficient multiplication of dense
  matrices over GF(2)", ACM TOMS 37(1), 2010, arXiv:0811.1714), eight-bit tables, 32 tables per
  pass over the destination.
"""

from __future__ import annotations

import operator
from typing import Any, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._validate import check_integer
from .errors import InvalidParameterError
from .random import RngLike, _core_rng

__all__ = [
    "GF2Matrix",
    "MatrixLike",
    "rank",
    "rref",
    "solve",
    "nullspace",
    "inverse",
    "learn_parity",
]


def _words_per_row(cols: int) -> int:
    return (cols + 63) // 64


def _bits(data: Any, name: str, ndim: Optional[int] = 2) -> np.ndarray:
    """``data`` as a ``uint8`` array of zeros and ones (validated; ``ndim`` dimensions if given)."""
    arr = np.asarray(data)
    if ndim is not None and arr.ndim != ndim:
        raise InvalidParameterError(
            f"{name}: must be {ndim}-dimensional, got an array of shape {arr.shape}", name
        )
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return np.zeros(arr.shape, dtype=np.uint8)
        raise InvalidParameterError(
            f"{name}: must hold zeros and ones (a bool or integer dtype), got dtype {arr.dtype}",
            name,
        )
    if arr.size and not bool(((arr == 0) | (arr == 1)).all()):
        raise InvalidParameterError(f"{name}: must hold only zeros and ones", name)
    return arr.astype(np.uint8)


def _pack(bits: np.ndarray) -> np.ndarray:
    """Packs a ``(rows, cols)`` array of zeros and ones into ``(rows, ceil(cols/64))`` words."""
    rows, cols = bits.shape
    wpr = _words_per_row(cols)
    out = np.zeros((rows, wpr * 8), dtype=np.uint8)
    if cols:
        packed = np.packbits(bits, axis=1, bitorder="little")
        out[:, : packed.shape[1]] = packed
    return np.ascontiguousarray(out.view("<u8"), dtype=np.uint64).reshape(rows, wpr)


def _unpack(words: np.ndarray, cols: int) -> np.ndarray:
    """The ``(rows, cols)`` ``uint8`` array of zeros and ones of packed rows."""
    rows = words.shape[0]
    if cols == 0 or rows == 0:
        return np.zeros((rows, cols), dtype=np.uint8)
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(rows, -1)
    return np.unpackbits(as_bytes, axis=1, count=cols, bitorder="little")


class GF2Matrix:
    """A dense matrix over GF(2), stored as bit-packed rows of ``uint64`` words.

    Parameters
    ----------
    data : array_like or GF2Matrix
        A two-dimensional array of zeros and ones (``bool`` or any integer dtype; galois
        ``GF(2)`` arrays work), or another :class:`GF2Matrix` (copied).

    Notes
    -----
    * Storage: :attr:`packed`, a C-contiguous ``(rows, ceil(cols / 64))`` ``uint64`` array in
      privlearn's bit-packing convention (column ``j`` is bit ``j % 64`` of word ``j // 64``,
      padding bits zero). :meth:`from_packed` builds a matrix from such words without unpacking.
    * ``A == B`` compares two matrices and returns one ``bool`` (shape and entries), unlike
      numpy's element-wise comparison.
    * Indexing follows numpy's rules on the matrix of zeros and ones, except that the result
      stays two-dimensional: ``A[i]`` is the ``1 x cols`` matrix of row ``i``, ``A[:, j]`` the
      ``rows x 1`` matrix of column ``j``, ``A[r0:r1, c0:c1]``, ``A[[0, 3]]`` and boolean masks
      select submatrices, and ``A[i, j]`` is a ``bool``. Assignment (``A[i, j] = 1``,
      ``A[:, 2] = column``) takes zeros and ones.
    * ``A @ B`` is the product over GF(2) (``B`` a :class:`GF2Matrix` or an array); ``A @ x``
      with a one-dimensional ``x`` returns the one-dimensional ``uint8`` vector ``A x``.
      ``A + B`` (and ``A - B``, the same thing) adds entry-wise modulo 2.
    * ``np.asarray(A)`` gives the ``uint8`` array of zeros and ones; :meth:`to_numpy` takes a
      dtype.
    """

    __slots__ = ("_words", "_cols")
    # numpy defers binary operators (``array @ A``) to this class.
    __array_ufunc__ = None

    def __init__(self, data: "MatrixLike") -> None:
        if isinstance(data, GF2Matrix):
            self._words: np.ndarray = data._words.copy()
            self._cols: int = data._cols
            return
        bits = _bits(data, "data")
        self._words = _pack(bits)
        self._cols = int(bits.shape[1])

    @classmethod
    def _wrap(cls, words: np.ndarray, cols: int) -> "GF2Matrix":
        m = cls.__new__(cls)
        m._words = words
        m._cols = cols
        return m

    # ----------------------------------------------------------------------------------------
    # Construction

    @classmethod
    def from_packed(cls, words: ArrayLike, cols: int) -> "GF2Matrix":
        """A matrix from packed rows (copied).

        Parameters
        ----------
        words : array_like of uint64, shape (rows, ceil(cols / 64))
            Row ``i``, column ``j`` is bit ``j % 64`` of ``words[i, j // 64]``.
        cols : int
            Number of columns.

        Raises
        ------
        InvalidParameterError
            If the shape does not match ``cols``, the dtype is not an unsigned (or non-negative
            signed) integer, or a bit beyond column ``cols - 1`` is set.
        """
        cols = check_integer(cols, "cols", 0)
        arr = np.asarray(words)
        if arr.ndim != 2:
            raise InvalidParameterError(
                f"words: must be two-dimensional (rows, words per row), got shape {arr.shape}",
                "words",
            )
        wpr = _words_per_row(cols)
        if arr.shape[1] != wpr:
            raise InvalidParameterError(
                f"words: rows of {cols} columns need {wpr} words each, got {arr.shape[1]}", "words"
            )
        if arr.dtype.kind == "i" and arr.size and int(arr.min()) < 0:
            raise InvalidParameterError("words: must be non-negative integers", "words")
        if arr.dtype.kind not in "iu" and arr.size:
            raise InvalidParameterError(
                f"words: must be uint64 words, got dtype {arr.dtype}", "words"
            )
        out = np.array(arr, dtype=np.uint64, order="C", copy=True).reshape(arr.shape[0], wpr)
        if wpr and cols % 64 and bool((out[:, -1] >> np.uint64(cols % 64)).any()):
            raise InvalidParameterError(
                f"words: bits are set beyond column {cols - 1} (padding bits must be zero)", "words"
            )
        return cls._wrap(out, cols)

    @classmethod
    def zeros(cls, rows: int, cols: int) -> "GF2Matrix":
        """The ``rows x cols`` zero matrix."""
        rows, cols = check_integer(rows, "rows", 0), check_integer(cols, "cols", 0)
        return cls._wrap(np.zeros((rows, _words_per_row(cols)), dtype=np.uint64), cols)

    @classmethod
    def identity(cls, n: int) -> "GF2Matrix":
        """The ``n x n`` identity matrix."""
        n = check_integer(n, "n", 0)
        words = np.zeros((n, _words_per_row(n)), dtype=np.uint64)
        idx = np.arange(n)
        words[idx, idx // 64] = np.left_shift(np.uint64(1), (idx % 64).astype(np.uint64))
        return cls._wrap(words, n)

    @classmethod
    def random(cls, rows: int, cols: int, rng: RngLike = None) -> "GF2Matrix":
        """A uniformly random ``rows x cols`` matrix.

        Each row takes ``ceil(cols / 64)`` 64-bit draws of ``rng`` (see
        :mod:`privlearn.random`); the padding bits of the last word are cleared. The same seed
        gives the same matrix as the Rust core's ``Matrix::random``.
        """
        rows, cols = check_integer(rows, "rows", 0), check_integer(cols, "cols", 0)
        return cls._wrap(_core.gf2_random(rows, cols, _core_rng(rng)), cols)

    # ----------------------------------------------------------------------------------------
    # Shape and conversion

    @property
    def shape(self) -> Tuple[int, int]:
        """``(rows, cols)``."""
        return (int(self._words.shape[0]), self._cols)

    @property
    def packed(self) -> np.ndarray:
        """The packed rows, a read-only ``(rows, ceil(cols / 64))`` ``uint64`` view."""
        view = self._words.view()
        view.flags.writeable = False
        return view

    def to_numpy(self, dtype: Any = np.uint8) -> np.ndarray:
        """The ``(rows, cols)`` array of zeros and ones, of ``dtype`` (``uint8`` or ``bool``, or
        any numeric dtype)."""
        return _unpack(self._words, self._cols).astype(dtype, copy=False)

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        return self.to_numpy(np.uint8 if dtype is None else dtype)

    def copy(self) -> "GF2Matrix":
        """An independent copy."""
        return GF2Matrix._wrap(self._words.copy(), self._cols)

    def __copy__(self) -> "GF2Matrix":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "GF2Matrix":
        return self.copy()

    def __len__(self) -> int:
        return int(self._words.shape[0])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GF2Matrix):
            return NotImplemented
        return self.shape == other.shape and bool(np.array_equal(self._words, other._words))

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        rows, cols = self.shape
        if rows * cols <= 4096:
            body = np.array2string(self.to_numpy(), separator=" ", prefix="GF2Matrix(")
            return f"GF2Matrix({body}, shape={self.shape})"
        head = _unpack(self._words[: min(rows, 6)], min(cols, 64))
        lines = ["".join("1" if v else "0" for v in r) + ("..." if cols > 64 else "") for r in head]
        if rows > 6:
            lines.append("...")
        return f"GF2Matrix(shape={self.shape}, rows=[\n  " + "\n  ".join(lines) + "])"

    # ----------------------------------------------------------------------------------------
    # Indexing

    def _split_key(self, key: Any) -> Tuple[Any, Any]:
        if isinstance(key, tuple):
            if len(key) == 2:
                return key[0], key[1]
            if len(key) == 1:
                return key[0], slice(None)
            raise IndexError(f"too many indices for a two-dimensional matrix: {len(key)}")
        return key, slice(None)

    @staticmethod
    def _norm_int(i: Any, n: int, axis: str) -> Optional[int]:
        """``i`` as an in-range non-negative index if it is an integer, else None."""
        if isinstance(i, (bool, np.bool_)):
            return None
        try:
            k = operator.index(i)
        except TypeError:
            return None
        if not -n <= k < n:
            raise IndexError(f"{axis} index {k} is out of bounds for size {n}")
        return k % n if n else k

    def __getitem__(self, key: Any) -> Union["GF2Matrix", bool]:
        rows, cols = self.shape
        rkey, ckey = self._split_key(key)
        i = self._norm_int(rkey, rows, "row")
        j = self._norm_int(ckey, cols, "column")
        if i is not None and j is not None:
            return bool((int(self._words[i, j // 64]) >> (j % 64)) & 1)
        words = self._words[i : i + 1] if i is not None else self._words[rkey]
        if words.ndim != 2:
            raise IndexError(f"invalid row index {rkey!r}")
        if isinstance(ckey, slice) and ckey == slice(None):
            return GF2Matrix._wrap(np.ascontiguousarray(words).copy(), cols)
        bits = _unpack(words, cols)
        sub = bits[:, j : j + 1] if j is not None else bits[:, ckey]
        if sub.ndim != 2:
            raise IndexError(f"invalid column index {ckey!r}")
        return GF2Matrix._wrap(_pack(sub), int(sub.shape[1]))

    def __setitem__(self, key: Any, value: Any) -> None:
        rows, cols = self.shape
        rkey, ckey = self._split_key(key)
        i = self._norm_int(rkey, rows, "row")
        j = self._norm_int(ckey, cols, "column")
        if isinstance(value, GF2Matrix):
            value = value.to_numpy()
        vals = _bits(value, "value", ndim=None)
        if i is not None and j is not None:
            if vals.size != 1:
                raise InvalidParameterError("value: must be a single 0 or 1 for one entry", "value")
            bit = np.uint64(1) << np.uint64(j % 64)
            if vals.reshape(()).item():
                self._words[i, j // 64] |= bit
            else:
                self._words[i, j // 64] &= ~bit
            return
        bits = _unpack(self._words, cols)  # a fresh copy: nothing changes if this fails
        try:
            # numpy's rules (an integer index drops its axis), or the two-dimensional view of
            # __getitem__ (``A[:, 3] = A[:, 0]`` with a rows x 1 matrix).
            try:
                bits[rkey if i is None else i, ckey if j is None else j] = vals
            except ValueError:
                if i is None and j is None:
                    raise
                rsel = slice(i, i + 1) if i is not None else rkey
                csel = slice(j, j + 1) if j is not None else ckey
                bits[rsel, csel] = vals
        except ValueError as err:
            raise InvalidParameterError(f"value: {err}", "value") from None
        self._words = _pack(bits)

    # ----------------------------------------------------------------------------------------
    # Arithmetic

    @property
    def T(self) -> "GF2Matrix":
        """The transpose."""
        return self.transpose()

    def transpose(self) -> "GF2Matrix":
        """The transpose (64 x 64 bit-block transposes)."""
        rows, cols = self.shape
        return GF2Matrix._wrap(_core.gf2_transpose(self._words, cols), rows)

    def __matmul__(self, other: Any) -> Union["GF2Matrix", np.ndarray]:
        if isinstance(other, GF2Matrix):
            return _matmul(self, other, "other")
        arr = np.asarray(other)
        if arr.ndim == 1:
            col = _as_matrix(_bits(arr, "other", ndim=1).reshape(-1, 1), "other")
            return _matmul(self, col, "other").to_numpy().reshape(-1)
        return _matmul(self, _as_matrix(arr, "other"), "other")

    def __rmatmul__(self, other: Any) -> Union["GF2Matrix", np.ndarray]:
        arr = np.asarray(other)
        if arr.ndim == 1:
            row = _as_matrix(_bits(arr, "other", ndim=1).reshape(1, -1), "other")
            return _matmul(row, self, "other").to_numpy().reshape(-1)
        return _matmul(_as_matrix(arr, "other"), self, "other")

    def __add__(self, other: Any) -> "GF2Matrix":
        b = _as_matrix(other, "other")
        if b.shape != self.shape:
            raise InvalidParameterError(
                f"other: shapes differ: {self.shape} and {b.shape}", "other"
            )
        return GF2Matrix._wrap(self._words ^ b._words, self._cols)

    __radd__ = __add__
    __sub__ = __add__
    __rsub__ = __add__


MatrixLike = Union[GF2Matrix, ArrayLike]
"""A :class:`GF2Matrix` or a two-dimensional array of zeros and ones."""


def _as_matrix(a: Any, name: str) -> GF2Matrix:
    """``a`` as a :class:`GF2Matrix` (no copy for a matrix)."""
    if isinstance(a, GF2Matrix):
        return a
    bits = _bits(a, name)
    return GF2Matrix._wrap(_pack(bits), int(bits.shape[1]))


def _matmul(a: GF2Matrix, b: GF2Matrix, name: str) -> GF2Matrix:
    if a.shape[1] != b.shape[0]:
        raise InvalidParameterError(
            f"{name}: cannot multiply a {a.shape[0]} x {a.shape[1]} matrix by a "
            f"{b.shape[0]} x {b.shape[1]} matrix (inner dimensions differ)",
            name,
        )
    return GF2Matrix._wrap(_core.gf2_mul(a._words, a._cols, b._words, b._cols), b._cols)


def rank(A: MatrixLike) -> int:
    """The rank of ``A`` over GF(2).

    Parameters
    ----------
    A : GF2Matrix or array_like
        A matrix of zeros and ones.

    Returns
    -------
    int
        The dimension of the row space (equivalently, of the column space).

    Notes
    -----
    Computed by the forward pass of the blocked Four-Russians elimination (see the module
    documentation), without the back substitution of :func:`rref`.
    """
    a = _as_matrix(A, "A")
    return int(_core.gf2_rank(a._words, a._cols))


def rref(A: MatrixLike) -> Tuple[GF2Matrix, np.ndarray]:
    """The reduced row echelon form of ``A`` and its pivot columns.

    Parameters
    ----------
    A : GF2Matrix or array_like
        A matrix of zeros and ones (not modified).

    Returns
    -------
    R : GF2Matrix
        The reduced row echelon form, the same shape as ``A``: row ``r < rank`` has its leading
        one in column ``pivots[r]``, every other row is zero in that column, and the rows from
        ``rank`` on are zero. It is unique, and equals ``P A`` for an invertible ``P``.
    pivots : numpy.ndarray of int64
        The pivot columns in increasing order; ``len(pivots)`` is the rank.

    Notes
    -----
    Blocked Method of the Four Russians (Bard's M4RI for the pivots of each 256-column strip,
    M4RM products for the updates; Albrecht, Bard and Pernet, arXiv:1111.6549), then a
    triangular solve on the free columns. See the module documentation.
    """
    a = _as_matrix(A, "A")
    words, pivots = _core.gf2_rref(a._words, a._cols)
    return GF2Matrix._wrap(words, a._cols), pivots


def _rhs(b: Any, rows: int, name: str) -> Tuple[GF2Matrix, bool]:
    """A right-hand side: a matrix with ``rows`` rows, and whether it was one-dimensional."""
    vector = not isinstance(b, GF2Matrix) and np.ndim(b) == 1
    if vector:
        m = _as_matrix(_bits(b, name, ndim=1).reshape(-1, 1), name)
    else:
        m = _as_matrix(b, name)
    if m.shape[0] != rows:
        raise InvalidParameterError(
            f"{name}: must have {rows} {'entries' if vector else 'rows'} (one per row of the "
            f"matrix), got {m.shape[0]}",
            name,
        )
    return m, vector


def _solve(A: Any, b: Any, a_name: str, b_name: str) -> Union[GF2Matrix, np.ndarray, None]:
    """:func:`solve` with the parameters' public names (for the error messages)."""
    a = _as_matrix(A, a_name)
    rhs, vector = _rhs(b, a.shape[0], b_name)
    x = _core.gf2_solve(a._words, a._cols, rhs._words, rhs._cols)
    if x is None:
        return None
    out = GF2Matrix._wrap(x, rhs._cols)
    return out.to_numpy().reshape(-1) if vector else out


def solve(A: MatrixLike, b: MatrixLike) -> Union[GF2Matrix, np.ndarray, None]:
    """A solution ``x`` of ``A x = b`` over GF(2), or None if there is none.

    Parameters
    ----------
    A : GF2Matrix or array_like, shape (n, m)
        The matrix of the system.
    b : array_like of shape (n,), or GF2Matrix or array_like of shape (n, k)
        One right-hand side, or ``k`` of them as columns.

    Returns
    -------
    numpy.ndarray of uint8, shape (m,); or GF2Matrix, shape (m, k); or None
        For a one-dimensional ``b``, the vector ``x``; for a matrix ``b``, the matrix ``X``
        with ``A X = b``. **None if the system is inconsistent** (for a matrix ``b``: if any
        column is), so test the result with ``is None``.

    Notes
    -----
    When the system is underdetermined, the solution returned is the one whose free variables
    (the non-pivot columns of ``rref(A)``) are zero: it is supported on the pivot columns. All
    solutions are that one plus the null space (:func:`nullspace`). Computed by the
    reduced echelon form of ``[A | b]`` with pivots restricted to the columns of ``A``.
    """
    return _solve(A, b, "A", "b")


def nullspace(A: MatrixLike) -> GF2Matrix:
    """A basis of the null space ``{x : A x = 0}`` of ``A`` over GF(2).

    Parameters
    ----------
    A : GF2Matrix or array_like, shape (n, m)

    Returns
    -------
    GF2Matrix, shape (m, m - rank(A))
        The basis vectors as columns, so ``A @ N`` is zero and ``N`` has full column rank.
        Column ``t`` belongs to the ``t``-th free (non-pivot) column ``f`` of ``rref(A)``: it is
        one at ``f``, zero at the other free columns, and ``R[r, f]`` at pivot column
        ``pivots[r]``. An ``m x 0`` matrix when ``A`` has full column rank.
    """
    a = _as_matrix(A, "A")
    words, cols = _core.gf2_nullspace(a._words, a._cols)
    return GF2Matrix._wrap(words, int(cols))


def inverse(A: MatrixLike) -> GF2Matrix:
    """The inverse of a square matrix over GF(2).

    Parameters
    ----------
    A : GF2Matrix or array_like, shape (n, n)

    Returns
    -------
    GF2Matrix, shape (n, n)
        ``A^{-1}``, with ``A @ A^{-1}`` the identity.

    Raises
    ------
    InvalidParameterError
        If ``A`` is not square, or is singular (rank below ``n``).

    Notes
    -----
    The right half of the reduced echelon form of ``[A | I]``, pivots restricted to ``A``.
    """
    a = _as_matrix(A, "A")
    n, m = a.shape
    if n != m:
        raise InvalidParameterError(f"A: must be square to be inverted, got shape {a.shape}", "A")
    inv = _core.gf2_inverse(a._words, a._cols)
    if inv is None:
        raise InvalidParameterError(
            f"A: the matrix is singular over GF(2) (rank {rank(a)} < {n}); it has no inverse", "A"
        )
    return GF2Matrix._wrap(inv, n)


def learn_parity(X: MatrixLike, y: MatrixLike) -> Union[GF2Matrix, np.ndarray, None]:
    """A parity function consistent with labelled examples, or None if there is none.

    The parity of ``s`` in ``{0, 1}^d`` labels ``x`` in ``{0, 1}^d`` with ``<s, x> mod 2``. This
    finds ``s`` with ``<s, X[i]> = y[i] (mod 2)`` for every example ``i``: the non-private
    learner of parities by Gaussian elimination that Bun, Nissim and Stemmer's
    ``SearchParities`` (Theorem 3.12) runs on each subsample.

    Parameters
    ----------
    X : GF2Matrix or array_like, shape (n, d)
        The examples, one per row.
    y : array_like of shape (n,), or GF2Matrix or array_like of shape (n, k)
        The labels, or ``k`` labellings of the same examples as columns (all solved with one
        elimination).

    Returns
    -------
    numpy.ndarray of uint8, shape (d,); or GF2Matrix, shape (d, k); or None
        The indicator vector ``s`` (for ``k`` labellings, the vectors as columns). **None if no
        parity is consistent** with the labels (for ``k`` labellings: with one of them).

    Notes
    -----
    When several parities are consistent (``rank(X) < d``), the one supported on the pivot
    columns of ``rref(X)`` is returned: a canonical representative that depends on ``X`` and
    ``y`` only. It is unique exactly when ``rank(X) = d``. Equivalent to ``solve(X, y)``.
    """
    return _solve(X, y, "X", "y")
