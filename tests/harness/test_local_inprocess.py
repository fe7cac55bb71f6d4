"""The in-process local backend (`InProcessLlama` + `LlamaTransport`) with the real SmolLM2 GGUF,
called the way the harness calls it: `openai.AsyncOpenAI` from `build_client`."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

import httpx2
import openai
import pytest

from security_verifiers.errors import UserError
from security_verifiers.models.clients import build_client
from security_verifiers.models.local_gguf import (
    DEFAULT_LOCAL_MODEL,
    builtin_gguf_path,
    local_runtime_available,
)
from security_verifiers.models.local_inprocess import InProcessLlama, request_kwargs
from security_verifiers.models.local_server import LOCAL_BACKEND_ENV, LocalServerPool
from security_verifiers.models.providers.registry import resolve_model

pytestmark = [
    pytest.mark.usefixtures("no_api_keys"),
    pytest.mark.skipif(not local_runtime_available(), reason="llama-cpp-python or GGUF missing"),
]

MESSAGES = [{"role": "user", "content": "Name one colour."}]
GREEDY = {"temperature": 0.0, "seed": 42, "max_completion_tokens": 12}
SAMPLED = {"temperature": 0.9, "top_p": 0.9, "seed": 7, "max_completion_tokens": 12}


@pytest.fixture(scope="module")
def model() -> Any:
    llm = InProcessLlama(gguf=builtin_gguf_path("smollm2-135m"), alias=DEFAULT_LOCAL_MODEL)
    llm.start()
    yield llm
    llm.stop()


def client_for(served: Any, **kwargs: Any) -> openai.AsyncOpenAI:
    spec = resolve_model(DEFAULT_LOCAL_MODEL, baselines={})
    spec = replace(spec, base_url=served.base_url)
    return build_client(spec, baselines={}, transport=served.transport(), **kwargs)


async def ask(client: openai.AsyncOpenAI, **sampling: Any) -> str:
    out = await client.chat.completions.create(
        model=DEFAULT_LOCAL_MODEL, messages=MESSAGES, **sampling
    )
    return out.choices[0].message.content or ""


def test_same_output_as_the_server_and_bare_llama(model, monkeypatch):
    """Greedy and seeded sampling: in-process == llama.cpp server == bare `Llama` (given the
    server's argument filling), token for token."""
    from llama_cpp import Llama

    async def both(client: openai.AsyncOpenAI) -> list[str]:
        try:
            return [await ask(client, **GREEDY), await ask(client, **SAMPLED)]
        finally:
            await client.close()

    inprocess = asyncio.run(both(client_for(model)))
    monkeypatch.setenv(LOCAL_BACKEND_ENV, "server")
    with LocalServerPool() as pool:
        server = pool.get(model.gguf, model.alias)
        served = asyncio.run(both(client_for(server)))
    bare = Llama(model_path=str(model.gguf), verbose=False, **model.llama_kwargs())
    try:
        direct = []
        for sampling in (GREEDY, SAMPLED):
            body = {"messages": MESSAGES, **sampling}
            body["max_tokens"] = body.pop("max_completion_tokens")
            out = bare.create_chat_completion(**request_kwargs(body)[1])
            direct.append(out["choices"][0]["message"]["content"])
    finally:
        bare.close()
    assert inprocess == served == direct
    assert all(inprocess)


def test_concurrent_requests_are_serialised_and_the_loop_stays_free(model, monkeypatch):
    active, peak = 0, 0
    lock = threading.Lock()
    complete = InProcessLlama.complete

    def counting(self: InProcessLlama, *args: Any) -> Any:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        try:
            return complete(self, *args)
        finally:
            with lock:
                active -= 1

    monkeypatch.setattr(InProcessLlama, "complete", counting)
    prompts = ["Name one colour.", "Name one animal.", "Name one city."]

    async def run() -> tuple[list[str], list[str], int]:
        client = client_for(model)
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        async def one(text: str) -> str:
            out = await client.chat.completions.create(
                model=DEFAULT_LOCAL_MODEL, messages=[{"role": "user", "content": text}], **GREEDY
            )
            return out.choices[0].message.content or ""

        try:
            sequential = [await one(p) for p in prompts]
            tick = asyncio.create_task(ticker())
            together = await asyncio.gather(*(one(p) for p in prompts))
            done.set()
            await tick
        finally:
            await client.close()
        return sequential, list(together), ticks

    sequential, together, ticks = asyncio.run(run())
    assert together == sequential, "concurrent requests must not interleave"
    assert peak == 1
    assert ticks > 3, "the event loop must keep running while the model generates"


def test_bad_requests_are_openai_errors(model):
    async def run() -> None:
        client = client_for(model, max_retries=0)
        try:
            with pytest.raises(openai.BadRequestError, match="invalid request: messages"):
                await client.chat.completions.create(
                    model=DEFAULT_LOCAL_MODEL, messages=[{"role": "nobody", "content": 1}]
                )
            with pytest.raises(openai.BadRequestError, match="streaming is not supported"):
                await client.chat.completions.create(
                    model=DEFAULT_LOCAL_MODEL, messages=MESSAGES, stream=True
                )
            assert [m.id for m in (await client.models.list()).data] == [DEFAULT_LOCAL_MODEL]
        finally:
            await client.close()
        transport = model.transport()
        raw = await transport.handle_async_request(
            httpx2.Request("POST", f"{model.base_url}/chat/completions", content=b"{not json")
        )
        assert raw.status_code == 400
        assert (await raw.aread()) and raw.json()["error"]["type"] == "invalid_request_error"
        missing = await transport.handle_async_request(
            httpx2.Request("GET", f"{model.base_url}/embeddings")
        )
        assert missing.status_code == 404

    asyncio.run(run())


def test_pool_default_is_in_process_and_close_frees_it(monkeypatch):
    monkeypatch.delenv(LOCAL_BACKEND_ENV, raising=False)
    before = set(threading.enumerate())
    with LocalServerPool() as pool:
        first = pool.get(builtin_gguf_path("smollm2-135m"), "m")
        assert isinstance(first, InProcessLlama) and first.alive()
        assert pool.get(first.gguf, "m") is first
        mine = [t for t in set(threading.enumerate()) - before if t.name.startswith("sv-llama")]
    assert not first.alive()
    assert len(mine) == 1 and not mine[0].is_alive(), "the worker thread must exit"

    async def after_close() -> None:
        client = client_for(first, max_retries=0)
        try:
            with pytest.raises(openai.InternalServerError, match="stopped"):
                await ask(client, **GREEDY)
        finally:
            await client.close()

    asyncio.run(after_close())


def test_unknown_backend_is_a_one_line_error(monkeypatch):
    monkeypatch.setenv(LOCAL_BACKEND_ENV, "gpu")
    with LocalServerPool() as pool, pytest.raises(UserError, match="expected one of inprocess"):
        pool.get(builtin_gguf_path("smollm2-135m"), "m")


def test_corrupt_gguf_fails_to_load_in_process(tmp_path):
    good = builtin_gguf_path("smollm2-135m").read_bytes()
    corrupt = tmp_path / "truncated.gguf"
    corrupt.write_bytes(good[: len(good) // 50])
    llm = InProcessLlama(gguf=corrupt, alias="m")
    with pytest.raises(UserError, match="could not load") as caught:
        llm.start()
    assert "\n" not in str(caught.value)
    assert not llm.alive()
