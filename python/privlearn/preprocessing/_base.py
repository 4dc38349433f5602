"""The plumbing the private transformers of :mod:`privlearn.preprocessing` share.

:class:`PrivateTransformerMixin` gives each transformer what the learners' mixin gives the
learners: :func:`sklearn.base.clone` shares the accountant and the generator
(:class:`~privlearn._certified.SharedCloneMixin`), the scikit-learn tags say that a fit is
non-deterministic unless ``rng`` is an integer seed or a :class:`numpy.random.SeedSequence`
(every fit then draws the same noise: reproducible, not private) and that NaN is refused, and
``_validate`` checks ``X`` with :func:`privlearn._certified.validate_X`, naming ``X`` in the
error (whose text quotes no value of the data).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._certified import SharedCloneMixin, validate_X
from ..errors import InvalidParameterError
from ..random import reproducible

__all__ = ["PrivateTransformerMixin"]


class PrivateTransformerMixin(SharedCloneMixin):
    """Shared clone semantics, scikit-learn tags and ``X`` validation (module docstring)."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.non_deterministic = not reproducible(getattr(self, "rng", None))
        tags.input_tags.allow_nan = False
        return tags

    def _validate(self, X: Any, *, reset: bool) -> np.ndarray:
        try:
            return validate_X(self, X, reset=reset)
        except InvalidParameterError as err:  # the message names its parameter first
            raise InvalidParameterError(f"X: {err}", "X") from None
