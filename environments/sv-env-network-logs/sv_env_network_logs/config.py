"""E1's arguments: what `load_environment` accepts, typed and documented in one place."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sv_shared.env_config import EnvConfig


class NetworkLogsConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs network-logs --args`)."""

    source: str = Field(
        "synthetic",
        description='"synthetic" (offline), "zeek", "hf-iot23", "cic-ids-2017", "unsw-nb15", '
        '"nsl-kdd" or "jsonl"; file sources read `path`.',
    )
    path: str | None = Field(None, description="The file a file source reads.")
    dataset: str | None = Field(
        None,
        description='A dataset built by `sv data build`: its directory, build name or "latest" '
        "(overrides source/path).",
    )
    split: Literal["train", "dev", "test", "all"] | None = Field(
        None,
        description='The evaluation split (default "all" for a file given with `path`, else '
        '"test"). Training uses "train".',
    )
    max_examples: int = Field(-1, ge=-1, description="Keep the first N examples (-1: all).")
    seed: int | None = Field(
        None, description="Shuffle the evaluation examples with this seed before max_examples."
    )
    reward_weights: dict[str, float] | None = Field(
        None,
        description="Partial mapping over decision / calibration / format / accuracy; 0 "
        "switches a component off.",
    )
    cost_matrix: dict[str, dict[str, float]] | None = Field(
        None,
        description="gold -> predicted -> cost of a wrong answer (default: missed attack 2, "
        "false alarm 1).",
    )
    correct_payoff: float = Field(1.0, description="Payoff of a correct label.")
    abstain_payoff: float = Field(0.0, description="Payoff of abstaining.")
    invalid_payoff: float | None = Field(
        None, description="Payoff of an answer that does not parse (default: the worst cost)."
    )
    include_background: bool = Field(
        False, description="Keep Stratosphere's Background rows (unlabelled traffic)."
    )
    strict: bool = Field(True, description="A malformed row in a file is an error, not skipped.")
    prompt_style: Literal["default", "compact"] = Field(
        "default",
        description='"compact": a short system prompt and a one-line flow, same task and answer '
        "schema (for training and evaluating small models).",
    )
