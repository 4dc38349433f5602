r"""One protocol for "a privlearn release with a certified privacy guarantee".

A composite learner that runs a *base* learner on (parts of) the data and states a guarantee
built from the base's (amplification by subsampling, parallel composition over disjoint
parts, basic composition) can only be as trustworthy as the base's own statement. An
``epsilon`` attribute is not such a statement: scikit-learn's ``SVR(epsilon=0.1)`` has one (a
loss parameter), and :class:`~privlearn.learners.ApproximateGibbsERM` has one but certifies
nothing without a proven total-variation bound. So every composite asks its base through one
method, :meth:`CertifiedRelease.privacy_guarantee`, by one function,
:func:`certified_guarantee`, and refuses a base that does not answer.

**The protocol.** ``est.privacy_guarantee(n_samples)`` returns the
:class:`~privlearn.accounting.Budget` :math:`(\varepsilon, \delta)` (with its delta) of **one**
``fit`` of ``est`` on a dataset of ``n_samples`` records, for replace-one neighbours (one record
replaced, ``n`` public), as the estimator is configured, computed from its parameters only
(never from data), and equal to what that ``fit`` charges its accountant. When the
configuration certifies nothing (a non-private mode, a missing certificate) it raises
:class:`~privlearn.errors.InvalidParameterError` saying why. It holds only with ``rng=None``
(fresh entropy), like every privlearn guarantee.

Which privlearn objects implement it: the private learners of :mod:`privlearn.learners`
(including the wrappers, so that they nest), the multi-learners of :mod:`privlearn.multi`
(whose guarantee may also depend on the number of concepts ``k``: an optional second argument),
and the query-release algorithms of :mod:`privlearn.query_release` (the guarantee of one
session). The private *predictors* of :mod:`privlearn.prediction` do not: their ``fit``
releases nothing and each answer is charged by ``predict``, so the guarantee of "a fit" would
not cover what they release.

**Estimator plumbing the families share.** A guarantee holds for what the accountant is
charged, so every copy of an estimator must charge the same accountant:
:class:`SharedCloneMixin` makes :func:`sklearn.base.clone` share the accountant and the
generator (``_SHARED_PARAMS``) instead of copying them. :func:`check_feature_names` keeps
scikit-learn's ``feature_names_in_`` for the learners that convert their input themselves;
like :func:`public_n_samples` it reads only the public schema of ``X`` (its column names),
never a value.
"""

from __future__ import annotations

from typing import Any, Dict, Protocol, Tuple, runtime_checkable

import numpy as np

from ._validate import check_integer
from .accounting import Budget
from .accounting._composition import compose_parallel
from .errors import InvalidParameterError

__all__ = [
    "CertifiedRelease",
    "certified_guarantee",
    "require_certified",
    "compose_parallel",
    "public_n_samples",
    "SharedCloneMixin",
    "check_feature_names",
]

#: Parameters a clone shares with its original instead of copying: an accountant must see every
#: spend of every copy, and a Generator must not be duplicated (two copies of one stream draw
#: the same noise).
_SHARED_PARAMS: Tuple[str, ...] = ("accountant", "rng")


