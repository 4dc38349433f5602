r"""Private learning by the exponential mechanism over (penalized) empirical risk.

Wang, Lei and Fienberg, "Learning with differential privacy: stability, learnability and the
sufficiency and necessity of ERM principle", JMLR 17(183), 2016 (seed 000). Their Algorithm 1
samples a hypothesis with density proportional to

.. math:: \exp\bigl(-\tfrac{\varepsilon n}{4} F(Z, h)\bigr), \qquad
          F(Z, h) = \frac1n \sum_{i=1}^n \ell(h, z_i) + g_n(h),

the exponential mechanism (McSherry and Talwar, FOCS 2007) with utility :math:`-F` and
sensitivity :math:`2B/n` for losses bounded by :math:`B` (:math:`B = 1` in the paper), with
:math:`g_n` a **data-independent** regularizer. A problem is privately learnable exactly when
such a private asymptotic ERM exists (their Theorem 7); Theorem 19 gives the rate.

This module provides :class:`ExponentialMechanismERM`, a scikit-learn estimator implementing
Algorithm 1 over

* an explicit finite candidate set: :class:`LinearCandidates` (linear predictors),
  :class:`ThresholdCandidates`, :class:`FiniteCandidates` (any objects, with a user loss);
* a data-independent grid over a box :math:`[-R, R]^d`: :class:`Grid` (Example 21, route (b));
* a hypothesis class of :mod:`privlearn.hypotheses` restricted to public reference points:
  :class:`ReferenceDichotomies` (its dichotomies' representatives; Example 24's net);
* thresholds on an interval with the Lebesgue base measure: :class:`ContinuousThresholds`,
  sampled exactly (the class of Proposition 12);

and the paper's bounds and theory settings as functions (:func:`excess_risk_bound`,
:func:`example20_epsilon`, :func:`example21_epsilon`, :func:`linear_loss_bound`,
:func:`reference_threshold_grid`). The wrappers (subsampling, boosting, two-stage best subset)
are in :mod:`privlearn.learners.erm_wrappers` and the approximate Gibbs sampler for convex
objectives in :mod:`privlearn.learners.gibbs`; :mod:`privlearn.learners` re-exports them all.

Privacy
-------
Every learner here is :math:`\varepsilon`-differentially private (pure DP) with respect to
**replace-one** neighbours (the sample size ``n`` is public), except
:class:`~privlearn.learners.gibbs.ApproximateGibbsERM`, which gives no certified guarantee.
The guarantee holds only with ``rng=None`` (OS entropy): a seed voids it.

**Exactness.** Each record's loss is clipped to ``[0, loss_bound]`` and quantised to an
integer multiple of ``loss_bound / 2^k`` (a deterministic function of that record and the
candidate), so every candidate's score is an exact integer and moves by at most ``2^k`` (the
"tight" sensitivity ``B/n``) when one record is replaced, whatever floating point does; the
exponential mechanism then samples exactly on its integer path
(:func:`privlearn.mechanisms.exponential`). For the 0-1 loss without a regularizer the scores
are plain mistake counts (``k = 0``); otherwise ``k = min(32, 52 - bit_length(n))``, which moves
the empirical risk by at most ``2^-(k+1) B``.

**Sensitivity.** ``sensitivity="paper"`` (default) uses the paper's :math:`\Delta = 2B/n`
(density :math:`\exp(-\varepsilon n F / (4B))`), valid for losses in :math:`[-B, B]`;
``"tight"`` uses :math:`B/n`, valid because losses are clipped to :math:`[0, B]`
(density :math:`\exp(-\varepsilon n F / (2B))`). Both are exactly :math:`\varepsilon`-DP.

**Data independence.** Candidate sets, grids, reference points and regularizers must be fixed
before the data are seen. The API takes them at construction and never passes data to them;
a regularizer callable must take one argument (a hypothesis) and is rejected if it declares
more. A closure that captures the private data cannot be detected by any API: its values
would then depend on the data and the guarantee would fail (the test suite demonstrates such
a failure by exact enumeration).
"""

from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_integer as _int_at_least
from .._validate import check_real
from ..accounting import Budget
from ..errors import InvalidParameterError
from ..hypotheses import (
    Dichotomies,
    Halfspace,
    HypothesisClass,
    Threshold,
    Thresholds,
    _real_array,
)
from ..mechanisms import _charged, exponential

__all__ = [
    "ExponentialMechanismERM",
    "LinearCandidates",
    "LinearModel",
    "Grid",
    "ThresholdCandidates",
    "ContinuousThresholds",
    "ReferenceDichotomies",
    "FiniteCandidates",
    "excess_risk_bound",
    "example20_epsilon",
    "example21_epsilon",
    "linear_loss_bound",
    "reference_threshold_grid",
]

#: Largest candidate set materialised at once (the grid check refuses larger ones).
MAX_CANDIDATES = 1 << 26

_SENSITIVITIES = ("paper", "tight")
_CORE_LOSSES = ("zero_one", "hinge", "logistic", "squared")
_CLASSIFICATION = ("zero_one", "hinge", "logistic")


# --------------------------------------------------------------------------------------------
# Small validators
# --------------------------------------------------------------------------------------------


def _positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    return check_real(value, name, 0.0, lo_open=not allow_zero)


def _epsilon(value: Any) -> float:
    return _positive(value, "epsilon")


def _sensitivity_mode(value: Any) -> str:
    if value not in _SENSITIVITIES:
        raise InvalidParameterError(
            f"sensitivity: must be 'paper' (2B/n) or 'tight' (B/n), got {value!r}", "sensitivity"
        )
    return str(value)


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
        raise InvalidParameterError(f"{name}: must hold at least one record (got an empty dataset)", name)
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


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Loss:
    """A resolved loss: its name, declared bound and whether it is a classification loss."""

    name: str
    bound: float
    classification: bool
    fn: Optional[Callable[[Any, np.ndarray, np.ndarray], Any]] = None

    @property
    def core(self) -> str:
        return self.name[len("clipped_"):] if self.name.startswith("clipped_") else self.name


