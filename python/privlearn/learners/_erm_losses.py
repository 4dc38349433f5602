"""Losses of the exponential-mechanism ERM learners and their exact fixed-point scores.

A loss is resolved once from the estimator's ``loss`` and ``loss_bound`` parameters into a
:class:`_Loss` (its name, declared bound ``B`` and kind). Every record's loss is clipped to
``[0, B]`` and quantised to an integer multiple of ``B / 2^k`` (:func:`_quantize`, the Rust
kernel's own ``Quantizer``), so that every candidate's score is an exact integer; ``k`` is
:func:`_frac_bits` (0 for plain 0-1 mistake counts). :func:`_float_losses` recomputes the
clipped losses in floating point for reporting only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from .. import _core
from .._validate import check_positive
from ..errors import InvalidParameterError

__all__: list = []

#: The built-in losses the Rust kernels score ("core" names, without ``clipped_``).
_CORE_LOSSES = ("zero_one", "hinge", "logistic", "squared")


@dataclass(frozen=True)
class _Loss:
    """A resolved loss: its name, declared bound and whether it is a classification loss."""

    name: str
    bound: float
    classification: bool
    fn: Optional[Callable[[Any, np.ndarray, np.ndarray], Any]] = None

    @property
    def core(self) -> str:
        return self.name[len("clipped_") :] if self.name.startswith("clipped_") else self.name


def _resolve_loss(loss: Any, loss_bound: Any) -> _Loss:
    """The loss named by ``loss`` with its declared bound (see :class:`~privlearn.learners.erm.ExponentialMechanismERM`)."""
    bound = None if loss_bound is None else check_positive(loss_bound, "loss_bound")
    if callable(loss):
        if bound is None:
            raise InvalidParameterError(
                "loss_bound: a user loss must declare its bound B (its values are clipped to "
                "[0, B] and the sensitivity is computed from B)",
                "loss_bound",
            )
        return _Loss("custom", bound, classification=False, fn=loss)
    if not isinstance(loss, str):
        raise InvalidParameterError(
            f"loss: must be a loss name or a callable, got {loss!r}", "loss"
        )
    if loss == "zero_one":
        return _Loss("zero_one", 1.0 if bound is None else bound, True)
    if loss in ("hinge", "logistic", "squared"):
        if bound is None:
            raise InvalidParameterError(
                f"loss_bound: the {loss} loss is unbounded; declare loss_bound = B (values are "
                f"clipped to [0, B]; see linear_loss_bound for the bound on bounded data), or "
                f"use loss='clipped_{loss}'",
                "loss_bound",
            )
        return _Loss(loss, bound, loss != "squared")
    if loss in ("clipped_hinge", "clipped_logistic", "clipped_squared"):
        return _Loss(loss, 1.0 if bound is None else bound, loss != "clipped_squared")
    raise InvalidParameterError(
        "loss: must be 'zero_one', 'hinge', 'logistic', 'squared', 'clipped_hinge', "
        f"'clipped_logistic', 'clipped_squared' or a callable loss(h, X, y), got {loss!r}",
        "loss",
    )


def _frac_bits(n: int, exact_counts: bool) -> int:
    """Fixed-point bits ``k`` of the quantised losses (0 for plain 0-1 mistake counts)."""
    if exact_counts:
        return 0
    return max(1, min(32, 52 - int(n).bit_length()))


def _unit(bound: float, k: int) -> int:
    """The quantised value of a loss of 1 (one 0-1 mistake)."""
    return int(_quantize(np.ones(1), bound, k)[0])


def _quantize(losses: np.ndarray, bound: float, k: int) -> np.ndarray:
    """Per-record integer losses ``round(clip(l, 0, B) / B * 2^k)`` (NaN counts as ``B``), computed
    by the Rust kernel's own ``Quantizer`` (``_core.erm_quantize``), so the scores of a user loss
    and of the built-in losses are quantised by one piece of code."""
    l = np.asarray(losses, dtype=np.float64)
    return _core.erm_quantize(np.ascontiguousarray(l.ravel()), float(bound), int(k)).reshape(
        l.shape
    )


def _float_losses(loss: _Loss, p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Clipped losses of margins/predictions ``p`` in floating point (reporting only)."""
    name = loss.core
    s = np.where(y > 0.5, 1.0, -1.0)
    if name == "hinge":
        v = np.maximum(0.0, 1.0 - s * p)
    elif name == "logistic":
        v = np.logaddexp(0.0, -s * p)
    elif name == "squared":
        v = (p - y) ** 2
    else:  # zero_one
        v = ((p >= 0) != (y > 0.5)).astype(np.float64)
    return np.clip(np.nan_to_num(v, nan=loss.bound), 0.0, loss.bound)
