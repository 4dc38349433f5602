"""The audit driver: parsing a privacy claim, drawing the samples of a mechanism on two
neighbouring inputs (vectorised or one output per call, from two seeded child generators),
projecting them with a statistic, and comparing the epsilon lower bound with the claim
(:func:`audit`)."""

from __future__ import annotations

import inspect
import math
import numbers
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .._validate import check_integer, check_probability
from ..errors import InvalidParameterError
from ..random import RngLike, as_generator, spawn_seeds
from ._lower_bound import EventsArg, _lower_bound
from ._results import AuditResult
from ._samples import _hashable, _object_array


def _claim(claimed: Any) -> Tuple[float, float]:
    if hasattr(claimed, "epsilon"):
        eps, delta = claimed.epsilon, getattr(claimed, "delta", 0.0)
    elif isinstance(claimed, tuple) and len(claimed) == 2:
        eps, delta = claimed
    elif isinstance(claimed, numbers.Real) and not isinstance(claimed, bool):
        eps, delta = claimed, 0.0
    else:
        raise InvalidParameterError(
            f"claimed: must be a Budget (with .epsilon and .delta), an (epsilon, delta) tuple or "
            f"a number, got {claimed!r}",
            "claimed",
        )
    try:
        eps_f, delta_f = float(eps), float(delta)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"claimed: epsilon and delta must be numbers, got {claimed!r}", "claimed"
        ) from None
    if not (math.isfinite(eps_f) and eps_f >= 0.0):
        raise InvalidParameterError(
            f"claimed: epsilon must be a finite number >= 0, got {eps!r}", "claimed"
        )
    if not (0.0 <= delta_f < 1.0):
        raise InvalidParameterError(f"claimed: delta must be in [0, 1), got {delta!r}", "claimed")
    return eps_f, delta_f


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
) -> AuditResult:
    r"""Audit a privacy claim by running a mechanism on two neighbouring inputs.

    Draws ``n`` outputs on each side, and computes :func:`epsilon_lower_bound` (at the claimed
    delta). The claim is refuted (``passed=False``) when the bound exceeds the claimed epsilon;
    a correct mechanism is refuted with probability at most ``alpha``.

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
    claimed : Budget, (epsilon, delta) or float
        The claim: any object with ``.epsilon`` and ``.delta`` (such as
        ``privlearn.accounting.Budget``), a tuple, or a number (``delta = 0``).
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

    Returns
    -------
    AuditResult
        The bound, the claim, ``passed``, ``n``, the event attaining the bound and ``alpha``.

    Raises
    ------
    InvalidParameterError
        On a bad claim, ``n < 2``, ``alpha`` outside (0, 1), sampling functions returning the
        wrong number of outputs, or real vector outputs without a statistic. Nothing is drawn
        when the parameters are invalid.

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
    """
    eps, delta = _claim(claimed)
    n = check_integer(n, "n", 2)
    alpha = check_probability(alpha, "alpha")
    for name, fn in (("run_a", run_a), ("run_b", run_b)):
        if not callable(fn):
            raise InvalidParameterError(f"{name}: must be callable, got {type(fn).__name__}", name)
    if statistic is not None and not callable(statistic):
        raise InvalidParameterError(
            f"statistic: must be callable or None, got {type(statistic).__name__}", "statistic"
        )
    if not (isinstance(events, str) and events == "auto"):
        if isinstance(events, str):
            raise InvalidParameterError(
                f"events: must be 'auto', a callable or a sequence, got {events!r}", "events"
            )
    gen = as_generator(rng)
    seed_a, seed_b = spawn_seeds(gen, 2)
    samples = []
    for name, fn, seed in (("run_a", run_a, seed_a), ("run_b", run_b, seed_b)):
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
        if isinstance(events, str) and arr.ndim >= 2 and arr.dtype.kind == "f":
            raise InvalidParameterError(
                f"statistic: {name} returns real vectors (shape {arr.shape[1:]}); pass a statistic "
                f"projecting them to scalars, e.g. statistic=lambda y: y.sum(axis=1)",
                "statistic",
            )
        samples.append(arr)
    bound, event = _lower_bound(samples[0], samples[1], alpha, delta, events)
    return AuditResult(
        bound=bound,
        claimed_epsilon=eps,
        claimed_delta=delta,
        passed=bool(bound <= eps),
        n=n,
        event=event,
        alpha=alpha,
    )
