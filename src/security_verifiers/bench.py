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

* CPU per scored rollout, over the concurrency runs: ``scoring_cpu_s`` = CPU time of the
  scoring pool's threads (``sv-scoring``, read from /proc) plus waited-for child processes
  (scanner CLIs), per rollout; ``process_cpu_s`` = the whole worker process (scoring + harness:
  client, verifiers) plus children, per rollout. The stub model runs in another process and is
  not counted. ``ceiling_per_hour`` = cpus × 3600 / process_cpu_s: the most rollouts/hour this
  machine's CPUs allow, whatever the concurrency (on an idle machine; in-process scoring threads
  also share one GIL). Per concurrency, ``cores_used`` = CPU seconds per wall second.

Scoring is kept *cold* (the default): every rollout gets its own episode id, so no two rollouts
share a memoised score, and each environment's process-wide caches are made to miss (its spec's
`cold_caches` hook; E2: the scan cache, so each patched config is really re-scanned), as for a
training run's distinct completions. ``--warm-caches`` measures with those caches on instead.

``--local`` adds the local model (llama.cpp server started by `models.local_server`) against
bare llama-cpp-python on the same GGUF and prompts (`bench_local`).

``--startup-only`` measures start-up alone (every environment's worker stops after its first
rollout); ``--quick`` is a small run (tiny n, no latency) that checks the machinery, not the
numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any


def seed_target(key: str) -> int | None:
    """Seed throughput target (rollouts/hour; E5/E6: dialogues/hour; the goal is 50× it):
    the environment's `EnvSpec.bench_seed_per_hour`."""
    from security_verifiers.environments import resolve_env

    return resolve_env(key).spec.bench_seed_per_hour


GOAL_FACTOR = 50
T0_ENV = "SV_BENCH_T0"
SAMPLING = {"temperature": 0.0, "max_tokens": 512, "seed": 42}


# ------------------------------------------------------------------------------ the worker
def env_args_for(key: str, base_url: str) -> dict[str, Any]:
    from security_verifiers.bench_server import TARGET_MODEL
    from security_verifiers.environments import resolve_env

    if resolve_env(key).spec.needs_target:
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


SCORING_THREAD_PREFIX = "sv-scoring"
"""`sv_shared.episode_scoring`'s pool threads, where every environment's scoring runs."""


