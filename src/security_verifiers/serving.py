"""A real OpenAI-compatible HTTP server on 127.0.0.1 that answers with a built-in policy.

Used by the tests and `make bench` (with a simulated latency and optional injected failures),
and by users who want to point another tool (vf-eval, a notebook) at a baseline. Answers
`stream: true` requests as server-sent events (verifiers v1 streams every model call).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from security_verifiers.models.openai_protocol import (
    ChatPolicy,
    ChatRequest,
    ToolCallReply,
    chat_completion,
    completion_chunks,
    error_body,
    model_list,
)


@dataclass
class ServerStats:
    """Counters of one server (several servers may share one, e.g. to see a joint limit)."""

    requests: int = 0
    failures_injected: int = 0
    seen_bodies: list[dict] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class ChatServer:
    """An OpenAI chat-completions server (aiohttp): the routes, the body, unknown models and
    the completion, streamed as server-sent events when asked. Subclasses say which models
    exist (`model_ids`, `knows`) and how each answers (`answer`: the reply text, or a response
    to send instead, e.g. an injected failure). The one server under `sv serve`, the tests'
    servers and `make bench`'s stub (`bench_server`)."""

    def model_ids(self) -> list[str]:
        raise NotImplementedError

    def knows(self, model: str) -> bool:
        return True

    def received(self, body: dict | None) -> None:
        """Called once per completion request (`body` None when it is not JSON)."""

    async def answer(
        self, chat: ChatRequest, body: dict
    ) -> str | ToolCallReply | web.StreamResponse:
        raise NotImplementedError

    def app(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        return app

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(model_list(self.model_ids()))

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            self.received(None)
            return web.json_response(error_body("body is not JSON"), status=400)
        self.received(body)
        if not self.knows(str(body.get("model"))):
            return web.json_response(error_body(f"unknown model {body.get('model')!r}"), status=404)
        chat = ChatRequest.from_body(body)
        reply = await self.answer(chat, body)
        if isinstance(reply, web.StreamResponse):
            return reply
        completion = chat_completion(chat, reply)
        if not body.get("stream"):
            return web.json_response(completion)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})  # fmt: skip
        await response.prepare(request)
        for chunk in completion_chunks(completion, include_usage):
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


@dataclass
class PolicyServer(ChatServer):
    """Serves `policy` as model `model_id`.

    `latency_s` delays every completion; `fail_first` answers the first N completion requests
    with `fail_status` (e.g. 429 or 503) to exercise client retries.
    """

    policy: ChatPolicy
    model_id: str = "baseline"
    latency_s: float = 0.0
    fail_first: int = 0
    fail_status: int = 503
    record_bodies: bool = False
    stats: ServerStats = field(default_factory=ServerStats)

    def model_ids(self) -> list[str]:
        return [self.model_id]

    def received(self, body: dict | None) -> None:
        self.stats.requests += 1
        if body is not None and self.record_bodies:
            self.stats.seen_bodies.append(body)

    async def answer(
        self, chat: ChatRequest, body: dict
    ) -> str | ToolCallReply | web.StreamResponse:
        if self.stats.failures_injected < self.fail_first:
            self.stats.failures_injected += 1
            return web.json_response(
                error_body("injected failure", "server_error"), status=self.fail_status
            )
        if self.latency_s > 0:
            self.stats.enter()
            try:
                await asyncio.sleep(self.latency_s)
            finally:
                self.stats.leave()
        return self.policy(chat)


@contextmanager
def serve_in_thread(server: ChatServer, host: str = "127.0.0.1") -> Iterator[str]:
    """Run `server` on a free port in a background thread; yields its base URL (…/v1)."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(server.app(), access_log=None)
    ready = threading.Event()
    port_box: list[int] = []

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, host, 0)
        await site.start()
        port_box.append(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=run, name="sv-policy-server", daemon=True)
    thread.start()
    if not ready.wait(timeout=30):
        raise RuntimeError("policy server did not start")
    try:
        yield f"http://{host}:{port_box[0]}/v1"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


def serve_forever(server: PolicyServer, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Blocking server for `sv serve`."""
    web.run_app(server.app(), host=host, port=port, access_log=None, print=None)
