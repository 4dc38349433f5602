"""Adversarial review of the PLD read-outs (``PldCore.delta`` and ``PldCore.epsilon``).

``delta`` shares one exponential per block of 64 atoms (``e^{eps - l_b}`` times a table of
``e^{-r h}``) and adds a float-error margin; ``epsilon`` solves for ``delta`` lowered by that
margin and may skip the ``delta(0)`` pass. Both are privacy-critical: the reported delta must
never be below the exact hockey-stick value of the stored PLD, and the reported epsilon must
never have an exact delta above the requested one.

The reference is computed here, independently of the code, in mpmath (80 digits) from the
stored parts of each PLD: masses ``p_i`` at the losses ``l_i = (lo + i) h`` (``h`` the stored
float, ``l_i`` formed exactly), ``+inf`` mass and error bound ``err``:
``delta*(eps) = sum_{l_i > eps} p_i (1 - e^{eps - l_i}) + inf_mass + err`` (capped at 1, the
largest possible divergence). PLDs come from the mechanisms (Gaussian, Laplace, randomized
response, approximate DP; composed; both neighbouring relations) and from ``PldCore.from_parts``
with ``err = 0`` (so the float margin alone must cover the rounding): large losses (~700),
negative losses, block boundaries, tiny and uneven masses. Deterministic seeds and grids.
"""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

import mpmath
import numpy as np
import pytest

from privlearn import _core
from privlearn.accounting import _pld

U = 2.0**-53


class _Exact:
    """The exact curve of one stored PLD (80-digit mpmath, suffix sums)."""

    def __init__(self, core: object) -> None:
        self.core = core
        self.h = float(core.h)  # type: ignore[attr-defined]
        self.lo = int(core.lo)  # type: ignore[attr-defined]
        self.p = np.asarray(core.masses, dtype=float)  # type: ignore[attr-defined]
        n = len(self.p)
        self.n = n
        with mpmath.workdps(80):
            self.H = mpmath.mpf(self.h)
            self.base = mpmath.mpf(float(core.inf_mass)) + mpmath.mpf(float(core.err))  # type: ignore[attr-defined]
            # P[k] = sum_{i >= k} p_i, Q[k] = sum_{i >= k} p_i e^{-l_i}, l_i = (lo + i) H.
            step = mpmath.exp(-self.H)
            w = mpmath.exp(-(self.lo + n - 1) * self.H)
            inv = 1 / step
            P = [mpmath.mpf(0)] * (n + 1)
            Q = [mpmath.mpf(0)] * (n + 1)
            for i in range(n - 1, -1, -1):
                pi = mpmath.mpf(float(self.p[i]))
                P[i] = P[i + 1] + pi
                Q[i] = Q[i + 1] + pi * w
                w *= inv
            self.P = P
            self.Q = Q

    def loss(self, i: int) -> mpmath.mpf:
        return (self.lo + i) * self.H

    def first_above(self, e: mpmath.mpf) -> int:
        """The first index whose exact loss is above ``e``."""
        k = int(mpmath.floor(e / self.H)) - self.lo + 1
        k = min(max(k, 0), self.n)
        while k > 0 and self.loss(k - 1) > e:
            k -= 1
        while k < self.n and not self.loss(k) > e:
            k += 1
        return k

    def delta(self, eps: float) -> mpmath.mpf:
        with mpmath.workdps(80):
            if eps == math.inf:
                val = self.base
            elif eps == -math.inf:
                val = self.P[0] + self.base
            else:
                e = mpmath.mpf(eps)
                k = self.first_above(e)
                val = self.P[k] - mpmath.exp(e) * self.Q[k] + self.base
            return min(val, mpmath.mpf(1))

    def delta_direct(self, eps: float) -> mpmath.mpf:
        """The defining sum term by term (used to check the suffix-sum form)."""
        with mpmath.workdps(80):
            e = mpmath.mpf(eps)
            s = self.base
            for i in range(self.n):
                li = self.loss(i)
                if li > e:
                    s += mpmath.mpf(float(self.p[i])) * (1 - mpmath.exp(e - li))
            return min(s, mpmath.mpf(1))

    def epsilon(self, target: mpmath.mpf) -> mpmath.mpf:
        """The smallest ``eps >= 0`` with exact delta at most ``target`` (``inf`` if none)."""
        with mpmath.workdps(80):
            t = mpmath.mpf(target)
            if self.delta(0.0) <= t:
                return mpmath.mpf(0)
            if self.base >= t:
                return mpmath.inf

            def at_atom(j: int) -> mpmath.mpf:
                return self.P[j + 1] - mpmath.exp(self.loss(j)) * self.Q[j + 1] + self.base

            # Smallest atom j whose curve value is <= t (the curve falls with j).
            a, b = 0, self.n - 1
            if at_atom(0) <= t:
                j = 0
            else:
                while b - a > 1:
                    m = (a + b) // 2
                    if at_atom(m) <= t:
                        b = m
                    else:
                        a = m
                j = b
            # On (l_{j-1}, l_j] the atoms above eps are i >= j: P_j + base - e^eps Q_j = t.
            e = mpmath.log((self.P[j] + self.base - t) / self.Q[j])
            return max(e, mpmath.mpf(0))


