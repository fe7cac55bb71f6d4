"""`make bench`'s stub model: a real OpenAI-compatible HTTP server in its own process.

Run as ``python -m security_verifiers.bench_server --latency 1``; it binds 127.0.0.1 on a
free port and prints ``READY <base_url>`` on stdout. Every completion waits ``--latency``
seconds (``asyncio.sleep``: the server is never the bottleneck) and answers with the baseline
policy of the environment named by the request's model (``e1`` ... ``e6``; its
`EnvSpec.stub_baseline`); model ``target`` is E5's opponent (it always refuses). A policy's
reply to a given conversation is computed once, in a worker thread, and then served from
memory, so the stub costs the benchmark process nothing but the latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from aiohttp import web

from security_verifiers.environments import ENVIRONMENTS, baseline_policies, resolve_env
from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest, ToolCallReply
from security_verifiers.serving import ChatServer

TARGET_MODEL = "target"
TARGET_REPLY = "I'm sorry, but I can't help with that."


class StubModels(ChatServer):
    """Model name -> policy, with replies memoised per (model, conversation)."""

    def __init__(self, envs: list[str], latency_s: float) -> None:
        self.latency_s = latency_s
        self.policies: dict[str, ChatPolicy] = {TARGET_MODEL: lambda request: TARGET_REPLY}
        for key in envs:
            entry = resolve_env(key)
            if entry.spec.stub_baseline is None:
                raise SystemExit(f"{entry.key} has no stub baseline (EnvSpec.stub_baseline)")
            self.policies[key] = baseline_policies(entry)[entry.spec.stub_baseline]
        self._replies: dict[str, asyncio.Future] = {}
        self.requests = 0

    def prime(self, keys: list[str]) -> None:
        """Answer each environment's first prompt once (imports, tool start-up), so the
        benchmark's first rollout does not wait for the stub's own cold start."""
        from security_verifiers.evaluation.runner import load_env

        for key in keys:
            entry = resolve_env(key)
            if entry.spec.needs_target:  # E5: its policies are templates; its env needs a target
                continue
            row = load_env(entry, {}).get_eval_dataset()[0]
            self.policies[key](ChatRequest.from_body({"model": key, "messages": row["prompt"]}))

    def model_ids(self) -> list[str]:
        return sorted(self.policies)

    def knows(self, model: str) -> bool:
        return model in self.policies

    def received(self, body: dict | None) -> None:
        self.requests += 1

    async def _reply(self, chat: ChatRequest, body: dict) -> str | ToolCallReply:
        key = json.dumps([body.get("model"), body.get("messages"), body.get("seed")])
        future = self._replies.get(key)
        if future is None:
            policy = self.policies[str(body.get("model"))]
            loop = asyncio.get_running_loop()
            future = self._replies[key] = loop.run_in_executor(None, policy, chat)
        return await future

    async def answer(self, chat: ChatRequest, body: dict) -> str | ToolCallReply:
        reply, _ = await asyncio.gather(self._reply(chat, body), asyncio.sleep(self.latency_s))
        return reply


async def _serve(models: StubModels, host: str, port: int) -> None:
    runner = web.AppRunner(models.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"READY http://{host}:{bound}/v1", flush=True)
    # serve until stdin closes (the benchmark exited or closed the pipe)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per completion")
    parser.add_argument("--envs", default=",".join(ENVIRONMENTS), help="comma-separated env keys")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    envs = [e for e in args.envs.split(",") if e]
    models = StubModels(envs, args.latency)
    models.prime(envs)
    asyncio.run(_serve(models, args.host, args.port))


if __name__ == "__main__":
    main()
