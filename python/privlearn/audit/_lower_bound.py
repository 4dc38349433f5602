"""The public lower bounds from samples, each a thin layer over the engine
(:mod:`privlearn.audit._engine`) with its objective: :func:`epsilon_lower_bound` (epsilon at a
given delta), :func:`delta_lower_bound` (the hockey-stick divergence at a given epsilon) and
:func:`mu_lower_bound` (the Gaussian-DP mu)."""

from __future__ import annotations

from typing import Any

from .._validate import check_delta, check_real
from ._engine import (
    EventsArg,
    _delta_objective,
    _engine_bound,
    _epsilon_objective,
    _mu_objective,
)

__all__ = ["EventsArg", "epsilon_lower_bound", "delta_lower_bound", "mu_lower_bound"]


def epsilon_lower_bound(
    samples_a: Any,
    samples_b: Any,
    *,
    alpha: float = 1e-3,
    delta: float = 0.0,
    events: EventsArg = "auto",
) -> float:
    r"""A lower confidence bound on epsilon from a mechanism's outputs on two neighbouring inputs.

    For every event ``S`` tried, the number of samples in ``S`` on each side gives one-sided
    Clopper--Pearson bounds ``lo(P_a(S))`` and ``hi(P_b(S))``, and

    .. math:: \varepsilon \ge \ln \frac{lo(P_a(S)) - \delta}{hi(P_b(S))}

    holds for any ``(epsilon, delta)``-DP mechanism whenever both bounds hold (and the same with
    ``a`` and ``b`` swapped). The result is the largest such bound over the tests made, or 0.
    All confidence bounds hold together with probability at least ``1 - alpha`` (Bonferroni), so
    **the returned value exceeds the mechanism's true epsilon with probability at most**
    ``alpha``: it is a lower bound, never more than the data support. This is the test of
    DP-Sniper (Bichsel et al., S&P 2021) and TensorFlow Privacy's ``EpsilonLowerBound``.
    Proof of the inequality: ``(epsilon, delta)``-DP gives ``P_a(S) <= e^eps P_b(S) + delta``,
    and the right-hand side only grows when ``P_a(S)`` is lowered to ``lo`` and ``P_b(S)``
    raised to ``hi``.

    Parameters
    ----------
    samples_a, samples_b : array_like
        Independent outputs of the mechanism on the two neighbouring inputs, **in the order they
        were drawn** (not sorted or grouped: the first part of each is used to choose events).
        Real scalars, discrete scalars (integers, booleans, strings, any hashable), or vectors
        of integers or booleans (each vector is one discrete value). The two sides may have
        different sizes. Real vectors need a projection to scalars (``audit``'s ``statistic``)
        or explicit ``events``.
    alpha : float, default 1e-3
        Probability, in (0, 1), that the bound exceeds the true epsilon (overall, for the whole
        family of events and both directions).
    delta : float, default 0.0
        The mechanism's delta, in [0, 1): the bound is on epsilon at this delta.
    events : "auto", callable or sequence, default "auto"
        The family of events.

        * ``"auto"``: events chosen from the data **without double dipping**: the first 10% of
          each side's samples (the *selection split*) choose the events and are not used again;
          the bound is computed on the remaining 90% with a Bonferroni correction over the
          8 tests kept (an event and a direction each). Candidates: for numeric outputs,
          threshold sets ``x <= t`` and ``x > t`` in both tails (``t`` at quantiles of the
          selection split, denser in the tails; every value for outputs with at most 128
          distinct values), single values or bins, and likelihood-ratio sets (the values or
          bins whose estimated ``P_a / P_b`` is largest, the Neyman--Pearson optimal events);
          for unordered discrete outputs, every value and the likelihood-ratio sets. The first
          half of the selection split orders the cells by likelihood ratio, the second half
          scores every candidate test by its Clopper--Pearson bound, and the 8 best are kept.
        * a sequence of numbers ``t``: the threshold events ``x <= t`` (and ``x > t``).
        * a sequence of callables, each mapping the array of samples to a boolean mask of
          shape ``(n,)``; or one callable mapping it to a boolean array of shape ``(n, k)``
          (``k`` events at once).

        An explicit family must be chosen without looking at these samples (choose it on a
        pilot run); all samples are then used, and the Bonferroni correction counts every event,
        its complement and both directions.

    Returns
    -------
    float
        The lower confidence bound on epsilon, ``>= 0``.

    Raises
    ------
    InvalidParameterError
        On empty samples, NaN outputs, real vectors with ``events="auto"``, outputs of
        different shapes, ``alpha`` outside (0, 1) or ``delta`` outside [0, 1).

    Notes
    -----
    Vectorised: 10^6 real samples per side take a few tens of milliseconds.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.audit import epsilon_lower_bound
    >>> g = np.random.default_rng(0)
    >>> a = g.laplace(0.0, 1.0, size=200_000)     # Laplace mechanism, epsilon = 1,
    >>> b = g.laplace(1.0, 1.0, size=200_000)     # on neighbouring values 0 and 1
    >>> 0.9 < epsilon_lower_bound(a, b) <= 1.0
    True
    """
    objective = _epsilon_objective(check_delta(delta))
    return _engine_bound(samples_a, samples_b, alpha, objective, events)[0]


