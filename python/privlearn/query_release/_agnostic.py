r"""Private classification-query release in the agnostic setting, ``A_AgPrivCl`` (Nandi and
Bassily, ALT 2020, Alg. 3, Theorem 3.3): sub-sample, relabel (:func:`relabel`), resample, then
the sparse-vector stage of ``A_SubSamp``; :class:`ReleasePlan` holds the settings and the exact
chain of guarantees (ERRATA C5) for a sample size.

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Tuple

import numpy as np

from .. import _core
from .._validate import check_integer, check_positive, check_probability, check_real
from ..accounting import Accountant, Budget, amplify_by_subsampling
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass
from ..mechanisms import _charged
from ..random import Generator, RngLike, as_generator
from . import _accounting as acc
from ._common import _budget_pair, _class_arg, _class_view, _training_data
from ._learners import Learner, as_learner
from ._relabel import relabel
from ._session import QuerySession, check_on_unstable
from ._subsample import _check_k, _check_k_clears, _ensemble_session, _plan_svt, recommended_k

__all__ = ["AgnosticQueryRelease", "ReleasePlan"]


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
        if (
            amplify_by_subsampling(Budget(acc.LABELBOOST_EPSILON), n_prime / n, n=n).epsilon
            <= epsilon
        ):
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
    :func:`svt_guarantee` (its rounds composed by the smallest of basic, advanced and
    Kairouz-Oh-Viswanath optimal composition, ``composition``); group privacy over the exact resampling multiplicity ``r₀`` plus
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
    composition : {"optimal", "advanced"}, default "optimal"
        How the sparse vector's rounds are composed (as for :class:`SubsampleSVT`;
        ``"advanced"`` is the accounting before issue 18).
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
        composition: str = "optimal",
    ) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.learner = hypothesis_class if learner is None else learner
        as_learner(self.learner)
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = check_integer(m, "m", 1)
        self.k = _check_k(k)
        self.cutoff = check_real(cutoff, "cutoff", 0.0)
        if sample_fraction is not None:
            sample_fraction = check_probability(sample_fraction, "sample_fraction", one_ok=True)
        self.sample_fraction = sample_fraction
        self.noise_scale = (
            None if noise_scale is None else check_positive(noise_scale, "noise_scale")
        )
        self.threshold = None if threshold is None else check_real(threshold, "threshold", 0.0)
        self.on_unstable = check_on_unstable(on_unstable)
        self.composition = acc._check_composition(composition)
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
        composition: str = "optimal",
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
            composition=composition,
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
        n = check_integer(n, "n", 1)
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
            eps_t,
            d_svt,
            self.m,
            self.cutoff,
            self.noise_scale,
            self.threshold,
            f"after group privacy over r0 = {r0} resampled copies",
            self.composition,
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
            p.noise_scale,
            p.cutoff,
            p.m,
            p.threshold,
            delta_slack=p.delta_hat / 2,
            composition=self.composition,
        )
        chain = acc.agnostic_guarantee(svt, p.n_prime, n, p.resampling_multiplicity)
        return self._checked(n, p.n_prime, p.noise_scale, p.threshold, chain, p.k)

    def _checked(
        self,
        n: int,
        n_prime: int,
        lam: float,
        w: float,
        chain: acc.AgnosticGuarantee,
        k: Optional[int],
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
            n=n,
            n_prime=n_prime,
            k=k,
            cutoff=self.cutoff,
            noise_scale=lam,
            threshold=w,
            guarantee=chain,
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
        check_accountant(accountant)
        gen = as_generator(rng)
        return _charged(
            accountant,
            plan.privacy.epsilon,
            plan.privacy.delta,
            "AgnosticQueryRelease session",
            lambda: self._run(learner, Xc, Xh, yb, plan, gen),
        )

    def _run(
        self,
        learner: Learner,
        Xc: np.ndarray,
        Xh: np.ndarray,
        yb: np.ndarray,
        plan: ReleasePlan,
        gen: Generator,
    ) -> QuerySession:
        n = Xc.shape[0]
        sub = _core.sample_indices(n, plan.n_prime, False, gen)  # step 2: S', without replacement
        relabelled = relabel(Xh[sub], yb[sub], self.hypothesis_class, rng=gen)  # step 3: S''
        res = _core.sample_indices(
            plan.n_prime, plan.n_prime, True, gen
        )  # step 4: with replacement
        X_hat, y_hat = Xc[sub][res], relabelled[res]
        return _ensemble_session(  # A_SubSamp on the relabelled sample
            learner,
            X_hat,
            y_hat,
            gen,
            k=plan.k,
            svt=plan.guarantee.svt,
            threshold=plan.threshold,
            m=self.m,
            on_unstable=self.on_unstable,
            privacy=plan.privacy,
            details=plan,
        )
