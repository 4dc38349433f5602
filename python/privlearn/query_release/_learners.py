"""Base learners of subsample-and-aggregate: the ERM oracles of :mod:`privlearn.hypotheses` or
any scikit-learn classifier, trained on disjoint sub-samples, and the votes of the ensemble.

Internal module of :mod:`privlearn.query_release`.
"""

from __future__ import annotations

import copy
from typing import Any, List, Sequence

import numpy as np

from .. import _core
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass, Thresholds, _labels, _Real


def check_labels(y: Any, n: int) -> np.ndarray:
    """Labels 0/1 (or booleans) of shape ``(n,)`` as booleans."""
    return _labels(y, n)


class Voter:
    """A trained ensemble: ``votes(X)`` counts, for each row, the members that output 1."""

    k: int

    def votes(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


class Learner:
    """A base learner ``B_PAC`` with the validation of its inputs."""

    def check_X(self, X: Any, name: str = "X") -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def check_query(self, x: Any) -> np.ndarray:
        """One query point as a one-row input of :meth:`check_X`."""
        a = np.asarray(x)
        try:
            return self.check_X(a[None, ...], "x")
        except InvalidParameterError as err:
            raise InvalidParameterError(f"x: not a valid query point ({err})", "x") from None

    def fit_ensemble(self, X: np.ndarray, y: np.ndarray, blocks: Sequence[np.ndarray]) -> Voter:
        raise NotImplementedError  # pragma: no cover - interface


def _renamed(err: InvalidParameterError, name: str) -> InvalidParameterError:
    msg = str(err)
    if name != "X" and msg.startswith("X:"):
        msg = name + msg[1:]
    return InvalidParameterError(msg, name)


# --------------------------------------------------------------------------------------------
# Hypothesis classes: exact ERM oracles
# --------------------------------------------------------------------------------------------


class _CoreVoter(Voter):
    """Members of a class with real parameters: votes counted in Rust (sorted fast paths)."""

    def __init__(self, inner: "_core.HypothesisEnsemble", k: int) -> None:
        self._inner = inner
        self.k = k

    def votes(self, X: np.ndarray) -> np.ndarray:
        return self._inner.votes(np.ascontiguousarray(X, dtype=np.float64))


class _PredictVoter(Voter):
    """Members of any class: votes summed from the class's ``predict``."""

    def __init__(self, cls: HypothesisClass, members: List[Any]) -> None:
        self._cls = cls
        self._members = members
        self.k = len(members)

    def votes(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros(X.shape[0], dtype=np.int64)
        for h in self._members:
            out += self._cls._predict(h, X)
        return out


class ClassLearner(Learner):
    """The exact ERM oracle of a :class:`~privlearn.hypotheses.HypothesisClass`."""

    def __init__(self, cls: HypothesisClass) -> None:
        self.cls = cls

    def check_X(self, X: Any, name: str = "X") -> np.ndarray:
        try:
            return self.cls._check_X(X)
        except InvalidParameterError as err:
            raise _renamed(err, name) from None

    def fit_ensemble(self, X: np.ndarray, y: np.ndarray, blocks: Sequence[np.ndarray]) -> Voter:
        cls = self.cls
        sizes = {len(b) for b in blocks}
        if isinstance(cls, Thresholds) and len(sizes) == 1:
            # the same ERMs as cls.erm, from prefix counts (O(s log s) per block), in parallel
            order = np.ascontiguousarray(np.concatenate(blocks), dtype=np.int64)
            params = _core.threshold_erm_blocks(
                np.ascontiguousarray(X[:, 0]),
                np.ascontiguousarray(y),
                order,
                sizes.pop(),
                cls.orientation,
            )
            return _CoreVoter(_core.HypothesisEnsemble(cls._spec(), params), len(blocks))
        if isinstance(cls, _Real):
            spec = cls._spec()
            rows = [
                _core.dichotomy_erm(
                    spec, np.ascontiguousarray(X[b]), np.ascontiguousarray(y[b]), None
                )[1]
                for b in blocks
            ]
            params = np.asarray(rows, dtype=np.float64).reshape(len(blocks), -1)
            return _CoreVoter(
                _core.HypothesisEnsemble(spec, np.ascontiguousarray(params)), len(blocks)
            )
        members = [cls._erm(X[b], np.ascontiguousarray(y[b]), None) for b in blocks]
        return _PredictVoter(cls, members)


# --------------------------------------------------------------------------------------------
# scikit-learn classifiers
# --------------------------------------------------------------------------------------------


class _Constant:
    """The predictor of a sub-sample with a single label (classifiers refuse to fit it)."""

    def __init__(self, label: bool) -> None:
        self.label = label

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.label, dtype=bool)


class _EstimatorVoter(Voter):
    def __init__(self, members: List[Any]) -> None:
        self._members = members
        self.k = len(members)

    def votes(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros(X.shape[0], dtype=np.int64)
        for est in self._members:
            # A member votes 1 iff it predicts 1 (any other label, a predict that raises or
            # returns a wrong shape: 0): a per-member map, so one changed sub-sample still moves
            # a count by at most 1, and whether an answer succeeds never depends on what the
            # members (fitted on the data) do.
            try:
                p = np.asarray(est.predict(X))
            except Exception:  # noqa: BLE001 - see above
                continue
            if p.shape == (X.shape[0],):
                out += p == 1
        return out


def _clone(est: Any) -> Any:
    try:
        from sklearn.base import clone
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return copy.deepcopy(est)
    try:
        return clone(est)
    except Exception:  # not a scikit-learn estimator: an unfitted copy
        return copy.deepcopy(est)


class EstimatorLearner(Learner):
    """A scikit-learn classifier (anything with ``fit(X, y)`` and ``predict(X)``), cloned
    unfitted for every sub-sample. A member whose ``fit`` or ``predict`` raises on its
    sub-sample (or predicts a wrong shape) votes 0, silently: raising would make whether a
    release succeeds depend on the private data."""

    def __init__(self, estimator: Any) -> None:
        self.estimator = estimator
        self.n_features: int = -1

    def check_X(self, X: Any, name: str = "X") -> np.ndarray:
        a = np.asarray(X)
        if a.dtype.kind not in "biuf":
            raise InvalidParameterError(f"{name}: must hold numbers, got dtype {a.dtype}", name)
        a = a.astype(np.float64)
        if a.ndim != 2:
            raise InvalidParameterError(
                f"{name}: must have shape (n, n_features), got {a.shape}", name
            )
        if not np.all(np.isfinite(a)):
            raise InvalidParameterError(
                f"{name}: must hold finite numbers (no NaN or infinity)", name
            )
        if self.n_features >= 0 and a.shape[1] != self.n_features:
            raise InvalidParameterError(
                f"{name}: must have {self.n_features} features, got shape {a.shape}", name
            )
        return a

    def check_query(self, x: Any) -> np.ndarray:
        a = np.asarray(x)
        if a.ndim == 0 and self.n_features == 1:
            a = a.reshape(1)  # one feature: a number is a point
        return super().check_query(a)

    def fit_ensemble(self, X: np.ndarray, y: np.ndarray, blocks: Sequence[np.ndarray]) -> Voter:
        self.n_features = X.shape[1]
        members: List[Any] = []
        for b in blocks:
            yb = y[b]
            if yb.all() or not yb.any():
                members.append(_Constant(bool(yb[0])))
                continue
            est = _clone(self.estimator)
            try:
                est.fit(X[b], yb.astype(np.int64))
            except Exception:  # noqa: BLE001 - a fit failing on private data votes 0
                est = _Constant(False)
            members.append(est)
        return _EstimatorVoter(members)


def as_learner(learner: Any) -> Learner:
    """A :class:`Learner` for a hypothesis class or a classifier."""
    if isinstance(learner, HypothesisClass):
        return ClassLearner(learner)
    if callable(getattr(learner, "fit", None)) and callable(getattr(learner, "predict", None)):
        return EstimatorLearner(learner)
    raise InvalidParameterError(
        "learner: must be a privlearn.hypotheses class (its exact ERM is the base learner) or a "
        f"classifier with fit(X, y) and predict(X) (e.g. scikit-learn), got {learner!r}",
        "learner",
    )
