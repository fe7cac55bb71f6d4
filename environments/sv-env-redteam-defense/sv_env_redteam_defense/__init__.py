"""E6 sv-env-redteam-defense: the policy is the assistant. It faces scripted multi-turn
attacks (role-play, hypotheticals, split payloads, gradual escalation, direct requests) and
benign conversations, including safe prompts that only look dangerous.

`vf.load_environment("sv-env-redteam-defense", **kwargs)` calls `load_environment`.
"""

from __future__ import annotations

import importlib
from typing import Any

from sv_shared.env_args import accepts_env_args

ENV_ID = "sv-env-redteam-defense"
__all__ = ["ENV_ID", "baseline_policies", "data_adapter", "load_environment"]


def baseline_policies() -> dict[str, Any]:
    """The built-in defenders (`always-refuse`, `always-comply`, `guarded`)."""
    from .baselines import baseline_policies as policies

    return policies()


def data_adapter() -> Any:
    """E6's dataset-pipeline adapter (`sv data build e6`, `sv synth e6`)."""
    from .data_pipeline import data_adapter as adapter

    return adapter()


def _builder() -> Any:
    return importlib.import_module("sv_env_redteam_defense.environment").load_environment


@accepts_env_args(ENV_ID, forwards_to=_builder)
def load_environment(**kwargs: Any) -> Any:
    """Build E6; see `sv_env_redteam_defense.environment.load_environment` for the arguments."""
    from .environment import load_environment as build  # leaf modules import without it

    return build(**kwargs)
