"""Requests to llama.cpp's server are rewritten into the shape its schema accepts."""

from __future__ import annotations

import asyncio
import json

import httpx2
import openai

from security_verifiers.models.transports import LlamaCppCompatTransport


class Recorder(httpx2.AsyncBaseTransport):
    def __init__(self) -> None:
        self.bodies: list[dict] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        assert int(request.headers["content-length"]) == len(body)
        self.bodies.append(json.loads(body))
        reply = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": "ok"}}]}  # fmt: skip
        return httpx2.Response(200, json=reply)


def test_null_fields_dropped_and_token_limit_renamed():
    inner = Recorder()
    http = openai.DefaultAsyncHttpx2Client(transport=LlamaCppCompatTransport(inner))
    client = openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="x", http_client=http)
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello", "tool_calls": None},
        {"role": "user", "content": "again"},
    ]
    reply = asyncio.run(
        client.chat.completions.create(model="m", messages=messages, max_completion_tokens=7)
    )
    assert reply.choices[0].message.content == "ok"
    (body,) = inner.bodies
    assert body["messages"][1] == {"role": "assistant", "content": "hello"}
    assert body["max_tokens"] == 7 and "max_completion_tokens" not in body
