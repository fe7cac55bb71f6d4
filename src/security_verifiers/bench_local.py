"""`make bench` (local model part): the harness's local backends against bare llama-cpp-python.

Same GGUF (the shipped ``local/smollm2-135m`` unless ``--gguf``), same requests: the first
``--prompts`` episodes of ``--env`` (default: the first environment with a classification report,
E1) with its answer schema (``response_format`` json_object + schema, as `sv eval` sends for
local models), greedy, fixed seed. Three sides:

* bare: an in-process ``llama_cpp.Llama`` built with the harness's `LlamaSettings`, called with
  ``create_chat_completion`` and the request's arguments as llama-cpp-python's server fills
  them in (its defaults, e.g. ``repeat_penalty`` 1.1, so all three sample identically);
* inprocess: the default backend, `local_inprocess.InProcessLlama`, called the way `sv eval`
  calls it: `openai.AsyncOpenAI` from `clients.build_client` over its `LlamaTransport`;
* server: `local_server.LlamaCppServer` (``SV_LOCAL_BACKEND=server``) over HTTP.

Each side runs every request ``--repeats`` times, alternating sides; reported are completion
tokens per second of wall time (prompt evaluation included: what a rollout waits for), each
backend's ratio to bare (goal ≥ 0.95×), and whether every side produced the same text and
completion token count as bare for every request (and the same output on repeats).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_TOKENS = 96
SEED = 42


def requests_for(count: int, env_name: str | None = None) -> list[dict[str, Any]]:
    """Chat requests (OpenAI bodies) for the first `count` episodes of `env_name` (default:
    the first environment whose spec has a classification report)."""
    from security_verifiers.environments import default_env, resolve_env
    from security_verifiers.evaluation.runner import load_env
    from sv_shared.spec import LoadedEnvInfo

    env = load_env(resolve_env(env_name or default_env("report")), {})
    schema = LoadedEnvInfo.of(env).answer_schema
    bodies = []
    for row in list(env.get_eval_dataset())[:count]:
        body: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in row["prompt"]],
            "max_tokens": MAX_TOKENS,
            "temperature": 0.0,
            "seed": SEED,
        }
        if schema:
            body["response_format"] = {"type": "json_object", "schema": schema}
        bodies.append(body)
    return bodies


Call = Callable[[dict[str, Any]], tuple[str, int]]


def _answer(out: Any) -> tuple[str, int]:
    """(assistant text, completion tokens) of a chat-completion response dict."""
    return out["choices"][0]["message"]["content"] or "", int(out["usage"]["completion_tokens"])


def _bare_side(gguf: Path, settings: Any) -> Call:
    from llama_cpp import Llama

    from security_verifiers.models.local_inprocess import request_kwargs

    llm = Llama(model_path=str(gguf), verbose=False, **settings.llama_kwargs())
    prepared: dict[str, dict[str, Any]] = {}  # the server's argument filling, outside timing

    def call(body: dict[str, Any]) -> tuple[str, int]:
        key = json.dumps(body, sort_keys=True)
        if key not in prepared:
            prepared[key] = request_kwargs(body)[1]
        return _answer(llm.create_chat_completion(**prepared[key]))

    return call


def _inprocess_side(model: Any, runner: asyncio.Runner) -> Call:
    from security_verifiers.models.clients import build_client
    from security_verifiers.models.spec import ModelSpec

    spec = ModelSpec(model.alias, model.alias, "local", model.base_url, gguf=model.gguf)
    client = build_client(spec, baselines={}, transport=model.transport(), timeout_s=600.0)

    def call(body: dict[str, Any]) -> tuple[str, int]:
        create = client.chat.completions.create(model=model.alias, **body)
        return _answer(runner.run(create).model_dump())

    return call


def _server_side(server: Any) -> Call:
    import httpx2

    def call(body: dict[str, Any]) -> tuple[str, int]:
        response = httpx2.post(
            f"{server.base_url}/chat/completions",
            json={"model": server.alias, **body},
            timeout=600.0,
        )
        response.raise_for_status()
        return _answer(response.json())

    return call


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", default=None, help="GGUF file (default: local/smollm2-135m)")
    parser.add_argument(
        "--env", default=None, help="environment of the prompts (default: the first classifier)"
    )
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 prompt, 1 repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.prompts, args.repeats = 1, 1

    from security_verifiers.models.local_gguf import (
        DEFAULT_LOCAL_MODEL,
        LOCAL_PREFIX,
        builtin_gguf_path,
        check_gguf,
    )
    from security_verifiers.models.local_inprocess import InProcessLlama
    from security_verifiers.models.local_server import LlamaCppServer

    gguf = check_gguf(
        Path(args.gguf)
        if args.gguf
        else builtin_gguf_path(DEFAULT_LOCAL_MODEL.removeprefix(LOCAL_PREFIX))
    )
    bodies = requests_for(args.prompts, args.env)
    server = LlamaCppServer(gguf=gguf, alias="bench-local")
    model = InProcessLlama(gguf=gguf, alias="bench-local")
    with asyncio.Runner() as runner:
        try:
            model.start()
            server.start()
            sides: dict[str, Call] = {
                "bare": _bare_side(gguf, server),
                "inprocess": _inprocess_side(model, runner),
                "server": _server_side(server),
            }
            seconds, tokens, outputs = _measure(sides, bodies, args.repeats)
        finally:
            server.stop()
            model.stop()
    rate = {
        n: statistics.median(t / s for t, s in zip(tokens[n], seconds[n], strict=True))
        for n in sides
    }
    same = {f"{n}_vs_bare": outputs[n] == outputs["bare"] for n in sides if n != "bare"}
    result = {
        "gguf": str(gguf),
        "prompts": len(bodies),
        "repeats": args.repeats,
        "server_flags": server.command()[3:],
        "bare_tokens_per_s": rate["bare"],
        "inprocess_tokens_per_s": rate["inprocess"],
        "server_tokens_per_s": rate["server"],
        "inprocess_ratio": rate["inprocess"] / rate["bare"] if rate["bare"] else 0.0,
        "ratio": rate["server"] / rate["bare"] if rate["bare"] else 0.0,
        "completion_tokens": {n: tokens[n][0] for n in sides},
        "same_output": same,
        "repeatable": all(len(set(o)) == 1 for side in outputs.values() for o in side),
    }
    print(
        f"local model {gguf.name}: bare {rate['bare']:.1f} tok/s; in-process (default) "
        f"{rate['inprocess']:.1f} tok/s = {result['inprocess_ratio']:.2f}× bare; server "
        f"{rate['server']:.1f} tok/s = {result['ratio']:.2f}× bare (goal ≥ 0.95×); same text "
        f"and token counts as bare: in-process {same['inprocess_vs_bare']}, server "
        f"{same['server_vs_bare']}; repeatable: {result['repeatable']}"
    )
    print(json.dumps({"local": result}))
    return result


def _measure(
    sides: dict[str, Call], bodies: list[dict[str, Any]], repeats: int
) -> tuple[dict[str, list[float]], dict[str, list[int]], dict[str, list[list[tuple[str, int]]]]]:
    """(seconds per run, completion tokens per run, outputs per request) of every side."""
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    tokens: dict[str, list[int]] = {name: [] for name in sides}
    outputs: dict[str, list[list[tuple[str, int]]]] = {n: [[] for _ in bodies] for n in sides}
    for call in sides.values():  # warm-up: page the weights in, first-call costs
        call(bodies[0])
    for _ in range(repeats):
        for name, call in sides.items():
            start = time.perf_counter()
            count = 0
            for i, body in enumerate(bodies):
                text, n = call(body)
                count += n
                outputs[name][i].append((text, n))
            seconds[name].append(time.perf_counter() - start)
            tokens[name].append(count)
    return seconds, tokens, outputs


if __name__ == "__main__":
    main()
