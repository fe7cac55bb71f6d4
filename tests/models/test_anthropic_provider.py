"""`anthropic/<model>`: the official anthropic SDK against a Messages API server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import openai
import pytest
from fake_provider_servers import FakeAnthropic, running

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.models.clients import build_client, check_endpoint
from security_verifiers.models.openai_protocol import ToolCallReply
from security_verifiers.models.providers.anthropic_sdk import request_args
from security_verifiers.models.providers.registry import provider_for, resolve_model

MODEL = "claude-3-5-haiku-latest"
SCHEMA = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}


@pytest.fixture(autouse=True)
def anthropic_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def chat(url: str, max_retries: int = 2, **kwargs) -> tuple[object, object]:
    spec = resolve_model(f"anthropic/{MODEL}@{url}", baselines={})

    async def go():
        client = build_client(spec, baselines={}, max_retries=max_retries, timeout_s=30)
        try:
            await check_endpoint(client, spec)
            return await client.chat.completions.create(model=spec.model_id, **kwargs)
        finally:
            await client.close()

    return spec, asyncio.run(go())


def test_names_resolve_to_the_anthropic_provider(monkeypatch):
    spec = resolve_model(f"anthropic/{MODEL}", baselines={})
    assert spec.kind == "anthropic" and spec.model_id == MODEL
    assert spec.base_url == "https://api.anthropic.com" and spec.slug == f"anthropic-{MODEL}"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/")
    assert resolve_model(f"anthropic/{MODEL}", baselines={}).base_url == "http://127.0.0.1:9"
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        resolve_model(f"anthropic/{MODEL}", baselines={})
    # OpenRouter-style ids stay reachable over the OpenAI protocol
    other = resolve_model("openai:anthropic/claude-x@http://127.0.0.1:9/v1", baselines={})
    assert other.kind == "endpoint" and other.model_id == "anthropic/claude-x"
    assert provider_for("anthropic").price(MODEL) == (0.80, 4.00)


def test_sdk_request_translation_usage_and_structured_output():
    server = FakeAnthropic(lambda req: '{"label": "Benign"}', MODEL)
    with running(server) as url:
        _, reply = chat(
            url,
            messages=[{"role": "system", "content": "Be terse."},
                      {"role": "user", "content": "Classify this flow."}],
            temperature=0.0, max_completion_tokens=64, seed=7, stop=["\n\n"],
            response_format={"type": "json_schema",
                             "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}},
        )  # fmt: skip
    assert reply.choices[0].message.content == '{"label": "Benign"}'
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.prompt_tokens == 5 and reply.usage.completion_tokens == 3
    [body] = server.bodies
    assert body["model"] == MODEL and body["system"] == "Be terse." and body["max_tokens"] == 64
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Classify this flow."}]}
    ]
    assert body["temperature"] == 0.0 and body["stop_sequences"] == ["\n\n"]
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert "seed" not in body  # the Messages API has none
    assert "temperature" not in request_args({"model": "x", "temperature": 0.0}, "claude-opus-4-7")
    headers = server.headers[0]
    key = headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")
    assert key == "test-key" and "anthropic-version" in headers


def test_tool_calls_round_trip():
    server = FakeAnthropic(lambda req: ToolCallReply([("scan", {"path": "a.tf"})], "Scanning."),
                           MODEL)  # fmt: skip
    tools = [{"type": "function", "function": {
        "name": "scan", "description": "Run the scanner",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]  # fmt: skip
    history = [
        {"role": "user", "content": "Audit it."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "toolu_1", "type": "function",
         "function": {"name": "scan", "arguments": "{\"path\": \"b.tf\"}"}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "2 findings"},
    ]  # fmt: skip
    with running(server) as url:
        _, reply = chat(url, messages=history, tools=tools, tool_choice="required")
    message = reply.choices[0].message
    assert reply.choices[0].finish_reason == "tool_calls" and message.content == "Scanning."
    [call] = message.tool_calls
    assert call.function.name == "scan" and json.loads(call.function.arguments) == {"path": "a.tf"}
    body = server.bodies[0]
    [tool] = body["tools"]
    assert tool["name"] == "scan" and tool["input_schema"]["type"] == "object"
    assert body["tool_choice"] == {"type": "any"}
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "scan", "input": {"path": "b.tf"}}
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2 findings"}
    ]


def test_the_sdk_retries_overload_and_errors_keep_their_status(monkeypatch):
    server = FakeAnthropic(lambda req: "ok", MODEL, fail_first=2)
    with running(server) as url:
        _, reply = chat(url, messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "ok" and len(server.bodies) == 3
        monkeypatch.setenv("ANTHROPIC_API_KEY", "bad-key")
        with pytest.raises(openai.AuthenticationError):
            chat(url, messages=[{"role": "user", "content": "hi"}])


def test_unreachable_server_is_a_clear_error(unused_port):
    with pytest.raises(UserError, match="cannot reach"):
        chat(f"http://127.0.0.1:{unused_port}", max_retries=0,
             messages=[{"role": "user", "content": "hi"}])  # fmt: skip


@pytest.fixture
def unused_port() -> int:
    from security_verifiers.models.local_server import free_port

    return free_port()


def test_sv_eval_e1_with_an_anthropic_model(tmp_path: Path):
    heuristic = baseline_policies(resolve_env("e1"))["heuristic"]
    server = FakeAnthropic(heuristic, MODEL)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    with running(server) as url:
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="test-key")
        proc = subprocess.run(
            [sys.executable, "-m", "security_verifiers.cli", "eval", "e1",
             "--models", f"anthropic/{MODEL}", "-n", "2", "--output-dir", str(tmp_path),
             "--quiet"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [run_dir] = (tmp_path / f"sv-env-network-logs--anthropic-{MODEL}").iterdir()
    meta = json.loads((run_dir / "metadata.json").read_text())
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert meta["status"] == "complete" and meta["model_kind"] == "anthropic"
    assert meta["base_url"] == url and meta["api_key_env"] == "ANTHROPIC_API_KEY"
    assert meta["structured_output"] == "json_schema" and meta["n_scored"] == 2
    assert all("output_config" in body for body in server.bodies) and len(server.bodies) == 2
    tokens = meta["token_usage"]
    assert tokens["input"] > 0 and tokens["output"] > 0
    assert meta["cost_usd"] == round((tokens["input"] * 0.80 + tokens["output"] * 4.00) / 1e6, 6)
    assert len(rows) == 2 and all(row.get("reward") is not None for row in rows)
    assert all("error" not in row or not row["error"] for row in rows)
