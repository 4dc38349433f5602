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

This module holds the estimator; the pieces it is built from live in private modules (their
public names are re-exported here): the candidate sets in :mod:`._erm_candidates`, the losses and their
fixed-point scores in :mod:`._erm_losses`, the bounds in :mod:`._erm_bounds`, the input
checks in :mod:`._erm_inputs`.

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
import numbers
from typing import Any, Optional, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._certified import check_feature_names
from .._validate import check_choice, check_epsilon, check_integer, check_real
from ..accounting import Budget
from ..accounting._event import PrivacyEvent
from ..errors import InvalidParameterError
from ..hypotheses import Halfspace, Threshold
from ..mechanisms import _charged, exponential
from ..random import _core_rng
from ._base import PrivateEstimatorMixin
from ._erm_bounds import (
    example20_epsilon,
    example21_epsilon,
    excess_risk_bound,
    linear_loss_bound,
)
from ._erm_candidates import (  # MAX_CANDIDATES: re-exported for privlearn.learners.erm users
    ContinuousThresholds,
    FiniteCandidates,
    Grid,
    LinearCandidates,
    LinearModel,
    ReferenceDichotomies,
    ThresholdCandidates,
    _Candidates,
    _resolve_candidates,
    reference_threshold_grid,
)
from ._erm_inputs import SENSITIVITIES, _features, _sensitivity_factor, _targets
from ._erm_losses import _float_losses, _frac_bits, _Loss, _resolve_loss

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


def _check_regularizer(regularizer: Any) -> None:
    """Rejects regularizers that can see data: a callable must take exactly one argument."""
    if regularizer is None or isinstance(regularizer, np.ndarray):
        return
    if isinstance(regularizer, numbers.Real) and not isinstance(regularizer, bool):
        check_real(regularizer, "regularizer", 0.0)
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
    required = [
        p
        for p in params
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    variadic = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
    data_names = {"X", "x", "y", "Z", "z", "data", "sample"}
    if (
        variadic
        or len(required) != 1
        or len(positional) < 1
        or data_names & {p.name for p in params}
    ):
        raise InvalidParameterError(
            "regularizer: must be a function g(h) of the hypothesis alone (Algorithm 1 needs a "
            f"data-independent regularizer); got a callable with parameters {sig}",
            "regularizer",
        )


class ExponentialMechanismERM(PrivateEstimatorMixin, BaseEstimator):  # type: ignore[misc]
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
        Charged once, before the draw (refused spends draw nothing), the native event
        ``PrivacyEvent.bounded_range(epsilon)`` (replace-one): one exponential mechanism is
        ``epsilon``-bounded-range (Durfee and Rogers, NeurIPS 2019; with the Lebesgue base
        measure of :class:`ContinuousThresholds` too), so a basic accountant charges
        ``Budget(epsilon)`` and a zCDP accountant ``epsilon^2 / 8`` (Cesar and Rogers 2021).
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
        eps = check_epsilon(self.epsilon)
        mode = check_choice(self.sensitivity, "sensitivity", SENSITIVITIES)
        loss = _resolve_loss(self.loss, self.loss_bound)
        if self.hypotheses is None:
            raise InvalidParameterError("hypotheses: a candidate set is required", "hypotheses")
        cands = _resolve_candidates(self.hypotheses)
        if isinstance(cands, ContinuousThresholds):
            if loss.name != "zero_one":
                raise InvalidParameterError(
                    f"loss: ContinuousThresholds supports the 0-1 loss only, got {loss.name!r}",
                    "loss",
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
            vals = np.fromiter(
                (float(reg(cands.hypothesis(i, loss))) for i in range(N)), dtype=np.float64, count=N
            )
        if vals.shape != (N,) or not np.all(np.isfinite(vals)):
            raise InvalidParameterError(
                f"regularizer: must give one finite value per candidate ({N}), got shape {vals.shape}",
                "regularizer",
            )
        return vals

    def _scores(
        self, X: np.ndarray, y: np.ndarray
    ) -> Tuple[np.ndarray, int, float, Optional[np.ndarray]]:
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
        check_feature_names(self, X, reset=True)
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
        check_integer(n_samples, "n_samples", 1)
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
                self.accountant,
                eps,
                0.0,
                "exponential-mechanism ERM (continuous thresholds)",
                lambda: _core.erm_sample_threshold(
                    cands.low,
                    cands.high,
                    cands.orientation == "ge",
                    np.ascontiguousarray(Xa[:, 0]),
                    ya.astype(bool),
                    eps,
                    float(_sensitivity_factor(mode)),
                    _core_rng(self.rng),
                ),
                # One exponential mechanism (base measure: the data-independent grid), hence
                # eps-bounded-range, as privlearn.mechanisms.exponential charges it.
                event=lambda: PrivacyEvent.bounded_range(eps),
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
            quant = (
                0.0
                if (loss.name == "zero_one" and reg is None)
                else loss.bound * (1.0 + 1.0 / n) / 2.0 ** _frac_bits(n, False)
            )
            self.excess_risk_bound_ = (
                excess_risk_bound(n, eps, len(cands), loss_bound=loss.bound, sensitivity=mode)
                + quant
            )
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
        check_feature_names(self, X, reset=False)
        return self._predict(_features(X, n_features=self.n_features_in_))

    def _predict(self, Xa: np.ndarray) -> np.ndarray:
        cands = self._candidates_
        if isinstance(cands, ContinuousThresholds):
            return ThresholdCandidates([0.0]).predict(self.hypothesis_, Xa, self._loss_)
        return cands.predict(self.hypothesis_, Xa, self._loss_)

    def losses(self, X: Any, y: Any) -> np.ndarray:
        """The released hypothesis's clipped loss on every record of ``(X, y)``, in
        ``[0, loss_bound]`` (floating point; the fit used their fixed-point rounding)."""
        self._check_fitted()
        check_feature_names(self, X, reset=False)
        Xa = _features(X, n_features=self.n_features_in_)
        loss = self._loss_
        ya = _targets(y, Xa.shape[0], loss.classification)
        if loss.fn is not None:
            vals = np.asarray(loss.fn(self.hypothesis_, Xa, ya), dtype=np.float64)
            return np.clip(np.where(np.isnan(vals), loss.bound, vals), 0.0, loss.bound)
        if loss.name == "zero_one":
            return (self._predict(Xa) != ya).astype(np.float64) * loss.bound
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
