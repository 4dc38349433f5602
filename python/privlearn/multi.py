r"""Simultaneous private learning of many concepts (seed 002).

Bun, Nissim and Stemmer, "Simultaneous private learning of multiple concepts" (ITCS 2016; JMLR
20(94), 2019) ask what it costs to learn ``k`` concepts at once from one private data set whose
examples carry ``k`` labels. Every learner here takes the examples ``X`` and a label matrix ``Y``
of shape ``(n, k)`` (column ``j`` labels concept ``j``), returns ``k`` hypotheses
(``hypotheses_``) and predicts an ``(m, k)`` matrix.

**Neighbouring relation.** Two data sets are neighbours when they have the same number of rows
``n`` (public) and differ in one whole row: the example and all ``k`` of its labels
(replace-one). Every guarantee below is for that relation (errata 002-10).

=================================  ============================================================
learner                            what it is
=================================  ============================================================
:class:`IndependentMultiLearner`   the basic strategy (Observation 3.2): a private learner per
                                   concept, the budget split by basic or advanced composition;
                                   the sample size grows like ``k`` (pure) or ``sqrt(k)``
:class:`SanitizerMultiLearner`     the generic learner (Algorithm 2, Lemmas 3.6-3.7): sanitize
                                   the examples once, take the class's dichotomies on the
                                   sanitized points, one exponential mechanism per concept
:class:`ParityMultiLearner`        ``SearchParities`` (Theorem 3.12): parities under the uniform
                                   distribution, sample size independent of ``k``
:class:`PointMultiLearner`         ``LearnPoints`` (Theorem 3.13): point functions, sample size
                                   independent of ``k`` and of the domain
:class:`NonPrivateMultiLearner`    column-wise ERM, **not differentially private** (the baseline
                                   of the fingerprinting attack)
=================================  ============================================================

Base learners for :class:`IndependentMultiLearner` (one concept each, budget given by the
composite learner): :class:`ExponentialLearner` (the exponential mechanism over a finite,
data-independent candidate set: Kasiviswanathan et al.'s generic learner), and
:class:`StableParityLearner` and :class:`StablePointLearner` (the two stability learners run on
one concept at a time).

**Budgets.** Composite learners take *one* total budget and split it (errata 002-4, 002-5):
``fit`` charges the accountant the exact composed guarantee (``privacy_``, never more than the
total asked for) once, before anything is drawn, and a spend that does not fit raises
:class:`~privlearn.BudgetExceededError` with nothing computed. The theory's settings are
functions (:func:`per_concept_budget`, :func:`parity_subsamples`, :func:`parity_sample_size`,
:func:`points_sample_size`, :func:`exponential_sample_size`); the accuracy knobs
(``subsample_size``, ``alpha``, MWEM's ``rounds``, ...) can be set freely with the accounting
unchanged.

**Randomness.** ``rng`` as everywhere in privlearn: ``None`` (OS entropy) is the only choice
under which the guarantees hold; a seed makes a fit reproducible and voids its privacy.

Examples
--------
>>> import numpy as np
>>> from privlearn.datasets import make_concept_sample
>>> from privlearn.hypotheses import Parities
>>> from privlearn.multi import ParityMultiLearner, parity_sample_size
>>> n = parity_sample_size(dim=16, epsilon=1.0, delta=1e-6)     # independent of k
>>> data = make_concept_sample(Parities(16), n, n_concepts=1000, rng=0)
>>> learner = ParityMultiLearner(16, epsilon=1.0, delta=1e-6, rng=1).fit(data.X, data.y)
>>> learner.hypotheses_ == data.targets                          # all 1000 parities, exactly
True
>>> learner.privacy_
Budget(epsilon=1.0, delta=1e-06)
"""

from __future__ import annotations

import abc
import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from .accounting import Accountant, Budget, compose_advanced, compose_basic
from .errors import InvalidParameterError
from ._search import first_true
from ._validate import check_integer as _integer
from ._validate import check_real as _check_real
from .gf2 import _pack
from .hypotheses import FiniteClass, HypothesisClass, Parities, Parity, Point, Points, _points
from .mechanisms import _charged, exponential, laplace
from .random import Generator, RngLike, as_generator

__all__ = [
    "IndependentMultiLearner",
    "SanitizerMultiLearner",
    "ParityMultiLearner",
    "PointMultiLearner",
    "NonPrivateMultiLearner",
    "SingleConceptLearner",
    "ExponentialLearner",
    "StableParityLearner",
    "StablePointLearner",
    "ZeroHypothesis",
    "ZERO",
    "StabilityHistogram",
    "stability_histogram",
    "mwem",
    "per_concept_budget",
    "parity_subsamples",
    "parity_sample_size",
    "points_sample_size",
    "exponential_sample_size",
    "COMPOSITIONS",
]

#: Composition theorems a composite learner can split its budget by.
COMPOSITIONS: Tuple[str, ...] = ("basic", "advanced")

Hypothesis = Any


@dataclass(frozen=True)
class ZeroHypothesis:
    """The constant function 0. ``LearnPoints`` outputs it for a concept whose point is not
    heavy (and for every concept when it releases nothing); it is not a point function, so
    that learner is improper (Bun, Nissim and Stemmer, §3.8)."""


#: The all-zero hypothesis.
ZERO = ZeroHypothesis()


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _error(name: str, message: str) -> InvalidParameterError:
    return InvalidParameterError(f"{name}: {message}", name)


def _epsilon(value: Any, name: str = "epsilon") -> float:
    return _check_real(value, name, 0.0, lo_open=True)


def _delta(value: Any, positive: bool, name: str = "delta") -> float:
    return _check_real(value, name, 0.0, 1.0, lo_open=positive, hi_open=True)


def _probability(value: Any, name: str, upper_inclusive: bool = False) -> float:
    return _check_real(value, name, 0.0, 1.0, lo_open=True, hi_open=not upper_inclusive)


def _composition(value: Any) -> str:
    if value not in COMPOSITIONS:
        raise _error("composition", f"must be one of {', '.join(map(repr, COMPOSITIONS))}, got {value!r}")
    return str(value)


