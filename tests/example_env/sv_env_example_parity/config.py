"""The example environment's arguments, typed and documented in one place."""

from __future__ import annotations

from pydantic import Field

from sv_shared.env_config import EnvConfig


class ExampleParityConfig(EnvConfig):
    """Arguments of `load_environment` (`sv envs sv-env-example-parity --args`)."""

    max_examples: int = Field(-1, ge=-1, description="Keep the first N numbers (-1: all).")
    reward_weights: dict[str, float] | None = Field(
        None, description="Partial mapping over correct / format (0 switches one off)."
    )
