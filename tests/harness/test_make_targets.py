"""`make eval-eN`: INCLUDE_TOOLS reaches the environments with tools (E2, E3, E4) and is refused
in one line on the others (E1, E5, E6), never ignored."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


def make(*args: str, dry_run: bool = True) -> subprocess.CompletedProcess:
    flags = ["-n"] if dry_run else []
    return subprocess.run(
        ["make", "--no-print-directory", *flags, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize("target", ["eval-e1", "eval-e5", "eval-e6"])
@pytest.mark.parametrize("value", ["true", "1"])
def test_include_tools_is_refused_where_there_are_no_tools(target: str, value: str) -> None:
    result = make(target, f"INCLUDE_TOOLS={value}", "MODELS=heuristic")
    assert result.returncode == 2
    assert result.stdout == ""  # nothing would have run
    [line] = result.stderr.strip().splitlines()
    env = target.removeprefix("eval-").upper()
    assert f"INCLUDE_TOOLS={value}: {env} has no tools" in line
    assert "E2, E3 and E4" in line


@pytest.mark.parametrize("target", ["eval-e1", "eval-e5", "eval-e6"])
@pytest.mark.parametrize("setting", [[], ["INCLUDE_TOOLS=false"]])
def test_no_tools_targets_run_without_it(target: str, setting: list[str]) -> None:
    result = make(target, *setting, "MODELS=heuristic")
    assert result.returncode == 0, result.stderr
    assert "sv eval" in result.stdout and "include_tools" not in result.stdout


@pytest.mark.parametrize("target", ["eval-e2", "eval-e3", "eval-e4"])
def test_tool_environments_get_the_flag(target: str) -> None:
    result = make(target, "INCLUDE_TOOLS=true", "MODELS=heuristic")
    assert result.returncode == 0, result.stderr
    assert "--env-arg include_tools=true" in result.stdout


def test_the_generic_target_passes_it_on_for_sv_to_check() -> None:
    result = make("eval-e7", "INCLUDE_TOOLS=true")
    assert result.returncode == 0, result.stderr
    assert "--env-arg include_tools=true" in result.stdout
    assert "include_tools" not in make("eval-e7").stdout


def test_the_real_make_refuses_before_loading_anything(tmp_path: Path) -> None:
    result = make(
        "eval-e5", "INCLUDE_TOOLS=true", "MODELS=direct-request", "N=1",
        f"ARGS=--output-dir {tmp_path} --quiet", dry_run=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "E5 has no tools" in result.stderr and not list(tmp_path.iterdir())
