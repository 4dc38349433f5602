r"""Parameters and exact privacy accounting of private classification-query release.

Nandi and Bassily, "Privately answering classification queries in the agnostic PAC model"
(ALT 2020; seed 004), with the project's errata C1–C7 (``spec/ERRATA.md`` Part B, section C).
Everything here is deterministic arithmetic: theory settings (:func:`theory_parameters`,
:func:`subsample_svt_parameters`), the guarantee of the sparse-vector stage
(:func:`svt_guarantee`), the resampling multiplicity of Alg. 3 step 4
(:func:`resampling_multiplicity`), the whole chain of Alg. 3 (:func:`agnostic_guarantee`) and
the calibrations of the practical mode. Bounds are computed in high-precision decimal
arithmetic and rounded *up* (the helpers of :mod:`privlearn.accounting`).
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Optional

from .. import _core
from .._validate import (
    check_choice,
    check_delta,
    check_epsilon,
    check_integer,
    check_positive,
    check_probability,
    check_real,
)
from ..accounting import Budget, amplify_by_subsampling, compose_advanced, group_privacy
from ..accounting._budget import _budget_up
from ..accounting._composition import compose_optimal
from ..accounting._numerics import (
    BISECT_RTOL,
    _context,
    _float_up,
    _largest_fitting,
    _ln_binomial,
    _up,
)
from ..errors import InvalidParameterError

__all__ = [
    "TheoryParameters",
    "SubsampleSVTParameters",
    "SVTGuarantee",
    "AgnosticGuarantee",
    "theory_parameters",
    "subsample_svt_parameters",
    "svt_guarantee",
    "stable_release_probability",
    "resampling_tail",
    "resampling_multiplicity",
    "agnostic_guarantee",
    "universal_m_o",
]

_DIGITS = 50

#: How the sparse vector's AboveThreshold rounds are composed (``composition`` of
#: :func:`svt_guarantee` and of the release algorithms): ``"optimal"`` (the default) takes the
#: smallest of basic, advanced and Kairouz-Oh-Viswanath's optimal composition; ``"advanced"``
#: is the accounting before issue 18 (the smaller of basic and advanced composition), kept to
#: reproduce earlier results and to measure the gain.
SVT_COMPOSITIONS = ("optimal", "advanced")

# Relative width at which the bisection of the round epsilon stops.


def _check_composition(value: object) -> str:
    return check_choice(value, "composition", SVT_COMPOSITIONS)


def _sampler_epsilon(lam: float, rounds: int) -> float:
    """The ``epsilon`` handed to :class:`privlearn.mechanisms.SparseVector` (with
    ``max_positives = rounds``) for threshold noise ``Lap(λ)``."""
    return 2.0 * rounds / lam


def _sampler_scales(lam: float, rounds: int) -> "tuple[float, float]":
    """``(shift, scale)`` for the stable-release bound, from what the exact sparse vector uses
    (``privlearn._core.sparse_vector_plan``, the core's own plan; nothing restated here).

    ``scale`` is the larger of its threshold noise scale and half its query noise scale (each
    at least ``λ``, resp. ``2λ``: the sensitivity is widened by the grid rounding and the scales
    are rounded up). ``shift = 3γ``, ``γ`` its grid step: the threshold is rounded to the grid
    (half a step) and each discrete noise is within one step of a continuous Laplace variable
    under the floor coupling.
    """
    step, threshold_scale, query_scale = _core.sparse_vector_plan(
        _sampler_epsilon(lam, rounds), 1.0, rounds
    )
    return 3.0 * step, max(threshold_scale, query_scale / 2.0)


# --------------------------------------------------------------------------------------------
# The theory mode's epsilon (ERRATA C4)
# --------------------------------------------------------------------------------------------


def _epsilon_at_most_one(value: object) -> float:
    eps = check_real(value, "epsilon")
    if not 0.0 < eps <= 1.0:
        raise InvalidParameterError(
            f"epsilon: the theorem covers epsilon in (0, 1] (ERRATA C4: for larger epsilon the "
            f"amplification step does not preserve delta), got {value!r}",
            "epsilon",
        )
    return eps


# --------------------------------------------------------------------------------------------
# The sparse-vector stage (A_SubSamp, BTT18 Alg. 2 = Nandi-Bassily Alg. 5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubsampleSVTParameters:
    r"""Theory settings of ``A_SubSamp`` (Nandi and Bassily, Alg. 5 step 1–2; BTT18).

    Attributes
    ----------
    epsilon, delta, beta : float
        The stage's own privacy parameters and failure probability.
    m : int
        Number of queries.
    cutoff : float
        The cut-off ``T`` on unstable answers (real; at most ``floor(T) + 1`` of them).
    noise_scale : float
        ``λ = sqrt(32 T ln(2/δ)) / ε``: threshold noise ``Lap(λ)``, query noise ``Lap(2λ)``.
    k : int
        Number of sub-samples, ``ceil(34 sqrt(2) λ ln(4 m T / min(δ, β/2)))``.
    k_real : float
        The same before rounding up.
    threshold : float
        ``w = 2 λ ln(2m/δ)``.
    epsilon_stab : float
        ``1 / (2λ)``, the privacy parameter of the ``A_stab`` call (Alg. 6).
    """

    epsilon: float
    delta: float
    beta: float
    m: int
    cutoff: float
    noise_scale: float
    k: int
    k_real: float
    threshold: float
    epsilon_stab: float


def subsample_svt_parameters(
    epsilon: float, delta: float, beta: float, m: int, cutoff: float
) -> SubsampleSVTParameters:
    r"""The settings of ``A_SubSamp`` (Nandi and Bassily, Alg. 5 lines 1–2; Bassily, Thakurta
    and Thakkar, "Model-agnostic private learning", NeurIPS 2018, Alg. 2).

    ``λ = sqrt(32 T ln(2/δ)) / ε``, ``k = ceil(34 sqrt(2) λ ln(4mT / min(δ, β/2)))``,
    ``w = 2λ ln(2m/δ)`` and ``ε_stab = 1/(2λ)`` (natural logarithms).

    Parameters
    ----------
    epsilon : float
        > 0.
    delta, beta : float
        In (0, 1).
    m : int
        Number of queries, >= 1.
    cutoff : float
        ``T`` > 0.

    Returns
    -------
    SubsampleSVTParameters
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, zero_ok=False)
    b = check_probability(beta, "beta")
    m = check_integer(m, "m", 1)
    t = check_positive(cutoff, "cutoff")
    lam = math.sqrt(32.0 * t * math.log(2.0 / dlt)) / eps
    k_real = 34.0 * math.sqrt(2.0) * lam * math.log(4.0 * m * t / min(dlt, b / 2.0))
    return SubsampleSVTParameters(
        epsilon=eps,
        delta=dlt,
        beta=b,
        m=m,
        cutoff=t,
        noise_scale=lam,
        k=max(1, math.ceil(k_real)),
        k_real=k_real,
        threshold=2.0 * lam * math.log(2.0 * m / dlt),
        epsilon_stab=1.0 / (2.0 * lam),
    )


