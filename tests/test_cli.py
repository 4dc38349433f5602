"""The privlearn command line (privlearn.cli.main and python -m privlearn)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import privlearn
from privlearn.cli import main
from privlearn.experiments import ExperimentResult, Table, _framework, register

WARFARIN = "warfarin-exponential-mechanism"


def _exit_code(argv) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return info.value.code


def test_help(capsys):
    assert _exit_code(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: privlearn" in out and "reproduce" in out


def test_reproduce_help(capsys):
    assert _exit_code(["reproduce", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--list", "--quick", "--out", "--seed", "--n-jobs", "--no-progress"):
        assert option in out, option


def test_version(capsys):
    assert _exit_code(["--version"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"privlearn {privlearn.__version__}"  # scripts read the first line
    assert len(lines) == 2
    build = lines[1]
    assert build.startswith(f"compiled core: {privlearn._core.build_profile} build")
    assert ("with test hooks" in build) == hasattr(privlearn._core, "_panic_for_tests")
    assert build.endswith(
        f"Python {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    )


def test_version_from_the_installed_command():
    out = subprocess.run(
        [sys.executable, "-m", "privlearn", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[0] == f"privlearn {privlearn.__version__}"
    assert privlearn.__version__ == privlearn._core.__version__


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "usage: privlearn" in capsys.readouterr().err


def test_list(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert WARFARIN in out
    assert "McSherry and Talwar" in out


def test_list_via_python_m():
    proc = subprocess.run(
        [sys.executable, "-m", "privlearn", "reproduce", "--list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert WARFARIN in proc.stdout


def test_unknown_experiment_exits_2(tmp_path, capsys):
    assert main(["reproduce", "no-such-thing", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no-such-thing" in err and WARFARIN in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args", [["--seed", "-1"], ["--seed", "abc"], ["--n-jobs", "0"], ["--n-jobs", "x"]]
)
def test_bad_options_exit_2(args, capsys):
    assert _exit_code(["reproduce", WARFARIN, *args]) == 2
    assert "usage:" in capsys.readouterr().err


def test_reproduce_one_quick(tmp_path, capsys):
    out = tmp_path / "res"
    code = main(
        ["reproduce", WARFARIN, "--quick", "--out", str(out), "--no-progress", "--seed", "3"]
    )
    assert code == 0
    dest = out / WARFARIN
    assert str(dest) in capsys.readouterr().out
    for name in (
        f"{WARFARIN}.md",
        "meta.json",
        "a-median-dose.csv",
        "a-median-dose.png",
        "b-threshold-classifier.csv",
        "b-threshold-classifier.png",
    ):
        assert (dest / name).exists(), name
    meta = json.loads((dest / "meta.json").read_text())
    assert meta["seed"] == 3 and meta["quick"] is True
    assert not (out / "index.md").exists()  # named runs write no index


def test_reproduce_all_uses_run_all(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_framework, "_REGISTRY", {})

    @register("toy-cli", title="Toy", paper="P", description="d")
    def run(config):
        return ExperimentResult(
            tables={"t": Table(["seed", "quick"], [[config.seed, config.quick]])}
        )

    assert main(["reproduce", "--out", str(tmp_path), "--seed", "none", "--no-progress"]) == 0
    assert "index.md" in capsys.readouterr().out
    assert "[toy-cli](toy-cli/toy-cli.md)" in (tmp_path / "index.md").read_text()
    meta = json.loads((tmp_path / "toy-cli" / "meta.json").read_text())
    assert meta["seed"] is None and meta["quick"] is False
