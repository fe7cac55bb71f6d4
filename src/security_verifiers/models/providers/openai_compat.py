"""Any OpenAI-compatible endpoint: OpenAI itself, vLLM, TGI, Ollama, OpenRouter, LM Studio.

`MODEL@http(s)://HOST[:PORT]/v1`, or `MODEL` at `--base-url` / $OPENAI_BASE_URL / OpenAI's API.
It is the fallback: any name no other provider claims lands here. `openai:<name>` forces it
(`openai:anthropic/claude-sonnet-4` at OpenRouter, instead of the Anthropic SDK provider).
"""

from __future__ import annotations

import os
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.models.capabilities import CapabilityTable, ModelCapabilities
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL
from security_verifiers.models.pricing import list_price
from security_verifiers.models.providers.base import Provider, ResolveContext
from security_verifiers.models.spec import OPENAI_BASE_URL, ModelSpec, check_url, redact_url

PREFIX = "openai:"

OPENAI_REASONING = ModelCapabilities(
    "openai-reasoning", temperature=False, top_p=False, seed=True,
    token_param="max_completion_tokens", reasoning_effort=True, reasoning="usage",
)  # fmt: skip
"""o-series and GPT-5: only the default temperature (400 otherwise), no top_p, no
`max_tokens` (`max_completion_tokens`, which hidden reasoning counts against)."""
OPENAI_CHAT = ModelCapabilities("openai-chat", token_param="max_completion_tokens")
THINK_TAGS = ModelCapabilities("think-tags", reasoning="think-tags")
"""R1-style open models (vLLM, TGI, Ollama): `<think>...</think>` before the answer, inside
the same completion budget."""
REASONING_FIELD = ModelCapabilities("reasoning-field", reasoning_effort=True, reasoning="field")
"""gpt-oss on vLLM: reasoning in `reasoning_content`, effort accepted."""

CAPABILITIES: CapabilityTable = (
    (r"gpt-5(\.\d+)?-chat", OPENAI_CHAT),
    (r"(o1|o3|o4)(-|$)", OPENAI_REASONING),
    (r"gpt-5", OPENAI_REASONING),
    (r"(gpt-4|gpt-3\.5|chatgpt)", OPENAI_CHAT),
    (r"gpt-oss", REASONING_FIELD),
    (r"(deepseek-r1|.*r1-distill|qwq|qwen3(?!.*instruct)|magistral|phi-4-.*reasoning"
     r"|.*-thinking)", THINK_TAGS),
)  # fmt: skip
"""Model families of OpenAI-compatible servers, matched by model id (first match wins)."""

PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-chat-latest": (1.25, 10.00),
    "gpt-5-pro": (15.00, 120.00),
    "gpt-5.1": (1.25, 10.00),
    "o1": (15.00, 60.00),
    "o1-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o3-pro": (20.00, 80.00),
    "o4-mini": (1.10, 4.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
}
"""OpenAI's list prices (as of `models.pricing.PRICES_AS_OF`); any server whose model id
matches one (an OpenRouter `openai/...` id, a proxy) is priced like OpenAI."""


class OpenAICompatibleProvider(Provider):
    kind = "endpoint"
    schemes = ("MODEL@URL", "MODEL", PREFIX)
    order = 1000

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        typed, name = name, name.removeprefix(PREFIX)
        if "@" in name:
            model_id, _, url = name.partition("@")
            if not model_id or not url.startswith(("http://", "https://")):
                raise UserError(
                    f"model '{redact_url(name)}': expected the form MODEL@http(s)://HOST[:PORT]/v1"
                )
            url = check_url(url, f"model '{model_id}': URL")
            return ModelSpec(redact_url(typed), model_id, self.kind, url, ctx.api_key_env)
        base_url = ctx.base_url
        if base_url:
            base_url = check_url(base_url, "--base-url")
        elif os.environ.get("OPENAI_BASE_URL"):
            base_url = check_url(os.environ["OPENAI_BASE_URL"], "OPENAI_BASE_URL")
        url = base_url or OPENAI_BASE_URL
        if url.rstrip("/") == OPENAI_BASE_URL and not os.environ.get(ctx.api_key_env):
            known = ", ".join(sorted(ctx.baselines))
            raise UserError(
                f"unknown model '{name}': it is not a built-in model ({known}, "
                f"{DEFAULT_LOCAL_MODEL}, local:<file.gguf>) and no endpoint is "
                f"configured — set {ctx.api_key_env} for OpenAI, or --base-url / OPENAI_BASE_URL "
                f"for any OpenAI-compatible server (vLLM, TGI, OpenRouter), or write MODEL@URL"
            )
        return ModelSpec(typed, name, self.kind, url.rstrip("/"), ctx.api_key_env)

    def help_lines(self) -> list[tuple[str, str]]:
        return [
            ("MODEL@http(s)://HOST[:PORT]/v1", "any OpenAI-compatible server (vLLM, TGI, ...)"),
            ("MODEL", "with --base-url / OPENAI_BASE_URL, or OpenAI with OPENAI_API_KEY"),
            (f"{PREFIX}MODEL", "the same, for names another provider claims (anthropic/...)"),
        ]

    def api_key(self, spec: ModelSpec) -> str:
        value = os.environ.get(spec.api_key_env or "", "")
        if value:
            return value
        if spec.base_url.rstrip("/") == OPENAI_BASE_URL:
            raise UserError(
                f"model '{spec.name}' needs an API key: set {spec.api_key_env} "
                f"(or pass --base-url for an OpenAI-compatible server such as vLLM, "
                f"or pick a built-in model)"
            )
        return "EMPTY"

    def capability_table(self) -> CapabilityTable:
        return CAPABILITIES

    def price(self, model_id: str) -> tuple[float, float] | None:
        return list_price(PRICES_USD_PER_MTOK, model_id)

    def identity_url(self, spec: ModelSpec) -> str:
        return spec.public_url

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        return {"local_backend": None, "api_key_env": spec.api_key_env}


PROVIDER = OpenAICompatibleProvider()
