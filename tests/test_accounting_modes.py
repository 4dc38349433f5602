"""Privacy events and the accountant's composition modes (issue 18).

Boundary values are derived here independently, with mpmath, from the papers' formulas:
the Canonne-Kamath-Steinke conversion (NeurIPS 2020, Corollary 13 for zCDP, Proposition 12 for
RDP) and the Gaussian mechanism's rho = Delta^2 / (2 sigma^2) (Bun and Steinke 2016).
"""

from __future__ import annotations

import functools
import math
import pickle
import sys
import threading
from fractions import Fraction

import pytest

from privlearn.accounting import Budget
from privlearn.accounting._accountant import Accountant, LedgerEntry
from privlearn.accounting._event import PrivacyEvent
from privlearn.accounting._rdp import RDP_ORDERS, RdpCurve
from privlearn.accounting._zcdp import ZcdpBudget
from privlearn.errors import BudgetExceededError, InvalidParameterError

mpmath = pytest.importorskip("mpmath")
mp = mpmath.mp


def _has_pld():
    try:
        from privlearn.accounting import _pld
    except ImportError:
        return False
    return hasattr(_pld, "pld_gaussian") and hasattr(_pld, "compose_pld")


needs_pld = pytest.mark.skipif(not _has_pld(), reason="privlearn.accounting._pld not there yet")


# --------------------------------------------------------------------------------------------
# Independent references (mpmath, from the papers)
# --------------------------------------------------------------------------------------------


def cks_offset(alpha, delta):
    """CKS 2020, Prop. 12: eps = tau + [ln(1 - 1/alpha) + (ln(1/delta) - ln alpha)/(alpha - 1)]."""
    a = mp.mpf(alpha)
    return mp.log(1 - 1 / a) + (mp.log(1 / mp.mpf(delta)) - mp.log(a)) / (a - 1)


def cks_zcdp_eps(rho, delta):
    """CKS 2020, Corollary 13: inf over alpha > 1 of alpha rho + offset(alpha), by mpmath."""
    rho = mp.mpf(rho)

    def f(t):  # alpha = 1 + e^t
        a = 1 + mp.exp(t)
        return a * rho + cks_offset(a, delta)

    # golden section on t in a wide bracket, then polish
    lo, hi = mp.mpf(-20), mp.mpf(40)
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(130):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(x1) <= f(x2):
            hi = x2
        else:
            lo = x1
    return f((lo + hi) / 2)


