r"""Choosing the regularisation and the radius: privately (Chaudhuri, Monteleoni and Sarwate,
JMLR 2011, Section 6; Wu et al.'s Algorithm 5), or non-privately as a benchmark (Wu et al.'s
"oracle").

**Private tuning** (:class:`PrivateTuning`). With ``m`` candidate parameter settings, the
training rows are split by a random permutation (independent of the data) into ``m + 1`` chunks
of near-equal size; candidate ``i`` is fitted on chunk ``i`` by an ``epsilon``-DP learner, and one
candidate is chosen by the exponential mechanism with budget ``epsilon`` from its score on the
last chunk ``S'``. A record lies in exactly one chunk: in a training chunk it affects one
``epsilon``-DP model (the choice is post-processing of the models and of ``S'``), in ``S'`` only
the ``epsilon``-DP choice. So the chosen model (and its index) is ``epsilon``-DP
(Chaudhuri et al.'s argument: parallel composition).

The exponential mechanism needs scores of bounded sensitivity. ``selection="strict"`` (the
default, and the only mode reported as private) scores a regressor by minus its mean squared
error on ``S'`` with predictions and labels clipped to ``[-label_bound, label_bound]``: each term
is at most ``4 label_bound^2``, so the mean moves by at most ``4 label_bound^2 / |S'|`` when one
record of ``S'`` is replaced; a classifier by minus its error rate on ``S'`` (sensitivity
``1 / |S'|``). ``selection="paper_not_dp"`` reproduces Wu et al.'s Algorithm 5 as printed:
``p(w_i) ∝ exp(-L_{S'}(w_i) eps / (2 R^2))`` with the unclipped mean squared error of the
normalised problem and ``R`` the largest radius of the grid. That score's sensitivity is not
bounded (the noisy candidates are unbounded; the project's errata B1), so that mode is **not
differentially private**: it refuses an accountant and reports ``epsilon_ = inf``.

**Oracle** (:func:`oracle_parameters`): Wu et al.'s non-private benchmark, "exhaustively search
for the best parameters using the training data and then use them as if they were constants".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.model_selection import ParameterGrid
from sklearn.utils.metaestimators import available_if

from .._certified import certified_guarantee, compose_parallel, public_n_samples, require_certified
from .._validate import check_choice, check_epsilon, check_integer
from ..accounting import Budget
from ..errors import InvalidParameterError
from ..mechanisms import exponential
from ..random import as_generator
from . import _base
from ._base import PrivateEstimatorMixin
from ._solvers import RidgeSpectrum, ridge_ball
from .output_perturbation import OutputPerturbationRegressor

__all__ = [
    "PrivateTuning",
    "oracle_parameters",
    "tuning_score_sensitivity",
    "PAPER_LAMBDA_GRID",
    "PAPER_RADII",
]

SELECTIONS = ("strict", "paper_not_dp")

#: Wu et al.'s tuning grids (Section 5): ``Lambda = {0.002 * 2^j, j = 0..7}`` and the two radius
#: sets ``R1 = {0.25, 0.5, 1}`` and ``R2 = {0.5, 1, 2}``.
PAPER_LAMBDA_GRID = tuple(0.002 * 2.0**j for j in range(8))
PAPER_RADII = {"R1": (0.25, 0.5, 1.0), "R2": (0.5, 1.0, 2.0)}


def tuning_score_sensitivity(
    n_validation: int, *, classifier: bool, label_bound: Optional[float] = None
) -> float:
    """Sensitivity of the strict score on a validation chunk of ``n_validation`` rows:
    ``4 label_bound^2 / n_validation`` (clipped squared error) or ``1 / n_validation`` (error
    rate).

    ``label_bound`` (the bound the labels and predictions are clipped to) is required for a
    regressor (``classifier=False``; ``None`` raises ``InvalidParameterError``: a default would
    silently calibrate to the wrong bound) and ignored for a classifier."""
    m = check_integer(n_validation, "n_validation", 1)
    if classifier:
        return 1.0 / m
    bound = _base.bound_arg(label_bound, "label_bound")
    return 4.0 * bound * bound / m


def _split(n: int, k: int, gen: Any) -> List[np.ndarray]:
    """A uniformly random partition of ``range(n)`` into ``k`` near-equal chunks (its seed comes
    from ``gen``; the partition never depends on the data)."""
    seed = [int(s) for s in gen.random_raw(4)]
    perm = np.random.default_rng(seed).permutation(n)
    return [np.sort(chunk) for chunk in np.array_split(perm, k)]


def _estimator_has(name: str) -> Any:
    """``available_if`` test: the wrapped estimator has the method ``name``."""
    return lambda self: hasattr(self.estimator, name)


class PrivateTuning(PrivateEstimatorMixin, BaseEstimator):
    r"""Private parameter tuning (Chaudhuri et al. 2011, Section 6; Wu et al., Algorithm 5).

    Fits ``m`` copies of ``estimator``, one per point of ``param_grid``, each with budget
    ``epsilon`` on its own chunk of the data, and returns the one chosen by the exponential
    mechanism (budget ``epsilon``) from the scores on a held-out chunk; see
    :mod:`privlearn.learners.tuning`.

    **Guarantee.** With ``selection="strict"`` (default), ``fit`` is
    :math:`(\max(\varepsilon, \max_i \varepsilon_i), \max_i \delta_i)`-differentially private
    (replace-one, ``n`` public; parallel composition over the disjoint chunks, Chaudhuri et al.'s
    argument), where :math:`(\varepsilon_i, \delta_i)` is the **certified** guarantee of
    candidate ``i`` (``estimator`` with the grid point's parameters and its own ``epsilon``
    replaced by this one) on its chunk size, read from its ``privacy_guarantee``
    (:func:`privlearn._certified.certified_guarantee`; an estimator that certifies nothing is
    refused before the data are read). For the privlearn learners (pure,
    ``Budget(epsilon)``) this is ``epsilon``-DP. It holds with ``rng`` ``None`` or unseeded.
    :meth:`privacy_guarantee` computes it; ``fit`` charges it once and reports it as
    :attr:`privacy_`. Only the chosen model and its parameters are kept. No record is read by
    two mechanisms, so nothing composes sequentially: parallel composition is exact, and the
    zCDP, Rényi and bounded-range accountants of issue 18 cannot tighten it.
    ``selection="paper_not_dp"`` is **not differentially private** (errata B1); it exists to
    reproduce the paper's figures.

    Parameters
    ----------
    estimator : estimator
        A privlearn learner with a certified guarantee (``privacy_guarantee``, see
        :class:`privlearn._certified.CertifiedRelease`) and ``epsilon``, ``accountant`` and
        ``rng`` parameters (its ``accountant`` must be None: the budget is charged here, once).
        Its declared bounds are required (a missing one is refused before the data are read,
        charging nothing): ``data_norm``, and for a regressor ``label_bound`` (also used to clip
        the strict score); classifiers need declared ``classes`` (never read from ``y``;
        refused before the data are read if missing).
    param_grid : dict or list of dicts
        As for :class:`sklearn.model_selection.ParameterGrid` (it must not vary ``epsilon``,
        ``label_bound``, ``classes``, ``accountant`` or ``rng``).
    epsilon : float
        Budget of every candidate and of the choice; the total is ``epsilon``.
    selection : {"strict", "paper_not_dp"}, default "strict"
    accountant : Accountant, optional
        Each strict fit spends :meth:`privacy_guarantee` (``Budget(epsilon)`` for the privlearn
        learners); ``selection="paper_not_dp"`` refuses one.
    rng : None, int or Generator, optional
        Draws the partition, every candidate's noise and the choice.

    Attributes
    ----------
    best_estimator_ : estimator
        The chosen model.
    best_params_ : dict
        Its grid point.
    best_index_ : int
    chunk_size_ : int
        Rows per training chunk (the smallest).
    epsilon_ : float
        The guarantee's epsilon, or ``inf`` for ``selection="paper_not_dp"``.
    privacy_ : Budget or None
        The guarantee charged (:meth:`privacy_guarantee`); ``None`` for
        ``selection="paper_not_dp"``.
    n_features_in_ : int
    """

    def __init__(
        self,
        estimator: Any,
        param_grid: Any,
        epsilon: Optional[float],
        *,
        selection: str = "strict",
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.selection = selection
        self.accountant = accountant
        self.rng = rng

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        inner = self.estimator.__sklearn_tags__()
        tags.estimator_type = inner.estimator_type
        tags.regressor_tags = inner.regressor_tags
        tags.classifier_tags = inner.classifier_tags
        tags.target_tags.required = True
        return tags

    def _candidates(self) -> List[Dict[str, Any]]:
        try:
            grid = list(ParameterGrid(self.param_grid))
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"param_grid: {err}", "param_grid") from None
        if not grid:
            raise InvalidParameterError("param_grid: must contain at least one point", "param_grid")
        for point in grid:
            bad = sorted(set(point) & {"epsilon", "label_bound", "classes", "accountant", "rng"})
            if bad:
                raise InvalidParameterError(
                    f"param_grid: must not vary {', '.join(bad)} (the budget, the score's bound and "
                    "the randomness are the tuner's)",
                    "param_grid",
                )
        return grid

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one strict fit on ``n_samples`` records (replace-one, ``n``
        public), from the parameters only: the parallel composition of every candidate's
        certified guarantee on its chunk and of the ``epsilon``-DP choice (see the class
        documentation). This is what :meth:`fit` charges and reports as :attr:`privacy_`.

        Raises
        ------
        InvalidParameterError
            On bad parameters, ``selection="paper_not_dp"`` (not private), fewer rows than
            chunks, or an estimator that certifies no guarantee.
        """
        n = check_integer(n_samples, "n_samples", 1)
        eps = check_epsilon(self.epsilon, exact=True)
        if check_choice(self.selection, "selection", SELECTIONS) == "paper_not_dp":
            raise InvalidParameterError(
                "selection: 'paper_not_dp' (Algorithm 5 as printed) is not differentially "
                "private (its score sensitivity is unbounded, errata B1): no guarantee",
                "selection",
            )
        require_certified(self.estimator, "estimator")
        grid = self._candidates()
        m = len(grid)
        if n < m + 1:
            raise InvalidParameterError(
                f"X: {m} grid points need at least {m + 1} rows (m training chunks and one "
                f"validation chunk); got n_samples = {n}",
                "X",
            )
        # _split: np.array_split into m + 1 chunks, the first n % (m + 1) one row longer; the
        # first m chunks train the candidates.
        q, r = divmod(n, m + 1)
        sizes = sorted({q + (1 if i < r else 0) for i in range(m)})
        parts = [Budget(eps)]  # the exponential mechanism's choice on the validation chunk
        for point in grid:
            candidate = clone(self.estimator)
            try:
                candidate.set_params(**point, epsilon=eps, accountant=None)
            except ValueError as err:
                raise InvalidParameterError(f"param_grid: {err}", "param_grid") from None
            parts.extend(certified_guarantee(candidate, size, "estimator") for size in sizes)
        return compose_parallel(parts)

    def fit(self, X: Any, y: Any) -> "PrivateTuning":
        """Partition, fit the candidates, choose one (see the class docstring).

        Raises
        ------
        InvalidParameterError
            On bad parameters, a grid point the estimator rejects, fewer rows than chunks,
            bad data, or an accountant with ``selection="paper_not_dp"``; nothing is spent.
        BudgetExceededError
            If the accountant cannot pay ``epsilon``.
        """
        eps = check_epsilon(self.epsilon, exact=True)
        selection = check_choice(self.selection, "selection", SELECTIONS)
        if selection == "paper_not_dp" and self.accountant is not None:
            raise InvalidParameterError(
                "accountant: selection='paper_not_dp' is not differentially private (its score "
                "sensitivity is unbounded), so it cannot spend from an accountant",
                "accountant",
            )
        est = self.estimator
        for name in ("epsilon", "accountant", "rng"):
            if not hasattr(est, "get_params") or name not in est.get_params(deep=False):
                raise InvalidParameterError(
                    f"estimator: must be a privlearn learner with an {name!r} parameter",
                    "estimator",
                )
        if est.get_params(deep=False)["accountant"] is not None:
            raise InvalidParameterError(
                "estimator: its accountant must be None (PrivateTuning charges the whole "
                "epsilon once, to its own accountant)",
                "estimator",
            )
        # A missing row bound is refused here, before the data are read, rather than by the
        # first candidate's fit after the tuner has read them.
        if est.get_params(deep=False).get("data_norm", 0.0) is None:
            _base.bound_arg(None, "data_norm")
        classifier = is_classifier(est)
        label_bound = 1.0  # unused by a classifier's score (its error rate has sensitivity 1/m)
        if classifier:
            # Declared, never read from y (before the data are read): on a neighbour whose y
            # holds one label only, inferring them would refuse while the other fits.
            _base.declared_classes(est)
        else:
            label_bound = _base.bound_arg(
                est.get_params(deep=False).get("label_bound"), "label_bound"
            )
        grid = self._candidates()
        if selection == "paper_not_dp":
            self._fit(X, y, eps, grid, selection, classifier, label_bound)
            self.privacy_ = None
            return self
        require_certified(est, "estimator")  # before the data are read
        budget = self.privacy_guarantee(public_n_samples(X))
        _base.charged(
            self.accountant,
            budget.epsilon,
            type(self).__name__,
            lambda: self._fit(X, y, eps, grid, selection, classifier, label_bound),
            delta=budget.delta,
        )
        self.privacy_ = budget
        self.epsilon_ = budget.epsilon
        return self

    def _fit(
        self,
        X: Any,
        y: Any,
        eps: float,
        grid: List[Dict[str, Any]],
        selection: str,
        classifier: bool,
        label_bound: float,
    ) -> "PrivateTuning":
        Xv, yv = _base.validate_Xy(self, X, y, classifier=classifier)
        if classifier:
            # Labels outside the declared classes are refused for the whole y, before anything
            # is drawn (not by whichever candidate's chunk they fall in).
            _base.binary_targets(_base.declared_classes(self.estimator), yv)
        m = len(grid)
        n = Xv.shape[0]
        if n < m + 1:
            raise InvalidParameterError(
                f"X: {m} grid points need at least {m + 1} rows (m training chunks and one "
                f"validation chunk); got n_samples = {n}",
                "X",
            )
        gen = as_generator(self.rng)
        chunks = _split(n, m + 1, gen)
        val = chunks[-1]
        fixed: Dict[str, Any] = dict(epsilon=eps, accountant=None, rng=gen)
        models = []
        for point, chunk in zip(grid, chunks[:-1]):
            model = clone(self.estimator)
            model.set_params(**point, **fixed)
            models.append(model.fit(Xv[chunk], yv[chunk]))
        Xs, ys = Xv[val], yv[val]
        if classifier:
            scores = np.array([-np.mean(model.predict(Xs) != ys) for model in models])
            sens = tuning_score_sensitivity(val.size, classifier=True)
        elif selection == "strict":
            yc = np.clip(ys, -label_bound, label_bound)
            # Each prediction is clipped into [-B, B] (an overflowing one included), so every term
            # of the mean lies in [0, 4 B^2] whatever the model.
            preds = [
                np.clip(np.nan_to_num(model.predict(Xs)), -label_bound, label_bound)
                for model in models
            ]
            scores = np.array([-np.mean((p - yc) ** 2) for p in preds])
            sens = tuning_score_sensitivity(val.size, classifier=False, label_bound=label_bound)
        else:
            # Algorithm 5 as printed: the unclipped mean squared error of the normalised
            # problem, "sensitivity" R^2 with R the largest radius. Not DP.
            radii = [
                p.get("radius", self.estimator.get_params(deep=False).get("radius")) for p in grid
            ]
            if any(r is None for r in radii):
                raise InvalidParameterError(
                    "param_grid: selection='paper_not_dp' needs a radius for every candidate",
                    "param_grid",
                )
            scores = np.array(
                [-np.mean(((model.predict(Xs) - ys) / label_bound) ** 2) for model in models]
            )
            scores = np.where(np.isfinite(scores), scores, -np.finfo(float).max)
            sens = max(radii) ** 2
        index = int(exponential(scores, eps, sens, rng=gen))
        self.best_estimator_ = models[index]
        self.best_params_ = dict(grid[index])
        self.best_index_ = index
        self.chunk_size_ = int(min(c.size for c in chunks[:-1]))
        self.epsilon_ = eps if selection == "strict" else math.inf
        return self

    def _check_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "best_estimator_")

    def _chosen_X(self, X: Any) -> np.ndarray:
        # The column names are checked against this fit's (feature_names_in_); the chosen model
        # was fitted on the validated array, so it gets one too.
        self._check_fitted()
        return _base.validate_X(self, X, reset=False)

    def predict(self, X: Any) -> np.ndarray:
        """The chosen model's predictions."""
        Xv = self._chosen_X(X)  # checks the fit first
        return self.best_estimator_.predict(Xv)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The chosen model's ``score`` (R^2 or accuracy)."""
        Xv = self._chosen_X(X)
        return float(self.best_estimator_.score(Xv, y, sample_weight=sample_weight))

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X: Any) -> np.ndarray:
        """The chosen classifier's decision function."""
        Xv = self._chosen_X(X)  # checks the fit first
        return self.best_estimator_.decision_function(Xv)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X: Any) -> np.ndarray:
        """The chosen classifier's class probabilities."""
        Xv = self._chosen_X(X)  # checks the fit first
        return self.best_estimator_.predict_proba(Xv)

    @property
    def classes_(self) -> np.ndarray:
        """The chosen classifier's classes."""
        self._check_fitted()
        if not hasattr(self.best_estimator_, "classes_"):
            raise AttributeError("classes_: PrivateTuning wraps a regressor")
        return self.best_estimator_.classes_

    @property
    def coef_(self) -> np.ndarray:
        """The chosen model's coefficients."""
        self._check_fitted()
        return self.best_estimator_.coef_

    @property
    def intercept_(self) -> Any:
        """The chosen model's intercept."""
        self._check_fitted()
        return self.best_estimator_.intercept_


