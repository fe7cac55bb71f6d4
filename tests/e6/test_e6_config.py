"""E6's typed arguments: every mistake is one line naming the field and the value."""

from __future__ import annotations

from typing import get_args

import pytest

from sv_env_redteam_defense import ENV_ID, RedteamDefenseConfig, load_environment
from sv_env_redteam_defense.config import Kind, Source
from sv_env_redteam_defense.conversation import KINDS
from sv_env_redteam_defense.scripts import SOURCES
from sv_shared.env_config import config_of, describe


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"source": "csv"}, "source: input should be 'builtin', 'jsonl'"),
        ({"kinds": "direct"}, "kinds: input should be a valid list (got 'direct')"),
        ({"kinds": ["jailbreak"]}, "kinds.0: input should be 'role_play'"),
        ({"columns": [1]}, "columns: input should be a valid dictionary (got [1])"),
        ({"max_examples": -2}, "max_examples: input should be greater than or equal to -1"),
        ({"split": "validation"}, "split: input should be 'train', 'dev', 'test' or 'all'"),
    ],
)
def test_a_mistake_is_one_line_naming_the_field(args, message):
    with pytest.raises(ValueError) as caught:
        load_environment(**args)
    text = str(caught.value)
    assert text.startswith(f"{ENV_ID}: {message}")
    assert "\n" not in text


def test_the_literals_are_the_loaders_sets():
    assert set(get_args(Source)) == set(SOURCES)
    assert set(get_args(Kind)) == set(KINDS)


def test_every_argument_is_documented():
    assert config_of(load_environment) is RedteamDefenseConfig
    assert all(arg.description for arg in describe(RedteamDefenseConfig))