def stable_release_probability(threshold: float, noise_scale: float) -> float:
    r"""``P(Lap(2λ) − Lap(λ) > w) = (4 e^{−w/(2λ)} − e^{−w/λ}) / 6`` for ``w >= 0``.

    The probability that the sparse vector releases a query whose distance to instability is 0
    (ERRATA C2; exact for continuous Laplace noise). Rounded up.
    """
    w = check_real(threshold, "threshold", 0.0)
    lam = check_positive(noise_scale, "noise_scale")
    with decimal.localcontext(_context(_DIGITS)):
        x = Decimal(w) / Decimal(lam)
        p = (4 * (-x / 2).exp() - (-x).exp()) / 6
        return _float_up(_up(p))


@dataclass(frozen=True)
class SVTGuarantee:
    r"""The exact guarantee of the sparse-vector stage (ERRATA C1, C2).

    Attributes
    ----------
    budget : Budget
        ``(epsilon, delta)`` of the whole interaction (any number of queries up to ``m``).
    rounds : int
        ``min(floor(T) + 1, m)`` AboveThreshold rounds: at most that many unstable answers.
    round_epsilon : float
        Each round's ``ε₀ = 2Δ/λ`` with ``Δ = 1`` (the distance to instability
        ``max(0, ceil(gap/2) − 1)`` has sensitivity 1; ERRATA C1), as the exact sampler runs it.
    sampler_epsilon : float
        The ``epsilon`` handed to :class:`privlearn.mechanisms.SparseVector`
        (``rounds * ε₀``: its noise scales are ``λ`` and ``2λ``).
    composition : str
        The bound that gave the smallest epsilon: ``"basic"`` (``rounds * ε₀``), ``"advanced"``
        (Dwork–Rothblum–Vadhan) or ``"optimal"`` (Kairouz–Oh–Viswanath); basic wins ties (it
        needs no delta).
    composition_delta : float
        The composition's slack (0 for basic).
    stable_release_delta : float
        ``m`` times an upper bound on the probability of releasing a query of distance 0 (the
        stable-release argument; ERRATA C2), including the exact sampler's discretisation.
    """

    budget: Budget
    rounds: int
    round_epsilon: float
    sampler_epsilon: float
    composition: str
    composition_delta: float
    stable_release_delta: float


