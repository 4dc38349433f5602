"""The algorithms of private classification-query release (Nandi and Bassily, ALT 2020).

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, List, Optional, Tuple

import numpy as np

from .. import _core
from .._validate import check_integer, check_real
from ..accounting import (
    Accountant,
    Budget,
    _context,
    _float_up,
    _up,
    amplify_by_subsampling,
    compose_basic,
)
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass, Thresholds
from ..mechanisms import _charged, exponential, laplace
from ..random import Generator, RngLike, as_generator
from . import _accounting as acc
from ._learners import ClassLearner, Learner, as_learner, check_labels
from ._session import PUBLISHED, QuerySession, Session, check_on_unstable

__all__ = [
    "DistanceToInstability",
    "SubsampleSVT",
    "relabel",
    "AgnosticQueryRelease",
    "SemiPrivateLearner",
    "UniversalQueryRelease",
    "ReleasePlan",
    "UniversalSession",
]


# --------------------------------------------------------------------------------------------
# Shared validation
# --------------------------------------------------------------------------------------------


def _budget_pair(epsilon: Any, delta: Any) -> Tuple[float, float]:
    eps = acc._positive(epsilon, "epsilon")
    dlt = acc._open_unit(delta, "delta")
    return eps, dlt


def _class_arg(hypothesis_class: Any) -> HypothesisClass:
    if not isinstance(hypothesis_class, HypothesisClass):
        raise InvalidParameterError(
            f"hypothesis_class: must be a privlearn.hypotheses class, got {hypothesis_class!r}",
            "hypothesis_class",
        )
    return hypothesis_class


def _accountant_arg(accountant: Any) -> Optional[Accountant]:
    if accountant is not None and not isinstance(accountant, Accountant):
        raise InvalidParameterError(
            f"accountant: must be None or a privlearn.accounting.Accountant, got {type(accountant).__name__}",
            "accountant",
        )
    return accountant


def _class_view(cls: HypothesisClass, learner: Learner, Xc: np.ndarray, X: Any) -> np.ndarray:
    """The private points in the class's layout (no second copy when the learner is the class)."""
    if isinstance(learner, ClassLearner) and learner.cls == cls:
        return Xc
    return cls._check_X(X)


def _training_data(learner: Learner, X: Any, y: Any) -> Tuple[np.ndarray, np.ndarray]:
    Xc = learner.check_X(X)
    n = Xc.shape[0]
    if n == 0:
        raise InvalidParameterError("X: the private sample is empty", "X")
    return Xc, check_labels(y, n)


# --------------------------------------------------------------------------------------------
# A_stab (ST13)
# --------------------------------------------------------------------------------------------


class DistanceToInstability:
    r"""The distance-to-instability test ``A_stab`` (Smith and Thakurta, COLT 2013; Nandi and
    Bassily, Alg. 6): release ``f(S)`` if ``dist(S) + Lap(1/ε) > Γ``, else ⊥ (``None``).

    **Privacy guarantee.** Suppose ``dist`` has sensitivity 1 (replace-one) and ``dist(S) >= 1``
    implies ``f(S') = f(S)`` for every neighbour ``S'``. Then the output is ``(ε, δ)``-DP with
    ``δ = P(release | dist = 0) <= ½ e^{−ε Γ}`` (ST13's stability argument): the test itself is the
    Laplace mechanism, and the value can differ between neighbours only when ``dist = 0``. The
    noise is exact discrete Laplace on a grid (:func:`privlearn.mechanisms.laplace`), so
    :attr:`privacy` evaluates the tail at ``Γ − 2γ`` with the noise scale the sampler uses
    (slightly above ``1/ε``; ``γ`` its grid step, at most ``2^-20 min(1, 1/ε)``), both read
    from the core's plan of the sampler (``privlearn._core.laplace_plan``).

    Parameters
    ----------
    epsilon : float
        > 0.
    threshold : float
        ``Γ`` >= 0 (a smaller one gives ``δ >= 1/2``: refused).
    """

    def __init__(self, epsilon: float, threshold: float) -> None:
        self.epsilon = acc._positive(epsilon, "epsilon")
        self.threshold = acc._nonnegative(threshold, "threshold")
        self._privacy = self._guarantee()

    def _guarantee(self) -> Budget:
        # The grid step and noise scale the exact Laplace sampler uses for this call (the core's
        # own plan, rounded up; nothing restated here).
        grid, scale = _core.laplace_plan(1.0, self.epsilon)
        shifted = self.threshold - 2 * grid
        if shifted <= 0.0:
            raise InvalidParameterError(
                f"threshold: must be > 0 (about ln(1/(2 delta)) / epsilon), got {self.threshold!r}",
                "threshold",
            )
        with decimal.localcontext(_context(50)):
            d = _up((-(Decimal(shifted) / Decimal(scale))).exp() / 2)
        return Budget(self.epsilon, _float_up(d))

    @property
    def privacy(self) -> Budget:
        """The guarantee ``(ε, δ)`` of one call."""
        return self._privacy

    def release_probability(self, distance: float) -> float:
        """``P(dist + Lap(1/ε) > Γ) = 1 − F_Lap(Γ − dist; 1/ε)`` for continuous Laplace noise
        (the exact sampler matches it up to its grid)."""
        z = (self.threshold - float(distance)) * self.epsilon
        return 0.5 * math.exp(-z) if z >= 0 else 1.0 - 0.5 * math.exp(z)

    def __call__(
        self,
        value: Any,
        distance: float,
        *,
        rng: RngLike = None,
        accountant: Optional[Accountant] = None,
    ) -> Any:
        """``value`` if the noisy distance clears the threshold, else ``None``.

        Parameters
        ----------
        value : object
            ``f(S)``.
        distance : float
            ``dist(S)`` >= 0 (an integer for the guarantee above).
        rng : None, int or Generator, optional
        accountant : Accountant, optional
            Charged :attr:`privacy` before anything is drawn.
        """
        dist = acc._nonnegative(distance, "distance")
        _accountant_arg(accountant)
        noisy = _charged(
            accountant,
            self._privacy.epsilon,
            self._privacy.delta,
            "distance to instability",
            lambda: laplace(dist, 1.0, self.epsilon, rng=rng),
        )
        return value if noisy > self.threshold else None

    def __repr__(self) -> str:
        return f"DistanceToInstability(epsilon={self.epsilon!r}, threshold={self.threshold!r})"


