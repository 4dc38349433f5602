"""The machinery every multi-concept learner shares (seed 002).

``_MultiLearner`` holds the scikit-learn style parameters, the validation of ``X`` and of the
label matrix ``Y`` before anything is charged or drawn, the one charge per fit of the composed
guarantee (``privacy_``), :meth:`~_MultiLearner.privacy_guarantee` from the parameters alone,
and prediction and per-concept errors. Each learner supplies its input check, budget, learning
step and predictions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np

from .._certified import SharedCloneMixin, check_feature_names
from .._validate import check_integer
from ..accounting import Accountant, Budget
from ..errors import InvalidParameterError
from ..mechanisms import _charged
from ..random import Generator, RngLike, as_generator
from ._hypotheses import Hypothesis
from ._inputs import _check_rows, _error, _label_matrix

if TYPE_CHECKING:  # pragma: no cover
    from ..accounting._event import PrivacyEvent


class _MultiLearner(SharedCloneMixin):
    """Shared machinery: parameters (scikit-learn style), validation, one charge per fit.
    :func:`sklearn.base.clone` shares the accountant and the generator
    (:class:`~privlearn._certified.SharedCloneMixin`)."""

    _params: Tuple[str, ...] = ()
    _label = "multi-learner"

    accountant: Optional[Accountant]
    rng: RngLike
    _hypotheses: Optional[List[Hypothesis]]
    privacy_: Optional[Budget]
    n_concepts_: int
    n_features_in_: int

    # -- parameters -------------------------------------------------------------------------

    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        """The constructor parameters (scikit-learn convention)."""
        return {name: getattr(self, name) for name in self._params}

    def set_params(self, **params: Any) -> "_MultiLearner":
        """Set constructor parameters (validated at the next :meth:`fit`)."""
        for name, value in params.items():
            if name not in self._params:
                raise _error(
                    name, f"is not a parameter of {type(self).__name__} ({', '.join(self._params)})"
                )
            setattr(self, name, value)
        return self

    def _clone(self, **overrides: Any) -> "_MultiLearner":
        params = self.get_params()
        params.update(overrides)
        return type(self)(**params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- fitting ----------------------------------------------------------------------------

    def _check_X(self, X: Any) -> np.ndarray:  # pragma: no cover - every learner overrides
        raise NotImplementedError

    def _budget(self, k: int, n: int) -> Optional[Budget]:  # pragma: no cover
        raise NotImplementedError

    def _learn(
        self, X: np.ndarray, Y: np.ndarray, gen: Generator
    ) -> Optional[List[Hypothesis]]:  # pragma: no cover
        """The hypotheses, or ``None`` when :meth:`_build_hypotheses` makes them on demand."""
        raise NotImplementedError

    def _build_hypotheses(self) -> List[Hypothesis]:  # pragma: no cover
        raise NotImplementedError

    #: Whether the composed guarantee depends on the number of concepts ``k`` (a per-concept
    #: budget composed ``k`` times): then :meth:`privacy_guarantee` needs ``n_concepts``.
    _guarantee_needs_k = False

    def privacy_guarantee(self, n_samples: int, n_concepts: Optional[int] = None) -> Budget:
        """The :math:`(\\varepsilon, \\delta)` guarantee of one fit on ``n_samples`` rows with
        ``n_concepts`` label columns (replace-one neighbours: one row's example and all its
        labels; ``n`` and ``k`` public), from the parameters only: what :meth:`fit` charges and
        reports as :attr:`privacy_` (:class:`privlearn._certified.CertifiedRelease`).

        ``n_concepts`` may be omitted when the guarantee does not depend on ``k``
        (:class:`ParityMultiLearner`, :class:`PointMultiLearner`); the composite learners
        (:class:`IndependentMultiLearner`, :class:`SanitizerMultiLearner`) need it.

        Raises
        ------
        InvalidParameterError
            On bad parameters, a missing ``n_concepts`` where it matters, or a learner that is
            not differentially private (:class:`NonPrivateMultiLearner`).
        """
        n = check_integer(n_samples, "n_samples", 1)
        if n_concepts is None:
            if self._guarantee_needs_k:
                raise _error(
                    "n_concepts",
                    f"the guarantee of {type(self).__name__} composes one budget per concept: "
                    "pass the number of concepts k",
                )
            k = 1
        else:
            k = check_integer(n_concepts, "n_concepts", 1)
        budget = self._clone()._budget(k, n)  # on a copy: _budget stores per-concept splits
        if budget is None:
            raise InvalidParameterError(
                f"{type(self).__name__}: not differentially private; it certifies no privacy "
                "guarantee"
            )
        return budget

    @property
    def hypotheses_(self) -> List[Hypothesis]:
        """The ``k`` hypotheses, one per concept (after :meth:`fit`)."""
        if "_hypotheses" not in self.__dict__:
            raise AttributeError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, Y) first"
            )
        if self._hypotheses is None:
            self._hypotheses = self._build_hypotheses()
        return self._hypotheses

    #: Whether :meth:`_native_event` is defined (else the fit charges its ``Budget``).
    _has_native_event = False

    def _native_event(self, k: int, budget: Budget) -> "PrivacyEvent":  # pragma: no cover
        """The fit's guarantee in its native form (a
        :class:`~privlearn.accounting._event.PrivacyEvent` whose ``budget`` is ``budget``), for
        the learners that know one (``_has_native_event``)."""
        raise NotImplementedError

    def _charged_fit(
        self, X: np.ndarray, Y: np.ndarray, budget: Optional[Budget]
    ) -> Optional[List[Hypothesis]]:
        if budget is None:
            return self._learn(X, Y, as_generator(self.rng))
        k = int(Y.shape[1])
        return _charged(
            self.accountant,
            budget.epsilon,
            budget.delta,
            self._label,
            lambda: self._learn(X, Y, as_generator(self.rng)),
            event=(lambda: self._native_event(k, budget)) if self._has_native_event else None,
        )

    def fit(self, X: Any, Y: Any) -> "_MultiLearner":
        """Learn ``k`` concepts from examples ``X`` and labels ``Y`` of shape ``(n, k)``.

        Everything is validated before any randomness is drawn or budget charged; the
        accountant (if any) is charged the guarantee :attr:`privacy_` once, and a spend that
        does not fit raises :class:`~privlearn.BudgetExceededError` with nothing computed.

        Returns
        -------
        self
        """
        check_feature_names(self, X, reset=True)
        Xc = self._check_X(X)
        _check_rows(Xc.shape[0])
        Yc = _label_matrix(Y, Xc.shape[0])
        k = Yc.shape[1]
        budget = self._budget(k, Xc.shape[0])
        hyps = self._charged_fit(Xc, Yc, budget)
        self._hypotheses = hyps
        self.privacy_ = budget
        self.n_concepts_ = k
        self.n_features_in_ = 1 if Xc.ndim == 1 else int(Xc.shape[1])
        return self

    def _fitted(self) -> None:
        if "_hypotheses" not in self.__dict__:
            raise _error(
                "self", f"this {type(self).__name__} is not fitted yet; call fit(X, Y) first"
            )

    def _predict(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of the ``k`` hypotheses: a boolean array of shape ``(m, k)`` (column
        ``j`` is concept ``j``). Post-processing: no privacy cost."""
        self._fitted()
        check_feature_names(self, X, reset=False)
        return self._predict(self._check_X(X))

    def errors(self, X: Any, Y: Any) -> np.ndarray:
        """The fraction of examples each hypothesis gets wrong: shape ``(k,)`` (empirical error
        per concept)."""
        pred = self.predict(X)
        Yc = _label_matrix(Y, pred.shape[0])
        if Yc.shape[1] != pred.shape[1]:
            raise _error(
                "Y", f"must have {pred.shape[1]} columns (one per concept), got {Yc.shape[1]}"
            )
        return np.mean(pred != Yc, axis=0)
