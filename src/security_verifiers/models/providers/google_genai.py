"""`google/<model>`: Gemini through the official `google-genai` SDK (`generateContent`).

Key: $GEMINI_API_KEY or $GOOGLE_API_KEY (the SDK's own order: GOOGLE_API_KEY first). Base URL:
`google/<model>@http(s)://HOST[:PORT]`, else $GOOGLE_GEMINI_BASE_URL, else Google's API.
Retries are the SDK's (`HttpRetryOptions`). Tools map to function declarations; a
`response_format` JSON schema maps to `response_mime_type=application/json` +
`response_json_schema`.
"""

from __future__ import annotations

import os
from typing import Any

import httpx2

from security_verifiers.models.capabilities import CapabilityTable, ModelCapabilities
from security_verifiers.models.pricing import list_price
from security_verifiers.models.providers.base import ClientOptions, Provider, ResolveContext
from security_verifiers.models.providers.sdk_models import parse_sdk_model
from security_verifiers.models.providers.sdk_transport import (
    SDKConnectionError,
    SDKStatusError,
    SDKTransport,
    completion,
    max_tokens,
    schema_of,
    stop_list,
    text_of,
    tool_arguments,
)
from security_verifiers.models.spec import ModelSpec

PREFIX = "google/"
API_KEY_ENVS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
BASE_URL_ENV = "GOOGLE_GEMINI_BASE_URL"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"

PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gemini-3-pro": (2.00, 12.00),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
    "gemini-2.0-flash-lite": (0.075, 0.30),
}
"""List prices (as of `models.pricing.PRICES_AS_OF`; prompts up to 200k tokens, thinking billed
as output); `--price-in/--price-out` override them."""

GEMINI_THINKING = ModelCapabilities("gemini-thinking", token_param="max_completion_tokens",
                                   reasoning="usage")  # fmt: skip
"""Gemini 2.5 and later think by default; thoughts count against `max_output_tokens` and
come back as `thoughts_token_count`. The thinking budget is not mapped (`reasoning_effort`)."""
GEMINI = ModelCapabilities("gemini", token_param="max_completion_tokens")

CAPABILITIES: CapabilityTable = (
    (r"gemini-(2\.5|[3-9])", GEMINI_THINKING),
    (r"gemini", GEMINI),
)
"""Gemini families: all take temperature, top_p and seed (generationConfig)."""

FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
          "RECITATION": "content_filter", "PROHIBITED_CONTENT": "content_filter"}  # fmt: skip


def api_key() -> str | None:
    return next((os.environ[e] for e in API_KEY_ENVS if os.environ.get(e)), None)


