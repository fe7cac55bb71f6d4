"""`sv probe`: table output, JSON report, exit status, clear errors."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from security_verifiers import probe_command
from security_verifiers.cli import app
from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError
from sv_shared.probes import Probe, ProbeSuite

RUNNER = CliRunner()


def toy_suite(hack_pays: bool) -> ProbeSuite:
    episodes = [{"answer": "a"}, {"answer": "b"}]
    return ProbeSuite(
        env="toy",
        episodes=lambda limit, seed: episodes[:limit],
        reference=lambda info: info["answer"],
        reward=lambda text, info: float(text == info["answer"]),
        min_reward=0.0,
        max_reward=1.0,
        probes=(Probe("always-a", lambda info: "a" if hack_pays else "z", "label must match"),),
    )


@pytest.mark.parametrize("hack_pays, code", [(False, 0), (True, 1)])
def test_probe_exit_status_and_json(monkeypatch, tmp_path, hack_pays, code) -> None:
    monkeypatch.setattr(probe_command, "load_suite", lambda entry, name=None: toy_suite(hack_pays))
    out = tmp_path / "probes.json"
    result = RUNNER.invoke(app, ["probe", "e2", "--quiet", "-o", str(out)])
    assert result.exit_code == code, result.output
    assert "always-a" in result.output
    report = json.loads(out.read_text())[0]
    assert report["env"] == "toy" and report["probes"][0]["passed"] is (not hack_pays)


def test_unknown_probe_and_bad_limit_are_user_errors(monkeypatch) -> None:
    monkeypatch.setattr(probe_command, "load_suite", lambda entry, name=None: toy_suite(False))
    result = RUNNER.invoke(app, ["probe", "e2", "--only", "nope"])
    assert isinstance(result.exception, UserError) and "unknown probe" in str(result.exception)
    result = RUNNER.invoke(app, ["probe", "e2", "-n", "0"])
    assert isinstance(result.exception, UserError)


def test_environment_without_a_suite_says_so(monkeypatch) -> None:
    entry = resolve_env("e1")
    monkeypatch.setitem(vars(entry), "spec", dataclasses.replace(entry.spec, probe_suite=None))
    with pytest.raises(UserError, match="ships no probe suite"):
        probe_command.load_suite(entry)


def test_named_extra_suite_and_unknown_suite_name() -> None:
    from security_verifiers.environments import resolve_env

    entry = resolve_env("e3")
    suite = probe_command.load_suite(entry, "detect")
    assert "api-cwe" in " ".join(p.name for p in suite.probes)
    result = RUNNER.invoke(app, ["probe", "e3", "--suite", "nope"])
    assert isinstance(result.exception, UserError) and "no probe suite 'nope'" in str(
        result.exception
    )
    result = RUNNER.invoke(app, ["probe", "e2", "e3", "--suite", "detect"])
    assert isinstance(result.exception, UserError) and "exactly one" in str(result.exception)
