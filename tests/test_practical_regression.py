"""The practical-regression experiment (issue 19): registered, a quick run writes every file with
sane numbers, and peers or estimators that are not installed are skipped with a note."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

from privlearn.experiments import Table, get_experiment, list_experiments, run_experiment
from privlearn.experiments import practical_regression as pr

NAME = "practical-regression"


def test_registered():
    assert NAME in [e.name for e in list_experiments()]
    exp = get_experiment(NAME)
    assert exp.run is pr.run and exp.title and exp.paper and exp.description


def test_data_sets_and_declared_bounds_cover_the_public_files():
    """The declared bounds are the files' largest values (nothing clipped), as documented."""
    for spec in pr.DATASETS:
        X, y, names = pr.load(spec.name)
        assert X.shape[1] == len(names) and X.shape[0] == y.shape[0] > spec.n_train
        assert np.max(np.linalg.norm(X, axis=1)) <= spec.data_norm
        if spec.task == "regression":
            assert np.max(np.abs(y)) <= spec.label_bound
            assert pr.opendp_column(spec.name, X).shape == (X.shape[0], 1)
        else:
            assert set(np.unique(y)) == {0, 1}
        for dn, lb in spec.grid_full + spec.grid_quick:
            assert 0 < dn <= spec.data_norm
            assert (lb is None) == (spec.task == "classification")


def test_summary():
    mean, lo, hi = pr.summary(np.array([1.0, 2.0, 3.0, np.nan]))
    assert mean == 2.0
    assert hi - mean == pytest.approx(pr.Z95 * 1.0 / math.sqrt(3))
    assert lo == pytest.approx(2 * mean - hi)
    assert all(math.isnan(v) for v in pr.summary(np.array([np.nan])))


def test_opendp_scale_is_a_replace_one_guarantee():
    """OpenDP's Theil-Sen is add/remove (SymmetricDistance): its scale is set so that the loss
    at d_in = 2 (one replacement) is epsilon, and at d_in = 1 half of it."""
    pytest.importorskip("opendp.extras.sklearn.linear_model")
    for eps in (0.1, 1.0):
        scale, model = pr.opendp_scale(eps, pr.DATASET["diabetes"])
        assert float(model.measurement.map(2)) == pytest.approx(eps, rel=1e-9)
        assert float(model.measurement.map(2)) <= eps * (1 + 1e-9)
        assert float(model.measurement.map(1)) == pytest.approx(eps / 2, rel=1e-9)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("practical")
    return run_experiment(NAME, out_dir=out, quick=True, seed=0, progress=False)


def test_quick_run_writes_every_file(quick):
    meta = json.loads((quick / "meta.json").read_text())
    assert meta["name"] == NAME and meta["quick"] is True
    for name in ("warfarin", "diabetes", "breast-cancer", "targets"):
        assert (quick / f"{name}.csv").exists()
    report = (quick / f"{NAME}.md").read_text()
    assert "replace-one" in report and "map(2) = epsilon" in report and "delta = 1e-6" in report
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for name in ("warfarin", "diabetes", "breast-cancer"):
        assert (quick / f"{name}.png").exists()


def test_quick_numbers_are_sane(quick):
    for spec in pr.DATASETS:
        table = Table.read_csv(quick / f"{spec.name}.csv")
        rows = {(r[0], r[1]): r for r in table.rows}
        col = table.columns.index("mean_mse" if spec.task == "regression" else "mean_accuracy")
        eps = pr.EPSILONS_QUICK
        assert {k[1] for k in rows} == set(eps)
        if spec.task == "regression":
            ref, const = rows[("non_private", eps[0])][col], rows[("mean", eps[0])][col]
            assert 0.3 < ref < 0.8 < const < 1.3  # z-scored targets
        else:
            ref, const = rows[("non_private", eps[0])][col], rows[("majority", eps[0])][col]
            assert ref > 0.93 and 0.5 < const < 0.75
        # Every privately fitted row states its notion; delta 0 means pure.
        for row in rows.values():
            delta = row[table.columns.index("delta")]
            guarantee = row[table.columns.index("guarantee")]
            if delta == 0.0:
                assert guarantee.startswith("pure")
            elif delta is not None:
                assert delta == pr.DELTA and "1e-6" in guarantee


def test_missing_peers_are_skipped_with_a_note(tmp_path, monkeypatch):
    """With diffprivlib and OpenDP unimportable (as in an environment without them), the run
    completes, has no peer rows and says why in the notes."""
    for mod in (
        "diffprivlib",
        "diffprivlib.models",
        "opendp",
        "opendp.extras.sklearn.linear_model",
    ):
        monkeypatch.setitem(sys.modules, mod, None)
    monkeypatch.setattr(pr, "REPETITIONS_QUICK", 2)
    monkeypatch.setattr(pr, "EPSILONS_QUICK", (1.0,))
    result = pr.run(pr.RunConfig(quick=True, seed=1, progress=False))
    for spec in pr.DATASETS:
        keys = set(result.tables[spec.name].column("method"))
        assert "diffprivlib" not in keys and "opendp" not in keys
        assert "non_private" in keys
    notes = "\n".join(result.notes)
    assert "skipped warfarin/diffprivlib" in notes and "skipped diabetes/opendp" in notes
    assert "skipped breast-cancer/diffprivlib" in notes


def test_unavailable_names_missing_modules(monkeypatch):
    monkeypatch.setitem(sys.modules, "diffprivlib.models", None)
    method = next(m for m in pr.REGRESSION_METHODS if m.peer == "diffprivlib")
    assert "diffprivlib" in pr.unavailable(method)
    # privlearn's own methods are never skipped: an error in one fails the experiment.
    assert all(pr.unavailable(m) is None for m in pr.REGRESSION_METHODS if not m.peer)


def test_targets_table_verdicts():
    eps = (0.1, 1.0)
    stats = {
        "warfarin": {
            "non_private": np.array([[0.6, 0, 0]] * 2),
            "mean": np.array([[1.0, 0, 0]] * 2),
            "adassp": np.array([[0.9, 0, 0], [0.65, 0, 0]]),
            "front": np.array([[0.9, 0, 0], [0.7, 0, 0]]),
            "handpicked": np.array([[0.9, 0, 0], [0.68, 0, 0]]),
        },
        "breast-cancer": {
            "front": np.array([[0.85, 0, 0], [0.95, 0, 0]]),
            "diffprivlib": np.array([[0.80, 0, 0], [0.96, 0, 0]]),
        },
    }
    rows = {r[0]: r for r in pr.check_targets(stats, eps)}
    best = next(r for k, r in rows.items() if k.startswith("warfarin: best private"))
    assert best[1] == 0.65 and best[2] == pytest.approx(0.69) and best[3] == "pass"
    assert rows["warfarin: front MSE / predicting-the-mean MSE, worst over eps >= 0.1"][3] == "pass"
    ratio = rows["warfarin: bounds='private' MSE / best hand-picked MSE, worst eps >= 0.5"]
    assert ratio[1] == pytest.approx(0.7 / 0.68) and ratio[3] == "pass"
    assert rows["breast cancer: front accuracy at eps=1 >= 0.90"][3] == "pass"
    gap = rows["breast cancer: front accuracy - diffprivlib accuracy, worst over eps"]
    assert gap[1] == pytest.approx(-0.01) and gap[3] == "FAIL"
