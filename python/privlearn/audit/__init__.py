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
chosen on a held-out split and a Bonferroni correction over the tests made.

**Distribution tests.** :func:`chi_square_pvalue` (discrete outputs against exact category
probabilities) and :func:`ks_pvalue` (continuous outputs against a CDF), and :func:`power_check`,
which runs a test at false-positive rate :data:`FALSE_POSITIVE_RATE` and requires the same
samples to be rejected against the law with its scale off by 30%, so that a test without the
power to see a wrong scale fails instead of passing vacuously.

Layout (one concept per private module; the public names are those of ``__all__``):

============================  ===================================================================
``_results``                  :class:`Event`, :class:`AuditResult`
``_intervals``                Clopper--Pearson bounds on event probabilities, the log-ratio bound
``_samples``                  mechanism outputs as checked, countable sample arrays
``_cells``                    output binning: the partitions behind ``events="auto"``
``_lower_bound``              event selection, explicit event families, :func:`epsilon_lower_bound`
``_audit``                    claims, sampling, :func:`audit`
``_distribution_tests``       :func:`chi_square_pvalue`, :func:`ks_pvalue`, :func:`power_check`
``_prediction``               :func:`audit_prediction_stability`, :func:`audit_prediction_privacy`
============================  ===================================================================
"""

from ._audit import audit
from ._distribution_tests import (
    FALSE_POSITIVE_RATE,
    PowerCheck,
    chi_square_pvalue,
    ks_pvalue,
    power_check,
)
from ._lower_bound import epsilon_lower_bound
from ._prediction import (
    StabilityAuditResult,
    audit_prediction_privacy,
    audit_prediction_stability,
)
from ._results import AuditResult, Event

__all__ = [
    "epsilon_lower_bound",
    "audit",
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
