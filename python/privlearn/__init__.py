"""privlearn: differentially private learning theory that runs.

The learners, predictors, multi-concept learners, query-release algorithms and attacks of the
private-learning literature, on exact mechanisms with a fast Rust core.

Modules
-------
privlearn.mechanisms
    Private mechanisms (the exponential mechanism, ...).
privlearn.audit
    Empirical privacy audits (an epsilon lower bound from samples on neighbouring inputs) and
    the distribution tests of the test suite.
privlearn.accounting
    Privacy budgets, the :class:`~privlearn.accounting.Accountant` every learner spends from,
    composition, amplification by subsampling and group privacy.
privlearn.random
    The ``rng`` argument every random function takes; :class:`~privlearn.random.Generator`.
privlearn.datasets
    Built-in data (the IWPC warfarin cohort).
privlearn.experiments
    The papers' experiments, run by ``privlearn reproduce``.
privlearn.errors
    The exception hierarchy (:class:`PrivlearnError`, :class:`InvalidParameterError`).
"""

from __future__ import annotations

from . import _core
from .errors import (
    BudgetExceededError,
    EntropyError,
    HaltedError,
    InternalError,
    InvalidParameterError,
    PrivlearnError,
)

__version__: str = _core.__version__
#: The compiled core's build profile ("release", "debug", ...) and whether it holds the test
#: hooks of a development build (read by ``privlearn --version``).
_BUILD_PROFILE: str = str(getattr(_core, "build_profile", "unknown"))
_TEST_HOOKS: bool = hasattr(_core, "_panic_for_tests")

__all__ = [
    "PrivlearnError",
    "InvalidParameterError",
    "HaltedError",
    "EntropyError",
    "InternalError",
    "BudgetExceededError",
    "__version__",
]
