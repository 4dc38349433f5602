"""The seed-000 experiments run in quick mode and show what the paper claims: decaying excess
risk for the privately learnable rows, no decay for thresholds with the 0-1 loss, and the
1/(n epsilon) rate."""

from __future__ import annotations

import pytest

from privlearn.experiments import Table, list_experiments, run_experiment
from privlearn.experiments.erm_learnability import RATE, TABLE1, fit_slope


def test_registered():
    names = [e.name for e in list_experiments()]
    assert TABLE1 in names and RATE in names


@pytest.fixture(scope="module")
def table1(tmp_path_factory):
    out = tmp_path_factory.mktemp("erm")
    dest = run_experiment(TABLE1, out_dir=out, quick=True, seed=0, progress=False)
    return Table.read_csv(dest / "table1.csv")


def test_table1_rows_behave_as_the_paper_says(table1):
    rows = {r[0]: dict(zip(table1.columns, r)) for r in table1.rows}
    for key in ("E1", "E2", "E3", "E4", "E5", "K", "E7"):
        assert rows[key]["fitted_slope"] < -0.5, rows[key]  # privately learnable: decays
    assert abs(rows["E6"]["fitted_slope"]) < 0.1  # not privately learnable: no decay
    assert rows["E6"]["excess_at_largest_n"] > 0.4
    for key in ("E2", "E3", "E4"):
        assert -1.3 < rows[key]["fitted_slope"] < -0.7


def test_rate_experiment(tmp_path):
    dest = run_experiment(RATE, out_dir=tmp_path, quick=True, seed=1, progress=False)
    t = Table.read_csv(dest / "rate.csv")
    eps = t.column("epsilon")
    n = t.column("n")
    ex = t.column("mean_excess")
    for e in set(eps):
        idx = [i for i, v in enumerate(eps) if v == e and n[i] >= 400] or [
            i for i, v in enumerate(eps) if v == e
        ]
        assert all(ex[i] <= t.column("per_dataset_bound")[i] for i in idx)
    big = [i for i, v in enumerate(eps) if v >= 1.0]
    slope = fit_slope([n[i] for i in big if eps[i] == 1.0], [ex[i] for i in big if eps[i] == 1.0])
    assert slope is not None and -1.25 < slope < -0.75
    # n * eps * excess near the Gibbs scale 2d = 4 where the grid is fine.
    assert all(2.0 < t.column("n_eps_excess")[i] < 8.0 for i in big)


def test_fit_slope():
    assert fit_slope([1, 10, 100], [1.0, 0.1, 0.01]) == pytest.approx(-1.0)
    assert fit_slope([1, 10], [0.0, 0.0]) is None
