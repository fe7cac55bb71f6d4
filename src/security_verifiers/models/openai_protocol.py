"""The small slice of the OpenAI chat-completions wire format the project serves itself.

Built-in baselines answer through this format (in-process, or over HTTP from `sv serve`),
so every model — remote API, vLLM server or baseline — travels the same client code path.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ChatRequest:
    """The parts of a chat-completions request a policy may look at."""

    model: str
    messages: Sequence[Mapping[str, Any]]
    seed: int | None = None
    temperature: float | None = None

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> ChatRequest:
        return cls(
            model=str(body.get("model", "")),
            messages=list(body.get("messages") or []),
            seed=body.get("seed"),
            temperature=body.get("temperature"),
        )

    def last_user_text(self) -> str:
        """Text of the last user message ('' if none)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return message_text(message.get("content"))
        return ""


@dataclass(frozen=True)
class ToolCallReply:
    """An assistant turn that calls tools: (name, arguments) pairs, optional text."""

    calls: Sequence[tuple[str, Mapping[str, Any]]]
    content: str = ""


ChatPolicy = Callable[[ChatRequest], "str | ToolCallReply"]
"""A model as a function: request in, assistant text (or tool calls) out."""


def message_text(content: Any) -> str:
    """Flatten OpenAI message content (a string or a list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            part.get("text", "") for part in content if isinstance(part, Mapping)
        ).strip()
    return ""


def count_tokens(text: str) -> int:
    """A rough token count (whitespace words) for built-in models that have no tokenizer."""
    return len(text.split())


def chat_completion(request: ChatRequest, reply: str | ToolCallReply) -> dict[str, Any]:
    """A `chat.completion` response object carrying `reply` as the assistant message."""
    prompt_tokens = sum(count_tokens(message_text(m.get("content"))) for m in request.messages)
    message: dict[str, Any] = {"role": "assistant", "content": reply}
    finish_reason = "stop"
    if isinstance(reply, ToolCallReply):
        finish_reason = "tool_calls"
        message = {
            "role": "assistant",
            "content": reply.content or None,
            "tool_calls": [
                {
                    "id": f"call_{uuid.uuid4().hex[:16]}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(dict(arguments))},
                }
                for name, arguments in reply.calls
            ],
        }
    completion_tokens = count_tokens(message.get("content") or "")
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def completion_chunks(completion: Mapping[str, Any], include_usage: bool = False) -> list[dict]:
    """`completion` (a `chat.completion`) as the `chat.completion.chunk` objects a streamed
    response carries: the whole message in one delta, then the finish reason, then (with
    `include_usage`, as `stream_options.include_usage` asks) a usage chunk without choices."""
    choice = completion["choices"][0]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {"id": completion["id"], "object": "chat.completion.chunk",
                "created": completion["created"], "model": completion["model"],
                "choices": choices, **extra}  # fmt: skip

    done = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"], "logprobs": None}
    chunks = [
        chunk([{"index": 0, "delta": delta, "finish_reason": None, "logprobs": None}]),
        chunk([done]),
    ]
    if include_usage:
        chunks.append(chunk([], usage=completion["usage"]))
    return chunks


def model_list(model_ids: Sequence[str]) -> dict[str, Any]:
    """A `/v1/models` response listing `model_ids`."""
    return {
        "object": "list",
        "data": [{"id": m, "object": "model", "created": 0, "owned_by": "sv"} for m in model_ids],
    }


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
