"""The private-pipelines experiment (issue 22): registered, declared bounds cover the public files,
the budget split is exact, a quick run writes every file with sane numbers, and a missing
diffprivlib is skipped with a note."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction

import numpy as np
import pytest

from privlearn.accounting import Budget
from privlearn.experiments import Table, get_experiment, list_experiments, run_experiment
from privlearn.experiments import private_pipelines as pp
from privlearn.pipeline import PrivatePipeline
from privlearn.random import Generator

NAME = "private-pipelines"


def test_registered():
    assert NAME in [e.name for e in list_experiments()]
    exp = get_experiment(NAME)
    assert exp.run is pp.run and exp.title and exp.paper and exp.description


def test_declared_bounds_cover_the_public_files_and_are_rounded_outward():
    for spec in pp.DATASETS:
        X, y, names = pp.load(spec.name)
        lo, hi = pp.declared_bounds(spec.name)
        assert lo.shape == hi.shape == (X.shape[1],) == (len(names),)
        assert np.all(lo <= X.min(axis=0)) and np.all(X.max(axis=0) <= hi)
        assert np.all(hi > lo)
        # Rounded outward by less than a tenth of the width's leading power of ten (each side).
        width = X.max(axis=0) - X.min(axis=0)
        slack = 10.0 ** (np.floor(np.log10(width)) - 1.0) * (1 + 1e-9)
        assert np.all(X.min(axis=0) - lo <= slack) and np.all(hi - X.max(axis=0) <= slack)
        mapped = pp.range_map(X, lo, hi)
        assert mapped.min() >= 0.0 and mapped.max() <= 1.0
        if spec.task == "regression":
            assert np.max(np.abs(y)) <= spec.label_bound
        else:
            assert set(np.unique(y)) == {0, 1}
    lo, hi = pp.declared_bounds("warfarin")
    assert np.all(lo[list(pp.WARFARIN_BINARY)] == 0) and np.all(hi[list(pp.WARFARIN_BINARY)] == 1)
    np.testing.assert_allclose(pp.round_out(np.array([143.5]), np.array([2501.0])), [[100], [2600]])
    np.testing.assert_allclose(
        pp.round_out(np.array([0.0526]), np.array([0.1634])), [[0.05], [0.17]]
    )


@pytest.mark.parametrize("total", [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 1e-3, 0.3])
@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.5, 1 / 3])
def test_split_budget_is_exact(total, fraction):
    a, b = pp.split_budget(total, fraction)
    assert 0 < a and 0 < b
    assert Fraction(a) + Fraction(b) <= Fraction(total)
    assert a == pytest.approx(fraction * total, rel=1e-12)
    assert a + b == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("name", ["warfarin", "breast-cancer"])
def test_privlearn_pipelines_are_private_and_claim_the_total(name):
    """Built with make_private_pipeline (the scaler on the declared bounds, or after the range
    map, or the model alone); after a fit privacy_ is the total, for both notions."""
    spec = pp.DATASET[name]
    X, y, _ = pp.load(spec.name)
    n, d = X.shape
    for delta in (0.0, pp.DELTA):
        for fraction, range_map in ((0.25, False), (0.1, True), (None, False)):
            pipe = pp.privlearn_pipeline(spec, 0.2, delta, fraction, False, n, d, 3, range_map)
            assert isinstance(pipe, PrivatePipeline)
            pipe.fit(X, y)
            assert pipe.privacy_ == (Budget(0.2, delta) if delta else Budget(0.2))
    robust = pp.privlearn_pipeline(spec, 1.0, 0.0, 0.25, False, n, d, 3, robust=True).fit(X, y)
    assert robust.privacy_ == Budget(1.0)
    scaler = pp.privlearn_pipeline(spec, 1.0, 0.0, 0.25, False, n, d, 3)[0]
    lo, hi = pp.declared_bounds(name)
    np.testing.assert_array_equal(scaler.bounds[0], lo)
    np.testing.assert_array_equal(scaler.bounds[1], hi)


def test_plans_cover_the_fixed_rows_and_the_grid():
    spec = pp.DATASET["breast-cancer"]
    for quick in (True, False):
        for peers in (True, False):
            configs = pp.plan_configs(spec, quick, peers)
            assert set(pp.fixed_configs().values()) <= set(configs)
            has_peer = any(c.library == "diffprivlib" for c in configs)
            assert has_peer == peers
    full = pp.plan_configs(spec, False, True)
    assert {c.fraction for c in full if c.library == "privlearn"} == set(pp.FRACTIONS)
    like = pp.dpl_bounds(spec, pp.SCALER_WITH_STD, False)[0]
    assert pp.Config("diffprivlib", pp.SCALER_FRACTION, pp.SCALER_WITH_STD, False, like) in full


def test_rank_configs():
    cells = {
        ("warfarin", "pure", 1.0): {"a": 0.5, "b": 0.7, "c": 0.5},
        ("breast-cancer", "pure", 1.0): {"a": 0.9, "b": 0.8, "c": float("nan")},
    }
    ranks = pp.rank_configs({"warfarin": "regression", "breast-cancer": "classification"}, cells)
    assert ranks == {"a": 1.25, "b": 2.5, "c": 2.25}


def test_split_is_stratified_and_random_split_has_the_protocol_size():
    y = pp.load("breast-cancer")[1]
    tr, te = pp._split(pp.DATASET["breast-cancer"], y, Generator(0))
    assert len(tr) == 398 and len(te) == 171 and not set(tr) & set(te)
    assert np.bincount(y[tr]).tolist() == [148, 250]
    yw = pp.load("warfarin")[1]
    tr, te = pp._split(pp.DATASET["warfarin"], yw, Generator(0))
    assert len(tr) == 3000 and len(te) == 1819 and not set(tr) & set(te)


def test_private_bounds_probe_follows_n_epsilon():
    """Public rule: the logistic front door refuses private bounds at small n * epsilon."""
    assert not pp.accepts_private_bounds("classification", 0.05, 0.0, 398, 30)
    assert pp.accepts_private_bounds("classification", 1.0, 0.0, 398, 30)
    assert pp.accepts_private_bounds("regression", 0.05, 0.0, 3000, 14)


def test_summary():
    mean, lo, hi, med = pp.summary(np.array([1.0, 2.0, 6.0, np.nan]))
    assert mean == 3.0 and med == 2.0
    assert hi - mean == pytest.approx(pp.Z95 * np.std([1.0, 2.0, 6.0], ddof=1) / math.sqrt(3))
    assert all(math.isnan(v) for v in pp.summary(np.array([np.nan])))


def test_targets_verdicts():
    eps = (0.5, 2.0)
    row = lambda *m: np.array([[v, 0, 0, v] for v in m])  # noqa: E731
    stats = {
        "warfarin": {"privlearn": row(0.8, 0.7), "diffprivlib": row(1e9, 0.6)},
        "breast-cancer": {"privlearn": row(0.7, 0.9), "diffprivlib_best": row(0.6, 0.9)},
    }
    rows = pp.check_targets(stats, eps)
    got = {(r[0], r[2], r[4], r[1]): r[-1] for r in rows}
    assert got[("warfarin", "privlearn", "diffprivlib", 0.5)] == "pass"
    assert got[("warfarin", "privlearn", "diffprivlib", 2.0)] == "FAIL"
    assert got[("warfarin", "privlearn", "diffprivlib_best", 0.5)] == "n/a"
    assert got[("breast-cancer", "privlearn", "diffprivlib_best", 0.5)] == "pass"
    assert got[("breast-cancer", "privlearn", "diffprivlib_best", 2.0)] == "pass"  # a tie passes


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("pipelines")
    return run_experiment(NAME, out_dir=out, quick=True, seed=0, progress=False)


def test_quick_run_writes_every_file(quick):
    meta = json.loads((quick / "meta.json").read_text())
    assert meta["name"] == NAME and meta["quick"] is True
    assert meta["runtime_seconds"] < 60
    for name in ("warfarin", "breast-cancer", "split-study", "targets"):
        assert (quick / f"{name}.csv").exists()
    assert set(meta["tables"]) == {
        "warfarin.csv",
        "breast-cancer.csv",
        "split-study.csv",
        "targets.csv",
    }
    report = (quick / f"{NAME}.md").read_text()
    assert "replace-one" in report and "privacy_" in report and "delta = 1e-6" in report
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for name in ("warfarin", "breast-cancer"):
        assert (quick / f"{name}.png").exists()
    assert set(meta["figures"]) == {"warfarin.png", "breast-cancer.png"}


def test_quick_numbers_are_sane(quick):
    for spec in pp.DATASETS:
        table = Table.read_csv(quick / f"{spec.name}.csv")
        col = table.columns.index("mean_mse" if spec.task == "regression" else "mean_accuracy")
        rows = {(r[0], r[1]): r for r in table.rows}
        eps = pp.EPSILONS_QUICK
        assert {k[1] for k in rows} == set(eps)
        for key in pp.fixed_configs():
            assert all(math.isfinite(rows[(key, e)][col]) for e in eps)
        ref, const = rows[("non_private", eps[0])][col], rows[("constant", eps[0])][col]
        if spec.task == "regression":
            assert 0.35 < ref < 0.7 < const < 1.3  # z-scored dose
            # the private pipeline beats the constant predictor at epsilon = 2
            assert rows[("privlearn_approx", 2.0)][col] < const
        else:
            assert ref > 0.93 and 0.55 < const < 0.7
            assert all(0.0 <= rows[(k, e)][col] <= 1.0 for k, e in rows if k != "constant")
        for row in table.rows:
            delta = row[table.columns.index("delta")]
            guarantee = row[table.columns.index("guarantee")]
            if delta == 0.0:
                assert guarantee.startswith("pure")
            elif delta is not None:
                assert delta == pp.DELTA and "1e-6" in guarantee


def test_missing_diffprivlib_is_skipped_with_a_note(monkeypatch):
    """With diffprivlib unimportable (as in CI's environment), the run completes, has no peer
    rows, its targets are 'n/a', and the notes say why."""
    for mod in ("diffprivlib", "diffprivlib.models"):
        monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setattr(pp, "REPETITIONS_QUICK", 1)
    monkeypatch.setattr(pp, "EPSILONS_QUICK", (1.0,))
    result = pp.run(pp.RunConfig(quick=True, seed=1, progress=False))
    for spec in pp.DATASETS:
        keys = set(result.tables[spec.name].column("method"))
        assert not keys & {"diffprivlib", "diffprivlib_best"}
        assert {"privlearn", "non_private", "constant"} <= keys
    assert set(result.tables["targets"].column("verdict")) == {"n/a"}
    notes = "\n".join(result.notes)
    assert "skipped diffprivlib: diffprivlib is not available here" in notes


def test_unavailable_names_the_missing_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "diffprivlib.models", None)
    assert "diffprivlib" in pp.unavailable(pp.METHOD["diffprivlib"])
    assert all(pp.unavailable(m) is None for m in pp.METHODS if not m.peer)


def test_diffprivlib_pipeline_runs_where_installed():
    """Where diffprivlib imports (the bench environment), its pipeline fits and predicts."""
    pytest.importorskip("diffprivlib.models")
    spec = pp.DATASET["breast-cancer"]
    X, y, _ = pp.load(spec.name)
    for with_std, range_map in ((False, False), (False, True), (True, False)):
        for c in pp.dpl_bounds(spec, with_std, range_map):
            pipe = pp.diffprivlib_pipeline(spec, 1.0, 0.25, with_std, range_map, c, 0)
            assert pipe.fit(X, y).predict(X).shape == y.shape
