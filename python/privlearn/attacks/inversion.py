r"""Model inversion: inferring a sensitive attribute from a released regression model.

Fredrikson, Lantz, Jha, Lin, Page and Ristenpart, "Privacy in pharmacogenetics: an end-to-end
case study of personalized warfarin dosing" (USENIX Security 2014): an attacker who
knows a linear model ``f``, a target's other attributes ``x_{-s}`` and outcome ``y``, the marginal
prior ``p`` of the sensitive attribute ``s`` and a Gaussian error model ``y - f(x) ~ N(0,
sigma^2)`` guesses the value ``v`` of ``s`` that maximises the posterior

    ``log p(v) - (y - f(x_{-s}, v))^2 / (2 sigma^2)``.

Wu et al. (seed paper 001, Section 5.3) use it on VKORC1 in the IWPC warfarin data to show that
private models with a better privacy-utility trade-off are easier to invert. The attack here
follows the form of Yeom et al.'s and Hannun et al.'s reimplementations of Fredrikson's: the
sensitive attribute is a one-hot block of columns whose reference level is the all-zeros row.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np

from .._validate import check_positive
from ..errors import InvalidParameterError

__all__ = ["model_inversion"]


def _predictor(model: Any, d: int) -> Any:
    if hasattr(model, "predict"):
        return lambda X: np.asarray(model.predict(X), dtype=np.float64).ravel()
    w = np.asarray(model, dtype=np.float64)
    if w.ndim != 1 or w.size != d or not np.all(np.isfinite(w)):
        raise InvalidParameterError(
            f"model: must have a predict method or be a finite coefficient vector of length {d}; "
            f"got shape {w.shape}",
            "model",
        )
    return lambda X: X @ w


@overload
def model_inversion(
    model: Any,
    X: Any,
    y: Any,
    *,
    columns: Sequence[int],
    prior: Any = ...,
    sigma: Optional[float] = ...,
    return_guesses: Literal[False] = ...,
) -> float: ...


@overload
def model_inversion(
    model: Any,
    X: Any,
    y: Any,
    *,
    columns: Sequence[int],
    prior: Any = ...,
    sigma: Optional[float] = ...,
    return_guesses: Literal[True],
) -> Tuple[float, np.ndarray]: ...


def model_inversion(
    model: Any,
    X: Any,
    y: Any,
    *,
    columns: Sequence[int],
    prior: Any = None,
    sigma: Optional[float] = None,
    return_guesses: bool = False,
) -> Union[float, Tuple[float, np.ndarray]]:
    r"""Fredrikson et al.'s model-inversion attack on a one-hot encoded sensitive attribute.

    For each target row, every value of the attribute is tried (the reference level, encoded as
    zeros in ``columns``, then the level of each column in order) and scored by
    ``log prior[v] - (y - prediction)^2 / (2 sigma^2)``; the guess is the best value (ties: the
    first in that order). Returns the fraction of targets whose guess is their true value.
    Guessing the prior's mode always is the baseline (36.4% for VKORC1 on the IWPC data).

    Parameters
    ----------
    model : estimator or array_like
        A fitted model with ``predict`` (e.g. a privlearn learner), or a coefficient vector
        ``w`` (predictions ``X @ w``).
    X : array_like of shape (n_targets, n_features)
        The targets' encoded features, the sensitive block included (its true value is used only
        to score the guesses; every value is tried).
    y : array_like of shape (n_targets,)
        The targets' outcomes, which the attacker knows.
    columns : sequence of int
        The columns of the sensitive attribute's one-hot block; on the built-in warfarin data,
        ``(12, 13)`` for VKORC1 (CT, TT; reference CC).
    prior : array_like of float, optional
        Prior probabilities of the ``len(columns) + 1`` values (reference level first). Default:
        the frequencies in ``X`` with one pseudo-count per value (so no value has probability 0).
    sigma : float, optional
        Standard deviation of the error model. Default: the model's root mean squared error on
        ``(X, y)`` (Yeom et al. use the training RMSE; pass it explicitly to do so).
    return_guesses : bool, default False
        Also return the guessed values (0 = reference level, ``j`` = ``columns[j - 1]``).

    Returns
    -------
    float or (float, numpy.ndarray)
        The attack's accuracy (and the guesses).

    Raises
    ------
    InvalidParameterError
        On bad shapes, non-finite data, columns out of range or not one-hot (values 0 or 1, at
        most one 1 per row), a prior that is not a probability vector, or ``sigma <= 0``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
    >>> w = np.array([0.0, 1.0, 2.0])            # the attribute drives the outcome
    >>> model_inversion(w, X, X @ w, columns=(1, 2), sigma=0.1)
    1.0
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise InvalidParameterError(f"X: must be a non-empty 2-D array; got shape {X.shape}", "X")
    if y.shape != (X.shape[0],):
        raise InvalidParameterError(f"y: must have shape ({X.shape[0]},); got {y.shape}", "y")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise InvalidParameterError("X: X and y must be finite (no NaN or inf)", "X")
    n, d = X.shape
    cols = [int(c) for c in columns]
    if not cols or len(set(cols)) != len(cols) or any(not 0 <= c < d for c in cols):
        raise InvalidParameterError(
            f"columns: must be distinct column indices in [0, {d}); got {columns!r}", "columns"
        )
    block = X[:, cols]
    if not (np.all((block == 0) | (block == 1)) and np.all(block.sum(axis=1) <= 1)):
        raise InvalidParameterError(
            "columns: must be a one-hot block (0/1, at most one 1 per row)", "columns"
        )
    truth = np.where(block.any(axis=1), block.argmax(axis=1) + 1, 0)
    k = len(cols) + 1
    if prior is None:
        p = (np.bincount(truth, minlength=k) + 1.0) / (n + k)
    else:
        p = np.asarray(prior, dtype=np.float64)
        if p.shape != (k,) or not np.all(p > 0) or abs(p.sum() - 1.0) > 1e-9:
            raise InvalidParameterError(
                f"prior: must be {k} positive probabilities summing to 1 (reference level first); got {prior!r}",
                "prior",
            )
    predict = _predictor(model, d)
    if sigma is None:
        sigma = float(np.sqrt(np.mean((predict(X) - y) ** 2)))
        if not sigma > 0:
            sigma = np.finfo(float).tiny  # a perfect fit: the likelihood decides alone
    else:
        check_positive(sigma, "sigma")  # validated only: sigma keeps the caller's type
    scores = np.empty((n, k))
    Xv = X.copy()
    for v in range(k):
        Xv[:, cols] = 0.0
        if v > 0:
            Xv[:, cols[v - 1]] = 1.0
        scores[:, v] = np.log(p[v]) - (y - predict(Xv)) ** 2 / (2.0 * sigma * sigma)
    guesses = np.argmax(scores, axis=1)  # first maximiser on ties
    accuracy = float(np.mean(guesses == truth))
    return (accuracy, guesses) if return_guesses else accuracy