def _svt_rounds(cutoff: float, m: int) -> int:
    return min(int(math.floor(cutoff)) + 1, m)


def _svt_epsilon(
    lam: float, cutoff: float, m: int, slack: Optional[float], composition: str = "optimal"
) -> "tuple[int, float, float, str, float, float]":
    """Rounds, sampler epsilon, round epsilon, composition, its delta and the epsilon.

    The rounds are ``R`` adaptively chosen ``ε₀``-DP mechanisms (each AboveThreshold run starts
    from the earlier answers); the epsilon is the smallest of the valid bounds for that: basic
    ``R ε₀`` (exact sum, rounded up), advanced composition (Dwork, Rothblum and Vadhan 2010;
    Dwork and Roth, Theorem 3.20) and, with ``composition="optimal"``, Kairouz, Oh and
    Viswanath's optimal composition (ICML 2015, Theorem 3.3: exact for the ``R``-fold adaptive
    composition of ``ε₀``-DP mechanisms, hence never above the other two), each at slack
    ``slack`` and rounded up. AboveThreshold is not known to be bounded-range, so the
    bounded-range composition of the exponential mechanism is not used; and no Rényi route
    can beat KOV for generic ``ε₀``-DP rounds (it bounds the same worst case, randomized
    response)."""
    rounds = _svt_rounds(cutoff, m)
    sampler_eps = _sampler_epsilon(lam, rounds)
    if not (math.isfinite(sampler_eps) and sampler_eps > 0.0):
        raise InvalidParameterError(
            f"noise_scale: gives a sparse-vector epsilon of {sampler_eps!r}, outside (0, inf)",
            "noise_scale",
        )
    round_eps = _float_up(Fraction(sampler_eps) / rounds)
    basic = (rounds * Budget(round_eps)).epsilon  # basic composition, exact, rounded up
    best = (rounds, sampler_eps, round_eps, "basic", 0.0, basic)
    if slack is not None:
        bounds = [("advanced", compose_advanced(Budget(round_eps), rounds, slack).epsilon)]
        if composition == "optimal":
            bounds.append(("optimal", compose_optimal(Budget(round_eps), rounds, slack).epsilon))
        for name, eps in bounds:
            if eps < best[5]:
                best = (rounds, sampler_eps, round_eps, name, slack, eps)
    return best


def _stab_delta(threshold: float, noise_scale: float, rounds: int, m: int) -> Fraction:
    """``m`` times the dist-0 release probability of the exact sampler, rounded up."""
    shift, scale_up = _sampler_scales(noise_scale, rounds)
    shifted = threshold - shift
    if shifted <= 0.0:
        return Fraction(1)
    return m * Fraction(stable_release_probability(shifted, scale_up))


