r"""Private classification-query release (seed 004).

Nandi and Bassily, "Privately answering classification queries in the agnostic PAC model"
(ALT 2020): a private labelled sample answers a stream of classification queries, one at a
time, under one privacy budget for the whole stream.

=====================================  ==========================================================
:class:`SubsampleSVT`                  ``A_SubSamp`` (Bassily–Thakurta–Thakkar 2018; Alg. 5):
                                       subsample-and-aggregate with the sparse vector technique
:class:`DistanceToInstability`         ``A_stab`` (Smith–Thakurta 2013; Alg. 6)
:func:`relabel`                        ``A_Relabel`` (LabelBoost, Beimel–Nissim–Stemmer 2015;
                                       Alg. 2): the exponential mechanism over the dichotomies
                                       of the private points
:class:`AgnosticQueryRelease`          ``A_AgPrivCl`` (Alg. 3, Theorem 3.3): relabel, resample,
                                       then ``A_SubSamp``; no ``3γ`` blow-up in the agnostic case
:class:`SemiPrivateLearner`            ``A_SSPP`` (Alon–Bassily–Moran 2019; Alg. 7): a pure-DP
                                       hypothesis from public unlabelled points
:class:`UniversalQueryRelease`         ``A_UnvPrivCl`` (Alg. 4, Theorem 4.1): any number of
                                       queries
:func:`theory_parameters`              the paper's settings (``T``, ``ε'``, ``ε̂``, ``δ̂``,
                                       ``λ``, ``k``, ``w``, ...)
=====================================  ==========================================================

**Sessions.** ``session = algo.start(X, y, accountant=..., rng=...)`` trains on the private
sample and returns a session; ``session.answer(x)`` labels one query (``0``, ``1``, or ``None``
for an unstable answer, the paper's ⊥, unless ``on_unstable="random"``). ``answered``,
``unstable`` and ``remaining`` are exact; after ``min(floor(T) + 1, m)`` unstable answers the
session stops using the data. The session's whole guarantee is charged to the accountant once,
at ``start``, before anything is drawn; answering charges nothing.

**Privacy accounting** follows the project's errata (``spec/ERRATA.md`` C1–C7) exactly: the
distance to instability has sensitivity 1 (C1); the sparse vector composes ``floor(T) + 1``
rounds (by the tightest of basic, advanced and Kairouz-Oh-Viswanath optimal composition;
``composition="advanced"`` keeps the older accounting) and adds the stable-release delta (C2);
the resampling multiplicity comes from the exact
binomial tail (C3); the theory mode refuses ``ε > 1`` (C4); the chain of ``A_AgPrivCl`` is
computed step by step and parameter sets outside its lemmas are refused (C5); the relabelling
candidates are deduplicated exactly (C6); ``A_UnvPrivCl`` runs its second stage only when
``m > m_o`` (C7). Neighbouring datasets differ in one record (replace-one, ``n`` public).

**Modes.** Constructors are the practical mode: the accuracy knobs (``k``, the cut-off ``T``,
thresholds, sample fractions) are free and the accounting stays exact; noise scales and
thresholds not given are calibrated to the budget. ``from_theory`` constructors use the paper's
settings, whose constants (``k`` about ``10^6``) need samples of order ``10^9``.

Base learners: the exact ERM of any :mod:`privlearn.hypotheses` class, or any scikit-learn
classifier. Seeds (``rng=int``) make runs reproducible and void the privacy guarantee.
"""

from ._accounting import (
    AgnosticGuarantee,
    SubsampleSVTParameters,
    SVTGuarantee,
    TheoryParameters,
    agnostic_guarantee,
    resampling_multiplicity,
    resampling_tail,
    stable_release_probability,
    subsample_svt_parameters,
    svt_guarantee,
    theory_parameters,
    universal_m_o,
)
from ._agnostic import AgnosticQueryRelease, ReleasePlan
from ._relabel import relabel
from ._semiprivate import SemiPrivateLearner
from ._session import QuerySession, distance_to_instability
from ._stability import DistanceToInstability
from ._subsample import SubsampleSVT
from ._universal import UniversalQueryRelease, UniversalSession

__all__ = [
    "SubsampleSVT",
    "DistanceToInstability",
    "relabel",
    "AgnosticQueryRelease",
    "SemiPrivateLearner",
    "UniversalQueryRelease",
    "QuerySession",
    "UniversalSession",
    "ReleasePlan",
    "theory_parameters",
    "subsample_svt_parameters",
    "svt_guarantee",
    "stable_release_probability",
    "resampling_tail",
    "resampling_multiplicity",
    "agnostic_guarantee",
    "universal_m_o",
    "distance_to_instability",
    "TheoryParameters",
    "SubsampleSVTParameters",
    "SVTGuarantee",
    "AgnosticGuarantee",
]
