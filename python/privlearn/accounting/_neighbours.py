r"""Shared by the Rényi-divergence notions (zCDP, RDP): neighbouring notions and safe sums.

Every zCDP budget and RDP curve records the neighbouring relation its guarantee is stated for
(:data:`REPLACE_ONE`, privlearn's default, or :data:`ADD_REMOVE_ONE`), and composing two
guarantees of different relations is refused (:func:`_same_neighbours`): there is no silent
conversion. The two helpers :func:`_sum_up` and :func:`_fsum_up` turn high-precision decimal
terms, or floats, into a float that is never below the exact sum; they build on
:mod:`privlearn.accounting._numerics`.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from typing import Sequence

from .._validate import check_choice
from ..errors import InvalidParameterError
from ._numerics import _context, _float_up

#: Neighbours differ by replacing one record (same, public, size): privlearn's default.
REPLACE_ONE = "replace-one"
#: Neighbours differ by adding or removing one record (the size is private).
ADD_REMOVE_ONE = "add/remove-one"
NEIGHBOURS = (REPLACE_ONE, ADD_REMOVE_ONE)

#: Significant digits of the decimal evaluations of the RDP and zCDP formulas.
_RDIGITS = 80
#: Margin added to a decimal sum, relative to the sum of the absolute values of its terms.
#: Each term is produced by at most a few dozen correctly rounded operations at 80 digits on
#: well-conditioned inputs (relative error below 1e-75), so the accumulated absolute error of
#: the sum is below 1e-70 times the sum of absolute values: the margin covers it 10**10 times.
_MARGIN = Decimal(10) ** -60


def _neighbours_arg(value: object, name: str = "neighbours") -> str:
    """``value`` if it is one of :data:`NEIGHBOURS`."""
    return check_choice(value, name, NEIGHBOURS)


def _same_neighbours(first: str, second: str, name: str) -> str:
    """The common neighbouring notion of two guarantees being composed; refuses a mix."""
    if first != second:
        raise InvalidParameterError(
            f"{name}: cannot compose a guarantee for {first!r} neighbours with one for "
            f"{second!r} neighbours (convert one of them first; no silent mixing)",
            name,
        )
    return first


def _rcontext() -> decimal.Context:
    """The decimal context of the RDP and zCDP formulas (80 digits, traps on overflow)."""
    return _context(_RDIGITS)


def _sum_up(terms: Sequence[Decimal]) -> float:
    """A float >= the exact sum of the quantities that ``terms`` approximate.

    The terms must have been computed in :func:`_rcontext` (relative error below 1e-75 each);
    the sum is formed at 80 digits, :data:`_MARGIN` times the sum of absolute values is added
    and the result rounded up to a float (``inf`` beyond the largest float).
    """
    with decimal.localcontext(_rcontext()):
        total = Decimal(0)
        scale = Decimal(0)
        for t in terms:
            total += t
            scale += abs(t)
        return _float_up(total + scale * _MARGIN)


def _fsum_up(values: Sequence[float]) -> float:
    """The exact sum of the floats ``values`` (all >= 0 or ``inf``), rounded up to a float.

    :func:`math.fsum` returns the correctly rounded exact sum ``s``; the exact residual
    ``sum(values) - s`` is a sum of floats, hence a multiple of ``2**-1074`` whose correctly
    rounded value has the same sign, so ``fsum(values + [-s]) > 0`` tells exactly when ``s`` is
    below the exact sum and must be moved to the next float up.
    """
    if any(math.isinf(v) for v in values):
        return math.inf
    try:
        s = math.fsum(values)
        if math.isinf(s):
            return math.inf
        if math.fsum([*values, -s]) > 0.0:
            s = math.nextafter(s, math.inf)
    except OverflowError:
        return math.inf
    return s + 0.0
