"""Everything that defines an evaluation run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from security_verifiers.models.capabilities import DEFAULT_REASONING_BUDGET


class EvalConfig(BaseModel):
    env: str
    models: list[str]
    n: int | None = Field(default=None, ge=1, description="examples to evaluate; None = all")
    seed: int = 42
    max_concurrent: int = Field(default=16, ge=1)
    temperature: float | None = 0.0
    top_p: float | None = None
    max_tokens: int | None = Field(
        default=512, ge=1, description="answer tokens; reasoning models get reasoning_budget more"
    )
    reasoning_effort: str | None = Field(
        default=None, description="sent to models that accept it (models.capabilities)"
    )
    reasoning_budget: int = Field(
        default=DEFAULT_REASONING_BUDGET,
        ge=0,
        description="completion tokens reserved for reasoning on top of max_tokens",
    )
    truncated: Literal["error", "score"] = Field(
        default="error",
        description="a reply cut by the token cap: an error row, or scored as it stands",
    )
    capability_overrides: list[str] = Field(
        default_factory=list, description="--capability KEY=VALUE (every evaluated model)"
    )
    env_args: dict[str, Any] = Field(default_factory=dict)
    target: str | None = Field(
        default=None, description="the opponent model of environments that have one (E5)"
    )
    output_root: Path = Path("outputs/evals")
    cache_dir: Path | None = None
    rollout_log: Path | None = Field(
        default=None, description="--rollout-log: an extra JSONL copy of every rollout record"
    )
    resume: bool = True
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_retries: int = Field(default=5, ge=0)
    timeout_s: float = Field(default=120.0, gt=0)
    price_usd_per_mtok: tuple[float, float] | None = None
    show_progress: bool = True
    progress_interval_s: float = Field(
        default=30.0, gt=0, description="seconds between plain progress lines (no terminal)"
    )
    json_schema: bool | None = Field(
        default=None,
        description="ask for schema-constrained JSON; None = the environment's default",
    )

    def sampling_args(self) -> dict[str, Any]:
        """Sampling arguments sent with every request (None values are left out)."""
        args = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
        return {k: v for k, v in args.items() if v is not None}
