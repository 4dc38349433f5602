r"""Wrappers around the exponential-mechanism ERM of :mod:`privlearn.learners.erm`.

Wang, Lei and Fienberg, "Learning with differential privacy" (JMLR 2016):

* :class:`SubsampledERM`: run a learner on a secret uniformly random subsample (Lemmas 4, 10,
  29 and 34), with the amplified guarantee computed exactly by
  :func:`privlearn.accounting.amplify_by_subsampling` (or Lemma 29's :math:`(0, m/n)` by
  :func:`privlearn.accounting.amplify_any_by_subsampling`).
* :class:`BoostedERM`: high-confidence learning by "boosting the confidence" (Section 5.1,
  Theorem 25): base learners on disjoint parts, a private choice among them on a validation
  part; :func:`boosting_excess_risk_bound` is the theorem's explicit bound.
* :class:`BestSubsetERM`: two-stage best-subset selection for sparse linear models
  (Example 22): a private support, then a private point on that support.

Each takes one total budget, states its guarantee (replace-one neighbours, public ``n``) and
charges its accountant once, before anything is drawn.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, List, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._certified import (
    certified_guarantee,
    check_feature_names,
    compose_parallel,
    public_n_samples,
    require_certified,
)
from .._validate import (
    check_choice,
    check_epsilon,
    check_integer,
    check_positive,
    check_probability,
    check_real,
)
from ..accounting import Budget, amplify_any_by_subsampling, amplify_by_subsampling
from ..accounting._event import PrivacyEvent
from ..accounting._numerics import _float_down
from ..errors import InvalidParameterError
from ..hypotheses import Halfspace
from ..mechanisms import _charged, exponential
from ..random import as_generator
from ._base import PrivateEstimatorMixin
from ._erm_bounds import excess_risk_bound
from ._erm_candidates import MAX_CANDIDATES, LinearModel
from ._erm_inputs import SENSITIVITIES, _features, _sensitivity_factor, _targets
from ._erm_losses import _frac_bits, _quantize, _resolve_loss
from .erm import ExponentialMechanismERM

__all__ = ["SubsampledERM", "BoostedERM", "BestSubsetERM", "boosting_excess_risk_bound"]


def _base_copy(base: Any, **overrides: Any) -> Any:
    """A fresh, unfitted copy of ``base`` with some parameters replaced."""
    if not isinstance(base, BaseEstimator):
        raise InvalidParameterError(
            f"base: must be a scikit-learn style estimator, got {base!r}", "base"
        )
    params = base.get_params(deep=False)
    params.update(overrides)
    return type(base)(**params)


class _Forward:
    """Prediction forwarded to the fitted inner estimator."""

    estimator_: Any

    def _check_fitted(self) -> None:
        if not hasattr(self, "estimator_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _inner_X(self, X: Any) -> np.ndarray:
        # The wrapper's own column names are checked; the inner estimator was fitted on the
        # converted array, so it gets one too.
        check_feature_names(self, X, reset=False)
        return _features(X, n_features=getattr(self, "n_features_in_", None))

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of the released hypothesis."""
        self._check_fitted()
        return self.estimator_.predict(self._inner_X(X))

    def score(self, X: Any, y: Any) -> float:
        """The inner estimator's score on ``(X, y)`` (not private by itself)."""
        self._check_fitted()
        return float(self.estimator_.score(self._inner_X(X), np.asarray(y)))


# --------------------------------------------------------------------------------------------
# Subsampling
# --------------------------------------------------------------------------------------------