def svt_guarantee(
    noise_scale: float,
    cutoff: float,
    m: int,
    threshold: float,
    *,
    delta_slack: Optional[float] = None,
    composition: str = "optimal",
) -> SVTGuarantee:
    r"""The exact ``(ε, δ)`` of the sparse-vector stage of ``A_SubSamp``.

    The stage runs :class:`privlearn.mechanisms.SparseVector` on the distance to instability
    ``dist = max(0, ceil(gap/2) − 1)`` of the ``k`` sub-sample votes (sensitivity 1 under
    replace-one: one sub-sample, hence one vote, changes; ERRATA C1), with threshold noise
    ``Lap(λ)``, query noise ``Lap(2λ)`` and at most ``R = min(floor(T) + 1, m)`` unstable
    answers. Each AboveThreshold round is ``ε₀ = 2/λ``-DP (Dwork and Roth, Theorem 3.23); the
    ``R`` rounds are chosen adaptively (each starts from the earlier answers) and compose to
    ``min(R ε₀, advanced(ε₀, R, δ'), KOV(ε₀, R, δ'))``: Dwork and Roth, Theorem 3.20 (ERRATA
    C2), and Kairouz, Oh and Viswanath, "The composition theorem for differential privacy"
    (ICML 2015), Theorem 3.3, the optimal bound for ``R`` adaptively composed ``ε₀``-DP
    mechanisms (:func:`privlearn.accounting.compose_optimal`, evaluated in high precision and
    rounded up). AboveThreshold is not known to be bounded-range, so no bounded-range bound is
    claimed. A stable
    answer releases the vote's majority, which is the same on every neighbour once
    ``dist >= 1``; a query with ``dist = 0`` is released with probability at most
    ``p(w) = (4e^{−w/(2λ)} − e^{−w/λ})/6`` (:func:`stable_release_probability`), so the
    releases add ``δ_stab = m p(w)`` (ERRATA C2). The exact sampler's noises are discrete
    Laplace on a grid ``γZ`` (``γ = 2^-20``) with scales slightly above ``λ`` and ``2λ``, each
    within one grid step of a continuous Laplace variable under the floor coupling, and the
    threshold is rounded to the grid; ``p`` is therefore evaluated at ``w − 3γ`` with the
    scales the sampler uses (the tail is increasing in both scales by Anderson's theorem).
    ``γ`` and the scales are read from the core's plan of the sampler
    (``privlearn._core.sparse_vector_plan``), not restated.

    Parameters
    ----------
    noise_scale : float
        ``λ`` > 0.
    cutoff : float
        ``T`` >= 0.
    m : int
        Largest number of queries, >= 1.
    threshold : float
        ``w`` >= 0, in vote-distance units.
    delta_slack : float, optional
        ``δ'`` in (0, 1) for advanced or optimal composition; ``None`` uses basic composition
        only.
    composition : {"optimal", "advanced"}, default "optimal"
        ``"advanced"`` leaves out KOV (the accounting before issue 18).

    Returns
    -------
    SVTGuarantee
    """
    lam = check_positive(noise_scale, "noise_scale")
    t = check_real(cutoff, "cutoff", 0.0)
    m = check_integer(m, "m", 1)
    w = check_real(threshold, "threshold", 0.0)
    slack = None if delta_slack is None else check_delta(delta_slack, "delta_slack", zero_ok=False)
    how = _check_composition(composition)
    rounds, sampler_eps, round_eps, used, comp_delta, eps = _svt_epsilon(lam, t, m, slack, how)
    stab = _stab_delta(w, lam, rounds, m)
    budget = _budget_up(
        Fraction(eps), Fraction(comp_delta) + stab, "threshold", "sparse-vector stage"
    )
    return SVTGuarantee(
        budget=budget,
        rounds=rounds,
        round_epsilon=round_eps,
        sampler_epsilon=sampler_eps,
        composition=used,
        composition_delta=comp_delta,
        stable_release_delta=_float_up(stab),
    )