def oracle_parameters(
    estimator: OutputPerturbationRegressor,
    param_grid: Any,
    X: Any,
    y: Any,
    *,
    return_scores: bool = False,
) -> Any:
    r"""Wu et al.'s "oracle" choice of parameters for output perturbation. **Not differentially
    private**: it reads the training data to choose.

    Returns the grid point minimising the expected mean squared error of ``estimator``'s
    released model on ``(X, y)`` (in the normalised units), the expectation being over the
    noise and computed exactly: for ``w = w_bar + k`` with ``p(k) ∝ exp(-||k|| / b)``,
    ``E[k k^T] = (d + 1) b^2 I`` (``||k||`` is Gamma(d, b) and its direction uniform), so
    ``E MSE(w) = MSE(w_bar) + (d + 1) b^2 tr(X^T X) / n``.

    Parameters
    ----------
    estimator : OutputPerturbationRegressor
        Its ``epsilon``, bounds and ``variant`` are used; the grid varies the others.
    param_grid : dict or list of dicts
        Grid of ``alpha`` and ``radius`` values (not of the data bounds).
    X, y : array_like
        Training data.
    return_scores : bool, default False
        Also return the expected MSE of every grid point (in grid order).

    Returns
    -------
    dict, or (dict, list of float)
        The best grid point (ties: the first), and the scores if asked.
    """
    if not isinstance(estimator, OutputPerturbationRegressor):
        raise InvalidParameterError(
            "estimator: the oracle is defined for OutputPerturbationRegressor", "estimator"
        )
    grid = list(ParameterGrid(param_grid))
    if not grid:
        raise InvalidParameterError("param_grid: must contain at least one point", "param_grid")
    if any(set(point) & {"data_norm", "label_bound", "fit_intercept"} for point in grid):
        raise InvalidParameterError("param_grid: must not vary the data bounds", "param_grid")
    data = clone(estimator)._prepare(X, y)
    gram = data.X.T @ data.X
    xty = data.X.T @ data.y
    spec = RidgeSpectrum.from_gram(gram, xty, data.n)
    yy = float(data.y @ data.y)
    trace = float(np.trace(gram))
    scores = []
    for point in grid:
        alpha, radius, delta, eps = clone(estimator).set_params(**point)._calibrate(data.n, data.d)
        w, _ = ridge_ball(spec, alpha, radius)
        mse = (float(w @ gram @ w) - 2.0 * float(w @ xty) + yy) / data.n
        b = delta / eps
        scores.append(mse + (data.d + 1) * b * b * trace / data.n)
    best = dict(grid[int(np.argmin(scores))])
    return (best, scores) if return_scores else best
