"""`anthropic/<model>`: Claude through the official `anthropic` SDK (Messages API).

Key: $ANTHROPIC_API_KEY. Base URL: `anthropic/<model>@http(s)://HOST[:PORT]`, else
$ANTHROPIC_BASE_URL, else https://api.anthropic.com. Retries are the SDK's (429, 5xx,
timeouts, with backoff). `temperature` / `top_p` go to the models that accept them (not to
Opus 4.7+ and the later families, which reject them); there is no seed. Tools map to Anthropic
tool use; `response_format` JSON schemas map to structured outputs (`output_config.format`).
An OpenAI-compatible server that names its models `anthropic/...` (OpenRouter) is reached with
`openai:anthropic/<model>`.
"""

from __future__ import annotations

import os
from typing import Any

import httpx2

from security_verifiers.models.capabilities import (
    CapabilityTable,
    ModelCapabilities,
    match_capabilities,
)
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

PREFIX = "anthropic/"
API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
DEFAULT_BASE_URL = "https://api.anthropic.com"

PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-opus-4-0": (15.00, 75.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-sonnet-4-0": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
}
"""List prices (as of `models.pricing.PRICES_AS_OF`); `--price-in/--price-out` override them."""

CLAUDE = ModelCapabilities("claude", seed=False)
CLAUDE_NO_SAMPLING = ModelCapabilities("claude-no-sampling", temperature=False, top_p=False,
                                       seed=False)  # fmt: skip
"""Opus 4.7+ and the later families reject `temperature` / `top_p` (400): they are sent none."""
CAPABILITIES: CapabilityTable = (
    (r"claude-(opus-4-[7-9]|opus-[5-9]|sonnet-[5-9]|fable|mythos)", CLAUDE_NO_SAMPLING),
    (r"claude", CLAUDE),
)
"""Claude families (Messages API: no seed; extended thinking is not requested)."""


def accepts_sampling(model: str) -> bool:
    return match_capabilities(CAPABILITIES, model, CLAUDE).temperature


FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
          "tool_use": "tool_calls", "refusal": "content_filter"}  # fmt: skip


def to_messages(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, Anthropic messages) for an OpenAI chat-completions body."""
    system: list[str] = []
    messages: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)  # the API wants alternating roles
        else:
            messages.append({"role": role, "content": blocks})

    for message in body.get("messages") or []:
        role, text = message.get("role"), text_of(message)
        if role in ("system", "developer"):
            system.append(text)
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            for call in message.get("tool_calls") or []:
                name = (call.get("function") or {}).get("name", "")
                blocks.append({"type": "tool_use", "id": call.get("id") or name, "name": name,
                               "input": tool_arguments(call)})  # fmt: skip
            add("assistant", blocks)
        elif role == "tool":
            add("user", [{"type": "tool_result", "tool_use_id": message.get("tool_call_id", ""),
                          "content": text}])  # fmt: skip
        else:
            add("user", [{"type": "text", "text": text or " "}])
    return "\n\n".join(s for s in system if s), messages


def request_args(body: dict[str, Any], model: str) -> dict[str, Any]:
    """`messages.create` keyword arguments for an OpenAI chat-completions body."""
    system, messages = to_messages(body)
    args: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens(body)}
    if system:
        args["system"] = system
    # the SDK's `create` has no sampling arguments; the API still takes them for the models
    # that support them, so they travel in the body
    if accepts_sampling(model):
        sampling = {k: body[k] for k in ("temperature", "top_p") if body.get(k) is not None}
        if sampling:
            args["extra_body"] = sampling
    if stop := stop_list(body):
        args["stop_sequences"] = stop
    tools = [
        t.get("function") or {} for t in body.get("tools") or [] if t.get("type") == "function"
    ]
    if tools:
        args["tools"] = [
            {"name": t.get("name", ""), "description": t.get("description", ""),
             "input_schema": t.get("parameters") or {"type": "object", "properties": {}}}
            for t in tools
        ]  # fmt: skip
        choice = body.get("tool_choice")
        if choice == "required":
            args["tool_choice"] = {"type": "any"}
        elif choice in ("auto", "none"):
            args["tool_choice"] = {"type": choice}
        elif isinstance(choice, dict) and choice.get("function"):
            args["tool_choice"] = {"type": "tool", "name": choice["function"].get("name", "")}
    schema = schema_of(body)
    if schema is not None:
        args["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    return args


def to_completion(message: Any, model: str) -> dict[str, Any]:
    """An OpenAI `chat.completion` for an Anthropic `Message`."""
    text = "".join(b.text for b in message.content if getattr(b, "type", "") == "text")
    calls = [(b.id, b.name, dict(b.input or {})) for b in message.content
             if getattr(b, "type", "") == "tool_use"]  # fmt: skip
    usage = message.usage
    prompt = int(usage.input_tokens or 0)
    prompt += int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    prompt += int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    finish = FINISH.get(message.stop_reason or "", "stop")
    return completion(model, [(text, calls, finish)], prompt, int(usage.output_tokens or 0))


class AnthropicTransport(SDKTransport):
    def __init__(self, client: Any) -> None:
        self.client = client  # anthropic.AsyncAnthropic

    async def list_models(self) -> list[str]:
        return [m.id async for m in self.client.models.list()]

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        model = str(body.get("model", ""))
        message = await self.client.messages.create(**request_args(body, model))
        return to_completion(message, model)

    def translate_error(self, exc: Exception) -> Exception:
        import anthropic

        if isinstance(exc, anthropic.APIStatusError):
            return SDKStatusError(exc.status_code, f"Anthropic API: {exc.message}")
        if isinstance(exc, anthropic.APIConnectionError):
            return SDKConnectionError(f"Anthropic API unreachable: {exc}")
        return exc

    async def aclose_sdk(self) -> None:
        await self.client.close()


class AnthropicProvider(Provider):
    kind = "anthropic"
    schemes = (PREFIX,)
    order = 40

    def parse(self, name: str, ctx: ResolveContext) -> ModelSpec | None:
        return parse_sdk_model(
            name, prefix=PREFIX, kind=self.kind, base_url_env=BASE_URL_ENV,
            default_base_url=DEFAULT_BASE_URL, key_envs=(API_KEY_ENV,),
        )  # fmt: skip

    def help_lines(self) -> list[tuple[str, str]]:
        return [(f"{PREFIX}<model>[@URL]", f"Claude via the anthropic SDK (${API_KEY_ENV})")]

    def transport(self, spec: ModelSpec, options: ClientOptions) -> httpx2.AsyncBaseTransport:
        import anthropic

        client = anthropic.AsyncAnthropic(
            api_key=os.environ.get(API_KEY_ENV) or "EMPTY",
            base_url=spec.base_url,
            max_retries=options.max_retries,
            timeout=options.timeout_s,
        )
        return AnthropicTransport(client)

    def client_retries(self, options: ClientOptions) -> int:
        return 0  # the SDK retries

    def capability_table(self) -> CapabilityTable:
        return CAPABILITIES

    def capabilities(self, model_id: str) -> ModelCapabilities:
        return match_capabilities(CAPABILITIES, model_id, CLAUDE)

    def price(self, model_id: str) -> tuple[float, float] | None:
        return list_price(PRICES_USD_PER_MTOK, model_id)

    def identity_url(self, spec: ModelSpec) -> str:
        return spec.public_url

    def metadata(self, spec: ModelSpec) -> dict[str, Any]:
        return {"local_backend": None, "api_key_env": API_KEY_ENV}


PROVIDER = AnthropicProvider()
