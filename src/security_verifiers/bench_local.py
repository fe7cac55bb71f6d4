"""`make bench` (local model part): the harness's llama.cpp server against bare llama-cpp-python.

Same GGUF (the shipped ``local/smollm2-135m`` unless ``--gguf``), same requests: the first
``--prompts`` E1 episodes with E1's answer schema (``response_format`` json_object + schema, as
`sv eval` sends for local models), greedy, fixed seed. Bare = an in-process ``llama_cpp.Llama``
built with the server's context size and thread counts; server = `models.local_server`'s
`LlamaCppServer` (the harness's own start-up path) over HTTP. Each side runs every request
``--repeats`` times, alternating sides; reported are completion tokens per second of wall
time (prompt evaluation included: what a rollout waits for), the server/bare ratio, and whether
both sides produced the same tokens for every request (and the same output on repeats).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

MAX_TOKENS = 96
SEED = 42


def requests_for(count: int) -> list[dict[str, Any]]:
    """Chat requests (OpenAI bodies) for the first `count` E1 episodes."""
    from security_verifiers.environments import resolve_env
    from security_verifiers.evaluation.runner import load_env

    env = load_env(resolve_env("e1"), {})
    schema = getattr(env, "sv_answer_schema", None)
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


def _bare_call(llm: Any, body: dict[str, Any]) -> tuple[str, int]:
    out = llm.create_chat_completion(**body)
    return out["choices"][0]["message"]["content"] or "", int(out["usage"]["completion_tokens"])


def _server_call(base_url: str, alias: str, body: dict[str, Any]) -> tuple[str, int]:
    import httpx2

    response = httpx2.post(
        f"{base_url}/chat/completions", json={"model": alias, **body}, timeout=600.0
    )
    response.raise_for_status()
    out = response.json()
    return out["choices"][0]["message"]["content"] or "", int(out["usage"]["completion_tokens"])


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", default=None, help="GGUF file (default: local/smollm2-135m)")
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 prompt, 1 repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.prompts, args.repeats = 1, 1

    from llama_cpp import Llama

    from security_verifiers.models.local_gguf import (
        DEFAULT_LOCAL_MODEL,
        LOCAL_PREFIX,
        builtin_gguf_path,
        check_gguf,
    )
    from security_verifiers.models.local_server import LlamaCppServer

    gguf = check_gguf(
        Path(args.gguf)
        if args.gguf
        else builtin_gguf_path(DEFAULT_LOCAL_MODEL.removeprefix(LOCAL_PREFIX))
    )
    bodies = requests_for(args.prompts)
    server = LlamaCppServer(gguf=gguf, alias="bench-local")
    llm = Llama(model_path=str(gguf), verbose=False, **server.llama_kwargs())
    server.start()
    sides = {"bare": lambda b: _bare_call(llm, b),
             "server": lambda b: _server_call(server.base_url, server.alias, b)}  # fmt: skip
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    tokens: dict[str, list[int]] = {name: [] for name in sides}
    outputs: dict[str, list[list[str]]] = {name: [[] for _ in bodies] for name in sides}
    try:
        for call in sides.values():  # warm-up: page the weights in, first-call costs
            call(bodies[0])
        for _ in range(args.repeats):
            for name, call in sides.items():
                start = time.perf_counter()
                count = 0
                for i, body in enumerate(bodies):
                    text, n = call(body)
                    count += n
                    outputs[name][i].append(text)
                seconds[name].append(time.perf_counter() - start)
                tokens[name].append(count)
    finally:
        server.stop()
    rate = {
        n: statistics.median(t / s for t, s in zip(tokens[n], seconds[n], strict=True))
        for n in sides
    }
    result = {
        "gguf": str(gguf),
        "prompts": len(bodies),
        "repeats": args.repeats,
        "server_flags": server.command()[3:],
        "bare_tokens_per_s": rate["bare"],
        "server_tokens_per_s": rate["server"],
        "ratio": rate["server"] / rate["bare"] if rate["bare"] else 0.0,
        "completion_tokens": {n: tokens[n][0] for n in sides},
        "same_output_bare_vs_server": outputs["bare"] == outputs["server"],
        "repeatable": all(len(set(o)) == 1 for side in outputs.values() for o in side),
    }
    print(
        f"local model {gguf.name}: server {rate['server']:.1f} tok/s, bare {rate['bare']:.1f} "
        f"tok/s, ratio {result['ratio']:.2f}× (goal ≥ 0.95×); same tokens: "
        f"{result['same_output_bare_vs_server']}; repeatable: {result['repeatable']}"
    )
    print(json.dumps({"local": result}))
    return result


if __name__ == "__main__":
    main()
