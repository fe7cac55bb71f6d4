"""sv_shared.env_args: a misspelled load_environment argument is an error, never ignored."""

from __future__ import annotations

import inspect

import pytest

from sv_shared.env_args import (
    accepts_env_args,
    allowed_env_args,
    check_env_args,
    named_parameters,
)


def test_check_env_args_names_unknown_and_valid_keys():
    check_env_args("sv-env-x", {"source": 1}, {"source", "path"})
    with pytest.raises(ValueError) as info:
        check_env_args("sv-env-x", {"sourc": "zeek", "zzz": 1}, {"source", "path", "split"})
    message = str(info.value)
    assert message.startswith("unknown argument(s) for sv-env-x: sourc (did you mean source?), zzz")
    assert message.endswith("(valid: path, source, split)")


def test_decorator_allows_named_parameters_and_declared_passthrough():
    calls = []

    @accepts_env_args("sv-env-x", passthrough={"split", "seed"})
    def load_environment(source: str = "synthetic", **kwargs):
        calls.append((source, kwargs))
        return "env"

    assert load_environment(source="zeek", split="test") == "env"
    assert calls == [("zeek", {"split": "test"})]
    assert allowed_env_args(load_environment) == {"source", "split", "seed"}
    # the signature stays visible to verifiers (it logs defaults from it)
    assert list(inspect.signature(load_environment).parameters) == ["source", "kwargs"]
    with pytest.raises(ValueError, match=r"unknown argument\(s\) for sv-env-x: sed"):
        load_environment(sed=3)
    assert len(calls) == 1, "the environment must not be built with an unknown argument"


def test_decorator_without_passthrough_rejects_everything_else():
    @accepts_env_args("sv-env-y")
    def load_environment(max_examples: int = -1, **_):
        return max_examples

    assert load_environment(max_examples=3) == 3
    with pytest.raises(ValueError, match="max_exmaples"):
        load_environment(max_exmaples=3)


def test_passthrough_needs_a_kwargs_parameter():
    with pytest.raises(TypeError, match="no \\*\\*kwargs"):

        @accepts_env_args("sv-env-z", passthrough={"split"})
        def load_environment(source: str = "x"):
            return source


def test_allowed_env_args_of_undecorated_functions():
    def plain(source: str = "x", path: str | None = None):
        return None

    def catch_all(source: str = "x", **_):
        return None

    assert allowed_env_args(plain) == {"source", "path"}
    assert allowed_env_args(catch_all) is None  # cannot be known: the harness does not guess


def test_forwards_to_a_lazily_imported_builder():
    imported = []

    def build_env(source: str = "x", max_examples: int = -1, label_map=None):
        return (source, max_examples)

    def builder():
        imported.append(True)
        return build_env

    @accepts_env_args("sv-env-w", forwards_to=builder)
    def load_environment(**kwargs):
        return build_env(**kwargs)

    assert imported == []  # nothing resolved at decoration time
    assert load_environment(max_examples=2) == ("x", 2)
    assert allowed_env_args(load_environment) == {"source", "max_examples", "label_map"}
    with pytest.raises(ValueError, match="label_mpa \\(did you mean label_map\\?\\)"):
        load_environment(label_mpa={})
    assert len(imported) == 1  # resolved once


ENV_IDS = [
    "sv-env-network-logs",
    "sv-env-config-verification",
    "sv-env-code-vulnerability",
    "sv-env-phishing-detection",
    "sv-env-redteam-attack",
    "sv-env-redteam-defense",
]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_environment_rejects_a_misspelled_argument(env_id):
    import importlib

    import verifiers as vf

    module = importlib.import_module(env_id.replace("-", "_"))
    allowed = allowed_env_args(module.load_environment)
    assert allowed is not None, f"{env_id}: load_environment has an undeclared **kwargs catch-all"
    assert {"max_examples", "seed"} <= allowed
    with pytest.raises((ValueError, RuntimeError), match=r"unknown argument\(s\).*max_exmaples"):
        vf.load_environment(env_id, max_exmaples=3)


def test_e3_config_fields_per_task_match_its_builders():
    from sv_env_code_vulnerability import config
    from sv_env_code_vulnerability.detection import load_detection_environment
    from sv_env_code_vulnerability.environment import build_repair_env

    assert named_parameters(build_repair_env) == {*config.SHARED, *config.REPAIR_ONLY}
    assert named_parameters(load_detection_environment) == {*config.SHARED, *config.DETECT_ONLY}
    fields = set(config.CodeVulnerabilityConfig.model_fields)
    assert fields == {"task", *config.SHARED, *config.REPAIR_ONLY, *config.DETECT_ONLY}
