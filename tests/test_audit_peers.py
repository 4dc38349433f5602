"""The ``audit-peers`` experiment: registered, runs without the optional peers (skipping them
with a message) with every privlearn control passing, and reports a broken fake peer as
refuted (so the refutation path is tested without diffprivlib or OpenDP installed).

The audits run at ``alpha = FALSE_POSITIVE_RATE`` (patched in; the experiment's own alpha is
1e-3) with fixed seeds; each "passes" assertion on the controls is paired with a broken
mechanism of the same kind that the same settings refute (power).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from privlearn.audit import FALSE_POSITIVE_RATE
from privlearn.experiments import RunConfig, list_experiments, run_experiment
from privlearn.experiments import audit_peers as ap


@pytest.fixture(autouse=True)
def _strict_alpha(monkeypatch):
    monkeypatch.setattr(ap, "ALPHA", FALSE_POSITIVE_RATE)


def _laplace_sum(scale):
    """The Laplace mechanism on a column sum (sensitivity 1) with noise scale ``scale``."""

    def mechanism(data, rng, size):
        return data[:, 0].sum() + rng.laplace(0.0, scale, size=size)

    return mechanism


def _fake_peer(cases, modules=()):
    return ap.Peer("fakepeer", tuple(modules), lambda: "0.0-test", lambda: list(cases))


def _without_real_peers():
    """The experiment's peers with every non-control peer made un-importable."""
    out = []
    for peer in ap._peers():
        if not peer.control:
            peer = dataclasses.replace(peer, modules=("privlearn_no_such_module_21",))
        out.append(peer)
    return out


def test_registered():
    names = [e.name for e in list_experiments()]
    assert "audit-peers" in names


def test_quick_run_without_peers_skips_them_and_the_controls_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(ap, "PEERS", _without_real_peers)
    dest = run_experiment("audit-peers", out_dir=tmp_path, quick=True, seed=0, progress=False)
    report = (dest / "audit-peers.md").read_text()
    assert (dest / "privlearn.csv").exists()
    assert (dest / "meta.json").exists()
    for peer in ("diffprivlib", "opendp"):
        assert f"{peer}: not installed or does not import" in report
        assert not (dest / f"{peer}.csv").exists()
    assert "privlearn controls: all passed." in report
    from privlearn.experiments import Table

    table = Table.read_csv(dest / "privlearn.csv")
    assert len(table) == 6
    assert table.column("verdict") == ["passed"] * 6
    # every control was audited on a pair chosen by the neighbour search
    assert all(isinstance(p, str) and p for p in table.column("neighbours"))


def _gaussian_sum(sigma):
    def mechanism(data, rng, size):
        return data[:, 0].sum() + rng.normal(0.0, sigma, size=size)

    return mechanism


def _exact_slope(data, g):
    """A "model" without noise: the least-squares slope of y on x (and a zero intercept)."""
    x, y = data[:, 0], data[:, 1]
    slope = float(x @ y / (x @ x)) if x @ x > 0 else 0.0
    return ap._finite([slope, 0.0])


def test_a_broken_fake_peer_is_refuted_and_a_correct_one_passes(monkeypatch):
    cases = [
        ap.Case("fakepeer", "Laplace (correct)", "eps=1", 1.0, 0.0, 1.0, _laplace_sum(1.0)),
        # sigma 1 for sensitivity 1 is about (1, 0.13)-DP, not (1, 1e-5): the delta audit
        ap.Case(
            "fakepeer",
            "Gaussian (delta 1e4x too small)",
            "(1, 1e-5)",
            (1.0, 1e-5),
            0.0,
            1.0,
            _gaussian_sum(1.0),
        ),
        # the model path (per-fit sampler, statistic, the first pairs of the family)
        ap.Case(
            "fakepeer",
            "exact slope",
            "eps=1",
            1.0,
            0.0,
            1.0,
            ap._per_call(_exact_slope),
            columns=2,
            statistic=ap._first_column,
            model=True,
        ),
        ap.Case(
            "fakepeer",
            "Laplace (half scale)",
            "eps=1",
            1.0,
            0.0,
            1.0,
            _laplace_sum(0.5),
            refutation="the scale is sensitivity / (2 epsilon)",
        ),
    ]
    monkeypatch.setattr(ap, "PEERS", lambda: [_fake_peer(cases)])
    result = ap.run(RunConfig(quick=True, seed=0, progress=False))
    table = result.tables["fakepeer"]
    assert table.column("verdict") == ["passed", "REFUTED", "REFUTED", "REFUTED"]
    assert table.column("quantity") == ["epsilon", "delta", "epsilon", "epsilon"]
    bounds = table.column("bound")
    assert bounds[0] <= 1.0 < bounds[3]
    assert bounds[1] > 1e-5
    refuted = [note for note in result.notes if note.startswith("REFUTED: fakepeer")]
    assert len(refuted) == 3
    assert "Laplace (half scale)" in refuted[2]
    assert "the scale is sensitivity / (2 epsilon)" in refuted[2]
    assert "No claim was refuted." not in result.notes


def test_a_failing_peer_mechanism_is_reported_not_raised(monkeypatch):
    def broken(data, rng, size):
        raise RuntimeError("peer bug")

    cases = [ap.Case("fakepeer", "raises", "eps=1", 1.0, 0.0, 1.0, broken)]
    monkeypatch.setattr(ap, "PEERS", lambda: [_fake_peer(cases)])
    result = ap.run(RunConfig(quick=True, seed=0, progress=False))
    (verdict,) = result.tables["fakepeer"].column("verdict")
    assert verdict.startswith("error: RuntimeError: peer bug")
    assert "No claim was refuted." in result.notes


def test_missing_peer_is_skipped_with_a_message(monkeypatch):
    peer = _fake_peer([], modules=("privlearn_no_such_module_21",))
    monkeypatch.setattr(ap, "PEERS", lambda: [peer])
    result = ap.run(RunConfig(quick=True, seed=0, progress=False))
    assert result.tables == {}
    assert any(n.startswith("fakepeer: not installed") for n in result.notes)


def test_finite_outputs_keep_order_and_map_non_finite_far_out():
    x = np.array([-1e300, -1.0, 0.0, 2.0, 1e300, np.inf, -np.inf, np.nan])
    y = ap._finite(x)
    assert np.all(np.isfinite(y))
    assert np.all(np.diff(y[:5]) > 0)
    assert y[5] > y[4] and y[6] < y[0] and y[7] > y[5]
