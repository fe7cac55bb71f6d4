"""A tool environment whose tools also receive the episode they are called in.

The model calls `view_file(path)`; the tool really is `view_file(path, episode)`. The episode
argument is hidden from the model's tool schema and filled in from `state["info"]` on every
call, so tools stay pure functions of their inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sv_shared.vf_compat import vf


class EpisodeToolEnv(vf.StatefulToolEnv):
    """`StatefulToolEnv` injecting `{key: info[key] for key in episode_keys}` as `episode_arg`."""

    def __init__(
        self,
        tools: Sequence[Callable[..., Any]],
        episode_keys: Sequence[str],
        episode_arg: str = "episode",
        **kwargs: Any,
    ) -> None:
        super().__init__(tools=[], **kwargs)
        self.episode_keys = tuple(episode_keys)
        self.episode_arg = episode_arg
        for tool in tools:
            self.add_tool(tool, args_to_skip=[episode_arg])

    def episode(self, info: Mapping[str, Any]) -> dict[str, Any]:
        """The hidden argument the tools receive for the row whose `info` this is."""
        return {key: info[key] for key in self.episode_keys}

    def update_tool_args(
        self, tool_name: str, tool_args: dict, messages: Any, state: Any, **kwargs: Any
    ) -> dict:
        episode = self.episode(state["info"])
        kept = {k: v for k, v in tool_args.items() if k != self.episode_arg}
        return {**kept, self.episode_arg: episode}
