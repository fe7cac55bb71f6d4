"""Serving a Hugging Face / PEFT checkpoint over the OpenAI chat-completions protocol.

`sv eval --models hf:<checkpoint>` starts `python -m security_verifiers.models.hf_server` on a
free 127.0.0.1 port (like the llama.cpp server for GGUF files), so trained checkpoints travel the
same client code path as every other model. Requests are answered one at a time with
transformers' `generate`; `temperature` (0 = greedy), `top_p`, `max_tokens` /
`max_completion_tokens`, `seed`, `stop` and `n` are honoured. There is no constrained decoding:
`response_format` is accepted and ignored (the harness records no structured output for `hf:`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import error_body, model_list
from security_verifiers.models.server_process import ServerProcess

HF_PREFIX = "hf:"


def completion_body(model: str, generations: list[Any]) -> dict[str, Any]:
    """A `chat.completion` response with one choice per generation and real token counts."""
    prompt_tokens = len(generations[0].prompt_ids) if generations else 0
    completion_tokens = sum(len(g.completion_ids) for g in generations)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": g.text},
                "finish_reason": g.finish_reason,
                "logprobs": None,
            }
            for i, g in enumerate(generations)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def build_app(generator: Any, alias: str) -> Any:
    """The aiohttp application answering `/v1/models` and `/v1/chat/completions`."""
    from aiohttp import web

    async def models(request: web.Request) -> web.Response:
        return web.json_response(model_list([alias]))

    async def chat(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return web.json_response(error_body("body is not JSON"), status=400)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return web.json_response(error_body("'messages' must be a non-empty list"), status=400)
        stop = body.get("stop")
        stop = [stop] if isinstance(stop, str) else list(stop or [])
        seed = body.get("seed")
        kwargs = {
            "temperature": body.get("temperature", 1.0),
            "top_p": body.get("top_p"),
            "max_tokens": body.get("max_completion_tokens") or body.get("max_tokens") or 256,
            "stop": stop,
        }
        generations = []
        for i in range(max(1, int(body.get("n") or 1))):
            call_seed = None if seed is None else int(seed) + i
            generations.append(
                await asyncio.to_thread(generator.generate, messages, seed=call_seed, **kwargs)
            )
        return web.json_response(completion_body(str(body.get("model") or alias), generations))

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app


def checkpoint_of(name: str) -> str | None:
    """The checkpoint behind a `hf:<checkpoint>` model name; None for other names."""
    if not name.startswith(HF_PREFIX):
        return None
    checkpoint = name.removeprefix(HF_PREFIX).strip()
    if not checkpoint:
        raise UserError(f"model '{name}': expected hf:<checkpoint dir, .gguf file or hub id>")
    from security_verifiers.models.hf_checkpoint import resolve_checkpoint

    resolve_checkpoint(checkpoint)  # fail now, with a clear message, on a bad path
    return checkpoint


@dataclass
class HFServer(ServerProcess):
    """One `python -m security_verifiers.models.hf_server` child serving `checkpoint`."""

    checkpoint: str
    alias: str
    dtype: str = "float32"
    startup_timeout_s: float = 600.0
    port: int = 0
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    log_prefix = "sv-hf-server-"

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "security_verifiers.models.hf_server",
            "--model", self.checkpoint, "--alias", self.alias,
            "--port", str(self.port), "--dtype", self.dtype,
        ]  # fmt: skip

    def child_env(self) -> dict[str, str]:
        return {**os.environ, "TOKENIZERS_PARALLELISM": "false"}

    def what(self) -> str:
        return f"'{self.checkpoint}'"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="checkpoint dir, .gguf file or hub id")
    parser.add_argument("--alias", default=None, help="model id to answer as")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument(
        "--no-prefix-cache", action="store_true", help="recompute every prompt from scratch"
    )
    args = parser.parse_args(argv)

    import torch
    from aiohttp import web

    from security_verifiers.models.hf_checkpoint import (
        load_causal_lm,
        load_tokenizer,
        resolve_checkpoint,
    )
    from security_verifiers.models.hf_generation import ChatGenerator

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    try:
        ref = resolve_checkpoint(args.model)
        tokenizer = load_tokenizer(ref)
        model = load_causal_lm(ref, dtype=args.dtype)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    alias = args.alias or f"{HF_PREFIX}{args.model}"
    print(f"serving {ref.describe()} as '{alias}' on {args.host}:{args.port}", flush=True)
    app = build_app(ChatGenerator(model, tokenizer, prefix_cache=not args.no_prefix_cache), alias)
    web.run_app(app, host=args.host, port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
