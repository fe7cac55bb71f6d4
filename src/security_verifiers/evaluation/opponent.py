"""The second model some environments talk to (E5: the target the attacker tries to jailbreak).

An environment that needs one names it in its spec (`EnvSpec.default_target`, a model name);
`--target` overrides it. The target is resolved like any `--models` entry — a built-in
baseline of the opponent environment (E5's targets may be E6's defender baselines), a local
GGUF run by llama.cpp (in-process, or its server with SV_LOCAL_BACKEND=server), an `hf:`
checkpoint (transformers server), or any other provider's model: its provider serves it — and
reaches `load_environment` as `target_client` (an `openai.AsyncOpenAI`) plus `target_model`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import openai

from security_verifiers.environments import EnvEntry, baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.models.clients import build_client, check_endpoint, request_plan
from security_verifiers.models.local_server import LocalServerPool
from security_verifiers.models.providers.registry import resolve_model, serve
from security_verifiers.models.response_cache import ResponseCache
from security_verifiers.models.spec import ModelSpec


@dataclass
class Opponent:
    spec: ModelSpec
    client: openai.AsyncOpenAI

    def env_args(self) -> dict[str, Any]:
        return {"target_client": self.client, "target_model": self.spec.model_id}


def target_name(config: EvalConfig, entry: EnvEntry) -> str | None:
    default = entry.spec.default_target
    if config.target and default is None:
        raise UserError(f"environment '{entry.env_id}' has no target model; drop --target")
    return config.target or default


async def start_opponent(
    config: EvalConfig, entry: EnvEntry, servers: LocalServerPool, cache: ResponseCache | None
) -> Opponent | None:
    """Resolve, serve and probe the target model; None when the environment has none."""
    name = target_name(config, entry)
    if name is None:
        return None
    baselines = dict(baseline_policies(entry))
    if entry.spec.opponent:  # whose baselines may serve as targets (E5: E6's defenders)
        baselines.update(baseline_policies(resolve_env(entry.spec.opponent)))
    spec = resolve_model(
        name, baselines=baselines, base_url=config.base_url, api_key_env=config.api_key_env
    )
    served = serve(spec, servers)  # a llama.cpp or transformers server, when it needs one
    spec = served.spec
    plan = request_plan(spec, reasoning_budget=config.reasoning_budget)  # what the target accepts
    client = build_client(spec, baselines=baselines, cache=cache, max_retries=config.max_retries,
                          timeout_s=config.timeout_s, transport=served.transport,
                          plan=plan)  # fmt: skip
    await check_endpoint(client, spec)
    return Opponent(spec, client)