# --------------------------------------------------------------------------------------------
# The sparse-vector stage: calibration
# --------------------------------------------------------------------------------------------


def _plan_svt(
    epsilon: float,
    delta: float,
    m: int,
    cutoff: float,
    noise_scale: Optional[float],
    threshold: Optional[float],
    what: str,
) -> Tuple[float, float, acc.SVTGuarantee]:
    """The sparse-vector stage within ``(epsilon, delta)``: the given ``λ`` and ``w``, or the
    smallest ones that fit (advanced-composition slack ``delta/2``; the rest of delta for the
    stable releases)."""
    slack = delta / 2
    if noise_scale is None:
        lam = acc.calibrate_noise_scale(epsilon, cutoff, m, slack)
    else:
        lam = acc._positive(noise_scale, "noise_scale")
    rounds, _, _, _, comp_delta, eps = acc._svt_epsilon(lam, cutoff, m, slack)
    if eps > epsilon:
        raise InvalidParameterError(
            f"noise_scale: lambda = {lam:.6g} makes the sparse-vector stage {eps:.6g}-DP over "
            f"{rounds} rounds, above the {epsilon:.6g} available for it ({what}); use at least "
            f"{acc.calibrate_noise_scale(epsilon, cutoff, m, slack):.6g}",
            "noise_scale",
        )
    if threshold is None:
        w = acc.calibrate_threshold(lam, m, (delta - comp_delta) * (1 - 1e-9), rounds)
    else:
        w = acc._nonnegative(threshold, "threshold")
    svt = acc.svt_guarantee(lam, cutoff, m, w, delta_slack=slack)
    if svt.budget.delta > delta:
        raise InvalidParameterError(
            f"threshold: w = {w:.6g} leaves stable releases of probability "
            f"{svt.stable_release_delta:.3g}, above the delta available ({delta:.3g}, {what}); use "
            f"at least {acc.calibrate_threshold(lam, m, (delta - comp_delta) * (1 - 1e-9), rounds):.6g}",
            "threshold",
        )
    return lam, w, svt


def _blocks(n: int, k: int, gen: Generator) -> List[np.ndarray]:
    """``k`` disjoint sub-samples of ``floor(n/k)`` records (a uniformly random split; the
    remainder is dropped)."""
    perm = _core.permutation(n, gen)
    size = n // k
    return [perm[j * size : (j + 1) * size] for j in range(k)]


def _check_k(k: Any) -> Optional[int]:
    return None if k is None else acc._int(k, "k", 1)


def recommended_k(threshold: float, noise_scale: float) -> int:
    """``2 ceil(w + 8λ) + 2``: the smallest ensemble whose unanimous votes clear the threshold by
    ``8λ``, so that they are answered (not ⊥) with probability ``1 − p(8λ) ≈ 0.988``
    (:func:`stable_release_probability`)."""
    return 2 * math.ceil(threshold + 8.0 * noise_scale) + 2


def _check_k_clears(k: int, threshold: float) -> None:
    """Refuses an ensemble too small to ever be stable: its largest distance to instability,
    ``ceil(k/2) - 1`` (unanimous votes), must exceed the threshold ``w``."""
    if (k + 1) // 2 - 1 <= threshold:
        raise InvalidParameterError(
            f"k: with k = {k} sub-samples the distance to instability is at most "
            f"{(k + 1) // 2 - 1}, not above the threshold w = {threshold:.6g}: every answer would "
            f"be unstable; use k >= {2 * math.floor(threshold) + 3} (a margin of a few noise scales "
            "more for reliable answers)",
            "k",
        )


def _need_rows(n: int, k: int, name: str = "X") -> None:
    if n < k:
        raise InvalidParameterError(
            f"{name}: the sample must hold at least k = {k} records (one per sub-sample), got {n}",
            name,
        )


# --------------------------------------------------------------------------------------------
# A_SubSamp (BTT18)
# --------------------------------------------------------------------------------------------


