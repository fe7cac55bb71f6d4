"""`sv serve`'s policy server answers streamed chat requests (`stream: true`) as server-sent
events, the way verifiers v1's model calls ask for them; read with the official openai SDK."""

from __future__ import annotations

from openai import OpenAI

from security_verifiers.models.openai_protocol import ChatRequest, ToolCallReply
from security_verifiers.serving import PolicyServer, serve_in_thread

ANSWER = '{"label": "Phishing", "confidence": 0.8, "evidence": []}'
MESSAGES = [{"role": "system", "content": "triage"}, {"role": "user", "content": "an email"}]


def test_a_streamed_answer_equals_the_unstreamed_one():
    server = PolicyServer(policy=lambda chat: ANSWER, model_id="heuristic")
    with serve_in_thread(server) as url:
        client = OpenAI(base_url=url, api_key="x")
        whole = client.chat.completions.create(model="heuristic", messages=MESSAGES)
        stream = client.chat.completions.create(
            model="heuristic", messages=MESSAGES, stream=True,
            stream_options={"include_usage": True},
        )  # fmt: skip
        chunks = list(stream)
    assert whole.choices[0].message.content == ANSWER
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == ANSWER
    assert [c.choices[0].finish_reason for c in chunks if c.choices] == [None, "stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage == whole.usage
    assert chunks[0].choices[0].delta.role == "assistant"


def test_a_streamed_tool_call_and_no_usage_unless_asked():
    def policy(chat: ChatRequest) -> ToolCallReply:
        return ToolCallReply(calls=[("lookup_url", {"url": "http://x.test"})])

    with serve_in_thread(PolicyServer(policy=policy, model_id="tools")) as url:
        chunks = list(OpenAI(base_url=url, api_key="x").chat.completions.create(
            model="tools", messages=MESSAGES, stream=True))  # fmt: skip
    assert all(c.usage is None for c in chunks) and len(chunks) == 2
    (call,) = chunks[0].choices[0].delta.tool_calls
    assert call.index == 0 and call.function.name == "lookup_url"
    assert call.function.arguments == '{"url": "http://x.test"}'
    assert chunks[1].choices[0].finish_reason == "tool_calls"