def _margin(ref: _Exact, eps: float) -> float:
    """A generous bound of how far ``delta()`` may lie above the exact value (its documented
    margin over every atom, plus a few roundings of the total)."""
    big_l = max(abs(float(ref.loss(0))), abs(float(ref.loss(ref.n - 1))))
    mass = float(ref.P[0])
    per = ref.n + 8 + 2.02 * big_l + 1.01 * min(abs(eps), 1e300) + 65 * ref.h
    return 1.5 * per * U * mass + 8 * U + 1e-300


# --------------------------------------------------------------------------------------------
# PLDs under test
# --------------------------------------------------------------------------------------------


def _mechanism_cores() -> List[Tuple[str, object]]:
    curves = {
        "gaussian-1e-5": _pld.pld_gaussian(50.0, value_discretization=1e-5),
        "gaussian-x4-1e-3": 4 * _pld.pld_gaussian(5.0, value_discretization=1e-3),
        "laplace+gaussian-1e-4": _pld.pld_laplace(20.0, value_discretization=1e-4)
        + _pld.pld_gaussian(30.0, value_discretization=1e-4),
        "rr-x10-1e-2": 10 * _pld.pld_randomized_response(1.0, value_discretization=1e-2),
        "rr-k5-3e-5": _pld.pld_randomized_response(0.2, k=5, value_discretization=3e-5),
        "approx-x3-3e-3": 3 * _pld.pld_approx(0.3, 1e-6, value_discretization=3e-3),
        "gaussian-addremove-x2": 2
        * _pld.pld_gaussian(8.0, neighbours="add/remove-one", value_discretization=2e-3),
    }
    out = []
    for name, c in curves.items():
        for k, d in enumerate(c._dirs):
            out.append((f"{name}[{k}]", d))
    return out


def _parts_cores() -> List[Tuple[str, object]]:
    """Hand-built PLDs with err = 0: the float margin alone must cover every rounding."""
    rng = np.random.default_rng(20261127)
    out: List[Tuple[str, object]] = []

    def add(name: str, h: float, lo: int, masses: np.ndarray, inf: float = 0.0) -> None:
        out.append((name, _core.PldCore.from_parts(h, lo, np.ascontiguousarray(masses), inf, 0.0)))

    for h in (1e-5, 3.3e-5, 1e-4, 7.77e-4, 1e-3, 0.0093, 1e-2):
        # Large positive losses (~ up to 700): the loss rounding dominates the exponent error.
        n = 1 + int(rng.integers(60, 300))
        lo = int(round(690.0 / h))
        m = rng.random(n) ** 4
        add(f"high-{h}", h, lo, m / m.sum() * 0.999)
        # Large negative losses (the curve there is read at negative eps).
        lo = -int(round(700.0 / h))
        m = rng.random(n)
        add(f"low-{h}", h, lo, m / m.sum() * 0.5)
        # Straddling 0, n not a multiple of 64, uneven masses spanning many decades.
        n = 64 * 3 + 17
        m = 10.0 ** rng.uniform(-300, 0, n)
        add(f"mixed-{h}", h, -90, m / m.sum() * 0.9, inf=1e-9)
        # Exactly one block, one block plus one, one atom.
        add(f"block64-{h}", h, 5, np.full(64, 1 / 64))
        add(f"block65-{h}", h, -40, np.full(65, 1 / 65))
        add(f"single-{h}", h, int(round(1.0 / h)) + 3, np.array([0.75]))
    # Coarse grids (h up to 1 is accepted).
    for h in (0.05, 0.3, 1.0):
        m = rng.random(150)
        add(f"coarse-{h}", h, -20, m / m.sum())
        add(f"coarse-high-{h}", h, int(650 / h), m / m.sum())
    return out


def _eps_grid(ref: _Exact, rng: np.random.Generator) -> List[float]:
    """Read-out points: at grid losses (and their float neighbours), between them, at block
    boundaries, negative, zero, beyond the top, huge."""
    h, lo, n = ref.h, ref.lo, ref.n
    idx = sorted(
        set(
            [0, 1, n // 2, n - 2, n - 1, min(63, n - 1), min(64, n - 1), min(65, n - 1)]
            + [int(i) for i in rng.integers(0, n, 6)]
        )
    )
    eps: List[float] = [0.0, -0.0, 1e-300, -1e-300, 1e300, -1e300, 5.0, -3.0]
    for i in idx:
        if i < 0:
            continue
        g = (lo + i) * h
        eps += [g, math.nextafter(g, math.inf), math.nextafter(g, -math.inf)]
        eps += [(lo + i + f) * h for f in (0.5, float(rng.random()), -1e-9, 1e-9)]
    top = (lo + n - 1) * h
    eps += [top + h, top + 10.0, lo * h - h, lo * h - 5.0]
    return [e for e in eps if math.isfinite(e)]


_CACHE: Dict[str, _Exact] = {}


def _cases() -> List[Tuple[str, object]]:
    return _mechanism_cores() + _parts_cores()


CASES = _cases()


def _ref(name: str, core: object) -> _Exact:
    if name not in _CACHE:
        _CACHE[name] = _Exact(core)
    return _CACHE[name]


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_reference_suffix_form_matches_the_defining_sum() -> None:
    # The suffix-sum form of the reference agrees with the term-by-term definition.
    rng = np.random.default_rng(7)
    for name, core in CASES:
        ref = _ref(name, core)
        if ref.n > 700:
            continue
        for e in _eps_grid(ref, rng)[:20]:
            a, b = ref.delta(e), ref.delta_direct(e)
            assert abs(a - b) <= mpmath.mpf(10) ** -40 * (1 + abs(b)), (name, e, a, b)


@pytest.mark.parametrize("name,core", CASES, ids=[c[0] for c in CASES])
def test_delta_never_below_exact(name: str, core: object) -> None:
    ref = _ref(name, core)
    rng = np.random.default_rng(11)
    for e in _eps_grid(ref, rng) + [math.inf, -math.inf]:
        got = core.delta(e)  # type: ignore[attr-defined]
        exact = ref.delta(e)
        assert mpmath.mpf(got) >= exact, (name, e, got, exact, float(exact - got))
        # Not wildly loose either: within the documented margin.
        if math.isfinite(e):
            slack = _margin(ref, e)
            assert got <= float(exact) * (1 + 1e-12) + slack or got == 1.0, (
                name,
                e,
                got,
                float(exact),
                slack,
            )


_DELTAS = (0.5, 1e-2, 1e-3, 1e-5, 1e-6, 3e-7, 1e-9, 1e-10, 1e-12)


@pytest.mark.parametrize("name,core", CASES, ids=[c[0] for c in CASES])
def test_epsilon_exact_delta_at_most_target_and_tight(name: str, core: object) -> None:
    ref = _ref(name, core)
    targets = list(_DELTAS)
    # Targets at the curve's own values at grid points (the solve lands on a segment end).
    for i in (0, ref.n // 3, ref.n // 2, ref.n - 1):
        v = float(ref.delta((ref.lo + i) * ref.h))
        if 0.0 < v < 1.0:
            targets += [v, math.nextafter(v, 0.0), v * (1 + 1e-9)]
    for d in targets:
        if not 0.0 < d < 1.0:
            continue
        got = core.epsilon(d)  # type: ignore[attr-defined]
        assert got >= 0.0, (name, d, got)
        if got == math.inf:
            # Only when the +inf mass and the error bound alone (the curve beyond the top atom)
            # reach d, up to delta()'s final rounding.
            assert ref.base * (1 + 1e-12) >= mpmath.mpf(d), (name, d, float(ref.base))
            continue
        exact = ref.delta(got)
        assert exact <= mpmath.mpf(d), (name, d, got, float(exact))
        # Tight: no larger than the exact epsilon at d lowered by delta()'s own margin, up to
        # 1e-9 relative (the check-and-step of the solve) and a tiny absolute slack.
        lowered = mpmath.mpf(d) - mpmath.mpf(_margin(ref, got))
        if lowered <= 0:
            continue
        bound = ref.epsilon(lowered)
        if bound == mpmath.inf:
            continue
        assert got <= float(bound) * (1 + 1e-9) + 1e-9 * ref.h + 1e-15, (
            name,
            d,
            got,
            float(bound),
            float(ref.epsilon(mpmath.mpf(d))),
        )


def test_power_margin_free_readout_is_caught() -> None:
    # Power: the same blocked read-out without the float margin (sum + inf + err, no (1 + 4u))
    # falls below the exact value on these PLDs, so a margin that does not cover the rounding
    # would be detected by the checks above.
    rng = np.random.default_rng(3)
    below = 0
    for name, core in CASES:
        ref = _ref(name, core)
        if not name.startswith(("high", "single", "coarse-high", "low")):
            continue
        p, h, lo, n = ref.p, ref.h, ref.lo, ref.n
        losses = (lo + np.arange(n)).astype(float) * h
        table = np.exp(-np.arange(64, dtype=float) * h)
        for e in _eps_grid(ref, rng):
            s = 0.0
            for b in range(0, n, 64):
                eb = math.exp(e - losses[b]) if e - losses[b] < 700 else math.inf
                for i in range(b, min(b + 64, n)):
                    if losses[i] > e:
                        s += p[i] * (1.0 - eb * table[i - b])
            naive = s + float(ref.base)
            if mpmath.mpf(naive) < ref.delta(e):
                below += 1
    assert below > 0