class SubsampleSVT:
    r"""Subsample-and-aggregate with the sparse vector technique: ``A_SubSamp`` (Bassily,
    Thakurta and Thakkar, "Model-agnostic private learning", NeurIPS 2018, Alg. 2; Nandi and
    Bassily, ALT 2020, Alg. 5), answering ``m`` classification queries online.

    :meth:`start` splits the private sample into ``k`` disjoint sub-samples (uniformly at random,
    ``floor(n/k)`` records each), trains the base learner on each, and returns a
    :class:`QuerySession`. For each query the ``k`` classifiers vote; the distance to
    instability ``dist = max(0, ceil(gap/2) − 1)`` of the vote gap goes through the sparse
    vector (threshold ``w`` with noise ``Lap(λ)``, redrawn after each ⊥; query noise
    ``Lap(2λ)``): above the threshold the majority label is released, below it the answer is ⊥
    (an "unstable" query). After ``min(floor(T) + 1, m)`` unstable answers the session stops
    using the data.

    **Privacy guarantee** (replace-one neighbours, ``n`` public): the whole session is
    ``(ε, δ)``-DP for any sequence of up to ``m`` queries (chosen in advance or adaptively),
    with ``(ε, δ)`` = :attr:`privacy` <= the budget given, computed exactly by
    :func:`privlearn.query_release.svt_guarantee`: ``min(floor(T) + 1, m)`` AboveThreshold
    rounds of ``2/λ`` each (basic or advanced composition), plus ``m`` times the probability of
    releasing a query of distance 0. The paper's gap ``largest − second largest`` has
    sensitivity 2, not 1; this implementation uses the sensitivity-1 distance above
    (ERRATA C1), keeping the paper's ``λ`` and ``w``.

    **Modes.** The constructor is the practical mode: the budget ``(epsilon, delta)`` and the
    accuracy knobs ``k`` and ``cutoff`` are free; ``noise_scale`` (``λ``) and ``threshold``
    (``w``) default to the smallest values that fit the budget (``λ``: the sparse vector's
    epsilon with advanced-composition slack ``δ/2``; ``w``: the rest of ``δ`` for stable
    releases), or are taken as given and refused if they do not fit. :meth:`from_theory` uses
    the paper's settings (:func:`subsample_svt_parameters`).

    Parameters
    ----------
    learner : HypothesisClass or classifier
        The base learner ``B_PAC``: a :mod:`privlearn.hypotheses` class (its exact ERM) or a
        scikit-learn classifier (cloned for each sub-sample). It need **not** be private and no
        certificate is asked of it (unlike the composites of :mod:`privlearn.learners`): the
        guarantee comes from this mechanism alone (one record changes one sub-sample's
        classifier, hence each vote count by at most one, and only the sparse vector's output
        is released).
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    m : int
        The largest number of queries, >= 1.
    cutoff : float
        ``T`` >= 0: at most ``min(floor(T) + 1, m)`` unstable answers.
    k : int, optional
        Number of sub-samples, >= 1 (the sample must hold at least ``k`` records). Default:
        ``2 ceil(w + 8λ) + 2``, the smallest ensemble whose unanimous votes are answered with
        probability about 0.99. A ``k`` whose unanimous votes cannot clear ``w`` is refused.
    noise_scale, threshold : float, optional
        ``λ`` > 0 and ``w`` >= 0 (in units of the distance to instability).
    on_unstable : {"bottom", "random"}, default "bottom"
        An unstable answer is ``None`` (the paper's ⊥) or a fair coin (post-processing).

    Attributes
    ----------
    privacy : Budget
        The exact guarantee of a session.
    noise_scale, threshold : float
        ``λ`` and ``w`` in use.
    svt : SVTGuarantee
        The details of the guarantee.
    """

    def __init__(
        self,
        learner: Any,
        *,
        epsilon: float,
        delta: float,
        m: int,
        cutoff: float,
        k: Optional[int] = None,
        noise_scale: Optional[float] = None,
        threshold: Optional[float] = None,
        on_unstable: str = "bottom",
    ) -> None:
        as_learner(learner)
        self.learner = learner
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = acc._int(m, "m", 1)
        k_given = _check_k(k)
        self.cutoff = acc._nonnegative(cutoff, "cutoff")
        self.on_unstable = check_on_unstable(on_unstable)
        self.noise_scale, self.threshold, self.svt = _plan_svt(
            self.epsilon, self.delta, self.m, self.cutoff, noise_scale, threshold, "SubsampleSVT"
        )
        self.k = recommended_k(self.threshold, self.noise_scale) if k_given is None else k_given
        _check_k_clears(self.k, self.threshold)

    @classmethod
    def from_theory(
        cls,
        learner: Any,
        *,
        epsilon: float,
        delta: float,
        alpha: float,
        beta: float,
        m: int,
        on_unstable: str = "bottom",
    ) -> "SubsampleSVT":
        """The paper's settings: ``T = max(1, mα/8 + sqrt(3mα ln(m/β))/4)`` and ``λ``, ``k``,
        ``w`` of :func:`subsample_svt_parameters` at ``(ε, δ, β)``."""
        eps, dlt = _budget_pair(epsilon, delta)
        a = acc._open_unit(alpha, "alpha")
        b = acc._open_unit(beta, "beta")
        m = acc._int(m, "m", 1)
        t = acc.theory_cutoff(m, a, b)
        p = acc.subsample_svt_parameters(eps, dlt, b, m, t)
        return cls(
            learner,
            epsilon=eps,
            delta=dlt,
            m=m,
            k=p.k,
            cutoff=t,
            noise_scale=p.noise_scale,
            threshold=p.threshold,
            on_unstable=on_unstable,
        )

    @property
    def privacy(self) -> Budget:
        """The guarantee of a session (at most ``(epsilon, delta)``)."""
        return self.svt.budget

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one session (:meth:`start`) on ``n_samples`` private records
        (replace-one, ``n`` public): :attr:`privacy`, which does not depend on ``n``
        (:class:`privlearn._certified.CertifiedRelease`)."""
        check_integer(n_samples, "n_samples", 1)
        return self.privacy

    def __repr__(self) -> str:
        return (
            f"SubsampleSVT(epsilon={self.epsilon!r}, delta={self.delta!r}, m={self.m}, k={self.k}, "
            f"cutoff={self.cutoff!r}, noise_scale={self.noise_scale:.6g}, threshold={self.threshold:.6g})"
        )

    def _session(
        self, learner: Learner, X: np.ndarray, y: np.ndarray, gen: Generator, privacy: Budget, details: Any
    ) -> QuerySession:
        voter = learner.fit_ensemble(X, y, _blocks(X.shape[0], self.k, gen))
        return QuerySession(
            learner=learner,
            voter=voter,
            svt=self.svt,
            threshold=self.threshold,
            m=self.m,
            privacy=privacy,
            on_unstable=self.on_unstable,
            rng=gen,
            details=details,
        )

    def start(
        self, X: Any, y: Any, *, accountant: Optional[Accountant] = None, rng: RngLike = None
    ) -> QuerySession:
        """Trains the ensemble on the private sample and opens a session.

        :attr:`privacy` is charged to ``accountant`` once, here, before anything is drawn (a
        spend that does not fit raises :class:`~privlearn.BudgetExceededError` and draws
        nothing); answering charges nothing more.

        Parameters
        ----------
        X : array_like
            The private points (the learner's layout: ``(n,)`` or ``(n, dim)`` for a class,
            ``(n, n_features)`` for a classifier).
        y : array_like of 0/1
            Their labels.
        accountant : Accountant, optional
        rng : None, int or Generator, optional
            ``None`` is the only private choice; a seed makes the session reproducible.

        Returns
        -------
        QuerySession
        """
        learner = as_learner(self.learner)
        Xc, yb = _training_data(learner, X, y)
        _need_rows(Xc.shape[0], self.k)
        _accountant_arg(accountant)
        gen = as_generator(rng)
        return _charged(
            accountant,
            self.privacy.epsilon,
            self.privacy.delta,
            "SubsampleSVT session",
            lambda: self._session(learner, Xc, yb, gen, self.privacy, self.svt),
        )


# --------------------------------------------------------------------------------------------
# A_Relabel (LabelBoost, BNS15)
# --------------------------------------------------------------------------------------------


def relabel(X: Any, y: Any, hypothesis_class: HypothesisClass, *, rng: RngLike = None) -> np.ndarray:
    r"""``A_Relabel`` (Nandi and Bassily, Alg. 2; LabelBoost of Beimel, Nissim and Stemmer,
    APPROX-RANDOM 2015): relabel a sample with a hypothesis chosen by the exponential mechanism.

    The candidates are one representative per distinct labeling (dichotomy) of the class on the
    points of ``X`` (exactly deduplicated; ERRATA C6), scored by ``−mistakes`` against ``y``
    with ``ε̃ = 1`` and sensitivity 1: labeling ``c`` is chosen with probability proportional to
    ``exp(−mistakes(c)/2)`` (exact sampler, :func:`privlearn.mechanisms.exponential`), and the
    points are returned with its labels, so the relabelled sample is realizable by the class.
    For :class:`~privlearn.hypotheses.Thresholds` the mistakes of all labelings are computed
    from prefix counts in ``O(n log n)``; other classes stream their labelings
    (``O(|labelings| n / 64)``).

    **Not a private release on its own**: the candidate set depends on the private points.
    Lemma 3.1 (BNS15 Lemma 4.1): running a ``(1, δ)``-DP algorithm on the relabelled sample is
    ``(4, 4eδ)``-DP with respect to the original sample; :class:`AgnosticQueryRelease` does
    this.

    Parameters
    ----------
    X : array_like
        The points (the class's layout).
    y : array_like of 0/1
        Their labels.
    hypothesis_class : HypothesisClass
    rng : None, int or Generator, optional

    Returns
    -------
    numpy.ndarray of bool
        The new labels, one per row of ``X``.
    """
    cls = _class_arg(hypothesis_class)
    Xc = cls._check_X(X)
    n = Xc.shape[0]
    if n == 0:
        raise InvalidParameterError("X: the sample is empty", "X")
    yb = check_labels(y, n)
    gen = as_generator(rng)
    if isinstance(cls, Thresholds):
        x1 = np.ascontiguousarray(Xc[:, 0])
        mistakes = _core.threshold_labeling_mistakes(x1, yb, cls.orientation)
        i = int(exponential(-mistakes, 1.0, 1.0, rng=gen))
        return _core.threshold_labeling(x1, cls.orientation, i)
    stream = cls.iter_dichotomies(Xc)
    mistakes = stream.mistakes(yb)
    i = int(exponential(-mistakes, 1.0, 1.0, rng=gen))
    for d in stream:
        if d.offset <= i < d.offset + len(d):
            return d.label(i - d.offset)
    raise AssertionError("the chosen labeling was not enumerated again")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# A_AgPrivCl
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleasePlan:
    r"""The settings and exact guarantee of an :class:`AgnosticQueryRelease` run on ``n``
    private records.

    Attributes
    ----------
    n, n_prime : int
        Sample size and the size ``n'`` of the relabelled sub-sample.
    k : int
        Sub-samples of ``A_SubSamp`` (``floor(n'/k)`` records each).
    cutoff, noise_scale, threshold : float
        ``T``, ``λ``, ``w`` of the sparse-vector stage.
    guarantee : AgnosticGuarantee
        The chain of ERRATA C5; ``guarantee.total`` is charged.
    """

    n: int
    n_prime: int
    k: int
    cutoff: float
    noise_scale: float
    threshold: float
    guarantee: acc.AgnosticGuarantee

    @property
    def privacy(self) -> Budget:
        return self.guarantee.total


def _largest_rate(epsilon: float, n: int) -> int:
    """The largest ``n'`` whose amplified LabelBoost epsilon ``ln(1 + (n'/n)(e⁴ − 1))`` is at
    most ``epsilon``."""
    n_prime = min(n, math.floor(acc.max_sample_rate(epsilon) * n))
    while n_prime >= 1 and n_prime < n:
        if amplify_by_subsampling(Budget(acc.LABELBOOST_EPSILON), n_prime / n, n=n).epsilon <= epsilon:
            break
        n_prime -= 1
    return n_prime


class AgnosticQueryRelease:
    r"""Private classification-query release in the agnostic setting: ``A_AgPrivCl`` (Nandi and
    Bassily, "Privately answering classification queries in the agnostic PAC model", ALT 2020,
    Alg. 3, Theorem 3.3).

    :meth:`start` (1) draws a uniform sub-sample ``S'`` of ``n'`` of the ``n`` private records
    without replacement, (2) relabels it with a hypothesis of the class chosen by the
    exponential mechanism (:func:`relabel`), which makes it realizable, (3) resamples ``n'``
    records of the relabelled ``S''`` with replacement, and (4) answers the queries with
    :class:`SubsampleSVT`'s mechanism on that resample. The relabelling removes the paper's
    ``3γ`` blow-up of agnostic subsample-and-aggregate: every sub-sample learner approximates
    one hypothesis, so the ensemble stays stable where plain subsample-and-aggregate splits
    between near-optimal hypotheses (the notes' twin-minima distribution).

    **Privacy guarantee** (replace-one neighbours, ``n`` public): the session is
    ``(ε, δ)``-DP for any sequence of up to ``m`` queries, with ``(ε, δ)`` =
    ``plan(n).privacy`` <= the budget given, computed by the exact chain of ERRATA C5
    (:func:`privlearn.query_release.agnostic_guarantee`): the sparse-vector stage's
    :func:`svt_guarantee`; group privacy over the exact resampling multiplicity ``r₀`` plus
    ``P(Bin(n', 1/n') > r₀)`` (ERRATA C3); Lemma 3.1 (BNS15 Lemma 4.1), which needs that stage to
    be ``(1, δ)``-DP and gives ``(4, 4eδ)``; amplification by subsampling ``n'/n`` without
    replacement (Balle, Barthe and Gaboardi 2018, Theorem 9). Parameter sets outside the lemmas'
    preconditions are refused.

    **Modes.** The constructor is the practical mode: ``k`` and ``cutoff`` are free;
    ``sample_fraction`` defaults to the largest ``n'/n`` with
    ``ln(1 + (n'/n)(e⁴ − 1)) <= ε``; ``noise_scale`` and ``threshold`` default to the smallest
    values that fit the rest of the budget (half of the sub-sample-level delta to the
    resampling tail, half to group privacy; in the sparse vector, half of its delta to advanced
    composition, half to stable releases). :meth:`from_theory` uses the paper's settings
    (:func:`theory_parameters`: ``n' = floor(εn/56)``, ``k`` about ``10^6``), for which
    :meth:`start` needs ``n`` of order ``10^9``.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
        The class ``H`` (its dichotomies are the relabelling candidates).
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    m : int
        The largest number of queries, >= 1.
    cutoff : float
        ``T`` >= 0.
    k : int, optional
        Number of sub-samples of ``A_SubSamp`` (default ``2 ceil(w + 8λ) + 2``, as for
        :class:`SubsampleSVT`).
    learner : HypothesisClass or classifier, optional
        The realizable base learner ``B_PAC`` (default: ``hypothesis_class``'s exact ERM). Need
        not be private (no certificate is asked of it): as in :class:`SubsampleSVT`, the
        guarantee comes from the mechanism alone.
    sample_fraction : float, optional
        ``n'/n`` in (0, 1].
    noise_scale, threshold : float, optional
        ``λ`` and ``w`` of the sparse vector.
    on_unstable : {"bottom", "random"}, default "bottom"
    """

    def __init__(
        self,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        m: int,
        cutoff: float,
        k: Optional[int] = None,
        learner: Any = None,
        sample_fraction: Optional[float] = None,
        noise_scale: Optional[float] = None,
        threshold: Optional[float] = None,
        on_unstable: str = "bottom",
    ) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.learner = hypothesis_class if learner is None else learner
        as_learner(self.learner)
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = acc._int(m, "m", 1)
        self.k = _check_k(k)
        self.cutoff = acc._nonnegative(cutoff, "cutoff")
        if sample_fraction is not None:
            sample_fraction = check_real(sample_fraction, "sample_fraction", 0.0, 1.0, lo_open=True)
        self.sample_fraction = sample_fraction
        self.noise_scale = None if noise_scale is None else acc._positive(noise_scale, "noise_scale")
        self.threshold = None if threshold is None else acc._nonnegative(threshold, "threshold")
        self.on_unstable = check_on_unstable(on_unstable)
        self._theory: Optional[Tuple[float, float]] = None

    @classmethod
    def from_theory(
        cls,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        alpha: float,
        beta: float,
        m: int,
        learner: Any = None,
        on_unstable: str = "bottom",
    ) -> "AgnosticQueryRelease":
        """The paper's settings (:func:`theory_parameters`); ``epsilon`` in (0, 1]."""
        p = acc.theory_parameters(epsilon, delta, alpha, beta, m)
        out = cls(
            hypothesis_class,
            epsilon=p.epsilon,
            delta=p.delta,
            m=p.m,
            k=p.k,
            cutoff=p.cutoff,
            learner=learner,
            on_unstable=on_unstable,
        )
        out._theory = (p.alpha, p.beta)
        return out

    def __repr__(self) -> str:
        mode = "theory" if self._theory is not None else "practical"
        return (
            f"AgnosticQueryRelease({self.hypothesis_class!r}, epsilon={self.epsilon!r}, "
            f"delta={self.delta!r}, m={self.m}, k={self.k}, cutoff={self.cutoff!r}, mode={mode!r})"
        )

    def plan(self, n: int) -> ReleasePlan:
        """The settings and the exact guarantee for ``n`` private records.

        Raises
        ------
        InvalidParameterError
            If no setting within the budget exists for this ``n`` (``n'`` below ``k`` or 1, a
            sparse-vector stage above the Lemma 3.1 precondition, a given ``noise_scale`` or
            ``threshold`` that does not fit).
        """
        n = acc._int(n, "n", 1)
        if self._theory is not None:
            return self._theory_plan(n)
        if self.sample_fraction is None:
            n_prime = _largest_rate(self.epsilon, n)
        else:
            n_prime = math.floor(self.sample_fraction * n)
        if n_prime < 1:
            raise InvalidParameterError(
                f"X: n' = floor(n * sample fraction) = 0 records would be relabelled (n = {n})", "X"
            )
        lead = amplify_by_subsampling(Budget(acc.LABELBOOST_EPSILON), n_prime / n, n=n)
        if lead.epsilon > self.epsilon:
            raise InvalidParameterError(
                f"sample_fraction: n'/n = {n_prime}/{n} gives epsilon {lead.epsilon:.6g} after "
                f"Lemma 3.1 and amplification, above {self.epsilon!r}; use at most "
                f"{acc.max_sample_rate(self.epsilon):.6g}",
                "sample_fraction",
            )
        # delta of the resampled stage (w.r.t. S''): delta = (n'/n) 4e delta_R
        d_r = float(Fraction(self.delta) * n / n_prime / (4 * Fraction(math.e))) * (1 - 1e-9)
        r0 = acc.resampling_multiplicity(n_prime, min(d_r / 2, 0.5))
        tail = acc.resampling_tail(n_prime, r0)
        eps_t = math.nextafter(1.0 / r0, 0.0)
        d_svt = (d_r - tail) / (r0 * math.exp((r0 - 1) * eps_t)) * (1 - 1e-9)
        lam, w, svt = _plan_svt(
            eps_t, d_svt, self.m, self.cutoff, self.noise_scale, self.threshold,
            f"after group privacy over r0 = {r0} resampled copies",
        )
        chain = acc.agnostic_guarantee(svt, n_prime, n, r0)
        return self._checked(n, n_prime, lam, w, chain, self.k)

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one session (:meth:`start`) on ``n_samples`` private records
        (replace-one, ``n`` public): ``plan(n_samples).privacy``
        (:class:`privlearn._certified.CertifiedRelease`)."""
        return self.plan(check_integer(n_samples, "n_samples", 1)).privacy

    def _theory_plan(self, n: int) -> ReleasePlan:
        assert self._theory is not None
        alpha, beta = self._theory
        p = acc.theory_parameters(self.epsilon, self.delta, alpha, beta, self.m, n=n)
        assert p.n_prime is not None and p.resampling_multiplicity is not None
        if p.n_prime < p.k:
            raise InvalidParameterError(
                f"X: theory mode needs n' = floor(epsilon n / 56) >= k = {p.k} sub-samples, i.e. "
                f"n >= {math.ceil(56 * p.k / self.epsilon)} (got n = {n}); use the practical mode",
                "X",
            )
        svt = acc.svt_guarantee(
            p.noise_scale, p.cutoff, p.m, p.threshold, delta_slack=p.delta_hat / 2
        )
        chain = acc.agnostic_guarantee(svt, p.n_prime, n, p.resampling_multiplicity)
        return self._checked(n, p.n_prime, p.noise_scale, p.threshold, chain, p.k)

    def _checked(
        self, n: int, n_prime: int, lam: float, w: float, chain: acc.AgnosticGuarantee, k: Optional[int]
    ) -> ReleasePlan:
        if not chain.total <= Budget(self.epsilon, self.delta):
            raise InvalidParameterError(  # pragma: no cover - the calibration prevents it
                f"epsilon: the exact guarantee {chain.total!r} exceeds the budget", "epsilon"
            )
        k = recommended_k(w, lam) if k is None else k
        _check_k_clears(k, w)
        if n_prime < k:
            fraction = n_prime / n
            raise InvalidParameterError(
                f"X: n' = {n_prime} records would be relabelled, fewer than k = {k} sub-samples; "
                f"needs n >= {math.ceil(k / fraction)} (got n = {n})",
                "X",
            )
        return ReleasePlan(
            n=n, n_prime=n_prime, k=k, cutoff=self.cutoff, noise_scale=lam, threshold=w, guarantee=chain
        )

    def start(
        self, X: Any, y: Any, *, accountant: Optional[Accountant] = None, rng: RngLike = None
    ) -> QuerySession:
        """Relabels a sub-sample, trains the ensemble and opens a session.

        ``plan(n).privacy`` is charged to ``accountant`` once, before anything is drawn.

        Parameters
        ----------
        X : array_like
            The private points, valid both for ``hypothesis_class`` and for ``learner``.
        y : array_like of 0/1
        accountant : Accountant, optional
        rng : None, int or Generator, optional

        Returns
        -------
        QuerySession
            Its ``details`` is the :class:`ReleasePlan`.
        """
        learner = as_learner(self.learner)
        Xc, yb = _training_data(learner, X, y)
        Xh = _class_view(self.hypothesis_class, learner, Xc, X)
        plan = self.plan(Xc.shape[0])
        _accountant_arg(accountant)
        gen = as_generator(rng)
        return _charged(
            accountant,
            plan.privacy.epsilon,
            plan.privacy.delta,
            "AgnosticQueryRelease session",
            lambda: self._run(learner, Xc, Xh, yb, plan, gen),
        )

    def _run(
        self, learner: Learner, Xc: np.ndarray, Xh: np.ndarray, yb: np.ndarray, plan: ReleasePlan, gen: Generator
    ) -> QuerySession:
        n = Xc.shape[0]
        sub = _core.sample_indices(n, plan.n_prime, False, gen)  # step 2: S', without replacement
        relabelled = relabel(Xh[sub], yb[sub], self.hypothesis_class, rng=gen)  # step 3: S''
        res = _core.sample_indices(plan.n_prime, plan.n_prime, True, gen)  # step 4: with replacement
        X_hat, y_hat = Xc[sub][res], relabelled[res]
        inner = _StageSVT(plan, self.m, plan.k, self.on_unstable)
        return inner.session(learner, X_hat, y_hat, gen, plan.privacy, plan)


class _StageSVT:
    """The ``A_SubSamp`` call of a plan (no accountant of its own)."""

    def __init__(self, plan: ReleasePlan, m: int, k: int, on_unstable: str) -> None:
        self.plan = plan
        self.m = m
        self.k = k
        self.on_unstable = on_unstable

    def session(
        self, learner: Learner, X: np.ndarray, y: np.ndarray, gen: Generator, privacy: Budget, details: Any
    ) -> QuerySession:
        voter = learner.fit_ensemble(X, y, _blocks(X.shape[0], self.k, gen))
        return QuerySession(
            learner=learner,
            voter=voter,
            svt=self.plan.guarantee.svt,
            threshold=self.plan.threshold,
            m=self.m,
            privacy=privacy,
            on_unstable=self.on_unstable,
            rng=gen,
            details=details,
        )


# --------------------------------------------------------------------------------------------
# A_SSPP (ABM19)
# --------------------------------------------------------------------------------------------


class SemiPrivateLearner:
    r"""The semi-private learner ``A_SSPP`` (Alon, Bassily and Moran, NeurIPS 2019; Nandi and
    Bassily, Alg. 7): a hypothesis chosen by the exponential mechanism among one representative
    per labeling of the class on *public* unlabelled points, scored on the private sample.

    The candidates are the distinct labelings of the class on the distinct public points, each
    with its representative (a deterministic function of the public point set only,
    :mod:`privlearn.hypotheses`), so the candidate set does not depend on the private data;
    the score is ``−mistakes`` on the private sample (sensitivity 1), so hypothesis ``h`` is
    chosen with probability proportional to ``exp(−ε mistakes(h)/2)`` (exact sampler).

    **Privacy guarantee:** the released hypothesis is ``ε``-DP (pure; replace-one neighbours of
    the private sample, ``n`` public; the public points carry no privacy constraint) (McSherry
    and Talwar 2007). **Utility** ([ABM19]): with about ``d/α`` public and ``d/(εα²)`` private
    points, the excess error is at most ``α`` with high probability (the candidates form an
    ``α``-cover of the class).

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon : float
        > 0.

    Attributes
    ----------
    hypothesis_ : hypothesis
        The released hypothesis, after :meth:`fit`.
    n_candidates_ : int
        Number of candidates (labelings of the public points).
    """

    def __init__(self, hypothesis_class: HypothesisClass, *, epsilon: float) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.epsilon = acc._positive(epsilon, "epsilon")

    @property
    def privacy(self) -> Budget:
        """``Budget(epsilon)``."""
        return Budget(self.epsilon)

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one :meth:`fit` on ``n_samples`` private records (replace-one,
        ``n`` public): :attr:`privacy` (:class:`privlearn._certified.CertifiedRelease`)."""
        check_integer(n_samples, "n_samples", 1)
        return self.privacy

    def fit(
        self,
        X: Any,
        y: Any,
        X_public: Any,
        *,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> "SemiPrivateLearner":
        """Chooses the hypothesis. ``epsilon`` is charged to ``accountant`` before anything is
        drawn.

        Parameters
        ----------
        X : array_like
            Private points (the class's layout).
        y : array_like of 0/1
            Their labels.
        X_public : array_like
            Public unlabelled points (at least one).
        """
        cls = self.hypothesis_class
        Xc = cls._check_X(X)
        if Xc.shape[0] == 0:
            raise InvalidParameterError("X: the private sample is empty", "X")
        yb = check_labels(y, Xc.shape[0])
        try:
            Xp = cls._check_X(X_public)
        except InvalidParameterError as err:
            raise InvalidParameterError(str(err).replace("X:", "X_public:", 1), "X_public") from None
        if Xp.shape[0] == 0:
            raise InvalidParameterError("X_public: at least one public point is needed", "X_public")
        _accountant_arg(accountant)
        d = cls.dichotomies(Xp)
        scores = -d.mistakes_on(Xc, yb)
        i = int(exponential(scores, self.epsilon, 1.0, rng=rng, accountant=accountant))
        self.hypothesis_ = d.hypothesis(i)
        self.n_candidates_ = len(d)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The labels of the released hypothesis on the rows of ``X`` (post-processing)."""
        if not hasattr(self, "hypothesis_"):
            raise InvalidParameterError("this SemiPrivateLearner is not fitted; call fit first", "X")
        return self.hypothesis_class.predict(self.hypothesis_, X)

    def __repr__(self) -> str:
        return f"SemiPrivateLearner({self.hypothesis_class!r}, epsilon={self.epsilon!r})"


# --------------------------------------------------------------------------------------------
# A_UnvPrivCl
# --------------------------------------------------------------------------------------------


class UniversalSession(Session):
    """A session of :class:`UniversalQueryRelease`: the first ``m_o`` queries go to an
    :class:`AgnosticQueryRelease` session; if ``m > m_o``, query ``m_o + 1`` triggers
    :class:`SemiPrivateLearner` on the ``m_o`` answered query points (public) and the private
    sample, and every later query gets the published hypothesis's label (status
    ``"published"``). Same interface as :class:`QuerySession`."""

    def __init__(
        self,
        first: QuerySession,
        m: int,
        m_o: int,
        sspp: Optional[SemiPrivateLearner],
        X: np.ndarray,
        y: np.ndarray,
        privacy: Budget,
        gen: Generator,
        learner: Learner,
    ) -> None:
        self._first = first
        self._m = m
        self._m_o = m_o
        self._sspp = sspp
        self._X = X
        self._y = y
        self._privacy = privacy
        self._gen = gen
        self._learner = learner
        self._public: List[np.ndarray] = []
        self._later: List[str] = []
        self.hypothesis_: Any = None

    @property
    def m_o(self) -> int:
        """Queries answered by the first stage (the public points of the second)."""
        return self._m_o

    @property
    def answered(self) -> int:
        """Queries answered so far (both stages)."""
        return self._first.answered + len(self._later)

    @property
    def unstable(self) -> int:
        """Unstable answers of the first stage."""
        return self._first.unstable

    @property
    def max_unstable(self) -> int:
        """The first stage's cut-off on unstable answers."""
        return self._first.max_unstable

    @property
    def halted(self) -> bool:
        """Whether the first stage reached its cut-off."""
        return self._first.halted

    @property
    def statuses(self) -> List[str]:
        """One status per answer (see :attr:`QuerySession.statuses`)."""
        return self._first.statuses + self._later

    @property
    def published(self) -> bool:
        """Whether the second stage's hypothesis has been chosen."""
        return self.hypothesis_ is not None

    def __repr__(self) -> str:
        return (
            f"UniversalSession(answered={self.answered}, m={self._m}, m_o={self._m_o}, "
            f"unstable={self.unstable}, published={self.published}, privacy={self._privacy!r})"
        )

    def _publish(self) -> None:
        assert self._sspp is not None
        public = np.concatenate(self._public, axis=0)
        self._sspp.fit(self._X, self._y, public, rng=self._gen)
        self.hypothesis_ = self._sspp.hypothesis_
        self._X = self._y = np.zeros(0)  # the private sample is no longer needed

    def _answer_rows(self, rows: np.ndarray) -> List[Optional[int]]:
        out: List[Optional[int]] = []
        first = min(self._first.remaining, rows.shape[0])
        if first:
            head = rows[:first]
            self._public.append(head)
            out.extend(self._first._answer_rows(head))
        rest = rows[first:]
        if rest.shape[0]:
            if self.hypothesis_ is None:
                self._publish()
            assert self._sspp is not None
            cls = self._sspp.hypothesis_class
            labels = cls._predict(self.hypothesis_, cls._check_X(rest))
            out.extend(int(v) for v in labels)
            self._later.extend([PUBLISHED] * rest.shape[0])
        return out


class UniversalQueryRelease:
    r"""Private classification-query release for any number of queries: ``A_UnvPrivCl`` (Nandi
    and Bassily, ALT 2020, Alg. 4, Theorem 4.1).

    The first ``m_o`` queries are answered by :class:`AgnosticQueryRelease`; their points,
    public by the problem's definition, then serve as the unlabelled public data of
    :class:`SemiPrivateLearner`, whose published hypothesis answers every later query. The
    second stage runs only when ``m > m_o`` (ERRATA C7).

    **Privacy guarantee** (replace-one, ``n`` public): both stages read the same private sample,
    so the session is ``(ε₁ + ε₂, δ₁)``-DP by basic composition (the notes' flag on Alg. 4): the
    budget is split, ``ε₂ = split·ε`` to the semi-private learner (pure DP) and the rest of
    ``(ε, δ)`` to the first stage, whose exact guarantee is its :class:`ReleasePlan`'s. When
    ``m <= m_o`` the whole budget goes to the first stage. The total is charged once, when the
    session starts (the second stage's share is charged even if the session ends before query
    ``m_o + 1``).

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon, delta : float
        The total budget.
    m : int
        The largest number of queries (any number >= 1).
    m_o : int
        Queries answered by the first stage.
    cutoff, k : float, int (optional)
        The first stage's ``A_SubSamp`` knobs (for ``min(m, m_o)`` queries).
    split : float, default 0.5
        Fraction of ``epsilon`` given to the second stage when ``m > m_o``.
    learner, sample_fraction, noise_scale, threshold, on_unstable
        As for :class:`AgnosticQueryRelease`.
    """

    def __init__(
        self,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        m: int,
        m_o: int,
        cutoff: float,
        k: Optional[int] = None,
        split: float = 0.5,
        learner: Any = None,
        sample_fraction: Optional[float] = None,
        noise_scale: Optional[float] = None,
        threshold: Optional[float] = None,
        on_unstable: str = "bottom",
    ) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = acc._int(m, "m", 1)
        self.m_o = acc._int(m_o, "m_o", 1)
        s = acc._open_unit(split, "split")
        self.split = s
        two_stages = self.m > self.m_o
        self.epsilon_public = self.epsilon * s if two_stages else 0.0
        eps_first = self.epsilon - self.epsilon_public if two_stages else self.epsilon
        if two_stages and eps_first + self.epsilon_public > self.epsilon:
            eps_first = math.nextafter(eps_first, 0.0)
        self.first = AgnosticQueryRelease(
            hypothesis_class,
            epsilon=eps_first,
            delta=self.delta,
            m=min(self.m, self.m_o),
            k=k,
            cutoff=cutoff,
            learner=learner,
            sample_fraction=sample_fraction,
            noise_scale=noise_scale,
            threshold=threshold,
            on_unstable=on_unstable,
        )
        self.second = (
            SemiPrivateLearner(hypothesis_class, epsilon=self.epsilon_public) if two_stages else None
        )

    @classmethod
    def from_theory(
        cls,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        alpha: float,
        beta: float,
        m: int,
        learner: Any = None,
        on_unstable: str = "bottom",
    ) -> "UniversalQueryRelease":
        """The paper's settings: ``m_o = ceil(32 (d ln(1/α) + ln(1/β))/α)`` with ``d`` the
        class's VC dimension, and the first stage's :meth:`AgnosticQueryRelease.from_theory` at
        ``(ε/2, δ, α, β/2)`` (half of ``ε`` and of ``β`` to each stage) when ``m > m_o``."""
        d = hypothesis_class.vc_dimension
        if d is None:
            raise InvalidParameterError(
                "hypothesis_class: its VC dimension is unknown (needed for m_o)", "hypothesis_class"
            )
        m_o = acc.universal_m_o(d, alpha, beta)
        m = acc._int(m, "m", 1)
        two = m > m_o
        out = cls(
            hypothesis_class, epsilon=epsilon, delta=delta, m=m, m_o=m_o, cutoff=1.0,
            learner=learner, on_unstable=on_unstable,
        )
        out.first = AgnosticQueryRelease.from_theory(
            hypothesis_class,
            epsilon=out.first.epsilon,
            delta=out.delta,
            alpha=alpha,
            beta=beta / 2 if two else beta,
            m=min(m, m_o),
            learner=learner,
            on_unstable=on_unstable,
        )
        return out

    def __repr__(self) -> str:
        return (
            f"UniversalQueryRelease({self.hypothesis_class!r}, epsilon={self.epsilon!r}, "
            f"delta={self.delta!r}, m={self.m}, m_o={self.m_o})"
        )

    def privacy(self, n: int) -> Budget:
        """The exact guarantee of a session on ``n`` private records (basic composition of the
        two stages)."""
        first = self.first.plan(n).privacy
        if self.second is None:
            return first
        return compose_basic([first, self.second.privacy])

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one session (:meth:`start`) on ``n_samples`` private records:
        :meth:`privacy` (:class:`privlearn._certified.CertifiedRelease`)."""
        return self.privacy(check_integer(n_samples, "n_samples", 1))

    def start(
        self, X: Any, y: Any, *, accountant: Optional[Accountant] = None, rng: RngLike = None
    ) -> UniversalSession:
        """Opens a session; :meth:`privacy` is charged once, before anything is drawn."""
        learner = as_learner(self.first.learner)
        Xc, yb = _training_data(learner, X, y)
        Xh = _class_view(self.hypothesis_class, learner, Xc, X)
        plan = self.first.plan(Xc.shape[0])
        total = plan.privacy if self.second is None else compose_basic([plan.privacy, self.second.privacy])
        if not total <= Budget(self.epsilon, self.delta):
            raise InvalidParameterError(  # pragma: no cover - the split prevents it
                f"epsilon: the exact guarantee {total!r} exceeds the budget", "epsilon"
            )
        _accountant_arg(accountant)
        gen = as_generator(rng)

        def run() -> UniversalSession:
            first = self.first._run(learner, Xc, Xh, yb, plan, gen)
            return UniversalSession(first, self.m, min(self.m, self.m_o), self.second, Xh, yb, total, gen, learner)

        return _charged(accountant, total.epsilon, total.delta, "UniversalQueryRelease session", run)

