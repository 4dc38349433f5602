"""The integer search shared by the sample-size calculators (privlearn._search)."""

from __future__ import annotations

import pytest

from privlearn._search import first_true


@pytest.mark.parametrize("start", [0, 1, 2, 7, 100])
@pytest.mark.parametrize("target", [0, 1, 5, 64, 65, 1000, 12345])
def test_first_true_is_the_smallest(start, target):
    calls = []

    def pred(n):
        calls.append(n)
        return n >= target

    got = first_true(pred, start)
    assert got == max(start, target)
    assert len(calls) <= 2 * max(target, 2).bit_length() + 2  # doubling then bisection
    # Bounded: the same answer when the top of the range is known to satisfy it.
    stop = max(start, target) + 37
    assert first_true(lambda n: n >= target, start, stop=stop) == max(start, target)


def test_relative_tolerance_and_limit():
    target = 1_000_003
    got = first_true(lambda n: n >= target, 1, rel=1000)
    assert got >= target and got - target <= got // 1000
    assert got != target  # coarser than exact here, so the tolerance is in effect
    assert first_true(lambda n: n >= target, 1) == target
    assert first_true(lambda n: False, 1, limit=1 << 20) is None