class SubsampledERM(_Forward, PrivateEstimatorMixin, BaseEstimator):  # type: ignore[misc]
    r"""Run a learner on a secret, uniformly random subsample of ``m`` of the ``n`` records.

    Wang, Lei and Fienberg (2016): Lemma 4 (``m = floor(sqrt(n))`` makes an
    :math:`\varepsilon`-DP learner :math:`(2/\sqrt n)(e^\varepsilon - e^{-\varepsilon})`-DP),
    Lemma 34 (amplification for sampling without replacement), Lemma 10 (the subsampled
    learner of a consistent :math:`\varepsilon`-DP learner with rate :math:`\xi` is always AERM
    with rate :math:`2\xi(\sqrt n)`) and Lemma 29 (any learner, even a non-private one, becomes
    :math:`(0, m/n)`-DP).

    **Privacy guarantee** (replace-one, public ``n``; the sample is drawn without replacement
    from fresh randomness and never released), by ``accounting``, where
    :math:`(\varepsilon, \delta)` is the base learner's **certified** guarantee on datasets of
    ``m`` records (its :meth:`privacy_guarantee`, read through
    :func:`privlearn._certified.certified_guarantee`; a base without one, such as a
    scikit-learn estimator with an ``epsilon`` loss parameter or an
    :class:`ApproximateGibbsERM` without ``tv_bound``, is refused) and :math:`\gamma = m/n`:

    * ``"bbg"`` (default): :math:`(\ln(1 + \gamma(e^\varepsilon - 1)), \gamma\delta)`-DP
      (Balle, Barthe and Gaboardi 2018, Theorem 9, sampling without replacement, substitution
      relation; tight; never weaker than Lemma 34);
    * ``"lemma34"``: :math:`\ln\frac{1 + \gamma(e^\varepsilon - 1)}{1 + \gamma(e^{-\varepsilon} -
      1)}`-DP; ``"lemma34-relaxed"``: :math:`2\gamma(e^\varepsilon - e^{-\varepsilon})` (rate
      at most 1/2); both for a pure-DP base only (:math:`\delta = 0`);
    * ``"lemma29"``: :math:`(0, m/n)`-DP for **any** ``base``, even a non-private one (nothing
      is asked of the base).

    Computed exactly and rounded up by :func:`privlearn.accounting.amplify_by_subsampling` /
    :func:`~privlearn.accounting.amplify_any_by_subsampling` (:meth:`privacy_guarantee`), and
    charged once, as reported in :attr:`privacy_`. The wrapper implements the same protocol, so
    wrappers nest.

    **Accounting (issue 18).** One mechanism runs once on the subsample: nothing composes, so
    the zCDP, Rényi and bounded-range accountants have nothing to tighten. ``"bbg"`` is tight
    for an :math:`(\varepsilon, \delta)` base (Balle, Barthe and Gaboardi 2018, Theorem 9:
    attained by randomized response); no sharper amplification is claimed for
    bounded-range bases.

    Parameters
    ----------
    base : estimator
        The learner to run (unfitted, no accountant of its own). For the epsilon-based
        accountings a privlearn release with a certified guarantee
        (:class:`privlearn._certified.CertifiedRelease`); for ``"lemma29"`` any scikit-learn
        style estimator.
    m : int, optional
        Subsample size (default ``floor(sqrt(n))``, Lemma 4); at most ``n``.
    accounting : {"bbg", "lemma34", "lemma34-relaxed", "lemma29"}, default "bbg"
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    estimator_ : estimator
        The fitted base learner.
    hypothesis_ : object
        Its hypothesis (if any).
    privacy_ : Budget
    subsample_size_ : int
    """

    def __init__(
        self,
        base: Any = None,
        m: Optional[int] = None,
        *,
        accounting: str = "bbg",
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.base = base
        self.m = m
        self.accounting = accounting
        self.accountant = accountant
        self.rng = rng

    def _check_accounting(self) -> str:
        return check_choice(
            self.accounting, "accounting", ("bbg", "lemma34", "lemma34-relaxed", "lemma29")
        )

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The :math:`(\\varepsilon, \\delta)` guarantee of one fit on ``n_samples`` records
        (replace-one, ``n`` public), from the parameters only: the base's certified guarantee
        on ``m`` records amplified as in the class documentation. This is what :meth:`fit`
        charges and reports as :attr:`privacy_`.

        Raises
        ------
        InvalidParameterError
            On bad parameters, or a base that certifies no guarantee (except with
            ``accounting="lemma29"``).
        """
        n = check_integer(n_samples, "n_samples", 1)
        accounting = self._check_accounting()
        m = self._size(n)
        if accounting == "lemma29":
            return amplify_any_by_subsampling(m / n, n=n)
        inner = certified_guarantee(self.base, m, "base")
        return amplify_by_subsampling(inner, m / n, n=n, method=accounting)

    def guarantee(self, n: int) -> Budget:
        """Alias of :meth:`privacy_guarantee` (kept for existing callers)."""
        return self.privacy_guarantee(n)

    def _size(self, n: int) -> int:
        if self.m is None:
            return max(1, math.isqrt(n))
        m = check_integer(self.m, "m", 1)
        if m > n:
            raise InvalidParameterError(
                f"m: the subsample size must be at most n = {n}, got {m}", "m"
            )
        return m

    def fit(self, X: Any, y: Any) -> "SubsampledERM":
        """Fit the base learner on a uniformly random subsample of ``(X, y)``, charging
        :meth:`privacy_guarantee` once (an uncertified base is refused before the data are
        read)."""
        if self._check_accounting() != "lemma29":
            require_certified(self.base, "base")
        _base_copy(self.base)  # a scikit-learn style estimator, before the data
        budget = self.privacy_guarantee(public_n_samples(X))  # from n alone, before the data
        check_feature_names(self, X, reset=True)
        Xa = _features(X)
        ya = np.asarray(y)
        if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
            raise InvalidParameterError(f"y: must have shape ({Xa.shape[0]},), got {ya.shape}", "y")
        n = Xa.shape[0]
        m = self._size(n)
        params = self.base.get_params(deep=False)
        gen = as_generator(self.rng)
        overrides = {
            key: value for key, value in (("rng", gen), ("accountant", None)) if key in params
        }

        def run() -> Any:
            idx = _core.sample_indices(n, m, False, gen)  # a uniform m-subset (sorted)
            return _base_copy(self.base, **overrides).fit(Xa[idx], ya[idx])

        self.estimator_ = _charged(
            self.accountant, budget.epsilon, budget.delta, "subsampled ERM", run
        )
        if hasattr(self.estimator_, "hypothesis_"):
            self.hypothesis_ = self.estimator_.hypothesis_
        self.privacy_ = budget
        self.subsample_size_ = m
        self.n_features_in_ = Xa.shape[1]
        return self


# --------------------------------------------------------------------------------------------
# Boosting the confidence
# --------------------------------------------------------------------------------------------


def _boosting_parts(delta: float) -> int:
    """``a = ceil(ln(3/delta))``, the number of base runs (at least 1)."""
    return max(1, math.ceil(math.log(3.0 / delta)))


def boosting_excess_risk_bound(
    n: int, delta: float, base_rate: float, selection_epsilon: float, *, loss_bound: float = 1.0
) -> float:
    r"""Theorem 25's explicit high-probability bound (with ERRATA A4's factor 2).

    With :math:`a = \lceil\ln(3/\delta)\rceil`, validation size :math:`v = \lfloor n/(a+1)
    \rfloor`, :math:`\eta = \ln(3/\delta)/\ln n` and :math:`\delta_1 = \delta/3`, the boosted
    hypothesis satisfies, with probability at least :math:`1 - \delta`,

    .. math:: R(h) - R^* \le e\,\xi + 2B\sqrt{\frac{\ln(2a/\delta_1)}{2v}}
              + \frac{8 B (a+1)(\eta\ln n + \ln a)}{\varepsilon_{sel}\, n},

    where :math:`\xi` (``base_rate``) bounds the base learner's expected excess population
    risk on a part (Markov: each base hypothesis is within :math:`e\xi` with probability at
    least :math:`1 - 1/e`; all :math:`a` fail with probability :math:`e^{-a} \le \delta/3`),
    the middle term is Hoeffding on the validation part for the chosen and the best base
    hypothesis (two deviations, A4; union bound over :math:`2a` events at :math:`\delta_1`),
    and the last is the exponential mechanism's tail at probability :math:`n^{-\eta} =
    \delta/3` with the paper's sensitivity :math:`2(a+1)B/n` (the paper's constant 8).
    """
    n = check_integer(n, "n", 2)
    if not (isinstance(delta, float) or isinstance(delta, int)) or not 0.0 < float(delta) < 1.0:
        raise InvalidParameterError(f"delta: must be in (0, 1), got {delta!r}", "delta")
    delta = float(delta)
    xi = check_real(base_rate, "base_rate", 0.0)
    eps_sel = check_epsilon(selection_epsilon)
    B = check_positive(loss_bound, "loss_bound")
    a = _boosting_parts(delta)
    v = n // (a + 1)
    if v < 1:
        raise InvalidParameterError(f"n: must be at least a + 1 = {a + 1} for delta = {delta}", "n")
    eta = math.log(3.0 / delta) / math.log(n)
    d1 = delta / 3.0
    dev = 2.0 * B * math.sqrt(math.log(2.0 * a / d1) / (2.0 * v))
    em = 8.0 * B * (a + 1) * (eta * math.log(n) + math.log(a)) / (eps_sel * n)
    return math.e * xi + dev + em


class BoostedERM(_Forward, PrivateEstimatorMixin, BaseEstimator):  # type: ignore[misc]
    r"""High-confidence private learning by boosting the confidence (Theorem 25).

    With :math:`a = \lceil\ln(3/\delta)\rceil`, a uniformly random partition of the ``n``
    records into :math:`a + 1` parts of sizes :math:`\lfloor n/(a+1)\rfloor` or
    :math:`\lceil n/(a+1)\rceil`; the base learner runs on each of the first :math:`a` parts
    (each run calibrated to its own part size), and the exponential mechanism picks one of the
    :math:`a` hypotheses with utility :math:`q(h_j) = -\frac{a+1}{n}\sum_{i \in I_{a+1}}
    \ell(h_j, z_i)` on the validation part (sensitivity :math:`2(a+1)B/n`, the paper's, or
    :math:`(a+1)B/n` in the base's ``"tight"`` mode; scores quantised exactly as in
    :class:`ExponentialMechanismERM`).

    **Privacy guarantee.** The parts are disjoint and the partition is independent of the data,
    so replacing one record changes one part only: by parallel composition
    (:func:`privlearn._certified.compose_parallel`) the learner is
    :math:`(\max(\varepsilon_A, \varepsilon_{sel}), \delta_A)`-DP (replace-one, public
    ``n``), where :math:`(\varepsilon_A, \delta_A)` is the largest of the base learner's
    certified guarantees (its :meth:`privacy_guarantee`) on the actual part sizes (ERRATA A3:
    the maximum is over the actual parts; pure for :class:`ExponentialMechanismERM`, so
    :math:`\delta_A = 0`) and :math:`\varepsilon_{sel}` the selection's (pure). That total
    (:meth:`privacy_guarantee`) is charged once and reported as :attr:`privacy_`. The base
    hypotheses (:attr:`estimators_`) are covered by the same guarantee.

    **Accounting (issue 18).** No record is read by two mechanisms (the base runs and the
    selection see disjoint parts), so nothing composes sequentially: parallel composition is
    exact (the worst record lies in the part with the largest guarantee) and the zCDP, Rényi
    and bounded-range accountants cannot tighten it.

    **Utility.** With probability at least :math:`1 - \delta`, the excess population risk is at
    most :func:`boosting_excess_risk_bound`.

    Parameters
    ----------
    base : ExponentialMechanismERM
        The base learner (unfitted, no accountant).
    delta : float
        Failure probability, in (0, 1).
    selection_epsilon : None, float or "paper"
        :math:`\varepsilon_{sel}`: default the base's epsilon (so the total is the base's);
        ``"paper"`` is :math:`(\ln(3/\delta) + 1)/\sqrt n` (unrounded, as reported).
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    estimators_ : list
        The fitted base learners.
    selected_ : int
    estimator_ : estimator
        The selected one.
    hypothesis_ : object
    n_parts_ : int
        :math:`a + 1`.
    part_sizes_ : list of int
    privacy_ : Budget
    selection_epsilon_ : float
    """

    def __init__(
        self,
        base: Any = None,
        delta: float = 0.05,
        *,
        selection_epsilon: Any = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.base = base
        self.delta = delta
        self.selection_epsilon = selection_epsilon
        self.accountant = accountant
        self.rng = rng

    def _check_base(self) -> None:
        require_certified(self.base, "base")
        if not isinstance(self.base, ExponentialMechanismERM):
            raise InvalidParameterError(
                "base: must be an ExponentialMechanismERM (the selection scores its losses)", "base"
            )

    def _settings(self, n: int) -> Tuple[int, Budget, float]:
        """``(a, base guarantee on the parts, selection epsilon)``; no data."""
        if (
            isinstance(self.delta, bool)
            or not isinstance(self.delta, (int, float))
            or not 0.0 < float(self.delta) < 1.0
        ):
            raise InvalidParameterError(f"delta: must be in (0, 1), got {self.delta!r}", "delta")
        self._check_base()
        a = _boosting_parts(float(self.delta))
        if n < a + 1:
            raise InvalidParameterError(
                f"X: boosting with delta = {self.delta} needs at least a + 1 = {a + 1} records "
                f"(one per part), got {n}",
                "X",
            )
        # np.array_split(perm, a + 1): the first n % (a + 1) parts have one record more.
        q, r = divmod(n, a + 1)
        sizes = sorted({q + (1 if i < r else 0) for i in range(a)})
        base = compose_parallel(certified_guarantee(self.base, size, "base") for size in sizes)
        sel = self.selection_epsilon
        if sel is None:
            eps_sel = base.epsilon
        elif sel == "paper":
            eps_sel = (math.log(3.0 / float(self.delta)) + 1.0) / math.sqrt(n)
        else:
            eps_sel = check_positive(sel, "selection_epsilon")
        return a, base, eps_sel

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The :math:`(\\varepsilon, \\delta)` guarantee of one fit on ``n_samples`` records
        (replace-one, ``n`` public), from the parameters only: the parallel composition of the
        base's certified guarantees on the parts and of the selection (see the class
        documentation). This is what :meth:`fit` charges and reports as :attr:`privacy_`."""
        _, base, eps_sel = self._settings(check_integer(n_samples, "n_samples", 1))
        return compose_parallel([base, Budget(eps_sel)])

    def guarantee(self, n: int) -> Budget:
        """Alias of :meth:`privacy_guarantee` (kept for existing callers)."""
        return self.privacy_guarantee(n)

    def fit(self, X: Any, y: Any) -> "BoostedERM":
        """Fit the base learner on ``a`` parts and choose among them privately."""
        self._check_base()  # an uncertified base is refused before the data are read
        budget = self.privacy_guarantee(public_n_samples(X))
        base = self.base
        check_feature_names(self, X, reset=True)
        Xa = _features(X)
        n = Xa.shape[0]
        a, _, eps_sel = self._settings(n)
        loss = _resolve_loss(base.loss, base.loss_bound)
        ya = _targets(y, n, loss.classification)
        mode = check_choice(base.sensitivity, "sensitivity", SENSITIVITIES)
        base._setup()  # validates the base's parameters before anything is drawn
        gen = as_generator(self.rng)

        def run() -> Tuple[List[Any], int, List[int]]:
            perm = _core.permutation(n, gen)
            parts = np.array_split(perm, a + 1)
            fitted = [
                _base_copy(base, rng=gen, accountant=None).fit(Xa[p], ya[p]) for p in parts[:a]
            ]
            val = parts[a]
            k = _frac_bits(len(val), loss.name == "zero_one")
            scores = np.array(
                [
                    -int(_quantize(est.losses(Xa[val], ya[val]), loss.bound, k).sum())
                    for est in fitted
                ],
                dtype=np.int64,
            )
            sens = float(_sensitivity_factor(mode) * (1 << k))
            j = int(exponential(scores, eps_sel, sens, rng=gen))
            return fitted, j, [len(p) for p in parts]

        fitted, j, sizes = _charged(
            self.accountant, budget.epsilon, budget.delta, "boosted ERM", run
        )
        self.estimators_ = fitted
        self.selected_ = j
        self.estimator_ = fitted[j]
        self.hypothesis_ = fitted[j].hypothesis_
        self.n_parts_ = a + 1
        self.part_sizes_ = sizes
        self.selection_epsilon_ = eps_sel
        self.privacy_ = budget
        self.n_features_in_ = Xa.shape[1]
        return self


# --------------------------------------------------------------------------------------------
# Two-stage best-subset selection
# --------------------------------------------------------------------------------------------


class BestSubsetERM(PrivateEstimatorMixin, BaseEstimator):  # type: ignore[misc]
    r"""Sparse linear models by two-stage best-subset selection (Example 22).

    :math:`H = \{w \in \mathbb{R}^d : \|w\|_0 \le s, \|w\|_2 \le R\}`. Stage 1 chooses a
    support :math:`S` (one of the :math:`\binom{d}{s}` subsets of size ``s``) by the exponential
    mechanism with utility :math:`u(S) = -\min_{w \in H_S} F(Z, w)`; stage 2 chooses
    :math:`w \in H_S` by the exponential mechanism with utility :math:`-F(Z, w)`. Here
    :math:`H_S` is the data-independent grid of :math:`w` supported on :math:`S` with
    coordinates in ``linspace(-R, R, num)`` and :math:`\|w\|_2 \le R` (ERRATA A6), so the inner
    minimum of stage 1 is computed **exactly** (over integer scores): an inexact convex solve
    would void the sensitivity bound (notes §6). A minimum of :math:`\Delta`-sensitive
    utilities is :math:`\Delta`-sensitive, so both stages use the same sensitivity.

    **Privacy guarantee.** ``epsilon``-DP (replace-one, public ``n``): stage 1 spends
    ``split * epsilon`` and stage 2 the rest (basic composition; the paper leaves the split
    open, the notes use 1/2). Charged once, as the native event
    ``PrivacyEvent.composed([bounded_range(eps1), bounded_range(eps2)], budget=Budget(epsilon))``
    (each stage is one exponential mechanism, hence bounded-range: Durfee and Rogers 2019): a
    basic accountant charges ``Budget(epsilon)``, a zCDP one ``(eps1^2 + eps2^2) / 8``.

    **Utility** (Example 22): excess :math:`O((s \ln d + \ln n)/(n\varepsilon_1))` in stage 1
    and :math:`O((s\ln L + s\ln n)/(n \varepsilon_2))` in stage 2: logarithmic in ``d``.

    Parameters
    ----------
    loss : str
        As for :class:`ExponentialMechanismERM` (a core loss).
    epsilon : float
    sparsity : int
        ``s`` (1 <= s <= d).
    radius : float, default 1.0
    num : int, default 11
        Grid points per coordinate.
    loss_bound : float, optional
    sensitivity : {"paper", "tight"}, default "paper"
    split : float, default 0.5
        Fraction of epsilon for stage 1.
    accountant, rng : optional

    Attributes
    ----------
    support_ : tuple of int
    coef_ : numpy.ndarray of shape (d,)
    hypothesis_ : object
    privacy_ : Budget
    """

    def __init__(
        self,
        loss: str = "clipped_squared",
        epsilon: float = 1.0,
        sparsity: int = 1,
        *,
        radius: float = 1.0,
        num: int = 11,
        loss_bound: Optional[float] = None,
        sensitivity: str = "paper",
        split: float = 0.5,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.sparsity = sparsity
        self.radius = radius
        self.num = num
        self.loss_bound = loss_bound
        self.sensitivity = sensitivity
        self.split = split
        self.accountant = accountant
        self.rng = rng

    def _grid(self, s: int) -> np.ndarray:
        R = check_positive(self.radius, "radius")
        num = check_integer(self.num, "num", 2)
        axis = np.linspace(-R, R, num)
        mesh = np.meshgrid(*([axis] * s), indexing="ij")
        pts = np.stack([m.ravel() for m in mesh], axis=1)
        return pts[np.sum(pts * pts, axis=1) <= R * R * (1 + 1e-12)]

    def candidates(self, d: int) -> Tuple[List[Tuple[int, ...]], np.ndarray]:
        """The supports and the ``(C(d, s) * G, d)`` candidate matrix (data-independent;
        support ``k`` owns rows ``k * G`` to ``(k + 1) * G``)."""
        s = check_integer(self.sparsity, "sparsity", 1)
        if s > d:
            raise InvalidParameterError(f"sparsity: must be at most d = {d}, got {s}", "sparsity")
        supports = list(itertools.combinations(range(d), s))
        grid = self._grid(s)
        total = len(supports) * grid.shape[0]
        if total > MAX_CANDIDATES:
            raise InvalidParameterError(
                f"num: {len(supports)} supports x {grid.shape[0]} grid points = {total} candidates, "
                f"more than {MAX_CANDIDATES}",
                "num",
            )
        coef = np.zeros((total, d))
        for k, S in enumerate(supports):
            coef[k * grid.shape[0] : (k + 1) * grid.shape[0], list(S)] = grid
        return supports, coef

    def _setup(self) -> Tuple[float, str, float, Any]:
        eps = check_epsilon(self.epsilon)
        mode = check_choice(self.sensitivity, "sensitivity", SENSITIVITIES)
        split = check_probability(self.split, "split")
        if _float_down(Fraction(eps) * Fraction(split)) <= 0.0:
            # stage 1's epsilon (rounded down, see fit) would be 0: refused here, before the
            # data are read, naming split (stage 2's, eps - eps1 > 0, never rounds to 0)
            raise InvalidParameterError(
                f"split: epsilon * split rounds to 0 (epsilon = {eps!r}, split = {split!r})",
                "split",
            )
        loss = _resolve_loss(self.loss, self.loss_bound)
        if loss.fn is not None:
            raise InvalidParameterError("loss: BestSubsetERM needs a built-in loss", "loss")
        return eps, mode, split, loss

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """``Budget(epsilon)``: the pure guarantee of one fit on ``n_samples`` records
        (replace-one, ``n`` public; basic composition of the two stages), from the parameters
        only. This is what :meth:`fit` charges and reports as :attr:`privacy_`."""
        check_integer(n_samples, "n_samples", 1)
        eps, _, split, _ = self._setup()
        return Budget(eps, 0.0)

    def _stage_scores(
        self, X: Any, y: Any
    ) -> Tuple[List[Tuple[int, ...]], np.ndarray, np.ndarray, float]:
        """The supports, the candidate matrix, the integer utilities ``(supports, G)`` of every
        grid point of every support, and their sensitivity. Reads the data; not private."""
        _, mode, _, loss = self._setup()
        Xa = _features(X)
        n, d = Xa.shape
        ya = _targets(y, n, loss.classification)
        supports, coef = self.candidates(d)
        G = coef.shape[0] // len(supports)
        k = _frac_bits(n, loss.name == "zero_one")
        totals = _core.erm_linear_risks(
            coef, np.zeros(coef.shape[0]), Xa, ya.astype(np.float64), loss.core, loss.bound, k
        )
        scores = -np.asarray(totals, dtype=np.int64).reshape(len(supports), G)
        return supports, coef, scores, float(_sensitivity_factor(mode) * (1 << k))

    def fit(self, X: Any, y: Any) -> "BestSubsetERM":
        """Choose a support and a sparse model privately."""
        eps, mode, split, loss = self._setup()
        check_feature_names(self, X, reset=True)
        supports, coef, scores, sens = self._stage_scores(X, y)
        n, d = np.shape(X)[0], coef.shape[1]
        G = scores.shape[1]
        # Basic composition: the two stages' epsilons, rounded down, add up to at most eps
        # exactly (eps * split + eps * (1 - split) in floats can exceed eps by one ulp).
        eps1 = _float_down(Fraction(eps) * Fraction(split))
        eps2 = _float_down(Fraction(eps) - Fraction(eps1))
        gen = as_generator(self.rng)

        def run() -> Tuple[int, int]:
            best = scores.max(axis=1)  # u(S) = -min F over the grid of S, exactly
            s_idx = int(exponential(best, eps1, sens, rng=gen))
            w_idx = int(exponential(scores[s_idx], eps2, sens, rng=gen))
            return s_idx, w_idx

        budget = self.privacy_guarantee(n)
        s_idx, w_idx = _charged(
            self.accountant,
            budget.epsilon,
            budget.delta,
            "best-subset ERM",
            run,
            # Two exponential mechanisms: eps1- and eps2-bounded-range, declared budget(eps).
            event=lambda: PrivacyEvent.composed(
                [PrivacyEvent.bounded_range(eps1), PrivacyEvent.bounded_range(eps2)],
                budget=budget,
            ),
        )
        self.support_ = supports[s_idx]
        self.coef_ = coef[s_idx * G + w_idx].copy()
        w = tuple(float(v) for v in self.coef_)
        self.hypothesis_ = Halfspace(w, 0.0) if loss.classification else LinearModel(w, 0.0)
        self.privacy_ = budget
        self.n_features_in_ = d
        # Stage 1 is within 2Δ(ln C(d,s) + 1)/ε1 of the best support's minimum, stage 2 within
        # 2Δ(ln G + 1)/ε2 of the chosen support's minimum (both in expectation).
        quant = (
            0.0
            if loss.name == "zero_one"
            else 2.0 * loss.bound * (1.0 + 1.0 / n) / 2.0 ** _frac_bits(n, False)
        )
        self.excess_risk_bound_ = (
            excess_risk_bound(n, eps1, len(supports), loss_bound=loss.bound, sensitivity=mode)
            + excess_risk_bound(n, eps2, G, loss_bound=loss.bound, sensitivity=mode)
            + quant
        )
        self._loss_ = loss
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``1[w . x >= 0]`` (classification losses) or ``w . x``."""
        if not hasattr(self, "coef_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this BestSubsetERM is not fitted yet; call fit first")
        check_feature_names(self, X, reset=False)
        Xa = _features(X, n_features=self.n_features_in_)
        if self._loss_.classification:
            return _core.halfspace_predict([*self.coef_, 0.0], Xa).astype(np.int64)
        return Xa @ self.coef_
