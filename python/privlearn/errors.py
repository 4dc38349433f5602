"""The exceptions privlearn raises.

Every error is a :class:`PrivlearnError`. Bad arguments, of a wrong value or of a wrong type (a
string for ``epsilon``, ``None`` where a number is required), raise
:class:`InvalidParameterError`, which is also a :class:`ValueError` and a :class:`TypeError` (as
scikit-learn's ``InvalidParameterError`` is), and name the offending parameter in the message
(which starts with ``"<name>:"``) and in :attr:`InvalidParameterError.parameter`. Errors are
raised before any noise is drawn.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "PrivlearnError",
    "InvalidParameterError",
    "HaltedError",
    "EntropyError",
    "InternalError",
    "BudgetExceededError",
]


class PrivlearnError(Exception):
    """Base class of every exception raised by privlearn."""


class InvalidParameterError(PrivlearnError, ValueError, TypeError):
    """A parameter is outside its allowed range, or has the wrong shape or type.

    It derives from both :class:`ValueError` and :class:`TypeError`, so that code written
    against either convention (``except ValueError`` for a bad value, ``except TypeError`` for
    a bad type) keeps working, as with scikit-learn's parameter validation.

    Parameters
    ----------
    message : str
        What is allowed and what was given; starts with the parameter's name.
    parameter : str, optional
        The public name of the offending parameter.
    """

    def __init__(self, message: str, parameter: Optional[str] = None) -> None:
        super().__init__(message)
        self.parameter = parameter

    def __reduce__(self):  # keep ``parameter`` through pickling (joblib workers)
        return (type(self), (self.args[0] if self.args else "", self.parameter))


class HaltedError(PrivlearnError):
    """A stateful mechanism was used after it stopped answering.

    For example a :class:`~privlearn.mechanisms.SparseVector` that has given its
    ``max_positives`` positive answers: answering more would exceed its privacy budget.
    """


class EntropyError(PrivlearnError):
    """The operating system's random source could not be read."""


class InternalError(PrivlearnError):
    """A bug in privlearn: its Rust core hit an internal assertion (a panic).

    The core never lets a panic cross into Python as PyO3's ``PanicException`` (which derives
    from ``BaseException``); it is caught at the boundary and re-raised as this error. Please
    report it with the message.
    """


class BudgetExceededError(PrivlearnError):
    """A spend would take a :class:`privlearn.accounting.Accountant` past its total budget.

    Raised before anything is charged or drawn: the accountant is left exactly as it was.

    Parameters
    ----------
    message : str
        What was requested, for what, and what remains.
    requested : Budget, optional
        The budget that did not fit.
    remaining : Budget, optional
        What the accountant had left at that moment (rounded down).
    label : str, optional
        The label of the refused spend.
    """

    def __init__(
        self,
        message: str,
        requested: Any = None,
        remaining: Any = None,
        label: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.requested = requested
        self.remaining = remaining
        self.label = label

    def __reduce__(self):  # keep the attributes through pickling (joblib workers)
        return (
            type(self),
            (self.args[0] if self.args else "", self.requested, self.remaining, self.label),
        )