@functools.lru_cache(maxsize=None)
def cks_max_rho(epsilon, delta):
    """The exact largest rho whose CKS epsilon at delta is epsilon (bisection, mpmath)."""
    lo, hi = mp.mpf(0), mp.mpf(epsilon)
    for _ in range(90):
        mid = (lo + hi) / 2
        if cks_zcdp_eps(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


@pytest.fixture(autouse=True)
def _precision():
    with mp.workdps(40):
        yield


# --------------------------------------------------------------------------------------------
# PrivacyEvent
# --------------------------------------------------------------------------------------------


def _up(q):
    x = float(q)
    return x if Fraction(x) >= q else math.nextafter(x, math.inf)


def test_event_forms_are_the_papers_values():
    g = PrivacyEvent.gaussian(3.0, sensitivity=2.0)
    rho = Fraction(2) ** 2 / (2 * Fraction(3) ** 2)  # Bun-Steinke Prop 1.6: Delta^2/(2 sigma^2)
    assert g.to_zcdp() == ZcdpBudget(_up(rho))
    assert g.to_rdp().at(2.0) == _up(2 * rho)  # Mironov Prop 7: alpha Delta^2/(2 sigma^2)
    lap = PrivacyEvent.laplace(3.0)
    assert lap.budget == Budget(_up(Fraction(1) / Fraction(3)))  # 1/3 rounded up
    assert Fraction(lap.budget.epsilon) >= Fraction(1, 3)
    assert lap.to_zcdp().rho == _up(Fraction(lap.budget.epsilon) ** 2 / 2)
    br = PrivacyEvent.bounded_range(0.5)
    assert br.budget == Budget(0.5) and br.to_zcdp() == ZcdpBudget(0.5**2 / 8)
    assert br.to_rdp().at(8.0) <= 8 * 0.5**2 / 8
    assert PrivacyEvent.pure(0.5).to_zcdp() == ZcdpBudget(0.125)
    assert PrivacyEvent.randomized_response(1.0, 4).budget == Budget(1.0)
    dg = PrivacyEvent.discrete_gaussian(2.0, sensitivity=1)
    assert dg.to_zcdp() == ZcdpBudget(0.125)  # CKS 2020 Theorem 4
    dl = PrivacyEvent.discrete_laplace(4.0, sensitivity=2)
    assert dl.budget == Budget(0.5)
    assert PrivacyEvent.zcdp(0.25).to_rdp().at(4.0) == 1.0
    sg = PrivacyEvent.subsampled_gaussian(0.01, 1.0)
    assert sg.neighbours == "add/remove-one" and sg.to_rdp().neighbours == "add/remove-one"
    assert PrivacyEvent.approx(0.5, 0.0) == PrivacyEvent.pure(0.5)
    assert PrivacyEvent.from_budget(Budget(1.0, 1e-6)).budget == Budget(1.0, 1e-6)


def test_composed_and_repeated_forms():
    a, b = PrivacyEvent.pure(0.25), PrivacyEvent.gaussian(2.0)
    c = PrivacyEvent.composed([a, b])
    assert c.to_zcdp() == ZcdpBudget(0.25**2 / 2 + 1 / 8)
    assert c.to_rdp() == a.to_rdp() + b.to_rdp()
    r = PrivacyEvent.repeated(a, 4)
    assert r.budget == Budget(1.0) and r.to_zcdp() == ZcdpBudget(4 * 0.25**2 / 2)
    assert PrivacyEvent.composed([a, a]).budget == Budget(0.5)
    with pytest.raises(InvalidParameterError, match="no \\(epsilon, delta\\) form"):
        _ = c.budget  # the Gaussian has no declared budget
    with pytest.raises(InvalidParameterError, match="events"):
        PrivacyEvent.composed([])
    with pytest.raises(InvalidParameterError, match="cannot compose"):
        PrivacyEvent.composed([a, PrivacyEvent.pure(0.1, neighbours="add/remove-one")])
    with pytest.raises(InvalidParameterError, match="^events"):
        PrivacyEvent.composed([a, Budget(0.1)])


def test_missing_forms_raise_clearly():
    approx = PrivacyEvent.approx(1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="no zCDP form.*delta > 0"):
        approx.to_zcdp()
    with pytest.raises(InvalidParameterError, match="no RDP form"):
        approx.to_rdp()
    with pytest.raises(InvalidParameterError, match="no \\(epsilon, delta\\) form"):
        _ = PrivacyEvent.zcdp(0.1).budget
    assert not PrivacyEvent.zcdp(0.1).has_budget() and PrivacyEvent.pure(1.0).has_budget()
    curve = PrivacyEvent.gaussian(1.0).to_rdp()
    with pytest.raises(InvalidParameterError, match="no zCDP form"):
        PrivacyEvent.rdp(curve).to_zcdp()
    with pytest.raises(InvalidParameterError, match="no PLD form"):
        PrivacyEvent.zcdp(0.1).to_pld()
    with pytest.raises(InvalidParameterError, match="no PLD form"):
        PrivacyEvent.rdp(curve).to_pld()
    with pytest.raises(InvalidParameterError, match="no zCDP form"):
        PrivacyEvent.subsampled_gaussian(0.1, 1.0).to_zcdp()


@pytest.mark.parametrize(
    "make, param",
    [
        (lambda: PrivacyEvent.gaussian(float("nan")), "sigma"),
        (lambda: PrivacyEvent.gaussian(1.0, sensitivity=float("inf")), "sensitivity"),
        (lambda: PrivacyEvent.gaussian(-1.0), "sigma"),
        (lambda: PrivacyEvent.gaussian(True), "sigma"),  # type: ignore[arg-type]
        (lambda: PrivacyEvent.laplace(0.0), "scale"),
        (lambda: PrivacyEvent.pure(float("inf")), "epsilon"),
        (lambda: PrivacyEvent.approx(1.0, 1.0), "delta"),
        (lambda: PrivacyEvent.bounded_range(0.0), "epsilon"),
        (lambda: PrivacyEvent.randomized_response(1.0, 1), "k"),
        (lambda: PrivacyEvent.zcdp(-0.1), "rho"),
        (lambda: PrivacyEvent.zcdp(float("nan")), "rho"),
        (lambda: PrivacyEvent.subsampled_gaussian(1.5, 1.0), "rate"),
        (lambda: PrivacyEvent.repeated(PrivacyEvent.pure(1.0), 0), "k"),
        (lambda: PrivacyEvent.pure(1.0, neighbours="swap"), "neighbours"),
        (lambda: PrivacyEvent.discrete_gaussian(1.0, sensitivity=1.5), "sensitivity"),
        (lambda: PrivacyEvent.rdp([0.0]), "curve"),  # type: ignore[arg-type]
        (lambda: PrivacyEvent.from_budget(1.0), "budget"),  # type: ignore[arg-type]
    ],
)
def test_event_bad_input(make, param):
    with pytest.raises(InvalidParameterError) as info:
        make()
    assert info.value.parameter == param


def test_declared_budgets_are_sanity_checked():
    # sigma from the classic calibration (Dwork-Roth Thm A.1) meets (0.5, 1e-5): accepted.
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    PrivacyEvent.gaussian(sigma, budget=Budget(0.5, 1e-5))
    # Half the noise (a replace-one sensitivity of 2 mistaken for 1) is refused.
    with pytest.raises(InvalidParameterError, match="^budget: the Gaussian"):
        PrivacyEvent.gaussian(sigma / 2, budget=Budget(0.5, 1e-5))
    with pytest.raises(InvalidParameterError, match="^budget: the Gaussian"):
        PrivacyEvent.gaussian(sigma, budget=Budget(0.5))
    PrivacyEvent.laplace(2.0, budget=Budget(0.5))
    with pytest.raises(InvalidParameterError, match="^budget: the Laplace"):
        PrivacyEvent.laplace(2.0, budget=Budget(0.25))
    g = PrivacyEvent.gaussian(sigma, budget=Budget(0.5, 1e-5))
    assert g.budget == Budget(0.5, 1e-5) and g.declared_budget == Budget(0.5, 1e-5)
    assert g != PrivacyEvent.gaussian(sigma)


def test_event_value_semantics():
    e = PrivacyEvent.composed([PrivacyEvent.gaussian(2.0), PrivacyEvent.bounded_range(0.1)])
    same = PrivacyEvent.composed([PrivacyEvent.gaussian(2.0), PrivacyEvent.bounded_range(0.1)])
    assert e == same and hash(e) == hash(same) and len({e, same}) == 1
    assert pickle.loads(pickle.dumps(e)) == e
    assert "PrivacyEvent.gaussian(sigma=2.0" in repr(e) and "bounded_range" in repr(e)
    with pytest.raises(AttributeError):
        e._kind = "pure"  # type: ignore[misc]
    with pytest.raises(TypeError):
        PrivacyEvent()
    assert PrivacyEvent.gaussian(1.0) != PrivacyEvent.gaussian(1.0, neighbours="add/remove-one")
    assert e.kind == "composed" and len(e.params) == 2


# --------------------------------------------------------------------------------------------
# Basic mode with events
# --------------------------------------------------------------------------------------------


def test_basic_mode_charges_an_events_budget():
    acct = Accountant(Budget(1.0, 1e-5))
    g = PrivacyEvent.gaussian(20.0, budget=Budget(0.5, 5e-6))
    entry = acct.spend(g, "gaussian")
    assert entry.event == g and entry.budget == Budget(0.5, 5e-6)
    assert acct.spent == Budget(0.5, 5e-6)
    e2 = acct.spend(Budget(0.25), "count")
    assert e2.event == PrivacyEvent.pure(0.25)
    before = acct.ledger
    with pytest.raises(InvalidParameterError, match="no \\(epsilon, delta\\) form"):
        acct.spend(PrivacyEvent.gaussian(1.0), "undeclared")
    with pytest.raises(InvalidParameterError, match="add/remove-one"):
        acct.spend(PrivacyEvent.pure(0.1, neighbours="add/remove-one"), "other notion")
    assert acct.ledger == before and acct.spent == Budget(0.75, 5e-6)
    child = acct.child(PrivacyEvent.pure(0.25), "child")
    assert child.total == Budget(0.25) and child.composition == "basic"
    assert acct.remaining == Budget(0.0, 5e-6)


# --------------------------------------------------------------------------------------------
# zCDP filter
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-6), (0.3, 1e-9), (8.0, 1e-5)])
def test_zcdp_total_is_the_largest_feasible_rho(eps, delta):
    acct = Accountant(Budget(eps, delta), "zcdp")
    rho = acct.total_native.rho
    exact = cks_max_rho(eps, delta)
    assert mp.mpf(rho) <= exact  # never above the exact inverse: safe
    assert mp.mpf(rho) >= exact * (1 - mp.mpf("1e-9"))  # and tight
    # the slack 2**-40 is inside the total: the largest acceptable sum still converts below eps
    assert cks_zcdp_eps(mp.mpf(rho) * (1 + mp.mpf(2) ** -40), delta) <= eps


