"""The environments the harness knows, by short name (e1 ... e6) and by package id."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest


@dataclass(frozen=True)
class EnvEntry:
    key: str
    env_id: str

    @property
    def name(self) -> str:
        """The id without the `sv-env-` prefix, e.g. `network-logs`."""
        return self.env_id.removeprefix("sv-env-")

    @property
    def module_name(self) -> str:
        return self.env_id.replace("-", "_")

    def module(self) -> ModuleType:
        try:
            return importlib.import_module(self.module_name)
        except ImportError as exc:
            raise UserError(
                f"environment '{self.env_id}' is not installed ({exc}); run `make setup`"
            ) from None


ENVIRONMENTS: dict[str, EnvEntry] = {
    entry.key: entry
    for entry in [
        EnvEntry("e1", "sv-env-network-logs"),
        EnvEntry("e2", "sv-env-config-verification"),
        EnvEntry("e3", "sv-env-code-vulnerability"),
        EnvEntry("e4", "sv-env-phishing-detection"),
        EnvEntry("e5", "sv-env-redteam-attack"),
        EnvEntry("e6", "sv-env-redteam-defense"),
    ]
}


def resolve_env(name: str) -> EnvEntry:
    """Accept `e1`, `network-logs`, `network_logs` or `sv-env-network-logs`."""
    wanted = name.strip().lower().replace("_", "-")
    for entry in ENVIRONMENTS.values():
        if wanted in (entry.key, entry.env_id, entry.name):
            return entry
    known = ", ".join(f"{e.key} ({e.env_id})" for e in ENVIRONMENTS.values())
    raise UserError(f"unknown environment '{name}'; available: {known}")


def baseline_policies(entry: EnvEntry) -> dict[str, ChatPolicy]:
    """The environment's built-in reference policies, adapted to the chat protocol."""
    prompt_policies = getattr(entry.module(), "baseline_policies", lambda: {})()

    def adapt(policy) -> ChatPolicy:
        return lambda request: policy(request.last_user_text(), request.seed)

    return {name: adapt(policy) for name, policy in prompt_policies.items()}


__all__ = ["ENVIRONMENTS", "ChatRequest", "EnvEntry", "baseline_policies", "resolve_env"]
