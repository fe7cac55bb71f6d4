"""E3's typed arguments: one config for both tasks; a field of the other task is refused."""

from __future__ import annotations

import pytest

from sv_env_code_vulnerability import CodeVulnerabilityConfig, load_environment
from sv_env_code_vulnerability.config import DETECT_ONLY, REPAIR_ONLY
from sv_shared.env_config import config_of

ENV_ID = "sv-env-code-vulnerability"


def check(**args: object) -> CodeVulnerabilityConfig:
    return CodeVulnerabilityConfig.from_args(ENV_ID, args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"task": "detect", "max_turns": 3}, "max_turns: only task='repair' reads it, not "
         "task='detect' (got 3)"),
        ({"task": "detect", "cwe_hint": False}, "cwe_hint: only task='repair' reads it"),
        ({"source": "sven"}, "source: only task='detect' reads it, not task='repair' (got 'sven')"),
        ({"task": "detect", "dataset": "latest"}, "dataset: selects a built dataset of repair "
         "items for task='repair'; task='detect' does not read built datasets"),
        ({"task": "detect", "include_tools": True}, "include_tools: task='detect' has no tools"),
        ({"task": "fix"}, "task: input should be 'repair' or 'detect' (got 'fix')"),
        ({"split": "dev2"}, "split: input should be 'train', 'dev', 'test' or 'all'"),
        ({"max_turns": 0}, "max_turns: input should be greater than or equal to 1 (got 0)"),
    ],
)  # fmt: skip
def test_a_mistake_is_one_line_naming_the_field(args, message):
    with pytest.raises(ValueError) as caught:
        check(**args)
    text = str(caught.value)
    assert text.startswith(f"{ENV_ID}: {message}")
    assert "\n" not in text


def test_each_task_gets_its_own_fields():
    repair = check(max_turns=3).for_task()
    assert repair["max_turns"] == 3 and not set(DETECT_ONLY) & set(repair)
    detect = check(task="detect", source="sven", path="x", include_tools=False).for_task()
    assert (detect["source"], detect["path"]) == ("sven", "x")
    assert not set(REPAIR_ONLY) & set(detect)


def test_load_environment_validates_with_the_config():
    assert config_of(load_environment) is CodeVulnerabilityConfig
    with pytest.raises(ValueError, match=r"^sv-env-code-vulnerability: seed: input should be"):
        load_environment(seed="abc")
