"""`make bench`: rollouts/hour of every environment against a stub model in its own process.

The stub (`bench_server`) is a real OpenAI-compatible HTTP server on 127.0.0.1 in a separate
process: each completion takes ``--latency`` seconds and answers with the environment's
baseline policy. Each environment is measured in a fresh Python process (`--worker`), which
reports:

* start-up: ``load_s`` = `load_environment` time (the harness's imports done), and
  ``first_rollout_s`` = process start to the first scored rollout (one stub latency included);
* for each concurrency (16/32/64 by default): rollouts/hour over ``--rounds`` × concurrency
  rollouts driven the way `sv eval` drives them (`env.run_rollout` under a semaphore), the
  median of ``--repeats`` runs, and the 16→64 scaling ratio (4× is perfect).

Scoring is kept *cold* (the default): every rollout gets its own episode id, so no two rollouts
share a memoised score, and E2's in-process scan cache is bypassed, so each patched config is
really re-scanned, as for a training run's distinct completions. ``--warm-caches`` measures
with those caches on instead.

``--local`` adds the local model (llama.cpp server started by `models.local_server`) against
bare llama-cpp-python on the same GGUF and prompts (`bench_local`).

``--quick`` is a small run (tiny n, no latency) that checks the machinery, not the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

ENVS = ("e1", "e2", "e3", "e4", "e5", "e6")
SEED_TARGETS = {"e1": 2000, "e2": 500, "e3": 500, "e4": 2000, "e5": 200, "e6": 200}
"""Seed throughput targets (rollouts/hour; E5/E6: dialogues/hour); the goal is 50× these."""
GOAL_FACTOR = 50
T0_ENV = "SV_BENCH_T0"
SAMPLING = {"temperature": 0.0, "max_tokens": 512, "seed": 42}


# ------------------------------------------------------------------------------ the worker
def env_args_for(key: str, base_url: str) -> dict[str, Any]:
    from security_verifiers.bench_server import TARGET_MODEL

    if key == "e5":
        return {
            "target_base_url": base_url,
            "target_model": TARGET_MODEL,
            "novelty_backend": "ngram",
        }
    return {}


def _unique(row: Mapping[str, Any], tag: str) -> dict[str, Any]:
    """A copy of a dataset row whose episode id is unique to this rollout (cold memo)."""
    out = dict(row)
    info = out.get("info")
    if isinstance(info, str):
        info = json.loads(info)
    if isinstance(info, Mapping):
        info = dict(info)
        info["id"] = f"{info.get('id')}#{tag}"
        out["info"] = info
    return out


def _bypass_scan_cache() -> None:
    """E2 re-scans every patched config (its process-wide scan cache never hits)."""
    try:
        from sv_env_config_verification import oracle
        from sv_env_config_verification.scan_cache import ScanCache
    except ImportError:
        return

    class NoHits(ScanCache):
        def get(self, key: str) -> None:  # type: ignore[override]
            return None

    oracle.DEFAULT_CACHE = NoHits()


async def _drive(
    env: Any, client: Any, model: str, rows: Sequence[Mapping], n: int, concurrency: int, tag: str
) -> tuple[float, dict[str, float]]:
    """(seconds, outcome counts) of `n` rollouts with at most `concurrency` in flight."""
    semaphore = asyncio.Semaphore(concurrency)
    inputs = [_unique(rows[i % len(rows)], f"{tag}-{i}") for i in range(n)]
    rewards: list[float] = []
    errors = scoring_errors = 0

    async def one(row: dict[str, Any]) -> None:
        nonlocal errors, scoring_errors
        async with semaphore:
            try:
                out = await env.run_rollout(row, client, model, dict(SAMPLING))
            except Exception:
                errors += 1
                return
        if out.get("error"):
            errors += 1
        scoring_errors += int((out.get("metrics") or {}).get("scoring_error", 0.0) > 0)
        rewards.append(float(out.get("reward") or 0.0))

    start = time.perf_counter()
    await asyncio.gather(*(one(row) for row in inputs))
    seconds = time.perf_counter() - start
    outcome = {
        "errors": errors,
        "scoring_errors": scoring_errors,
        "mean_reward": statistics.fmean(rewards) if rewards else 0.0,
    }
    return seconds, outcome


def worker(args: argparse.Namespace) -> dict[str, Any]:
    """Measure one environment in this (fresh) process; returns the result record."""
    t0 = float(os.environ.get(T0_ENV) or time.time())
    import httpx2
    import openai
    import verifiers as vf

    from security_verifiers.environments import resolve_env
    from security_verifiers.evaluation.runner import load_env

    entry = resolve_env(args.worker)
    entry.module()
    imports_s = time.time() - t0
    start = time.perf_counter()
    env = load_env(entry, env_args_for(entry.key, args.base_url))
    load_s = time.perf_counter() - start
    if not args.warm_caches:
        _bypass_scan_cache()
    rows = list(env.get_eval_dataset())

    async def run() -> dict[str, Any]:
        http = openai.DefaultAsyncHttpx2Client(transport=httpx2.AsyncHTTPTransport(), timeout=300.0)
        api = openai.AsyncOpenAI(base_url=args.base_url, api_key="EMPTY", http_client=http)
        client = vf.OpenAIChatCompletionsClient(api)
        record: dict[str, Any] = {"env": entry.key, "imports_s": imports_s, "load_s": load_s}
        try:
            await _drive(env, client, entry.key, rows, 1, 1, "first")
            record["first_rollout_s"] = time.time() - t0
            warm = getattr(env, "sv_warm_up", None)
            if warm is not None:
                record["warm_up_s"] = await asyncio.wrap_future(warm)
            # the stub answers each conversation once, then from memory: let it see them all
            await _drive(env, client, entry.key, rows, min(len(rows), 128), 64, "stub")
            runs: dict[str, list[float]] = {}
            outcomes: dict[str, dict[str, float]] = {}
            for concurrency in args.concurrency:
                n = max(1, args.rounds * concurrency)
                rates = []
                for rep in range(args.repeats):
                    seconds, outcome = await _drive(
                        env, client, entry.key, rows, n, concurrency, f"c{concurrency}r{rep}"
                    )
                    rates.append(n / seconds * 3600)
                    outcomes[str(concurrency)] = outcome
                runs[str(concurrency)] = rates
            record["runs"] = runs
            record["outcomes"] = outcomes
            record["n_rows"] = len(rows)
        finally:
            await api.close()
        return record

    return asyncio.run(run())


# ------------------------------------------------------------------------------ the driver
@contextmanager
def stub_server(latency: float, envs: Sequence[str]) -> Iterator[str]:
    """The stub model server in its own process; yields its base URL."""
    command = [sys.executable, "-m", "security_verifiers.bench_server",
               "--latency", str(latency), "--envs", ",".join(envs)]  # fmt: skip
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"the stub server did not start (said {line!r})")
        yield line.removeprefix("READY ")
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_worker(key: str, base_url: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable, "-m", "security_verifiers.bench", "--worker", key,
        "--base-url", base_url, "--rounds", str(args.rounds), "--repeats", str(args.repeats),
        "--concurrency", ",".join(str(c) for c in args.concurrency),
    ]  # fmt: skip
    if args.warm_caches:
        command.append("--warm-caches")
    child_env = {**os.environ, T0_ENV: repr(time.time())}
    if args.worker_pythonpath:  # measure another checkout's environments (before/after)
        child_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (args.worker_pythonpath, os.environ.get("PYTHONPATH")) if p
        )
    proc = subprocess.run(command, capture_output=True, text=True, env=child_env, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"bench worker for {key} failed ({proc.returncode}):\n"
                           f"{proc.stderr[-3000:]}")  # fmt: skip
    return json.loads(lines[-1])


def summarize(record: dict[str, Any], concurrency: Sequence[int]) -> dict[str, Any]:
    """Medians per concurrency, the first→last scaling ratio and the goal check."""
    medians = {c: statistics.median(record["runs"][str(c)]) for c in concurrency}
    low, high = medians[concurrency[0]], medians[concurrency[-1]]
    goal = SEED_TARGETS[record["env"]] * GOAL_FACTOR
    return {
        **record,
        "median_per_hour": {str(c): v for c, v in medians.items()},
        "scaling": high / low if low else 0.0,
        "goal_per_hour": goal,
        "meets_goal": high >= goal,
    }


def print_table(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    from rich.console import Console
    from rich.table import Table

    title = (f"rollouts/hour (median of {args.repeats}), stub latency {args.latency:g} s in its "
             f"own process, {args.rounds}×concurrency rollouts per run")  # fmt: skip
    table = Table(title=title)
    columns = ["env", *(f"c={c}" for c in args.concurrency),
               f"{args.concurrency[0]}→{args.concurrency[-1]}", "goal (50× seed)", "load s",
               "1st rollout s", "errors"]  # fmt: skip
    for column in columns:
        table.add_column(column, justify="right")
    for r in results:
        errors = sum(o["errors"] + o["scoring_errors"] for o in r["outcomes"].values())
        table.add_row(
            r["env"],
            *(f"{r['median_per_hour'][str(c)]:,.0f}" for c in args.concurrency),
            f"{r['scaling']:.2f}×",
            f"{r['goal_per_hour']:,} {'ok' if r['meets_goal'] else 'MISS'}",
            f"{r['load_s']:.2f}",
            f"{r['first_rollout_s']:.2f}",
            str(errors),
        )
    Console(width=160).print(table)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envs", default=",".join(ENVS))
    parser.add_argument("--concurrency", type=_ints, default=[16, 32, 64])
    parser.add_argument("--rounds", type=int, default=4, help="rollouts per run / concurrency")
    parser.add_argument("--repeats", type=int, default=3, help="runs per point (median kept)")
    parser.add_argument("--latency", type=float, default=1.0, help="stub seconds/completion")
    parser.add_argument("--warm-caches", action="store_true", help="keep scoring caches on")
    parser.add_argument("--local", action="store_true", help="also bench the local model")
    parser.add_argument("--quick", action="store_true", help="tiny run (checks the machinery)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument(
        "--worker-pythonpath",
        default=None,
        help="PYTHONPATH prefix for the measured processes only (e.g. another checkout's "
        "sv_shared and environment packages, for a before/after comparison)",
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)), flush=True)
        return
    if args.quick:
        args.concurrency, args.rounds, args.repeats, args.latency = [1, 2], 1, 1, 0.0
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    results = []
    with stub_server(args.latency, envs) as base_url:
        for key in envs:
            results.append(summarize(run_worker(key, base_url, args), args.concurrency))
    print_table(results, args)
    workers = os.environ.get("SV_SCORING_WORKERS") or "default (min(4, cpus))"
    print(f"scoring workers per process: {workers}; cpus: {os.cpu_count()}; "
          f"scoring caches: {'warm' if args.warm_caches else 'cold'}")  # fmt: skip
    out: dict[str, Any] = {"envs": results}
    if args.local:
        from security_verifiers import bench_local

        out["local"] = bench_local.main(["--quick"] if args.quick else [])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    print(json.dumps({"bench": out}, default=str))


if __name__ == "__main__":
    main()
