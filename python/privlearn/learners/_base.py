"""Shared machinery of the private linear learners: parameter checks, declared data bounds
(clipping and normalisation into the unit ball), the scikit-learn plumbing and the accountant.

Every private linear learner works on a *normalised* problem: each row ``x`` is clipped to the
declared L2 bound ``data_norm`` (``x <- x min(1, data_norm / ||x||)``), each regression label to
``[-label_bound, label_bound]``, and both are divided by their bound, so that ``||x|| <= 1`` and
``|y| <= 1`` as the papers assume. With ``fit_intercept=True`` a constant column equal to
``data_norm`` is appended before normalising (the augmented rows are bounded by
``sqrt(2) data_norm``). The bounds are parameters, never statistics of the data (DESIGN
principle 2): clipping is a per-row map, so replacing one row of the input replaces one row of
the normalised problem and every sensitivity of the papers applies unchanged.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple, TypeVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from .._certified import (
    SharedCloneMixin,  # the clone half, shared by every family
    validate_X,  # shared with privlearn.preprocessing
)
from .._validate import check_boolean as boolean  # shared with privlearn.preprocessing
from .._validate import check_choice, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..mechanisms import _charged
from ..random import reproducible
from ._solvers import Loss, SolverError

__all__: list = []

T = TypeVar("T")


# --------------------------------------------------------------------------------------------
# Parameter checks specific to the linear learners (messages start with the parameter's name;
# the generic ones are privlearn._validate's). Positive reals are checked with
# ``check_real(value, name, 0.0, lo_open=True, exact=True)``: finite, > 0, and a rational a
# float cannot hold is refused rather than rounded (as epsilon, with check_epsilon(exact=True)).
# --------------------------------------------------------------------------------------------


#: What each declared bound clips (for the error message of a missing bound).
_CLIPS = {
    "data_norm": "each row to this L2 norm",
    "label_bound": "each label to [-label_bound, label_bound]",
}


def bound_arg(value: object, name: str) -> float:
    """A declared data bound: required (``None`` is a clear error), finite and > 0.

    There is no default bound: a bound changes the result (the data are clipped to it), so a
    silent default would clip without the user knowing. The error for a missing bound is
    raised from the parameters alone, before the data are read, and names no data-dependent
    value."""
    if value is None:
        what = _CLIPS.get(name, "the data")
        raise InvalidParameterError(
            f"{name}: a declared bound is required and has no default: it clips {what}, so it "
            f"changes the result, and it must not be read from the data. Choose it from domain "
            f"knowledge (the largest value the data can take, not the largest observed), or, "
            f"for a learner that accepts it, pass {name}='private' to estimate it privately "
            f"from part of the budget; got None",
            name,
        )
    return check_real(value, name, 0.0, lo_open=True, exact=True)


def check_alpha(value: object) -> None:
    """Refuse an ``alpha`` that is neither ``"auto"`` nor a finite number > 0 (before the data
    are read; :func:`alpha_arg` computes the value)."""
    if isinstance(value, str):
        if value != "auto":
            raise InvalidParameterError(
                f"alpha: must be a finite number > 0 or 'auto'; got {value!r}", "alpha"
            )
    else:
        check_real(value, "alpha", 0.0, lo_open=True, exact=True)


def alpha_arg(value: object, n: int, d: int, epsilon: float) -> float:
    """The regularisation ``alpha`` (the papers' lambda): a number > 0, or ``"auto"`` for the
    data-independent choice ``sqrt(d / (n epsilon))`` of Wu et al. (Section 5, from Theorem 21);
    it depends only on the public ``n``, ``d`` and ``epsilon``."""
    check_alpha(value)
    if isinstance(value, str):
        return math.sqrt(d / (n * epsilon))
    return check_real(value, "alpha", 0.0, lo_open=True, exact=True)


def radius_arg(value: object) -> Optional[float]:
    """A hypothesis radius > 0, or ``None`` (no ball)."""
    return None if value is None else check_real(value, "radius", 0.0, lo_open=True, exact=True)


def charged(
    accountant: Any,
    epsilon: float,
    label: str,
    call: Callable[[], T],
    *,
    delta: float = 0.0,
    event: Optional[Callable[[], Any]] = None,
) -> T:
    """Run ``call`` charging ``(epsilon, delta)`` to ``accountant`` (if any) only when it returns; a spend
    that does not fit raises before ``call`` runs (:func:`privlearn.mechanisms._charged`).
    ``event`` (optional) builds the release's native
    :class:`~privlearn.accounting._event.PrivacyEvent`, whose ``budget`` is ``(epsilon,
    delta)``: it is what is charged (see :func:`privlearn.mechanisms._charged`).

    Invalid input (an :class:`~privlearn.errors.InvalidParameterError` raised before the data
    are used) spends nothing. A :class:`~._solvers.SolverError` is raised after the data were
    read, so whether it happens may depend on them: it is charged like a release (what a fit
    charges never depends on the data), and its message holds no data-dependent value."""
    check_accountant(accountant)

    def guarded() -> Tuple[Optional[T], Optional[SolverError]]:
        try:
            return call(), None
        except SolverError as err:
            return None, err

    out, failure = _charged(accountant, epsilon, delta, label, guarded, event=event)
    if failure is not None:
        raise failure
    return out  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Input validation (scikit-learn's, re-raised as InvalidParameterError naming X or y)
# --------------------------------------------------------------------------------------------


def validate_Xy(
    estimator: Any, X: Any, y: Any, *, classifier: bool
) -> Tuple[np.ndarray, np.ndarray]:
    """Validate training data: ``X`` as for :func:`validate_X` (resetting the fitted feature
    count), ``y`` a finite 1-D array of the same length (numbers for a regressor)."""
    from sklearn.utils.validation import _check_y, check_consistent_length

    if y is None:
        raise InvalidParameterError(
            f"y: {type(estimator).__name__} requires y to be passed, but the target y is None",
            "y",
        )
    X = validate_X(estimator, X, reset=True)
    try:
        y = _check_y(y, y_numeric=not classifier, estimator=estimator)
        check_consistent_length(X, y)
    except ValueError as err:
        raise InvalidParameterError(str(err), "y") from None
    if not classifier:
        y = np.asarray(y, dtype=np.float64)
    return X, y


# --------------------------------------------------------------------------------------------
# Declared bounds: clipping and normalisation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Normalised:
    """A training set clipped to its declared bounds and scaled into the unit ball.

    ``X`` has rows of L2 norm at most 1 (with the intercept column last, if any); ``y`` is in
    ``[-1, 1]`` for a regression (the label divided by ``label_bound``) or in ``{-1, +1}`` for
    a classification. ``x_scale`` divides the (augmented) rows, ``y_scale`` the labels.
    """

    X: np.ndarray
    y: np.ndarray
    x_scale: float
    y_scale: float
    data_norm: float
    fit_intercept: bool

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def coefficients(self, w: np.ndarray) -> Tuple[np.ndarray, float]:
        """``(coef, intercept)`` in the original units of a model ``w`` of the normalised
        problem: ``<w, x_aug / x_scale> y_scale = <coef, x> + intercept``."""
        w = np.asarray(w, dtype=np.float64)
        factor = self.y_scale / self.x_scale
        if self.fit_intercept:
            return w[:-1] * factor, float(w[-1] * self.data_norm * factor)
        return w * factor, 0.0


def clip_rows(X: np.ndarray, data_norm: float) -> np.ndarray:
    """Rows of ``X`` scaled down to L2 norm at most ``data_norm`` (rows inside are unchanged)."""
    sq = np.einsum("ij,ij->i", X, X)
    over = sq > data_norm * data_norm
    if not np.any(over):
        return X
    out = np.array(X, dtype=np.float64, copy=True)
    out[over] *= (data_norm / np.sqrt(sq[over]))[:, None]
    return out  # a few ulps of excess are removed by `normalise`


def normalise(
    X: np.ndarray,
    y: np.ndarray,
    *,
    data_norm: float,
    label_bound: Optional[float],
    fit_intercept: bool,
) -> Normalised:
    """Clip ``X`` to ``data_norm`` and ``y`` to ``label_bound`` (regression; ``None`` for
    labels already in ``{-1, +1}``), append the intercept column, and scale into the unit ball."""
    Xc = clip_rows(X, data_norm)
    if fit_intercept:
        Xc = np.hstack([Xc, np.full((Xc.shape[0], 1), data_norm)])
        x_scale = data_norm * math.sqrt(2.0)
    else:
        x_scale = data_norm
    Xn = Xc / x_scale
    # Division can round a norm-1 row a hair above 1: pull such rows back.
    sq = np.einsum("ij,ij->i", Xn, Xn)
    if np.any(sq > 1.0):
        Xn = Xn / np.where(sq > 1.0, np.sqrt(sq) * (1 + 4 * np.finfo(float).eps), 1.0)[:, None]
    if label_bound is None:
        yn = np.asarray(y, dtype=np.float64)
        y_scale = 1.0
    else:
        yn = np.clip(y, -label_bound, label_bound) / label_bound
        y_scale = label_bound
    return Normalised(Xn, yn, x_scale, y_scale, data_norm, fit_intercept)


# --------------------------------------------------------------------------------------------
# scikit-learn plumbing
# --------------------------------------------------------------------------------------------


class PrivateEstimatorMixin(SharedCloneMixin):
    """Cloning shares the accountant and the generator (:class:`SharedCloneMixin`,
    ``_SHARED_PARAMS``); the tags say that outputs are random unless seeded, that scores are
    poor (noise is the point) and that classification is binary.

    :meth:`privacy_guarantee` is the pure ``Budget(epsilon)`` of the seed-001 learners
    (output perturbation, objective perturbation, functional mechanism); a composite
    overrides it."""

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)``: the pure guarantee of one fit on ``n_samples`` records
        (replace-one neighbours, ``n`` public; see the class documentation for the mechanism),
        from the parameters only. This is what ``fit`` charges its accountant
        (:class:`privlearn._certified.CertifiedRelease`).

        Raises
        ------
        InvalidParameterError
            If ``epsilon`` is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        return Budget(check_epsilon(self.epsilon, exact=True))  # type: ignore[attr-defined]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        # An integer seed or a numpy SeedSequence makes every fit draw the same noise
        # (reproducible, not private); a numpy Generator advances between fits.
        tags.non_deterministic = not reproducible(getattr(self, "rng", None))
        if tags.regressor_tags is not None:
            tags.regressor_tags.poor_score = True
        if tags.classifier_tags is not None:
            tags.classifier_tags.poor_score = True
            tags.classifier_tags.multi_class = False
        return tags


def check_is_fitted(estimator: Any) -> None:
    from sklearn.utils.validation import check_is_fitted as _check

    _check(estimator, "coef_")


# --------------------------------------------------------------------------------------------
# Linear models: data preparation, targets, prediction
# --------------------------------------------------------------------------------------------

LOSSES = ("logistic", "smoothed_hinge")


def declared_classes(estimator: Any) -> np.ndarray:
    """The estimator's declared ``classes``, sorted (``classes_[1]`` is the positive class).

    Required: which labels occur in ``y`` is private (on one neighbour ``y`` may hold both
    labels, on the other one), so the label set is a parameter, never read from the data.
    Checked before the data are read; the messages quote the parameter only."""
    declared = getattr(estimator, "classes", None)
    if declared is None:
        raise InvalidParameterError(
            f"classes: {type(estimator).__name__} needs its two labels declared (for example "
            "classes=[0, 1]); they are never read from y, since which labels occur in the "
            "training data is private",
            "classes",
        )
    try:
        arr = np.asarray(declared)
        classes = np.unique(arr)
    except (TypeError, ValueError):
        arr = classes = np.asarray([])
    if arr.ndim != 1 or arr.size != 2 or classes.size != 2:
        raise InvalidParameterError(
            f"classes: must be two distinct labels; got {declared!r}", "classes"
        )
    return classes


def binary_targets(classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Labels in ``{-1, +1}`` (``classes[1]`` is +1) of a ``y`` whose every label is one of the
    declared ``classes``.

    A ``y`` with another label is outside the declared domain (not a valid input): it is
    refused, before anything is charged, and the message names the kind of target only,
    never a label. Inside the domain nothing is refused, whichever labels occur."""
    if not np.all(np.isin(y, classes)):
        from sklearn.utils.multiclass import type_of_target

        try:
            kind = type_of_target(y, input_name="y")
        except ValueError:
            kind = "unknown"
        declared = [c.item() if hasattr(c, "item") else c for c in classes]
        if kind.startswith("continuous"):
            raise InvalidParameterError(
                f"y: Unknown label type: continuous target; every label must be one of the "
                f"declared classes {declared!r}",
                "y",
            )
        raise InvalidParameterError(
            f"y: Only binary classification is supported; every label must be one of the "
            f"declared classes {declared!r}",
            "y",
        )
    return np.where(y == classes[1], 1.0, -1.0)


def smoothing_arg(value: Any) -> float:
    """The smoothed hinge's ``smoothing``: a finite number > 0."""
    return check_real(value, "smoothing", 0.0, lo_open=True, exact=True)


class LinearClassifierMixin(ClassifierMixin):
    """``decision_function``, ``predict`` and (logistic loss) ``predict_proba`` from ``coef_``."""

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed scores ``X @ coef_[0] + intercept_[0]``; positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]  # type: ignore[attr-defined]

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]  # type: ignore[attr-defined]

    def _is_logistic(self) -> bool:
        return getattr(self, "loss", None) == "logistic"

    @available_if(_is_logistic)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the logistic model (``loss="logistic"`` only)."""
        from scipy.special import expit

        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def _set_classifier(self, data: Normalised, w: np.ndarray, classes: np.ndarray) -> None:
        coef, intercept = data.coefficients(w)
        self.coef_ = coef[None, :]
        self.intercept_ = np.array([intercept])
        self.classes_ = classes


def classification_loss(estimator: Any) -> Loss:
    """The estimator's ``loss`` (and ``smoothing``) as a :class:`~._solvers.Loss`."""
    name = check_choice(estimator.loss, "loss", LOSSES)
    return Loss(name, smoothing_arg(estimator.smoothing) if name == "smoothed_hinge" else 0.0)


