"""`serving.ChatServer`, the one OpenAI chat server: a server that knows its models answers an
unknown one with 404 (the bench stub), and a known one with a completion."""

from __future__ import annotations

import httpx

from security_verifiers.bench_server import TARGET_MODEL, TARGET_REPLY, StubModels
from security_verifiers.serving import serve_in_thread


def test_unknown_model_is_404_and_a_known_one_answers():
    stub = StubModels([], latency_s=0.0)
    with serve_in_thread(stub) as base_url:
        messages = [{"role": "user", "content": "hi"}]
        unknown = httpx.post(
            f"{base_url}/chat/completions", json={"model": "nope", "messages": messages}
        )
        assert unknown.status_code == 404
        assert "unknown model" in unknown.json()["error"]["message"]
        known = httpx.post(
            f"{base_url}/chat/completions", json={"model": TARGET_MODEL, "messages": messages}
        )
        assert known.status_code == 200
        assert known.json()["choices"][0]["message"]["content"] == TARGET_REPLY
        assert httpx.get(f"{base_url}/models").json()["data"][0]["id"] == TARGET_MODEL
    assert stub.requests == 2
