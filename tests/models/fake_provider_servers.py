"""Small HTTP servers on 127.0.0.1 speaking the Anthropic Messages API and Gemini's REST API.

They answer with a `ChatPolicy` (an E1 baseline, say), so the official SDKs run their real code
(request building, auth headers, retries, response parsing) against a local socket.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest, ToolCallReply
from security_verifiers.serving import serve_in_thread


def _words(text: str) -> int:
    return len(text.split())


@dataclass
class FakeProvider:
    policy: ChatPolicy
    model_id: str
    fail_first: int = 0
    """Answer the first N generation requests with 529/503 (the SDK must retry)."""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    failures: int = 0

    def _record(self, request: web.Request, body: dict[str, Any]) -> bool:
        self.bodies.append(body)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        if self.failures < self.fail_first:
            self.failures += 1
            return False
        return True


class FakeAnthropic(FakeProvider):
    """`GET /v1/models`, `POST /v1/messages`."""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/messages", self._messages)
        return app

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.model_id, "type": "model", "display_name": self.model_id,
                 "created_at": "2025-01-01T00:00:00Z"}  # fmt: skip
        return web.json_response(
            {"data": [model], "has_more": False, "first_id": self.model_id,
             "last_id": self.model_id}
        )  # fmt: skip

    async def _messages(self, request: web.Request) -> web.Response:
        body = await request.json()
        key = request.headers.get("x-api-key") or request.headers.get("authorization", "")
        if key.removeprefix("Bearer ") == "bad-key":
            error = {"type": "authentication_error", "message": "invalid x-api-key"}
            return web.json_response({"type": "error", "error": error}, status=401)
        if not self._record(request, body):
            error = {"type": "overloaded_error", "message": "Overloaded"}
            return web.json_response({"type": "error", "error": error}, status=529)
        messages = [{"role": "system", "content": body["system"]}] if body.get("system") else []
        for message in body["messages"]:
            content = message["content"]
            if isinstance(content, list):
                content = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
            messages.append({"role": message["role"], "content": content})
        reply = self.policy(ChatRequest(model=body["model"], messages=messages))
        if isinstance(reply, ToolCallReply):
            blocks = [{"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:12]}", "name": n,
                       "input": dict(a)} for n, a in reply.calls]  # fmt: skip
            text, stop = reply.content, "tool_use"
        else:
            blocks, text, stop = [], reply, "end_turn"
        if text:
            blocks.insert(0, {"type": "text", "text": text})
        prompt = sum(_words(str(m["content"])) for m in messages)
        return web.json_response({
            "id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant",
            "model": body["model"], "content": blocks, "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": _words(text or "") + 1},
        })  # fmt: skip


class FakeGemini(FakeProvider):
    """`GET /{version}/models`, `POST /{version}/models/{model}:generateContent`."""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/{version}/models", self._models)
        app.router.add_post("/{version}/models/{call}", self._generate)
        return app

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"models": [{"name": f"models/{self.model_id}", "displayName": self.model_id}]}
        )

    async def _generate(self, request: web.Request) -> web.Response:
        model, _, method = request.match_info["call"].partition(":")
        if method != "generateContent":
            return web.json_response({"error": {"code": 404, "message": "no such method"}}, 404)
        body = await request.json()
        if request.headers.get("x-goog-api-key") == "bad-key":
            error = {"code": 401, "message": "API key not valid", "status": "UNAUTHENTICATED"}
            return web.json_response({"error": error}, status=401)
        if not self._record(request, body):
            error = {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}
            return web.json_response({"error": error}, status=503)
        messages = []
        if system := body.get("systemInstruction"):
            messages.append({"role": "system", "content": system["parts"][0]["text"]})
        for content in body["contents"]:
            text = " ".join(p.get("text", "") for p in content["parts"] if "text" in p)
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": text})
        reply = self.policy(ChatRequest(model=model, messages=messages))
        if isinstance(reply, ToolCallReply):
            parts = [{"functionCall": {"name": n, "args": dict(a)}} for n, a in reply.calls]
            text = reply.content
        else:
            parts, text = [], reply
        if text:
            parts.insert(0, {"text": text})
        prompt = sum(_words(m["content"]) for m in messages)
        output = _words(text or "") + 1
        return web.json_response({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": output,
                              "totalTokenCount": prompt + output},
            "modelVersion": model,
        })  # fmt: skip


@contextmanager
def running(server: FakeProvider) -> Iterator[str]:
    """Serve `server` on a free 127.0.0.1 port; yields its root URL (no /v1)."""
    with serve_in_thread(server) as url:  # type: ignore[arg-type]
        yield url.removesuffix("/v1")
