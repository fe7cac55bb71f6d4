"""`google/<model>`: the official google-genai SDK against a Gemini REST server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import openai
import pytest
from fake_provider_servers import FakeGemini, running

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.models.clients import build_client, check_endpoint
from security_verifiers.models.local_server import free_port
from security_verifiers.models.openai_protocol import ToolCallReply
from security_verifiers.models.providers.registry import resolve_model

MODEL = "gemini-2.0-flash"
SCHEMA = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}


@pytest.fixture(autouse=True)
def google_env(monkeypatch):
    for var in ("GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")


def chat(url: str, max_retries: int = 2, **kwargs):
    spec = resolve_model(f"google/{MODEL}@{url}", baselines={})

    async def go():
        client = build_client(spec, baselines={}, max_retries=max_retries, timeout_s=30)
        try:
            await check_endpoint(client, spec)
            return await client.chat.completions.create(model=spec.model_id, **kwargs)
        finally:
            await client.close()

    return asyncio.run(go())


def test_names_resolve_to_the_google_provider(monkeypatch):
    spec = resolve_model(f"google/{MODEL}", baselines={})
    assert spec.kind == "google" and spec.model_id == MODEL and spec.api_key_env == "GEMINI_API_KEY"
    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(UserError, match="GEMINI_API_KEY"):
        resolve_model(f"google/{MODEL}", baselines={})
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
    assert resolve_model(f"google/{MODEL}", baselines={}).base_url == "http://127.0.0.1:9"


def test_sdk_request_translation_usage_and_structured_output():
    server = FakeGemini(lambda req: '{"label": "Benign"}', MODEL)
    with running(server) as url:
        reply = chat(
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
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Classify this flow."}]}]
    assert body["systemInstruction"]["parts"][0]["text"] == "Be terse."
    config = body["generationConfig"]
    assert config["maxOutputTokens"] == 64 and config["temperature"] == 0.0
    assert config["seed"] == 7 and config["stopSequences"] == ["\n\n"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == SCHEMA
    assert server.headers[0]["x-goog-api-key"] == "test-key"


def test_tool_calls_round_trip():
    server = FakeGemini(lambda req: ToolCallReply([("scan", {"path": "a.tf"})]), MODEL)
    tools = [{"type": "function", "function": {
        "name": "scan", "description": "Run the scanner",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]  # fmt: skip
    history = [
        {"role": "user", "content": "Audit it."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "scan", "arguments": "{\"path\": \"b.tf\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "2 findings"},
    ]  # fmt: skip
    with running(server) as url:
        reply = chat(url, messages=history, tools=tools, tool_choice="auto")
    assert reply.choices[0].finish_reason == "tool_calls"
    [call] = reply.choices[0].message.tool_calls
    assert call.function.name == "scan" and json.loads(call.function.arguments) == {"path": "a.tf"}
    body = server.bodies[0]
    [declaration] = body["tools"][0]["functionDeclarations"]
    # the SDK writes this key in snake_case (the REST API's JSON mapping accepts both)
    parameters = declaration.get("parametersJsonSchema") or declaration["parameters_json_schema"]
    assert declaration["name"] == "scan" and parameters["type"] == "object"
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    call_part = body["contents"][1]["parts"][0]["functionCall"]
    assert body["contents"][1]["role"] == "model"
    assert call_part["name"] == "scan" and call_part["args"] == {"path": "b.tf"}
    response = body["contents"][2]["parts"][0]["functionResponse"]
    assert response["name"] == "scan" and response["response"] == {"result": "2 findings"}


def test_the_sdk_retries_and_errors_keep_their_status(monkeypatch):
    server = FakeGemini(lambda req: "ok", MODEL, fail_first=1)
    with running(server) as url:
        reply = chat(url, messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "ok" and len(server.bodies) == 2
        monkeypatch.setenv("GEMINI_API_KEY", "bad-key")
        with pytest.raises(openai.AuthenticationError):
            chat(url, messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(UserError, match="cannot reach"):
        chat(f"http://127.0.0.1:{free_port()}", max_retries=0,
             messages=[{"role": "user", "content": "hi"}])  # fmt: skip


def test_sv_eval_e1_with_a_google_model(tmp_path: Path):
    server = FakeGemini(baseline_policies(resolve_env("e1"))["heuristic"], MODEL)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GOOGLE_"))}
    with running(server) as url:
        env.update(GOOGLE_GEMINI_BASE_URL=url, GEMINI_API_KEY="test-key")
        proc = subprocess.run(
            [sys.executable, "-m", "security_verifiers.cli", "eval", "e1",
             "--models", f"google/{MODEL}", "-n", "2", "--output-dir", str(tmp_path), "--quiet"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [run_dir] = (tmp_path / f"sv-env-network-logs--google-{MODEL}").iterdir()
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["status"] == "complete" and meta["model_kind"] == "google"
    assert meta["n_scored"] == 2 and meta["structured_output"] == "json_schema"
    tokens = meta["token_usage"]
    assert tokens["input"] > 0 and tokens["output"] > 0
    assert meta["cost_usd"] == round((tokens["input"] * 0.10 + tokens["output"] * 0.40) / 1e6, 6)
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(row.get("reward") is not None for row in rows)
