"""Argument checks shared by the whole package: one function per kind of argument, one wording.

Every public entry point checks its arguments with these functions (and no module keeps a
private copy): the message starts with the parameter's name, states the allowed range and
shows the offending value (arguments are checked before private data is read, so the value is
public).  The checks are data-independent by construction.

- :func:`check_integer`: counts (``operator.index``; bools and floats refused);
- :func:`check_real`: a finite float in an interval; ``exact=True`` also refuses a rational
  that a float cannot hold (for values that are stored in budgets, where rounding could
  under-report);
- :func:`check_epsilon`, :func:`check_delta`, :func:`check_probability`,
  :func:`check_positive`: the named intervals, built on :func:`check_real`;
- :func:`check_choice`: one of a few strings;
- :func:`check_number`: the *type* only (a real number, not a bool, a string, ``None`` or a
  container), for arguments whose range the Rust core checks: a wrong type then raises
  :class:`~privlearn.errors.InvalidParameterError` naming the parameter instead of the binding
  layer's anonymous ``TypeError``;

The Rust core checks the values it receives once more (``privlearn_core::error``); these
Python checks give the messages users see.
"""

from __future__ import annotations

import math
import numbers
import operator
from fractions import Fraction
from typing import Optional, Sequence, SupportsIndex, cast

import numpy as np

from .errors import InvalidParameterError

__all__ = [
    "check_choice",
    "check_delta",
    "check_epsilon",
    "check_integer",
    "check_number",
    "check_positive",
    "check_probability",
    "check_real",
]


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


def check_number(value: object, name: str) -> None:
    """Refuse, naming ``name``, a ``value`` that is not a real number: ``None``, bools
    (``True``, ``np.True_``), strings, bytes, complex numbers and objects without ``__float__``
    (lists, dicts, ...). Anything with ``__float__`` is passed on as it is (numpy scalars and
    0-d arrays included): its range and finiteness are checked where it is used, by the Rust
    core or by :func:`check_real`. Cheap: one ``isinstance`` for a plain float or int."""
    if type(value) is float or type(value) is int:
        return
    if (
        value is None
        or isinstance(value, (bool, np.bool_, str, bytes, complex, np.complexfloating))
        or not hasattr(type(value), "__float__")
    ):
        what = "None" if value is None else f"{value!r} of type {type(value).__name__}"
        raise InvalidParameterError(f"{name}: must be a real number; got {what}", name)


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
    exact: bool = False,
) -> float:
    """``value`` as a finite ``float`` in the interval from ``lo`` to ``hi`` (each end closed
    unless ``lo_open``/``hi_open``). Bools, non-numbers, NaN, infinities and numbers too large
    for a float are refused with an :class:`~privlearn.errors.InvalidParameterError` naming
    ``name`` and the allowed range. With ``exact=True`` a rational (``Fraction``, ...) that is
    not exactly a float is refused too, instead of being rounded."""
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
    if exact and isinstance(value, numbers.Rational):
        if Fraction(x) != Fraction(int(value.numerator), int(value.denominator)):
            raise InvalidParameterError(
                f"{name}: must be exactly representable as a float (it is stored as a float "
                f"and rounding could under-report); got {value!r}",
                name,
            )
    return x + 0.0  # normalises -0.0 to 0.0


def check_epsilon(
    value: object, name: str = "epsilon", *, zero_ok: bool = False, exact: bool = False
) -> float:
    """A privacy parameter epsilon: given (``None`` is refused with its own message), finite,
    and > 0 (>= 0 with ``zero_ok``, for budgets and ledgers)."""
    if value is None:
        raise InvalidParameterError(
            f"{name}: the privacy parameter must be given (a finite number "
            f"{'>=' if zero_ok else '>'} 0); got None",
            name,
        )
    return check_real(value, name, 0.0, lo_open=not zero_ok, exact=exact)


def check_delta(
    value: object, name: str = "delta", *, zero_ok: bool = True, exact: bool = False
) -> float:
    """A privacy parameter delta in [0, 1) ((0, 1) without ``zero_ok``)."""
    return check_real(value, name, 0.0, 1.0, lo_open=not zero_ok, hi_open=True, exact=exact)


def check_probability(
    value: object, name: str, *, zero_ok: bool = False, one_ok: bool = False, hi: float = 1.0
) -> float:
    """A probability (a confidence, a failure probability, a rate) in (0, ``hi``); either end
    is included with ``zero_ok`` / ``one_ok`` (``one_ok`` includes ``hi``)."""
    return check_real(value, name, 0.0, hi, lo_open=not zero_ok, hi_open=not one_ok)


def check_positive(value: object, name: str) -> float:
    """A finite number > 0 (a bound, a scale, a regularisation strength)."""
    return check_real(value, name, 0.0, lo_open=True)


def check_choice(value: object, name: str, options: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``options``."""
    if not isinstance(value, str) or value not in options:
        raise InvalidParameterError(
            f"{name}: must be one of {', '.join(repr(o) for o in options)}; got {value!r}", name
        )
    return value


def check_iterable(value: object, name: str) -> list:
    """The elements of ``value`` as a list; a clear error if it is not iterable (a str is
    refused too: it is never a sequence of guarantees)."""
    if isinstance(value, (str, bytes)):
        raise InvalidParameterError(
            f"{name}: must be an iterable of guarantees, got a {type(value).__name__}", name
        )
    try:
        return list(value)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidParameterError(
            f"{name}: must be an iterable, got {type(value).__name__}", name
        ) from None


def check_boolean(value: object, name: str) -> bool:
    """``value`` as a ``bool`` (``True``/``False`` or a numpy bool; nothing else)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name}: must be True or False; got {value!r}", name)
    return bool(value)
