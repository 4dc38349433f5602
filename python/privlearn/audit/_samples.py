"""Sample preparation: mechanism outputs (numbers, vectors, or any value, possibly ragged) as a
checked array whose first axis indexes the samples, with unhashable outputs (lists, arrays)
turned into hashable tuples so that each distinct output can be counted as one discrete
value."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from ..errors import InvalidParameterError


def _check_samples(x: Any, name: str) -> np.ndarray:
    if isinstance(x, np.ndarray):
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except ValueError:  # ragged outputs: keep them as hashable objects
            arr = _object_array([_hashable(v) for v in x])
    if arr.ndim == 0:
        raise InvalidParameterError(f"{name}: must be a sequence of outputs, got a scalar", name)
    if arr.shape[0] == 0:
        raise InvalidParameterError(f"{name}: must hold at least one sample, got none", name)
    if arr.dtype.kind in "fc" and np.isnan(arr).any():
        raise InvalidParameterError(f"{name}: must not contain NaN", name)
    if arr.dtype.kind == "c":
        raise InvalidParameterError(f"{name}: complex outputs are not supported", name)
    return arr


def _object_array(items: List[Any]) -> np.ndarray:
    """A one-dimensional object array holding ``items`` as they are (tuples stay tuples)."""
    out = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        out[i] = v
    return out


def _hashable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return tuple(v.ravel().tolist())
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, list):
        return tuple(_hashable(u) for u in v)
    if isinstance(v, tuple):
        return tuple(_hashable(u) for u in v)
    return v
