"""The audit driver: drawing the samples of a mechanism on two neighbouring inputs (vectorised
or one output per call, from two seeded child generators), projecting them with a statistic or
a learned distinguisher, and comparing a lower bound (epsilon, delta or mu) with the claim
(:func:`audit`)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .._validate import check_choice, check_integer, check_probability
from ..errors import InvalidParameterError
from ..random import RngLike, as_generator, spawn_seeds
from ._claims import _Claim, _parse_claim
from ._engine import (
    EventsArg,
    _delta_objective,
    _engine_bound,
    _epsilon_objective,
    _mu_objective,
    _Objective,
)
from ._results import AuditResult
from ._samples import _hashable, _object_array
from ._tradeoff import tradeoff_curve

_METHODS = ("auto", "epsilon", "hockey-stick", "tradeoff")


def _resolve_method(method: Any, claim: _Claim) -> str:
    """The method ``"auto"`` stands for, checked against the claim (before any drawing)."""
    method = check_choice(method, "method", _METHODS)
    if method == "auto":
        return {"pure": "epsilon", "approx": "hockey-stick", "gdp": "tradeoff"}[claim.kind]
    if claim.kind == "gdp" and method != "tradeoff":
        raise InvalidParameterError(
            f"method: a GaussianDP claim is audited with method='tradeoff' (or 'auto'), got "
            f"{method!r}",
            "method",
        )
    return method


def _objective(method: str, claim: _Claim) -> _Objective:
    if method == "epsilon":
        return _epsilon_objective(claim.delta)
    if claim.kind == "gdp":
        return _mu_objective()
    return _delta_objective(claim.epsilon)


def _distinguisher_api() -> Tuple[Callable[..., Any], Callable[..., Any]]:
    try:
        from ._distinguisher import check_distinguisher, learned_scores
    except ImportError as exc:  # pragma: no cover - until the module lands
        raise InvalidParameterError(
            f"distinguisher: learned distinguishers are not available in this build ({exc})",
            "distinguisher",
        ) from None
    return check_distinguisher, learned_scores


def _takes_size(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get("size")
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def _draw(
    fn: Callable[..., Any], gen: np.random.Generator, n: int, vectorized: bool, name: str
) -> np.ndarray:
    if vectorized:
        out = fn(gen, size=n)
        try:
            arr = np.asarray(out)
        except ValueError:
            arr = _object_array([_hashable(v) for v in out])
        if arr.ndim == 0 or arr.shape[0] != n:
            raise InvalidParameterError(
                f"{name}: called with size={n} it must return {n} outputs (first axis), got shape {arr.shape}",
                name,
            )
        return arr
    outs = [fn(gen) for _ in range(n)]
    try:
        arr = np.asarray(outs)
        if arr.dtype == object:
            raise ValueError
    except ValueError:
        arr = _object_array([_hashable(v) for v in outs])
    return arr


def audit(
    run_a: Callable[..., Any],
    run_b: Callable[..., Any],
    claimed: Any,
    *,
    n: int = 1_000_000,
    statistic: Optional[Callable[[np.ndarray], Any]] = None,
    alpha: float = 1e-3,
    events: EventsArg = "auto",
    rng: RngLike = None,
    vectorized: Optional[bool] = None,
    method: str = "auto",
    distinguisher: Any = None,
) -> AuditResult:
    r"""Audit a privacy claim by running a mechanism on two neighbouring inputs.

    Draws ``n`` outputs on each side and computes a lower confidence bound on a privacy
    parameter, by ``method``: :func:`epsilon_lower_bound` (at the claimed delta),
    :func:`delta_lower_bound` (at the claimed epsilon) or :func:`mu_lower_bound`. The claim is
    refuted (``passed=False``) when the bound exceeds the claimed value; a correct mechanism is
    refuted with probability at most ``alpha``.

    Choose neighbours that make the privacy loss large: extreme values within the declared
    bounds, scores that move in opposite directions, queries near a threshold. An audit only
    tests the pair it is given.

    Parameters
    ----------
    run_a, run_b : callable
        ``run_a(g)`` returns one output of the mechanism on input ``a`` (``run_b`` on ``b``),
        drawing its randomness from ``g``, a :class:`numpy.random.Generator`. **Vectorised
        form:** if the callable has a ``size`` parameter, it is called once as
        ``run_a(g, size=n)`` and must return ``n`` outputs (the first axis), which makes
        10^6 samples per side fast. A privlearn mechanism takes ``g`` as its ``rng`` (it keys
        its own generator from ``g``, see :mod:`privlearn.random`), e.g.
        ``exponential(scores, eps, size=size, rng=g)``.
        Outputs: real or discrete scalars, vectors, or any hashable value.
    claimed : Budget, (epsilon, delta), float or GaussianDP
        The claim: any object with ``.epsilon`` and ``.delta`` (such as
        ``privlearn.accounting.Budget``), a tuple, a number (``delta = 0``), or a
        :class:`GaussianDP` ``mu``.
    n : int, default 1_000_000
        Samples per side (>= 2).
    statistic : callable, optional
        Projection of vector outputs: called once with the array of the ``n`` outputs (first
        axis = samples) and returning ``n`` scalars (or ``n`` integer vectors, each a discrete
        value), e.g. ``lambda y: y.sum(axis=1)``. Without it, scalar outputs are used as they
        are, and **vectors of integers or booleans are discrete values** (each distinct vector
        is an output); real vectors are an error.
    alpha : float, default 1e-3
        False-positive rate of the audit: the probability that a correct mechanism fails.
    events : "auto", callable or sequence, default "auto"
        The event family, as in :func:`epsilon_lower_bound` (callables receive the projected
        outputs).
    rng : None, int or Generator, optional
        See :mod:`privlearn.random`. Two child seeds (:func:`~privlearn.random.spawn_seeds`)
        seed the :class:`numpy.random.Generator`\ s passed to ``run_a`` and ``run_b``, so a
        seeded audit is reproducible.
    vectorized : bool, optional
        Force the vectorised (``True``) or one-output-per-call (``False``) form; by default it
        is detected from a ``size`` parameter.
    method : {"auto", "epsilon", "hockey-stick", "tradeoff"}, default "auto"
        * ``"epsilon"``: the bound is on epsilon at the claimed delta
          (:func:`epsilon_lower_bound`); ``passed`` is ``bound <= claimed epsilon``.
        * ``"hockey-stick"``: the bound is on delta at the claimed epsilon
          (:func:`delta_lower_bound`: events chosen and evaluated by
          ``lo P_a(S) - e^eps hi P_b(S)``); ``passed`` is ``bound <= claimed delta``. At the
          same event, ``bound > delta`` exactly when the epsilon bound at ``delta`` exceeds
          ``epsilon``: the two verdicts differ only through the events the selection prefers.
        * ``"tradeoff"``: also computes the :class:`TradeoffCurve` of the (scalar) outputs or
          scores (:func:`tradeoff_curve`, with its own confidence ``1 - alpha``) for the
          report; the verdict is the hockey-stick one for ``(epsilon, delta)`` claims and
          :func:`mu_lower_bound`'s (``bound <= mu``) for :class:`GaussianDP` claims.
        * ``"auto"``: ``"epsilon"`` for pure claims, ``"hockey-stick"`` for ``delta > 0``,
          ``"tradeoff"`` for :class:`GaussianDP`.
    distinguisher : None, "logistic", "boosting", "kde" or a scikit-learn classifier
        A learned event family for vector and structured outputs (DP-Sniper, Bichsel et al.,
        S&P 2021): a classifier (an unfitted scikit-learn estimator is cloned) is trained on the
        first half of each side's outputs (after ``statistic``, if any), and the audit runs on
        its scores on the other halves, which it never saw (so about ``n / 2`` samples per side
        are audited; the scalar engine then splits them again). Real vector outputs need no
        statistic then. The result records the distinguisher's description.

    Returns
    -------
    AuditResult
        The bound and what it bounds (``quantity``), the claim, ``passed``, ``n``, the event
        attaining the bound, ``alpha``, the ``method``, and the trade-off band and the
        distinguisher when used.

    Raises
    ------
    InvalidParameterError
        On a bad claim, ``n < 2``, ``alpha`` outside (0, 1), an unknown ``method`` (or one that
        does not fit the claim) or ``distinguisher``, sampling functions returning the wrong
        number of outputs, real vector outputs without a statistic or distinguisher, or
        ``method="tradeoff"`` on outputs that are not scalar numbers. Nothing is drawn when the
        parameters are invalid.

    Examples
    --------
    >>> from privlearn.audit import audit
    >>> def laplace(center):  # the Laplace mechanism, epsilon = 1, on the value `center`
    ...     return lambda g, size: center + g.laplace(0.0, 1.0, size=size)
    >>> res = audit(laplace(0.0), laplace(1.0), claimed=1.0, n=200_000, rng=0)
    >>> res.passed, 0.9 < res.bound <= 1.0
    (True, True)
    >>> audit(laplace(0.0), laplace(2.0), claimed=1.0, n=200_000, rng=0).passed
    False

    A Gaussian-DP claim: ``N(0, 1)`` against ``N(1, 1)`` is 1-GDP, not 0.5-GDP.

    >>> from privlearn.audit import GaussianDP
    >>> def gauss(center):
    ...     return lambda g, size: center + g.normal(0.0, 1.0, size=size)
    >>> res = audit(gauss(0.0), gauss(1.0), GaussianDP(1.0), n=200_000, rng=0)
    >>> res.quantity, res.passed, res.tradeoff.worst_violation(GaussianDP(1.0)) <= 0
    ('mu', True, True)
    >>> audit(gauss(0.0), gauss(1.0), GaussianDP(0.5), n=200_000, rng=0).passed
    False
    """
    claim = _parse_claim(claimed)
    n = check_integer(n, "n", 2)
    alpha = check_probability(alpha, "alpha")
    method = _resolve_method(method, claim)
    for name, fn in (("run_a", run_a), ("run_b", run_b)):
        if not callable(fn):
            raise InvalidParameterError(f"{name}: must be callable, got {type(fn).__name__}", name)
    if statistic is not None and not callable(statistic):
        raise InvalidParameterError(
            f"statistic: must be callable or None, got {type(statistic).__name__}", "statistic"
        )
    if isinstance(events, str) and events != "auto":
        raise InvalidParameterError(
            f"events: must be 'auto', a callable or a sequence, got {events!r}", "events"
        )
    spec, learned_scores = None, None
    if distinguisher is not None:
        check_distinguisher, learned_scores = _distinguisher_api()
        spec = check_distinguisher(distinguisher)
    gen = as_generator(rng)
    # the first two seeds are those of audits without a distinguisher (random_raw's prefix)
    seeds = spawn_seeds(gen, 2 if spec is None else 3)
    samples = []
    for name, fn, seed in (("run_a", run_a, seeds[0]), ("run_b", run_b, seeds[1])):
        vec = _takes_size(fn) if vectorized is None else bool(vectorized)
        arr = _draw(fn, np.random.default_rng(seed), n, vec, name)
        if statistic is not None:
            y = statistic(arr)
            try:
                arr = np.asarray(y)
            except ValueError:
                arr = _object_array([_hashable(v) for v in y])
            if arr.ndim == 0 or arr.shape[0] != n:
                raise InvalidParameterError(
                    f"statistic: must map the {n} outputs to {n} values (first axis), got shape {arr.shape}",
                    "statistic",
                )
        if spec is None and isinstance(events, str) and arr.ndim >= 2 and arr.dtype.kind == "f":
            raise InvalidParameterError(
                f"statistic: {name} returns real vectors (shape {arr.shape[1:]}); pass a statistic "
                f"projecting them to scalars, e.g. statistic=lambda y: y.sum(axis=1), or a "
                f"distinguisher",
                "statistic",
            )
        samples.append(arr)
    described = None
    if spec is not None:
        assert learned_scores is not None
        xa, xb, described = learned_scores(
            samples[0], samples[1], spec, np.random.default_rng(seeds[2])
        )
        samples = [np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)]
    curve = None
    if method == "tradeoff":
        for name, arr in zip(("run_a", "run_b"), samples):
            if arr.ndim != 1 or arr.dtype.kind not in "biuf":
                raise InvalidParameterError(
                    f"method: the trade-off curve needs scalar numeric outputs, but {name} gives "
                    f"{arr.dtype} outputs of shape {arr.shape[1:]}; pass a statistic projecting "
                    f"them to numbers or a distinguisher",
                    "method",
                )
        curve = tradeoff_curve(samples[0], samples[1], alpha=alpha)
    objective = _objective(method, claim)
    bound, event = _engine_bound(samples[0], samples[1], alpha, objective, events)
    claimed_value = {"epsilon": claim.epsilon, "delta": claim.delta}.get(
        objective.quantity, claim.mu
    )
    assert claimed_value is not None
    return AuditResult(
        bound=bound,
        claimed_epsilon=claim.epsilon,
        claimed_delta=claim.delta,
        passed=bool(bound <= claimed_value),
        n=n,
        event=event,
        alpha=alpha,
        quantity=objective.quantity,
        method=method,
        claimed_mu=claim.mu,
        tradeoff=curve,
        distinguisher=None if described is None else str(described),
    )