def test_zcdp_k_gaussian_spends_fit_iff_k_rho_fits():
    eps, delta = 1.0, 1e-6
    exact = cks_max_rho(eps, delta)
    k_max = 10
    rho = float(exact / mp.mpf("10.5"))  # 10 fit, 11 do not, far from the boundary
    sigma = math.sqrt(1 / (2 * rho))
    ev = PrivacyEvent.gaussian(sigma)
    assert Fraction(ev.to_zcdp().rho) >= Fraction(1, 2) / Fraction(sigma) ** 2
    acct = Accountant(Budget(eps, delta), "zcdp")
    for i in range(k_max):
        acct.spend(ev, f"g{i}")
    before = (acct.ledger, acct.remaining_native)
    with pytest.raises(BudgetExceededError) as info:
        acct.spend(ev, "one too many")
    assert info.value.requested == ev and info.value.label == "one too many"
    assert (acct.ledger, acct.remaining_native) == before
    spent = acct.spent
    assert spent.delta == delta and spent.epsilon <= eps
    assert mp.mpf(spent.epsilon) >= cks_zcdp_eps(k_max * mp.mpf(ev.to_zcdp().rho), delta)


def test_zcdp_exponential_mechanisms():
    # k eps-BR mechanisms at eps^2/8 each (Cesar-Rogers 2021): the boundary from mpmath.
    exact = cks_max_rho(1.0, 1e-6)
    eps = 0.01
    k = int(exact / (mp.mpf(eps) ** 2 / 8))
    assert (k + 1) * mp.mpf(eps) ** 2 / 8 > exact * (1 + mp.mpf("1e-9"))
    assert k * mp.mpf(eps) ** 2 / 8 < exact * (1 - mp.mpf("1e-6"))
    acct = Accountant(Budget(1.0, 1e-6), "zcdp")
    acct.spend(PrivacyEvent.repeated(PrivacyEvent.bounded_range(eps), k), "k EMs")
    with pytest.raises(BudgetExceededError):
        acct.spend(PrivacyEvent.bounded_range(eps), "one more")


