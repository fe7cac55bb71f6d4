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


ORACLE_BASELINES: dict[str, dict[str, str]] = {
    "e2": {
        "tool-oracle": "runs the oracle's own scanners on the config, reports their findings",
        "tool-oracle-fix": "tool-oracle plus the known inverse patch of built-in mutations",
    },
    "e3": {
        "reference-fix": "looks up the library's reference fix of the shown module",
        "scanner-oracle": "runs the scoring scanners (Bandit, Semgrep), reports their findings",
        "scanner-detector": "answers with the scanners' verdict (the detection label source)",
    },
}
"""Built-in models that read the labels or the scoring tools' output: upper bounds for the
reward, not baselines a model competes with. E1, E4, E5 and E6 baselines see only the prompt."""


def is_oracle(entry: EnvEntry, name: str) -> bool:
    return name in ORACLE_BASELINES.get(entry.key, {})


def baseline_policies(entry: EnvEntry) -> dict[str, ChatPolicy]:
    """The environment's built-in reference policies, adapted to the chat protocol."""
    prompt_policies = getattr(entry.module(), "baseline_policies", lambda: {})()

    def adapt(policy) -> ChatPolicy:
        return lambda request: policy(request.last_user_text(), request.seed)

    return {name: adapt(policy) for name, policy in prompt_policies.items()}


__all__ = [
    "ENVIRONMENTS",
    "ORACLE_BASELINES",
    "ChatRequest",
    "EnvEntry",
    "baseline_policies",
    "is_oracle",
    "resolve_env",
]
