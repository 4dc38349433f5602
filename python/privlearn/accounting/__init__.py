r"""Privacy budgets, the accountant, composition in four privacy notions, amplification, group privacy.

Every learner and mechanism in privlearn takes ``accountant=``: an :class:`Accountant` holds a
total and refuses, before anything is drawn, any spend that would exceed it. Each release
states its guarantee in its native form, a :class:`PrivacyEvent` (a Gaussian mechanism of
noise ``sigma``, an epsilon-bounded-range exponential mechanism, randomized response, an
(epsilon, delta) pair, ...), from which the accountant derives the form its composition needs:

==========================  ======================================================================
``Accountant(total)``       basic composition: epsilons and deltas add (adaptive; the default)
``composition="zcdp"``      a zCDP privacy filter: rhos add (Bun–Steinke; Feldman–Zrnic filter)
``composition="rdp"``       a Rényi filter at one order fixed in advance (Feldman–Zrnic 2021)
``composition="pld"``       privacy-loss distributions for a plan declared up front (no filter)
==========================  ======================================================================

**Privacy notions and their curves** (each rounded to the safe side, each stating its
neighbouring relation, ``"replace-one"`` or ``"add/remove-one"``; mixing them is refused):

========================================  =====================================================
:class:`Budget`                           (epsilon, delta)
:class:`ZcdpBudget`, ``zcdp_*``           rho-zCDP: Gaussian, pure, bounded range (eps^2/8)
:class:`RdpCurve`, ``rdp_*``              Rényi DP on dp_accounting's orders: Gaussian, Laplace,
                                          randomized response, pure, bounded range (exact
                                          worst pair), Poisson-subsampled Gaussian,
                                          fixed-size-subsampled Gaussian and Laplace
:class:`PldCurve`, ``pld_*``              pessimistic discretised privacy-loss distributions
                                          (connect-the-dots), composed by FFT in Rust: Gaussian,
                                          Laplace, discrete Laplace and Gaussian, randomized
                                          response, pure, approximate DP, Poisson- and
                                          fixed-size-subsampled Gaussian and Laplace
========================================  =====================================================

**Composition and conversion.**

========================================  =====================================================
:func:`compose_basic`                     sum of the budgets (any sequence, adaptive)
:func:`compose_advanced`                  Dwork–Rothblum–Vadhan advanced composition
:func:`compose_optimal`                   the exact optimum of Kairouz–Oh–Viswanath
:func:`compose_bounded_range`             k adaptive epsilon-bounded-range (exponential)
                                          mechanisms (Dong–Durfee–Rogers 2020), and its
                                          inverse :func:`max_bounded_range_epsilon`
:func:`compose_zcdp`                      composition in each notion (and
                                          :func:`compose_rdp`, :func:`compose_pld`)
:func:`zcdp_to_dp`, :func:`rdp_to_dp`     Canonne–Kamath–Steinke conversions (and
                                          :func:`zcdp_delta`, :func:`rdp_delta`); a PLD
                                          converts exactly (:meth:`PldCurve.epsilon`)
:func:`amplify_by_subsampling`            Balle–Barthe–Gaboardi (and seed 000's lemmas)
:func:`group_privacy`                     datasets that differ in ``k`` records
:func:`to_dp_event`                       Google dp_accounting ``DpEvent`` s (and
                                          :func:`from_dp_event`; optional dependency), to
                                          check privlearn's totals there
========================================  =====================================================

**Neighbouring relation.** As everywhere in privlearn, two datasets are neighbours when they
have the same size ``n`` (which is public) and differ by replacing one record ("substitution",
"replace-one"). Composition and group privacy hold for any neighbouring relation, as long as
every mechanism involved is private with respect to the same one; the subsampling theorems are
stated for replace-one and say so, the Poisson-subsampled curves for add/remove-one and the
fixed-size (without replacement) subsampled curves for replace-one.

**Rounding.** Every bound is computed in high-precision decimal arithmetic (Python's
:mod:`decimal`, 50 or more significant digits) or exactly (:class:`fractions.Fraction`), and the
returned epsilon and delta are rounded *up* to the next float, so a reported guarantee is never
smaller than the true bound. :class:`Accountant` adds spends exactly (floats are exact dyadic
rationals) and accepts them up to a relative ``2**-40`` above the total (the float rounding of
decimal inputs such as ``0.1``), reporting the exact sum; :attr:`Accountant.remaining`
is rounded *down* and ``budget / k`` splits a budget into ``k`` parts rounded down, so spending
them always fits. PLDs are discretised pessimistically and carry an explicit bound on the
floating-point error of their FFT composition, added to every delta they report.

The package is pure Python except the privacy-loss distributions (``_pld``): their
discretisation, the closed-form constructors of randomized response, pure and approximate DP and
Laplace, the FFT composition and the read-out of epsilon and delta run in the Rust core
(``rust/core/src/accounting``); the rest is scalar arithmetic and bookkeeping, not a hot path (a spend costs a few
microseconds; the slowest bound, :func:`compose_optimal`, walks ``O(sqrt(k) *
log(1/delta_slack))`` terms of a binomial sum).

Layout (one concept per private module; the public names are those of ``__all__``):

============================  ===================================================================
``_numerics``                 directed rounding to floats, high-precision decimal helpers
``_budget``                   :class:`Budget` and the rounding of results into budgets
``_event``                    :class:`PrivacyEvent`: one release's guarantee in its native form
``_accountant``               :class:`Accountant` (four modes), :class:`LedgerEntry`, transactions
``_composition``              composition theorems, group privacy
``_subsampling``              amplification by subsampling
``_neighbours``               neighbouring notions of zCDP/RDP guarantees, safe decimal sums
``_zcdp``                     :math:`\rho`-zCDP budgets and the mechanisms' rho
``_rdp``                      RDP curves on dp_accounting's default orders, mechanisms' curves
``_convert``                  zCDP and RDP to (epsilon, delta) (Canonne–Kamath–Steinke)
``_bounded_range``            adaptive composition of bounded-range (exponential) mechanisms
``_pld``                      privacy-loss distributions (the Rust core composes them)
``_fixed_size``               fixed-size subsampling (without replacement): RDP and PLD curves
``_dp_accounting``            export to and import from dp_accounting's ``DpEvent`` s
============================  ===================================================================

Examples
--------
>>> from privlearn.accounting import Accountant, Budget
>>> acct = Accountant(Budget(1.0, 1e-6))
>>> entry = acct.spend(Budget(0.25), "laplace count")
>>> acct.remaining
Budget(epsilon=0.75, delta=1e-06)
>>> learner_budget = acct.child(Budget(0.5, 1e-6), "logistic regression")
>>> acct.remaining
Budget(epsilon=0.25, delta=0.0)
>>> [(e.label, e.kind) for e in acct.ledger]
[('laplace count', 'spend'), ('logistic regression', 'child')]

A zCDP accountant composes exponential mechanisms by their bounded range (each
``epsilon**2 / 8``-zCDP): at a total of ``(1, 1e-6)`` it admits 487 mechanisms of
``epsilon = 0.02``, where basic composition admits 50:

>>> from privlearn.accounting import PrivacyEvent
>>> from privlearn.errors import BudgetExceededError
>>> zc = Accountant(Budget(1.0, 1e-6), composition="zcdp")
>>> count = 0
>>> try:
...     while True:
...         _ = zc.spend(PrivacyEvent.bounded_range(0.02), "exponential mechanism")
...         count += 1
... except BudgetExceededError:
...     pass
>>> count
487
>>> zc.spent
Budget(epsilon=0.99986..., delta=1e-06)

A PLD curve composes a plan exactly (up to a stated, safe-side discretisation):

>>> from privlearn.accounting import pld_gaussian
>>> g = pld_gaussian(4.0)
>>> round((10 * g).epsilon(1e-6), 3)  # ten Gaussian mechanisms, sigma = 4, sensitivity 1
3.747
"""