def delta_lower_bound(
    samples_a: Any,
    samples_b: Any,
    epsilon: float,
    *,
    alpha: float = 1e-3,
    events: EventsArg = "auto",
) -> float:
    r"""A lower confidence bound on the delta a mechanism needs at a given epsilon.

    The hockey-stick divergence of the outputs at ``e^epsilon``,
    ``max_S P_a(S) - e^eps P_b(S)`` (and with ``a`` and ``b`` swapped), is the least delta with
    which the mechanism is ``(epsilon, delta)``-DP on this pair of inputs (Barthe and Olmedo,
    ICALP 2013; Balle, Barthe, Gaboardi, NeurIPS 2018, "Privacy amplification by subsampling",
    Sec. 2). For every event ``S`` tried,

    .. math:: \delta \ge lo(P_a(S)) - e^{\varepsilon}\, hi(P_b(S))

    holds whenever the two one-sided Clopper--Pearson bounds hold. Proof: ``(epsilon,
    delta)``-DP gives ``P_a(S) - e^eps P_b(S) <= delta`` for every ``S``, and the left-hand side
    only decreases when ``P_a(S)`` is lowered to ``lo`` and ``P_b(S)`` raised to ``hi``. The
    events, the selection split and the Bonferroni correction are those of
    :func:`epsilon_lower_bound` (the events are chosen by this difference), so **the returned
    value exceeds the mechanism's true delta at ``epsilon`` with probability at most**
    ``alpha``. This is the divergence estimated by DP-Auditorium's hockey-stick testers
    (Kong et al., 2024), here with exact binomial confidence bounds.

    Parameters
    ----------
    samples_a, samples_b : array_like
        Independent outputs on the two neighbouring inputs, in the order they were drawn, as
        for :func:`epsilon_lower_bound`.
    epsilon : float
        The epsilon (finite, ``>= 0``) at which delta is bounded.
    alpha : float, default 1e-3
        Probability, in (0, 1), that the bound exceeds the true delta.
    events : "auto", callable or sequence, default "auto"
        The family of events, as for :func:`epsilon_lower_bound`.

    Returns
    -------
    float
        The lower confidence bound on delta, in [0, 1) (``0.0`` when no event is significant).

    Raises
    ------
    InvalidParameterError
        As :func:`epsilon_lower_bound`, and on ``epsilon`` not a finite number ``>= 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.audit import delta_lower_bound
    >>> g = np.random.default_rng(0)
    >>> a = g.laplace(0.0, 1.0, size=200_000)     # Laplace mechanism, epsilon = 1:
    >>> b = g.laplace(1.0, 1.0, size=200_000)     # delta is 0 at epsilon = 1,
    >>> delta_lower_bound(a, b, 1.0)
    0.0
    >>> 0.2 < delta_lower_bound(a, b, 0.5) <= 0.2212  # the true delta: 1 - exp(-1/4)
    True
    """
    epsilon = check_real(epsilon, "epsilon", 0.0)
    return _engine_bound(samples_a, samples_b, alpha, _delta_objective(epsilon), events)[0]


def mu_lower_bound(
    samples_a: Any,
    samples_b: Any,
    *,
    alpha: float = 1e-3,
    events: EventsArg = "auto",
) -> float:
    r"""A lower confidence bound on the Gaussian-DP parameter mu of a mechanism.

    A ``mu``-GDP mechanism (Dong, Roth, Su, JRSS-B 2022, Def. 2.6) has trade-off function at
    least ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``. For every event ``S`` tried,

    .. math:: \mu \ge \Phi^{-1}(lo(P_a(S))) - \Phi^{-1}(hi(P_b(S)))

    holds whenever the two one-sided Clopper--Pearson bounds hold. Proof: the test rejecting
    ``b`` on ``S`` has type I error ``P_b(S)`` and type II error ``1 - P_a(S)``, so
    ``1 - P_a(S) >= Phi(Phi^{-1}(1 - P_b(S)) - mu)``, i.e.
    ``Phi^{-1}(P_a(S)) - Phi^{-1}(P_b(S)) <= mu``; the left-hand side only decreases when
    ``P_a(S)`` is lowered to ``lo`` and ``P_b(S)`` raised to ``hi`` (``Phi^{-1}`` is
    increasing). Events, selection split and Bonferroni correction are those of
    :func:`epsilon_lower_bound` (events chosen by this difference), so **the returned value
    exceeds the mechanism's true mu with probability at most** ``alpha``.

    Parameters
    ----------
    samples_a, samples_b : array_like
        Independent outputs on the two neighbouring inputs, in the order they were drawn, as
        for :func:`epsilon_lower_bound`.
    alpha : float, default 1e-3
        Probability, in (0, 1), that the bound exceeds the true mu.
    events : "auto", callable or sequence, default "auto"
        The family of events, as for :func:`epsilon_lower_bound`.

    Returns
    -------
    float
        The lower confidence bound on mu, ``>= 0``.

    Raises
    ------
    InvalidParameterError
        As :func:`epsilon_lower_bound`.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.audit import mu_lower_bound
    >>> g = np.random.default_rng(0)
    >>> a = g.normal(0.0, 1.0, size=200_000)      # the Gaussian mechanism, 1-GDP
    >>> b = g.normal(1.0, 1.0, size=200_000)
    >>> 0.9 < mu_lower_bound(a, b) <= 1.0
    True
    """
    return _engine_bound(samples_a, samples_b, alpha, _mu_objective(), events)[0]
