"""Candidate sets of the exponential-mechanism ERM learners: the hypotheses Algorithm 1 draws from.

Every candidate set is fixed before the data are seen (data independence, see
:mod:`privlearn.learners.erm`) and scores its candidates on the private sample as exact
integer sums of quantised losses (:mod:`._erm_losses`):

* :class:`LinearCandidates` (linear predictors, scored in Rust) and its data-independent
  :class:`Grid` over a box (Example 21, route (b));
* :class:`ThresholdCandidates` and the public-reference net :func:`reference_threshold_grid`
  (Example 24);
* :class:`ReferenceDichotomies`, a hypothesis class restricted to public reference points;
* :class:`FiniteCandidates`, any objects scored by a user loss;
* :class:`ContinuousThresholds`, thresholds on an interval with the Lebesgue base measure
  (Proposition 12), sampled exactly by the Rust kernel.

:func:`_resolve_candidates` turns the estimator's ``hypotheses`` parameter into one of these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from .._validate import check_choice, check_integer, check_positive
from ..errors import InvalidParameterError
from ..hypotheses import (
    Dichotomies,
    Halfspace,
    HypothesisClass,
    Threshold,
    Thresholds,
    _real_array,
    check_hypothesis_class,
)
from ._erm_inputs import _features, _targets
from ._erm_losses import _CORE_LOSSES, _Loss, _quantize, _unit

__all__ = [
    "LinearModel",
    "LinearCandidates",
    "Grid",
    "ThresholdCandidates",
    "reference_threshold_grid",
    "ReferenceDichotomies",
    "FiniteCandidates",
    "ContinuousThresholds",
]

#: Largest candidate set materialised at once (the grid check refuses larger ones).
MAX_CANDIDATES = 1 << 26


@dataclass(frozen=True)
class LinearModel:
    """The real-valued linear predictor ``x -> coef @ x + intercept`` (squared loss)."""

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

    def totals(
        self, X: np.ndarray, y: np.ndarray, loss: _Loss, k: int
    ) -> np.ndarray:  # pragma: no cover
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
    """An explicit finite set of linear predictors ``x -> w @ x + b``.

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
            self.coef,
            self.intercept,
            X,
            np.ascontiguousarray(y, dtype=np.float64),
            loss.core,
            loss.bound,
            k,
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
        self.radius = check_positive(radius, "radius")
        self.dim = check_integer(dim, "dim", 1)
        self.num = check_integer(num, "num", 2)
        self.intercept_radius = (
            None
            if intercept_radius is None
            else check_positive(intercept_radius, "intercept_radius")
        )
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
        extra = (
            f", intercept_radius={self.intercept_radius}"
            if self.intercept_radius is not None
            else ""
        )
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
        self.orientation = check_choice(orientation, "orientation", ("ge", "le", "both"))
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
        m = _core.erm_threshold_mistakes(
            self.t, self.ge, np.ascontiguousarray(X[:, 0]), y.astype(bool)
        )
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
    c = check_positive(c, "c")
    alpha = check_positive(alpha, "alpha")
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameterError(
            f"low, high: must be finite with low < high, got [{low}, {high}]", "low"
        )
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

    def __init__(
        self, hypothesis_class: Any, reference_points: Any, *, max_count: Optional[int] = None
    ) -> None:
        check_hypothesis_class(hypothesis_class)
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
        self._dichotomies = Dichotomies(
            d.hypothesis_class, d.packed[keep], d.params[keep], d.n_points
        )
        self._hyps: Optional[List[Any]] = None
        if len(self) == 0:
            raise InvalidParameterError(
                "reference_points: the class has no usable labeling", "reference_points"
            )

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

    def __init__(
        self, hypotheses: Sequence[Any], predict: Optional[Callable[[Any, np.ndarray], Any]] = None
    ) -> None:
        items = list(hypotheses)
        if not items:
            raise InvalidParameterError(
                "hypotheses: must hold at least one candidate", "hypotheses"
            )
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
        self.orientation = check_choice(orientation, "orientation", ("ge", "le"))
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
            self.low,
            self.high,
            self.orientation == "ge",
            np.ascontiguousarray(x[:, 0]),
            yv.astype(bool),
        )
        left = np.ldexp(start.astype(np.float64), g)
        right = np.ldexp((start + length.astype(np.int64) - 1).astype(np.float64), g)
        return left, right, length, mistakes


# --------------------------------------------------------------------------------------------
# The estimator's ``hypotheses`` parameter
# --------------------------------------------------------------------------------------------


#: What :class:`~privlearn.learners.erm.ExponentialMechanismERM` accepts as ``hypotheses``.
HypothesesLike = Union[_Candidates, ContinuousThresholds, Dichotomies, np.ndarray, Sequence[Any]]


def _resolve_candidates(hypotheses: Any) -> Union[_Candidates, ContinuousThresholds]:
    """The candidate set named by an estimator's ``hypotheses`` (an array means linear
    candidates, a list finite candidates, ``Dichotomies`` their representatives)."""
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
