"""The registry's door: a hook reference that does not resolve and a key registered by two
packages are errors naming both sides; a hook left at its default name is simply absent; a
run records the version of the environment package that ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers import environments
from security_verifiers.environments import EnvEntry
from security_verifiers.errors import UserError
from sv_shared.spec import EnvSpec

EXAMPLE = Path(__file__).resolve().parents[1] / "example_env"


def entry_with(spec: EnvSpec) -> EnvEntry:
    entry = EnvEntry(spec.key, spec.env_id)
    entry.__dict__["spec"] = spec  # the cached spec, as an entry point would load it
    return entry


@pytest.fixture
def example_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))


def test_a_misspelt_hook_names_the_hook_and_the_reference(example_path) -> None:
    misspelt = "sv_env_example_parity.spec:baseline_polices"
    entry = entry_with(EnvSpec("e8", "sv-env-example-parity", baseline_policies=misspelt))
    message = r"hook baseline_policies = '.*_polices' names nothing \('baseline_polices' is not"
    with pytest.raises(UserError, match=message):
        entry.hook("baseline_policies")
    no_module = "sv_env_example_parity.adaptr:adapt"
    wrong_module = entry_with(EnvSpec("e8", "sv-env-example-parity", data_adapter=no_module))
    with pytest.raises(UserError, match=r"hook data_adapter = .* names module '.*\.adaptr'"):
        wrong_module.hook("data_adapter")


def test_a_default_hook_the_module_lacks_is_no_hook(example_path) -> None:
    entry = entry_with(EnvSpec("e8", "sv-env-example-parity"))
    assert entry.hook("data_adapter") is None or callable(entry.hook("data_adapter"))
    assert entry.hook("probe_suite") is None  # not set at all


def test_the_same_key_from_two_packages_is_an_error_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    for name in ("sv_env_one", "sv_env_two"):
        dist = site / f"{name}-0.1.0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0.1.0\n"
        )
        (dist / "entry_points.txt").write_text(
            f"[security_verifiers.environments]\ne9 = {name}.spec:SPEC\n"
        )
    monkeypatch.syspath_prepend(str(site))
    environments.refresh()
    try:
        twice = r"key 'e9' is registered twice: by sv-env-\w+ \(sv_env_\w+\.spec:SPEC\) and by"
        with pytest.raises(UserError, match=twice):
            environments.resolve_env("e1")
    finally:
        monkeypatch.undo()
        environments.refresh()


def test_metadata_records_the_environment_package_that_ran(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from security_verifiers.cli import app

    result = CliRunner().invoke(app, ["eval", "e4", "--models", "heuristic", "-n", "2",
                                      "--output-dir", str(tmp_path), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    (meta_path,) = tmp_path.glob("*/*/metadata.json")
    packages = json.loads(meta_path.read_text())["packages"]
    assert packages.get("sv-env-phishing-detection") and "sv-env-network-logs" not in packages
