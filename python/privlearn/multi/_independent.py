"""The basic strategy: one private learner per concept (seed 002, Observation 3.2).

:class:`IndependentMultiLearner` runs a :class:`~privlearn.multi.SingleConceptLearner` on each
label column with the budget :func:`~privlearn.multi.per_concept_budget` gives, so its sample
size grows like ``k`` (basic composition) or about ``sqrt(k)`` (advanced, optimal or
bounded-range composition); by default the tightest composition valid for the base learner.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

import numpy as np

from ..accounting import Accountant, Budget
from ..accounting._event import PrivacyEvent
from ..hypotheses import HypothesisClass, Parities, Points
from ..random import Generator, RngLike
from ._base import _MultiLearner
from ._budget import _resolve
from ._hypotheses import Hypothesis, _grouped
from ._inputs import _error
from ._single import (
    ExponentialLearner,
    SingleConceptLearner,
    StableParityLearner,
    StablePointLearner,
)


class IndependentMultiLearner(_MultiLearner):
    r"""The basic strategy: a private learner per concept, the total budget split by composition
    (Bun, Nissim and Stemmer, Observation 3.2; Corollaries 3.3 and 3.4).

    Runs ``base`` on each label column ``Y[:, j]`` with the budget :func:`per_concept_budget`
    gives (``"basic"``: ``epsilon/k`` each; ``"advanced"``: about ``epsilon / sqrt(2k ln(2/delta))``
    each when that is small, with ``delta/(2k)`` per concept and ``delta/2`` of slack;
    ``"optimal"``: the largest that Kairouz, Oh and Viswanath's optimal composition (ICML 2015,
    Theorem 3.3) fits in the total, same deltas; ``"bounded-range"``: the largest that the
    adaptive composition of bounded-range mechanisms fits (Durfee and Rogers, NeurIPS 2019;
    Dong, Durfee and Rogers, ICML 2020), for an exponential-mechanism base only). So the
    sample size grows like ``k`` (basic) or about ``sqrt(k)`` (the others) times the base
    learner's. At ``k = 1000`` and ``(1, 1e-6)`` an :class:`ExponentialLearner` runs with
    ``0.01397`` per concept by bounded-range composition, against ``0.001`` (basic),
    ``0.0058`` (advanced) and ``0.0075`` (optimal).

    ``composition="auto"`` (the default) takes the tightest valid one: ``"bounded-range"`` when
    the base learner certifies that each concept's run is one exponential mechanism
    (:attr:`SingleConceptLearner.bounded_range`: :class:`ExponentialLearner`, and a
    :class:`~privlearn.hypotheses.HypothesisClass` given as ``base``), ``"optimal"`` for any
    other base learner, and ``"basic"`` when ``k = 1``, when ``delta = 0`` (a pure total, for
    which basic composition is optimal) or when the tighter split is not better (see
    :func:`per_concept_budget`). It is a safe default: every theorem it picks from holds for
    adaptively chosen mechanisms and the base learner's certified guarantee, the choice depends
    on public parameters only (``epsilon``, ``delta``, ``k``, the base learner's type), and
    with ``delta = 0`` it is exactly the former default, basic composition.

    **Privacy:** ``privacy_`` = the composed total of the ``k`` per-concept budgets by the
    composition used (``composition_``): :func:`~privlearn.accounting.compose_basic`,
    :func:`~privlearn.accounting.compose_advanced`,
    :func:`~privlearn.accounting.compose_optimal` or
    :func:`~privlearn.accounting._bounded_range.compose_bounded_range` of them, each rounded up;
    at most ``(epsilon, delta)``, for replace-one neighbours (a row's example and all its
    labels), since each concept's run is DP with respect to the whole row. It is what the
    accountant is charged, once, as the native event ``PrivacyEvent.repeated(run, k,
    budget=privacy_)`` (:meth:`_native_event`: ``run`` is ``per_concept_.epsilon``-bounded-range
    for an exponential-mechanism base, pure for another pure base): a basic accountant charges
    ``privacy_``, a zCDP accountant ``k per_concept_.epsilon^2 / 8`` for an exponential base.

    Parameters
    ----------
    base : SingleConceptLearner or HypothesisClass
        The learner of one concept (a class stands for :class:`ExponentialLearner` over its
        default finite candidates). The guarantee composes the per-concept budgets this learner
        hands to ``base``, so ``base`` must certify that it is ``(epsilon, delta)``-DP for the
        budget it is given: the contract of :class:`SingleConceptLearner` (whose
        :attr:`~SingleConceptLearner.pure` declares whether it uses ``delta``). Anything else
        (a scikit-learn estimator, a learner with an ``epsilon`` attribute of its own) is
        refused before the data are read.
    epsilon : float
        Total epsilon.
    delta : float, default 0.0
        Total delta (``> 0`` for advanced composition or an approximate base learner; with
        ``0`` every composition is basic composition).
    composition : {"auto", "basic", "advanced", "optimal", "bounded-range"}, default "auto"
        ``"bounded-range"`` is refused (:class:`~privlearn.errors.InvalidParameterError`, before
        the data are read) for a base learner that is not an exponential mechanism.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list
    per_concept_ : Budget
        The budget each concept's learner ran with.
    composition_ : str
        The composition used (``"auto"`` resolved).
    privacy_ : Budget
    """

    _params = ("base", "epsilon", "delta", "composition", "accountant", "rng")
    _label = "IndependentMultiLearner"
    _guarantee_needs_k = True

    def __init__(
        self,
        base: Union[SingleConceptLearner, HypothesisClass],
        epsilon: float,
        delta: float = 0.0,
        *,
        composition: str = "auto",
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.base = base
        self.epsilon = epsilon
        self.delta = delta
        self.composition = composition
        self.accountant = accountant
        self.rng = rng

    def _base(self) -> SingleConceptLearner:
        if isinstance(self.base, SingleConceptLearner):
            return self.base
        if isinstance(self.base, HypothesisClass):
            return ExponentialLearner(self.base)
        raise _error(
            "base",
            "must be a SingleConceptLearner (a learner certified (epsilon, delta)-DP for the budget "
            f"it is given) or a HypothesisClass, got {type(self.base).__name__}, which certifies no "
            "privacy guarantee",
        )

    @property
    def hypothesis_class(self) -> Optional[HypothesisClass]:
        """The base learner's hypothesis class, when it has one."""
        base = self._base()
        if isinstance(base, ExponentialLearner):
            return base.hypothesis_class
        if isinstance(base, StableParityLearner):
            return Parities(base.dim)
        return (
            Points(getattr(self, "n_features_in_", 1))
            if isinstance(base, StablePointLearner)
            else None
        )

    def _check_X(self, X: Any) -> np.ndarray:
        return self._base().check_X(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        base = self._base()
        bounded_range = bool(getattr(type(base), "bounded_range", False))
        pure = bool(base.pure)
        if bounded_range and not pure:
            raise _error(
                "base",
                f"{type(base).__name__} declares bounded_range = True but pure = False: a "
                "bounded-range (exponential) mechanism is pure epsilon-DP",
            )
        name, per, total = _resolve(
            self.epsilon, self.delta, k, self.composition, pure, bounded_range
        )
        self.per_concept_ = per
        self.composition_ = name
        return total

    _has_native_event = True

    def _native_event(self, k: int, budget: Budget) -> PrivacyEvent:
        """The ``k`` per-concept runs as one event: each run is ``per_concept_.epsilon``-bounded-
        range for a base that certifies :attr:`SingleConceptLearner.bounded_range` (Durfee and
        Rogers, NeurIPS 2019), else pure ``per_concept_.epsilon``-DP for a pure base, else
        ``per_concept_``-DP; repeated ``k`` times (adaptively), with ``privacy_`` (the
        composition theorem's total) as the declared budget."""
        base = self._base()
        per = self.per_concept_
        if bool(getattr(type(base), "bounded_range", False)):
            one = PrivacyEvent.bounded_range(per.epsilon)
        elif bool(base.pure):
            one = PrivacyEvent.pure(per.epsilon)
        else:
            one = PrivacyEvent.approx(per.epsilon, per.delta)
        return PrivacyEvent.repeated(one, k, budget=budget)

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        per = self.per_concept_
        return self._base().learn_columns(X, Y, per.epsilon, per.delta, gen)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        base = self._base()
        return _grouped(self.hypotheses_, lambda h: base.predict(h, X), X.shape[0])
