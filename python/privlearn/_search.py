"""Search over the integers shared by the package's sample-size and parameter calculators."""

from __future__ import annotations

from typing import Callable, Optional

__all__ = ["first_true"]


def first_true(
    pred: Callable[[int], object],
    start: int,
    *,
    stop: Optional[int] = None,
    rel: int = 0,
    limit: Optional[int] = None,
) -> Optional[int]:
    """The smallest integer ``n >= start`` with ``pred(n)`` true, for ``pred`` false then true
    on the range searched (monotone).

    ``start`` itself is tried first. Without ``stop`` the search doubles from ``start`` (from
    1 if ``start < 1``) until ``pred`` holds, then bisects; with ``stop`` (where ``pred`` is
    known to hold) it bisects between ``start`` and ``stop``. With ``rel > 0`` the bisection
    stops once the bracket is at most ``hi // rel`` wide: the result then satisfies ``pred`` and
    is within a factor ``1 + 1/rel`` of the smallest. Returns ``None`` if doubling passes
    ``limit``.
    """
    if pred(start):
        return start
    if stop is None:
        lo, hi = start, max(2 * start, 1)
        while not pred(hi):
            lo, hi = hi, 2 * hi
            if limit is not None and hi > limit:
                return None
    else:
        lo, hi = start, stop
    while hi - lo > max(1, hi // rel if rel > 0 else 1):
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi
