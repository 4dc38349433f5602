"""PLD accounting against Google's dp_accounting (issue 18): the 10^4-fold Poisson-subsampled
Gaussian to epsilon at delta = 1e-6, and 1000 heterogeneous mechanisms composed.

Both sides build the curve from scratch in every timed run (privlearn's constructors keep a small
cache of identical curves; it is cleared before each run). privlearn's epsilon includes its
rigorous float-error bound; dp_accounting reports none."""

from __future__ import annotations

from typing import List

from privlearn.accounting import _pld

from .common import Row, best_time


def _clear() -> None:
    for f in (
        _pld._gaussian,
        _pld._laplace,
        _pld._rr,
        _pld._subsampled_gaussian,
        _pld._subsampled_laplace,
    ):
        f.cache_clear()


def _ours_subsampled(h: float) -> float:
    _clear()
    curve = 10_000 * _pld.pld_subsampled_gaussian(0.01, 1.0, value_discretization=h)
    return curve.epsilon(1e-6)


def _mix(i: int) -> tuple:
    """The i-th of 1000 mechanisms: Gaussians (sigma 20..39), Laplace (scale 20..39) and pure-DP
    releases (epsilon 0.01..0.029, the exponential mechanism), in rotation."""
    kind = i % 3
    v = (i // 3) % 20
    if kind == 0:
        return ("gaussian", 20.0 + v)
    if kind == 1:
        return ("laplace", 20.0 + v)
    return ("pure", 0.01 + 0.001 * v)


def _ours_mixed(h: float) -> float:
    _clear()
    curves = []
    for i in range(1000):
        kind, p = _mix(i)
        if kind == "gaussian":
            curves.append(_pld.pld_gaussian(p, value_discretization=h))
        elif kind == "laplace":
            curves.append(_pld.pld_laplace(p, value_discretization=h))
        else:
            curves.append(_pld.pld_pure(p, value_discretization=h))
    return _pld.compose_pld(curves).epsilon(1e-6)


def rows(quick: bool) -> List[Row]:
    reps = 2 if quick else 5
    out: List[Row] = []
    h = 1e-4
    eps_ours = _ours_subsampled(h)
    t_ours = best_time(lambda: _ours_subsampled(h), reps)
    name = "PLD: 10^4-fold Poisson-subsampled Gaussian (q=0.01, sigma=1), epsilon at 1e-6"
    try:
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant

        def theirs() -> float:
            acc = pld_privacy_accountant.PLDAccountant()
            event = dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)),
                10_000,
            )
            acc.compose(event)
            return acc.get_epsilon(1e-6)

        eps_theirs = theirs()
        t_theirs = best_time(theirs, 1 if quick else 2)
        out.append(
            Row(
                name,
                t_ours,
                "dp_accounting PLDAccountant (defaults: h = 1e-4)",
                t_theirs,
                ">= 10x",
                note=f"epsilon {eps_ours:.5f} (with error bound) vs {eps_theirs:.5f}",
            )
        )
    except ImportError:
        out.append(
            Row(name, t_ours, "dp_accounting", None, ">= 10x", note="pip install dp-accounting")
        )

    for hh, target in ((1e-4, "<= 100 ms"), (1e-3, "<= 100 ms")):
        eps_mixed = _ours_mixed(hh)
        t_mixed = best_time(lambda hh=hh: _ours_mixed(hh), reps)
        out.append(
            Row(
                f"PLD: 1000 heterogeneous mechanisms (Gaussian, Laplace, pure-DP), h = {hh:g}",
                t_mixed,
                "-",
                None,
                target,
                note=f"construction included; epsilon at 1e-6: {eps_mixed:.4f}",
            )
        )
    return out