def _resolve_loss(loss: Any, loss_bound: Any) -> _Loss:
    """The loss named by ``loss`` with its declared bound (see :class:`ExponentialMechanismERM`)."""
    bound = None if loss_bound is None else _positive(loss_bound, "loss_bound")
    if callable(loss):
        if bound is None:
            raise InvalidParameterError(
                "loss_bound: a user loss must declare its bound B (its values are clipped to "
                "[0, B] and the sensitivity is computed from B)",
                "loss_bound",
            )
        return _Loss("custom", bound, classification=False, fn=loss)
    if not isinstance(loss, str):
        raise InvalidParameterError(f"loss: must be a loss name or a callable, got {loss!r}", "loss")
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
    return _core.erm_quantize(np.ascontiguousarray(l.ravel()), float(bound), int(k)).reshape(l.shape)


# --------------------------------------------------------------------------------------------
# Hypotheses and candidate sets
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinearModel:
    """The real-valued linear predictor ``x -> coef . x + intercept`` (squared loss)."""

    coef: Tuple[float, ...]
    intercept: float


class _Candidates:
    """Base class of the candidate sets (see the module documentation)."""

    #: Losses this set supports ("core" names, or "custom").
    losses: Tuple[str, ...] = ()

    def __len__(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def hypothesis(self, i: int, loss: _Loss) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:  # pragma: no cover
        """Exact integer sums of the quantised losses of every candidate on ``(X, y)``."""
        raise NotImplementedError

    def predict(self, h: Any, X: np.ndarray, loss: _Loss) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def n_features(self) -> Optional[int]:
        return None

    def _check_loss(self, loss: _Loss) -> None:
        name = "custom" if loss.fn is not None else loss.core
        if name not in self.losses:
            raise InvalidParameterError(
                f"loss: {type(self).__name__} supports the losses {', '.join(self.losses)}; "
                f"got {loss.name!r}",
                "loss",
            )

    def _custom_totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:
        assert loss.fn is not None
        out = np.empty(len(self), dtype=np.int64)
        for i in range(len(self)):
            vals = np.asarray(loss.fn(self.hypothesis(i, loss), X, y), dtype=np.float64)
            if vals.shape != (X.shape[0],):
                raise InvalidParameterError(
                    f"loss: a user loss must return one value per record (shape ({X.shape[0]},)), "
                    f"got shape {vals.shape}",
                    "loss",
                )
            out[i] = int(_quantize(vals, loss.bound, k).sum())
        return out


class LinearCandidates(_Candidates):
    """An explicit finite set of linear predictors ``x -> w . x + b``.

    With the 0-1 loss each is the halfspace ``1[w . x + b >= 0]`` (decided exactly, as
    :class:`privlearn.hypotheses.Halfspace`); with the hinge and logistic losses the margin
    ``w . x + b`` scores labels ``2y - 1``; with the squared loss it predicts ``y``. Scored in
    Rust, in parallel over candidates.

    Parameters
    ----------
    coef : array_like, shape (N, d)
        The weights of the ``N`` candidates (finite).
    intercept : array_like, shape (N,), optional
        Their offsets (default 0).
    """

    losses = _CORE_LOSSES + ("custom",)

    def __init__(self, coef: Any, intercept: Any = None) -> None:
        c = _real_array(coef, "coef")
        if c.ndim == 1:
            c = c.reshape(-1, 1)
        if c.ndim != 2 or c.shape[0] == 0 or c.shape[1] == 0:
            raise InvalidParameterError(
                f"coef: must have shape (N, d) with N >= 1 and d >= 1, got shape {c.shape}", "coef"
            )
        if intercept is None:
            b = np.zeros(c.shape[0])
        else:
            b = _real_array(intercept, "intercept")
            if b.shape != (c.shape[0],):
                raise InvalidParameterError(
                    f"intercept: must have shape ({c.shape[0]},), got shape {b.shape}", "intercept"
                )
        self.coef = np.ascontiguousarray(c)
        self.intercept = np.ascontiguousarray(b)

    def __len__(self) -> int:
        return int(self.coef.shape[0])

    def __repr__(self) -> str:
        return f"LinearCandidates({len(self)} candidates in dimension {self.coef.shape[1]})"

    def n_features(self) -> Optional[int]:
        return int(self.coef.shape[1])

    def hypothesis(self, i: int, loss: _Loss) -> Any:
        w = tuple(float(v) for v in self.coef[i])
        b = float(self.intercept[i])
        return Halfspace(w, b) if loss.classification else LinearModel(w, b)

    def totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:
        if loss.fn is not None:
            return self._custom_totals(X, y, loss, k)
        return _core.erm_linear_risks(
            self.coef, self.intercept, X, np.ascontiguousarray(y, dtype=np.float64),
            loss.core, loss.bound, k,
        )

    def predict(self, h: Any, X: np.ndarray, loss: _Loss) -> np.ndarray:
        if isinstance(h, Halfspace):
            return _core.halfspace_predict([*h.w, h.b], X).astype(np.int64)
        return X @ np.asarray(h.coef) + h.intercept


class Grid(LinearCandidates):
    r"""A data-independent grid of linear predictors over a box (Example 21, route (b)).

    The weights range over ``linspace(-radius, radius, num)`` in each of ``dim`` coordinates
    (spacing ``2 radius / (num - 1)``; ERRATA A6: the points never overshoot the box), and the
    intercept, if ``intercept_radius`` is given, over ``linspace(-intercept_radius,
    intercept_radius, num)``. With ``ball=True`` the points with ``||w||_2 > radius`` are
    dropped (a data-independent intersection with the ball :math:`\|w\| \le R`, ERRATA A6), so
    that a loss normalised on the ball keeps its bound.

    With spacing :math:`\alpha` and an objective that is :math:`L`-Lipschitz in
    :math:`\ell_\infty`, the best grid point is within :math:`L\alpha/2` of the best point of
    the box (``d^{1/p}`` times that in :math:`\ell_p`): see :func:`excess_risk_bound`.

    Parameters
    ----------
    radius : float
        Half-width ``R`` of the box of weights.
    dim : int
        Number of weights ``d``.
    num : int, default 21
        Grid points per coordinate (>= 2).
    intercept_radius : float, optional
        Also grid the intercept over ``[-intercept_radius, intercept_radius]``.
    ball : bool, default False
        Keep only weights with ``||w||_2 <= radius``.
    """

    def __init__(
        self,
        radius: float,
        dim: int,
        num: int = 21,
        *,
        intercept_radius: Optional[float] = None,
        ball: bool = False,
    ) -> None:
        self.radius = _positive(radius, "radius")
        self.dim = _int_at_least(dim, "dim", 1)
        self.num = _int_at_least(num, "num", 2)
        self.intercept_radius = None if intercept_radius is None else _positive(intercept_radius, "intercept_radius")
        self.ball = bool(ball)
        axes = self.dim + (1 if self.intercept_radius is not None else 0)
        size = self.num**axes
        if size > MAX_CANDIDATES:
            raise InvalidParameterError(
                f"num: the grid would have {self.num}^{axes} = {size} points, more than "
                f"{MAX_CANDIDATES}; use fewer points per axis",
                "num",
            )
        w_axis = np.linspace(-self.radius, self.radius, self.num)
        mesh = np.meshgrid(*([w_axis] * self.dim), indexing="ij")
        coef = np.stack([m.ravel() for m in mesh], axis=1)
        if self.ball:
            # Data-independent; a tiny relative slack keeps the points on the sphere.
            coef = coef[np.sum(coef * coef, axis=1) <= self.radius**2 * (1 + 1e-12)]
        if self.intercept_radius is not None:
            b_axis = np.linspace(-self.intercept_radius, self.intercept_radius, self.num)
            intercept = np.repeat(b_axis[None, :], coef.shape[0], axis=0).ravel()
            coef = np.repeat(coef, self.num, axis=0)
        else:
            intercept = np.zeros(coef.shape[0])
        super().__init__(coef, intercept)

    @property
    def spacing(self) -> float:
        """The grid spacing ``2 radius / (num - 1)``."""
        return 2.0 * self.radius / (self.num - 1)

    def __repr__(self) -> str:
        extra = f", intercept_radius={self.intercept_radius}" if self.intercept_radius is not None else ""
        return f"Grid(radius={self.radius}, dim={self.dim}, num={self.num}{extra}, ball={self.ball}: {len(self)} points)"


class ThresholdCandidates(_Candidates):
    """An explicit finite set of thresholds on the real line (0-1 loss).

    Parameters
    ----------
    thresholds : array_like of float, shape (N,)
        The thresholds ``t`` (``±inf`` allowed, NaN not).
    orientation : {"ge", "le", "both"}, default "ge"
        ``1[x >= t]``, ``1[x <= t]``, or both for every ``t`` (``2N`` candidates: first all
        ``"ge"``, then all ``"le"``), as :class:`privlearn.hypotheses.Threshold`.
    """

    losses = ("zero_one",)

    def __init__(self, thresholds: Any, orientation: str = "ge") -> None:
        t = np.asarray(thresholds, dtype=np.float64).ravel()
        if t.size == 0 or np.any(np.isnan(t)):
            raise InvalidParameterError(
                "thresholds: must hold at least one threshold, none NaN", "thresholds"
            )
        if orientation not in ("ge", "le", "both"):
            raise InvalidParameterError(
                f"orientation: must be 'ge', 'le' or 'both', got {orientation!r}", "orientation"
            )
        self.orientation = orientation
        if orientation == "both":
            self.t = np.concatenate([t, t])
            self.ge = np.concatenate([np.ones(t.size, bool), np.zeros(t.size, bool)])
        else:
            self.t = t
            self.ge = np.full(t.size, orientation == "ge")

    def __len__(self) -> int:
        return int(self.t.size)

    def __repr__(self) -> str:
        return f"ThresholdCandidates({len(self)} thresholds, orientation={self.orientation!r})"

    def n_features(self) -> Optional[int]:
        return 1

    def hypothesis(self, i: int, loss: _Loss) -> Any:
        return Threshold(float(self.t[i]), "ge" if self.ge[i] else "le")

    def totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:
        m = _core.erm_threshold_mistakes(self.t, self.ge, np.ascontiguousarray(X[:, 0]), y.astype(bool))
        return m * np.int64(_unit(loss.bound, k))

    def predict(self, h: Any, X: np.ndarray, loss: _Loss) -> np.ndarray:
        return Thresholds(h.orientation).predict(h, X).astype(np.int64)


def reference_threshold_grid(
    c: float, alpha: float, low: float = 0.0, high: float = 1.0, orientation: str = "ge"
) -> ThresholdCandidates:
    r"""The public-reference net of thresholds of Example 24 (the notes' derived instance).

    For a public reference distribution :math:`D^*` uniform on ``[low, high]`` and the class of
    distributions :math:`D` with :math:`P_D(A) \le c\,P_{D^*}(A)` (densities at most
    ``c / (high - low)``), two thresholds ``alpha (high - low) / c`` apart have population
    risks within ``alpha`` under every such :math:`D`; the grid of ``N = ceil(c / alpha) + 1``
    evenly spaced thresholds is therefore an ``alpha``-cover in population risk, built from
    public information only. Running the finite exponential mechanism over it (Example 20)
    privately learns thresholds for that class (private *D*-learnability, Section 4.2), whereas
    no private learner exists over all distributions (Proposition 12).

    Parameters
    ----------
    c : float
        The density-ratio bound (>= 1 for a non-empty class).
    alpha : float
        The cover's resolution in population risk, in (0, 1].

    Returns
    -------
    ThresholdCandidates
    """
    c = _positive(c, "c")
    alpha = _positive(alpha, "alpha")
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameterError(f"low, high: must be finite with low < high, got [{low}, {high}]", "low")
    count = math.ceil(c / alpha) + 1
    if count > MAX_CANDIDATES:
        raise InvalidParameterError(f"alpha: the grid would have {count} points; too fine", "alpha")
    return ThresholdCandidates(np.linspace(low, high, count), orientation)


class ReferenceDichotomies(_Candidates):
    r"""A hypothesis class restricted to public reference points: its dichotomies'
    representatives.

    ``hypothesis_class.dichotomies(reference_points)`` gives one representative hypothesis per
    distinct labeling of the (public, unlabeled) reference points; the representatives depend
    on the set of reference points only (:mod:`privlearn.hypotheses`), so the candidate set is
    data-independent. Each representative is then scored on the *private* sample. With
    reference points drawn from a public distribution :math:`D^*`, this is the net of Example
    24 (and the "probabilistic representation" of Example 23).

    Scoring: :meth:`privlearn.hypotheses.Dichotomies.mistakes_on` (exact, in Rust for the
    real-parameter classes), except halfspaces, which go through this module's fused linear
    kernel (exact signs as well). Representatives that cannot be certified in double precision
    (see :class:`privlearn.hypotheses.Halfspaces`) are left out, a data-independent choice.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    reference_points : array_like
        Public points, in the class's input shape.
    max_count : int, optional
        Refuse more labelings than this (default :data:`MAX_CANDIDATES`).
    """

    losses = ("zero_one",)

    def __init__(self, hypothesis_class: Any, reference_points: Any, *, max_count: Optional[int] = None) -> None:
        if not isinstance(hypothesis_class, HypothesisClass):
            raise InvalidParameterError(
                f"hypothesis_class: must be a privlearn.hypotheses class, got {hypothesis_class!r}",
                "hypothesis_class",
            )
        d = hypothesis_class.dichotomies(reference_points, max_count=max_count or MAX_CANDIDATES)
        self._init_from(d)

    @classmethod
    def from_dichotomies(cls, dichotomies: Dichotomies) -> "ReferenceDichotomies":
        """Candidates from already enumerated dichotomies (of public points)."""
        self = cls.__new__(cls)
        self._init_from(dichotomies)
        return self

    def _init_from(self, d: Dichotomies) -> None:
        self.hypothesis_class = d.hypothesis_class
        params = np.asarray(d.params, dtype=np.float64)
        keep = np.all(~np.isnan(params), axis=1) if params.size else np.ones(len(d), bool)
        self.params = np.ascontiguousarray(params[keep])
        self._dichotomies = Dichotomies(d.hypothesis_class, d.packed[keep], d.params[keep], d.n_points)
        self._hyps: Optional[List[Any]] = None
        if len(self) == 0:
            raise InvalidParameterError("reference_points: the class has no usable labeling", "reference_points")

    def __len__(self) -> int:
        return int(self.params.shape[0])

    def __repr__(self) -> str:
        return f"ReferenceDichotomies({len(self)} representatives of {self.hypothesis_class!r})"

    def n_features(self) -> Optional[int]:
        dim = getattr(self.hypothesis_class, "dim", None)
        return int(dim) if isinstance(dim, int) else None

    def hypothesis(self, i: int, loss: Optional[_Loss] = None) -> Any:
        return self.hypothesis_class._hypothesis(self.params[i])

    def totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:
        Xin = X[:, 0] if getattr(self.hypothesis_class, "dim", None) == 1 else X
        m = self._dichotomies.mistakes_on(Xin, y.astype(bool))  # exact mistake counts
        return m * np.int64(_unit(loss.bound, k))

    def predict(self, h: Any, X: np.ndarray, loss: _Loss) -> np.ndarray:
        cls = self.hypothesis_class
        Xin = X[:, 0] if getattr(cls, "dim", None) == 1 else X
        return cls.predict(h, Xin).astype(np.int64)


class FiniteCandidates(_Candidates):
    """An explicit finite set of arbitrary hypotheses, scored by a user loss.

    Parameters
    ----------
    hypotheses : sequence
        The candidates (any objects), fixed before the data are seen.
    predict : callable, optional
        ``predict(h, X) -> array``, for the estimator's ``predict``.

    Notes
    -----
    Use with ``loss=callable`` (``loss(h, X, y)`` returns one loss per record) and a declared
    ``loss_bound``; each candidate is scored by one call (Python speed).
    """

    losses = ("custom",)

    def __init__(self, hypotheses: Sequence[Any], predict: Optional[Callable[[Any, np.ndarray], Any]] = None) -> None:
        items = list(hypotheses)
        if not items:
            raise InvalidParameterError("hypotheses: must hold at least one candidate", "hypotheses")
        if predict is not None and not callable(predict):
            raise InvalidParameterError("predict: must be callable or None", "predict")
        self.items = items
        self.predict_fn = predict

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"FiniteCandidates({len(self)} hypotheses)"

    def hypothesis(self, i: int, loss: Optional[_Loss] = None) -> Any:
        return self.items[i]

    def totals(self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int) -> np.ndarray:
        return self._custom_totals(X, y, loss, k)

    def predict(self, h: Any, X: np.ndarray, loss: _Loss) -> np.ndarray:
        if self.predict_fn is None:
            raise InvalidParameterError(
                "predict: FiniteCandidates needs predict=callable(h, X) to predict", "predict"
            )
        return np.asarray(self.predict_fn(h, X))


class ContinuousThresholds:
    r"""Thresholds ``t`` in ``[low, high]`` with the Lebesgue base measure (0-1 loss).

    The class of Proposition 12 (thresholds on ``[0, 1]``: learnable, but not privately
    learnable). The exponential mechanism's density :math:`\propto \exp(-\beta\,\hat R(t))` is
    piecewise constant between the data values; the sampler draws a piece with probability
    proportional to its length times its weight, then a point uniformly within it, exactly:
    lengths are counted on a data-independent dyadic grid of about :math:`2^{60}` points (never
    finer than the doubles), so every probability is an exact integer ratio
    (``privlearn_core::erm::threshold``). This is the continuous mechanism up to a relative
    error of about :math:`2^{-60}` in each piece's mass.

    Parameters
    ----------
    low, high : float
        The interval (finite, ``low < high``), fixed in advance.
    orientation : {"ge", "le"}, default "ge"
        ``1[x >= t]`` or ``1[x <= t]``.
    """

    losses = ("zero_one",)

    def __init__(self, low: float = 0.0, high: float = 1.0, orientation: str = "ge") -> None:
        self.low = float(low)
        self.high = float(high)
        if orientation not in ("ge", "le"):
            raise InvalidParameterError(f"orientation: must be 'ge' or 'le', got {orientation!r}", "orientation")
        self.orientation = orientation
        self.grid = _core.erm_threshold_grid(self.low, self.high)  # validates the interval

    def __repr__(self) -> str:
        return f"ContinuousThresholds(low={self.low}, high={self.high}, orientation={self.orientation!r})"

    def pieces(self, X: Any, y: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The pieces of the empirical mistake count over the interval.

        Returns ``(left, right, length, mistakes)``: piece ``k`` holds the thresholds
        ``left[k] <= t <= right[k]`` of the grid (``length[k]`` grid points, ``length * 2^g``
        its Lebesgue length), each with ``mistakes[k]`` mistakes. Not private (it reads the data).
        """
        x = _features(X)
        if x.shape[1] != 1:
            raise InvalidParameterError(f"X: thresholds need one feature, got {x.shape[1]}", "X")
        yv = _targets(y, x.shape[0], True)
        g, start, length, mistakes = _core.erm_threshold_pieces(
            self.low, self.high, self.orientation == "ge", np.ascontiguousarray(x[:, 0]), yv.astype(bool)
        )
        left = np.ldexp(start.astype(np.float64), g)
        right = np.ldexp((start + length.astype(np.int64) - 1).astype(np.float64), g)
        return left, right, length, mistakes


# --------------------------------------------------------------------------------------------
# Bounds and theory settings
# --------------------------------------------------------------------------------------------


def excess_risk_bound(
    n: int,
    epsilon: float,
    n_candidates: Optional[int] = None,
    *,
    kind: str = "per-dataset",
    loss_bound: float = 1.0,
    sensitivity: str = "paper",
    regularizer_sup: float = 0.0,
    log_K: Optional[float] = None,
    rho: float = 0.0,
    lipschitz: Optional[float] = None,
    spacing: Optional[float] = None,
    dim: int = 1,
    p: float = math.inf,
) -> float:
    r"""Bounds on the excess risk of the exponential mechanism over (penalized) ERM.

    ``kind="per-dataset"`` (default; [derived] in the notes, sharper than the paper): for a
    finite candidate set of size :math:`N`, sensitivity :math:`\Delta` (``2B/n`` or ``B/n``)
    and **every** dataset :math:`Z`,

    .. math:: E_h F(Z, h) - \min_h F(Z, h) \le \frac{2\Delta (\ln N + 1)}{\varepsilon}

    (from :math:`P[F(h) - F^* > s] \le N e^{-\varepsilon s / (2\Delta)}`). Plus ``2 *
    regularizer_sup`` for the excess empirical risk without the regularizer, and with
    ``lipschitz``, ``spacing`` (a :class:`Grid`'s) and ``dim`` the discretisation term
    :math:`L d^{1/p} \alpha / 2` relative to the best point of the box (an :math:`\ell_p`
    Lipschitz objective).

    ``kind="lemma37"``: the paper's Lemma 37 (always-AERM rate of Algorithm 1), an expectation
    over :math:`Z \sim D^n` under assumption A2 with constants :math:`K, \rho`:

    .. math:: E_Z[E_h \hat R(h, Z) - \hat R^*(Z)] \le
              \frac{9[(\rho + 2)\ln n + \ln K]}{n \varepsilon} + 2\zeta,

    with :math:`\zeta = \sup|g_n|` (the statement writes :math:`\log(1/K)` and :math:`\zeta`;
    the proof gives :math:`\log K` and :math:`2\zeta`), valid for :math:`\varepsilon < \ln n`
    (and :math:`t < t_0`, ERRATA A8). For finite :math:`H` use :math:`K = N`, :math:`\rho = 0`;
    for Example 21 :math:`\ln K = \ln(\mu(H)/\beta_p) + d \ln L`, :math:`\rho = d`. Scaled by
    ``loss_bound`` (the paper has :math:`B = 1`).

    ``kind="theorem19"``: the consistency rate (excess *population* risk) of Theorem 19, the
    Lemma 37 term plus the stability term of Lemma 8, :math:`2\varepsilon` for
    :math:`\varepsilon \le 1` and :math:`e^\varepsilon - 1` otherwise (times ``loss_bound``).

    Parameters
    ----------
    n : int
        Sample size (>= 1).
    epsilon : float
        Privacy parameter (> 0).
    n_candidates : int, optional
        :math:`N` (finite sets; required for "per-dataset", or as :math:`K` when ``log_K`` is
        not given).
    kind : {"per-dataset", "lemma37", "theorem19"}
    loss_bound : float, default 1.0
    sensitivity : {"paper", "tight"}, default "paper"
        Only for "per-dataset" (the paper's bounds use ``2/n``).
    regularizer_sup : float, default 0.0
        :math:`\sup_h |g_n(h)|`.
    log_K, rho : float, optional
        Assumption A2's constants (natural log of :math:`K`).
    lipschitz, spacing, dim, p : optional
        Discretisation term of a grid (per-dataset kind).

    Returns
    -------
    float

    Examples
    --------
    >>> round(excess_risk_bound(1000, 1.0, 441), 4)      # 4 (ln 441 + 1) / 1000
    0.0284
    """
    n = _int_at_least(n, "n", 1)
    eps = _epsilon(epsilon)
    B = _positive(loss_bound, "loss_bound")
    zeta = _positive(regularizer_sup, "regularizer_sup", allow_zero=True)
    if kind == "per-dataset":
        if n_candidates is None:
            raise InvalidParameterError("n_candidates: required for kind='per-dataset'", "n_candidates")
        N = _int_at_least(n_candidates, "n_candidates", 1)
        delta = _sensitivity_factor(_sensitivity_mode(sensitivity)) * B / n
        bound = 2.0 * delta * (math.log(N) + 1.0) / eps + 2.0 * zeta
        if lipschitz is not None or spacing is not None:
            if lipschitz is None or spacing is None:
                raise InvalidParameterError(
                    "lipschitz: give both lipschitz and spacing for the discretisation term", "lipschitz"
                )
            L = _positive(lipschitz, "lipschitz", allow_zero=True)
            a = _positive(spacing, "spacing", allow_zero=True)
            d = _int_at_least(dim, "dim", 1)
            pp = float(p)
            if not pp >= 1.0:
                raise InvalidParameterError(f"p: must be >= 1 (or inf), got {p!r}", "p")
            root = 1.0 if math.isinf(pp) else d ** (1.0 / pp)
            bound += L * root * a / 2.0
        return bound
    if kind not in ("lemma37", "theorem19"):
        raise InvalidParameterError(
            f"kind: must be 'per-dataset', 'lemma37' or 'theorem19', got {kind!r}", "kind"
        )
    if log_K is None:
        if n_candidates is None:
            raise InvalidParameterError("log_K: give log_K or n_candidates", "log_K")
        lk = math.log(_int_at_least(n_candidates, "n_candidates", 1))
    else:
        lk = float(log_K)
        if not math.isfinite(lk):
            raise InvalidParameterError(f"log_K: must be finite, got {log_K!r}", "log_K")
    r = _positive(rho, "rho", allow_zero=True)
    aerm = B * 9.0 * ((r + 2.0) * math.log(n) + lk) / (n * eps) + 2.0 * zeta
    if kind == "lemma37":
        return aerm
    stability = 2.0 * eps if eps <= 1.0 else math.expm1(eps)
    return aerm + B * stability


def example20_epsilon(n: int, M: float) -> float:
    r"""Example 20's privacy schedule for a finite class of :math:`2^M` hypotheses:
    :math:`\varepsilon(n) = \sqrt{(M + \ln n)/n}`, which makes Algorithm 1 consistent at the
    rate :math:`O(\sqrt{(M + \ln n)/n})` (plugging into Theorem 19)."""
    n = _int_at_least(n, "n", 1)
    M = _positive(M, "M", allow_zero=True)
    return math.sqrt((M + math.log(n)) / n) if n > 1 or M > 0 else 1.0


def example21_epsilon(n: int, dim: int, lipschitz: float, log_volume_ratio: float = 0.0) -> float:
    r"""Example 21's privacy schedule for an :math:`L`-Lipschitz problem on a compact
    :math:`\beta_p`-regular :math:`H \subset \mathbb{R}^d`:
    :math:`\varepsilon(n) = \sqrt{(d(\ln L + \ln n) + \ln(\mu(H)/\beta_p))/n}`
    (``log_volume_ratio`` is :math:`\ln(\mu(H)/\beta_p)`)."""
    n = _int_at_least(n, "n", 1)
    d = _int_at_least(dim, "dim", 1)
    L = _positive(lipschitz, "lipschitz")
    val = (d * (math.log(L) + math.log(n)) + float(log_volume_ratio)) / n
    if not val > 0:
        raise InvalidParameterError(
            "n: the schedule is not positive for these constants (too small n or L)", "n"
        )
    return math.sqrt(val)


def linear_loss_bound(loss: str, coef_radius: float, x_radius: float, y_radius: float = 1.0) -> float:
    r"""The largest value of a loss of a linear predictor on bounded data.

    For :math:`\|w\|_2 \le` ``coef_radius`` (including an intercept folded into :math:`w` and
    :math:`x`), :math:`\|x\|_2 \le` ``x_radius`` and :math:`|y| \le` ``y_radius``: hinge
    :math:`1 + Rr`, logistic :math:`\ln(1 + e^{Rr})`, squared :math:`(Rr + y)^2`. These are
    the normalisations of the notes' E2-E4 (Example 21); pass the result as ``loss_bound``.
    """
    R = _positive(coef_radius, "coef_radius", allow_zero=True)
    r = _positive(x_radius, "x_radius", allow_zero=True)
    yr = _positive(y_radius, "y_radius", allow_zero=True)
    m = R * r
    if loss == "hinge":
        return 1.0 + m
    if loss == "logistic":
        return m + math.log1p(math.exp(-m))
    if loss == "squared":
        return (m + yr) ** 2
    raise InvalidParameterError(f"loss: must be 'hinge', 'logistic' or 'squared', got {loss!r}", "loss")


# --------------------------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------------------------


HypothesesLike = Union[_Candidates, ContinuousThresholds, Dichotomies, np.ndarray, Sequence[Any]]


def _resolve_candidates(hypotheses: Any) -> Union[_Candidates, ContinuousThresholds]:
    if isinstance(hypotheses, (_Candidates, ContinuousThresholds)):
        return hypotheses
    if isinstance(hypotheses, Dichotomies):
        return ReferenceDichotomies.from_dichotomies(hypotheses)
    if isinstance(hypotheses, HypothesisClass):
        raise InvalidParameterError(
            f"hypotheses: a hypothesis class must be restricted to public reference points "
            f"first: ReferenceDichotomies({hypotheses!r}, X_public) (candidates must not "
            "depend on the private data)",
            "hypotheses",
        )
    if isinstance(hypotheses, np.ndarray):
        return LinearCandidates(hypotheses)
    if isinstance(hypotheses, (list, tuple)):
        return FiniteCandidates(hypotheses)
    raise InvalidParameterError(
        "hypotheses: must be LinearCandidates, Grid, ThresholdCandidates, ReferenceDichotomies, "
        f"ContinuousThresholds, FiniteCandidates, Dichotomies or an (N, d) array; got {hypotheses!r}",
        "hypotheses",
    )


def _check_regularizer(regularizer: Any) -> None:
    """Rejects regularizers that can see data: a callable must take exactly one argument."""
    if regularizer is None or isinstance(regularizer, np.ndarray):
        return
    if isinstance(regularizer, numbers.Real) and not isinstance(regularizer, bool):
        _positive(regularizer, "regularizer", allow_zero=True)
        return
    if not callable(regularizer):
        raise InvalidParameterError(
            "regularizer: must be None, a ridge coefficient (float), an array of N values or a "
            f"callable g(h); got {regularizer!r}",
            "regularizer",
        )
    try:
        sig = inspect.signature(regularizer)
    except (TypeError, ValueError):  # builtins without a signature: accepted
        return
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    variadic = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
    data_names = {"X", "x", "y", "Z", "z", "data", "sample"}
    if variadic or len(required) != 1 or len(positional) < 1 or data_names & {p.name for p in params}:
        raise InvalidParameterError(
            "regularizer: must be a function g(h) of the hypothesis alone (Algorithm 1 needs a "
            f"data-independent regularizer); got a callable with parameters {sig}",
            "regularizer",
        )


class ExponentialMechanismERM(BaseEstimator):  # type: ignore[misc]
    r"""Private (penalized) ERM by the exponential mechanism: Algorithm 1 of Wang, Lei and
    Fienberg (JMLR 2016).

    ``fit(X, y)`` draws one hypothesis with probability (or density) proportional to
    :math:`\exp(-\varepsilon F(Z, h) / (2\Delta))`, :math:`F` the empirical risk of the clipped
    loss plus the regularizer, :math:`\Delta` the sensitivity (see the module documentation).

    **Privacy guarantee.** ``epsilon``-differentially private (pure DP) for replace-one
    neighbours with public ``n``: McSherry and Talwar (FOCS 2007) Theorem 6 applied to the
    utility :math:`-F` of sensitivity :math:`2B/n` (the paper's eq. (16)) or :math:`B/n`
    (``"tight"``, losses clipped to :math:`[0, B]`), sampled exactly (no floating-point
    rounding reaches a probability). The released object is the hypothesis (and what is
    computed from it); nothing else about the data is stored. Requires candidates and
    regularizer fixed before the data (see the module documentation) and ``rng=None``.

    **Utility.** For finite candidate sets, for every dataset,
    :math:`E F(Z, h) - \min F \le 2\Delta(\ln N + 1)/\varepsilon`
    (:attr:`excess_risk_bound_`; :func:`excess_risk_bound` gives it, and the paper's
    Theorem 19 / Lemma 37 rates, before fitting).

    Parameters
    ----------
    loss : str or callable
        ``"zero_one"`` (bound 1), ``"hinge"``, ``"logistic"``, ``"squared"`` (unbounded:
        ``loss_bound`` required), ``"clipped_hinge"``, ``"clipped_logistic"``,
        ``"clipped_squared"`` (clipped at ``loss_bound``, default 1), or a callable
        ``loss(h, X, y)`` returning the ``n`` losses of hypothesis ``h`` (``loss_bound``
        required). Classification losses take labels 0/1.
    hypotheses : candidate set
        :class:`LinearCandidates`, :class:`Grid`, :class:`ThresholdCandidates`,
        :class:`ReferenceDichotomies`, :class:`ContinuousThresholds`,
        :class:`FiniteCandidates`; also an ``(N, d)`` array (linear candidates),
        :class:`~privlearn.hypotheses.Dichotomies` of public points, or a list (finite
        candidates). Must not depend on the private data.
    epsilon : float
        Privacy parameter, finite and > 0.
    regularizer : None, float, array or callable, optional
        The data-independent :math:`g_n`: a float ``lam`` is the ridge penalty
        :math:`\lambda \|w\|_2^2` (linear candidates); an array gives :math:`g_n` of each
        candidate; a callable ``g(h)`` is evaluated on each candidate hypothesis. Not
        supported for :class:`ContinuousThresholds`.
    loss_bound : float, optional
        The loss's declared bound :math:`B`; every loss value is clipped to :math:`[0, B]`.
    sensitivity : {"paper", "tight"}, default "paper"
        :math:`2B/n` (Algorithm 1 as published) or :math:`B/n`.
    accountant : Accountant, optional
        Charged ``Budget(epsilon)`` once, before the draw (refused spends draw nothing).
    rng : None, int or Generator, optional
        See :mod:`privlearn.random`.

    Attributes
    ----------
    hypothesis_ : object
        The released hypothesis (a ``Halfspace``, ``LinearModel``, ``Threshold``, a class
        representative or a user object).
    candidate_index_ : int or None
        Its index in the candidate set (``None`` for continuous thresholds).
    coef_, intercept_ : numpy.ndarray, float
        For linear candidates.
    n_candidates_ : int or None
    excess_risk_bound_ : float or None
        The per-dataset bound above (``None`` for continuous thresholds, where no
        data-independent bound exists: Proposition 12).
    privacy_ : Budget
        ``Budget(epsilon, 0)``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.learners import ExponentialMechanismERM, Grid
    >>> g = np.random.default_rng(0)
    >>> X = g.uniform(-1, 1, (500, 2)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> est = ExponentialMechanismERM("zero_one", Grid(1.0, 2, num=11), epsilon=1.0, rng=0)
    >>> est.fit(X, y).score(X, y) > 0.9     # seeded: reproducible, not private
    True
    """

    def __init__(
        self,
        loss: Any = "zero_one",
        hypotheses: Any = None,
        epsilon: float = 1.0,
        *,
        regularizer: Any = None,
        loss_bound: Optional[float] = None,
        sensitivity: str = "paper",
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.loss = loss
        self.hypotheses = hypotheses
        self.epsilon = epsilon
        self.regularizer = regularizer
        self.loss_bound = loss_bound
        self.sensitivity = sensitivity
        self.accountant = accountant
        self.rng = rng

    # -- internals ---------------------------------------------------------------------------

    def _setup(self) -> Tuple[_Loss, Union[_Candidates, ContinuousThresholds], float, str]:
        """Validates the parameters (no data, no randomness)."""
        eps = _epsilon(self.epsilon)
        mode = _sensitivity_mode(self.sensitivity)
        loss = _resolve_loss(self.loss, self.loss_bound)
        if self.hypotheses is None:
            raise InvalidParameterError("hypotheses: a candidate set is required", "hypotheses")
        cands = _resolve_candidates(self.hypotheses)
        if isinstance(cands, ContinuousThresholds):
            if loss.name != "zero_one":
                raise InvalidParameterError(
                    f"loss: ContinuousThresholds supports the 0-1 loss only, got {loss.name!r}", "loss"
                )
            if self.regularizer is not None:
                raise InvalidParameterError(
                    "regularizer: not supported with ContinuousThresholds", "regularizer"
                )
        else:
            cands._check_loss(loss)
        _check_regularizer(self.regularizer)
        return loss, cands, eps, mode

    def _regularizer_values(self, cands: _Candidates, loss: _Loss) -> Optional[np.ndarray]:
        reg = self.regularizer
        if reg is None:
            return None
        N = len(cands)
        if isinstance(reg, np.ndarray):
            vals = np.asarray(reg, dtype=np.float64)
        elif isinstance(reg, numbers.Real):
            if not isinstance(cands, LinearCandidates):
                raise InvalidParameterError(
                    "regularizer: a ridge coefficient needs linear candidates; pass g(h) or an array",
                    "regularizer",
                )
            vals = float(reg) * np.sum(cands.coef * cands.coef, axis=1)
        else:
            vals = np.fromiter((float(reg(cands.hypothesis(i, loss))) for i in range(N)), dtype=np.float64, count=N)
        if vals.shape != (N,) or not np.all(np.isfinite(vals)):
            raise InvalidParameterError(
                f"regularizer: must give one finite value per candidate ({N}), got shape {vals.shape}",
                "regularizer",
            )
        return vals

    def _scores(self, X: np.ndarray, y: np.ndarray) -> Tuple[np.ndarray, int, float, Optional[np.ndarray]]:
        """Integer utilities of every candidate, the sensitivity in their units, the
        quantisation step's risk (``B / 2^k``) and the regularizer values. Reads the data;
        not private by itself."""
        loss, cands, _, mode = self._setup()
        assert isinstance(cands, _Candidates)
        reg = self._regularizer_values(cands, loss)
        n = X.shape[0]
        k = _frac_bits(n, loss.name == "zero_one" and reg is None)
        totals = np.asarray(cands.totals(X, y, loss, k), dtype=np.int64)
        scores = -totals
        if reg is not None:
            units = np.rint(reg * (n * float(1 << k) / loss.bound))
            if not np.all(np.abs(units) < 2.0**61):
                raise InvalidParameterError(
                    "regularizer: values too large for the fixed-point scores (|g| * n * 2^k / B "
                    "must stay below 2^61)",
                    "regularizer",
                )
            scores = scores - units.astype(np.int64)
        return scores, _sensitivity_factor(mode) * (1 << k), loss.bound / float(1 << k), reg

    def _check_data(self, X: Any, y: Any, loss: _Loss, cands: Any) -> Tuple[np.ndarray, np.ndarray]:
        Xa = _features(X)
        nf = None if isinstance(cands, ContinuousThresholds) else cands.n_features()
        if isinstance(cands, ContinuousThresholds):
            nf = 1
        if nf is not None and Xa.shape[1] != nf:
            raise InvalidParameterError(
                f"X: the candidates have {nf} features, X has {Xa.shape[1]}", "X"
            )
        ya = _targets(y, Xa.shape[0], loss.classification)
        return Xa, ya

    # -- public API --------------------------------------------------------------------------

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """``Budget(epsilon)``: the pure guarantee of one fit on ``n_samples`` records
        (replace-one neighbours, ``n`` public; McSherry and Talwar 2007), from the parameters
        only (validated, no data). This is what :meth:`fit` charges and reports as
        :attr:`privacy_` (:class:`privlearn._certified.CertifiedRelease`).

        Raises
        ------
        InvalidParameterError
            On a bad parameter.
        """
        _int_at_least(n_samples, "n_samples", 1)
        return Budget(self._setup()[2], 0.0)

    def fit(self, X: Any, y: Any) -> "ExponentialMechanismERM":
        """Draw a hypothesis privately from the data ``(X, y)``.

        Validates everything before any randomness is drawn or any budget is charged.

        Parameters
        ----------
        X : array_like, shape (n, d)
            Features (``(n,)`` for one feature); finite, ``n >= 1``.
        y : array_like, shape (n,)
            Labels 0/1 (classification losses) or real targets.

        Returns
        -------
        self
        """
        loss, cands, eps, mode = self._setup()
        Xa, ya = self._check_data(X, y, loss, cands)
        n = Xa.shape[0]
        if isinstance(cands, ContinuousThresholds):
            t = _charged(
                self.accountant, eps, 0.0, "exponential-mechanism ERM (continuous thresholds)",
                lambda: _core.erm_sample_threshold(
                    cands.low, cands.high, cands.orientation == "ge",
                    np.ascontiguousarray(Xa[:, 0]), ya.astype(bool), eps,
                    float(_sensitivity_factor(mode)), self.rng,
                ),
            )
            self.hypothesis_ = Threshold(float(t), cands.orientation)
            self.candidate_index_ = None
            self.n_candidates_ = None
            self.excess_risk_bound_ = None
        else:
            scores, sens, _, reg = self._scores(Xa, ya)
            i = int(exponential(scores, eps, float(sens), rng=self.rng, accountant=self.accountant))
            self.candidate_index_ = i
            self.n_candidates_ = len(cands)
            self.hypothesis_ = cands.hypothesis(i, loss)
            if isinstance(cands, LinearCandidates):
                self.coef_ = cands.coef[i].copy()
                self.intercept_ = float(cands.intercept[i])
            quant = 0.0 if (loss.name == "zero_one" and reg is None) else loss.bound * (1.0 + 1.0 / n) / 2.0 ** _frac_bits(n, False)
            self.excess_risk_bound_ = excess_risk_bound(
                n, eps, len(cands), loss_bound=loss.bound, sensitivity=mode
            ) + quant
        self.privacy_ = Budget(eps, 0.0)
        self.n_features_in_ = Xa.shape[1]
        self._loss_ = loss
        self._candidates_ = cands
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "hypothesis_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this ExponentialMechanismERM is not fitted yet; call fit first")

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of the released hypothesis: labels 0/1 for classification losses and
        thresholds/classes, real values for the squared loss."""
        self._check_fitted()
        Xa = _features(X, n_features=self.n_features_in_)
        cands = self._candidates_
        if isinstance(cands, ContinuousThresholds):
            return ThresholdCandidates([0.0]).predict(self.hypothesis_, Xa, self._loss_)
        return cands.predict(self.hypothesis_, Xa, self._loss_)

    def losses(self, X: Any, y: Any) -> np.ndarray:
        """The released hypothesis's clipped loss on every record of ``(X, y)``, in
        ``[0, loss_bound]`` (floating point; the fit used their fixed-point rounding)."""
        self._check_fitted()
        Xa = _features(X, n_features=self.n_features_in_)
        loss = self._loss_
        ya = _targets(y, Xa.shape[0], loss.classification)
        if loss.fn is not None:
            vals = np.asarray(loss.fn(self.hypothesis_, Xa, ya), dtype=np.float64)
            return np.clip(np.where(np.isnan(vals), loss.bound, vals), 0.0, loss.bound)
        if loss.name == "zero_one":
            return (self.predict(Xa) != ya).astype(np.float64) * loss.bound
        h = self.hypothesis_
        if isinstance(h, Halfspace):
            coef, b = np.asarray(h.w, dtype=np.float64), float(h.b)
        else:
            assert isinstance(h, LinearModel), "real-valued losses have linear candidates"
            coef, b = np.asarray(h.coef, dtype=np.float64), float(h.intercept)
        return _float_losses(loss, Xa @ coef + b, ya)

    def score(self, X: Any, y: Any) -> float:
        """``1 - mean clipped loss / loss_bound`` on ``(X, y)``: the accuracy for the 0-1 loss.

        Not private by itself: it reads ``(X, y)`` (fine on public test data)."""
        return float(1.0 - np.mean(self.losses(X, y)) / self._loss_.bound)


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
