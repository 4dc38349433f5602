"""``privlearn audit`` (privlearn.cli) and the report writer (privlearn.audit._report).

The mechanisms live in a small module written to a temporary directory, imported by the
command from the current directory as ``python -m`` would. Each test module gets its own name,
so that Python's module cache never hands one test another test's module. Exit status: 0 when
the claim is not refuted, 1 when refuted, 2 on usage errors.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import privlearn
from privlearn.audit import audit
from privlearn.audit._neighbours import Domain, search_neighbours
from privlearn.audit._report import verdict_line, write_report
from privlearn.cli import main

MECHANISMS = '''
import numpy as np


def laplace_sum(data, rng, size):
    """Clipped sum of rows in [-1, 1] with Laplace noise of scale 2: 1-DP (replace-one)."""
    return np.clip(data, -1.0, 1.0).sum() + rng.laplace(0.0, 2.0, size=size)


def half_noise_sum(data, rng, size):
    return np.clip(data, -1.0, 1.0).sum() + rng.laplace(0.0, 1.0, size=size)


def one_at_a_time(data, rng):
    return float(np.clip(data, -1.0, 1.0).sum() + rng.laplace(0.0, 2.0))


def vector(data, rng, size):
    return data.sum() + rng.laplace(0.0, 2.0, size=(size, 2))


def first_column(outputs):
    return outputs[:, 0]


def crashes(data, rng, size):
    raise RuntimeError("boom")


class Holder:
    class Inner:
        mechanism = staticmethod(laplace_sum)


NOT_CALLABLE = 3
'''

_counter = itertools.count()


@pytest.fixture
def mod(tmp_path, monkeypatch):
    """The name of a fresh module of MECHANISMS in tmp_path, which is the current directory."""
    name = f"pl_cli_audit_mechs_{next(_counter)}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MECHANISMS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command may prepend the cwd
    yield name
    sys.modules.pop(name, None)


def _json(path):
    return json.loads((path / "audit.json").read_text())


def test_search_passes_writes_the_report(mod, tmp_path, capsys):
    out = tmp_path / "report"
    argv = ["audit", f"{mod}:laplace_sum", "--claim", "1", "--neighbours", "search",
            "--bounds=-1,1", "--rows", "5", "--n", "100000", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("not refuted: epsilon >= ")
    assert "worst of 9 replace-one pairs" in printed and str(out / "audit.md") in printed
    assert sorted(p.name for p in out.iterdir()) == ["audit.json", "audit.md"]
    doc = _json(out)
    assert doc["verdict"] == "passed" and doc["passed"] is True
    assert doc["privlearn_version"] == privlearn.__version__
    assert doc["command"].startswith(f"privlearn audit {mod}:laplace_sum --claim 1 ")
    assert doc["title"] == f"privlearn audit of {mod}:laplace_sum"
    result = doc["result"]
    assert result["claimed_epsilon"] == 1.0 and result["claimed_delta"] == 0.0
    assert result["n"] == 100_000 and result["alpha"] == 1e-3 and result["passed"] is True
    assert 0.5 < result["bound"] <= 1.0
    assert doc["notion"] == "replace-one" and len(doc["pilot"]) == 9
    assert doc["pair"] in [p["pair"] for p in doc["pilot"]]
    assert len(doc["data_a"]) == 5 and len(doc["data_a"][0]) == 1
    md = (out / "audit.md").read_text()
    lines = md.splitlines()
    assert lines[0] == f"# privlearn audit of {mod}:laplace_sum"
    assert lines[2].startswith("**The claim is not refuted.**")  # the verdict comes first
    for text in ("(confidence 1 - 0.001)", "epsilon = 1 (pure DP)", "| 100000 |",
                 "## Neighbours", "| pair | pilot bound |", "(chosen)", "No trade-off plot",
                 "finite family", doc["command"]):  # fmt: skip
        assert text in md, text


def test_explicit_neighbours_refuted(mod, tmp_path, capsys):
    out = tmp_path / "r"
    argv = ["audit", f"{mod}:half_noise_sum", "--claim", "1", "--neighbours", "[[-1.0],[0.0]]",
            "[[1.0],[0.0]]", "--n", "200000", "--alpha", "1e-6", "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    assert capsys.readouterr().out.startswith("REFUTED: epsilon >= ")
    doc = _json(out)
    assert doc["verdict"] == "refuted" and doc["passed"] is False
    assert doc["result"]["bound"] > 1.5 and doc["result"]["alpha"] == 1e-6
    assert "pair" not in doc
    md = (out / "audit.md").read_text()
    assert md.splitlines()[2].startswith("**The claim is refuted.**")
    assert "## Neighbours" not in md


def test_json_flag_prints_the_document(mod, tmp_path, capsys):
    out = tmp_path / "j"
    argv = ["audit", f"{mod}:one_at_a_time", "--claim", "1,1e-6", "--neighbours", "[[0.0]]",
            "[[1.0]]", "--n", "2000", "--out", str(out), "--json", "--seed", "7"]  # fmt: skip
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == _json(out)
    assert printed["result"]["claimed_delta"] == 1e-6 and printed["result"]["n"] == 2000


def test_statistic_dotted_attribute_and_add_remove(mod, tmp_path, capsys):
    argv = ["audit", f"{mod}:vector", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0],[0.0]]",
            "--notion", "add-remove", "--statistic", f"{mod}:first_column", "--n", "20000",
            "--out", str(tmp_path / "s")]  # fmt: skip
    assert main(argv) == 0
    argv = ["audit", f"{mod}:Holder.Inner.mechanism", "--claim", "1", "--neighbours", "search",
            "--bounds", "0,1", "--rows", "1", "--notion", "add-remove", "--n", "5000",
            "--pilot-n", "1000", "--out", str(tmp_path / "d")]  # fmt: skip
    assert main(argv) == 0
    doc = _json(tmp_path / "d")
    assert doc["notion"] == "add-remove"
    assert any(p["pair"].startswith("empty-vs-") for p in doc["pilot"])


def test_empty_dataset_from_the_command_line(mod, tmp_path):
    argv = ["audit", f"{mod}:laplace_sum", "--claim", "1", "--neighbours", "[]", "[[1.0]]",
            "--notion", "add-remove", "--n", "5000", "--out", str(tmp_path / "e")]  # fmt: skip
    assert main(argv) == 0
    argv[5:7] = ["[]", "[]"]
    assert main(argv) == 2


def test_same_seed_same_report(mod, tmp_path):
    base = ["audit", f"{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]",
            "--n", "5000"]  # fmt: skip
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert main([*base, "--out", str(tmp_path / "b")]) == 0
    a, b = _json(tmp_path / "a"), _json(tmp_path / "b")
    assert a["result"] == b["result"]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["{mod}:nope", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"],
         "MODULE:CALLABLE: module '{mod}' has no attribute 'nope'"),
        (["{mod}:Holder.Nope", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"], "'Nope'"),
        (["{mod}:NOT_CALLABLE", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"],
         "not callable"),
        (["no_such_module_xyz:f", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"],
         "cannot import module 'no_such_module_xyz'"),
        (["{mod}", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"],
         "expected MODULE:CALLABLE"),
        (["{mod}:laplace_sum", "--claim", "x", "--neighbours", "[[0.0]]", "[[1.0]]"], "--claim:"),
        (["{mod}:laplace_sum", "--claim", "1,2", "--neighbours", "[[0.0]]", "[[1.0]]"], "--claim:"),
        (["{mod}:laplace_sum", "--claim", "-1", "--neighbours", "[[0.0]]", "[[1.0]]"], "--claim:"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0"],
         "--neighbours: dataset B is not a Python literal"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[0.0]", "[1.0]"],
         "--neighbours: dataset A must be 2-D"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[['a']]", "[[1.0]]"],
         "--neighbours: dataset A must be a list of rows"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]"],
         "--neighbours: expected two datasets or 'search'"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0],[0.0]]", "[[1.0],[1.0]]"],
         "--neighbours: the datasets differs in more than one row"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]",
          "--notion", "add-remove"], "--neighbours:"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]",
          "--rows", "3"], "--rows: applies only with --neighbours search"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--rows", "3"],
         "--bounds: required"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--bounds", "0,1"],
         "--rows: required"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--bounds", "0;1",
          "--rows", "3"], "--bounds: expected LO,HI"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--bounds", "1,0",
          "--rows", "3"], "--bounds: must exceed lower"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--bounds", "0,1",
          "--rows", "0"], "--rows: must be"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "search", "--bounds", "0,1",
          "--rows", "3", "--columns", "0"], "--columns: must be >= 1"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]",
          "--n", "1"], "--n:"),
        (["{mod}:laplace_sum", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]",
          "--alpha", "2"], "--alpha:"),
        (["{mod}:crashes", "--claim", "1", "--neighbours", "[[0.0]]", "[[1.0]]"],
         "calling {mod}:crashes failed: RuntimeError: boom"),
    ],
)  # fmt: skip
def test_usage_errors_exit_2_naming_the_option(mod, tmp_path, capsys, args, expected):
    out = tmp_path / "never"
    argv = ["audit", *(a.format(mod=mod) for a in args), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("privlearn audit: "), err
    assert expected.format(mod=mod) in err, err
    assert not out.exists()  # nothing is written on a usage error


@pytest.mark.parametrize(
    "args",
    [
        ["m:f", "--neighbours", "search"],  # no --claim
        ["m:f", "--claim", "1"],  # no --neighbours
        ["m:f", "--claim", "1", "--neighbours", "search", "--notion", "swap"],
        ["m:f", "--claim", "1", "--neighbours", "search", "--rows", "many"],
    ],
)
def test_argparse_usage_errors_exit_2(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(["audit", *args])
    assert info.value.code == 2


def test_help_documents_the_calling_convention(capsys):
    with pytest.raises(SystemExit) as info:
        main(["audit", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in ("CALLABLE(data, rng)", "size=size", "numpy.random.Generator", "--neighbours",
                 "--bounds", "--claim", "gdp:MU", "--statistic", "Exit status", "--json"):  # fmt: skip
        assert text in out, text


# --------------------------------------------------------------------------------------------
# The report writer
# --------------------------------------------------------------------------------------------


def _laplace(center, scale=1.0):
    return lambda g, size: center + g.laplace(0.0, scale, size=size)


def test_report_is_atomic_on_failure(tmp_path, monkeypatch):
    from privlearn.audit import _report

    res = audit(_laplace(0.0), _laplace(1.0), 1.0, n=2_000, rng=0)

    def broken(*args, **kwargs):
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(_report, "_markdown", broken)
    with pytest.raises(RuntimeError):
        write_report(res, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_report_replaces_a_previous_one(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "tradeoff.png").write_bytes(b"stale")
    res = audit(_laplace(0.0), _laplace(3.0), 1.0, n=2_000, rng=0)
    paths = write_report(res, out, title="T", command="cmd")
    assert set(paths) == {"json", "markdown"}
    assert sorted(p.name for p in out.iterdir()) == ["audit.json", "audit.md"]  # no temp files
    doc = _json(out)
    assert doc["title"] == "T" and doc["command"] == "cmd" and doc["verdict"] == "refuted"
    assert (out / "audit.md").read_text().startswith("# T\n")
    assert verdict_line(res).startswith("REFUTED: epsilon >= ")


def test_report_refuses_other_objects(tmp_path):
    from privlearn.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError) as info:
        write_report({"bound": 1.0}, tmp_path)
    assert info.value.parameter == "result"
    assert not any(tmp_path.iterdir())


def test_report_of_a_search_lists_the_pilot(tmp_path):
    def mech(data, rng, size):
        return data.sum() + rng.laplace(0.0, 1.0, size=size)

    found = search_neighbours(mech, Domain(0.0, 1.0, rows=3), 1.0, n=5_000, pilot_n=1_000, rng=0)
    write_report(found, tmp_path)
    md = (tmp_path / "audit.md").read_text()
    for name, _ in found.pilot:
        assert f"| {name}" in md
    doc = _json(tmp_path)
    assert [p["pair"] for p in doc["pilot"]] == [name for name, _ in found.pilot]
    assert doc["data_b"] == np.asarray(found.data_b).tolist()


def _has_tradeoff():
    from privlearn.audit import AuditResult

    return "tradeoff" in getattr(AuditResult, "__dataclass_fields__", {})


@pytest.mark.skipif(not _has_tradeoff(), reason="audit(method='tradeoff') not available yet")
def test_tradeoff_report_draws_the_plot(tmp_path):
    pytest.importorskip("matplotlib")
    res = audit(_laplace(0.0), _laplace(1.0), 1.0, n=5_000, rng=0, method="tradeoff")
    assert res.tradeoff is not None
    paths = write_report(res, tmp_path)
    assert paths["plot"] == tmp_path / "tradeoff.png"
    assert (tmp_path / "tradeoff.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![trade-off curve](tradeoff.png)" in (tmp_path / "audit.md").read_text()
    json.dumps(_json(tmp_path), allow_nan=False)


@pytest.mark.skipif(not _has_tradeoff(), reason="GaussianDP claims not available yet")
def test_gdp_claim_from_the_command_line(mod, tmp_path, capsys):
    out = tmp_path / "g"
    argv = ["audit", f"{mod}:laplace_sum", "--claim", "gdp:1", "--neighbours", "[[0.0]]",
            "[[1.0]]", "--n", "20000", "--out", str(out)]  # fmt: skip
    code = main(argv)
    assert code in (0, 1)
    doc = _json(out)
    assert doc["result"]["claimed_mu"] == 1.0
    assert doc["result"]["claimed_epsilon"] in (None, "inf")  # strict JSON has no infinities
    assert "mu = 1 (Gaussian DP)" in (out / "audit.md").read_text()


def test_end_to_end_python_m_privlearn_audit(tmp_path):
    (tmp_path / "e2e_mech.py").write_text(textwrap.dedent(MECHANISMS))
    cmd = [sys.executable, "-m", "privlearn", "audit", "e2e_mech:half_noise_sum", "--claim", "1",
           "--neighbours", "search", "--bounds=-1,1", "--rows", "4", "--n", "100000",
           "--alpha", "1e-6", "--out", "rep"]  # fmt: skip
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("REFUTED: epsilon >= ")
    doc = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert doc["verdict"] == "refuted" and doc["result"]["alpha"] == 1e-6
    assert (tmp_path / "rep" / "audit.md").exists()


def test_cli_choices_are_the_library_s():
    """The command's --method and --distinguisher choices are written out in cli.py (so that
    ``privlearn --help`` does not import scikit-learn); they must stay the library's."""
    from privlearn.audit._audit import _METHODS
    from privlearn.audit._distinguisher import KINDS
    from privlearn.cli import _build_parser

    sub = next(a for a in _build_parser()._actions if a.dest == "command").choices["audit"]
    choices = {a.dest: tuple(a.choices) for a in sub._actions if a.choices}
    assert choices["method"] == _METHODS
    assert choices["distinguisher"] == KINDS
