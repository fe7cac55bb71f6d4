"""`sv new-env NAME`: a package made from the template is found and handled by every harness
command with no edit, inside it or outside it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from security_verifiers import environments
from security_verifiers.errors import UserError
from security_verifiers.new_env import create, next_key

RUNNER = CliRunner()
pytestmark = pytest.mark.usefixtures("no_api_keys")


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`sv new-env demo-check --key e9`, made visible like an installed package (a dist-info
    with its pyproject's entry point on sys.path; no pip install into the shared venv)."""
    from security_verifiers.cli import app

    result = RUNNER.invoke(app, ["new-env", "demo-check", "--key", "e9", "--dest", str(tmp_path)])
    assert result.exit_code == 0, result.output
    package = tmp_path / "sv-env-demo-check"
    project = tomllib.loads((package / "pyproject.toml").read_text())
    [(key, ref)] = project["project"]["entry-points"]["security_verifiers.environments"].items()
    dist = tmp_path / "site" / "sv_env_demo_check-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['project']['name']}\nVersion: 0.1.0\n"
    )
    (dist / "entry_points.txt").write_text(f"[security_verifiers.environments]\n{key} = {ref}\n")
    monkeypatch.syspath_prepend(str(package))
    monkeypatch.syspath_prepend(str(dist.parent))
    environments.refresh()
    yield package
    environments.refresh()
    for name in [m for m in sys.modules if m.startswith("sv_env_demo_check")]:
        del sys.modules[name]


def test_the_copy_has_its_own_names(made: Path) -> None:
    assert (made / "sv_env_demo_check" / "spec.py").is_file()
    text = "\n".join(p.read_text() for p in made.rglob("*") if p.suffix in (".py", ".toml"))
    assert "example_parity" not in text and "example-parity" not in text
    entry = environments.resolve_env("e9")
    assert entry.env_id == "sv-env-demo-check"
    assert environments.resolve_env("demo-check") == entry
    assert entry.spec.aliases == ()


def test_every_command_handles_it_unedited(made: Path, tmp_path: Path) -> None:
    from security_verifiers.cli import app
    from security_verifiers.gate import golden

    assert "e9\tsv-env-demo-check" in RUNNER.invoke(app, ["envs"]).output
    assert "max_examples: int = -1" in RUNNER.invoke(app, ["envs", "e9", "--args"]).output
    probe = RUNNER.invoke(app, ["probe", "e9"])
    assert probe.exit_code == 0, probe.output
    runs = tmp_path / "runs"
    result = RUNNER.invoke(
        app,
        ["eval", "e9", "-m", "always-even,compute", "-n", "8", "--output-dir", str(runs),
         "--no-cache", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    means = {
        p.parent.parent.name: json.loads(p.read_text())["metrics"]["accuracy"]
        for p in runs.glob("*/*/summary.json")
    }
    assert means == {"sv-env-demo-check--always-even": 0.5, "sv-env-demo-check--compute": 1.0}
    report = RUNNER.invoke(app, ["report", str(runs), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    [spec] = [s for s in golden.golden_specs() if s.env == "e9"]
    golden.write_golden([spec], tmp_path / "golden")
    assert all(r.passed for r in golden.check_golden(tmp_path / "golden", ["e9"]))


def test_the_copy_builds_as_a_package_with_its_entry_point(made: Path, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheels), str(made)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [wheel] = wheels.glob("sv_env_demo_check-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [points] = [n for n in names if n.endswith("entry_points.txt")]
        assert "e9 = sv_env_demo_check.spec:SPEC" in archive.read(points).decode()
    assert "sv_env_demo_check/environment.py" in names


def test_bad_names_and_keys_are_one_line(tmp_path: Path) -> None:
    for name, key, message in [
        ("Demo_Check", None, "lower-case letters"),
        ("demo", "x9", "expected e<number>"),
        ("demo", "e1", "already used by sv-env-network-logs"),
    ]:
        with pytest.raises(UserError, match=message):
            create(name, tmp_path, key)
    create("twice", tmp_path, "e9")
    with pytest.raises(UserError, match="already exists"):
        create("twice", tmp_path, "e10")
    assert next_key() == "e7"  # one past the six shipped environments