def classification_data(estimator: Any, X: Any, y: Any) -> Tuple[np.ndarray, Normalised]:
    """``(classes_, data)``: the estimator's declared ``classes``, ``data_norm`` and
    ``fit_intercept`` checked (before the data are read), the data validated, the labels mapped
    to ``{-1, +1}``, the rows clipped and normalised."""
    classes = declared_classes(estimator)
    data_norm = bound_arg(estimator.data_norm, "data_norm")
    fit_intercept = boolean(estimator.fit_intercept, "fit_intercept")
    Xv, yv = validate_Xy(estimator, X, y, classifier=True)
    ys = binary_targets(classes, yv)
    return classes, normalise(
        Xv, ys, data_norm=data_norm, label_bound=None, fit_intercept=fit_intercept
    )


def regression_data(estimator: Any, X: Any, y: Any) -> Normalised:
    """The estimator's ``data_norm``, ``label_bound`` and ``fit_intercept`` checked, the data
    validated, clipped and normalised."""
    data_norm = bound_arg(estimator.data_norm, "data_norm")
    label_bound = bound_arg(estimator.label_bound, "label_bound")
    fit_intercept = boolean(estimator.fit_intercept, "fit_intercept")
    Xv, yv = validate_Xy(estimator, X, y, classifier=False)
    return normalise(
        Xv, yv, data_norm=data_norm, label_bound=label_bound, fit_intercept=fit_intercept
    )


class LinearRegressorMixin(RegressorMixin):
    """``predict`` of a fitted linear regressor (``coef_``, ``intercept_``)."""

    def predict(self, X: Any) -> np.ndarray:
        """Predictions ``X @ coef_ + intercept_`` (no clipping)."""
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        return X @ self.coef_ + self.intercept_  # type: ignore[attr-defined]


def is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)
