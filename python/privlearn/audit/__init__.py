"""Empirical privacy auditing and distribution tests (DESIGN principle 8: claims are tested).

**Auditing.** A mechanism ``M`` is ``(epsilon, delta)``-differentially private when, for every pair
of neighbouring inputs ``D_a, D_b`` and every set of outputs ``S``,
``P[M(D_a) in S] <= exp(epsilon) * P[M(D_b) in S] + delta`` (and the same with ``a`` and ``b``
swapped). Running the mechanism many times on one such pair and counting how often each event
``S`` happens gives, through exact binomial confidence bounds, a *lower* confidence bound on the
``epsilon`` the mechanism can have: :func:`epsilon_lower_bound` from samples, :func:`audit` from
two sampling functions. A correct mechanism's bound stays below its claim except with
probability ``alpha``; a bound above the claim is a proof (at confidence ``1 - alpha``) that the
claim is false. A bound below the claim proves nothing: black-box tests miss events of small
probability and neighbours that were not tried (Wang et al., arXiv 2411.16516), so audits
complement exact samplers and proofs, they do not replace them.

The method is the Clopper--Pearson test of DP-Sniper (Bichsel et al., S&P 2021) and of
TensorFlow Privacy's ``EpsilonLowerBound``, with threshold, value and likelihood-ratio events
chosen on a held-out split and a Bonferroni correction over the tests made. The same events
bound delta at the claimed epsilon (the hockey-stick divergence, :func:`delta_lower_bound`, as
in DP-Auditorium, Kong et al. 2024) and the Gaussian-DP ``mu`` (:func:`mu_lower_bound`,
claims :class:`GaussianDP`); :func:`tradeoff_curve` bounds the whole trade-off curve of
threshold tests with a simultaneous band (Dong, Roth, Su, JRSS-B 2022; Nasr et al., USENIX
Security 2023), compared with a claim's :func:`tradeoff_function`. For vector and structured
outputs, ``audit(..., distinguisher=...)`` learns the event with a classifier trained on half of
the samples and audits its scores on the other half (DP-Sniper); :func:`search_neighbours`
audits the worst of a family of candidate neighbouring datasets of a :class:`Domain`, and
:func:`write_report` writes the Markdown/JSON report of an audit.

**Distribution tests.** :func:`chi_square_pvalue` (discrete outputs against exact category
probabilities) and :func:`ks_pvalue` (continuous outputs against a CDF), and :func:`power_check`,
which runs a test at false-positive rate :data:`FALSE_POSITIVE_RATE` and requires the same
samples to be rejected against the law with its scale off by 30%, so that a test without the
power to see a wrong scale fails instead of passing vacuously.

Layout (one concept per private module; the public names are those of ``__all__``):

============================  ===================================================================
``_results``                  :class:`Event`, :class:`AuditResult`
``_claims``                   claim parsing, :class:`GaussianDP`, :func:`tradeoff_function`
``_intervals``                Clopper--Pearson bounds on event probabilities, the per-event
                              bounds on epsilon, delta and mu
``_samples``                  mechanism outputs as checked, countable sample arrays
``_cells``                    output binning: the partitions behind ``events="auto"``
``_engine``                   event selection, explicit event families, Bonferroni accounting,
                              for any objective (epsilon, delta or mu)
``_lower_bound``              :func:`epsilon_lower_bound`, :func:`delta_lower_bound`,
                              :func:`mu_lower_bound`
``_tradeoff``                 :class:`TradeoffCurve`, :func:`tradeoff_curve` (DKW band)
``_distinguisher``            learned distinguishers: classifiers' scores on held-out samples
``_audit``                    sampling, methods, :func:`audit`
``_neighbours``               :class:`Domain`, :func:`neighbour_candidates`, :func:`search_neighbours`,
                              :class:`NeighbourAudit`
``_report``                   :func:`write_report` (Markdown, JSON, trade-off plot), :func:`verdict_line`
``_distribution_tests``       :func:`chi_square_pvalue`, :func:`ks_pvalue`, :func:`power_check`
``_prediction``               :func:`audit_prediction_stability`, :func:`audit_prediction_privacy`
============================  ===================================================================
"""

from ._audit import audit
from ._claims import GaussianDP, tradeoff_function
from ._distribution_tests import (
    FALSE_POSITIVE_RATE,
    PowerCheck,
    chi_square_pvalue,
    ks_pvalue,
    power_check,
)
from ._lower_bound import delta_lower_bound, epsilon_lower_bound, mu_lower_bound
from ._neighbours import Domain, NeighbourAudit, neighbour_candidates, search_neighbours
from ._prediction import (
    StabilityAuditResult,
    audit_prediction_privacy,
    audit_prediction_stability,
)
from ._report import verdict_line, write_report
from ._results import AuditResult, Event
from ._tradeoff import TradeoffCurve, tradeoff_curve

__all__ = [
    "epsilon_lower_bound",
    "delta_lower_bound",
    "mu_lower_bound",
    "audit",
    "GaussianDP",
    "tradeoff_function",
    "tradeoff_curve",
    "TradeoffCurve",
    "search_neighbours",
    "neighbour_candidates",
    "Domain",
    "NeighbourAudit",
    "write_report",
    "verdict_line",
    "AuditResult",
    "Event",
    "chi_square_pvalue",
    "ks_pvalue",
    "power_check",
    "PowerCheck",
    "FALSE_POSITIVE_RATE",
    "audit_prediction_stability",
    "audit_prediction_privacy",
    "StabilityAuditResult",
]
