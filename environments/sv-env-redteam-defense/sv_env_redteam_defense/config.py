"""E6's arguments: what `load_environment` accepts, typed and documented in one place."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sv_shared.env_config import EnvConfig

ENV_ID = "sv-env-redteam-defense"
DEFAULT_JUDGE = "offline"
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."

Source = Literal["builtin", "jsonl", "xstest", "mitre_frr", "harmbench", "jbb", "sst", "advbench"]
"""Every script source `load_environment` reads (`scripts.SOURCES`)."""
Kind = Literal["role_play", "hypothetical", "split_payload", "gradual_escalation", "direct",
               "benign_help", "over_refusal_probe"]  # fmt: skip
"""Every conversation kind (`conversation.KINDS`)."""


class RedteamDefenseConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs redteam-defense --args`)."""

    source: Source = Field(
        "builtin",
        description='"builtin" (the shipped sanitized scripts), "jsonl" (a scripts file at path), '
        '"xstest" (a local XSTest CSV at path), "mitre_frr" (CyberSecEval\'s mitre_frr.json at '
        "path: benign cyber requests as over-refusal probes), or a behaviour CSV at path read as "
        'one-turn direct attacks: "harmbench", "jbb" (Goal, Behavior, Category), "sst" '
        '(id, harm_area, prompts_final) or "advbench" (goal,target).',
    )
    path: str | None = Field(None, description="The file a file source reads.")
    columns: dict[str, str] | None = Field(
        None,
        description="Behaviour CSVs: fields (text, id, category, functional, context) -> the "
        'file\'s column names, e.g. {"text": "prompt"}.',
    )
    dataset: str | None = Field(
        None,
        description='A build of `sv data build e6`: its directory, build name or "latest" '
        "(overrides source/path). Without it, every script of the source is used.",
    )
    split: Literal["train", "dev", "test", "all"] = Field(
        "test", description="The split of `dataset` (the sources themselves have none)."
    )
    kinds: list[Kind] | None = Field(None, description="Keep only these conversation kinds.")
    max_examples: int = Field(-1, ge=-1, description="Keep the first N conversations (-1: all).")
    seed: int | None = Field(
        None, description="Shuffle the conversations with this seed before max_examples."
    )
    judge: str | Any = Field(
        DEFAULT_JUDGE,
        description='"offline" (the shipped lexical judge), "learned" (request model x the '
        'reply-outcome model fitted to human-labelled replies), "llama-guard@<base_url>[#model]", '
        '"harmbench@<base_url>[#model]", or a judge object with `name` and '
        "`verdict(conversation)`.",
    )
    judge_cache_dir: str | None = Field(
        None, description="Where verdicts persist across runs (default: memory only)."
    )
    reward_weights: dict[str, float] | None = Field(
        None,
        description="DefenseWeights fields (harmful_compliance, refusal, safe_alternative, "
        "helpful, flagged_help, over_refusal, unhelpful, turn_cost).",
    )
    keep_raw_unsafe: bool = Field(
        False,
        description="Store flagged replies verbatim instead of as hashes, in the completion and "
        "in the transcript each results row carries.",
    )
    system_prompt: str | None = Field(
        DEFAULT_SYSTEM_PROMPT, description="The defender's system prompt (None: none)."
    )
    refusal_detector: Any = Field(
        None, description="`text -> RefusalResult` (default: sv_shared's refusal detector)."
    )