def to_contents(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(system instruction, Gemini contents) for an OpenAI chat-completions body."""
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    call_names: dict[str, str] = {}

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})

    for message in body.get("messages") or []:
        role, text = message.get("role"), text_of(message)
        if role in ("system", "developer"):
            system.append(text)
        elif role == "assistant":
            parts: list[dict[str, Any]] = [{"text": text}] if text else []
            for call in message.get("tool_calls") or []:
                name = (call.get("function") or {}).get("name", "")
                call_names[call.get("id", "")] = name
                parts.append({"function_call": {"id": call.get("id"), "name": name,
                                                "args": tool_arguments(call)}})  # fmt: skip
            add("model", parts)
        elif role == "tool":
            call_id = message.get("tool_call_id", "")
            add("user", [{"function_response": {"id": call_id or None,
                                                "name": call_names.get(call_id, "tool"),
                                                "response": {"result": text}}}])  # fmt: skip
        else:
            add("user", [{"text": text or " "}])
    return "\n\n".join(s for s in system if s), contents


def request_config(body: dict[str, Any]) -> dict[str, Any]:
    """`GenerateContentConfig` fields for an OpenAI chat-completions body."""
    system, _ = to_contents(body)
    config: dict[str, Any] = {"max_output_tokens": max_tokens(body)}
    if system:
        config["system_instruction"] = system
    for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("seed", "seed")):
        if body.get(ours) is not None:
            config[theirs] = body[ours]
    if int(body.get("n") or 1) > 1:
        config["candidate_count"] = int(body["n"])
    if stop := stop_list(body):
        config["stop_sequences"] = stop
    tools = [
        t.get("function") or {} for t in body.get("tools") or [] if t.get("type") == "function"
    ]
    if tools:
        config["tools"] = [{"function_declarations": [
            {"name": t.get("name", ""), "description": t.get("description", ""),
             "parameters_json_schema": t.get("parameters") or {"type": "object", "properties": {}}}
            for t in tools
        ]}]  # fmt: skip
        config["automatic_function_calling"] = {"disable": True}
        choice = body.get("tool_choice")
        mode = {"required": "ANY", "auto": "AUTO", "none": "NONE"}.get(choice or "")
        if isinstance(choice, dict) and choice.get("function"):
            name = choice["function"].get("name", "")
            config["tool_config"] = {"function_calling_config": {
                "mode": "ANY", "allowed_function_names": [name]}}  # fmt: skip
        elif mode:
            config["tool_config"] = {"function_calling_config": {"mode": mode}}
    schema = schema_of(body)
    if schema is not None:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = schema
    return config


def to_completion(response: Any, model: str) -> dict[str, Any]:
    """An OpenAI `chat.completion` for a `GenerateContentResponse`."""
    choices = []
    for candidate in response.candidates or []:
        parts = (candidate.content.parts if candidate.content else None) or []
        text = "".join(p.text for p in parts if p.text and not getattr(p, "thought", False))
        calls = [(p.function_call.id, p.function_call.name or "", dict(p.function_call.args or {}))
                 for p in parts if p.function_call]  # fmt: skip
        reason = candidate.finish_reason
        reason = getattr(reason, "value", reason) or "STOP"
        choices.append((text, calls, FINISH.get(str(reason), "stop")))
    usage = response.usage_metadata
    prompt = int(getattr(usage, "prompt_token_count", 0) or 0)
    output = int(getattr(usage, "candidates_token_count", 0) or 0)
    thoughts = int(getattr(usage, "thoughts_token_count", 0) or 0)
    output += thoughts  # billed as output
    return completion(model, choices or [("", [], "stop")], prompt, output, thoughts or None)


class GeminiTransport(SDKTransport):
    def __init__(self, client: Any) -> None:
        self.client = client  # google.genai.Client

    async def list_models(self) -> list[str]:
        pager = await self.client.aio.models.list()
        return [str(m.name).removeprefix("models/") async for m in pager]

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        model = str(body.get("model", ""))
        _, contents = to_contents(body)
        response = await self.client.aio.models.generate_content(
            model=model, contents=contents, config=request_config(body)
        )
        return to_completion(response, model)

    def translate_error(self, exc: Exception) -> Exception:
        from google.genai import errors

        if isinstance(exc, errors.APIError):
            return SDKStatusError(int(exc.code or 500), f"Gemini API: {exc.message or exc}")
        if isinstance(exc, OSError) or type(exc).__module__.startswith(("aiohttp", "httpx")):
            return SDKConnectionError(f"Gemini API unreachable: {exc}")
        return exc

    async def aclose_sdk(self) -> None:
        await self.client.aio.aclose()


class GoogleProvider(Provider):
    kind = "google"
    schemes = (PREFIX,)
    order = 40

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        return parse_sdk_model(
            name, prefix=PREFIX, kind=self.kind, base_url_env=BASE_URL_ENV,
            default_base_url=DEFAULT_BASE_URL, key_envs=API_KEY_ENVS,
        )  # fmt: skip

    def help_lines(self) -> list[tuple[str, str]]:
        return [(f"{PREFIX}<model>[@URL]", "Gemini via the google-genai SDK ($GEMINI_API_KEY)")]

    def transport(self, spec: ModelSpec, options: ClientOptions) -> httpx2.AsyncBaseTransport:
        from google import genai
        from google.genai import types

        retry = types.HttpRetryOptions(attempts=options.max_retries + 1)
        http_options = types.HttpOptions(
            base_url=spec.base_url, timeout=int(options.timeout_s * 1000), retry_options=retry
        )
        return GeminiTransport(
            genai.Client(api_key=api_key() or "EMPTY", http_options=http_options)
        )

    def client_retries(self, options: ClientOptions) -> int:
        return 0  # the SDK retries

    def capability_table(self) -> CapabilityTable:
        return CAPABILITIES

    def price(self, model_id: str) -> tuple[float, float] | None:
        return list_price(PRICES_USD_PER_MTOK, model_id)

    def identity_url(self, spec: ModelSpec) -> str:
        return spec.public_url

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        return {"local_backend": None, "api_key_env": spec.api_key_env}


PROVIDER = GoogleProvider()
