"""Input checks and bit layouts shared by the multi-concept learners (seed 002).

The examples and label matrices every learner of :mod:`privlearn.multi` accepts: a binary
``(n, k)`` label matrix (one column per concept), examples of ``{0, 1}^dim`` for the parity
learners, points for the point learners, and the packing of bit matrices into the 64-bit words
the Rust core works on (and back). These checks read only shapes and value types, before any
charge or draw.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..errors import InvalidParameterError
from ..gf2 import _pack
from ..hypotheses import _points


def _error(name: str, message: str) -> InvalidParameterError:
    return InvalidParameterError(f"{name}: {message}", name)


def _label_matrix(Y: Any, n: Optional[int] = None) -> np.ndarray:
    """``Y`` as a C-contiguous boolean ``(n, k)`` array with ``k >= 1``."""
    a = np.asarray(Y)
    if a.ndim != 2:
        raise _error(
            "Y",
            f"must be a label matrix of shape (n, k), one column per concept, got shape {a.shape}",
        )
    if a.shape[1] == 0:
        raise _error("Y", f"must have at least one label column (k >= 1), got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise _error("Y", f"must have one row per example ({n} rows), got {a.shape[0]}")
    if a.dtype.kind == "b":
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iuf" or not _zero_one(a):
        raise _error("Y", "must be binary: every label 0 or 1 (or a boolean)")
    return np.ascontiguousarray(a.astype(bool))


def _binary_points(X: Any, dim: int) -> np.ndarray:
    """Examples of ``{0, 1}^dim`` as a ``uint8`` ``(n, dim)`` array."""
    a = np.asarray(X)
    if a.ndim != 2 or a.shape[1] != dim:
        raise _error("X", f"must have shape (n, {dim}), got shape {a.shape}")
    if a.dtype.kind == "b":
        return np.ascontiguousarray(a.view(np.uint8))
    if a.dtype.kind not in "iuf" or not _zero_one(a):
        raise _error("X", "must hold bits: every entry 0 or 1 (or a boolean)")
    return np.ascontiguousarray(a, dtype=np.uint8)


def _zero_one(a: np.ndarray) -> bool:
    """Whether every entry of a numeric array is 0 or 1 (two reductions for integers)."""
    if a.size == 0:
        return True
    if a.dtype.kind in "iu":
        return bool(a.min() >= 0 and a.max() <= 1)
    return bool(np.all((a == 0) | (a == 1)))


def _check_rows(n: int) -> None:
    if n < 1:
        raise _error("X", "must hold at least one example")


def _packed_columns(Y: np.ndarray) -> np.ndarray:
    """The label columns of ``Y`` ``(n, k)`` as packed rows ``(k, words(n))``."""
    return _pack(np.ascontiguousarray(Y.T))


def _unpack_words(words: np.ndarray, cols: int) -> np.ndarray:
    """Packed rows -> uint8 ``(rows, cols)``."""
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(as_bytes, axis=1, count=cols, bitorder="little")


def _point_rows(X: Any) -> np.ndarray:
    """Points as a float64 ``(n, dim)`` array (``(n,)`` is ``dim = 1``)."""
    a = np.asarray(X)
    if a.ndim not in (1, 2):
        raise _error("X", f"must have shape (n,) or (n, dim), got shape {a.shape}")
    return _points(a, 1 if a.ndim == 1 else a.shape[1])
