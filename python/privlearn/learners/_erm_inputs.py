"""Input checks of the exponential-mechanism ERM learners: the sensitivity modes and the
training data arrays.

:func:`_features` and :func:`_targets` turn ``X`` and ``y`` into finite contiguous float64
arrays of the expected shapes (labels 0/1 for classification losses), refusing anything else
with an :class:`~privlearn.errors.InvalidParameterError` naming ``X`` or ``y``;
``SENSITIVITIES`` are the two sensitivity modes of
:class:`~privlearn.learners.erm.ExponentialMechanismERM` (checked with
:func:`privlearn._validate.check_choice`) and :func:`_sensitivity_factor` their size in units
of ``B / n``. Used by the estimator, the candidate sets, the bounds, the wrappers and the
Gibbs sampler.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..errors import InvalidParameterError
from ..hypotheses import _real_array

__all__: list = []

#: The sensitivity modes: the paper's ``2B/n`` and the tight ``B/n`` (losses clipped to [0, B]).
SENSITIVITIES = ("paper", "tight")


def _sensitivity_factor(mode: str) -> int:
    """The sensitivity in units of ``B / n``: 2 (paper) or 1 (tight)."""
    return 2 if mode == "paper" else 1


def _features(X: Any, name: str = "X", n_features: Optional[int] = None) -> np.ndarray:
    """``X`` as a C-contiguous float64 ``(n, d)`` array with ``n >= 1`` finite rows."""
    a = _real_array(X, name)
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise InvalidParameterError(f"{name}: must be 2-D (n, d), got shape {a.shape}", name)
    if a.shape[0] == 0:
        raise InvalidParameterError(
            f"{name}: must hold at least one record (got an empty dataset)", name
        )
    if a.shape[1] == 0:
        raise InvalidParameterError(f"{name}: must have at least one feature", name)
    if n_features is not None and a.shape[1] != n_features:
        raise InvalidParameterError(
            f"{name}: must have {n_features} features (as in fit), got {a.shape[1]}", name
        )
    return np.ascontiguousarray(a)


def _targets(y: Any, n: int, classification: bool) -> np.ndarray:
    a = _real_array(y, "y")
    if a.ndim != 1 or a.shape[0] != n:
        raise InvalidParameterError(f"y: must have shape ({n},), got shape {a.shape}", "y")
    if classification and not np.all((a == 0) | (a == 1)):
        raise InvalidParameterError("y: classification labels must be 0 or 1 (or booleans)", "y")
    return np.ascontiguousarray(a)
