"""The verifiers environment an item list becomes: single-turn, or with episode tools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sv_shared.vf_compat import vf


def rollout_env(
    *,
    rows: Any,
    system_prompt: str,
    parser: Any,
    rubric: Any,
    env_id: str,
    tools: Sequence[Callable[..., Any]] | None = None,
    episode_keys: Sequence[str] = (),
    episode_arg: str = "episode",
    max_turns: int = 4,
) -> Any:
    """A `SingleTurnEnv` over `rows`, or, when `tools` are given, an `EpisodeToolEnv` whose
    tools receive `episode_keys` of each item's info as `episode_arg` (the tool stack is
    imported only then: it costs about a second of imports)."""
    common: dict[str, Any] = {
        "eval_dataset": rows,
        "system_prompt": system_prompt,
        "parser": parser,
        "rubric": rubric,
        "env_id": env_id,
    }
    if not tools:
        return vf.SingleTurnEnv(**common)
    from sv_shared.episode_tools import EpisodeToolEnv

    return EpisodeToolEnv(tools, episode_keys, episode_arg, max_turns=max_turns, **common)