from __future__ import annotations

from ._accountant import Accountant, LedgerEntry
from ._bounded_range import compose_bounded_range, max_bounded_range_epsilon
from ._budget import Budget
from ._composition import compose_advanced, compose_basic, compose_optimal, group_privacy
from ._convert import rdp_delta, rdp_to_dp, zcdp_delta, zcdp_to_dp
from ._dp_accounting import from_dp_event, to_dp_event
from ._event import PrivacyEvent
from ._fixed_size import (
    fixed_size_laplace_epsilon,
    pld_fixed_size_gaussian,
    pld_fixed_size_laplace,
    rdp_fixed_size_gaussian,
    rdp_fixed_size_laplace,
)
from ._pld import (
    PldCurve,
    compose_pld,
    pld_approx,
    pld_discrete_gaussian,
    pld_discrete_laplace,
    pld_gaussian,
    pld_laplace,
    pld_pure,
    pld_randomized_response,
    pld_subsampled_gaussian,
    pld_subsampled_laplace,
)
from ._rdp import (
    RDP_ORDERS,
    RdpCurve,
    compose_rdp,
    rdp_bounded_range,
    rdp_gaussian,
    rdp_laplace,
    rdp_pure,
    rdp_randomized_response,
    rdp_subsampled_gaussian,
    rdp_zcdp,
)
from ._subsampling import amplify_any_by_subsampling, amplify_by_subsampling
from ._zcdp import ZcdpBudget, compose_zcdp, zcdp_bounded_range, zcdp_gaussian, zcdp_pure

__all__ = [
    "Budget",
    "LedgerEntry",
    "Accountant",
    "PrivacyEvent",
    "compose_basic",
    "compose_advanced",
    "compose_optimal",
    "compose_bounded_range",
    "max_bounded_range_epsilon",
    "amplify_by_subsampling",
    "amplify_any_by_subsampling",
    "group_privacy",
    "ZcdpBudget",
    "compose_zcdp",
    "zcdp_gaussian",
    "zcdp_pure",
    "zcdp_bounded_range",
    "zcdp_to_dp",
    "zcdp_delta",
    "RdpCurve",
    "RDP_ORDERS",
    "compose_rdp",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_pure",
    "rdp_bounded_range",
    "rdp_zcdp",
    "rdp_subsampled_gaussian",
    "rdp_fixed_size_gaussian",
    "rdp_fixed_size_laplace",
    "fixed_size_laplace_epsilon",
    "rdp_to_dp",
    "rdp_delta",
    "PldCurve",
    "compose_pld",
    "pld_gaussian",
    "pld_laplace",
    "pld_discrete_gaussian",
    "pld_discrete_laplace",
    "pld_randomized_response",
    "pld_pure",
    "pld_approx",
    "pld_subsampled_gaussian",
    "pld_subsampled_laplace",
    "pld_fixed_size_gaussian",
    "pld_fixed_size_laplace",
    "to_dp_event",
    "from_dp_event",
]

# The public names are documented, pickled and doctested as ``privlearn.accounting.<name>``, as
# they were when the package was one module: pickles of a Budget do not depend on the layout.
for _name in __all__:
    if _name != "RDP_ORDERS":  # a tuple: no __module__
        globals()[_name].__module__ = __name__
del _name