def _advanced_round_epsilon(target: float, rounds: int, slack: float) -> float:
    """The largest ε₀ (to float precision) with advanced(ε₀, rounds, slack) <= target."""
    c = math.sqrt(2.0 * rounds * math.log(1.0 / slack))
    lo, hi = 0.0, target / c
    for _ in range(200):
        mid = (lo + hi) / 2
        if c * mid + rounds * mid * math.expm1(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


def _optimal_round_epsilon(target: float, rounds: int, slack: float) -> float:
    """The largest ε₀ found (bisection to a relative ``1e-12``) with
    ``KOV(ε₀, rounds, slack) <= target`` (:func:`privlearn.accounting.compose_optimal`, rounded
    up): always feasible, below the exact inverse by at most that relative width. Starts from
    the basic split ``target / rounds`` (feasible: KOV is never above basic composition) and
    brackets by doubling (``accounting._numerics._largest_fitting``)."""
    split = _float_down_ratio(target, rounds)

    def fits(eps0: float) -> bool:
        try:
            return compose_optimal(Budget(eps0), rounds, slack).epsilon <= target
        except InvalidParameterError:  # too large for the arithmetic
            return False

    if not fits(split):  # pragma: no cover - KOV <= basic, and split is rounded down
        return split
    return _largest_fitting(split, fits, BISECT_RTOL)


def _float_down_ratio(x: float, k: int) -> float:
    """``x / k`` rounded down."""
    q = x / k
    return q if Fraction(q) * k <= Fraction(x) else math.nextafter(q, 0.0)


def round_epsilon(
    epsilon: float, rounds: int, delta_slack: Optional[float], composition: str = "optimal"
) -> float:
    r"""The largest AboveThreshold round epsilon ``ε₀`` that ``rounds`` adaptively composed
    rounds may each have within ``epsilon`` (slack ``delta_slack``): the larger of the basic
    split ``epsilon / rounds``, the inverse of advanced composition and, with
    ``composition="optimal"``, the inverse of Kairouz-Oh-Viswanath's optimal composition
    (ICML 2015, Theorem 3.3), found by bisection. An inverse to within a relative ``1e-12``
    below; :func:`calibrate_noise_scale` then checks the rounded guarantee itself.

    Parameters
    ----------
    epsilon : float
        > 0.
    rounds : int
        >= 1.
    delta_slack : float or None
        In (0, 1); ``None``: basic composition only (``epsilon / rounds`` rounded down).
    composition : {"optimal", "advanced"}, default "optimal"

    Returns
    -------
    float
    """
    eps = check_epsilon(epsilon)
    rounds = check_integer(rounds, "rounds", 1)
    how = _check_composition(composition)
    if delta_slack is None:
        return _float_down_ratio(eps, rounds)
    slack = check_delta(delta_slack, "delta_slack", zero_ok=False)
    best = max(_float_down_ratio(eps, rounds), _advanced_round_epsilon(eps, rounds, slack))
    if how == "optimal":
        best = max(best, _optimal_round_epsilon(eps, rounds, slack))
    return best


def calibrate_noise_scale(
    epsilon: float,
    cutoff: float,
    m: int,
    delta_slack: Optional[float],
    composition: str = "optimal",
) -> float:
    """The smallest ``λ`` (found to a relative ``1e-12``) whose sparse-vector epsilon is at most
    ``epsilon`` (basic, advanced or optimal composition with slack ``delta_slack``, see
    :func:`round_epsilon`): ``λ = 2/ε₀``, then raised by relative ``1e-12`` steps until the
    rounded guarantee of :func:`svt_guarantee` fits."""
    how = _check_composition(composition)
    rounds = _svt_rounds(cutoff, m)
    lam = 2.0 / round_epsilon(epsilon, rounds, delta_slack, how)
    for _ in range(200):
        if _svt_epsilon(lam, cutoff, m, delta_slack, how)[5] <= epsilon:
            return lam
        lam *= 1.0 + 1e-12
    raise AssertionError("calibration did not converge")  # pragma: no cover


def calibrate_threshold(noise_scale: float, m: int, stab_delta: float, rounds: int) -> float:
    """The smallest threshold ``w`` (to a relative ``1e-12``) with ``δ_stab <= stab_delta`` for
    the sparse vector with threshold noise ``Lap(noise_scale)`` over ``rounds`` rounds."""
    shift, scale_up = _sampler_scales(noise_scale, rounds)
    # p(t) <= (2/3) e^{-t/(2 scale)}: start there and tighten by bisection.
    hi = 2.0 * scale_up * math.log(max(2.0 * m / (3.0 * stab_delta), 1.0)) + shift
    hi = max(hi, shift * 2)
    while _stab_delta(hi, noise_scale, rounds, m) > stab_delta:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if _stab_delta(mid, noise_scale, rounds, m) <= stab_delta:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi


# --------------------------------------------------------------------------------------------
# Resampling with replacement (Alg. 3 step 4): multiplicity of the changed record
# --------------------------------------------------------------------------------------------


def _binomial_tail_decimal(n: int, r: int) -> Decimal:
    """An upper bound on ``P(Bin(n, 1/n) > r)`` (current context)."""
    if r >= n:
        return Decimal(0)
    if n == 1:
        return Decimal(1)  # r = 0: the only draw is the changed record
    j = r + 1
    # P(K = j) = C(n, j) n^-j (1 - 1/n)^(n - j)
    log_term = _ln_binomial(n, j) - j * Decimal(n).ln() + (n - j) * (Decimal(n - 1) / n).ln()
    term = log_term.exp()
    total = Decimal(0)
    while j <= n:
        total += term
        ratio = Decimal(n - j) / ((j + 1) * Decimal(n - 1))  # P(K = j + 1) / P(K = j)
        if ratio < Decimal("0.5") and term * ratio <= total * Decimal(10) ** -(_DIGITS - 5):
            # the ratio decreases in j: the rest is at most term * ratio / (1 - ratio)
            total += term * ratio / (1 - ratio)
            break
        term *= ratio
        j += 1
    return total


def resampling_tail(n_prime: int, r: int) -> float:
    r"""``P(Bin(n', 1/n') > r)``, rounded up: the probability that the changed record of
    ``S''`` is drawn more than ``r`` times when ``n'`` records are resampled with replacement
    (Nandi and Bassily, Alg. 3 step 4; ERRATA C3)."""
    n = check_integer(n_prime, "n_prime", 1)
    r = check_integer(r, "r", 0)
    with decimal.localcontext(_context(_DIGITS + 10)):
        return _float_up(_up(_binomial_tail_decimal(n, r)))


def resampling_multiplicity(n_prime: int, tail: float) -> int:
    r"""The smallest ``r₀`` with ``P(Bin(n', 1/n') > r₀) <= tail`` (exact binomial tail).

    Used instead of the paper's ``r = ln(2/δ)`` Chernoff step, which fails for some ``δ``
    (ERRATA C3).
    """
    n = check_integer(n_prime, "n_prime", 1)
    tl = check_probability(tail, "tail")
    r = 0
    while resampling_tail(n, r) > tl:
        r += 1
    return r


# --------------------------------------------------------------------------------------------
# Theory settings of A_AgPrivCl (Alg. 3) and A_UnvPrivCl (Alg. 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TheoryParameters:
    r"""The settings of ``A_AgPrivCl`` (Nandi and Bassily, Alg. 3 step 1) and of its
    ``A_SubSamp`` call, natural logarithms throughout.

    Attributes
    ----------
    epsilon, delta, alpha, beta : float
    m : int
    cutoff : float
        ``T = max(1, mα/8 + sqrt(3 mα ln(m/β))/4)``.
    epsilon_prime : float
        ``ε' = α max(1, sqrt(mα))``.
    epsilon_star : float
        ``ε* = min(1, ε')``.
    epsilon_hat, delta_hat : float
        ``ε̂ = ε*/r`` and ``δ̂ = δ/(2 r e^{ε*})`` with ``r = ln(2/δ)`` (the paper), or with
        ``r = r₀`` when the exact resampling multiplicity ``r₀`` exceeds ``floor(ln(2/δ))``
        (ERRATA C3; only when ``n`` is given).
    noise_scale, k, threshold, epsilon_stab : float, int, float, float
        ``A_SubSamp``'s ``λ``, ``k``, ``w``, ``1/(2λ)`` at ``(ε̂, δ̂, β)``
        (:func:`subsample_svt_parameters`).
    subsample_svt : SubsampleSVTParameters
        The same, with ``k`` before rounding.
    n, n_prime : int or None
        The sample size and ``n' = floor(εn/56)`` when ``n`` is given.
    resampling_multiplicity : int or None
        ``r₀``, the smallest ``r`` with ``P(Bin(n', 1/n') > r) <= δ/2`` (when ``n`` is given).
    d : int or None
        The VC dimension, when given.
    n_prime_required, n_required : float or None
        Lemma 3.5's ``n' = 8000 (d ln(1/α) + ln(m/β)) ln^{3/2}(2/δ) ln(mα/min(δ, β/2))
        max(1, sqrt(m) α^{3/2}) / α²`` and ``n = 56 n'/ε`` (when ``d`` is given). The paper's
        constants are loose and internally inconsistent (the notes' Claim 3.6 flag); this is a
        reference size, not a certificate.
    m_o : int or None
        ``A_UnvPrivCl``'s switching point ``ceil(32 (d ln(1/α) + ln(1/β)) / α)`` (when ``d`` is
        given).
    """

    epsilon: float
    delta: float
    alpha: float
    beta: float
    m: int
    cutoff: float
    epsilon_prime: float
    epsilon_star: float
    epsilon_hat: float
    delta_hat: float
    noise_scale: float
    k: int
    threshold: float
    epsilon_stab: float
    subsample_svt: SubsampleSVTParameters
    n: Optional[int] = None
    n_prime: Optional[int] = None
    resampling_multiplicity: Optional[int] = None
    d: Optional[int] = None
    n_prime_required: Optional[float] = None
    n_required: Optional[float] = None
    m_o: Optional[int] = None


def theory_cutoff(m: int, alpha: float, beta: float) -> float:
    """``T = max(1, mα/8 + sqrt(3 mα ln(m/β))/4)`` (Alg. 3 step 1)."""
    ma = m * alpha
    return max(1.0, ma / 8.0 + math.sqrt(3.0 * ma * math.log(m / beta)) / 4.0)


def universal_m_o(d: int, alpha: float, beta: float) -> int:
    """``m_o = ceil(32 (d ln(1/α) + ln(1/β)) / α)`` (Alg. 4 step 1)."""
    d = check_integer(d, "d", 0)
    a = check_probability(alpha, "alpha")
    b = check_probability(beta, "beta")
    return math.ceil(32.0 * (d * math.log(1.0 / a) + math.log(1.0 / b)) / a)


def theory_parameters(
    epsilon: float,
    delta: float,
    alpha: float,
    beta: float,
    m: int,
    *,
    d: Optional[int] = None,
    n: Optional[int] = None,
) -> TheoryParameters:
    r"""The paper's settings of ``A_AgPrivCl`` (Nandi and Bassily, Alg. 3 step 1, Lemma 3.5).

    ``T = max(1, mα/8 + sqrt(3mα ln(m/β))/4)``, ``ε' = α max(1, sqrt(mα))``,
    ``ε* = min(1, ε')``, ``ε̂ = ε*/ln(2/δ)``, ``δ̂ = δ/(2 e^{ε*} ln(2/δ))``, and
    ``A_SubSamp``'s ``λ``, ``k``, ``w`` at ``(ε̂, δ̂)`` (natural logarithms; the notes' §4.3
    golden values). With ``n`` given, ``n' = floor(εn/56)`` and the exact resampling
    multiplicity ``r₀`` are computed, and ``ε̂, δ̂`` use ``r₀`` when it exceeds
    ``floor(ln(2/δ))`` (ERRATA C3). ``ε`` enters only through ``n'``. The theorem is stated for
    ``ε < 1``; ``ε = 1`` is accepted (its amplification step keeps ``(ε, δ)``, and the
    algorithms check the whole chain exactly), larger values are refused (ERRATA C4).

    Parameters
    ----------
    epsilon : float
        In (0, 1].
    delta, alpha, beta : float
        In (0, 1).
    m : int
        Number of queries, >= 1.
    d : int, optional
        VC dimension (>= 0), for the sample-size reference and ``m_o``.
    n : int, optional
        The private sample size (>= 1), for ``n'`` and ``r₀``.

    Returns
    -------
    TheoryParameters

    Examples
    --------
    >>> p = theory_parameters(1.0, 1e-6, 0.1, 0.1, 1000)
    >>> round(p.cutoff, 4), round(p.epsilon_hat, 7), p.k
    (25.6413, 0.0689244, 2580481)
    """
    eps = _epsilon_at_most_one(epsilon)
    dlt = check_delta(delta, zero_ok=False)
    a = check_probability(alpha, "alpha")
    b = check_probability(beta, "beta")
    m = check_integer(m, "m", 1)
    if d is not None:
        d = check_integer(d, "d", 0)
    t = theory_cutoff(m, a, b)
    eps_prime = a * max(1.0, math.sqrt(m * a))
    eps_star = min(1.0, eps_prime)
    r = math.log(2.0 / dlt)
    n_prime = r0 = None
    if n is not None:
        n = check_integer(n, "n", 1)
        n_prime = math.floor(eps * n / 56.0)
        if n_prime < 1:
            raise InvalidParameterError(
                f"n: n' = floor(epsilon n / 56) must be >= 1; needs n >= {math.ceil(56 / eps)}, got {n}",
                "n",
            )
        r0 = resampling_multiplicity(n_prime, dlt / 2.0)
        if r0 > math.floor(r):
            r = float(r0)
    eps_hat = eps_star / r
    delta_hat = dlt / (2.0 * math.exp(eps_star) * r)
    inner = subsample_svt_parameters(eps_hat, delta_hat, b, m, t)
    np_req = n_req = m_o = None
    if d is not None:
        np_req = (
            8000.0
            * (d * math.log(1.0 / a) + math.log(m / b))
            * math.log(2.0 / dlt) ** 1.5
            * math.log(max(m * a / min(dlt, b / 2.0), 1.0))
            * max(1.0, math.sqrt(m) * a**1.5)
            / a**2
        )
        n_req = 56.0 * np_req / eps
        m_o = universal_m_o(d, a, b)
    return TheoryParameters(
        epsilon=eps,
        delta=dlt,
        alpha=a,
        beta=b,
        m=m,
        cutoff=t,
        epsilon_prime=eps_prime,
        epsilon_star=eps_star,
        epsilon_hat=eps_hat,
        delta_hat=delta_hat,
        noise_scale=inner.noise_scale,
        k=inner.k,
        threshold=inner.threshold,
        epsilon_stab=inner.epsilon_stab,
        subsample_svt=inner,
        n=n,
        n_prime=n_prime,
        resampling_multiplicity=r0,
        d=d,
        n_prime_required=np_req,
        n_required=n_req,
        m_o=m_o,
    )


# --------------------------------------------------------------------------------------------
# The chain of A_AgPrivCl (ERRATA C5)
# --------------------------------------------------------------------------------------------

#: Lemma 3.1 (BNS15 Lemma 4.1): relabelling then a (1, δ)-DP algorithm is (4, 4eδ)-DP.
LABELBOOST_EPSILON = 4.0


@dataclass(frozen=True)
class AgnosticGuarantee:
    r"""The chain of ``A_AgPrivCl``'s guarantee (ERRATA C5), each step exact and rounded up.

    Attributes
    ----------
    svt : SVTGuarantee
        The sparse-vector stage on ``Ŝ`` (``n'`` records).
    multiplicity : int
        ``r₀``: the changed record of ``S''`` is drawn at most ``r₀`` times into ``Ŝ`` except
        with probability ``resampling_tail``.
    resampling_tail : float
        ``P(Bin(n', 1/n') > r₀)``.
    resampled : Budget
        Group privacy over ``r₀`` records plus the tail: the guarantee of "resample, then
        ``A_SubSamp``" w.r.t. ``S''``. Its epsilon must be at most 1.
    relabelled : Budget
        Lemma 3.1: ``(4, 4e δ)`` w.r.t. ``S'``.
    sample_rate : Fraction
        ``n'/n``.
    total : Budget
        Amplification by subsampling without replacement (Balle, Barthe and Gaboardi 2018,
        Theorem 9): the guarantee w.r.t. ``S``.
    """

    svt: SVTGuarantee
    multiplicity: int
    resampling_tail: float
    resampled: Budget
    relabelled: Budget
    sample_rate: Fraction
    total: Budget


def agnostic_guarantee(
    svt: SVTGuarantee, n_prime: int, n: int, multiplicity: int
) -> AgnosticGuarantee:
    r"""The guarantee of ``A_AgPrivCl`` (Nandi and Bassily, Alg. 3; Lemma 3.4) for a given
    sparse-vector stage, following ERRATA C5 exactly:

    1. the sparse-vector stage's ``(ε₁, δ₁)`` (:func:`svt_guarantee`);
    2. resampling ``n'`` records of ``S''`` with replacement draws the changed record
       ``r ~ Bin(n', 1/n')`` times; for ``r <= r₀`` group privacy
       (:func:`privlearn.accounting.group_privacy`) gives ``(r₀ε₁, r₀ e^{(r₀−1)ε₁} δ₁)``, and
       the event ``r > r₀`` adds its probability to delta (ERRATA C3);
    3. Lemma 3.1 (Beimel, Nissim and Stemmer 2015, Lemma 4.1, as stated for a ``(1, δ)``-DP
       algorithm) needs that epsilon to be at most 1 — otherwise there is no guarantee and this
       function refuses — and gives ``(4, 4e δ)``; the paper's sharper ``ε* + 3`` is not used;
    4. amplification by subsampling ``n'`` of ``n`` records without replacement:
       ``ε = ln(1 + (n'/n)(e⁴ − 1))``, ``δ = (n'/n) 4e δ``.

    Raises
    ------
    InvalidParameterError
        If the epsilon after step 2 exceeds 1 (Lemma 3.1 does not apply).
    """
    n_prime = check_integer(n_prime, "n_prime", 1)
    n = check_integer(n, "n", 1)
    if n_prime > n:
        raise InvalidParameterError(f"n_prime: must be at most n = {n}, got {n_prime}", "n_prime")
    r0 = check_integer(multiplicity, "multiplicity", 1)
    tail = resampling_tail(n_prime, r0)
    grouped = group_privacy(svt.budget, r0)
    resampled = _budget_up(
        Fraction(grouped.epsilon),
        Fraction(grouped.delta) + Fraction(tail),
        "multiplicity",
        "resampled stage",
    )
    if resampled.epsilon > 1.0:
        raise InvalidParameterError(
            f"noise_scale: after group privacy over r0 = {r0} resampled copies the sparse-vector "
            f"stage is {resampled.epsilon:.6g}-DP, above 1: Lemma 3.1 (LabelBoost) needs a "
            "(1, delta)-DP algorithm, so there is no guarantee (ERRATA C5); raise the noise "
            "scale or lower the cut-off",
            "noise_scale",
        )
    with decimal.localcontext(_context(_DIGITS)):
        relabel_delta = _up(4 * Decimal(1).exp() * Decimal(resampled.delta))
    relabelled = _budget_up(
        Fraction(LABELBOOST_EPSILON), relabel_delta, "multiplicity", "relabelled stage"
    )
    rate = Fraction(n_prime, n)
    total = amplify_by_subsampling(relabelled, n_prime / n, n=n) if n_prime < n else relabelled
    return AgnosticGuarantee(
        svt=svt,
        multiplicity=r0,
        resampling_tail=tail,
        resampled=resampled,
        relabelled=relabelled,
        sample_rate=rate,
        total=total,
    )


def max_sample_rate(epsilon: float) -> float:
    """The largest ``n'/n`` whose amplified ``ln(1 + p (e⁴ − 1))`` is at most ``epsilon``."""
    return min(1.0, math.expm1(epsilon) / math.expm1(LABELBOOST_EPSILON))