def test_zcdp_native_total_child_transaction_and_ledger():
    acct = Accountant(ZcdpBudget(1.0), "zcdp")
    assert acct.total == ZcdpBudget(1.0) and acct.total_native == ZcdpBudget(1.0)
    with pytest.raises(InvalidParameterError, match="^spent"):
        _ = acct.spent
    with pytest.raises(InvalidParameterError, match="^remaining"):
        _ = acct.remaining
    g = PrivacyEvent.gaussian(1.0)  # rho 0.5
    entry = acct.spend(g, "g")
    assert entry.budget is None and entry.event == g and entry.kind == "spend"
    assert acct.remaining_native == ZcdpBudget(0.5) and acct.spent_native == ZcdpBudget(0.5)
    with acct.transaction(PrivacyEvent.zcdp(0.25), "tx"):
        assert acct.remaining_native == ZcdpBudget(0.25)
        with pytest.raises(BudgetExceededError):
            acct.spend(PrivacyEvent.zcdp(0.5), "concurrent")
    with pytest.raises(RuntimeError):
        with acct.transaction(PrivacyEvent.zcdp(0.125), "fails"):
            raise RuntimeError("x")
    assert acct.remaining_native == ZcdpBudget(0.25)
    child = acct.child(PrivacyEvent.zcdp(0.125), "learner")
    assert child.composition == "zcdp" and child.total == ZcdpBudget(0.125)
    child.spend(ZcdpBudget(0.125), "all of it")
    with pytest.raises(BudgetExceededError):
        child.spend(PrivacyEvent.zcdp(2.0**-20), "more")
    assert [(e.label, e.kind) for e in acct.ledger] == [
        ("g", "spend"),
        ("tx", "spend"),
        ("learner", "child"),
    ]
    assert acct.ledger[-1].event == PrivacyEvent.zcdp(0.125)
    assert isinstance(acct.ledger[0], LedgerEntry)
    assert "composition='zcdp'" in repr(acct)


