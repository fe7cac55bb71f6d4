"""The v1 tool server of an environment loaded with tools (E2, E3, E4 `include_tools=True`).

verifiers v1 serves a task's tools as an MCP server launched per rollout (`Task.toolsets`):
the launcher runs `python -m security_verifiers_v1.toolset` with this server's config, and the
server fetches the rollout's task before it serves. The tools are the environment's own
classic tool functions (`sv_shared.v1_compat.model_tools`): the same names, docstrings and
argument schemas the classic `ToolEnv` advertises, each still handed the episode of its task
(the file under audit, the module to repair) as the hidden argument it takes classically.
"""

from __future__ import annotations

import inspect
from typing import Any

import verifiers.v1 as v1
from pydantic import Field

from sv_shared.v1_compat import episode_of, load_classic, model_tools


class SecurityVerifiersToolsetConfig(v1.ToolsetConfig):
    env: str = ""
    """The environment (`e2`, `sv-env-config-verification`, ...)."""
    env_args: dict[str, Any] = Field(default_factory=dict)
    """Its `load_environment` arguments (as the taskset's)."""


class SecurityVerifiersToolset(v1.Toolset[SecurityVerifiersToolsetConfig]):
    """The environment's classic tools over MCP, bound to one rollout's task."""

    TOOL_PREFIX = None
    """Advertise the classic tool names (`run_checkov`, `view_file`, `lookup_url`) unprefixed:
    the environments' system prompts name them so."""

    def __init__(self, config: SecurityVerifiersToolsetConfig) -> None:
        super().__init__(config)
        self.classic: Any = None
        self.episode: dict[str, Any] = {}

    def environment(self) -> Any:
        if self.classic is None:
            self.classic = load_classic(self.config.env, self.config.env_args)
        return self.classic

    async def setup(self) -> None:
        self.environment()

    async def setup_task(self, task: Any) -> None:
        """`task` is the rollout's task data (`SecurityVerifiersTaskData`)."""
        self.episode = episode_of(self.environment(), task.info)

    def register(self, mcp: Any) -> None:
        for tool in model_tools(self.environment(), lambda: self.episode):
            mcp.add_tool(
                self._with_state(tool),
                name=tool.__name__,
                description=inspect.getdoc(tool) or None,
            )


if __name__ == "__main__":
    SecurityVerifiersToolset.run()
