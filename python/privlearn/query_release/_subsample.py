r"""Subsample-and-aggregate with the sparse vector technique, ``A_SubSamp`` (Bassily, Thakurta
and Thakkar, NeurIPS 2018, Alg. 2; Nandi and Bassily, ALT 2020, Alg. 5): the calibration of the
sparse-vector stage (noise scale ``λ``, threshold ``w``, ensemble size ``k``; also used by the
stage of ``A_AgPrivCl``) and :class:`SubsampleSVT`.

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np

from .. import _core
from .._validate import check_integer, check_positive, check_probability, check_real
from ..accounting import Accountant, Budget
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..mechanisms import _charged
from ..random import Generator, RngLike, as_generator
from . import _accounting as acc
from ._common import _budget_pair, _training_data
from ._learners import Learner, as_learner
from ._session import QuerySession, check_on_unstable

__all__ = ["SubsampleSVT"]


# --------------------------------------------------------------------------------------------
# The sparse-vector stage: calibration
# --------------------------------------------------------------------------------------------


#: Fractions of the stage's delta tried as composition slack by ``composition="optimal"``
#: (besides basic composition, which needs none): public constants, so the choice among them
#: depends on public parameters only.
SLACK_FRACTIONS = (0.5, 0.125, 1.0 / 32, 1.0 / 128)


def _plan_one(
    epsilon: float,
    delta: float,
    m: int,
    cutoff: float,
    noise_scale: Optional[float],
    threshold: Optional[float],
    slack: Optional[float],
    composition: str,
) -> Optional[Tuple[float, float, acc.SVTGuarantee]]:
    """``λ``, ``w`` and the guarantee at one composition slack (``None``: basic), or ``None``
    if the given ``λ`` or ``w`` does not fit there."""
    if noise_scale is None:
        lam = acc.calibrate_noise_scale(epsilon, cutoff, m, slack, composition)
    else:
        lam = noise_scale
    rounds, _, _, _, comp_delta, eps = acc._svt_epsilon(lam, cutoff, m, slack, composition)
    if eps > epsilon or comp_delta >= delta:
        return None
    if threshold is None:
        w = acc.calibrate_threshold(lam, m, (delta - comp_delta) * (1 - 1e-9), rounds)
    else:
        w = threshold
    svt = acc.svt_guarantee(lam, cutoff, m, w, delta_slack=slack, composition=composition)
    if svt.budget.epsilon > epsilon or svt.budget.delta > delta:
        return None
    return lam, w, svt


def _plan_svt(
    epsilon: float,
    delta: float,
    m: int,
    cutoff: float,
    noise_scale: Optional[float],
    threshold: Optional[float],
    what: str,
    composition: str = "optimal",
) -> Tuple[float, float, acc.SVTGuarantee]:
    """The sparse-vector stage within ``(epsilon, delta)``: the given ``λ`` and ``w``, or the
    smallest ones that fit.

    ``composition="advanced"`` (the accounting before issue 18): composition slack
    ``delta/2`` (advanced composition when it beats basic), the rest of delta for the stable
    releases. ``composition="optimal"``: every candidate slack (basic composition with no
    slack, and ``f * delta`` for ``f`` in :data:`SLACK_FRACTIONS`, Kairouz-Oh-Viswanath
    optimal composition) is planned, and the one with the smallest ``w + 8λ`` (what the
    default ensemble size ``2 ceil(w + 8λ) + 2`` and the release probability of unanimous
    votes depend on) is kept; ties go to the earlier candidate. A slack costs stable-release
    delta (a larger ``w``), so with few rounds basic composition usually wins. Every choice
    depends on public parameters only.
    """
    lam_given = None if noise_scale is None else check_positive(noise_scale, "noise_scale")
    w_given = None if threshold is None else check_real(threshold, "threshold", 0.0)
    if composition == "optimal":
        slacks: List[Optional[float]] = [None] + [f * delta for f in SLACK_FRACTIONS]
    else:
        slacks = [delta / 2]
    best: Optional[Tuple[float, float, acc.SVTGuarantee]] = None
    for slack in slacks:
        plan = _plan_one(epsilon, delta, m, cutoff, lam_given, w_given, slack, composition)
        if plan is not None and (best is None or plan[1] + 8 * plan[0] < best[1] + 8 * best[0]):
            best = plan
    if best is not None:
        return best
    # Nothing fits: explain with the widest slack (the smallest lambda it allows).
    slack = delta / 2
    lam = acc.calibrate_noise_scale(epsilon, cutoff, m, slack, composition)
    if lam_given is not None:
        rounds, _, _, _, _, eps = acc._svt_epsilon(lam_given, cutoff, m, slack, composition)
        if eps > epsilon:
            raise InvalidParameterError(
                f"noise_scale: lambda = {lam_given:.6g} makes the sparse-vector stage {eps:.6g}-DP "
                f"over {rounds} rounds, above the {epsilon:.6g} available for it ({what}); use at "
                f"least {lam:.6g}",
                "noise_scale",
            )
        lam = lam_given
    rounds, _, _, _, comp_delta, _ = acc._svt_epsilon(lam, cutoff, m, slack, composition)
    assert w_given is not None  # a calibrated threshold always fits
    svt = acc.svt_guarantee(lam, cutoff, m, w_given, delta_slack=slack, composition=composition)
    raise InvalidParameterError(
        f"threshold: w = {w_given:.6g} leaves stable releases of probability "
        f"{svt.stable_release_delta:.3g}, above the delta available ({delta:.3g}, {what}); use "
        f"at least {acc.calibrate_threshold(lam, m, (delta - comp_delta) * (1 - 1e-9), rounds):.6g}",
        "threshold",
    )


def _ensemble_session(
    learner: Learner,
    X: np.ndarray,
    y: np.ndarray,
    gen: Generator,
    *,
    k: int,
    svt: Any,
    threshold: float,
    m: int,
    on_unstable: str,
    privacy: Budget,
    details: Any,
) -> QuerySession:
    """A_SubSamp's session: the learner's ``k`` classifiers on disjoint blocks of ``(X, y)``
    vote, and the sparse vector (``svt``, ``threshold``) answers up to ``m`` queries."""
    voter = learner.fit_ensemble(X, y, _blocks(X.shape[0], k, gen))
    return QuerySession(
        learner=learner,
        voter=voter,
        svt=svt,
        threshold=threshold,
        m=m,
        privacy=privacy,
        on_unstable=on_unstable,
        rng=gen,
        details=details,
    )


def _blocks(n: int, k: int, gen: Generator) -> List[np.ndarray]:
    """``k`` disjoint sub-samples of ``floor(n/k)`` records (a uniformly random split; the
    remainder is dropped)."""
    perm = _core.permutation(n, gen)
    size = n // k
    return [perm[j * size : (j + 1) * size] for j in range(k)]


def _check_k(k: Any) -> Optional[int]:
    return None if k is None else check_integer(k, "k", 1)


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
    rounds of ``2/λ`` each, adaptively composed by the smallest of basic, advanced and
    Kairouz-Oh-Viswanath optimal composition (ICML 2015, Theorem 3.3; ``composition``), plus
    ``m`` times the probability of
    releasing a query of distance 0. The paper's gap ``largest − second largest`` has
    sensitivity 2, not 1; this implementation uses the sensitivity-1 distance above
    (ERRATA C1), keeping the paper's ``λ`` and ``w``.

    **Modes.** The constructor is the practical mode: the budget ``(epsilon, delta)`` and the
    accuracy knobs ``k`` and ``cutoff`` are free; ``noise_scale`` (``λ``) and ``threshold``
    (``w``) default to the smallest values that fit the budget (``λ``: the sparse vector's
    epsilon with composition slack ``δ/2``; ``w``: the rest of ``δ`` for stable
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
    composition : {"optimal", "advanced"}, default "optimal"
        How the sparse vector's rounds are composed (:func:`svt_guarantee`): ``"optimal"``
        includes Kairouz-Oh-Viswanath's optimal composition, which at the same budget allows a
        larger round epsilon (a smaller ``λ``) once there are more than a few rounds;
        ``"advanced"`` is the accounting before issue 18 (basic or advanced composition).

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
        composition: str = "optimal",
    ) -> None:
        as_learner(learner)
        self.learner = learner
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = check_integer(m, "m", 1)
        k_given = _check_k(k)
        self.cutoff = check_real(cutoff, "cutoff", 0.0)
        self.on_unstable = check_on_unstable(on_unstable)
        self.composition = acc._check_composition(composition)
        self.noise_scale, self.threshold, self.svt = _plan_svt(
            self.epsilon,
            self.delta,
            self.m,
            self.cutoff,
            noise_scale,
            threshold,
            "SubsampleSVT",
            self.composition,
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
        composition: str = "optimal",
    ) -> "SubsampleSVT":
        """The paper's settings: ``T = max(1, mα/8 + sqrt(3mα ln(m/β))/4)`` and ``λ``, ``k``,
        ``w`` of :func:`subsample_svt_parameters` at ``(ε, δ, β)``."""
        eps, dlt = _budget_pair(epsilon, delta)
        a = check_probability(alpha, "alpha")
        b = check_probability(beta, "beta")
        m = check_integer(m, "m", 1)
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
            composition=composition,
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
        check_accountant(accountant)
        gen = as_generator(rng)
        return _charged(
            accountant,
            self.privacy.epsilon,
            self.privacy.delta,
            "SubsampleSVT session",
            lambda: _ensemble_session(
                learner,
                Xc,
                yb,
                gen,
                k=self.k,
                svt=self.svt,
                threshold=self.threshold,
                m=self.m,
                on_unstable=self.on_unstable,
                privacy=self.privacy,
                details=self.svt,
            ),
        )