def test_zcdp_refusals_charge_nothing():
    acct = Accountant(Budget(1.0, 1e-6), "zcdp")
    with pytest.raises(InvalidParameterError, match="no zCDP form"):
        acct.spend(Budget(0.1, 1e-9), "approx")
    with pytest.raises(InvalidParameterError, match="add/remove-one"):
        acct.spend(PrivacyEvent.gaussian(5.0, neighbours="add/remove-one"), "other notion")
    with pytest.raises(InvalidParameterError, match="add/remove-one"):
        acct.spend(PrivacyEvent.subsampled_gaussian(0.1, 1.0), "other notion")
    with pytest.raises(InvalidParameterError, match="^budget: must be a privlearn"):
        acct.spend(0.1, "x")  # type: ignore[arg-type]
    assert acct.ledger == () and acct.spent == Budget(0.0)
    acct.spend(Budget(0.1), "pure")  # a pure spend: eps^2/2
    assert acct.spent_native == ZcdpBudget(0.1**2 / 2)
    with pytest.raises(InvalidParameterError, match="delta > 0"):
        Accountant(Budget(1.0), "zcdp")
    with pytest.raises(InvalidParameterError, match="cannot compose"):
        Accountant(ZcdpBudget(1.0), "zcdp", neighbours="add/remove-one")
    ar = Accountant(ZcdpBudget(1.0, "add/remove-one"), "zcdp")
    assert ar.neighbours == "add/remove-one"
    ar.spend(PrivacyEvent.gaussian(1.0, neighbours="add/remove-one"), "ok")
    with pytest.raises(InvalidParameterError, match="replace-one"):
        ar.spend(PrivacyEvent.gaussian(1.0), "replace-one event")


def test_zcdp_concurrent_spends_never_oversubscribe():
    acct = Accountant(ZcdpBudget(1.0), "zcdp")
    step = PrivacyEvent.zcdp(2.0**-6)
    barrier = threading.Barrier(16)
    ok, refused = [], []

    def worker(i):
        barrier.wait()
        for j in range(40):
            try:
                if j % 2:
                    acct.spend(step, f"t{i}")
                else:
                    with acct.transaction(step, f"t{i}"):
                        pass
                ok.append(1)
            except BudgetExceededError:
                refused.append(1)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert len(ok) == 64 and len(refused) == 16 * 40 - 64
    assert acct.spent_native == ZcdpBudget(1.0) and acct.remaining_native == ZcdpBudget(0.0)


# --------------------------------------------------------------------------------------------
# Rényi filter
# --------------------------------------------------------------------------------------------


