"""The predictors of seed 003: stable (Theorem 1), private (Corollary 1, Theorem 2), and the
subsample-and-aggregate baseline."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from .. import _core
from .._certified import _SHARED_PARAMS, SharedCloneMixin, check_feature_names, public_n_samples
from .._validate import check_choice, check_epsilon, check_integer, check_probability
from ..accounting import Accountant
from ..accounting._accountant import check_accountant
from ..accounting._event import PrivacyEvent
from ..errors import InvalidParameterError
from ..hypotheses import FiniteClass, HypothesisClass, _labels, check_hypothesis_class
from ..random import as_generator, spawn_seeds
from . import _theory as th
from ._charging import PerQueryCharging

__all__ = [
    "StablePredictor",
    "PrivatePredictor",
    "SubsampleAggregatePredictor",
    "ERMClassifier",
]


# --------------------------------------------------------------------------------------------
# Shared plumbing
# --------------------------------------------------------------------------------------------


def _core_class(h: Any) -> Tuple[Tuple[str, int, str, Optional[int]], Optional[np.ndarray]]:
    """The core's description of a class: a real-parameter spec, or a finite class's matrix."""
    check_hypothesis_class(h, "hypotheses")
    if isinstance(h, FiniteClass):
        if h._matrix is None:
            raise InvalidParameterError(
                "hypotheses: a FiniteClass of callables is not supported (give its labeling matrix)",
                "hypotheses",
            )
        return ("finite", 1, "ge", None), h._matrix
    try:
        return h._spec(), None
    except NotImplementedError:
        raise InvalidParameterError(
            f"hypotheses: {type(h).__name__} is not supported by the predictors (thresholds, "
            "intervals, rectangles, halfspaces, points and finite classes are)",
            "hypotheses",
        ) from None


def _points(h: HypothesisClass, X: Any) -> np.ndarray:
    """Validated points as the core's ``(n, dim)`` float64 array (domain indices for finite
    classes)."""
    Xc = h._check_X(X)
    if isinstance(h, FiniteClass):
        Xc = Xc.astype(np.float64).reshape(-1, 1)
    return np.ascontiguousarray(Xc, dtype=np.float64)


def _flip_ratio(p: Fraction) -> Tuple[int, int]:
    return p.numerator, p.denominator


class _Predictor(SharedCloneMixin, BaseEstimator, ClassifierMixin):  # type: ignore[misc]
    """Common fitting, validation and cloning of the hypothesis-class predictors."""

    hypotheses: HypothesisClass
    rng: Any

    # A clone shares (never deep-copies) the accountant and a Generator (a copied accountant
    # would double the budget) and the hypothesis class (an immutable description).
    _shared_params = _SHARED_PARAMS + ("hypotheses",)

    def _fit_data(self, X: Any, y: Any) -> int:
        spec, matrix = _core_class(self.hypotheses)
        check_feature_names(self, X, reset=True)
        Xc = _points(self.hypotheses, X)
        n = Xc.shape[0]
        if n == 0:
            raise InvalidParameterError("X: must hold at least one example", "X")
        yc = _labels(y, n)
        self._spec, self._matrix, self._X, self._y = spec, matrix, Xc, yc
        self.n_samples_ = n
        self.n_features_in_ = Xc.shape[1]
        self.classes_ = np.array([0, 1])
        self._rng_ = as_generator(self.rng)
        return n

    def _queries(self, X: Any) -> np.ndarray:
        if not hasattr(self, "_X"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) first"
            )
        check_feature_names(self, X, reset=False)
        return _points(self.hypotheses, X)

    def _sample_args(
        self,
    ) -> Tuple[Tuple[str, int, str, Optional[int]], Optional[np.ndarray], np.ndarray, np.ndarray]:
        return (self._spec, self._matrix, self._X, self._y)


# --------------------------------------------------------------------------------------------
# Stable predictor (Theorem 1)
# --------------------------------------------------------------------------------------------


class StablePredictor(_Predictor):
    r"""A uniformly stable learner with less data than averaging (Theorem 1).

    Dagan and Feldman, "PAC learning with stable and private predictions" (COLT 2020), §3.1,
    Lemma 7 and Theorem 1. For each query ``x``: draw a uniformly random subset ``S'`` of
    ``subsample_size`` examples, form the class :math:`C_{S'}` of all labelings of its points
    (one representative each, depending on the points only: :mod:`privlearn.hypotheses`), choose
    ``h`` in it with the exponential mechanism with parameter ``epsilon0`` and utility minus the
    number of mistakes on the **whole** sample, and answer ``h(x)``.

    **Guarantee.** For neighbouring samples (same public ``n``, one labelled example replaced)
    and every query, the probability of answering 1 moves by at most
    :math:`\gamma = m/n + (1 - m/n)\tanh(\varepsilon_0/2)` (:func:`stable_gamma`), which the
    parameters make at most ``gamma``. Stability is **not privacy**: nothing here is
    differentially private (see :class:`PrivatePredictor`). Every query uses fresh randomness.

    **Modes.** Practical (``alpha=None``, default): ``subsample_size = floor(gamma n / 2)`` and
    the largest ``epsilon0`` with certified stability ``gamma`` (either may be given; the other
    is then the largest allowed). Theory (``alpha`` given): the same parameters, and ``fit``
    refuses a sample smaller than :func:`stable_setting`'s ``n``, at which, with probability at
    least ``1 - alpha`` over an i.i.d. sample, the error is at most ``opt + 5 alpha``.

    Parameters
    ----------
    hypotheses : HypothesisClass
        Thresholds, intervals, rectangles, halfspaces, points, or a finite class given by its
        labeling matrix.
    gamma : float
        Target uniform stability, in ``(0, 1]``.
    alpha : float, optional
        Accuracy target of the theory mode.
    subsample_size : int, optional
        ``m``; must be below ``gamma n``.
    epsilon0 : float, optional
        The exponential mechanism's parameter.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); resolved once at ``fit``, so successive calls
        continue one stream.

    Attributes
    ----------
    gamma_ : float
        The certified stability (``<= gamma``).
    subsample_size_, epsilon0_ : int, float
        The parameters used.
    n_samples_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.hypotheses import Thresholds
    >>> from privlearn.prediction import StablePredictor
    >>> g = np.random.default_rng(0)
    >>> X = g.random(2000); y = (X > 0.4) ^ (g.random(2000) < 0.1)
    >>> clf = StablePredictor(Thresholds(), gamma=0.05, rng=0).fit(X, y)
    >>> clf.gamma_ <= 0.05, clf.subsample_size_
    (True, 50)
    >>> clf.predict([0.1, 0.9])
    array([0, 1])
    """

    def __init__(
        self,
        hypotheses: HypothesisClass,
        gamma: float,
        *,
        alpha: Optional[float] = None,
        subsample_size: Optional[int] = None,
        epsilon0: Optional[float] = None,
        rng: Any = None,
    ) -> None:
        self.hypotheses = hypotheses
        self.gamma = gamma
        self.alpha = alpha
        self.subsample_size = subsample_size
        self.epsilon0 = epsilon0
        self.rng = rng

    def fit(self, X: Any, y: Any) -> "StablePredictor":
        """Store the sample and fix the parameters (nothing is released).

        Raises
        ------
        InvalidParameterError
            On bad input or parameters, or (theory mode) a sample below the theory's size.
        """
        gamma = check_probability(self.gamma, "gamma", one_ok=True)
        _core_class(self.hypotheses)
        n = _points(self.hypotheses, X).shape[0]
        if n == 0:
            raise InvalidParameterError("X: must hold at least one example", "X")
        if self.alpha is not None:
            if self.subsample_size is not None or self.epsilon0 is not None:
                raise InvalidParameterError(
                    "alpha: the theory mode sets subsample_size and epsilon0 itself", "alpha"
                )
            need = th.stable_setting(self.hypotheses, self.alpha, gamma).n
            if n < need:
                raise InvalidParameterError(
                    f"X: the theory mode (alpha={self.alpha}, gamma={gamma}) needs n >= {need} "
                    f"examples, got {n}; use alpha=None for the practical mode",
                    "X",
                )
        m = self.subsample_size
        if m is None:
            m = int(math.floor(gamma * n / 2))
            if self.epsilon0 is not None:
                m = _largest_m(n, gamma, check_epsilon(self.epsilon0, "epsilon0"))
            if m < 1:
                raise InvalidParameterError(
                    f"gamma: {gamma} is too small for n = {n} examples (the subset would be empty)",
                    "gamma",
                )
        m = check_integer(m, "subsample_size")
        if m > n or (m >= gamma * n and gamma < 1):
            raise InvalidParameterError(
                f"subsample_size: must be at least 1 and below gamma * n = {gamma * n:g} (with n = "
                f"{n}), got {m}; gamma is too small for this sample",
                "subsample_size",
            )
        if self.epsilon0 is None:
            e0 = th.max_epsilon0(n, m, gamma)
            if e0 is None:
                raise InvalidParameterError(
                    "gamma: no epsilon0 meets it with this subsample_size", "gamma"
                )
        else:
            e0 = check_epsilon(self.epsilon0, "epsilon0")
            if th.stable_gamma(n, m, e0) > gamma:
                raise InvalidParameterError(
                    f"epsilon0: with n = {n} and subsample_size = {m} the stability is "
                    f"{th.stable_gamma(n, m, e0):.6g} > gamma = {gamma}",
                    "epsilon0",
                )
        self._fit_data(X, y)
        self.subsample_size_, self.epsilon0_ = m, e0
        self.gamma_ = th.stable_gamma(n, m, e0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """One randomised label per row of ``X`` (independent runs)."""
        Xq = self._queries(X)
        out = _core.prediction_stable(
            *self._sample_args(), Xq, self.subsample_size_, self.epsilon0_, None, self._rng_
        )
        return out.astype(np.int64)

    def predict_proba(self, X: Any, n_subsets: int = 1) -> np.ndarray:
        """Estimates of the probabilities of the labels 0 and 1, shape ``(len(X), 2)``.

        For each query, the average over ``n_subsets`` fresh random subsets ``S'`` of the exact
        probability that the exponential mechanism over :math:`C_{S'}` picks a hypothesis
        labelling it 1 (Rao-Blackwellised: unbiased for :math:`\\Pr[A(S,x)=1]`). As a confidence
        output it has the same uniform stability ``gamma_`` (Dagan and Feldman, footnote on
        confidence outputs) and **no privacy at all** (ERRATA 003-1): never serve it where
        privacy is needed.
        """
        Xq = self._queries(X)
        k = check_integer(n_subsets, "n_subsets")
        p1 = _core.prediction_stable_proba(
            *self._sample_args(), Xq, self.subsample_size_, self.epsilon0_, k, self._rng_
        )
        return np.column_stack([1.0 - p1, p1])


def _largest_m(n: int, gamma: float, e0: float) -> int:
    """The largest subset size with stable_gamma(n, m, e0) <= gamma (0 if none)."""
    t = math.tanh(e0 / 2)
    if t >= gamma:
        return 0
    m = min(n, int(math.floor(n * (gamma - t) / (1 - t))) + 1)
    while m > 0 and th.stable_gamma(n, m, e0) > gamma:
        m -= 1
    return m


# --------------------------------------------------------------------------------------------
# Private predictor (Corollary 1, Theorem 2)
# --------------------------------------------------------------------------------------------


class PrivatePredictor(PerQueryCharging, _Predictor):
    r"""Private prediction with fewer samples than subsample-and-aggregate.

    Dagan and Feldman (COLT 2020). Each answer to a query is **one sampled label**, and nothing
    else is released (no probabilities, hypotheses, subsets or covers; ERRATA 003-1).

    ``method="corollary1"`` (Corollary 1): the stable predictor of :class:`StablePredictor`
    (subset of ``subsample_size`` examples, exponential mechanism with ``inner_epsilon`` over
    its cover scored on the whole sample), its answer flipped with probability
    ``flip_probability``.

    ``method="theorem2"`` (Theorem 2 / Lemma 8): the same selection with ``inner_epsilon`` =
    :math:`\varepsilon_1`, the whole sample relabelled by the selected hypothesis, the class's
    exact ERM (a consistent learner) on each of ``n_blocks`` blocks of a fixed random partition
    of the relabelled sample, the private vote (exponential mechanism with
    :math:`\varepsilon_1` on the counts) of those models at the query, and the flip.

    **Guarantee.** Every answer is an ``epsilon_``-private prediction: for neighbouring samples
    (same public ``n``, one labelled example replaced), every query and both labels,
    :math:`\Pr[A(S,x)=y] \le e^{\varepsilon} \Pr[A(\tilde S,x)=y]`, with ``epsilon_ <=
    epsilon`` certified from public parameters only (:func:`corollary1_epsilon`;
    :func:`theorem2_epsilon`, the smaller of the direct and the net routes). Sampling is exact
    (integer-score exponential mechanisms, exact Bernoulli flips), so no floating-point rounding
    weakens it. The guarantee holds only with ``rng=None`` (fresh OS entropy): a known seed
    voids it (ERRATA 003-7).

    **Accounting.** The guarantee is per query; ``q`` answers compose (basic composition) to
    ``q * epsilon_``, which :meth:`predict` charges to ``accountant`` before drawing anything,
    refusing a batch that does not fit (ERRATA 003-2). The charge is the native event
    ``PrivacyEvent.repeated(PrivacyEvent.pure(epsilon_), q)`` (replace-one), whose basic budget
    is ``q * epsilon_`` and which a zCDP accountant charges ``q epsilon_^2 / 2``. Each query uses fresh randomness.
    ``fit`` releases nothing, so the predictor has no per-fit ``privacy_guarantee``
    (:class:`privlearn._certified.CertifiedRelease`): a composite that charges one guarantee
    per fit (e.g. :class:`~privlearn.learners.SubsampledERM`) refuses it as a base, since it
    could not account for the answers.

    **Modes.** Practical (``alpha=None``, default): ``flip_probability`` defaults to
    :func:`default_flip_probability` (from ``n``, ``epsilon`` and the VC dimension only), the
    subset is the largest the flip pays for (``1 + (1-2p) m/(np) <= e^epsilon``) and
    ``inner_epsilon`` the largest the certificate allows (nearly ``epsilon`` itself for
    Corollary 1, half of it for Theorem 2); ``n_blocks`` defaults to
    ``ceil(4 ln(1/p) / epsilon1)`` (at most ``n``). Any of them may be set; the certificate is
    recomputed and must not exceed ``epsilon``. Theory (``alpha`` given): the parameters of
    :func:`corollary1_setting` or :func:`theorem2_setting`, refusing a sample below their ``n``.
    The notes warn that Theorem 2's constants need about ``10^7`` samples or more; its practical
    mode works at any ``n`` but then its certificate is the direct one, and it is not expected
    to beat Corollary 1 there.

    Parameters
    ----------
    hypotheses : HypothesisClass
    epsilon : float
        Per-query privacy budget, finite and > 0.
    method : {"corollary1", "theorem2"}
    alpha : float, optional
        Accuracy target of the theory mode.
    flip_probability : float, optional
        In ``(0, 1/2]``; rounded up to the sampled value (a multiple of ``2^-62``).
    subsample_size : int, optional
    inner_epsilon : float, optional
        ``epsilon0`` (corollary1) or ``epsilon1`` (theorem2).
    n_blocks : int, optional
        Blocks of the realizable learner (theorem2 only).
    accountant : Accountant, optional
        Charged ``len(X) * epsilon_`` by every :meth:`predict`.
    rng : None, int or Generator, optional

    Attributes
    ----------
    epsilon_ : float
        The certified per-query epsilon.
    certificate_ : Theorem2Certificate or None
        For ``theorem2``, how ``epsilon_`` was obtained.
    flip_probability_ : float
        The exact flip probability sampled.
    subsample_size_, inner_epsilon_, n_blocks_ : int, float, int
    queries_answered_ : int
    privacy_spent_ : Budget
        ``queries_answered_ * epsilon_`` (what this predictor released, by basic composition).

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.hypotheses import Thresholds
    >>> from privlearn.prediction import PrivatePredictor
    >>> g = np.random.default_rng(0)
    >>> X = g.random(5000); y = (X > 0.4) ^ (g.random(5000) < 0.1)
    >>> clf = PrivatePredictor(Thresholds(), epsilon=1.0, rng=0).fit(X, y)  # seeded: not private
    >>> clf.epsilon_ <= 1.0
    True
    >>> labels = clf.predict(np.linspace(0, 1, 100))     # charges 100 * epsilon_
    >>> clf.privacy_spent_.epsilon <= 100.0
    True
    """

    def __init__(
        self,
        hypotheses: HypothesisClass,
        epsilon: float,
        *,
        method: str = "corollary1",
        alpha: Optional[float] = None,
        flip_probability: Optional[float] = None,
        subsample_size: Optional[int] = None,
        inner_epsilon: Optional[float] = None,
        n_blocks: Optional[int] = None,
        accountant: Optional[Accountant] = None,
        rng: Any = None,
    ) -> None:
        self.hypotheses = hypotheses
        self.epsilon = epsilon
        self.method = method
        self.alpha = alpha
        self.flip_probability = flip_probability
        self.subsample_size = subsample_size
        self.inner_epsilon = inner_epsilon
        self.n_blocks = n_blocks
        self.accountant = accountant
        self.rng = rng

    # -- parameter resolution ------------------------------------------------------------------

    def _resolve(self, n: int) -> Dict[str, Any]:
        eps = check_epsilon(self.epsilon)
        check_choice(self.method, "method", ("corollary1", "theorem2"))
        check_accountant(self.accountant)
        if self.n_blocks is not None and self.method != "theorem2":
            raise InvalidParameterError(
                "n_blocks: only the 'theorem2' method has blocks", "n_blocks"
            )
        if self.alpha is not None:
            return self._resolve_theory(n, eps)
        h = self.hypotheses
        p = th._flip_probability(
            self.flip_probability
            if self.flip_probability is not None
            else th.default_flip_probability(h, n, eps),
            "flip_probability",
        )
        scale = 1.0 if self.method == "corollary1" else 2.0  # inner epsilon of the direct route
        if self.subsample_size is not None:
            m = check_integer(self.subsample_size, "subsample_size")
            if m > n:
                raise InvalidParameterError(
                    f"subsample_size: must be at most n = {n}, got {m}", "subsample_size"
                )
        else:
            m = th.max_subset(n, eps, p)
            if m < 1:
                raise InvalidParameterError(
                    f"X: with n = {n}, epsilon = {eps} and flip_probability = {float(p):.3g} the "
                    "flip pays for no subset at all; give more data or a larger flip_probability",
                    "X",
                )
        if self.inner_epsilon is not None:
            inner = check_epsilon(self.inner_epsilon, "inner_epsilon")
        else:
            best = th.max_inner_epsilon(n, m, eps, p)
            if best is None:
                raise InvalidParameterError(
                    f"subsample_size: {m} of {n} examples is too large a subset for epsilon = "
                    f"{eps} with flip_probability = {float(p):.3g}",
                    "subsample_size",
                )
            inner = best / scale
        params: Dict[str, Any] = {"p": p, "m": m, "inner": inner}
        if self.method == "theorem2":
            k = self.n_blocks
            if k is None:
                k = max(1, min(n, math.ceil(4 * math.log(1 / float(p)) / inner)))
            k = check_integer(k, "n_blocks")
            if k > n:
                raise InvalidParameterError(
                    f"n_blocks: must be at most n = {n}, got {k}", "n_blocks"
                )
            params["k"] = k
        return self._certify(n, eps, params)

    def _resolve_theory(self, n: int, eps: float) -> Dict[str, Any]:
        for name in ("flip_probability", "subsample_size", "inner_epsilon", "n_blocks"):
            if getattr(self, name) is not None:
                raise InvalidParameterError(
                    f"{name}: the theory mode (alpha given) sets it itself", name
                )
        h = self.hypotheses
        a = check_probability(self.alpha, "alpha")
        if self.method == "corollary1":
            s = th.corollary1_setting(h, a, eps)
            if n < s.n:
                raise self._too_small(s.n, n)
            gamma = min(1.0, s.alpha * eps / 2)
            m = int(math.floor(gamma * n / 2))
            e0 = th.max_epsilon0(n, m, gamma)
            params: Dict[str, Any] = {
                "p": th._flip_probability(a / 2, "alpha"),
                "m": m,
                "inner": e0,
            }
        else:
            s = th.theorem2_setting(h, a, eps)
            if n < s.n:
                raise self._too_small(s.n, n)
            p = th._flip_probability(a / 2, "alpha")
            q = s.subsample_size / s.n
            at = th._theorem2_at(h, a, eps, n, q, s.inner_epsilon * s.disagreement, p)
            if at is None:  # pragma: no cover - the conditions are monotone in n
                raise InvalidParameterError("X: the theory's conditions fail at this n", "X")
            params = {
                "p": p,
                "m": at.subsample_size,
                "inner": at.inner_epsilon,
                "k": at.n_blocks,
                "t": at.disagreement,
            }
        return self._certify(n, eps, params)

    def _too_small(self, need: int, n: int) -> InvalidParameterError:
        return InvalidParameterError(
            f"X: the theory mode of {self.method} (alpha={self.alpha}, epsilon={self.epsilon}) "
            f"needs n >= {need} examples, got {n}; use alpha=None for the practical mode",
            "X",
        )

    def _certify(self, n: int, eps: float, params: Dict[str, Any]) -> Dict[str, Any]:
        p, m, inner = params["p"], params["m"], params["inner"]
        if self.method == "corollary1":
            cert = None
            e = th.corollary1_epsilon(n, m, inner, p)
        else:
            cert = th.theorem2_epsilon(
                self.hypotheses, n, m, inner, p, disagreement=params.get("t")
            )
            e = cert.epsilon
        if e > eps:
            raise InvalidParameterError(
                f"epsilon: these parameters (subsample_size={m}, inner_epsilon={inner:.6g}, "
                f"flip_probability={float(p):.6g}) certify only epsilon = {e:.6g} > {eps}",
                "epsilon",
            )
        params["epsilon"] = e
        params["certificate"] = cert
        return params

    # -- API -----------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any) -> "PrivatePredictor":
        """Store the sample, fix and certify the parameters (nothing is released); for
        ``theorem2`` draw the block partition (uniformly random, independent of the data)."""
        _core_class(self.hypotheses)
        n = _points(self.hypotheses, X).shape[0]
        if n == 0:
            raise InvalidParameterError("X: must hold at least one example", "X")
        params = self._resolve(n)
        self._fit_data(X, y)
        self.epsilon_ = params["epsilon"]
        self.certificate_ = params["certificate"]
        self.flip_probability_ = float(params["p"])
        self._flip = params["p"]
        self.subsample_size_ = params["m"]
        self.inner_epsilon_ = params["inner"]
        self.n_blocks_ = params.get("k", 0)
        if self.method == "theorem2":
            order = np.random.default_rng(spawn_seeds(self._rng_, 1)[0]).permutation(n)
            block_of = np.empty(n, dtype=np.uint64)
            block_of[order] = np.arange(n, dtype=np.uint64) % self.n_blocks_
            self._block_of = block_of
        self._reset_spending()
        return self

    def predict(self, X: Any) -> np.ndarray:
        """One private label per row of ``X``; charges ``len(X) * epsilon_`` to the accountant
        first (``BudgetExceededError``, with nothing drawn, if it does not fit)."""
        Xq = self._queries(X)
        q = Xq.shape[0]
        label = f"{type(self).__name__}({self.method}).predict: {q} queries"

        def draw() -> np.ndarray:
            if self.method == "corollary1":
                return _core.prediction_stable(
                    *self._sample_args(),
                    Xq,
                    self.subsample_size_,
                    self.inner_epsilon_,
                    _flip_ratio(self._flip),
                    self._rng_,
                )
            return _core.prediction_theorem2(
                *self._sample_args(),
                Xq,
                self.subsample_size_,
                self.inner_epsilon_,
                self._block_of,
                self.n_blocks_,
                _flip_ratio(self._flip),
                self._rng_,
            )

        return self._answer(q, label, draw)


# --------------------------------------------------------------------------------------------
# Subsample and aggregate (baseline)
# --------------------------------------------------------------------------------------------


class _Constant:
    """The teacher of a block whose labels are all equal."""

    def __init__(self, label: int) -> None:
        self.label = label

    def predict(self, X: Any) -> np.ndarray:
        return np.full(len(X), self.label, dtype=np.int64)


class _Abstaining:
    """The teacher of a block on which the base estimator's ``fit`` raised: it votes 0 on every
    query. Raising instead would make whether ``fit`` succeeds depend on the private block."""

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(_num_samples(X), dtype=np.int64)


def _fit_teacher(base: Any, X: Any, y: np.ndarray) -> Any:
    if np.all(y == y[0]):
        return _Constant(int(y[0]))
    try:
        return clone(base).fit(X, y)
    except Exception:  # noqa: BLE001 - any failure on private data becomes a 0-vote teacher
        return _Abstaining()


def _teacher_votes(teacher: Any, X: Any, n_queries: int) -> np.ndarray:
    """Teacher's vote per query: 1 iff it predicts 1. A predict that raises or returns the
    wrong shape votes 0 everywhere (per teacher, so one changed teacher still moves each count
    by at most 1, and whether ``predict`` succeeds never depends on the private blocks)."""
    try:
        v = np.asarray(teacher.predict(X))
    except Exception:  # noqa: BLE001 - see the docstring
        return np.zeros(n_queries, dtype=bool)
    if v.shape != (n_queries,):
        return np.zeros(n_queries, dtype=bool)
    return v == 1


class SubsampleAggregatePredictor(
    PerQueryCharging, SharedCloneMixin, BaseEstimator, ClassifierMixin
):  # type: ignore[misc]
    r"""Subsample-and-aggregate private prediction: the baseline.

    ``n_teachers`` copies of ``base_estimator`` (any scikit-learn classifier) are trained on the
    blocks of a uniformly random partition of the sample (drawn independently of the data), in
    parallel through joblib (``n_jobs``; a Dask or Ray joblib backend scales them out). Each
    query is answered from the teachers' labels ``c`` = number voting 1, out of ``k``:

    * ``aggregation="noisy_vote"``: the exponential mechanism on the counts,
      :math:`\Pr[1] = e^{\varepsilon c/2} / (e^{\varepsilon c/2} + e^{\varepsilon (k-c)/2})`
      (spec/003 §3.0 B3; the aggregator of Dwork and Feldman, COLT 2018): ``epsilon``-private.
    * ``aggregation="randomized_response"``: a uniformly random teacher's label, flipped with
      probability :math:`p = 1/(k(e^\varepsilon - 1) + 2)` (rounded up; raised by relative
      steps of :math:`2^{-40}` if float rounding left the certificate above ``epsilon``), so
      :math:`\Pr[1] = p + (1-2p)c/k` and each answer is
      :math:`\ln(1 + (1-2p)/(kp)) \le \varepsilon`-private (spec/003 §3.0 B2; Dwork and Feldman
      2018, Bassily, Thakurta and Thakkar 2018).

    **Guarantee.** Replacing one example changes one block, hence one teacher and ``c`` by at
    most 1: every answer is an ``epsilon_``-private prediction (replace-one, ``n`` public; the
    partition is data-independent). Labels must be 0/1 (the label set is fixed, not read from the
    data). Sampling is exact. ``q`` answers cost ``q * epsilon_`` (basic composition), charged
    to ``accountant`` before anything is drawn, as the native event
    ``PrivacyEvent.repeated(answer, q)`` (replace-one): ``answer`` is
    ``PrivacyEvent.bounded_range(epsilon_)`` for the noisy vote (one exponential mechanism:
    Durfee and Rogers 2019; ``q epsilon_^2 / 8``-zCDP) and ``PrivacyEvent.pure(epsilon_)``
    for randomized-response aggregation. A block whose labels are all equal gets a
    constant teacher (scikit-learn classifiers refuse one class). The guarantee holds only with
    ``rng=None``. No ``predict_proba``: the vote probabilities are not private (ERRATA 003-1).
    The teachers themselves are **not** private (plain fits on their blocks): they are kept as
    private state (``_teachers``, not a fitted attribute) and only the answers are released. A
    teacher's vote is 1 iff it predicts 1 (any other label votes 0). A teacher whose ``fit`` or
    ``predict`` raises (or whose ``predict`` returns the wrong shape) votes 0 on every query,
    silently: reporting it would reveal something about its block. So whether ``fit`` and
    ``predict`` succeed never depends on the private data; check a ``base_estimator`` on public
    data first if in doubt.

    Parameters
    ----------
    base_estimator : scikit-learn classifier
        Cloned for each teacher. It need **not** be private and no certificate
        (``privacy_guarantee``) is asked of it, unlike the composites of
        :mod:`privlearn.learners`: the guarantee comes from the private aggregation alone (see
        **Guarantee**), so any classifier is accepted.
    n_teachers : int
        ``k``, at most ``n``.
    epsilon : float
        Per-query privacy, finite and > 0.
    aggregation : {"noisy_vote", "randomized_response"}
    accountant : Accountant, optional
    n_jobs : int, optional
        joblib workers for training the teachers.
    rng : None, int or Generator, optional

    Attributes
    ----------
    epsilon_ : float
        The certified per-query epsilon.
    flip_probability_ : float
        ``randomized_response`` only (else 0).
    queries_answered_ : int
    privacy_spent_ : Budget
    """

    def __init__(
        self,
        base_estimator: Any,
        n_teachers: int,
        epsilon: float,
        *,
        aggregation: str = "noisy_vote",
        accountant: Optional[Accountant] = None,
        n_jobs: Optional[int] = None,
        rng: Any = None,
    ) -> None:
        self.base_estimator = base_estimator
        self.n_teachers = n_teachers
        self.epsilon = epsilon
        self.aggregation = aggregation
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.rng = rng

    def fit(self, X: Any, y: Any) -> "SubsampleAggregatePredictor":
        """Train the teachers (nothing is released)."""
        from joblib import Parallel, delayed

        eps = check_epsilon(self.epsilon)
        check_choice(self.aggregation, "aggregation", ("noisy_vote", "randomized_response"))
        check_accountant(self.accountant)
        if not hasattr(self.base_estimator, "fit") or not hasattr(self.base_estimator, "predict"):
            raise InvalidParameterError(
                "base_estimator: must be a scikit-learn classifier (with fit and predict)",
                "base_estimator",
            )
        n = _num_samples(X)
        k = check_integer(self.n_teachers, "n_teachers")
        if k > n:
            raise InvalidParameterError(
                f"n_teachers: must be at most n = {n}, got {k}", "n_teachers"
            )
        yc = _labels(y, n).astype(np.int64)
        check_feature_names(self, X, reset=True)
        if self.aggregation == "randomized_response":
            p = th._flip_probability(min(0.5, 1.0 / (k * math.expm1(eps) + 2)), "epsilon")
            # The float formula can land a rounding error short of the exact flip, certifying
            # an ulp above epsilon: raise the flip (more private) by a relative 2^-40 until the
            # certificate is at most epsilon (it is 0 at p = 1/2, so this ends; from k and
            # epsilon only).
            while th.randomized_response_epsilon(k, p) > eps:
                p = th._flip_probability(
                    min(Fraction(1, 2), p * (1 + Fraction(1, 2**40))), "epsilon"
                )
            self.epsilon_ = th.randomized_response_epsilon(k, p)
            self._flip: Optional[Fraction] = p
            self.flip_probability_ = float(p)
        else:
            self.epsilon_, self._flip, self.flip_probability_ = eps, None, 0.0
        self._rng_ = as_generator(self.rng)
        order = np.random.default_rng(spawn_seeds(self._rng_, 1)[0]).permutation(n)
        blocks: List[np.ndarray] = [np.sort(b) for b in np.array_split(order, k)]
        Xa = X if hasattr(X, "shape") else np.asarray(X)
        # The teachers are non-private (each is a plain fit on its block): private state, never
        # exposed as a fitted attribute; only the aggregated answers of predict are private.
        self._teachers = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_teacher)(self.base_estimator, _rows(Xa, b), yc[b]) for b in blocks
        )
        self.classes_ = np.array([0, 1])
        self.n_samples_ = n
        self._reset_spending()
        return self

    def _answer_event(self) -> PrivacyEvent:
        """One answer's native guarantee: the noisy vote is one exponential mechanism on the
        counts (sensitivity 1), hence ``epsilon_``-bounded-range (Durfee and Rogers, NeurIPS
        2019); randomized-response aggregation is pure ``epsilon_``-DP."""
        if self._flip is None:
            return PrivacyEvent.bounded_range(self.epsilon_)
        return PrivacyEvent.pure(self.epsilon_)

    def _votes(self, X: Any) -> np.ndarray:
        if not hasattr(self, "_teachers"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                "this SubsampleAggregatePredictor is not fitted yet; call fit(X, y) first"
            )
        check_feature_names(self, X, reset=False)
        n_queries = _num_samples(X)
        cols = [_teacher_votes(t, X, n_queries) for t in self._teachers]
        return np.ascontiguousarray(np.column_stack(cols))

    def predict(self, X: Any) -> np.ndarray:
        """One private label per row of ``X``; charges ``len(X) * epsilon_`` first."""
        votes = self._votes(X)
        q = votes.shape[0]
        label = f"SubsampleAggregatePredictor({self.aggregation}).predict: {q} queries"

        def draw() -> np.ndarray:
            if self._flip is None:
                return _core.prediction_noisy_vote(votes, self.epsilon_, self._rng_)
            return _core.prediction_randomized_response(votes, _flip_ratio(self._flip), self._rng_)

        return self._answer(q, label, draw)


def _num_samples(X: Any) -> int:
    return public_n_samples(X, "X", minimum=0)


def _rows(X: Any, idx: np.ndarray) -> Any:
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx]


# --------------------------------------------------------------------------------------------
# Non-private ERM as a scikit-learn classifier (a base for the baseline)
# --------------------------------------------------------------------------------------------


class ERMClassifier(SharedCloneMixin, BaseEstimator, ClassifierMixin):  # type: ignore[misc]
    """Exact empirical risk minimisation over a hypothesis class, as a scikit-learn classifier.

    ``fit`` keeps :meth:`HypothesisClass.erm`'s hypothesis (exact, deterministic tie-breaking);
    ``predict`` evaluates it. **Not private**: a base estimator for
    :class:`SubsampleAggregatePredictor`, whose aggregation makes the answers private.

    Parameters
    ----------
    hypotheses : HypothesisClass
    """

    _shared_params = ("hypotheses",)  # a clone shares the (immutable) class

    def __init__(self, hypotheses: HypothesisClass) -> None:
        self.hypotheses = hypotheses

    def fit(self, X: Any, y: Any) -> "ERMClassifier":
        check_feature_names(self, X, reset=True)
        self.hypothesis_ = self.hypotheses.erm(np.asarray(X), np.asarray(y))
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X: Any) -> np.ndarray:
        check_feature_names(self, X, reset=False)
        return self.hypotheses.predict(self.hypothesis_, np.asarray(X)).astype(np.int64)
