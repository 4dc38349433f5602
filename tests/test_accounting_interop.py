"""dp_accounting interoperability: PrivacyEvents as DpEvents and back (issue 18)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from privlearn.accounting import Budget
from privlearn.accounting._accountant import Accountant
from privlearn.accounting._convert import rdp_to_dp
from privlearn.accounting._dp_accounting import (
    from_dp_event,
    ledger_to_dp_event,
    neighboring_relation,
    to_dp_event,
)
from privlearn.accounting._event import PrivacyEvent
from privlearn.accounting._rdp import RDP_ORDERS
from privlearn.errors import InvalidParameterError

dp_accounting = pytest.importorskip("dp_accounting")
de = dp_accounting.dp_event
mpmath = pytest.importorskip("mpmath")


def _has_pld():
    try:
        from privlearn.accounting import _pld
    except ImportError:
        return False
    return hasattr(_pld, "pld_gaussian") and hasattr(_pld, "compose_pld")


def test_mapping_of_each_kind():
    assert to_dp_event(PrivacyEvent.gaussian(3.0, sensitivity=2.0)) == de.GaussianDpEvent(1.5)
    assert to_dp_event(PrivacyEvent.laplace(5.0, sensitivity=2.0)) == de.LaplaceDpEvent(2.5)
    assert to_dp_event(PrivacyEvent.zcdp(0.25)) == de.ZCDpEvent(0.25)
    assert to_dp_event(PrivacyEvent.bounded_range(0.5)) == de.ZCDpEvent(0.5**2 / 8)
    assert to_dp_event(PrivacyEvent.discrete_gaussian(2.0)) == de.ZCDpEvent(0.125)
    dl = to_dp_event(PrivacyEvent.discrete_laplace(4.0, sensitivity=3))
    assert dl == de.DiscreteLaplaceDpEvent(0.25, 3)
    assert to_dp_event(PrivacyEvent.pure(0.0)) == de.NoOpDpEvent()
    sg = to_dp_event(PrivacyEvent.subsampled_gaussian(0.01, 1.1))
    assert sg == de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.1))
    rep = to_dp_event(PrivacyEvent.repeated(PrivacyEvent.gaussian(2.0), 7))
    assert rep == de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 7)
    comp = to_dp_event(PrivacyEvent.composed([PrivacyEvent.gaussian(2.0), PrivacyEvent.zcdp(0.1)]))
    assert comp == de.ComposedDpEvent([de.GaussianDpEvent(2.0), de.ZCDpEvent(0.1)])


@pytest.mark.parametrize("eps, k", [(0.1, 2), (1.0, 2), (2.5, 5), (7.0, 3)])
def test_randomized_response_parameters_round_to_the_safe_side(eps, k):
    # dp_accounting: report the input w.p. 1 - p + p/k; ours: e^eps / (e^eps + k - 1), so
    # p = k / (e^eps + k - 1) exactly (checked with mpmath); exported p is at most that.
    with mpmath.workdps(50):
        exact = k / (mpmath.exp(eps) + k - 1)
        rr = to_dp_event(PrivacyEvent.randomized_response(eps, k))
        assert rr.num_buckets == k
        assert mpmath.mpf(rr.noise_parameter) <= exact
        assert mpmath.mpf(rr.noise_parameter) >= exact * (1 - mpmath.mpf("1e-15"))
        back = from_dp_event(rr)
        assert back.kind == "randomized_response" and back.params[1] == k
        assert back.params[0] >= eps and back.params[0] <= eps * (1 + 1e-14)
        # the imported epsilon is never below the exact one of the float p
        p = mpmath.mpf(rr.noise_parameter)
        assert mpmath.mpf(back.params[0]) >= mpmath.log(1 + k * (1 - p) / p)
    pure = to_dp_event(PrivacyEvent.pure(eps))
    assert pure.num_buckets == 2


def test_round_trips():
    events = [
        PrivacyEvent.gaussian(2.0),
        PrivacyEvent.laplace(3.0),
        PrivacyEvent.zcdp(0.125),
        PrivacyEvent.subsampled_gaussian(0.02, 0.9),
        PrivacyEvent.repeated(PrivacyEvent.gaussian(1.5), 4),
        PrivacyEvent.composed([PrivacyEvent.gaussian(1.5), PrivacyEvent.laplace(2.0)]),
        PrivacyEvent.discrete_laplace(4.0, sensitivity=2),
    ]
    for ev in events:
        assert from_dp_event(to_dp_event(ev), neighbours=ev.neighbours) == ev, ev
    ar = from_dp_event(de.GaussianDpEvent(2.0), neighbours="add/remove-one")
    assert ar.neighbours == "add/remove-one"
    assert from_dp_event(de.NoOpDpEvent()) == PrivacyEvent.pure(0.0)
    assert from_dp_event(de.ComposedDpEvent([])) == PrivacyEvent.pure(0.0)
    assert from_dp_event(de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 0)) == PrivacyEvent.pure(
        0.0
    )


def test_refusals():
    with pytest.raises(InvalidParameterError, match="no dp_accounting DpEvent"):
        to_dp_event(PrivacyEvent.approx(1.0, 1e-6))
    with pytest.raises(InvalidParameterError, match="no dp_accounting DpEvent"):
        to_dp_event(PrivacyEvent.rdp(PrivacyEvent.gaussian(1.0).to_rdp()))
    with pytest.raises(InvalidParameterError, match="no dp_accounting DpEvent"):
        to_dp_event(PrivacyEvent.composed([PrivacyEvent.approx(1.0, 1e-6)]))
    with pytest.raises(InvalidParameterError, match="^event: must be a PrivacyEvent"):
        to_dp_event(Budget(1.0))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="NonPrivateDpEvent"):
        from_dp_event(de.NonPrivateDpEvent())
    with pytest.raises(InvalidParameterError, match="SampledWithReplacementDpEvent is not"):
        from_dp_event(de.SampledWithReplacementDpEvent(100, 10, de.GaussianDpEvent(1.0)))
    with pytest.raises(InvalidParameterError, match="xi = 0"):
        from_dp_event(de.ZCDpEvent(0.1, 0.01))
    with pytest.raises(InvalidParameterError, match="PoissonSampledDpEvent of a Gaussian"):
        from_dp_event(de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(1.0)))
    with pytest.raises(InvalidParameterError, match="^sigma"):
        from_dp_event(de.GaussianDpEvent(0.0))
    with pytest.raises(InvalidParameterError, match="^neighbours"):
        from_dp_event(de.GaussianDpEvent(1.0), neighbours="swap")
    acct = Accountant(Budget(2.0, 1e-5))
    acct.spend(Budget(0.5, 1e-6), "approx")
    with pytest.raises(InvalidParameterError, match="no \\(epsilon, delta\\) event"):
        acct.to_dp_event()
    with pytest.raises(InvalidParameterError, match="^entries"):
        ledger_to_dp_event([object()])


def test_neighboring_relation_reproduces_privlearns_pairs():
    nr = dp_accounting.NeighboringRelation
    g = to_dp_event(PrivacyEvent.gaussian(4.0))
    rr = to_dp_event(PrivacyEvent.randomized_response(0.5, 2))
    assert neighboring_relation(g) is nr.ADD_OR_REMOVE_ONE
    assert neighboring_relation(de.SelfComposedDpEvent(rr, 3)) is nr.REPLACE_ONE
    with pytest.raises(InvalidParameterError, match="separately"):
        neighboring_relation(de.ComposedDpEvent([g, rr]))
    # dp_accounting's PLD accountant under REPLACE_ONE doubles a Gaussian's shift: the
    # relation matters (10-fold sigma = 4: about 3.75 vs 8.31 at delta = 1e-6).
    from dp_accounting.pld import PLDAccountant

    eps = {}
    for rel in (nr.ADD_OR_REMOVE_ONE, nr.REPLACE_ONE):
        acc = PLDAccountant(neighboring_relation=rel, value_discretization_interval=1e-3)
        acc.compose(g, 10)
        eps[rel] = acc.get_epsilon(1e-6)
    ours = (10 * PrivacyEvent.gaussian(4.0).to_pld(1e-3)).epsilon(1e-6)
    assert abs(ours - eps[nr.ADD_OR_REMOVE_ONE]) < 0.01
    assert eps[nr.REPLACE_ONE] > 2 * ours


def test_repeated_randomized_response_is_exported_as_copies():
    # dp_accounting 0.6.0's PLD accountant ignores the count of a randomized-response event:
    # exporting k copies makes it see all k.
    from dp_accounting.pld import PLDAccountant

    rep = PrivacyEvent.repeated(PrivacyEvent.randomized_response(0.5, 2), 10)
    exported = to_dp_event(rep)
    assert isinstance(exported, de.ComposedDpEvent) and len(exported.events) == 10
    acc = PLDAccountant(
        neighboring_relation=neighboring_relation(exported), value_discretization_interval=1e-4
    )
    acc.compose(exported)
    ours = rep.to_pld(1e-4).epsilon(1e-6)
    assert abs(acc.get_epsilon(1e-6) - ours) < 0.01
    assert ours > 9 * 0.5 * 0.5  # far above one mechanism's 0.5
    with pytest.raises(InvalidParameterError):
        to_dp_event(PrivacyEvent.repeated(PrivacyEvent.pure(0.1), 100_001))


def _their_rdp_epsilon(dp_event, delta, relation):
    acc = dp_accounting.rdp.RdpAccountant(orders=list(RDP_ORDERS), neighboring_relation=relation)
    acc.compose(dp_event)
    return acc.get_epsilon(delta)


def test_rdp_ledger_agrees_with_dp_accounting():
    # Exact curves (Gaussian, Laplace, randomized response, zCDP) are the same functions in
    # both: our epsilon is within 1e-9 relative of theirs. The bounded-range mechanism exports
    # as its eps^2/8-zCDP form, looser than our exact BR curve: ours <= theirs.
    acct = Accountant(Budget(4.0, 1e-6), "rdp")
    spends = [
        PrivacyEvent.gaussian(6.0, sensitivity=2.0),
        PrivacyEvent.laplace(8.0),
        PrivacyEvent.randomized_response(0.3, 3),
        PrivacyEvent.zcdp(0.01),
        PrivacyEvent.repeated(PrivacyEvent.gaussian(10.0), 5),
    ]
    for i, ev in enumerate(spends):
        acct.spend(ev, f"e{i}")
    exported = acct.to_dp_event()
    assert isinstance(exported, de.ComposedDpEvent) and len(exported.events) == len(spends)
    theirs = _their_rdp_epsilon(exported, 1e-6, dp_accounting.NeighboringRelation.REPLACE_ONE)
    ours = acct.spent.epsilon
    assert ours == rdp_to_dp(acct.spent_native, 1e-6).epsilon
    assert abs(ours - theirs) <= 1e-9 * theirs, (ours, theirs)
    acct.spend(PrivacyEvent.bounded_range(0.05), "em")
    theirs = _their_rdp_epsilon(
        acct.to_dp_event(), 1e-6, dp_accounting.NeighboringRelation.REPLACE_ONE
    )
    assert acct.spent.epsilon <= theirs + 1e-12
    # the power check: a Gaussian exported with half its noise would be seen
    wrong = de.ComposedDpEvent(list(exported.events) + [de.GaussianDpEvent(3.0)])
    assert (
        _their_rdp_epsilon(wrong, 1e-6, dp_accounting.NeighboringRelation.REPLACE_ONE) > ours + 0.1
    )


def test_subsampled_gaussian_ledger_agrees_with_dp_accounting():
    acct = Accountant(Budget(3.0, 1e-5), "rdp", neighbours="add/remove-one", order=8.0)
    step = PrivacyEvent.subsampled_gaussian(0.01, 1.0)
    acct.spend(PrivacyEvent.repeated(step, 500), "epochs")
    theirs = _their_rdp_epsilon(acct.to_dp_event(), 1e-5, neighboring_relation(acct.to_dp_event()))
    ours = acct.spent.epsilon
    # Our fractional orders hold the chord of ln A (an upper bound), theirs the exact value:
    # ours >= theirs at each order, and close.
    assert theirs - 1e-9 <= ours <= theirs * 1.01, (ours, theirs)


@pytest.mark.skipif(not _has_pld(), reason="privlearn.accounting._pld not there yet")
def test_pld_plan_agrees_with_dp_accounting():
    from dp_accounting.pld import PLDAccountant

    v = 1e-4
    plan = [PrivacyEvent.gaussian(4.0)] * 10 + [PrivacyEvent.laplace(2.0)] * 3
    acct = Accountant(Budget(6.0, 1e-6), "pld", plan=plan, value_discretization=v)
    for i, ev in enumerate(plan):
        acct.spend(ev, f"e{i}")
    exported = acct.to_dp_event()
    theirs_acc = PLDAccountant(
        neighboring_relation=neighboring_relation(exported), value_discretization_interval=v
    )
    theirs_acc.compose(exported)
    theirs = theirs_acc.get_epsilon(1e-6)
    ours = acct.spent.epsilon
    # both pessimistic: each within a few discretisation intervals of the exact value
    assert abs(ours - theirs) <= 20 * len(plan) * v, (ours, theirs)


def test_exported_parameters_never_claim_more_noise():
    # sigma / sensitivity not exactly a float: the exported multiplier is rounded down
    ev = PrivacyEvent.gaussian(1.0, sensitivity=3.0)
    z = to_dp_event(ev).noise_multiplier
    assert Fraction(z) <= Fraction(1, 3) and math.nextafter(z, 1.0) > 1 / 3
    lap = PrivacyEvent.laplace(1.0, sensitivity=3.0)
    assert Fraction(to_dp_event(lap).noise_multiplier) <= Fraction(1, 3)
    dl = PrivacyEvent.discrete_laplace(3.0)
    assert Fraction(to_dp_event(dl).noise_parameter) >= Fraction(1, 3)
