"""`sv envs ENV --args`: an environment's arguments, printed from its typed config."""

from __future__ import annotations

import textwrap

from security_verifiers.environments import EnvEntry
from security_verifiers.errors import UserError
from sv_shared.env_config import EnvConfig, config_of, describe


def env_config(entry: EnvEntry) -> type[EnvConfig]:
    """The environment's `EnvConfig`; a user error when it has no typed arguments."""
    config = config_of(getattr(entry.module(), "load_environment", None))
    if config is None:
        raise UserError(f"environment '{entry.env_id}' declares no typed arguments")
    return config


def format_args(entry: EnvEntry, width: int = 100) -> str:
    """One block per argument: `name: type = default`, then its description, indented."""
    lines = [f"{entry.key} ({entry.env_id}) arguments (--env-arg NAME=VALUE):"]
    for arg in describe(env_config(entry)):
        lines.append(f"  {arg.name}: {arg.type} = {arg.default}")
        if arg.description:
            lines += textwrap.wrap(
                arg.description, width, initial_indent="      ", subsequent_indent="      "
            )
    return "\n".join(lines)
