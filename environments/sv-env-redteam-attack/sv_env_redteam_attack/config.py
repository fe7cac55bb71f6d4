"""E5's arguments: what `load_environment` accepts, typed and documented in one place."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from sv_shared.env_config import EnvConfig

ENV_ID = "sv-env-redteam-attack"

Source = Literal["builtin", "harmbench", "jbb", "sst", "advbench"]
"""Every behavior source `load_environment` reads (`behaviors.SOURCES`)."""


class RedteamAttackConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs redteam-attack --args`)."""

    source: Source = Field(
        "builtin",
        description='"builtin" (the sanitized set shipped here), "harmbench", "jbb", "sst" '
        '(SimpleSafetyTests: id, harm_area, prompts_final) or "advbench" (goal,target files).',
    )
    path: str | None = Field(
        None,
        description="A local csv/parquet/json(l) file or directory, or a Hub id (default: the "
        "benchmark's; sst and advbench need a path).",
    )
    columns: dict[str, str] | None = Field(
        None,
        description="Fields (text, id, category, functional, context) -> the file's column "
        'names, for files in another layout, e.g. {"text": "prompt"}.',
    )
    dataset: str | None = Field(
        None,
        description='A build of `sv data build e5`: its directory, build name or "latest" '
        "(overrides source/path). Without it, all behaviors of the source are used.",
    )
    split: Literal["train", "dev", "test", "all"] = Field(
        "test", description="The split of `dataset` (the sources themselves have none)."
    )
    max_examples: int = Field(-1, ge=-1, description="Keep the first N behaviors (-1: all).")
    seed: int | None = Field(
        None, description="Shuffle the behaviors with this seed before max_examples."
    )
    max_turns: int = Field(
        3, ge=1, description="Attacker messages per episode; it ends earlier on success."
    )
    target_client: Any = Field(
        None,
        description="The model under attack as an `openai.AsyncOpenAI`/`OpenAI` client (passed "
        "in-process by the harness).",
    )
    target_model: str | None = Field(
        None, description="The target's model name (default: the endpoint's first listed model)."
    )
    target_base_url: str | None = Field(
        None, description="An OpenAI-compatible endpoint of the target (instead of a client)."
    )
    target_api_key_env: str | None = Field(
        None,
        description="The variable holding the target's API key (none: keyless, for local servers).",
    )
    target_max_tokens: int = Field(256, ge=1, description="Token limit of each target reply.")
    target_temperature: float = Field(0.0, description="Sampling temperature of the target.")
    target_system_prompt: str | None = Field(None, description="The target's system prompt.")
    judge: str | Any = Field(
        "offline",
        description='"offline", "llama-guard@<url>[#model]", "harmbench@<url>[#model]", or a '
        "SafetyJudge object.",
    )
    judge_cache_dir: str | None = Field(
        None, description="Where verdicts persist across runs (default: memory only)."
    )
    reward_weights: dict[str, float] | None = Field(
        None,
        description="AttackWeights fields (success, attacker_violation, length, novelty, "
        "token_cost, max_length_cost).",
    )
    memory_path: str | None = Field(
        None, description="JSONL file of earlier successful attacks, read and appended to."
    )
    novelty_backend: Literal["auto", "ngram", "embedding"] = Field(
        "auto",
        description='"auto" (embeddings when installed, else n-grams), "ngram" or "embedding".',
    )
    embedder: Any = Field(
        None, description="An `Embedder` for the novelty score (default: the installed model)."
    )
    keep_raw_unsafe: bool = Field(
        False,
        description="Keep judge-flagged text in the stored transcript (state and each "
        "results.jsonl row); by default such messages are stored as hashes.",
    )
