"""The papers' experiments: a registry, a parallel trial runner and a report writer.

Run them from the command line (``privlearn reproduce --list``, ``privlearn reproduce NAME``) or
from Python::

    from privlearn.experiments import run_experiment
    run_experiment("warfarin-exponential-mechanism", out_dir="results", quick=True)

Each run writes ``<out_dir>/<name>/`` with a Markdown report, one CSV per table, one PNG per
figure (when matplotlib is installed: ``pip install privlearn[plot]``) and ``meta.json``.

Reproducibility and privacy
---------------------------
Experiments default to ``seed=0``, so a run is reproducible bit for bit, and independent of
``n_jobs``: repetitions get their seeds from :func:`privlearn.random.spawn_seeds` in task order.
A seeded run *measures* the mechanisms' accuracy; it is not itself private, since a known seed
voids every privacy guarantee. Pass ``seed=None`` (``--seed none``) to draw from OS entropy.

Writing an experiment
---------------------
One module per paper or topic in this package, listed in ``_EXPERIMENT_MODULES`` below; importing
:mod:`privlearn.experiments` imports them, which registers them::

    import numpy as np
    from privlearn.experiments import ExperimentResult, RunConfig, Table, register, run_trials
    from privlearn.random import Generator

    def _trial(eps, seed):                       # module level: picklable for joblib workers
        rng = Generator(seed)                    # all randomness from the task's seed
        return ...

    @register("my-topic-thing", title="...", paper="...", description="...")
    def run(config: RunConfig) -> ExperimentResult:
        reps = 20 if config.quick else 200
        out = run_trials(_trial, [0.1, 1.0], seed=config.seed, n_jobs=config.n_jobs,
                         desc="my-topic-thing", progress=config.progress)
        table = Table(["epsilon", "mean_error"], [[0.1, out[0]], [1.0, out[1]]])
        return ExperimentResult(tables={"errors": table}, figures={}, notes=["..."])

Figures are callables ``draw(path)`` that import matplotlib inside (use :func:`new_figure` for
an Agg figure) so that tables are written even without matplotlib.
"""

from __future__ import annotations

import importlib

from ._framework import (
    Experiment,
    ExperimentResult,
    RunConfig,
    Table,
    get_experiment,
    list_experiments,
    new_figure,
    register,
    run_all,
    run_experiment,
    run_trials,
)

__all__ = [
    "Experiment",
    "ExperimentResult",
    "RunConfig",
    "Table",
    "get_experiment",
    "list_experiments",
    "new_figure",
    "register",
    "run_all",
    "run_experiment",
    "run_trials",
]

# Experiment modules, in the order `privlearn reproduce` runs them. Importing one registers it.
_EXPERIMENT_MODULES = (
    "warfarin_em",
    "fingerprinting",
    "wu_regression",
    "prediction",
    "multi_learning",
    "query_release",
    "erm_learnability",
    "practical_regression",
    "audit_peers",
    "private_pipelines",
)

for _module in _EXPERIMENT_MODULES:
    importlib.import_module(f"{__name__}.{_module}")
del _module
