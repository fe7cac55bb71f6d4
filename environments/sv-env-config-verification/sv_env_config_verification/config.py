"""E2's arguments: what `load_environment` accepts, typed and documented in one place."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sv_shared.env_config import EnvConfig


class ConfigVerificationConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs config-verification --args`)."""

    source: Literal["builtin", "dir", "hf"] = Field(
        "builtin",
        description='"builtin" (secure bases + mutation engine), "dir" (a directory of manifests '
        'and .tf files at `path`) or "hf" (a Hugging Face dataset id or local file at `path`).',
    )
    path: str | None = Field(None, description='The directory or dataset "dir" / "hf" read.')
    dataset: str | None = Field(
        None,
        description='A dataset built by `sv data build`: its directory, build name or "latest" '
        "(overrides source/path; its rows carry their oracle labels, nothing is scanned).",
    )
    split: Literal["train", "dev", "test", "all"] | None = Field(
        None,
        description='The evaluation split (built-in data is split by base config; default "all" '
        'for your own configs, source "dir" or "hf", else "test").',
    )
    max_examples: int = Field(-1, ge=-1, description="Keep the first N examples (-1: all).")
    seed: int | None = Field(
        None, description="Shuffle the examples with this seed before max_examples."
    )
    strict: bool = Field(
        True,
        description='"dir" / "hf": a file or row that fails to load fails the build; false skips '
        "it with a warning (counted in `skipped`). Helm chart files are always skipped.",
    )
    strip_comments: bool = Field(
        True,
        description='"dir": show, scan and patch each file without its comments (they may name '
        "the flaws); `comments_stripped` counts the files that had some.",
    )
    include_tools: bool = Field(
        False,
        description="Multi-turn with run_opa / run_checkov / run_semgrep / run_kubelinter.",
    )
    max_turns: int = Field(6, ge=1, description="Turns per episode with include_tools.")
    reward_weights: dict[str, float] | None = Field(
        None,
        description="AuditWeights fields (detection, patch, format, false_positive, ...); 0 "
        "switches a component off.",
    )
    scan_cache_dir: str | None = Field(
        None,
        description="Where labelling scans are kept across processes (default "
        "$SV_E2_SCAN_CACHE_DIR, else ~/.cache/security-verifiers/e2-scans).",
    )
    warm_up: bool = Field(
        True,
        description="Import and run every scanner once in the background at load, not inside "
        "the first rollout's scoring.",
    )
    scoring_workers: int | None = Field(
        None,
        ge=1,
        description="Size of the process-wide scoring thread pool (default $SV_SCORING_WORKERS, "
        "else min(4, cpu count)).",
    )
