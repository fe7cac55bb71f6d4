"""httpx2 transports under the OpenAI client: in-process baselines and an on-disk response cache.

Both sit *below* `openai.AsyncOpenAI`, so request building, retries and response parsing are the
client's real code in every case.
"""

from __future__ import annotations

import json

import httpx2

from security_verifiers.models.openai_protocol import (
    ChatPolicy,
    ChatRequest,
    chat_completion,
    error_body,
    model_list,
)
from security_verifiers.models.response_cache import ResponseCache


def with_json_body(request: httpx2.Request, body: object) -> httpx2.Request:
    """`request` with its body replaced by `body` as JSON (content-length updated)."""
    content = json.dumps(body).encode()
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    headers["content-length"] = str(len(content))
    return httpx2.Request(
        request.method, request.url, headers=headers, content=content,
        extensions=request.extensions,
    )  # fmt: skip


class PolicyTransport(httpx2.AsyncBaseTransport):
    """Answers OpenAI chat-completions requests in-process with a `ChatPolicy`."""

    def __init__(self, policy: ChatPolicy, model_id: str) -> None:
        self._policy = policy
        self._model_id = model_id

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            return httpx2.Response(200, json=model_list([self._model_id]))
        if request.method == "POST" and path.endswith("/chat/completions"):
            body = json.loads(await request.aread() or b"{}")
            chat = ChatRequest.from_body(body)
            return httpx2.Response(200, json=chat_completion(chat, self._policy(chat)))
        return httpx2.Response(404, json=error_body(f"no route for {request.method} {path}"))


class CachingTransport(httpx2.AsyncBaseTransport):
    """Serves repeated chat-completions requests from a `ResponseCache`.

    The key is the full request: method, URL and the canonical JSON body (model, messages,
    every sampling argument). Only successful (200) responses are stored.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport, cache: ResponseCache) -> None:
        self._inner = inner
        self._cache = cache

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or not request.url.path.rstrip("/").endswith(
            "/chat/completions"
        ):
            return await self._inner.handle_async_request(request)
        body = await request.aread()
        key = self._cache.key(request.method, str(request.url), body)
        cached = self._cache.get(key)
        if cached is not None:
            return httpx2.Response(
                200, content=cached, headers={"content-type": "application/json"}
            )
        response = await self._inner.handle_async_request(request)
        if response.status_code == 200:
            content = await response.aread()
            self._cache.put(key, content)
            return httpx2.Response(
                200, content=content, headers={"content-type": "application/json"}
            )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class LlamaCppCompatTransport(httpx2.AsyncBaseTransport):
    """Adapts chat-completions requests to llama-cpp-python's server.

    Its request schema rejects `null` message fields (verifiers sends `tool_calls: null` on
    earlier assistant turns, so every multi-turn episode failed with HTTP 500) and ignores
    `max_completion_tokens` (verifiers' name for `max_tokens`, so generations ran to the end
    of the context). Both are rewritten here; everything else passes through untouched.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return await self._inner.handle_async_request(request)
        body = json.loads(await request.aread() or b"{}")
        body["messages"] = [
            {k: v for k, v in message.items() if v is not None} if isinstance(message, dict)
            else message
            for message in body.get("messages") or []
        ]  # fmt: skip
        if "max_completion_tokens" in body:
            limit = body.pop("max_completion_tokens")
            body.setdefault("max_tokens", limit)
        return await self._inner.handle_async_request(with_json_body(request, body))
