r"""Privacy budgets, the accountant, composition, amplification by subsampling, group privacy.

Every learner and mechanism in privlearn takes ``accountant=``: an :class:`Accountant` holds a
total :class:`Budget` and refuses, before anything is drawn, any spend that would exceed it. The
functions below turn the guarantees of single mechanisms into guarantees of their combinations:

========================================  =====================================================
:func:`compose_basic`                     sum of the budgets (any sequence, adaptive)
:func:`compose_advanced`                  Dwork–Rothblum–Vadhan advanced composition
:func:`compose_optimal`                   the exact optimum of Kairouz–Oh–Viswanath
:func:`amplify_by_subsampling`            Balle–Barthe–Gaboardi (and seed 000's lemmas)
:func:`group_privacy`                     datasets that differ in ``k`` records
========================================  =====================================================

**Neighbouring relation.** As everywhere in privlearn, two datasets are neighbours when they
have the same size ``n`` (which is public) and differ by replacing one record ("substitution",
"replace-one"). Composition and group privacy hold for any neighbouring relation, as long as
every mechanism involved is private with respect to the same one; the subsampling theorems are
stated for replace-one and say so.

**Rounding.** Every bound is computed in high-precision decimal arithmetic (Python's
:mod:`decimal`, 50 or more significant digits) or exactly (:class:`fractions.Fraction`), and the
returned epsilon and delta are rounded *up* to the next float, so a reported guarantee is never
smaller than the true bound. :class:`Accountant` adds spends exactly (floats are exact dyadic
rationals) and accepts them up to a relative ``2**-40`` above the total (the float rounding of
decimal inputs such as ``0.1``), reporting the exact sum; :attr:`Accountant.remaining`
is rounded *down* and ``budget / k`` splits a budget into ``k`` parts rounded down, so spending
them always fits.

This package is pure Python on purpose: it does scalar arithmetic and bookkeeping, not a hot
path (a spend costs a few microseconds; the slowest bound, :func:`compose_optimal`, walks
``O(sqrt(k) * log(1/delta_slack))`` terms of a binomial sum).

Layout (one concept per private module; the public names are those of ``__all__``):

============================  ===================================================================
``_numerics``                 directed rounding to floats, high-precision decimal helpers
``_budget``                   :class:`Budget` and the rounding of results into budgets
``_accountant``               :class:`Accountant`, :class:`LedgerEntry`, transactions
``_composition``              composition theorems, group privacy
``_subsampling``              amplification by subsampling
``_neighbours``               neighbouring notions of zCDP/RDP guarantees, safe decimal sums
``_zcdp``                     :math:`\rho`-zCDP budgets and the mechanisms' rho
``_rdp``                      RDP curves on dp_accounting's default orders, mechanisms' curves
``_convert``                  zCDP and RDP to (epsilon, delta) (Canonne–Kamath–Steinke)
``_bounded_range``            adaptive composition of bounded-range (exponential) mechanisms
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
"""

from __future__ import annotations

from ._accountant import Accountant, LedgerEntry
from ._budget import Budget
from ._composition import compose_advanced, compose_basic, compose_optimal, group_privacy
from ._subsampling import amplify_any_by_subsampling, amplify_by_subsampling

# Other privacy notions (zCDP, RDP, privacy loss distributions) get one module each beside
# these, with their conversions to (epsilon, delta) in a module of their own.

__all__ = [
    "Budget",
    "LedgerEntry",
    "Accountant",
    "compose_basic",
    "compose_advanced",
    "compose_optimal",
    "amplify_by_subsampling",
    "amplify_any_by_subsampling",
    "group_privacy",
]

# The public names are documented, pickled and doctested as ``privlearn.accounting.<name>``, as
# they were when the package was one module: pickles of a Budget do not depend on the layout.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
