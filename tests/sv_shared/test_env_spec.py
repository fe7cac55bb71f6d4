"""EnvSpec: defaults, hooks, baselines with oracle marks; LoadedEnvInfo: typed env.sv_* reads."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sv_shared.spec import REWARD, EnvSpec, LoadedEnvInfo, load_hook


def test_spec_defaults_and_hooks() -> None:
    spec = EnvSpec("e1", "sv-env-network-logs", oracles={"random": "for the test"})
    assert spec.module == "sv_env_network_logs" and spec.name == "network-logs"
    assert spec.load_environment == "sv_env_network_logs:load_environment"
    assert spec.gate_metrics == (REWARD,) and spec.report.figures == ("reward",)
    assert spec.hook("probe_suite") is None
    marks = {b.name: b.oracle for b in spec.baselines()}
    assert marks["random"] is True and marks["heuristic"] is False
    assert load_hook("json:dumps")([1]) == "[1]"


def test_installed_specs_default_weights() -> None:
    spec = load_hook("sv_env_network_logs.spec:SPEC")
    assert spec.default_reward_weights() == {
        "decision": 1.0, "calibration": 0.2, "format": 0.1, "accuracy": 0.0
    }  # fmt: skip


def test_loaded_env_info_reads_sv_attributes() -> None:
    bare = LoadedEnvInfo.of(SimpleNamespace())
    assert bare.dataset_info == {} and bare.state_columns == () and not bare.metrics
    env = SimpleNamespace(sv_dataset_info={"content_hash": "h"}, sv_state_columns=["a"],
                          sv_labels=["x", "y"], sv_structured_output_default=1)  # fmt: skip
    info = LoadedEnvInfo.of(env)
    assert info.dataset_info["content_hash"] == "h" and info.state_columns == ("a",)
    assert info.labels == ("x", "y") and info.structured_output_default is True


def test_loaded_env_info_attach_round_trips() -> None:
    dataset_info = {"content_hash": "h"}
    info = LoadedEnvInfo(
        dataset_info, {"weights": {}}, structured_output_default=True, metrics=dict,
        state_columns=("a",), labels=("x", "y"), target="t",
    )  # fmt: skip
    env = SimpleNamespace()
    assert info.attach(env) is env and LoadedEnvInfo.of(env) == info
    env.sv_dataset_info["prompt_style"] = "compact"  # environments update it in place
    assert env.sv_dataset_info is dataset_info
    assert LoadedEnvInfo.of(env).dataset_info == {"content_hash": "h", "prompt_style": "compact"}
    bare = LoadedEnvInfo.of(SimpleNamespace())  # the defaults read as an env that sets nothing
    assert LoadedEnvInfo.of(LoadedEnvInfo({}).attach(SimpleNamespace())) == bare
    with pytest.raises(TypeError):
        LoadedEnvInfo({}, reward_cofig={})  # type: ignore[call-arg]
