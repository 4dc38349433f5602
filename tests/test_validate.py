"""The argument checks shared by the package (privlearn._validate)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from privlearn._validate import check_integer, check_real
from privlearn.errors import InvalidParameterError


def test_check_real_accepts_numbers_in_range():
    assert check_real(1, "x") == 1.0 and isinstance(check_real(1, "x"), float)
    assert check_real(np.float32(0.5), "x", 0.0, 1.0) == 0.5
    assert check_real(Fraction(1, 4), "x", 0.0, 1.0, lo_open=True) == 0.25
    assert check_real(np.int64(3), "x", 3.0) == 3.0  # closed ends by default
    assert check_real(1.0, "x", 0.0, 1.0) == 1.0


@pytest.mark.parametrize(
    "value,kwargs,message",
    [
        (True, {}, r"^x: must be a finite number; got True of type bool"),
        (np.bool_(True), {}, r"^x: must be a finite number; got"),
        ("1", {}, r"^x: must be a finite number; got '1' of type str"),
        (None, {}, r"of type NoneType"),
        (math.nan, {}, r"^x: must be a finite number; got nan"),
        (math.inf, {"lo": 0.0}, r"^x: must be a finite number >= 0; got inf"),
        (10**400, {}, r"^x: must be a finite number; got 1000"),
        (0.0, {"lo": 0.0, "lo_open": True}, r"^x: must be a finite number > 0; got 0.0"),
        (1.0, {"hi": 1.0, "hi_open": True}, r"^x: must be a finite number < 1; got 1.0"),
        (2.0, {"lo": 0.0, "hi": 1.0, "lo_open": True}, r"^x: must be a finite number in \(0, 1\]; got 2.0"),
        (-0.5, {"lo": 0.0, "hi": 0.5}, r"^x: must be a finite number in \[0, 0.5\]; got -0.5"),
    ],
)
def test_check_real_refuses_with_the_allowed_range(value, kwargs, message):
    with pytest.raises(InvalidParameterError, match=message) as err:
        check_real(value, "x", **kwargs)
    assert err.value.parameter == "x"


def test_check_integer():
    assert check_integer(np.int32(4), "k") == 4
    assert check_integer(0, "k", 0) == 0
    for bad in (True, 1.0, "2", None):
        with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 1; got"):
            check_integer(bad, "k")
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 2; got 1$"):
        check_integer(1, "k", 2)
