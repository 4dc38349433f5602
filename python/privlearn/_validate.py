"""Argument checks shared by the whole package (one place, one wording of the errors)."""

from __future__ import annotations

import numbers

from .errors import InvalidParameterError

__all__ = ["check_integer"]


def check_integer(value: object, name: str, minimum: int = 1) -> int:
    """``value`` as an ``int`` at least ``minimum``; bools, floats and other non-integers are
    refused with an :class:`~privlearn.errors.InvalidParameterError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name}: must be an integer >= {minimum}; got {value!r} of type "
            f"{type(value).__name__}",
            name,
        )
    k = int(value)
    if k < minimum:
        raise InvalidParameterError(f"{name}: must be an integer >= {minimum}; got {k}", name)
    return k