@runtime_checkable
class CertifiedRelease(Protocol):
    """A privlearn release whose privacy guarantee is certified from its parameters.

    See the module documentation for the contract of :meth:`privacy_guarantee`.
    """

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one ``fit`` on ``n_samples`` records (replace-one neighbours,
        ``n_samples`` public), computed from the parameters only and charged by that fit.

        Raises
        ------
        InvalidParameterError
            When the configuration certifies no guarantee.
        """
        ...  # pragma: no cover - protocol


def require_certified(base: Any, param_name: str = "base") -> None:
    """Refuse ``base`` unless it implements :class:`CertifiedRelease` and has no accountant of
    its own (the composite charges the composed guarantee once, to its own accountant).

    Reads no data; the message names ``param_name``.

    Raises
    ------
    InvalidParameterError
    """
    if isinstance(base, type) or not isinstance(base, CertifiedRelease):
        what = base.__name__ if isinstance(base, type) else type(base).__name__
        raise InvalidParameterError(
            f"{param_name}: must be a privlearn release with a certified privacy guarantee (an "
            f"instance with a privacy_guarantee(n_samples) method, e.g. ExponentialMechanismERM); "
            f"got {what}, which certifies none (an 'epsilon' parameter is not a privacy "
            "guarantee)",
            param_name,
        )
    if getattr(base, "accountant", None) is not None:
        raise InvalidParameterError(
            f"{param_name}: must not have an accountant of its own (the composite charges the "
            "composed guarantee once, to its own accountant)",
            param_name,
        )


def certified_guarantee(base: Any, n_samples: int, param_name: str = "base") -> Budget:
    """The certified guarantee of one fit of ``base`` on ``n_samples`` records.

    The one entry point through which every composite reads a base learner's guarantee: it
    refuses (:func:`require_certified`) anything that does not implement
    :class:`CertifiedRelease`, calls ``base.privacy_guarantee(n_samples)``, and checks that the
    answer is a :class:`~privlearn.accounting.Budget`. Reads no data.

    Parameters
    ----------
    base : object
        The base learner (unfitted).
    n_samples : int
        The number of records it will be fitted on (public), >= 1.
    param_name : str, default "base"
        The composite's parameter holding ``base`` (named in every error).

    Returns
    -------
    Budget
        Its :math:`(\\varepsilon, \\delta)` guarantee, replace-one neighbours.

    Raises
    ------
    InvalidParameterError
        If ``base`` certifies nothing (no protocol, an accountant of its own, or a
        configuration without a guarantee: the base's reason is quoted).
    """
    require_certified(base, param_name)
    n = check_integer(n_samples, "n_samples", 1)
    try:
        budget = base.privacy_guarantee(n)
    except InvalidParameterError as err:
        raise InvalidParameterError(
            f"{param_name}: {type(base).__name__} certifies no privacy guarantee as configured "
            f"({err})",
            param_name,
        ) from None
    if not isinstance(budget, Budget):
        raise InvalidParameterError(
            f"{param_name}: {type(base).__name__}.privacy_guarantee must return a "
            f"privlearn.accounting.Budget, got {type(budget).__name__}",
            param_name,
        )
    return budget


def public_n_samples(X: Any, name: str = "X", minimum: int = 1) -> int:
    """The number of records of ``X`` (public: replace-one neighbours share it), read from its
    shape (arrays, data frames) or its length (sequences) only, so that a guarantee can be
    computed and a base refused before any value of the data is read.

    Raises
    ------
    InvalidParameterError
        If ``X`` has neither a shape with at least one axis nor a length, or fewer than
        ``minimum`` records.
    """
    shape = getattr(X, "shape", None)
    if shape is None and not hasattr(X, "__len__") and hasattr(X, "__array__"):
        shape = np.asarray(X).shape  # an array-like known only through __array__
    n: Any
    if shape is not None:
        n = shape[0] if len(shape) >= 1 else None
    else:
        try:
            n = len(X)
        except TypeError:
            n = None
    if n is None:
        raise InvalidParameterError(
            f"{name}: must be an array-like of records (with a length or a shape); got "
            f"{type(X).__name__}",
            name,
        )
    n = int(n)
    if n < minimum:
        raise InvalidParameterError(
            f"{name}: must hold at least {'one' if minimum == 1 else minimum} record"
            f"{'' if minimum == 1 else 's'}; got {n}",
            name,
        )
    return n


def check_feature_names(estimator: Any, X: Any, *, reset: bool) -> None:
    """scikit-learn's column-name bookkeeping for an estimator that converts ``X`` itself
    (the ERM, multi-concept and prediction learners): on ``fit`` (``reset=True``) set
    ``feature_names_in_`` from a pandas or polars DataFrame's column names (or delete it for
    an input without names); on ``predict`` (``reset=False``) warn, as scikit-learn does, when
    exactly one of the fitted and the new input has names, and refuse columns that are not
    the fitted ones in the fitted order (:class:`InvalidParameterError` naming ``X``).

    Only the public schema is read (the column names, never the values), so the messages hold
    no data-dependent value. The linear learners' ``validate_X`` (``privlearn.learners._base``)
    does the same through :func:`sklearn.utils.validation.validate_data`."""
    from sklearn.utils.validation import _check_feature_names

    try:
        _check_feature_names(estimator, X, reset=reset)
    except (TypeError, ValueError) as err:
        raise InvalidParameterError(f"X: {err}", "X") from None


class SharedCloneMixin:
    """:func:`sklearn.base.clone` shares the parameters named in ``_shared_params`` (the
    accountant and the generator, ``_SHARED_PARAMS``) with the original instead of copying
    them, and clones every other parameter as scikit-learn does (an estimator parameter is
    cloned unfitted, anything else deep-copied).

    The accountant must see the spends of every copy (pipelines, cross-validation and
    :class:`~privlearn.learners.PrivateTuning` fit clones), and a shared
    ``numpy.random.Generator`` is not duplicated (two copies of one stream would draw the same
    noise). An accountant also holds a lock, so copying it would fail outright. It is the
    cloning half of the learners' ``PrivateEstimatorMixin`` (``privlearn.learners._base``);
    the multi-concept learners and the predictors, whose guarantee is not a fit's
    ``Budget(epsilon)``, use it alone. A class may extend ``_shared_params`` with other
    parameters that are shared, never copied."""

    _shared_params: Tuple[str, ...] = _SHARED_PARAMS

    def __sklearn_clone__(self) -> Any:
        from sklearn.base import clone

        params = self.get_params(deep=False)  # type: ignore[attr-defined]
        shared = self._shared_params
        new_params: Dict[str, Any] = {}
        for name, value in params.items():
            if name in shared:
                new_params[name] = value
            else:
                new_params[name] = clone(value, safe=False)
        return type(self)(**new_params)


def validate_X(estimator: Any, X: Any, *, reset: bool) -> np.ndarray:
    """``X`` as a 2-D float64 array via :func:`sklearn.utils.validation.validate_data`
    (finite, non-empty, the fitted number of features when ``reset`` is false), C-contiguous.

    A pandas or polars DataFrame is accepted: ``fit`` (``reset=True``) records its column
    names as ``feature_names_in_``, and a later call refuses other names or another order (and
    warns when only one of the two inputs has names), as scikit-learn does; the messages quote
    column names (public schema), never a value."""
    from sklearn.utils.validation import validate_data

    try:
        # C order: a DataFrame converts to a column-major array, and BLAS may round a product
        # differently by layout; one layout makes a fit on a DataFrame that on its array.
        return validate_data(estimator, X, reset=reset, dtype=np.float64, order="C")
    except (TypeError, ValueError) as err:  # TypeError: e.g. column names of mixed types
        raise InvalidParameterError(_public_message(str(err)), "X") from None


#: Phrases of numpy's conversion errors that quote a value of the data (e.g. "could not convert
#: string to float: 'secret'"): their messages are replaced by a fixed one.
_QUOTES_DATA = ("could not convert", "invalid literal", "setting an array element")


def _public_message(message: str) -> str:
    """A validation error message without the data's values. numpy's conversion errors get a
    fixed message; scikit-learn's keep their text but lose what quotes the array (the line
    ``array=[...]`` of "Expected 2D array", the array printed after "Complex data not
    supported"). Its other messages (NaN, shapes, feature counts and names) quote no value."""
    if any(phrase in message.lower() for phrase in _QUOTES_DATA):
        return "must hold numbers only (a value could not be converted to float)"
    lines = message.splitlines()
    if lines and lines[0].startswith("Complex data not supported"):
        return lines[0]
    return "\n".join(line for line in lines if not line.lstrip().startswith("array="))