def _label_matrix(Y: Any, n: Optional[int] = None) -> np.ndarray:
    """``Y`` as a C-contiguous boolean ``(n, k)`` array with ``k >= 1``."""
    a = np.asarray(Y)
    if a.ndim != 2:
        raise _error("Y", f"must be a label matrix of shape (n, k), one column per concept, got shape {a.shape}")
    if a.shape[1] == 0:
        raise _error("Y", f"must have at least one label column (k >= 1), got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise _error("Y", f"must have one row per example ({n} rows), got {a.shape[0]}")
    if a.dtype.kind == "b":
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iuf" or not _zero_one(a):
        raise _error("Y", "must be binary: every label 0 or 1 (or a boolean)")
    return np.ascontiguousarray(a.astype(bool))


def _binary_points(X: Any, dim: int) -> np.ndarray:
    """Examples of ``{0, 1}^dim`` as a ``uint8`` ``(n, dim)`` array."""
    a = np.asarray(X)
    if a.ndim != 2 or a.shape[1] != dim:
        raise _error("X", f"must have shape (n, {dim}), got shape {a.shape}")
    if a.dtype.kind == "b":
        return np.ascontiguousarray(a.view(np.uint8))
    if a.dtype.kind not in "iuf" or not _zero_one(a):
        raise _error("X", "must hold bits: every entry 0 or 1 (or a boolean)")
    return np.ascontiguousarray(a, dtype=np.uint8)


def _zero_one(a: np.ndarray) -> bool:
    """Whether every entry of a numeric array is 0 or 1 (two reductions for integers)."""
    if a.size == 0:
        return True
    if a.dtype.kind in "iu":
        return bool(a.min() >= 0 and a.max() <= 1)
    return bool(np.all((a == 0) | (a == 1)))


def _check_rows(n: int) -> None:
    if n < 1:
        raise _error("X", "must hold at least one example")


def _packed_columns(Y: np.ndarray) -> np.ndarray:
    """The label columns of ``Y`` ``(n, k)`` as packed rows ``(k, words(n))``."""
    return _pack(np.ascontiguousarray(Y.T))


# --------------------------------------------------------------------------------------------
# Theory: budgets and sample sizes
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _basic_split(epsilon: float, delta: float, k: int) -> Tuple[Budget, Budget]:
    per = Budget(epsilon, delta) / k
    return per, compose_basic([per] * k)


@functools.lru_cache(maxsize=512)
def _advanced_split(epsilon: float, delta: float, k: int, pure: bool) -> Tuple[Budget, Budget]:
    slack = delta if pure else delta / 2.0
    per_delta = 0.0 if pure else (Budget(0.0, delta) / (2 * k)).delta

    def total(e: float) -> Budget:
        return compose_advanced(Budget(e, per_delta), k, slack)

    def fits(e: float) -> bool:
        try:
            return total(e).epsilon <= epsilon
        except InvalidParameterError:  # the bound overflows a float: far too large
            return False

    lo, hi = 0.0, epsilon
    while fits(hi):  # only when sqrt(2k ln(1/slack)) < 1
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid <= lo or mid >= hi:
            break
        if fits(mid):
            lo = mid
        else:
            hi = mid
    if lo == 0.0:
        raise _error("epsilon", f"is too small to split over k = {k} concepts by advanced composition")
    per = Budget(lo, per_delta)
    return per, total(lo)


def per_concept_budget(
    epsilon: float, delta: float, k: int, *, composition: str = "basic", pure: bool = True
) -> Tuple[Budget, Budget]:
    r"""Split a total budget over ``k`` concepts learned separately (Bun, Nissim and Stemmer,
    Observation 3.2; errata 002-5).

    * ``"basic"``: each concept gets ``(epsilon/k, delta/k)`` (``(epsilon/k, 0)`` for a pure
      base learner), rounded down; the total is their sum (basic composition, Dwork and Roth
      Theorem 3.16), :func:`~privlearn.accounting.compose_basic`.
    * ``"advanced"``: each concept gets ``(eps_0, delta_0)`` with ``delta_0 = delta/(2k)`` and
      slack ``delta' = delta/2`` (for a pure base learner ``delta_0 = 0`` and
      ``delta' = delta``), and ``eps_0`` is the largest double (found by bisection) with
      ``sqrt(2k ln(1/delta')) eps_0 + k eps_0 (e^eps_0 - 1) <= epsilon`` as computed by
      :func:`~privlearn.accounting.compose_advanced` (Dwork, Rothblum and Vadhan 2010; Dwork and
      Roth Theorem 3.20), which gives the total. This gives each concept more than basic
      composition's ``epsilon/k`` only when ``k`` exceeds about ``2 ln(1/delta')``.

    Parameters
    ----------
    epsilon : float
        Total epsilon, finite and > 0.
    delta : float
        Total delta in ``[0, 1)`` (``> 0`` for advanced composition or an approximate base).
    k : int
        Number of concepts, >= 1.
    composition : {"basic", "advanced"}
    pure : bool, default True
        Whether the base learner is pure DP (then no delta goes to the concepts).

    Returns
    -------
    (Budget, Budget)
        The budget of each concept, and the total guarantee of the ``k`` of them composed (at
        most ``(epsilon, delta)``).

    Examples
    --------
    >>> from privlearn.multi import per_concept_budget
    >>> per_concept_budget(1.0, 0.0, 4)
    (Budget(epsilon=0.25, delta=0.0), Budget(epsilon=1.0, delta=0.0))
    >>> each, total = per_concept_budget(1.0, 1e-6, 1000, composition="advanced")
    >>> round(each.epsilon, 6), total.epsilon <= 1.0, total.delta <= 1e-6
    (0.005812, True, True)
    """
    epsilon = _epsilon(epsilon)
    composition = _composition(composition)
    k = _integer(k, "k", 1)
    delta = _delta(delta, positive=composition == "advanced" or not pure)
    if composition == "basic":
        return _basic_split(epsilon, 0.0 if pure else delta, k)
    return _advanced_split(epsilon, delta, k, bool(pure))


def parity_subsamples(epsilon: float, delta: float, beta: float = 0.05) -> int:
    r"""The number of subsamples ``T`` for which :class:`ParityMultiLearner` recovers every
    target exactly with probability at least ``1 - beta`` (Bun, Nissim and Stemmer,
    Theorem 3.12, with explicit constants for the safe discrete-Laplace ``A_dist``).

    ``T = ceil(max(32 ln(2/beta), (4/3) (5 + (2/epsilon) ln(4/(beta delta)))))``. Derivation:
    with subsamples of ``dim + 3`` uniform examples, each has rank ``dim`` with probability above
    ``7/8`` and then yields exactly the target vector, so by Hoeffding at least ``3T/4`` do,
    except with probability ``e^{-T/32} <= beta/2``; every other vector appears 0 times, so the
    gap is at least ``3T/4``; the selection (noise of scale ``b = 2/epsilon``, threshold at most
    ``4 + b ln(2/delta)``) releases the best vector except with probability ``beta/2`` once the
    gap exceeds ``5 + b ln(4/(beta delta))``. Independent of ``k`` and of ``dim``.

    Examples
    --------
    >>> from privlearn.multi import parity_subsamples
    >>> parity_subsamples(1.0, 1e-6)
    119
    """
    epsilon = _epsilon(epsilon)
    delta = _delta(delta, positive=True)
    beta = _probability(beta, "beta")
    chernoff = 32.0 * math.log(2.0 / beta)
    selection = (4.0 / 3.0) * (5.0 + (2.0 / epsilon) * math.log(4.0 / (beta * delta)))
    return int(math.ceil(max(chernoff, selection)))


def parity_sample_size(dim: int, epsilon: float, delta: float, beta: float = 0.05) -> int:
    """``parity_subsamples(epsilon, delta, beta) * (dim + 3)``: a sample size for which
    :class:`ParityMultiLearner` (default subsamples of ``dim + 3`` rows) recovers all ``k``
    targets exactly with probability at least ``1 - beta``, whatever ``k`` (Theorem 3.12).

    Examples
    --------
    >>> from privlearn.multi import parity_sample_size
    >>> parity_sample_size(20, 1.0, 1e-6)
    2737
    """
    dim = _integer(dim, "dim", 1)
    return parity_subsamples(epsilon, delta, beta) * (dim + 3)


def points_sample_size(alpha: float, epsilon: float, delta: float, beta: float = 0.05) -> int:
    r"""A sample size for which :class:`PointMultiLearner` is ``(alpha, beta)``-accurate for every
    realizable distribution, every domain and every ``k`` (Bun, Nissim and Stemmer,
    Theorem 3.13, with explicit constants for this implementation).

    The smallest ``n`` with (natural logarithms; ``b = 4/epsilon``, the noise scale of each
    half of the budget):

    1. ``n >= (8/alpha) ln(3/(alpha beta))``: by a Chernoff bound and a union bound over the at
       most ``1/alpha`` points of mass ``>= alpha``, each appears at least ``alpha n / 2`` times,
       except with probability ``beta/3``;
    2. ``2 n e^{-alpha n / (8 b)} <= beta/3``: every noisy count of the histogram is within
       ``alpha n / 8`` of the count (at most ``n`` points in the data);
    3. ``alpha n / 8 >= 5 + b ln(12/(beta delta))``: every heavy point (noisy count
       ``>= alpha n / 4``, hence count ``>= alpha n / 8``) carries a single label vector, so the
       gap of the stable selection is at least ``alpha n / 8``, which releases it except with
       probability ``beta/3``; this also makes every point of count ``>= alpha n / 2`` clear the
       histogram's threshold.

    Then a concept whose point is heavy is learned exactly, and any other has mass below
    ``alpha`` and gets the all-zero hypothesis. Independent of ``k`` and of the domain.

    Examples
    --------
    >>> from privlearn.multi import points_sample_size
    >>> points_sample_size(0.1, 1.0, 1e-6)
    6575
    """
    alpha = _probability(alpha, "alpha", upper_inclusive=True)
    epsilon = _epsilon(epsilon)
    delta = _delta(delta, positive=True)
    beta = _probability(beta, "beta")
    b = _core.multi_points_noise_scale(epsilon)  # the scale the sampler uses (rounded up)
    n1 = math.ceil((8.0 / alpha) * math.log(3.0 / (alpha * beta)))
    n3 = math.ceil((8.0 / alpha) * (5.0 + b * math.log(12.0 / (beta * delta))))

    def noise_ok(n: int) -> bool:
        return math.log(2.0 * n) - alpha * n / (8.0 * b) <= math.log(beta / 3.0)

    # noise_ok is monotone once n exceeds 8b/alpha, and n3 > 8b/alpha.
    n = first_true(noise_ok, max(n1, n3, 1))
    assert n is not None
    return n


def exponential_sample_size(
    n_candidates: int, alpha: float, epsilon: float, beta: float = 0.05, k: int = 1
) -> int:
    r"""A sample size for which ``k`` runs of :class:`ExponentialLearner` over ``n_candidates``
    hypotheses, each with budget ``epsilon``, are all agnostically ``alpha``-accurate (excess
    population error at most ``alpha`` over the best candidate) with probability ``1 - beta``
    (Kasiviswanathan et al. 2011, Theorem 3.4; the constants of erratum 002-6):
    ``n >= max((4/(alpha epsilon)) ln(2 k |C| / beta), (8/alpha^2) ln(4 k |C| / beta))``.

    Pass the per-concept epsilon of the composition (:func:`per_concept_budget`).

    Examples
    --------
    >>> from privlearn.multi import exponential_sample_size
    >>> exponential_sample_size(256, 0.1, 1.0)
    7942
    """
    c = _integer(n_candidates, "n_candidates", 1)
    alpha = _probability(alpha, "alpha", upper_inclusive=True)
    epsilon = _epsilon(epsilon)
    beta = _probability(beta, "beta")
    k = _integer(k, "k", 1)
    em = (4.0 / (alpha * epsilon)) * math.log(2.0 * k * c / beta)
    uniform = (8.0 / alpha**2) * math.log(4.0 * k * c / beta)
    return int(math.ceil(max(em, uniform)))


# --------------------------------------------------------------------------------------------
# Private primitives: the stability histogram and MWEM
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StabilityHistogram:
    """The output of :func:`stability_histogram`: the released points (sorted, one row each)
    and their noisy frequencies (noisy count / n). Nothing else is released: in particular not
    which other points occur in the data."""

    points: np.ndarray
    frequencies: np.ndarray

    def __len__(self) -> int:
        return int(self.points.shape[0])


def _support(X2: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows (sorted lexicographically: a data-independent order), each row's index
    among them, and the counts."""
    keys, inverse, counts = np.unique(X2, axis=0, return_inverse=True, return_counts=True)
    return keys, np.asarray(inverse).reshape(-1).astype(np.int64), counts.astype(np.uint64)


def stability_histogram(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    rng: RngLike = None,
    accountant: Optional[Accountant] = None,
) -> StabilityHistogram:
    r"""The stability-based sanitizer for point functions (Bun, Nissim and Stemmer,
    Proposition 2.20), with exact discrete Laplace noise.

    For every distinct point ``x`` of the data with count ``c_x``, draws ``Z`` from the discrete
    Laplace law of scale ``2/epsilon`` and releases ``(x, (c_x + Z)/n)`` iff ``c_x + Z >= 1 + t``,
    ``t`` the smallest integer with ``e^{-t/b}/(1 + e^{-1/b}) <= delta/2`` (plus one; erratum
    002-2). Only released points are returned, sorted (erratum 002-3: nothing reveals which
    other points occur). The frequencies answer every point-function counting query: a point
    not returned has answer 0.

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (``n`` public): replacing a
    row changes two counts by one; a count that stays positive is released through an
    ``epsilon/2``-DP noisy count, and a count that drops from 1 to 0 is released on one side
    only, with probability at most ``delta/2``.

    **Accuracy:** each released frequency is within ``s/n`` of the true one except with
    probability ``2 e^{-s epsilon/2}``; a point whose count exceeds ``1 + t + s`` is released
    except with probability ``e^{-s epsilon/2}``.

    Parameters
    ----------
    X : array_like, shape (n,) or (n, dim)
        The points (finite numbers; rows compared exactly).
    epsilon : float
    delta : float
        In ``(0, 1)``.
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        Charged ``(epsilon, delta)`` before anything is drawn.

    Returns
    -------
    StabilityHistogram
        ``points`` has the layout of ``X`` (``(r,)`` or ``(r, dim)``).
    """
    epsilon = _epsilon(epsilon)
    delta = _delta(delta, positive=True)
    a = np.asarray(X)
    one_d = a.ndim == 1
    X2 = _points(a, 1 if one_d else (a.shape[1] if a.ndim == 2 else -1))
    _check_rows(X2.shape[0])
    keys, _, counts = _support(X2)

    def run() -> Tuple[np.ndarray, np.ndarray]:
        return _core.multi_stability_histogram(counts, epsilon, delta, as_generator(rng))

    idx, noisy = _charged(accountant, epsilon, delta, "stability histogram", run)
    pts = keys[idx]
    return StabilityHistogram(pts[:, 0] if one_d else pts, noisy / float(X2.shape[0]))


def mwem(
    counts: Any,
    queries: Any,
    epsilon: float,
    *,
    rounds: int = 10,
    rng: RngLike = None,
    accountant: Optional[Accountant] = None,
) -> np.ndarray:
    r"""MWEM (Hardt, Ligett and McSherry, "A simple and practical algorithm for differentially
    private data release", NeurIPS 2012, Algorithm 1): a synthetic distribution over a finite
    domain that answers a set of counting queries.

    Starting from the uniform distribution ``A_0`` (scaled to ``n`` records), each of ``rounds``
    rounds picks the query with the largest error ``|q(A) - q(D)|`` by the exponential mechanism
    (``epsilon / (2 rounds)``, scores of sensitivity 1 in record units), measures it with the
    Laplace mechanism (``epsilon / (2 rounds)``, sensitivity 1), and applies the multiplicative
    weights update ``A(x) <- A(x) exp(q(x) (m - q(A)) / (2n))`` for every measurement so far
    (ten passes; post-processing). The result is the average of the rounds' distributions.

    **Privacy:** ``epsilon``-DP (pure) for replace-one neighbours with ``n`` public (Hardt,
    Ligett and McSherry, Theorem 2.1: ``2 rounds`` mechanisms of ``epsilon / (2 rounds)``, basic
    composition): replacing one record changes every counting query by at most 1. The mechanisms
    are the exact ones of :mod:`privlearn.mechanisms`. This is the published substitute for the
    notes' private multiplicative weights allowed by erratum 002-11.

    Parameters
    ----------
    counts : array_like of int, shape (N,)
        The data as a histogram over the domain ``{0, ..., N-1}`` (``n = counts.sum() >= 1``).
    queries : array_like of 0/1, shape (Q, N)
        The counting queries, each the indicator of a subset of the domain.
    epsilon : float
    rounds : int, default 10
        An accuracy knob (any value keeps the guarantee).
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        Charged ``epsilon`` before anything is drawn.

    Returns
    -------
    numpy.ndarray of float64, shape (N,)
        The synthetic distribution (non-negative, sums to 1).
    """
    epsilon = _epsilon(epsilon)
    rounds = _integer(rounds, "rounds", 1)
    h = np.asarray(counts)
    if h.ndim != 1 or h.size == 0 or h.dtype.kind not in "iub" or np.any(h < 0):
        raise _error("counts", "must be a non-empty one-dimensional array of non-negative integers")
    h = h.astype(np.float64)
    n = float(h.sum())
    if n < 1:
        raise _error("counts", "must hold at least one record")
    q = np.asarray(queries)
    if q.ndim != 2 or q.shape[1] != h.size or q.shape[0] == 0:
        raise _error("queries", f"must have shape (Q, {h.size}) with Q >= 1, got {q.shape}")
    if q.dtype.kind not in "biuf" or not np.all((q == 0) | (q == 1)):
        raise _error("queries", "must hold 0/1 indicators")
    qf = q.astype(np.float64)
    true = qf @ h
    # 2 * rounds mechanisms of `step` each must compose (basic composition) to at most the
    # epsilon charged: the split is rounded down (a float epsilon / (2 rounds) can round up).
    step = (Budget(epsilon) / (2 * rounds)).epsilon

    def run() -> np.ndarray:
        gen = as_generator(rng)
        a = np.full(h.size, n / h.size)
        measured: List[Tuple[int, float]] = []
        total = np.zeros(h.size)
        for _ in range(rounds):
            err = np.abs(qf @ a - true)
            i = int(exponential(err, step, 1.0, rng=gen))
            m = float(laplace(float(true[i]), 1.0, step, rng=gen))
            measured.append((i, m))
            for _ in range(10):
                for j, mj in measured:
                    a = a * np.exp(qf[j] * (mj - float(qf[j] @ a)) / (2.0 * n))
                    a *= n / a.sum()
            total += a
        return total / total.sum()

    return _charged(accountant, epsilon, 0.0, "MWEM", run)


# --------------------------------------------------------------------------------------------
# Single-concept base learners (for IndependentMultiLearner)
# --------------------------------------------------------------------------------------------


class SingleConceptLearner(abc.ABC):
    """A private learner of one concept, run by :class:`IndependentMultiLearner` on each label
    column with the budget the composition gives it.

    Subclasses implement :meth:`learn_columns`, which must learn column ``j`` from
    ``(X, Y[:, j])`` alone with independent randomness, as an ``(epsilon, delta)``-DP
    (replace-one) algorithm, and :meth:`predict`. :attr:`pure` says whether ``delta`` is unused.
    """

    #: Whether the learner is pure DP (ignores ``delta``).
    pure: bool = True

    @abc.abstractmethod
    def check_X(self, X: Any) -> np.ndarray:
        """Validated examples (no randomness, no privacy cost)."""

    @abc.abstractmethod
    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        """One hypothesis per column of ``Y``, each an ``(epsilon, delta)``-DP function of
        ``(X, Y[:, j])``."""

    @abc.abstractmethod
    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        """Boolean predictions of ``h`` on validated examples."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _predictions(cls: HypothesisClass, hyps: Sequence[Hypothesis], X: np.ndarray) -> np.ndarray:
    """``(len(hyps), n)`` boolean predictions."""
    return np.stack([np.asarray(cls.predict(h, X), dtype=bool) for h in hyps]) if hyps else np.zeros((0, len(X)), bool)


def _grouped(hyps: Sequence[Hypothesis], predict_one: Callable[[Hypothesis], np.ndarray], m: int) -> np.ndarray:
    """``(m, k)`` predictions, each distinct hypothesis evaluated once."""
    out = np.zeros((m, len(hyps)), dtype=bool)
    groups: Dict[Any, List[int]] = {}
    for j, h in enumerate(hyps):
        groups.setdefault(h, []).append(j)
    for h, cols in groups.items():
        out[:, cols] = np.asarray(predict_one(h), dtype=bool)[:, None]
    return out


def _mistakes(pred: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``(h, k)`` int64: disagreements of each prediction row with each label column (Rust)."""
    return _core.multi_mistakes(_pack(pred), _packed_columns(Y))


def _em_columns(candidates: Sequence[Hypothesis], mistakes: np.ndarray, epsilon: float, gen: Generator) -> List[Hypothesis]:
    """One exponential mechanism per column: candidate ``i`` with probability proportional to
    ``exp(-epsilon mistakes[i, j] / 2)`` (integer scores: sampled exactly)."""
    return [candidates[int(exponential(-mistakes[:, j], epsilon, 1.0, rng=gen))] for j in range(mistakes.shape[1])]


class ExponentialLearner(SingleConceptLearner):
    r"""The exponential mechanism over a finite candidate set (Kasiviswanathan, Lee, Nissim,
    Raskhodnikova and Smith, "What can we learn privately?", SIAM J. Comput. 2011, Theorem 3.4;
    the per-concept learner of Bun, Nissim and Stemmer's basic strategy, §3.1).

    For a label column ``y``, returns candidate ``h`` with probability proportional to
    ``exp(-epsilon * #{i : h(x_i) != y_i} / 2)``. The mistake count moves by at most 1 when one
    example is replaced, so this is ``epsilon``-DP (pure, replace-one; McSherry and Talwar 2007),
    sampled exactly from the integer counts. It is a proper, agnostic learner: with
    :func:`exponential_sample_size` examples its excess error is at most ``alpha``.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    candidates : sequence of hypotheses, optional
        A finite candidate set **chosen without looking at the data**. By default the class's
        own finite set: every member of a :class:`~privlearn.hypotheses.FiniteClass` given as a
        matrix (one per distinct labeling of its domain), all ``2^dim`` parities of
        :class:`~privlearn.hypotheses.Parities` (``dim <= 16``), or every point of
        :class:`~privlearn.hypotheses.Points` with a ``domain_size``.
    """

    pure = True

    def __init__(self, hypothesis_class: HypothesisClass, candidates: Optional[Sequence[Hypothesis]] = None) -> None:
        if not isinstance(hypothesis_class, HypothesisClass):
            raise _error("hypothesis_class", f"must be a class from privlearn.hypotheses, got {type(hypothesis_class).__name__}")
        self.hypothesis_class = hypothesis_class
        if candidates is None:
            self.candidates = _default_candidates(hypothesis_class)
        else:
            cands = list(candidates)
            if not cands:
                raise _error("candidates", "must hold at least one hypothesis")
            self.candidates = [hypothesis_class._check_h(h) for h in cands]

    def check_X(self, X: Any) -> np.ndarray:
        return self.hypothesis_class._check_X(X)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        pred = _predictions(self.hypothesis_class, self.candidates, X)
        return _em_columns(self.candidates, _mistakes(pred, Y), epsilon, rng)

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.hypothesis_class.predict(h, X), dtype=bool)

    def __repr__(self) -> str:
        return f"ExponentialLearner({self.hypothesis_class!r}, {len(self.candidates)} candidates)"


def _default_candidates(cls: HypothesisClass) -> List[Hypothesis]:
    if isinstance(cls, Parities):
        if cls.dim > 16:
            raise _error("candidates", f"all 2^{cls.dim} parities are too many; pass a candidate list")
        # The labelings of e_1..e_dim are all of {0,1}^dim; their representatives are all parities.
        return cls.dichotomies(np.eye(cls.dim, dtype=np.uint8)).hypotheses()
    if isinstance(cls, Points) and cls.domain_size is not None:
        return [Point(i) for i in range(cls.domain_size)]
    if isinstance(cls, FiniteClass) and cls.domain_size is not None:
        return cls.dichotomies(np.arange(cls.domain_size)).hypotheses()
    raise _error(
        "candidates",
        f"{cls!r} has no finite default candidate set; pass a finite list chosen without the data",
    )


class StableParityLearner(SingleConceptLearner):
    """``SearchParities`` (Bun, Nissim and Stemmer, Theorem 3.12) on one concept at a time:
    ``(epsilon, delta)``-DP per concept (see :class:`ParityMultiLearner`). With
    :class:`IndependentMultiLearner` it is the basic strategy for parities under approximate DP,
    whose sample size grows with ``k``, unlike :class:`ParityMultiLearner`'s.

    Parameters
    ----------
    dim : int
    subsample_size : int, optional
        Rows per subsample (default ``dim + 3``).
    """

    pure = False

    def __init__(self, dim: int, subsample_size: Optional[int] = None) -> None:
        self.dim = _integer(dim, "dim", 1)
        self.subsample_size = None if subsample_size is None else _integer(subsample_size, "subsample_size", self.dim)

    def check_X(self, X: Any) -> np.ndarray:
        return _binary_points(X, self.dim)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        xw = _pack(X)
        m = self.subsample_size or self.dim + 3
        out = []
        for j in range(Y.shape[1]):
            sol, _ = _core.multi_search_parities(xw, self.dim, _pack(Y[:, j : j + 1]), 1, m, epsilon, delta, rng)
            bits = np.zeros((self.dim, 1), np.uint8) if sol is None else _unpack_words(sol, 1)
            out.extend(_parities(bits))
        return out

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return np.asarray(Parities(self.dim).predict(h, X), dtype=bool)

    def __repr__(self) -> str:
        return f"StableParityLearner(dim={self.dim}, subsample_size={self.subsample_size})"


class StablePointLearner(SingleConceptLearner):
    """``LearnPoints`` (Bun, Nissim and Stemmer, Theorem 3.13) on one concept at a time:
    ``(epsilon, delta)``-DP per concept (see :class:`PointMultiLearner`).

    Parameters
    ----------
    alpha : float, default 0.1
        Target error (points of noisy frequency ``>= alpha/4`` are heavy).
    """

    pure = False

    def __init__(self, alpha: float = 0.1) -> None:
        self.alpha = _probability(alpha, "alpha", upper_inclusive=True)

    def check_X(self, X: Any) -> np.ndarray:
        return _point_rows(X)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        keys, ids, _ = _support(X)
        out: List[Hypothesis] = []
        for j in range(Y.shape[1]):
            heavy, labels = _core.multi_learn_points(
                ids, len(keys), _pack(Y[:, j : j + 1]), 1, self.alpha, epsilon, delta, rng
            )
            out.append(_points_hypotheses(keys, heavy, labels, 1)[0])
        return out

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return _point_predictions([h], X)[:, 0]

    def __repr__(self) -> str:
        return f"StablePointLearner(alpha={self.alpha})"


def _unpack_words(words: np.ndarray, cols: int) -> np.ndarray:
    """Packed rows -> uint8 ``(rows, cols)``."""
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(words.shape[0], -1)
    return np.unpackbits(as_bytes, axis=1, count=cols, bitorder="little")


def _parities(coef: np.ndarray) -> List[Parity]:
    """The parities whose indicator vectors are the columns of ``coef`` (``dim x k``)."""
    dim, k = coef.shape
    cols, rows = np.nonzero(np.ascontiguousarray(coef.T))
    bounds = [0, *np.searchsorted(cols, np.arange(1, k)).tolist(), len(cols)]
    flat = rows.tolist()
    return [Parity(tuple(flat[a:b]), dim) for a, b in zip(bounds, bounds[1:])]


def _point_rows(X: Any) -> np.ndarray:
    """Points as a float64 ``(n, dim)`` array (``(n,)`` is ``dim = 1``)."""
    a = np.asarray(X)
    if a.ndim not in (1, 2):
        raise _error("X", f"must have shape (n,) or (n, dim), got shape {a.shape}")
    return _points(a, 1 if a.ndim == 1 else a.shape[1])


def _as_point(key: np.ndarray) -> Point:
    if key.shape[0] == 1 and float(key[0]).is_integer():
        return Point(int(key[0]))
    return Point(tuple(float(v) for v in key))


def _points_hypotheses(keys: np.ndarray, heavy: np.ndarray, labels: Optional[np.ndarray], k: int) -> List[Hypothesis]:
    """``h_j``: the first heavy point (in sorted order) whose released label vector has bit
    ``j``, else the all-zero function (Algorithm 5, step 5)."""
    if labels is None or len(heavy) == 0:
        return [ZERO] * k
    bits = _unpack_words(labels, k).astype(bool)  # (|H|, k)
    has: np.ndarray = np.any(bits, axis=0)
    first = np.argmax(bits, axis=0)
    return [_as_point(keys[heavy[first[j]]]) if has[j] else ZERO for j in range(k)]


def _point_predictions(hyps: Sequence[Hypothesis], X2: np.ndarray) -> np.ndarray:
    """``(n, k)`` predictions of point functions and the all-zero function."""
    out = np.zeros((X2.shape[0], len(hyps)), dtype=bool)
    groups: Dict[Any, List[int]] = {}
    for j, h in enumerate(hyps):
        if isinstance(h, Point):
            groups.setdefault(h.p, []).append(j)
        elif not isinstance(h, ZeroHypothesis):
            raise _error("h", f"must be a Point or ZERO, got {h!r}")
    for p, cols in groups.items():
        coords = np.atleast_1d(np.asarray(p, dtype=np.float64))
        if coords.shape[0] != X2.shape[1]:
            continue  # a point of another dimension matches nothing
        mask = np.all(X2 == coords, axis=1)
        out[:, cols] = mask[:, None]
    return out


# --------------------------------------------------------------------------------------------
# Multi-learners
# --------------------------------------------------------------------------------------------


class _MultiLearner:
    """Shared machinery: parameters (scikit-learn style), validation, one charge per fit."""

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
                raise _error(name, f"is not a parameter of {type(self).__name__} ({', '.join(self._params)})")
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

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> Optional[List[Hypothesis]]:  # pragma: no cover
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
        n = _integer(n_samples, "n_samples", 1)
        if n_concepts is None:
            if self._guarantee_needs_k:
                raise _error(
                    "n_concepts",
                    f"the guarantee of {type(self).__name__} composes one budget per concept: "
                    "pass the number of concepts k",
                )
            k = 1
        else:
            k = _integer(n_concepts, "n_concepts", 1)
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
            raise AttributeError(f"this {type(self).__name__} is not fitted yet; call fit(X, Y) first")
        if self._hypotheses is None:
            self._hypotheses = self._build_hypotheses()
        return self._hypotheses

    def _charged_fit(self, X: np.ndarray, Y: np.ndarray, budget: Optional[Budget]) -> Optional[List[Hypothesis]]:
        if budget is None:
            return self._learn(X, Y, as_generator(self.rng))
        return _charged(
            self.accountant, budget.epsilon, budget.delta, self._label, lambda: self._learn(X, Y, as_generator(self.rng))
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
            raise _error("self", f"this {type(self).__name__} is not fitted yet; call fit(X, Y) first")

    def _predict(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of the ``k`` hypotheses: a boolean array of shape ``(m, k)`` (column
        ``j`` is concept ``j``). Post-processing: no privacy cost."""
        self._fitted()
        return self._predict(self._check_X(X))

    def errors(self, X: Any, Y: Any) -> np.ndarray:
        """The fraction of examples each hypothesis gets wrong: shape ``(k,)`` (empirical error
        per concept)."""
        pred = self.predict(X)
        Yc = _label_matrix(Y, pred.shape[0])
        if Yc.shape[1] != pred.shape[1]:
            raise _error("Y", f"must have {pred.shape[1]} columns (one per concept), got {Yc.shape[1]}")
        return np.mean(pred != Yc, axis=0)


class ParityMultiLearner(_MultiLearner):
    r"""``SearchParities``: private learning of ``k`` parities under the uniform distribution
    with a sample size independent of ``k`` (Bun, Nissim and Stemmer, Algorithm 4 and
    Theorem 3.12).

    The rows are split by index into ``T = floor(n / subsample_size)`` subsamples (leftover rows
    are unused). On each, one GF(2) elimination of ``[A_t | B_t]`` (the examples and all ``k``
    label columns, in Rust) finds the vector of ``k`` parities consistent with the subsample
    when the examples have rank ``dim`` and every column is consistent; otherwise the subsample
    gives no candidate. The most frequent vector is then released by the Smith–Thakurta stable
    selection (``A_dist``, Proposition 3.11, in the safe parametrisation of errata 002-1/002-2:
    discrete Laplace noise of scale ``2/epsilon`` on the gap between the two best counts and a
    threshold ``2 + t``), or nothing (⊥: :attr:`released_` is false and every hypothesis is
    the zero parity).

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (one row's example and all
    ``k`` labels replaced; ``n`` public): a row lies in one subsample, so it changes at most one
    candidate and every count by at most one, and the selection is ``(epsilon, delta)``-DP for
    such counts. With fewer than ``subsample_size`` rows nothing is computed from the data
    (``privacy_`` is zero and nothing is charged).

    **Accuracy:** proper and exact: with :func:`parity_sample_size` examples from the uniform
    distribution labelled by ``k`` parities, all ``k`` are recovered exactly with probability
    ``1 - beta``, whatever ``k``.

    Parameters
    ----------
    dim : int
        The cube ``{0, 1}^dim``.
    epsilon : float
    delta : float
        In ``(0, 1)``.
    subsample_size : int, optional
        Rows per subsample, at least ``dim`` (default ``dim + 3``: each subsample then has full
        rank with probability above ``7/8``). An accuracy knob.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list of Parity
    coefficients_ : numpy.ndarray of uint8, shape (dim, k)
        Column ``j`` is the indicator vector of parity ``j``.
    released_ : bool
        Whether the selection released a vector (false: ⊥).
    n_subsamples_ : int
    privacy_ : Budget
    """

    _params = ("dim", "epsilon", "delta", "subsample_size", "accountant", "rng")
    _label = "ParityMultiLearner (SearchParities)"

    def __init__(
        self,
        dim: int,
        epsilon: float,
        delta: float,
        *,
        subsample_size: Optional[int] = None,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.dim = dim
        self.epsilon = epsilon
        self.delta = delta
        self.subsample_size = subsample_size
        self.accountant = accountant
        self.rng = rng

    @property
    def hypothesis_class(self) -> Parities:
        """``Parities(dim)``."""
        return Parities(_integer(self.dim, "dim", 1))

    def _m(self) -> int:
        dim = _integer(self.dim, "dim", 1)
        return dim + 3 if self.subsample_size is None else _integer(self.subsample_size, "subsample_size", dim)

    def _check_X(self, X: Any) -> np.ndarray:
        return _binary_points(X, _integer(self.dim, "dim", 1))

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        b = Budget(_epsilon(self.epsilon), _delta(self.delta, positive=True))
        return b if n >= self._m() else Budget(0.0)

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> Optional[List[Hypothesis]]:
        dim, k, m = X.shape[1], Y.shape[1], self._m()
        if X.shape[0] < m:
            sol: Optional[np.ndarray] = None
            t = 0
        else:
            sol, t = _core.multi_search_parities(_pack(X), dim, _pack(Y), k, m, float(self.epsilon), float(self.delta), gen)
        self.released_ = sol is not None
        self.n_subsamples_ = int(t)
        self.coefficients_ = np.zeros((dim, k), np.uint8) if sol is None else _unpack_words(sol, k)
        return None  # built on demand from coefficients_

    def _build_hypotheses(self) -> List[Hypothesis]:
        return _parities(self.coefficients_)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        k = self.coefficients_.shape[1]
        out = _core.gf2_mul(_pack(X), X.shape[1], _pack(self.coefficients_), k)
        return _unpack_words(out, k).astype(bool)


class PointMultiLearner(_MultiLearner):
    r"""``LearnPoints``: private learning of ``k`` point functions with a sample size that
    depends on neither ``k`` nor the domain (Bun, Nissim and Stemmer, Algorithm 5 and
    Theorem 3.13).

    1. The stability histogram (:func:`stability_histogram`, Proposition 2.20) with
       ``(epsilon/2, delta/2)`` releases noisy counts; the *heavy* points are those released with
       a noisy frequency of at least ``alpha/4``.
    2. The quality of a choice of one label vector per heavy point is the smallest number of
       rows that carry it, ``min_x #{i : (x_i, y_i) = (x, v_x)}`` (sensitivity 1); its two best
       values have a closed form, and the stable selection ``A_dist`` (errata 002-1/002-2) with
       ``(epsilon/2, delta/2)`` releases each heavy point's most frequent label vector, or ⊥.
    3. Concept ``j`` gets the point function of the first heavy point (in sorted order) whose
       label vector has a 1 in position ``j``, else the all-zero function :data:`ZERO` (so the
       learner is improper); after ⊥ or with no heavy point every concept gets :data:`ZERO`.

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (``n`` public): the two
    steps spend ``(epsilon/2, delta/2)`` each (erratum 002-4), and nothing reveals the points
    the histogram did not release (erratum 002-3).

    **Accuracy:** realizable data only (labels of every concept given by a point function):
    with :func:`points_sample_size` examples every concept's error is at most ``alpha`` with
    probability ``1 - beta``, for every ``k`` and every domain. With disagreeing labels at a
    heavy point the gap vanishes and the output is ⊥, as the agnostic lower bound requires.

    Parameters
    ----------
    epsilon : float
    delta : float
        In ``(0, 1)``.
    alpha : float, default 0.1
        Target error, in ``(0, 1]``.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list of Point or ZeroHypothesis
    heavy_points_ : numpy.ndarray
        The heavy points (released by the histogram; a DP output), sorted.
    released_ : bool
        Whether the label vectors were released (false after ⊥ or with no heavy point).
    privacy_ : Budget
    """

    _params = ("epsilon", "delta", "alpha", "accountant", "rng")
    _label = "PointMultiLearner (LearnPoints)"

    def __init__(
        self,
        epsilon: float,
        delta: float,
        alpha: float = 0.1,
        *,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.accountant = accountant
        self.rng = rng

    @property
    def hypothesis_class(self) -> Points:
        """``Points(dim)`` for the dimension of the fitted examples (1 before fitting)."""
        return Points(getattr(self, "n_features_in_", 1))

    def _check_X(self, X: Any) -> np.ndarray:
        return _point_rows(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        _probability(self.alpha, "alpha", upper_inclusive=True)
        return Budget(_epsilon(self.epsilon), _delta(self.delta, positive=True))

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        keys, ids, _ = _support(X)
        k = Y.shape[1]
        heavy, labels = _core.multi_learn_points(
            ids, len(keys), _pack(Y), k, float(self.alpha), float(self.epsilon), float(self.delta), gen
        )
        self.heavy_points_ = keys[heavy] if X.shape[1] > 1 else keys[heavy][:, 0]
        self.released_ = labels is not None
        return _points_hypotheses(keys, heavy, labels, k)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        if X.shape[1] != self.n_features_in_:
            raise _error("X", f"must have {self.n_features_in_} coordinates per point, got {X.shape[1]}")
        return _point_predictions(self.hypotheses_, X)


class IndependentMultiLearner(_MultiLearner):
    r"""The basic strategy: a private learner per concept, the total budget split by composition
    (Bun, Nissim and Stemmer, Observation 3.2; Corollaries 3.3 and 3.4).

    Runs ``base`` on each label column ``Y[:, j]`` with the budget :func:`per_concept_budget`
    gives (``"basic"``: ``epsilon/k`` each; ``"advanced"``: about ``epsilon / sqrt(2k ln(2/delta))``
    each when that is small, with ``delta/(2k)`` per concept and ``delta/2`` of slack). So the
    sample size grows like ``k`` (basic) or ``sqrt(k)`` (advanced) times the base learner's.

    **Privacy:** ``privacy_`` = :func:`~privlearn.accounting.compose_basic` of the ``k``
    per-concept budgets, or :func:`~privlearn.accounting.compose_advanced` of them; at most
    ``(epsilon, delta)``, for replace-one neighbours (a row's example and all its labels), since
    each concept's run is DP with respect to the whole row.

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
        Total delta (``> 0`` for advanced composition or an approximate base learner).
    composition : {"basic", "advanced"}, default "basic"
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list
    per_concept_ : Budget
        The budget each concept's learner ran with.
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
        composition: str = "basic",
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
        return Points(getattr(self, "n_features_in_", 1)) if isinstance(base, StablePointLearner) else None

    def _check_X(self, X: Any) -> np.ndarray:
        return self._base().check_X(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        base = self._base()
        per, total = per_concept_budget(self.epsilon, self.delta, k, composition=self.composition, pure=base.pure)
        self.per_concept_ = per
        return total

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        per = self.per_concept_
        return self._base().learn_columns(X, Y, per.epsilon, per.delta, gen)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        base = self._base()
        return _grouped(self.hypotheses_, lambda h: base.predict(h, X), X.shape[0])


class SanitizerMultiLearner(_MultiLearner):
    r"""The generic multi-learner (Bun, Nissim and Stemmer, Algorithm 2 ``GenericLearner``,
    Lemmas 3.6 and 3.7, Theorem 3.1 and Corollary 3.9).

    1. Sanitize the *unlabeled* examples once with ``(epsilon/2, delta_san)``:

       * ``sanitizer="points"`` (class :class:`~privlearn.hypotheses.Points`): the stability
         histogram (:func:`stability_histogram`, Proposition 2.20); the sanitized points are the
         released ones;
       * ``sanitizer="mwem"`` (any class on a finite ``domain``): MWEM (:func:`mwem`, pure) for
         the queries ``C^⊕ = {f xor g}`` restricted to the domain (the queries whose answers are
         the disagreements between two hypotheses), then ``sample_size`` points drawn from the
         synthetic distribution (post-processing; by default enough for every query within
         ``alpha/2`` with probability ``1 - beta/2`` by Hoeffding and a union bound).

    2. The candidates are one representative per dichotomy of the class on the sanitized
       points (:meth:`~privlearn.hypotheses.HypothesisClass.dichotomies`: representatives
       depend on the point set only, never on the data).
    3. For each concept, the exponential mechanism over the candidates with score minus the
       mistakes on the whole sample (sensitivity 1), with the per-concept budget of
       :func:`per_concept_budget` applied to ``epsilon/2`` (and ``delta/2`` of slack for
       advanced composition after an approximate sanitizer).

    **Privacy:** ``privacy_`` = :func:`~privlearn.accounting.compose_basic` of the sanitizer's
    budget and the composed exponential mechanisms, at most ``(epsilon, delta)``, for
    replace-one neighbours. The candidates are a post-processing of the sanitizer's output.

    **Accuracy** (three events, Lemma 3.7): if the sanitizer is ``alpha``-accurate for ``C^⊕``,
    some candidate is within ``alpha`` of each concept's best hypothesis, and each concept's
    error is at most ``OPT_j + 4 alpha``; the exponential mechanisms cost ``k ln|H|`` (basic) or
    ``sqrt(k) ln|H|`` (advanced) instead of ``k ln|C|``.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon : float
    delta : float, default 0.0
        Required ``> 0`` for the points sanitizer or advanced composition.
    sanitizer : {"auto", "points", "mwem"}, default "auto"
        ``"auto"``: the points sanitizer for :class:`~privlearn.hypotheses.Points` with
        ``delta > 0``, else MWEM.
    alpha, beta : float, default 0.1, 0.05
        Accuracy knobs of the MWEM sample (and nothing else).
    domain : array_like, optional
        The finite domain for MWEM, in the class's layout (default: ``range(M)`` for a
        :class:`~privlearn.hypotheses.FiniteClass` matrix or ``Points(domain_size=M)``, all of
        ``{0,1}^dim`` for ``Parities(dim)`` with ``dim <= 12``). Every example must lie in it.
    rounds : int, default 10
        MWEM's rounds (an accuracy knob).
    sample_size : int, optional
        Points drawn from MWEM's distribution.
    composition : {"basic", "advanced"}, default "basic"
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    sanitized_points_ : numpy.ndarray
        The distinct sanitized points (a DP output).
    candidates_ : list
        The representatives of the dichotomies on them.
    per_concept_ : Budget
    privacy_ : Budget
    """

    _params = (
        "hypothesis_class",
        "epsilon",
        "delta",
        "sanitizer",
        "alpha",
        "beta",
        "domain",
        "rounds",
        "sample_size",
        "composition",
        "accountant",
        "rng",
    )
    _label = "SanitizerMultiLearner (GenericLearner)"
    _guarantee_needs_k = True

    def __init__(
        self,
        hypothesis_class: HypothesisClass,
        epsilon: float,
        delta: float = 0.0,
        *,
        sanitizer: str = "auto",
        alpha: float = 0.1,
        beta: float = 0.05,
        domain: Any = None,
        rounds: int = 10,
        sample_size: Optional[int] = None,
        composition: str = "basic",
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.hypothesis_class = hypothesis_class
        self.epsilon = epsilon
        self.delta = delta
        self.sanitizer = sanitizer
        self.alpha = alpha
        self.beta = beta
        self.domain = domain
        self.rounds = rounds
        self.sample_size = sample_size
        self.composition = composition
        self.accountant = accountant
        self.rng = rng

    def _class(self) -> HypothesisClass:
        if not isinstance(self.hypothesis_class, HypothesisClass):
            raise _error(
                "hypothesis_class", f"must be a class from privlearn.hypotheses, got {type(self.hypothesis_class).__name__}"
            )
        return self.hypothesis_class

    def _kind(self) -> str:
        cls = self._class()
        if self.sanitizer not in ("auto", "points", "mwem"):
            raise _error("sanitizer", f"must be 'auto', 'points' or 'mwem', got {self.sanitizer!r}")
        if self.sanitizer == "auto":
            return "points" if isinstance(cls, Points) and _delta(self.delta, False) > 0 else "mwem"
        if self.sanitizer == "points" and not isinstance(cls, Points):
            raise _error("sanitizer", f"'points' sanitizes for point functions only, not {cls!r}")
        return str(self.sanitizer)

    def _domain(self) -> np.ndarray:
        cls = self._class()
        if self.domain is not None:
            return cls._check_X(self.domain)
        if isinstance(cls, FiniteClass) and cls.domain_size is not None:
            return cls._check_X(np.arange(cls.domain_size))
        if isinstance(cls, Points) and cls.domain_size is not None:
            return cls._check_X(np.arange(cls.domain_size))
        if isinstance(cls, Parities) and cls.dim <= 12:
            grid = (np.arange(2**cls.dim)[:, None] >> np.arange(cls.dim)) & 1
            return cls._check_X(grid.astype(np.uint8))
        raise _error("domain", f"MWEM needs a finite domain for {cls!r}; pass domain=")

    def _check_X(self, X: Any) -> np.ndarray:
        return self._class()._check_X(X)

    def fit(self, X: Any, Y: Any) -> "SanitizerMultiLearner":
        """Learn ``k`` concepts (see the class documentation); returns ``self``. With MWEM every
        example must lie in the domain: checked with the rest of the input, before anything is
        charged or drawn."""
        if self._kind() == "mwem":
            self._domain_points = self._domain()
            self._domain_ids = _domain_index(self._domain_points, self._check_X(X))
        super().fit(X, Y)
        return self

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        kind = self._kind()
        epsilon = _epsilon(self.epsilon)
        composition = _composition(self.composition)
        delta = _delta(self.delta, positive=kind == "points" or composition == "advanced")
        _probability(self.alpha, "alpha", upper_inclusive=True)
        _probability(self.beta, "beta")
        _integer(self.rounds, "rounds", 1)
        if self.sample_size is not None:
            _integer(self.sample_size, "sample_size", 1)
        half = epsilon / 2.0
        if kind == "points":
            d_san = delta if composition == "basic" else delta / 2.0
        else:
            d_san = 0.0
        san = Budget(half, d_san)
        per, em_total = per_concept_budget(half, delta - d_san, k, composition=composition, pure=True)
        self._san_budget = san
        self.per_concept_ = per
        return compose_basic([san, em_total])

    def _sanitize_points(self, X: np.ndarray, gen: Generator) -> np.ndarray:
        keys, _, counts = _support(X)
        b = self._san_budget
        idx, _ = _core.multi_stability_histogram(counts, b.epsilon, b.delta, gen)
        return keys[idx]

    def _sanitize_mwem(self, X: np.ndarray, gen: Generator) -> np.ndarray:
        cls = self._class()
        dom = self._domain_points
        labels = cls.dichotomies(dom).to_numpy()  # (|Pi|, |domain|), data-independent
        queries = _xor_queries(labels)
        counts = np.bincount(self._domain_ids, minlength=dom.shape[0])
        rounds = _integer(self.rounds, "rounds", 1)
        dist = mwem(counts, queries, self._san_budget.epsilon, rounds=rounds, rng=gen)
        m = self.sample_size
        if m is None:
            alpha, beta = float(self.alpha), float(self.beta)
            m = int(math.ceil((2.0 / alpha**2) * math.log(4.0 * len(queries) / beta)))
        draws = np.random.default_rng(np.asarray(gen.random_raw(4), dtype=np.uint64)).choice(dom.shape[0], size=int(m), p=dist)
        return dom[np.unique(draws)]

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        cls = self._class()
        pts = self._sanitize_points(X, gen) if self._kind() == "points" else self._sanitize_mwem(X, gen)
        self.sanitized_points_ = pts
        cands = cls.dichotomies(pts).hypotheses()
        self.candidates_ = cands
        pred = _predictions(cls, cands, X)
        return _em_columns(cands, _mistakes(pred, Y), self.per_concept_.epsilon, gen)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        cls = self._class()
        return _grouped(self.hypotheses_, lambda h: cls.predict(h, X), X.shape[0])


def _xor_queries(labels: np.ndarray) -> np.ndarray:
    """The distinct non-zero rows ``labels[a] XOR labels[b]`` (``C^⊕`` on the domain)."""
    packed = _pack(labels.astype(np.uint8))
    rows = []
    for a in range(packed.shape[0]):
        rows.append(packed[a] ^ packed[a + 1 :])
    allq = np.concatenate(rows, axis=0) if rows else packed[:0]
    allq = allq[np.any(allq != 0, axis=1)]
    if allq.shape[0] == 0:
        return np.zeros((1, labels.shape[1]), dtype=np.uint8)
    uniq = np.unique(allq, axis=0)
    return _unpack_words(uniq, labels.shape[1])


def _domain_index(domain: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Each example's index in the domain (refused if it is not in the domain)."""
    d2 = domain.reshape(domain.shape[0], -1)
    x2 = X.reshape(X.shape[0], -1)
    lookup = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(d2))}
    x2 = np.ascontiguousarray(x2.astype(d2.dtype))
    out = np.empty(x2.shape[0], dtype=np.int64)
    for r in range(x2.shape[0]):
        i = lookup.get(x2[r].tobytes())
        if i is None:
            raise _error("X", "every example must lie in the declared domain")
        out[r] = i
    return out


class NonPrivateMultiLearner(_MultiLearner):
    """Column-wise empirical risk minimisation: **not differentially private**.

    Each concept gets an exact ERM of its label column (``hypothesis_class.erm``): the
    non-private multi-learner of Bun, Nissim and Stemmer's Corollary 2.12, whose sample size
    grows only like ``log k``. It is the baseline of :func:`privlearn.attacks.fingerprinting_attack`,
    which identifies members of its training data. ``privacy_`` is ``None`` (no guarantee) and
    no accountant is involved.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    """

    _params = ("hypothesis_class",)
    _label = "NonPrivateMultiLearner"
    accountant = None
    rng = None

    def __init__(self, hypothesis_class: HypothesisClass) -> None:
        self.hypothesis_class = hypothesis_class

    def _class(self) -> HypothesisClass:
        if not isinstance(self.hypothesis_class, HypothesisClass):
            raise _error("hypothesis_class", f"must be a class from privlearn.hypotheses, got {type(self.hypothesis_class).__name__}")
        return self.hypothesis_class

    def _check_X(self, X: Any) -> np.ndarray:
        return self._class()._check_X(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        return None

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        cls = self._class()
        cols, inverse = np.unique(np.ascontiguousarray(Y.T), axis=0, return_inverse=True)
        fitted = [cls.erm(X, c) for c in cols]
        return [fitted[i] for i in np.asarray(inverse).reshape(-1)]

    def _predict(self, X: np.ndarray) -> np.ndarray:
        cls = self._class()
        return _grouped(self.hypotheses_, lambda h: cls.predict(h, X), X.shape[0])
