"""privlearn.experiments: registry, tables, parallel trials, report writing, and the warfarin
exponential-mechanism experiment's numbers."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import privlearn
from privlearn.errors import InvalidParameterError
from privlearn.experiments import (
    ExperimentResult,
    RunConfig,
    Table,
    _framework,
    get_experiment,
    list_experiments,
    register,
    run_all,
    run_experiment,
    run_trials,
    warfarin_em,
)
from privlearn.random import Generator

WARFARIN = "warfarin-exponential-mechanism"


@pytest.fixture
def empty_registry(monkeypatch):
    """A private registry for tests that register throwaway experiments."""
    registry: dict = {}
    monkeypatch.setattr(_framework, "_REGISTRY", registry)
    return registry


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


def test_builtin_experiment_is_registered():
    names = [e.name for e in list_experiments()]
    assert WARFARIN in names
    exp = get_experiment(WARFARIN)
    assert exp.title and exp.paper and exp.description
    assert exp.run is warfarin_em.run


def test_register_and_duplicate(empty_registry):
    @register("toy-one", title="Toy", paper="None", description="d")
    def run(config):
        return ExperimentResult()

    assert [e.name for e in list_experiments()] == ["toy-one"]
    assert get_experiment("toy-one").run is run

    def other(config):
        return ExperimentResult()

    with pytest.raises(InvalidParameterError, match="already registered") as info:
        register("toy-one", title="Again", paper="None", description="d")(other)
    assert info.value.parameter == "name"
    assert get_experiment("toy-one").run is run


@pytest.mark.parametrize("bad", ["Toy", "toy_one", "toy-", "-toy", "toy--one", "", "toy one"])
def test_register_rejects_bad_names(empty_registry, bad):
    with pytest.raises(InvalidParameterError, match="^name:"):
        register(bad, title="t", paper="p", description="d")


def test_unknown_experiment_lists_known_names():
    with pytest.raises(InvalidParameterError, match=WARFARIN) as info:
        get_experiment("no-such-experiment")
    assert str(info.value).startswith("name:")
    assert "no-such-experiment" in str(info.value)


def test_run_config_validation():
    assert RunConfig() == RunConfig(quick=False, seed=0, n_jobs=1, progress=True)
    with pytest.raises(InvalidParameterError, match="^n_jobs:"):
        RunConfig(n_jobs=0)
    with pytest.raises(InvalidParameterError, match="^seed:"):
        RunConfig(seed=-1)
    with pytest.raises(InvalidParameterError, match="^seed:"):
        RunConfig(seed=2**64)
    assert RunConfig(seed=None).seed is None


# --------------------------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------------------------


def test_table_markdown_formats_numbers():
    t = Table(["name", "count", "value"], [["a|b", 4819, 0.123456789], ["c", np.int64(3), 1e-7]])
    md = t.to_markdown().splitlines()
    assert md[0] == "| name | count | value |"
    assert md[1] == "|---|---:|---:|"
    assert md[2] == "| a\\|b | 4819 | 0.1235 |"
    assert md[3] == "| c | 3 | 1e-07 |"


def test_table_csv_round_trip(tmp_path):
    values = [
        [0.001, 1 / 3, 4819, "x,y", True, None],
        [2.0, math.pi * 1e-9, -1, "plain", False, float("inf")],
    ]
    t = Table(["eps", "err", "n", "label", "flag", "maybe"], values)
    path = tmp_path / "t.csv"
    t.to_csv(path)
    back = Table.read_csv(path)
    assert back == t
    assert back.column("err")[0] == 1 / 3  # full precision, not 4 digits
    assert back.column("n") == [4819, -1]


def test_table_numpy_scalars_are_plain(tmp_path):
    t = Table(["x"], [[np.float64(0.5)], [np.int32(2)], [np.bool_(True)]])
    assert [type(v) for v in t.column("x")] == [float, int, bool]


def test_table_rejects_wrong_row_length():
    t = Table(["a", "b"])
    with pytest.raises(InvalidParameterError, match="^row:"):
        t.add_row([1])
    with pytest.raises(InvalidParameterError, match="^columns:"):
        Table(["a", "a"])


# --------------------------------------------------------------------------------------------
# run_trials
# --------------------------------------------------------------------------------------------


def _trial(task, seed):
    """Module-level (picklable): a few draws that depend on the task and its seed."""
    gen = Generator(seed)
    return (task, [int(v) for v in gen.random_raw(3)])


def test_run_trials_reproducible_and_ordered():
    tasks = list(range(7))
    first = run_trials(_trial, tasks, seed=123, n_jobs=1, progress=False)
    again = run_trials(_trial, tasks, seed=123, n_jobs=1, progress=False)
    assert first == again
    assert [t for t, _ in first] == tasks
    # Every task gets its own stream.
    assert len({tuple(draws) for _, draws in first}) == len(tasks)
    other = run_trials(_trial, tasks, seed=124, n_jobs=1, progress=False)
    assert other != first


def test_run_trials_independent_of_n_jobs():
    tasks = [f"task-{i}" for i in range(9)]
    one = run_trials(_trial, tasks, seed=7, n_jobs=1, progress=False)
    two = run_trials(_trial, tasks, seed=7, n_jobs=2, progress=False)
    assert one == two


def test_run_trials_exponential_draws_independent_of_n_jobs():
    scores = np.array([0, -1, -2, -3, -5, -8], dtype=np.int64)
    tasks = [warfarin_em._DrawTask("a", eps, scores, 1, 25) for eps in (0.1, 1.0, 3.0)]
    one = run_trials(warfarin_em._draw_task, tasks, seed=5, n_jobs=1, progress=False)
    two = run_trials(warfarin_em._draw_task, tasks, seed=5, n_jobs=2, progress=False)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    assert np.mean(one[2] == 0) > np.mean(one[0] == 0)  # sharper at larger epsilon


def test_run_trials_empty_and_bad_n_jobs():
    assert run_trials(_trial, [], seed=0, progress=False) == []
    with pytest.raises(InvalidParameterError, match="^n_jobs:"):
        run_trials(_trial, [1], seed=0, n_jobs=0, progress=False)


def test_run_trials_progress_bar_on_stderr(capsys):
    run_trials(_trial, [1, 2], seed=0, desc="toy-bar", progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "toy-bar" in captured.err


# --------------------------------------------------------------------------------------------
# run_experiment / run_all with throwaway experiments
# --------------------------------------------------------------------------------------------


def _draw_line(path: Path) -> None:
    from privlearn.experiments import new_figure

    fig = new_figure(figsize=(2, 2))
    fig.subplots().plot([1, 2], [2, 1])
    fig.savefig(path)


def _register_toy(seen_configs=None):
    @register("toy-exp", title="A toy", paper="Nobody 2024", description="Toy description.")
    def run(config):
        if seen_configs is not None:
            seen_configs.append(config)
        table = Table(["epsilon", "error"], [[0.5, 0.25], [1.0, 0.125]])
        return ExperimentResult(
            tables={"errors": table}, figures={"curve": _draw_line}, notes=["slope -1"]
        )

    return run


def test_run_experiment_writes_report(empty_registry, tmp_path):
    seen = []
    _register_toy(seen)
    dest = run_experiment("toy-exp", out_dir=tmp_path, quick=True, seed=9, progress=False)
    assert dest == tmp_path / "toy-exp"
    assert seen == [RunConfig(quick=True, seed=9, n_jobs=1, progress=False)]
    assert sorted(p.name for p in dest.iterdir()) == [
        "curve.png",
        "errors.csv",
        "meta.json",
        "toy-exp.md",
    ]
    assert (dest / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (dest / "toy-exp.md").read_text()
    for needle in (
        "# A toy",
        "Nobody 2024",
        "Toy description.",
        "seed: 9",
        "mode: quick",
        "| epsilon | error |",
        "slope -1",
        "![curve](curve.png)",
    ):
        assert needle in md, needle
    meta = json.loads((dest / "meta.json").read_text())
    assert meta["name"] == "toy-exp" and meta["seed"] == 9 and meta["quick"] is True
    assert meta["n_jobs"] == 1 and meta["privlearn_version"] == privlearn.__version__
    assert meta["tables"] == ["errors.csv"] and meta["figures"] == ["curve.png"]
    assert meta["runtime_seconds"] >= 0 and "T" in meta["start_time"]
    assert Table.read_csv(dest / "errors.csv").column("error") == [0.25, 0.125]


def test_failed_run_leaves_no_meta(empty_registry, tmp_path):
    @register("toy-fail", title="t", paper="p", description="d")
    def run(config):
        raise RuntimeError("boom")

    dest = tmp_path / "toy-fail"
    dest.mkdir()
    (dest / "meta.json").write_text('{"stale": true}')
    with pytest.raises(RuntimeError, match="boom"):
        run_experiment("toy-fail", out_dir=tmp_path, progress=False)
    assert not (dest / "meta.json").exists()


def test_failing_figure_leaves_no_meta(empty_registry, tmp_path):
    def bad_figure(path):
        raise RuntimeError("plot failed")

    @register("toy-badfig", title="t", paper="p", description="d")
    def run(config):
        return ExperimentResult(tables={"t": Table(["a"], [[1]])}, figures={"f": bad_figure})

    with pytest.raises(RuntimeError, match="plot failed"):
        run_experiment("toy-badfig", out_dir=tmp_path, progress=False)
    assert not (tmp_path / "toy-badfig" / "meta.json").exists()


def test_without_matplotlib_tables_still_written(empty_registry, tmp_path, monkeypatch, capsys):
    _register_toy()
    monkeypatch.setattr(_framework, "_matplotlib_available", lambda: False)
    monkeypatch.setattr(_framework, "_warned_no_matplotlib", False)
    dest = run_experiment("toy-exp", out_dir=tmp_path, progress=False)
    assert (dest / "errors.csv").exists() and (dest / "meta.json").exists()
    assert not (dest / "curve.png").exists()
    assert "install privlearn[plot] for plots" in capsys.readouterr().err
    assert "install privlearn[plot]" in (dest / "toy-exp.md").read_text()
    assert json.loads((dest / "meta.json").read_text())["figures"] == []


def test_run_experiment_validates_before_running(empty_registry, tmp_path):
    seen = []
    _register_toy(seen)
    with pytest.raises(InvalidParameterError, match="^n_jobs:"):
        run_experiment("toy-exp", out_dir=tmp_path, n_jobs=0)
    with pytest.raises(InvalidParameterError, match="^name:"):
        run_experiment("nope", out_dir=tmp_path)
    assert seen == [] and not (tmp_path / "nope").exists()


def test_bad_table_name_is_rejected(empty_registry, tmp_path):
    @register("toy-badname", title="t", paper="p", description="d")
    def run(config):
        return ExperimentResult(tables={"../escape": Table(["a"], [[1]])})

    with pytest.raises(InvalidParameterError, match="^tables:"):
        run_experiment("toy-badname", out_dir=tmp_path, progress=False)


def test_run_all_writes_index(empty_registry, tmp_path):
    _register_toy()

    @register("toy-two", title="Second toy", paper="P2", description="d")
    def run2(config):
        return ExperimentResult(tables={"t": Table(["seed"], [[config.seed]])})

    index = run_all(out_dir=tmp_path, seed=None, progress=False)
    assert index == tmp_path / "index.md"
    text = index.read_text()
    assert "[toy-exp](toy-exp/toy-exp.md)" in text
    assert "[toy-two](toy-two/toy-two.md)" in text
    assert "Second toy" in text
    assert (tmp_path / "toy-two" / "meta.json").exists()
    assert Table.read_csv(tmp_path / "toy-two" / "t.csv").column("seed") == [None]


# --------------------------------------------------------------------------------------------
# The warfarin exponential-mechanism experiment
# --------------------------------------------------------------------------------------------


def test_median_utilities_brute_force_and_sensitivity():
    rng = np.random.default_rng(0)
    y = np.round(rng.normal(size=101), 1)  # ties, like the real data
    grid = np.linspace(-4, 10, 141)
    u = warfarin_em.median_utilities(y, grid)
    assert u.dtype == np.int64
    brute = np.array([-abs(2 * int(np.sum(y <= c)) - y.size) for c in grid])
    np.testing.assert_array_equal(u, brute)
    for _ in range(200):  # replacing one record moves every utility by at most 2
        y2 = y.copy()
        y2[rng.integers(y.size)] = rng.choice([-5.0, 0.0, 12.0, rng.normal()])
        assert np.max(np.abs(warfarin_em.median_utilities(y2, grid) - u)) <= 2


def test_threshold_mistakes_brute_force():
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(60, 2)), 1)
    z = rng.random(60) < 0.4
    grid = np.linspace(-3, 3, 13)
    mistakes, hyps = warfarin_em.threshold_mistakes(X, z, grid)
    assert mistakes.shape == (2 * 2 * 13,) and len(hyps) == mistakes.size
    for m, (j, orient, thr) in zip(mistakes, hyps):
        pred = X[:, j] > thr if orient == ">" else X[:, j] <= thr
        assert m == np.sum(pred != z)


def test_fit_slope_recovers_rate():
    eps = np.array([0.001, 0.01, 0.1, 1.0, 10.0])
    floor, uniform = 0.01, 0.5
    mean = np.minimum(uniform, floor + 0.002 / eps)
    slope, used = warfarin_em._fit_slope(eps, mean, floor, uniform)
    assert slope == pytest.approx(-1.0)
    np.testing.assert_array_equal(used, [0.01, 0.1])


@pytest.fixture(scope="module")
def warfarin_quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    dest = run_experiment(WARFARIN, out_dir=out, quick=True, seed=0, progress=False)
    return dest


def test_warfarin_quick_writes_every_file(warfarin_quick):
    dest = warfarin_quick
    names = sorted(p.name for p in dest.iterdir())
    assert names == sorted(
        [
            f"{WARFARIN}.md",
            "meta.json",
            "a-median-dose.csv",
            "a-median-dose.png",
            "b-threshold-classifier.csv",
            "b-threshold-classifier.png",
        ]
    )
    meta = json.loads((dest / "meta.json").read_text())
    assert meta["quick"] is True and meta["seed"] == 0
    assert meta["tables"] == ["a-median-dose.csv", "b-threshold-classifier.csv"]
    assert meta["figures"] == ["a-median-dose.png", "b-threshold-classifier.png"]
    for png in meta["figures"]:
        assert (dest / png).stat().st_size > 10_000
    md = (dest / f"{WARFARIN}.md").read_text()
    assert "![a-median-dose](a-median-dose.png)" in md
    assert "### b-threshold-classifier" in md


def test_warfarin_quick_numbers_are_sane(warfarin_quick):
    a = Table.read_csv(warfarin_quick / "a-median-dose.csv")
    b = Table.read_csv(warfarin_quick / "b-threshold-classifier.csv")
    eps = a.column("epsilon")
    assert eps == list(warfarin_em.EPSILONS) and b.column("epsilon") == eps

    y = privlearn.datasets.load_warfarin().y
    n = y.size
    grid = warfarin_em.MEDIAN_GRID
    rank_floor = min(abs(np.sum(y <= c) / n - 0.5) for c in grid)

    rank = np.array(a.column("mean_rank_error"))
    dose = np.array(a.column("mean_abs_dose_error"))
    excess = np.array(b.column("mean_excess_error"))
    # Errors fall from the smallest to the largest epsilon, by a lot.
    assert rank[-1] < rank[0] / 10
    assert dose[-1] < dose[0] / 100
    assert excess[-1] < excess[0] / 100
    # Mean (and 90% quantile) within the 90% utility bound at every epsilon.
    for table, col in ((a, "mean_rank_error"), (b, "mean_excess_error")):
        bound = np.array(table.column("theory_bound_90"))
        assert np.all(np.array(table.column(col)) <= bound)
        assert np.all(np.array(table.column("coverage")) >= 0.8)
    # The bound is the formula, not a copy of the data.
    expected = np.minimum(
        0.5, rank_floor + 2 * (math.log(1401) + math.log(10)) / (np.array(eps) * n)
    )
    np.testing.assert_allclose(a.column("theory_bound_90"), expected, rtol=1e-12)
    # At epsilon = 2 the private median is essentially the non-private one.
    assert dose[-1] < 0.05
    assert rank[-1] < rank_floor + 0.005
    assert excess[-1] < 5 / n
    # Rank errors can never beat the best candidate.
    assert np.all(rank >= rank_floor - 1e-12)


def test_warfarin_quick_slopes_near_minus_one(warfarin_quick):
    md = (warfarin_quick / f"{WARFARIN}.md").read_text()
    slopes = dict(
        re.findall(
            r"- \((a\) rank|b\) excess) error: fitted log-log slope .*? = "
            r"(-?\d+\.\d+)",
            md,
        )
    )
    assert set(slopes) == {"a) rank", "b) excess"}
    for value in slopes.values():
        assert -1.6 < float(value) < -0.7