def test_rdp_budget_at_the_default_order():
    eps, delta = 1.0, 1e-6
    acct = Accountant(Budget(eps, delta), "rdp")
    alpha = acct.order
    assert alpha in RDP_ORDERS
    rho = cks_max_rho(eps, delta)
    # the grid order where rho-zCDP converts best (independent of the code's search)
    best = min(RDP_ORDERS, key=lambda a: a * rho + cks_offset(a, delta))
    assert alpha == best
    cap = mp.mpf(acct.total_native)
    exact = eps - cks_offset(alpha, delta)  # the exact largest RDP value at alpha
    assert cap * (1 + mp.mpf(2) ** -40) <= exact  # safe, including the slack
    assert cap >= exact * (1 - mp.mpf("1e-9"))  # and tight


def test_rdp_spends_fit_iff_the_sum_at_the_order_fits():
    eps, delta = 1.0, 1e-6
    acct = Accountant(Budget(eps, delta), "rdp", order=16.0)
    assert acct.order == 16.0
    exact = eps - cks_offset(16.0, delta)
    # Gaussian at order 16: 16 / (2 sigma^2); choose 7 to fit and 8 not to
    tau = exact / mp.mpf("7.5")
    sigma = float(mp.sqrt(16 / (2 * tau)))
    ev = PrivacyEvent.gaussian(sigma)
    for i in range(7):
        acct.spend(ev, f"g{i}")
    with pytest.raises(BudgetExceededError):
        acct.spend(ev, "g7")
    assert acct.order == 16.0  # fixed before the spends, never moved
    assert len(acct.ledger) == 7
    spent = acct.spent
    assert spent.epsilon <= eps and spent.delta == delta
    # a cheaper event still fits: the filter only looks at the sum at order 16
    acct.spend(PrivacyEvent.bounded_range(1e-3), "small")


def test_rdp_totals_children_and_infinite_orders():
    curve = PrivacyEvent.gaussian(2.0).to_rdp()
    with pytest.raises(InvalidParameterError, match="^order: required"):
        Accountant(curve, "rdp")
    with pytest.raises(InvalidParameterError, match="^order: must be one of"):
        Accountant(Budget(1.0, 1e-6), "rdp", order=2.05)
    acct = Accountant(curve, "rdp", order=4.0)
    assert acct.total_native == curve.at(4.0)
    acct.spend(PrivacyEvent.gaussian(4.0), "quarter")  # 4 * (1/32) = 1/8 of 1/2
    assert acct.remaining_native == 0.5 - 0.125
    z = Accountant(ZcdpBudget(0.125), "rdp", order=8.0)
    assert z.total_native == 1.0
    parent = Accountant(Budget(2.0, 1e-6), "rdp")
    child = parent.child(PrivacyEvent.gaussian(4.0), "learner")
    assert child.composition == "rdp" and child.order == parent.order
    assert child.total_native == PrivacyEvent.gaussian(4.0).to_rdp().at(parent.order)
    inf_curve = RdpCurve([math.inf] * len(RDP_ORDERS))
    before = parent.ledger
    with pytest.raises(BudgetExceededError):
        parent.spend(inf_curve, "unbounded")
    assert parent.ledger == before
    with pytest.raises(InvalidParameterError, match="delta > 0"):
        Accountant(Budget(1.0), "rdp")
    with pytest.raises(InvalidParameterError, match="^order: at order"):
        Accountant(Budget(0.1, 1e-10), "rdp", order=1.1)  # the conversion alone exceeds 0.1


def test_rdp_subsampled_gaussian_on_add_remove():
    # The order is the user's choice, fixed before the spends: the default (chosen for a
    # zCDP-like curve) can be far from the best order of a subsampled Gaussian.
    acct = Accountant(Budget(2.0, 1e-5), "rdp", neighbours="add/remove-one", order=6.0)
    step = PrivacyEvent.subsampled_gaussian(0.01, 1.0)
    n = 0
    while True:
        try:
            acct.spend(step, "sgd step")
        except BudgetExceededError:
            break
        n += 1
    tau = mp.mpf(step.to_rdp().at(acct.order))
    assert n == int(mp.mpf(acct.total_native) * (1 + mp.mpf(2) ** -40) / tau)
    assert n > 100
    assert acct.spent.epsilon <= 2.0


