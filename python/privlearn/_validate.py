"""Argument checks shared by the whole package (one place, one wording of the errors)."""

from __future__ import annotations

import math
import numbers
import operator
from typing import Optional, SupportsIndex, cast

import numpy as np

from .errors import InvalidParameterError

__all__ = ["check_integer", "check_real"]


def check_integer(value: object, name: str, minimum: int = 1) -> int:
    """``value`` as a plain ``int`` at least ``minimum``.

    Anything implementing the integer protocol (:func:`operator.index`: ``int``, numpy integer
    scalars such as ``np.int64(10)``, ...) is accepted and converted once; bools (``True``,
    ``np.True_``), floats (even ``10.0``), strings and other non-integers are refused with an
    :class:`~privlearn.errors.InvalidParameterError` naming ``name``. Use the returned ``int``
    for everything downstream (a charge and the draws it pays for must see the same count)."""
    k: Optional[int] = None
    if not isinstance(value, (bool, np.bool_)):
        try:
            k = operator.index(cast(SupportsIndex, value))
        except TypeError:
            k = None
    if k is None:
        raise InvalidParameterError(
            f"{name}: must be an integer >= {minimum}; got {value!r} of type "
            f"{type(value).__name__}",
            name,
        )
    k = int(k)  # operator.index may return an int subclass
    if k < minimum:
        raise InvalidParameterError(f"{name}: must be an integer >= {minimum}; got {k}", name)
    return k


def _range_text(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    if math.isinf(lo) and math.isinf(hi):
        return "a finite number"
    if math.isinf(hi):
        return f"a finite number {'>' if lo_open else '>='} {lo:g}"
    if math.isinf(lo):
        return f"a finite number {'<' if hi_open else '<='} {hi:g}"
    return f"a finite number in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"


def check_real(
    value: object,
    name: str,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """``value`` as a finite ``float`` in the interval from ``lo`` to ``hi`` (each end closed
    unless ``lo_open``/``hi_open``). Bools, non-numbers, NaN, infinities and numbers too large
    for a float are refused with an :class:`~privlearn.errors.InvalidParameterError` naming
    ``name`` and the allowed range."""
    allowed = _range_text(lo, hi, lo_open, hi_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name}: must be {allowed}; got {value!r} of type {type(value).__name__}", name
        )
    try:
        x = float(value)
    except (OverflowError, ValueError, TypeError):
        raise InvalidParameterError(f"{name}: must be {allowed}; got {value!r}", name) from None
    above = x > lo if lo_open else x >= lo
    below = x < hi if hi_open else x <= hi
    if not (math.isfinite(x) and above and below):
        raise InvalidParameterError(f"{name}: must be {allowed}; got {value!r}", name)
    return x
