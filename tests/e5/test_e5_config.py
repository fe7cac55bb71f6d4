"""E5's typed arguments: every mistake is one line naming the field and the value."""

from __future__ import annotations

import pytest

from sv_env_redteam_attack import ENV_ID, RedteamAttackConfig, load_environment
from sv_shared.env_config import config_of, describe


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"source": "advbench2"}, "source: input should be 'builtin', 'harmbench', 'jbb', 'sst' "
         "or 'advbench' (got 'advbench2')"),
        ({"max_turns": 0}, "max_turns: input should be greater than or equal to 1 (got 0)"),
        ({"target_max_tokens": 0}, "target_max_tokens: input should be greater than or equal"),
        ({"novelty_backend": "bert"}, "novelty_backend: input should be 'auto', 'ngram' or "
         "'embedding' (got 'bert')"),
        ({"columns": 5}, "columns: input should be a valid dictionary (got 5)"),
        ({"split": "validation"}, "split: input should be 'train', 'dev', 'test' or 'all'"),
    ],
)  # fmt: skip
def test_a_mistake_is_one_line_naming_the_field(args, message):
    with pytest.raises(ValueError) as caught:
        load_environment(**args)
    text = str(caught.value)
    assert text.startswith(f"{ENV_ID}: {message}")
    assert "\n" not in text


def test_in_process_objects_pass_through_untouched():
    client, judge = object(), object()
    config = RedteamAttackConfig.from_args(ENV_ID, {"target_client": client, "judge": judge})
    assert config.target_client is client and config.judge is judge


def test_every_argument_is_documented():
    assert config_of(load_environment) is RedteamAttackConfig
    assert all(arg.description for arg in describe(RedteamAttackConfig))