# --------------------------------------------------------------------------------------------
# PLD: a plan fixed in advance
# --------------------------------------------------------------------------------------------


def test_pld_needs_a_plan():
    with pytest.raises(InvalidParameterError, match="^plan: composition='pld' needs") as info:
        Accountant(Budget(1.0, 1e-6), "pld")
    assert "no PLD privacy filter" in str(info.value)
    with pytest.raises(InvalidParameterError, match="^plan: only composition='pld'"):
        Accountant(Budget(1.0, 1e-6), "zcdp", plan=[PrivacyEvent.pure(0.1)])
    with pytest.raises(InvalidParameterError, match="^value_discretization"):
        Accountant(Budget(1.0, 1e-6), "basic", value_discretization=1e-3)
    with pytest.raises(InvalidParameterError, match="^order: only"):
        Accountant(Budget(1.0, 1e-6), "zcdp", order=2.0)
    with pytest.raises(InvalidParameterError, match="^composition"):
        Accountant(Budget(1.0, 1e-6), "advanced")
    with pytest.raises(InvalidParameterError, match="^total: must be a privlearn"):
        Accountant(ZcdpBudget(1.0))  # type: ignore[arg-type]


@needs_pld
def test_pld_plan_is_enforced():
    g = PrivacyEvent.gaussian(10.0)
    lap = PrivacyEvent.laplace(10.0)
    plan = [g, lap, g]
    acct = Accountant(Budget(1.0, 1e-6), "pld", plan=plan)
    assert acct.plan == tuple(plan) and acct.remaining_native == tuple(plan)
    acct.spend(g, "first")
    before = acct.ledger
    with pytest.raises(InvalidParameterError, match="not the next planned event"):
        acct.spend(g, "out of order")
    with pytest.raises(InvalidParameterError, match="not the next planned event"):
        acct.spend(PrivacyEvent.laplace(10.5), "other parameters")
    assert acct.ledger == before
    with pytest.raises(KeyError):
        with acct.transaction(lap, "fails"):
            raise KeyError("x")
    assert acct.remaining_native == (lap, g)  # the slot is given back
    with acct.transaction(lap, "second"):
        assert acct.remaining_native == (g,)
    spent = acct.spent
    assert 0 < spent.epsilon <= 1.0
    acct.spend(g, "third")
    with pytest.raises(BudgetExceededError, match="planned events are spent"):
        acct.spend(g, "fourth")
    assert [e.label for e in acct.ledger] == ["first", "second", "third"]


@needs_pld
def test_pld_refuses_a_plan_that_does_not_fit():
    from privlearn.accounting._pld import compose_pld

    g = PrivacyEvent.gaussian(1.0)
    eps = compose_pld([g.to_pld()] * 4).epsilon(1e-6)
    Accountant(Budget(math.nextafter(eps, math.inf), 1e-6), "pld", plan=[g] * 4)
    with pytest.raises(InvalidParameterError, match="^plan: the 5 planned events"):
        Accountant(Budget(eps, 1e-6), "pld", plan=[g] * 5)
    with pytest.raises(InvalidParameterError, match="add/remove-one"):
        Accountant(Budget(eps, 1e-6), "pld", plan=[PrivacyEvent.subsampled_gaussian(0.1, 1.0)])
    with pytest.raises(InvalidParameterError, match="no PLD form"):
        Accountant(Budget(eps, 1e-6), "pld", plan=[PrivacyEvent.zcdp(0.1)])


@needs_pld
def test_pld_child_takes_the_next_slot():
    g = PrivacyEvent.gaussian(10.0)
    parent = Accountant(Budget(1.0, 1e-6), "pld", plan=[PrivacyEvent.repeated(g, 3), g])
    child = parent.child(PrivacyEvent.repeated(g, 3), "learner")
    assert child.composition == "pld" and child.plan == (g, g, g)
    for i in range(3):
        child.spend(g, f"step {i}")
    with pytest.raises(BudgetExceededError):
        child.spend(g, "step 3")
    assert parent.remaining_native == (g,)
