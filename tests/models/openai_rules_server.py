"""An OpenAI-compatible server on 127.0.0.1 that enforces the request rules real servers do.

Model names decide the rules, as OpenAI and vLLM do:
- reasoning models (`gpt-5*` except `-chat`, `o1`/`o3`/`o4*`): a non-default `temperature`,
  any `top_p` or `max_tokens` is a 400 (OpenAI's wording); hidden reasoning of
  `REASONING_TOKENS[effort]` tokens counts against `max_completion_tokens`, reported in
  `usage.completion_tokens_details.reasoning_tokens`; when it exhausts the cap the reply is
  empty with `finish_reason: "length"`;
- R1-style models (`*r1*`): the content is `<think>...</think>` and then the answer, all inside
  `max_tokens`; a cap inside the reasoning cuts the content mid-thought (`length`);
- classic chat models: `reasoning_effort` is a 400 ("Unrecognized request argument");
- failure models: `ctx-small*` answers prompts longer than `CONTEXT_TOKENS` with vLLM's
  context-length 400, `empty-choices*` a 200 with `choices: []`, `html*` a 200 HTML page,
  `rejects*` a plain 400.
Answers come from a `ChatPolicy`; every request body is kept in `bodies`.

`python tests/models/openai_rules_server.py --port 8123` serves E1's heuristic until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from security_verifiers.models.openai_protocol import (
    ChatPolicy,
    ChatRequest,
    chat_completion,
    error_body,
    message_text,
    model_list,
)

REASONING_TOKENS = {"minimal": 40, "low": 200, "medium": 600, "high": 1500}
"""Hidden reasoning per request, by `reasoning_effort` (medium when none is sent)."""
THINK_WORDS = 300
CONTEXT_TOKENS = 64


def is_reasoning(model: str) -> bool:
    name = model.lower().rsplit("/", 1)[-1]
    return bool(re.match(r"(o1|o3|o4)(-|$)", name)) or (
        name.startswith("gpt-5") and "-chat" not in name
    )


def tokens(text: str) -> int:
    return len(text.split())


@dataclass
class RulesServer:
    policy: ChatPolicy
    models: tuple[str, ...] = ()
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        return app

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(model_list(list(self.models)))

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        model = str(body.get("model", ""))
        name = model.lower().rsplit("/", 1)[-1]
        if name.startswith("html"):
            return web.Response(text="<!DOCTYPE html><html><body>Gateway login</body></html>",
                                content_type="text/html")  # fmt: skip
        if name.startswith("empty-choices"):
            done = chat_completion(ChatRequest.from_body(body), "")
            return web.json_response({**done, "choices": []})
        if name.startswith("rejects"):
            return bad("Invalid value for 'response_format': this server does not support it.")
        chat = ChatRequest.from_body(body)
        prompt = sum(tokens(message_text(m.get("content"))) for m in chat.messages)
        if name.startswith("ctx-small") and prompt > CONTEXT_TOKENS:
            return bad(
                f"This model's maximum context length is {CONTEXT_TOKENS} tokens. However, you "
                f"requested {prompt + int(body.get('max_tokens') or 0)} tokens "
                f"({prompt} in the messages). Please reduce the length of the messages.",
                param="messages", code="context_length_exceeded",
            )  # fmt: skip
        if is_reasoning(model):
            return self._reasoning(body, chat)
        if "reasoning_effort" in body:
            return bad("Unrecognized request argument supplied: reasoning_effort",
                       param="reasoning_effort")  # fmt: skip
        if "r1" in name:
            return self._r1(body, chat)
        return web.json_response(chat_completion(chat, self.policy(chat)))

    def _reasoning(self, body: dict[str, Any], chat: ChatRequest) -> web.Response:
        if body.get("temperature") not in (None, 1, 1.0):
            return bad(
                f"Unsupported value: 'temperature' does not support {body['temperature']} with "
                "this model. Only the default (1) value is supported.",
                param="temperature", code="unsupported_value",
            )  # fmt: skip
        for name, hint in (("top_p", ""), ("max_tokens", " Use 'max_completion_tokens' instead.")):
            if name in body:
                return bad(f"Unsupported parameter: '{name}' is not supported with this model."
                           f"{hint}", param=name, code="unsupported_parameter")  # fmt: skip
        effort = body.get("reasoning_effort") or "medium"
        if effort not in REASONING_TOKENS:
            return bad(f"Invalid value for 'reasoning_effort': '{effort}'", "reasoning_effort")
        reasoning = REASONING_TOKENS[effort]
        cap = body.get("max_completion_tokens")
        completion = chat_completion(chat, self.policy(chat))
        answer = str(completion["choices"][0]["message"]["content"])
        used = reasoning + tokens(answer)
        if cap is not None and used > int(cap):
            kept = max(0, int(cap) - reasoning)
            answer, used = " ".join(answer.split()[:kept]), min(int(cap), used)
            completion["choices"][0]["finish_reason"] = "length"
        completion["choices"][0]["message"]["content"] = answer
        completion["usage"].update(
            completion_tokens=used,
            total_tokens=completion["usage"]["prompt_tokens"] + used,
            completion_tokens_details={"reasoning_tokens": min(reasoning, used)},
        )
        return web.json_response(completion)

    def _r1(self, body: dict[str, Any], chat: ChatRequest) -> web.Response:
        completion = chat_completion(chat, self.policy(chat))
        answer = str(completion["choices"][0]["message"]["content"])
        thought = " ".join(["hmm"] * THINK_WORDS)
        words = ["<think>", *thought.split(), "</think>", *answer.split()]
        cap = body.get("max_tokens") or body.get("max_completion_tokens")
        if cap is not None and len(words) > int(cap):
            words = words[: int(cap)]
            completion["choices"][0]["finish_reason"] = "length"
        text = " ".join(words).replace("</think> ", "</think>\n")
        completion["choices"][0]["message"]["content"] = text
        prompt_tokens = completion["usage"]["prompt_tokens"]
        completion["usage"].update(
            completion_tokens=len(words), total_tokens=prompt_tokens + len(words)
        )
        return web.json_response(completion)


def bad(message: str, param: str | None = None, code: str | None = None) -> web.Response:
    body = error_body(message)
    body["error"].update(param=param, code=code)
    return web.json_response(body, status=400)


def main() -> None:
    from security_verifiers.environments import baseline_policies, resolve_env

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--env", default="e1")
    parser.add_argument("--log", help="append every request body to this JSONL file")
    args = parser.parse_args()
    server = RulesServer(baseline_policies(resolve_env(args.env))["heuristic"])
    app = server.app()
    if args.log:

        async def log_body(request: web.Request, handler: Any) -> web.StreamResponse:
            if request.method == "POST":
                with open(args.log, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(await request.json()) + "\n")
            return await handler(request)

        app.middlewares.append(web.middleware(log_body))
    web.run_app(app, host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
