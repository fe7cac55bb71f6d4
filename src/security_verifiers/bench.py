"""`make bench`: E1 harness throughput and memory against a local OpenAI-compatible server.

For each simulated latency, the same environment, server and concurrency are driven twice in
this process: by the harness (`sv eval`'s code path, artifacts included) and by verifiers' own
`env.evaluate`. Printed: rollouts/hour for both, their ratio, and peak traced memory.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import httpx2
import openai
import verifiers as vf
from rich.console import Console
from rich.table import Table

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate, load_env
from security_verifiers.serving import PolicyServer, serve_in_thread


async def _harness_run(base_url: str, n: int, concurrency: int, out: Path) -> None:
    config = EvalConfig(
        env="e1",
        models=[f"heuristic-remote@{base_url}"],
        n=n,
        max_concurrent=concurrency,
        output_root=out,
        resume=False,
        show_progress=False,
    )
    await evaluate(config, Console(file=open("/dev/null", "w")))  # noqa: SIM115


async def _verifiers_run(base_url: str, n: int, concurrency: int) -> None:
    env = load_env(resolve_env("e1"), {})
    client = openai.AsyncOpenAI(
        base_url=base_url,
        api_key="EMPTY",
        http_client=openai.DefaultAsyncHttpx2Client(transport=httpx2.AsyncHTTPTransport()),
    )
    try:
        await env.evaluate(
            vf.OpenAIChatCompletionsClient(client),
            "heuristic-remote",
            sampling_args={"temperature": 0.0, "max_tokens": 512, "seed": 42},
            num_examples=n,
            max_concurrent=concurrency,
            on_start=lambda *a, **k: None,
            on_progress=lambda *a, **k: None,
            on_log=lambda *a, **k: None,
        )
    finally:
        await client.close()


def _timed(run: Callable[[], Awaitable[None]], trace: bool) -> tuple[float, float | None]:
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - start
    peak = None
    if trace:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return elapsed, peak


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latencies", default="0,1", help="simulated seconds per completion")
    parser.add_argument("--n", type=int, default=256, help="rollouts per measurement")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2, help="timed repeats (best is kept)")
    args = parser.parse_args(argv)

    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    table = Table(title=f"E1 throughput, n={args.n}, max_concurrent={args.concurrency}")
    for column in (
        "latency s",
        "harness r/h",
        "env.evaluate r/h",
        "ratio",
        "harness MiB",
        "vf MiB",
    ):
        table.add_column(column, justify="right")
    for latency in (float(x) for x in args.latencies.split(",")):
        server = PolicyServer(policy, "heuristic-remote", latency_s=latency)
        with serve_in_thread(server) as base_url, tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)

            harness = partial(_harness_run, base_url, args.n, args.concurrency, out)
            reference = partial(_verifiers_run, base_url, args.n, args.concurrency)

            _timed(reference, trace=False)  # warm-up: dataset build, imports, connections
            t_harness = min(_timed(harness, False)[0] for _ in range(args.repeats))
            t_vf = min(_timed(reference, False)[0] for _ in range(args.repeats))
            _, mem_harness = _timed(harness, True)
            _, mem_vf = _timed(reference, True)
        per_hour = lambda t: args.n / t * 3600  # noqa: E731
        table.add_row(
            f"{latency:g}",
            f"{per_hour(t_harness):,.0f}",
            f"{per_hour(t_vf):,.0f}",
            f"{t_vf / t_harness:.2f}×",
            f"{mem_harness:.1f}",
            f"{mem_vf:.1f}",
        )
    Console().print(table)
    Console().print("ratio = harness throughput / env.evaluate throughput (same server, same run)")


if __name__ == "__main__":
    main()
