"""Putting a provider's official SDK below the OpenAI client the harness calls.

`SDKTransport` is an httpx2 transport: it receives the OpenAI chat-completions request the
client built (verifiers' client, sampling arguments, tools, `response_format`), hands it to a
subclass that calls the SDK, and returns the SDK's answer as an OpenAI `chat.completion` with
its real token usage. `GET /models` is answered from the SDK's model list, so the harness's
endpoint check works unchanged. SDK errors keep their HTTP status (401 stays an authentication
error); connection failures become transport errors (the client's connection error).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2

from security_verifiers.models.openai_protocol import error_body, message_text, model_list


class SDKStatusError(Exception):
    """An SDK error with an HTTP status: answered as that status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class SDKConnectionError(Exception):
    """The SDK could not reach its server (after its own retries)."""


class SDKTransport(httpx2.AsyncBaseTransport):
    """Routes `/models` and `/chat/completions`; subclasses implement the two SDK calls."""

    async def list_models(self) -> list[str]:
        raise NotImplementedError

    async def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI `chat.completion` for an OpenAI chat-completions request body."""
        raise NotImplementedError

    def translate_error(self, exc: Exception) -> Exception:
        """`exc` as an `SDKStatusError` or `SDKConnectionError`; anything else is re-raised."""
        return exc

    async def aclose_sdk(self) -> None:
        """Close the SDK client."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        try:
            if request.method == "GET" and path.endswith("/models"):
                return httpx2.Response(200, json=model_list(await self._call(self.list_models())))
            if request.method == "POST" and path.endswith("/chat/completions"):
                body = json.loads(await request.aread() or b"{}")
                if body.get("stream"):
                    raise SDKStatusError(400, "streaming is not supported through the SDK adapter")
                return httpx2.Response(200, json=await self._call(self.chat(body)))
        except SDKStatusError as exc:
            kind = "server_error" if exc.status >= 500 else "invalid_request_error"
            return httpx2.Response(exc.status, json=error_body(str(exc), kind))
        except SDKConnectionError as exc:
            raise httpx2.ConnectError(str(exc), request=request) from None
        return httpx2.Response(404, json=error_body(f"no route for {request.method} {path}"))

    async def _call(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except (SDKStatusError, SDKConnectionError):
            raise
        except Exception as exc:
            translated = self.translate_error(exc)
            if translated is exc:
                raise
            raise translated from None

    async def aclose(self) -> None:
        await self.aclose_sdk()


# -- the OpenAI side, shared by every adapter ----------------------------------------------------


def max_tokens(body: Mapping[str, Any], default: int = 1024) -> int:
    return int(body.get("max_completion_tokens") or body.get("max_tokens") or default)


def stop_list(body: Mapping[str, Any]) -> list[str]:
    stop = body.get("stop")
    return [stop] if isinstance(stop, str) else list(stop or [])


def schema_of(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a `response_format` asks for (OpenAI's or llama.cpp's dialect)."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema")
    if fmt.get("type") == "json_object":
        return fmt.get("schema") or {"type": "object"}
    return None


def tool_arguments(call: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed arguments of an OpenAI tool call ({} when they are not a JSON object)."""
    raw = (call.get("function") or {}).get("arguments") or "{}"
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def text_of(message: Mapping[str, Any]) -> str:
    return message_text(message.get("content"))


def completion(
    model: str,
    choices: Sequence[tuple[str, Sequence[tuple[str, str, dict[str, Any]]], str]],
    prompt_tokens: int,
    completion_tokens: int,
    reasoning_tokens: int | None = None,
) -> dict[str, Any]:
    """A `chat.completion`: choices are (text, [(call id, tool name, arguments)], finish).
    `reasoning_tokens` (part of `completion_tokens`) goes where OpenAI reports it."""
    out = []
    for index, (text, calls, finish) in enumerate(choices):
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [
                {"id": call_id or f"call_{uuid.uuid4().hex[:16]}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for call_id, name, args in calls
            ]  # fmt: skip
            finish = "tool_calls"
        elif message["content"] is None:
            message["content"] = ""
        out.append({"index": index, "message": message, "finish_reason": finish, "logprobs": None})
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": out,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            **(
                {"completion_tokens_details": {"reasoning_tokens": reasoning_tokens}}
                if reasoning_tokens is not None
                else {}
            ),
        },
    }
