"""Known-broken and correct mechanisms on worst-case neighbours, for the audit power and
false-positive tests (issue 21: tests/test_audit_power.py, tests/test_audit_fpr.py).

Test-only code. Every control is a :class:`Control`: two vectorised samplers ``run(g, size)``
(``g`` a :class:`numpy.random.Generator`; ``size`` outputs along the first axis), one per
neighbouring input, the privacy *claimed* for the mechanism (possibly wrong), its *true*
privacy on that pair (derived in each factory's docstring) and a scalar statistic with a fixed
threshold family for the *baseline* audit: the threshold-event audit of a one-dimensional
statistic that privlearn shipped before issue 21.

Neighbouring notion: privlearn's replace-one. Every mechanism below is a function of a vector of
sensitivity-1 statistics (a value, scores, queries): replacing one record moves each statistic by
at most 1 (in any direction, and different statistics may move in opposite directions), which is
the "all queries differ by at most 1" neighbourhood of Lyu, Su and Li (2017) and of StatDP
(Ding et al., CCS 2018). The pairs below are such vectors, chosen to make the privacy loss large.

The samplers reuse ``tests/dp_controls.py`` (Laplace, Laplace report-noisy-max and the sparse
vector loop) where it has them; this module adds the claims, the true guarantees, the
Gumbel noisy max, the analytic Gaussian (Balle and Wang, ICML 2018) and the Gaussian-DP pair.

==========================  =====================  ==========================================
control                     claim                  true privacy on the pair
==========================  =====================  ==========================================
``laplace``                 eps = 1                eps = 1 (tight)
``laplace-0.8``             eps = 1                eps = 1.25
``noisy-max-laplace``       eps = 1                eps = 0.981 (exact law, quadrature)
``noisy-max-laplace-half``  eps = 1                eps = 1.992
``noisy-max-gumbel``        eps = 1                eps = 0.888 (exact law, softmax)
``noisy-max-gumbel-half``   eps = 1                eps = 1.901
``svt-alg1``                eps = 1                eps = 0.875 (exact, :func:`svt_exact_epsilon`)
``svt-alg2``                eps = 1                eps <= 1 (Lyu-Su-Li)
``svt-alg3``                eps = 1                not eps-DP (releases noisy answers)
``svt-alg4``                eps = 1                eps = 2.888 (exact; (1 + 6c)/4 = 3.25 bound)
``svt-alg5``                eps = 1                infinite (an output impossible on b)
``svt-alg6``                eps = 1                eps = 4.061 (exact, 10 queries)
``gaussian``                (1, 1e-3)              (1, 1e-3) exactly
``gaussian-delta-10x``      (1, 1e-4)              (1, 1e-3): delta claimed 10x too small
``gdp``                     mu = 1 (Gaussian DP)   mu = 1 exactly
``gdp-0.8``                 mu = 1                 mu = 1.25
==========================  =====================  ==========================================
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
from scipy import integrate, special, stats

from dp_controls import laplace as _laplace_sampler
from dp_controls import report_noisy_max as _laplace_noisy_max
from dp_controls import svt as _svt_sampler

Sampler = Callable[[np.random.Generator, int], np.ndarray]


@dataclass(frozen=True)
class Control:
    """A mechanism on one neighbouring pair, with its claim and its true privacy.

    Attributes
    ----------
    name : str
        Identifier (the rows of the module table).
    run_a, run_b : callable
        ``run(g, size)`` -> ``size`` outputs on the two neighbouring inputs.
    claim : float or (float, float) or None
        The claimed epsilon or (epsilon, delta); ``None`` for a Gaussian-DP claim (``mu``).
    mu : float or None
        The claimed Gaussian-DP parameter (:meth:`claimed` builds the ``GaussianDP`` claim).
    broken : bool
        Whether the claim is false on this pair (its true privacy is worse than claimed).
    true : str
        The true guarantee on this pair, in words (derived in the factory's docstring).
    statistic : callable or None
        Scalar projection of vector outputs for the baseline audit (``None``: scalar outputs).
    thresholds : sequence of float
        The fixed threshold family ``x <= t`` of the baseline audit, chosen a priori (never from
        samples).
    """

    name: str
    run_a: Sampler
    run_b: Sampler
    claim: Any
    broken: bool
    true: str
    statistic: Optional[Callable[[np.ndarray], np.ndarray]] = None
    thresholds: Sequence[float] = field(default_factory=tuple)
    mu: Optional[float] = None

    def claimed(self) -> Any:
        """The claim as :func:`privlearn.audit.audit` takes it (``GaussianDP(mu)`` for a
        Gaussian-DP claim; imported here, so that the module loads before it exists)."""
        if self.mu is not None:
            from privlearn.audit import GaussianDP

            return GaussianDP(self.mu)
        return self.claim


# ------------------------------------------------------------------------------------------------
# Laplace
# ------------------------------------------------------------------------------------------------


def laplace(epsilon: float = 1.0, scale_factor: float = 1.0) -> Control:
    r"""The Laplace mechanism on a sensitivity-1 value: outputs ``v + Lap(scale_factor / eps)``
    on ``v = 0`` (a) and ``v = 1`` (b), claiming ``epsilon``.

    Derivation: the density ratio is
    :math:`\exp((|x - 1| - |x|) / b) \le \exp(1 / b)` with equality for every ``x <= 0``, so with
    scale ``b = s / \varepsilon`` the mechanism is exactly ``(epsilon / s)``-DP on this pair (and
    on every pair of values at distance 1, the replace-one worst case of a sensitivity-1 value).
    ``scale_factor = 1``: correct and tight. ``scale_factor = 0.8``: the scale is 20% too small
    and the true epsilon is ``epsilon / 0.8 = 1.25 epsilon`` while ``epsilon`` is claimed.

    Baseline thresholds: ``x <= t`` for ``t`` on a grid of 15 points over ``[-3, 4] / epsilon``
    (the grid a user would write for a value in [0, 1]).
    """
    b = scale_factor / epsilon
    broken = scale_factor < 1.0
    return Control(
        name="laplace" if not broken else f"laplace-{scale_factor:g}",
        run_a=_laplace_sampler(0.0, epsilon, scale_factor),
        run_b=_laplace_sampler(1.0, epsilon, scale_factor),
        claim=epsilon,
        broken=broken,
        true=f"eps = {1.0 / b:g}",
        thresholds=tuple(np.linspace(-3.0, 4.0, 15) / epsilon),
    )


# ------------------------------------------------------------------------------------------------
# Report noisy max
# ------------------------------------------------------------------------------------------------

# Scores on the neighbouring pair: replacing a record raises score 0 by 1 and lowers the three
# others by 1 (opposite directions: the case the factor 2 in the noise scale is for).
NOISY_MAX_A = (0.0, 3.0, 3.0, 3.0)
NOISY_MAX_B = (1.0, 2.0, 2.0, 2.0)


def laplace_noisy_max_probabilities(scores: Sequence[float], scale: float) -> np.ndarray:
    r"""Exact output law of ``argmax(scores + Lap(scale))`` by quadrature:
    :math:`P(i) = \int f(x - s_i) \prod_{j \ne i} F(x - s_j) \, dx` (``f``, ``F`` the Laplace
    density and CDF), on a fine grid (trapezoid rule; error far below 1e-6)."""
    s = np.asarray(scores, dtype=float)
    x = np.linspace(s.min() - 60.0 * scale, s.max() + 60.0 * scale, 400_001)
    dens = stats.laplace.pdf(x[None, :] - s[:, None], scale=scale)
    cdf = stats.laplace.cdf(x[None, :] - s[:, None], scale=scale)
    out = np.empty(len(s))
    for i in range(len(s)):
        others = np.prod(np.delete(cdf, i, axis=0), axis=0)
        out[i] = integrate.trapezoid(dens[i] * others, x)
    return out


def laplace_noisy_max(epsilon: float = 1.0, half_noise: bool = False) -> Control:
    r"""Report noisy max with Laplace noise: ``argmax(s + Lap(2 / epsilon))`` on the scores
    :data:`NOISY_MAX_A` (a) and :data:`NOISY_MAX_B` (b), claiming ``epsilon``.

    Derivation (Dwork and Roth 2014, Claim 3.9, re-derived for replace-one): fix the noise of
    every score but ``i``; ``i`` wins iff its noise exceeds a cut ``c`` (the largest other noisy
    score minus ``s_i``). Under replace-one each score moves by at most 1 in any direction, so the
    cut moves by at most 2 (``s_i`` down 1, another up 1), and the probability that a
    ``Lap(b)`` variable exceeds a cut moved by 2 changes by a factor at most ``exp(2 / b)``.
    Scale ``b = 2 / epsilon`` is therefore epsilon-DP; *half the noise*, ``b = 1 / epsilon``,
    only ``2 epsilon``-DP (the scale that suffices for monotone counting queries under
    add/remove, wrongly used for opposite moves). On this pair the exact law
    (:func:`laplace_noisy_max_probabilities`) gives ``max |ln P_a(i) / P_b(i)| = 0.981`` for
    ``b = 2`` and ``1.992`` for ``b = 1`` at ``epsilon = 1``: the half-noise variant is 1.99x
    its claim; the correct one is nearly tight.

    Baseline: the output index is the scalar; thresholds ``x <= 0, 1, 2``.
    """
    scale = (1.0 if half_noise else 2.0) / epsilon
    true = np.log(
        laplace_noisy_max_probabilities(NOISY_MAX_A, scale)
        / laplace_noisy_max_probabilities(NOISY_MAX_B, scale)
    )
    return Control(
        name="noisy-max-laplace" + ("-half" if half_noise else ""),
        run_a=_laplace_noisy_max(NOISY_MAX_A, epsilon, scale),
        run_b=_laplace_noisy_max(NOISY_MAX_B, epsilon, scale),
        claim=epsilon,
        broken=half_noise,
        true=f"eps = {np.abs(true).max():.3f} on this pair",
        thresholds=(0.0, 1.0, 2.0),
    )


def gumbel_noisy_max_probabilities(scores: Sequence[float], scale: float) -> np.ndarray:
    """Exact output law of ``argmax(scores + Gumbel(scale))``: the softmax of ``scores / scale``
    (the Gumbel-max identity; McFadden 1974)."""
    z = np.asarray(scores, dtype=float) / scale
    return np.exp(z - special.logsumexp(z))


def gumbel_noisy_max(epsilon: float = 1.0, half_noise: bool = False) -> Control:
    r"""Report noisy max with Gumbel noise, i.e. the exponential mechanism (McSherry and Talwar
    2007): ``argmax(s + Gumbel(2 / epsilon))`` on :data:`NOISY_MAX_A` / :data:`NOISY_MAX_B`,
    claiming ``epsilon``.

    Derivation: by the Gumbel-max identity the output law is
    ``P(i) = exp(s_i / b) / sum_j exp(s_j / b)``. Under replace-one every score moves by at most
    1, so the numerator changes by at most ``exp(1 / b)`` and the normaliser by at most
    ``exp(1 / b)`` (the other way): ``b = 2 / epsilon`` is epsilon-DP, and half the noise
    (``b = 1 / epsilon``, the exponential mechanism without its factor 2) is only
    ``2 epsilon``-DP. Both ratios are computed exactly on the pair and recorded in ``true``; the
    pair moves score 0 up and the others down, so both factors come close to their bounds.

    Baseline: the output index; thresholds ``x <= 0, 1, 2``.
    """
    scale = (1.0 if half_noise else 2.0) / epsilon
    pa = gumbel_noisy_max_probabilities(NOISY_MAX_A, scale)
    pb = gumbel_noisy_max_probabilities(NOISY_MAX_B, scale)
    sa, sb = np.asarray(NOISY_MAX_A), np.asarray(NOISY_MAX_B)

    def sampler(s: np.ndarray) -> Sampler:
        def run(g: np.random.Generator, size: int) -> np.ndarray:
            return np.argmax(s + g.gumbel(0.0, scale, size=(size, len(s))), axis=1)

        return run

    return Control(
        name="noisy-max-gumbel" + ("-half" if half_noise else ""),
        run_a=sampler(sa),
        run_b=sampler(sb),
        claim=epsilon,
        broken=half_noise,
        true=f"eps = {np.abs(np.log(pa / pb)).max():.3f} on this pair",
        thresholds=(0.0, 1.0, 2.0),
    )


# ------------------------------------------------------------------------------------------------
# Sparse vector: Lyu, Su and Li (VLDB 2017), Figure 1, Algorithms 1-6
# ------------------------------------------------------------------------------------------------


def count_positives(y: np.ndarray) -> np.ndarray:
    """Baseline statistic of a sparse-vector output row: the number of positive answers (the
    ``y.sum(axis=1)``-style projection a user would pass to audit a vector output)."""
    return (np.asarray(y) == 1).sum(axis=1)


def first_positive(y: np.ndarray) -> np.ndarray:
    """Baseline statistic: the index of the first positive answer (``k`` when there is none)."""
    y = np.asarray(y)
    pos = y == 1 if y.dtype.kind != "f" else y > -1000.0
    k = y.shape[1]
    return np.where(pos.any(axis=1), np.argmax(pos, axis=1), k)


def last_released_value(y: np.ndarray) -> np.ndarray:
    """Baseline statistic of Algorithm 3's real output: the released noisy value when only the
    last query is answered positively, else ``+1e9`` (a value outside every threshold)."""
    only_last = (y[:, :-1] == -1000.0).all(axis=1) & (y[:, -1] > -1000.0)
    return np.where(only_last, y[:, -1], 1e9)


# (queries a, queries b, threshold, c) per algorithm; every query moves by at most 1.
SVT_PAIRS: Dict[int, Any] = {
    # Alg. 1 and 2 (correct): the StatDP "X shape" pair of Alg. 6, c = 1.
    1: ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5, 0.5, 1),
    2: ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5, 0.5, 1),
    # Alg. 3: many negatives on a, then one positive whose noisy value is released.
    3: ((0, 0, 0, 0, 1), (1, 1, 1, 1, 0), 0.0, 1),
    # Alg. 4: c = 2, queries alternating as negatives on a are positives on b.
    4: ((0, 0, 1) * 2, (1, 1, 0) * 2, 0.5, 2),
    # Alg. 5: two queries swapping order (no query noise: the threshold orders them).
    5: ((0, 1), (1, 0), 0.5, 1),
    # Alg. 6: the StatDP "X shape": 5 queries that fall by 1 and 5 that rise by 1.
    6: ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5, 0.5, 1),
}
# The dp_controls variant implementing each algorithm.
_SVT_VARIANT = {1: "svt1", 2: "svt2", 3: "isvt4", 4: "isvt3", 5: "isvt1", 6: "isvt2"}


def svt_exact_epsilon(algorithm: int, epsilon: float = 1.0, pair: Optional[int] = None) -> float:
    r"""The exact privacy loss ``max_o |ln P_a(o) / P_b(o)|`` of Algorithm 1, 4, 5 or 6 on its
    pair (or on ``SVT_PAIRS[pair]``), from the paper's noise scales (derived here, not read from
    the samplers): given ``rho = r`` the answers are independent, so
    :math:`P(o) = \int f_\rho(r) \prod_i P(o_i \mid r) \, dr`, with
    ``P(above | r) = P(nu_i >= T + r - q_i)`` (a step in ``r`` without query noise), summed on a
    grid of 40001 points over +-40 scales of ``rho`` (error < 1e-6 on these pairs). Every output
    row (``2^k`` answer patterns, cut after ``c`` positives when the algorithm halts) is
    enumerated; ``inf`` when an output has probability 0 on one side only."""
    qa, qb, threshold, c = SVT_PAIRS[algorithm if pair is None else pair]
    e1 = epsilon / 4 if algorithm == 4 else epsilon / 2
    e2 = epsilon - e1
    rho_scale = 1.0 / e1
    nu_scale = {1: 2 * c / e2, 4: 1.0 / e2, 5: 0.0, 6: 1.0 / e2}[algorithm]
    halts = algorithm in (1, 4)
    r = np.linspace(-40 * rho_scale, 40 * rho_scale, 40_001)
    w = stats.laplace.pdf(r, scale=rho_scale)
    w /= w.sum()

    def law(q: Sequence[float]) -> Dict[tuple, float]:
        qq = np.asarray(q, dtype=float)[:, None]
        if nu_scale > 0:
            above = stats.laplace.sf(threshold + r[None, :] - qq, scale=nu_scale)
        else:
            above = (qq >= threshold + r[None, :]).astype(float)
        out: Dict[tuple, float] = {}
        for pattern in itertools.product((0, 1), repeat=len(qq)):
            p, count, row = w, 0, []
            for j, o in enumerate(pattern):
                if halts and count >= c:
                    row.append(-1)
                    continue
                p = p * (above[j] if o else 1.0 - above[j])
                row.append(o)
                count += o
            out.setdefault(tuple(row), float(p.sum()))
        return out

    la, lb = law(qa), law(qb)
    worst = 0.0
    for o in set(la) | set(lb):
        pa, pb = la.get(o, 0.0), lb.get(o, 0.0)
        if pa < 1e-12 and pb < 1e-12:
            continue
        if min(pa, pb) < 1e-15:
            return math.inf
        worst = max(worst, abs(math.log(pa / pb)))
    return worst


def sparse_vector(algorithm: int, epsilon: float = 1.0, pair: Optional[int] = None) -> Control:
    r"""Algorithm ``algorithm`` (1-6) of Lyu, Su and Li, "Understanding the Sparse Vector
    Technique for Differential Privacy" (PVLDB 10(6), 2017, Figure 1), with the claim its
    source made (epsilon) and its true guarantee (the paper's Section 4 and its summary table),
    on the pair :data:`SVT_PAIRS` ``[algorithm]``.

    Notation: threshold ``T``, sensitivity ``Delta = 1``, ``c`` the number of positives after
    which the algorithm halts, ``rho`` the threshold noise, ``nu_i`` the query noise; the output
    of a run is a row with ``1`` (above), ``0`` (below), ``-1`` (not answered, halted); Alg. 3
    releases the noisy value instead of ``1`` (``-1000`` below, ``-2000`` halted).

    * **Alg. 1** (the paper's SVT): ``eps1 = eps2 = eps / 2``, ``rho ~ Lap(Delta / eps1)``,
      ``nu_i ~ Lap(2 c Delta / eps2)``, halts after ``c`` positives. epsilon-DP (Theorem 2).
      Replace-one: the proof needs only ``|q_i(D) - q_i(D')| <= Delta`` for every ``i``, which
      sensitivity-1 queries satisfy under any neighbouring notion.
    * **Alg. 2** (Dwork and Roth 2014, Alg. 2): ``rho ~ Lap(c Delta / eps1)`` re-drawn after each
      positive, ``nu_i ~ Lap(2 c Delta / eps1)``: ``c`` independent AboveThreshold runs at
      ``eps / c`` each, epsilon-DP by composition.
    * **Alg. 3** (Roth's 2011 lecture notes): ``rho ~ Lap(Delta / eps1)``,
      ``nu_i ~ Lap(c Delta / eps2)``, and a positive *releases* ``q_i + nu_i``. Not epsilon-DP:
      the released value bounds ``rho`` from above, after which every negative answer is a
      test of ``q_j + nu_j < T + rho`` whose probability ratio between the neighbours no longer
      averages out; the loss grows with the number of negatives before the positive
      (Lyu-Su-Li: not epsilon'-DP for any finite epsilon' over unbounded query streams).
    * **Alg. 4** (Lee and Clifton 2014): ``eps1 = eps / 4``, ``rho ~ Lap(Delta / eps1)``,
      ``nu_i ~ Lap(Delta / eps2)`` with ``eps2 = 3 eps / 4`` *not scaled with c*, halts after
      ``c``: only ``((1 + 6 c) / 4) epsilon``-DP (3.25 epsilon for c = 2).
    * **Alg. 5** (Stoddard et al. 2014): ``rho ~ Lap(Delta / eps1)``, *no query noise*, never
      halts. Not epsilon'-DP for any epsilon': on queries ``(0, 1)`` vs ``(1, 0)`` with
      ``T = 0.5``, the output ``(0, 1)`` has probability ``P(-0.5 < rho <= 0.5) > 0`` on a and
      0 on b (it needs ``1 < T + rho <= 0``).
    * **Alg. 6** (Chen et al. 2015): ``rho ~ Lap(Delta / eps1)``, ``nu_i ~ Lap(Delta / eps2)``
      (not scaled with ``c``), never halts. Not epsilon'-DP for any finite epsilon' over
      unbounded streams: with ``k`` queries that move by 1 in opposite directions the output
      ``(1^m, 0^m)`` has a likelihood ratio growing with ``m``.

    ``pair``: run the algorithm on another algorithm's pair (e.g. the correct Alg. 1 on the
    pair that breaks Alg. 4, as the control that must pass where the broken one fails).

    Baselines: the StatDP-style scalar statistics (Ding et al., CCS 2018, project the output to a
    count): :func:`count_positives` for Alg. 1, 2, 4 and 6, :func:`first_positive` for Alg. 5
    (the count is identical in law on its pair), :func:`last_released_value` for Alg. 3; fixed
    thresholds at the integers (the count or index) or a grid (the released value).
    """
    qa, qb, threshold, c = SVT_PAIRS[algorithm if pair is None else pair]
    variant = _SVT_VARIANT[algorithm]
    correct = algorithm in (1, 2)
    true = {
        1: f"eps <= {epsilon:g}",
        2: f"eps <= {epsilon:g}",
        3: "not eps-DP (loss grows with the negatives before the released value)",
        4: f"eps <= {(1 + 6 * c) / 4 * epsilon:g} (Lee-Clifton, c = {c})",
        5: "infinite",
        6: "not eps-DP (loss grows with the number of queries)",
    }[algorithm]
    k = len(qa)
    if algorithm == 3:
        statistic: Callable[[np.ndarray], np.ndarray] = last_released_value
        thresholds: Sequence[float] = tuple(np.linspace(-4.0, 8.0, 13) / epsilon)
    elif algorithm == 5:
        statistic, thresholds = first_positive, tuple(float(j) for j in range(k))
    else:
        statistic, thresholds = count_positives, tuple(float(j) for j in range(k))
    return Control(
        name=f"svt-alg{algorithm}" + ("" if pair is None else f"-on-pair{pair}"),
        run_a=_svt_sampler(qa, epsilon, threshold, variant, c),
        run_b=_svt_sampler(qb, epsilon, threshold, variant, c),
        claim=epsilon,
        broken=not correct,
        true=true,
        statistic=statistic,
        thresholds=thresholds,
    )


# ------------------------------------------------------------------------------------------------
# Gaussian: (epsilon, delta) and Gaussian DP
# ------------------------------------------------------------------------------------------------


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    r"""The exact delta of the Gaussian mechanism ``N(0, sigma^2)`` at ``epsilon`` (Balle and
    Wang, ICML 2018, Theorem 8):
    :math:`\delta = \Phi(\Delta / (2\sigma) - \varepsilon\sigma/\Delta)
    - e^{\varepsilon}\,\Phi(-\Delta / (2\sigma) - \varepsilon\sigma/\Delta)`.
    This is the hockey-stick divergence :math:`\sup_S P_a(S) - e^\varepsilon P_b(S)` between
    ``N(Delta, sigma^2)`` and ``N(0, sigma^2)``, attained by ``S = {x > t}``."""
    u = sensitivity / (2.0 * sigma)
    v = epsilon * sigma / sensitivity
    return float(stats.norm.cdf(u - v) - math.exp(epsilon) * stats.norm.cdf(-u - v))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest ``sigma`` with :func:`gaussian_delta` ``<= delta`` (Balle and Wang's analytic
    calibration), by bisection on ``log sigma`` (``gaussian_delta`` decreases in ``sigma``),
    to a relative 1e-12, rounded up so the mechanism is never less private than calibrated."""
    lo, hi = 1e-3 * sensitivity, 1e3 * sensitivity
    assert (
        gaussian_delta(lo, epsilon, sensitivity) > delta > gaussian_delta(hi, epsilon, sensitivity)
    )
    while hi / lo > 1.0 + 1e-12:
        mid = math.sqrt(lo * hi)
        if gaussian_delta(mid, epsilon, sensitivity) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _normal_sampler(mean: float, sigma: float) -> Sampler:
    def run(g: np.random.Generator, size: int) -> np.ndarray:
        return g.normal(mean, sigma, size=size)

    return run


def gaussian(epsilon: float = 1.0, delta: float = 1e-3, delta_claim_factor: float = 1.0) -> Control:
    r"""The Gaussian mechanism on a sensitivity-1 value, ``v + N(0, sigma^2)`` on ``v = 1`` (a)
    and ``v = 0`` (b), with ``sigma`` the exact analytic calibration for ``(epsilon, delta)``
    (:func:`analytic_gaussian_sigma`), claiming ``(epsilon, delta * delta_claim_factor)``.

    Derivation: the privacy loss of ``N(1, s^2)`` against ``N(0, s^2)`` is increasing in ``x``
    and the hockey-stick divergence at ``e^epsilon`` is :func:`gaussian_delta` (Balle and Wang,
    Theorem 8); values at distance 1 are the replace-one worst case of a sensitivity-1 value.
    With ``sigma`` calibrated by bisection, the true delta at ``epsilon`` is exactly ``delta``:
    ``delta_claim_factor = 1`` is correct and tight; ``0.1`` claims a delta 10x too small (a
    ``(epsilon, delta / 10)`` claim is false: the divergence at ``e^epsilon`` is ``delta``).

    Baseline thresholds: ``x <= t`` for ``t = 0.5 + sigma * z``, ``z`` on 21 points of
    ``[-4, 4]`` (a grid scaled to the noise, around the midpoint of the two values).
    """
    sigma = analytic_gaussian_sigma(epsilon, delta)
    claimed_delta = delta * delta_claim_factor
    broken = delta_claim_factor < 1.0
    return Control(
        name="gaussian" + (f"-delta-{1 / delta_claim_factor:g}x" if broken else ""),
        run_a=_normal_sampler(1.0, sigma),
        run_b=_normal_sampler(0.0, sigma),
        claim=(epsilon, claimed_delta),
        broken=broken,
        true=f"({epsilon:g}, {delta:g}) exactly (sigma = {sigma:.6f})",
        thresholds=tuple(0.5 + sigma * np.linspace(-4.0, 4.0, 21)),
    )


def gdp(mu: float = 1.0, sigma_factor: float = 1.0) -> Control:
    r"""``N(0, s^2)`` (a) against ``N(mu, s^2)`` (b) with ``s = sigma_factor``, claiming
    ``mu``-Gaussian DP (Dong, Roth and Su, JRSS-B 2022, Definition 2.6: ``mu``-GDP is the
    trade-off function of ``N(0, 1)`` against ``N(mu, 1)``).

    Derivation: the pair is the Gaussian mechanism on a sensitivity-``mu`` value with noise
    ``N(0, s^2)``, i.e. ``(mu / s)``-GDP exactly (Dong-Roth-Su, Theorem 2.7; the trade-off
    function of two normals with equal variance depends only on the mean shift over the standard
    deviation). ``sigma_factor = 1``: correct and tight; ``0.8``: true ``mu / 0.8 = 1.25 mu``
    while ``mu`` is claimed.

    Baseline: the one (epsilon, delta) pair implied by the claim at ``epsilon = 1``
    (``delta = delta_mu(1)``, Dong-Roth-Su Corollary 2.13, which is :func:`gaussian_delta` with
    ``sigma = 1 / mu``), audited with the threshold events ``x <= mu/2 + s z``.
    """
    s = sigma_factor
    broken = sigma_factor < 1.0
    return Control(
        name="gdp" + (f"-{sigma_factor:g}" if broken else ""),
        run_a=_normal_sampler(0.0, s),
        run_b=_normal_sampler(mu, s),
        claim=None,
        mu=mu,
        broken=broken,
        true=f"mu = {mu / s:g}",
        thresholds=tuple(mu / 2 + s * np.linspace(-4.0, 4.0, 21)),
    )


def gdp_implied_claim(mu: float, epsilon: float = 1.0) -> tuple:
    """The ``(epsilon, delta_mu(epsilon))`` pair a ``mu``-GDP claim implies (Dong-Roth-Su,
    Corollary 2.13): the analytic Gaussian delta at ``sigma = 1 / mu``."""
    return (epsilon, gaussian_delta(1.0 / mu, epsilon))


def all_controls() -> List[Control]:
    """Every control of the module table, correct and broken."""
    return [
        laplace(),
        laplace(scale_factor=0.8),
        laplace_noisy_max(),
        laplace_noisy_max(half_noise=True),
        gumbel_noisy_max(),
        gumbel_noisy_max(half_noise=True),
        *(sparse_vector(a) for a in range(1, 7)),
        gaussian(),
        gaussian(delta_claim_factor=0.1),
        gdp(),
        gdp(sigma_factor=0.8),
    ]
