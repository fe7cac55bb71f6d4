"""Any OpenAI-compatible endpoint: OpenAI itself, vLLM, TGI, Ollama, OpenRouter, LM Studio.

`MODEL@http(s)://HOST[:PORT]/v1`, or `MODEL` at `--base-url` / $OPENAI_BASE_URL / OpenAI's API.
It is the fallback: any name no other provider claims lands here. `openai:<name>` forces it
(`openai:anthropic/claude-sonnet-4` at OpenRouter, instead of the Anthropic SDK provider).
"""

from __future__ import annotations

import os
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL
from security_verifiers.models.providers.base import Provider, ResolveContext
from security_verifiers.models.spec import OPENAI_BASE_URL, ModelSpec, check_url, redact_url

PREFIX = "openai:"


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

    def identity_url(self, spec: ModelSpec) -> str:
        return spec.public_url

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        return {"local_backend": None, "api_key_env": spec.api_key_env}


PROVIDER = OpenAICompatibleProvider()
