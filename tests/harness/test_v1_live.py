"""`security_verifiers.v1_live`: the scripted policies and the comparison of the two runs (the
live runs themselves are `make v1-live`; `make test-v1` runs E4's tool mode)."""

from __future__ import annotations

import pytest

from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatRequest, ToolCallReply
from security_verifiers.v1_live import (
    compare,
    main,
    scripted_tool_caller,
    seedless,
    served_policy,
)


def chat(*messages: dict, seed: int | None = None) -> ChatRequest:
    return ChatRequest(model="m", messages=list(messages), seed=seed)


def test_the_tool_caller_looks_up_the_first_link_once_then_answers():
    first_call = resolve_env("e4").hook("tool_policy")
    policy = scripted_tool_caller(first_call, lambda request: "answer")
    email = {"role": "user", "content": "see https://pay.example.test/x and http://b.test"}
    reply = policy(chat(email))
    assert isinstance(reply, ToolCallReply)
    assert reply.calls == [("lookup_url", {"url": "https://pay.example.test/x"})]
    assert policy(chat(email, {"role": "tool", "content": "{}"})) == "answer"
    assert policy(chat({"role": "user", "content": "no links here"})) == "answer"


def test_seedless_withholds_the_request_seed():
    seen = []
    seedless(lambda request: seen.append(request.seed) or "x")(chat(seed=7))
    assert seen == [None]


def test_compare_reports_every_disagreement():
    same = {"reward": 1.0, "components": {"decision": 1.0}, "error": None}
    assert compare({"a": same}, {"a": dict(same)}) == []
    problems = compare(
        {"a": same, "b": same},
        {"a": {"reward": 0.5, "components": {"decision": 0.5}, "error": None},
         "c": same},
    )  # fmt: skip
    assert problems[0].startswith("items differ: classic only ['b'], v1 only ['c']")
    assert "a: reward classic 1.0 != v1 0.5" in problems
    assert "a: decision classic 1.0 != v1 0.5" in problems
    failed = {"reward": None, "components": {}, "error": [{"type": "ProviderError"}]}
    assert compare({"a": same}, {"a": failed}) == [
        "a: v1 rollout failed: [{'type': 'ProviderError'}]"
    ]


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path):
    with pytest.raises(UserError, match="--policy nope: not a built-in model of e4"):
        served_policy("e4", "nope", tools=False)
    with pytest.raises(UserError, match="--tools: no scripted tool caller for e1"):
        served_policy("e1", "always-abstain", tools=True)
    assert main(["--env", "e4", "--vf-eval", str(tmp_path / "missing")]) == 2
    assert "not found (run `make test-v1`" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--env", "e4", "--bogus"])
