"""The argument checks shared by the package (privlearn._validate)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from privlearn._validate import (
    check_choice,
    check_delta,
    check_epsilon,
    check_integer,
    check_positive,
    check_probability,
    check_real,
)
from privlearn.accounting._accountant import check_accountant
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
        (
            2.0,
            {"lo": 0.0, "hi": 1.0, "lo_open": True},
            r"^x: must be a finite number in \(0, 1\]; got 2.0",
        ),
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


# -- the named intervals ------------------------------------------------------------------------

# Values refused by every real-number check, whatever the interval: bools (numpy's too), None,
# strings, NaN, both infinities and integers too large for a float.
NOT_FINITE_NUMBERS = [
    True,
    False,
    np.bool_(True),
    None,
    "0.5",
    math.nan,
    math.inf,
    -math.inf,
    10**400,
]


def refused(check, value, name, *args, **kwargs):
    """``check`` refuses ``value`` with an InvalidParameterError whose message starts with
    ``name`` and whose ``parameter`` is ``name``."""
    with pytest.raises(InvalidParameterError, match=rf"^{name}: ") as err:
        check(value, name, *args, **kwargs)
    assert err.value.parameter == name
    return str(err.value)


@pytest.mark.parametrize("bad", NOT_FINITE_NUMBERS)
@pytest.mark.parametrize(
    "check,kwargs",
    [
        ("check_epsilon", {}),
        ("check_epsilon", {"zero_ok": True}),
        ("check_delta", {}),
        ("check_delta", {"zero_ok": False}),
        ("check_probability", {}),
        ("check_probability", {"zero_ok": True, "one_ok": True}),
        ("check_positive", {}),
    ],
)
def test_named_intervals_refuse_non_numbers(check, kwargs, bad):
    import privlearn._validate as V

    refused(getattr(V, check), bad, "param", **kwargs)


def test_check_epsilon():
    assert check_epsilon(1) == 1.0 and isinstance(check_epsilon(1), float)
    assert check_epsilon(5e-324) == 5e-324  # the smallest positive float
    assert check_epsilon(np.float32(0.5)) == 0.5
    assert check_epsilon(Fraction(1, 4)) == 0.25
    assert check_epsilon(1e300) == 1e300
    assert check_epsilon(0.0, zero_ok=True) == 0.0
    assert math.copysign(1.0, check_epsilon(-0.0, zero_ok=True)) == 1.0  # -0.0 normalised
    for bad in (0, 0.0, -0.0, -1e-300, -1):
        assert "> 0" in refused(check_epsilon, bad, "epsilon")
    assert ">= 0" in refused(check_epsilon, -1e-300, "epsilon", zero_ok=True)
    # A non-number is refused with the allowed range spelled out (the message a budget gives).
    assert "must be a finite number >= 0; got 'x'" in refused(
        check_epsilon, "x", "epsilon", zero_ok=True
    )
    # the default name, and None's own message
    with pytest.raises(
        InvalidParameterError, match=r"^epsilon: the privacy parameter must be given"
    ) as err:
        check_epsilon(None)
    assert err.value.parameter == "epsilon"
    assert "must be given (a finite number >= 0)" in refused(
        check_epsilon, None, "eps0", zero_ok=True
    )


def test_check_delta():
    assert check_delta(0) == 0.0 and check_delta(0.5) == 0.5
    assert check_delta(math.nextafter(1.0, 0.0)) == math.nextafter(1.0, 0.0)
    assert check_delta(Fraction(1, 10**6)) == 1e-6
    assert check_delta(1e-300, zero_ok=False) == 1e-300
    assert "[0, 1)" in refused(check_delta, 1.0, "delta")
    assert "[0, 1)" in refused(check_delta, -1e-300, "delta")
    assert "(0, 1)" in refused(check_delta, 0.0, "delta", zero_ok=False)
    refused(check_delta, 1.0, "delta", zero_ok=False)
    with pytest.raises(InvalidParameterError, match=r"^delta: ") as err:
        check_delta(2)  # the default name
    assert err.value.parameter == "delta"


def test_check_probability():
    tiny, below_one = 5e-324, math.nextafter(1.0, 0.0)
    assert check_probability(tiny, "p") == tiny and check_probability(below_one, "p") == below_one
    assert (
        check_probability(Fraction(1, 2), "p") == 0.5
        and check_probability(np.float64(0.25), "p") == 0.25
    )
    assert "(0, 1)" in refused(check_probability, 0.0, "p")
    assert "(0, 1)" in refused(check_probability, 1.0, "p")
    # each end is included on request only
    assert check_probability(0, "p", zero_ok=True) == 0.0
    refused(check_probability, 1.0, "p", zero_ok=True)
    assert check_probability(1, "p", one_ok=True) == 1.0
    assert "(0, 1]" in refused(check_probability, 0.0, "p", one_ok=True)
    assert "[0, 1]" in refused(
        check_probability, math.nextafter(1.0, 2.0), "p", zero_ok=True, one_ok=True
    )
    refused(check_probability, -1e-300, "p", zero_ok=True, one_ok=True)
    # a smaller upper end (a flip probability, a noise rate): one_ok includes it
    assert check_probability(0.5, "p", one_ok=True, hi=0.5) == 0.5
    assert "(0, 0.5]" in refused(
        check_probability, math.nextafter(0.5, 1.0), "p", one_ok=True, hi=0.5
    )
    assert "(0, 0.5)" in refused(check_probability, 0.5, "p", hi=0.5)


def test_check_positive():
    assert check_positive(5e-324, "scale") == 5e-324 and check_positive(10**300, "scale") == 1e300
    assert (
        check_positive(Fraction(3, 2), "scale") == 1.5
        and check_positive(np.int8(2), "scale") == 2.0
    )
    for bad in (0, 0.0, -0.0, -5e-324, -3):
        assert "a finite number > 0" in refused(check_positive, bad, "scale")


def test_check_choice():
    options = ("ge", "le", "both")
    assert check_choice("le", "orientation", options) == "le"
    assert check_choice(np.str_("ge"), "orientation", options) == "ge"  # a str subclass
    for bad in ("GE", "", " ge", None, 1, b"ge", ("ge",), True):
        message = refused(check_choice, bad, "orientation", options)
        assert "must be one of 'ge', 'le', 'both'" in message and repr(bad) in message
    refused(check_choice, "ge", "orientation", ())


def test_check_real_exact_refuses_rationals_a_float_cannot_hold():
    assert check_real(Fraction(1, 4), "x", exact=True) == 0.25
    assert check_real(Fraction(2**53), "x", exact=True) == 2.0**53
    assert check_real(2**53 + 1, "x") == 2.0**53  # rounded without exact=True
    assert check_real(0.1, "x", exact=True) == 0.1  # a float is exactly itself
    assert check_real(np.float32(0.1), "x", exact=True) == float(np.float32(0.1))
    for bad in (Fraction(1, 3), Fraction(1, 10), 2**53 + 1, np.int64(2**53 + 1)):
        with pytest.raises(
            InvalidParameterError, match=r"^x: must be exactly representable as a float"
        ) as err:
            check_real(bad, "x", exact=True)
        assert err.value.parameter == "x"
    assert check_real(Fraction(1, 3), "x") == 1 / 3  # rounded without exact=True
    # the interval is checked first, and the exact check applies to the named intervals too
    with pytest.raises(InvalidParameterError, match=r"^x: must be a finite number > 0"):
        check_real(Fraction(-1, 3), "x", 0.0, lo_open=True, exact=True)
    assert check_epsilon(Fraction(1, 2), exact=True) == 0.5
    with pytest.raises(InvalidParameterError, match=r"^epsilon: must be exactly representable"):
        check_epsilon(Fraction(1, 3), exact=True)
    with pytest.raises(InvalidParameterError, match=r"^delta: must be exactly representable"):
        check_delta(Fraction(1, 3), exact=True)


def test_check_accountant():
    from privlearn.accounting import Accountant, Budget

    acct = Accountant(Budget(1.0))
    assert check_accountant(acct) is acct and check_accountant(None) is None
    for bad in (Budget(1.0), 1.0, "accountant", object()):
        message = refused(check_accountant, bad, "accountant")
        assert (
            f"must be None or a privlearn.accounting.Accountant, got {type(bad).__name__}"
            in message
        )
    with pytest.raises(InvalidParameterError, match=r"^accountant: ") as err:
        check_accountant(Budget(1.0))  # the default name
    assert err.value.parameter == "accountant"
