"""`sv_shared.env_config`: typed environment arguments, validated once, one line per mistake."""

from __future__ import annotations

import inspect
from typing import Literal

import pytest
from pydantic import Field

from sv_shared.env_args import allowed_env_args
from sv_shared.env_config import EnvConfig, config_of, describe, takes_config


class Sample(EnvConfig):
    source: Literal["synthetic", "zeek"] = Field("synthetic", description="where rows come from")
    max_examples: int = Field(-1, ge=-1, description="keep the first N (-1: all)")
    reward_weights: dict[str, float] | None = None


@takes_config("sv-env-sample", Sample)
def load_environment(config: Sample) -> Sample:
    return config


def test_keyword_arguments_arrive_as_one_validated_config():
    config = load_environment(source="zeek", max_examples=3)
    assert isinstance(config, Sample)
    assert (config.source, config.max_examples) == ("zeek", 3)
    assert config.given() == {"source": "zeek", "max_examples": 3}
    assert load_environment().source == "synthetic"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"sourc": "zeek"}, "unknown argument(s) for sv-env-sample: sourc (did you mean source?)"),
        ({"source": "csv"}, "sv-env-sample: source: input should be 'synthetic' or 'zeek'"),
        ({"max_examples": 1.5}, "sv-env-sample: max_examples: input should be a valid integer"),
        ({"max_examples": -3}, "sv-env-sample: max_examples: input should be greater than"),
        ({"reward_weights": "abc"}, "sv-env-sample: reward_weights: input should be a valid"),
    ],
)
def test_a_mistake_is_one_line_naming_the_field(args, message):
    with pytest.raises(ValueError) as caught:
        load_environment(**args)
    text = str(caught.value)
    assert text.startswith(message)
    assert "\n" not in text


def test_the_harness_reads_the_same_model():
    assert config_of(load_environment) is Sample
    assert allowed_env_args(load_environment) == {"source", "max_examples", "reward_weights"}
    params = inspect.signature(load_environment).parameters
    assert params["source"].default == "synthetic"  # what verifiers logs as defaults
    docs = {arg.name: arg for arg in describe(Sample)}
    assert docs["max_examples"].default == "-1"
    assert docs["source"].description == "where rows come from"
    assert "synthetic" in docs["source"].type