def _thread_cpu_s() -> dict[int, float]:
    """CPU seconds (user + system) of each live scoring-pool thread, by native thread id."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for thread in threading.enumerate():
        if not thread.name.startswith(SCORING_THREAD_PREFIX) or thread.native_id is None:
            continue
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[thread.native_id] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return out


def _cpu_snapshot() -> dict[str, Any]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall": time.perf_counter(),
        "process": own.ru_utime + own.ru_stime,
        "children": kids.ru_utime + kids.ru_stime,
        "threads": _thread_cpu_s(),
    }


def cpu_per_rollout(before: Mapping[str, Any], after: Mapping[str, Any], rollouts: int) -> dict:
    """CPU seconds per rollout between two `_cpu_snapshot`s (see the module docstring), and
    ``cores_used``: CPU seconds per wall second over the span (all of it, and the scoring
    threads alone, which share one GIL)."""
    threads = sum(t - before["threads"].get(tid, 0.0) for tid, t in after["threads"].items())
    children = after["children"] - before["children"]
    process = after["process"] - before["process"]
    wall = max(after["wall"] - before["wall"], 1e-9)
    count = max(rollouts, 1)
    return {
        "rollouts": rollouts,
        "scoring_cpu_s": (threads + children) / count,
        "scoring_threads_cpu_s": threads / count,
        "children_cpu_s": children / count,
        "process_cpu_s": (process + children) / count,
        "cores_used": (process + children) / wall,
        "scoring_threads_cores_used": threads / wall,
    }


def worker(args: argparse.Namespace) -> dict[str, Any]:
    """Measure one environment in this (fresh) process; returns the result record."""
    t0 = float(os.environ.get(T0_ENV) or time.time())
    import httpx2
    import openai
    import verifiers as vf

    from security_verifiers.environments import resolve_env
    from security_verifiers.evaluation.runner import load_env
    from sv_shared.spec import LoadedEnvInfo

    entry = resolve_env(args.worker)
    entry.module()
    imports_s = time.time() - t0
    start = time.perf_counter()
    env = load_env(entry, env_args_for(entry.key, args.base_url))
    load_s = time.perf_counter() - start
    cold_caches = None if args.warm_caches else entry.spec.hook("cold_caches")
    if cold_caches is not None:
        cold_caches()
    rows = list(env.get_eval_dataset())

    async def run() -> dict[str, Any]:
        http = openai.DefaultAsyncHttpx2Client(transport=httpx2.AsyncHTTPTransport(), timeout=300.0)
        api = openai.AsyncOpenAI(base_url=args.base_url, api_key="EMPTY", http_client=http)
        client = vf.OpenAIChatCompletionsClient(api)
        record: dict[str, Any] = {"env": entry.key, "imports_s": imports_s, "load_s": load_s}
        try:
            await _drive(env, client, entry.key, rows, 1, 1, "first")
            record["first_rollout_s"] = time.time() - t0
            if args.startup_only:
                return record
            warm = LoadedEnvInfo.of(env).warm_up
            if warm is not None:
                record["warm_up_s"] = await asyncio.wrap_future(warm)
            # the stub answers each conversation once, then from memory: let it see them all
            await _drive(env, client, entry.key, rows, min(len(rows), 128), 64, "stub")
            runs: dict[str, list[float]] = {}
            outcomes: dict[str, dict[str, float]] = {}
            cpu_by_concurrency: dict[str, dict[str, float]] = {}
            total = 0
            cpu_start = _cpu_snapshot()
            for concurrency in args.concurrency:
                n = max(1, args.rounds * concurrency)
                rates = []
                scored = 0
                cpu_before = _cpu_snapshot()
                for rep in range(args.repeats):
                    seconds, outcome = await _drive(
                        env, client, entry.key, rows, n, concurrency, f"c{concurrency}r{rep}"
                    )
                    rates.append(n / seconds * 3600)
                    outcomes[str(concurrency)] = outcome
                    scored += n - int(outcome["errors"])
                runs[str(concurrency)] = rates
                cpu_by_concurrency[str(concurrency)] = cpu_per_rollout(
                    cpu_before, _cpu_snapshot(), scored
                )
                total += scored
            record["cpu"] = cpu_per_rollout(cpu_start, _cpu_snapshot(), total)
            record["cpu_by_concurrency"] = cpu_by_concurrency
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
    if args.startup_only:
        command.append("--startup-only")
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
    goal = (seed_target(record["env"]) or 0) * GOAL_FACTOR  # 0: the env names no target
    cpus = os.cpu_count() or 1
    cpu = record["cpu"]
    return {
        **record,
        "median_per_hour": {str(c): v for c, v in medians.items()},
        "scaling": high / low if low else 0.0,
        "goal_per_hour": goal,
        "meets_goal": high >= goal,
        "ceiling_per_hour": cpus * 3600 / cpu["process_cpu_s"] if cpu["process_cpu_s"] else 0.0,
        "scoring_ceiling_per_hour": (
            cpus * 3600 / cpu["scoring_cpu_s"] if cpu["scoring_cpu_s"] else 0.0
        ),
    }


def print_table(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    from rich.console import Console
    from rich.table import Table

    title = (f"rollouts/hour (median of {args.repeats}), stub latency {args.latency:g} s in its "
             f"own process, {args.rounds}×concurrency rollouts per run")  # fmt: skip
    table = Table(title=title)
    columns = ["env", *(f"c={c}" for c in args.concurrency),
               f"{args.concurrency[0]}→{args.concurrency[-1]}", "goal (50× seed)",
               "score CPU-s/rollout", "proc CPU-s/rollout", "CPU ceiling/h", "load s",
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
            f"{r['cpu']['scoring_cpu_s']:.4f}",
            f"{r['cpu']['process_cpu_s']:.4f}",
            f"{r['ceiling_per_hour']:,.0f}",
            f"{r['load_s']:.2f}",
            f"{r['first_rollout_s']:.2f}",
            str(errors),
        )
    Console(width=160).print(table)


def print_startup_table(results: list[dict[str, Any]], latency: float) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"start-up (stub latency {latency:g} s per model call)")
    for column in ("env", "imports s", "load s", "1st rollout s"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            r["env"], f"{r['imports_s']:.2f}", f"{r['load_s']:.2f}", f"{r['first_rollout_s']:.2f}"
        )
    Console(width=160).print(table)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--envs", default=None, help="comma-separated keys (default: all)")
    parser.add_argument("--concurrency", type=_ints, default=[16, 32, 64])
    parser.add_argument("--rounds", type=int, default=4, help="rollouts per run / concurrency")
    parser.add_argument("--repeats", type=int, default=3, help="runs per point (median kept)")
    parser.add_argument("--latency", type=float, default=1.0, help="stub seconds/completion")
    parser.add_argument("--warm-caches", action="store_true", help="keep scoring caches on")
    parser.add_argument("--local", action="store_true", help="also bench the local model")
    parser.add_argument("--quick", action="store_true", help="tiny run (checks the machinery)")
    parser.add_argument(
        "--startup-only", action="store_true", help="measure start-up only (to the 1st rollout)"
    )
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
    if args.envs is None:
        from security_verifiers.environments import ENVIRONMENTS

        args.envs = ",".join(ENVIRONMENTS)
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    results = []
    with stub_server(args.latency, envs) as base_url:
        for key in envs:
            record = run_worker(key, base_url, args)
            results.append(record if args.startup_only else summarize(record, args.concurrency))
    if args.startup_only:
        print_startup_table(results, args.latency)
        print(json.dumps({"startup": results}))
        return
    print_table(results, args)
    workers = os.environ.get("SV_SCORING_WORKERS") or "default (min(4, cpus))"
    print(f"scoring workers per process: {workers}; cpus: {os.cpu_count()}; "
          f"scoring caches: {'warm' if args.warm_caches else 'cold'}; load average: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    for r in results:
        used = ", ".join(
            f"c={c}: {v['cores_used']:.2f} ({v['scoring_threads_cores_used']:.2f} in scoring "
            f"threads)"
            for c, v in r["cpu_by_concurrency"].items()
        )
        print(f"{r['env']} cores used by the worker: {used}")
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
