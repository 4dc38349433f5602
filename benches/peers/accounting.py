"""PLD accounting against Google's dp_accounting (issue 18): the 10^4-fold Poisson-subsampled
Gaussian to epsilon at delta = 1e-6, and 1000 heterogeneous mechanisms composed.

Both sides build the curve from scratch in every timed run (privlearn's constructors keep a small
cache of identical curves; it is cleared before each run). The heterogeneous case goes through
``PrivacyEvent.composed([...]).to_pld(h)``, which merges the Gaussian parts into one Gaussian
exactly, builds the Laplace parts in one batch in Rust and composes repeated parts once before
self-composing them (``_event._composed_pld``). privlearn's epsilon includes its
rigorous float-error bound; dp_accounting reports none."""

from __future__ import annotations

from typing import List

from privlearn.accounting import _event, _pld
from privlearn.accounting._event import PrivacyEvent

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


def _release(i: int, distinct: bool) -> PrivacyEvent:
    """The i-th of 1000 releases, in rotation: a Gaussian mechanism (sigma 20 + 0.06 j, all
    distinct), a Laplace mechanism (scale 20 + j % 20, or 20 + 0.06 j when ``distinct``) and a
    pure-DP release such as the exponential mechanism (epsilon 0.01 + 0.001 (j % 20), or
    0.01 + 0.00006 j when ``distinct``), j = i // 3."""
    j = i // 3
    kind = i % 3
    if kind == 0:
        return PrivacyEvent.gaussian(20.0 + 0.06 * j)
    if kind == 1:
        return PrivacyEvent.laplace(20.0 + (0.06 * j if distinct else j % 20))
    return PrivacyEvent.pure(0.01 + (0.00006 * j if distinct else 0.001 * (j % 20)))


def _ours_mixed(h: float, distinct: bool = False) -> float:
    _clear()
    _event._pld_of.cache_clear()
    events = [_release(i, distinct) for i in range(1000)]
    return PrivacyEvent.composed(events).to_pld(h).epsilon(1e-6)


def rows(quick: bool) -> List[Row]:
    reps = 2 if quick else 5
    out: List[Row] = []
    h = 1e-4
    eps_ours = _ours_subsampled(h)
    t_ours = best_time(lambda: _ours_subsampled(h), reps)
    # Our accuracy knob: at h = 5e-5 ours (error bound included) is at most dp_accounting's
    # epsilon at its default h = 1e-4; at h = 1e-4 it is above by the cost of our rigorous
    # error bound (~8.5e-11 in delta: 6.1e-11 the construction's bound times k, 2.3e-11 the
    # k-fold FFT's, pld.rs Pld::power_fft), about 2.5e-5 in epsilon. The target (10x
    # at equal or better epsilon) is checked on the rows where ours is at most theirs; the
    # other row is reported with its ratio only.
    h_fine = 5e-5
    eps_fine = _ours_subsampled(h_fine)
    t_fine = best_time(lambda: _ours_subsampled(h_fine), reps)
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
        for hh, eps, t in ((h, eps_ours, t_ours), (h_fine, eps_fine, t_fine)):
            verdict = "at most" if eps <= eps_theirs else "ABOVE"
            target = ">= 10x" if eps <= eps_theirs else "- (epsilon above theirs)"
            out.append(
                Row(
                    f"{name}, ours at h = {hh:g}",
                    t,
                    "dp_accounting PLDAccountant (defaults: h = 1e-4)",
                    t_theirs,
                    target,
                    note=f"epsilon {eps:.7f} (with rigorous error bound) vs {eps_theirs:.7f} "
                    f"(none): ours {verdict} theirs, difference {eps - eps_theirs:+.2e}",
                )
            )
    except ImportError:
        out.append(
            Row(name, t_ours, "dp_accounting", None, ">= 10x", note="pip install dp-accounting")
        )

    for hh, distinct, target in (
        (1e-4, False, "<= 100 ms"),
        (1e-3, False, "<= 100 ms"),
        (1e-4, True, "<= 100 ms"),
    ):
        eps_mixed = _ours_mixed(hh, distinct)
        t_mixed = best_time(lambda hh=hh, d=distinct: _ours_mixed(hh, d), reps)
        what = "all 1000 parameters distinct" if distinct else "334 sigmas, 20 scales, 20 epsilons"
        out.append(
            Row(
                f"PLD: 1000 heterogeneous mechanisms (Gaussian, Laplace, pure-DP; {what}), "
                f"h = {hh:g}",
                t_mixed,
                "-",
                None,
                target,
                note=f"PrivacyEvent.composed(...).to_pld(h), events and curves built in the run; "
                f"epsilon at 1e-6: {eps_mixed:.4f}",
            )
        )
    return out
