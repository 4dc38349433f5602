"""Audits of randomised predictors (seed 003): empirical uniform stability
(:func:`audit_prediction_stability`) and empirical private prediction
(:func:`audit_prediction_privacy`), from repeated predictions at each query on two
neighbouring samples, with Clopper--Pearson bounds Bonferroni-corrected over the queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_integer, check_probability
from ..errors import InvalidParameterError
from ._claims import _claim
from ._intervals import _cp_lower, _cp_upper, _log_ratio_bound
from ._results import AuditResult, Event


@dataclass(frozen=True)
class StabilityAuditResult:
    """Outcome of :func:`audit_prediction_stability`.

    Attributes
    ----------
    bound : float
        Lower confidence bound (confidence ``1 - alpha``) on the largest change, over the
        queries, of the probability of answering 1; ``0.0`` when nothing is significant.
    estimate : float
        The largest observed difference of the frequencies of 1 (a point estimate).
    claimed : float
        The claimed uniform stability ``gamma``.
    passed : bool
        ``bound <= claimed``: the samples do not refute the claim.
    n : int
        Predictions per query and side.
    query : int
        Index of the query attaining the bound (``-1`` when the bound is 0).
    alpha : float
    """

    bound: float
    estimate: float
    claimed: float
    passed: bool
    n: int
    query: int
    alpha: float

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        return (
            f"stability audit {verdict}: gamma >= {self.bound:.4f} with confidence 1 - "
            f"{self.alpha:g} (claim {self.claimed:g}; largest observed difference "
            f"{self.estimate:.4f}; n = {self.n} per query and side)"
        )


def _prediction_counts(predictor: Any, X: Any, n: int, name: str) -> np.ndarray:
    """Number of 1s among ``n`` predictions of ``predictor`` at each query (row of ``X``)."""
    predict = getattr(predictor, "predict", predictor)
    if not callable(predict):
        raise InvalidParameterError(f"{name}: must have a predict method or be callable", name)
    Xa = np.asarray(X)
    if Xa.ndim == 0 or Xa.shape[0] == 0:
        raise InvalidParameterError("X: must hold at least one query (first axis)", "X")
    counts = np.empty(Xa.shape[0], dtype=np.int64)
    for j in range(Xa.shape[0]):
        out = np.asarray(predict(np.repeat(Xa[j : j + 1], n, axis=0)))
        if out.shape != (n,) or not np.all((out == 0) | (out == 1)):
            raise InvalidParameterError(
                f"{name}: must return {n} labels 0/1 for {n} queries, got shape {out.shape}", name
            )
        counts[j] = int(np.count_nonzero(out))
    return counts


def audit_prediction_stability(
    predictor_a: Any,
    predictor_b: Any,
    X: Any,
    claimed: float,
    *,
    n: int = 100_000,
    alpha: float = 1e-3,
) -> StabilityAuditResult:
    r"""Empirical uniform stability of a randomised predictor on two neighbouring samples.

    A predictor is :math:`\gamma`-uniformly stable (Dagan and Feldman, COLT 2020, §2) when for
    every pair of samples that differ in one example and every query ``x``,
    :math:`|\Pr[A(S,x)=1] - \Pr[A(\tilde S,x)=1]| \le \gamma`. This draws ``n`` predictions at
    each query on each side (``predictor_a`` fitted on ``S``, ``predictor_b`` on a neighbour) and
    bounds the largest change from below with Clopper-Pearson bounds, Bonferroni-corrected over
    the ``4 len(X)`` one-sided bounds: the result exceeds the true largest change over these
    queries with probability at most ``alpha``. A bound above ``claimed`` refutes the claim.

    Choose neighbours that move the predictor most (replace an example next to a query, flip a
    label in a sparse region); the audit only tests the pair and the queries it is given.

    Parameters
    ----------
    predictor_a, predictor_b : fitted predictor or callable
        Objects with ``predict(X)`` (or callables) returning one fresh label 0/1 per row, each
        call drawing fresh randomness (privlearn's predictors do). A predictor with an
        ``accountant`` is charged for every prediction: audit copies without one.
    X : array_like
        The queries (first axis).
    claimed : float
        The claimed ``gamma``.
    n : int, default 100_000
        Predictions per query and side.
    alpha : float, default 1e-3

    Returns
    -------
    StabilityAuditResult
    """
    n = check_integer(n, "n", 1)
    alpha = check_probability(alpha, "alpha")
    ka = _prediction_counts(predictor_a, X, n, "predictor_a")
    kb = _prediction_counts(predictor_b, X, n, "predictor_b")
    a = alpha / (4 * len(ka))
    nn = np.full(len(ka), n)
    diffs = np.maximum(
        _cp_lower(ka, nn, a) - _cp_upper(kb, nn, a), _cp_lower(kb, nn, a) - _cp_upper(ka, nn, a)
    )
    j = int(np.argmax(diffs))
    bound = max(0.0, float(diffs[j]))
    return StabilityAuditResult(
        bound=bound,
        estimate=float(np.max(np.abs(ka - kb)) / n),
        claimed=float(claimed),
        passed=bool(bound <= float(claimed)),
        n=n,
        query=j if bound > 0 else -1,
        alpha=alpha,
    )


def audit_prediction_privacy(
    predictor_a: Any,
    predictor_b: Any,
    X: Any,
    claimed: Any,
    *,
    n: int = 100_000,
    alpha: float = 1e-3,
) -> AuditResult:
    r"""Empirical private prediction: an epsilon lower bound from predictions on neighbours.

    A predictor gives :math:`(\varepsilon, \delta)`-private prediction (Dwork and Feldman,
    COLT 2018; Dagan and Feldman, COLT 2020, §2) when for every pair of samples that differ in
    one example, every query ``x`` and both labels ``y``,
    :math:`\Pr[A(S,x)=y] \le e^{\varepsilon}\Pr[A(\tilde S,x)=y] + \delta`. This draws ``n``
    predictions at each query on each side and, for each query, label and direction, computes
    the Clopper-Pearson bound :math:`\ln((lo(P_a(y)) - \delta)/hi(P_b(y)))`, Bonferroni-corrected
    over the ``8 len(X)`` one-sided bounds; the largest is a lower confidence bound on epsilon
    (confidence ``1 - alpha``). Each query's answer is one release: this audits the per-query
    guarantee, not the composition of several answers.

    Parameters
    ----------
    predictor_a, predictor_b : fitted predictor or callable
        As in :func:`audit_prediction_stability`.
    X : array_like
        The queries.
    claimed : Budget, (epsilon, delta) or float
        The per-query claim.
    n : int, default 100_000
    alpha : float, default 1e-3

    Returns
    -------
    AuditResult
        Its ``event`` names the query and the label that attained the bound.
    """
    eps, delta = _claim(claimed)
    n = check_integer(n, "n", 1)
    alpha = check_probability(alpha, "alpha")
    ka = _prediction_counts(predictor_a, X, n, "predictor_a")
    kb = _prediction_counts(predictor_b, X, n, "predictor_b")
    a = alpha / (8 * len(ka))
    best, event = 0.0, None
    for label in (1, 0):
        ca, cb = (ka, kb) if label == 1 else (n - ka, n - kb)
        for num, (cn, cd) in (("a", (ca, cb)), ("b", (cb, ca))):
            b = _log_ratio_bound(cn, n, cd, n, a, delta)
            j = int(np.argmax(b))
            if b[j] > best:
                best = float(b[j])
                count_a, count_b = (
                    (int(cn[j]), int(cd[j])) if num == "a" else (int(cd[j]), int(cn[j]))
                )
                event = Event(f"query {j} answered {label}", num, count_a, count_b, n, n, best)
    return AuditResult(
        bound=best,
        claimed_epsilon=eps,
        claimed_delta=delta,
        passed=bool(best <= eps),
        n=n,
        event=event,
        alpha=alpha,
    )
