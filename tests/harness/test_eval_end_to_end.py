"""End-to-end E1 evaluations through verifiers against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate

pytestmark = pytest.mark.usefixtures("no_api_keys")

N = 12


def run(config: EvalConfig):
    return asyncio.run(evaluate(config, Console(file=open("/dev/null", "w"))))


def read_rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_http_model_writes_all_three_artifacts(heuristic_server, tmp_path):
    base_url, server = heuristic_server
    [result] = run(
        EvalConfig(env="e1", models=[f"local-heuristic@{base_url}"], n=N, output_root=tmp_path)
    )
    run_dir = result.run_dir
    assert run_dir.parent.parent == tmp_path
    assert run_dir.parent.name.startswith("sv-env-network-logs--local-heuristic")
    meta = json.loads((run_dir / "metadata.json").read_text())
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = read_rows(run_dir)

    assert server.stats.requests == N  # one request per rollout, no retries needed
    assert meta["status"] == "complete" and meta["n"] == N and meta["seed"] == 42
    assert meta["packages"]["verifiers"] == "0.3.1"
    assert meta["dataset"]["content_hash"].startswith("sha256:")
    sampling = dict(meta["sampling_args"])
    constraint = sampling.pop("response_format")  # E1 asks for schema-constrained JSON
    assert sampling == {"temperature": 0.0, "max_tokens": 512, "seed": 42}
    assert constraint["type"] == "json_schema" and meta["structured_output"] == "json_schema"
    assert constraint["json_schema"]["schema"]["properties"]["label"]["enum"] == [
        "Benign",
        "Malicious",
        "Abstain",
    ]
    assert set(meta["reward_config"]["weights"]) == {
        "decision",
        "calibration",
        "format",
        "accuracy",
    }
    assert {"commit", "dirty"} <= set(meta["git"])
    assert meta["token_usage"]["input"] > 0 and meta["cost_usd"] is None
    assert len(rows) == N and len({r["example_id"] for r in rows}) == N
    for row in rows:
        assert row["error"] is None
        assert row["parsed"]["label"] in {"Benign", "Malicious", "Abstain"}
        assert set(row["rewards"]) == {"decision", "calibration", "format", "accuracy"}
        assert row["rewards"]["format"] == 1.0
        assert row["latency_s"] > 0 and row["tokens"]["output"] > 0
    assert summary["n"] == N and summary["metrics"]["invalid_rate"] == 0.0
    assert summary["reward_mean"] == pytest.approx(sum(r["reward"] for r in rows) / N)


def test_in_process_baseline_matches_http_served_baseline(heuristic_server, tmp_path):
    base_url, _ = heuristic_server
    [local] = run(EvalConfig(env="e1", models=["heuristic"], n=N, output_root=tmp_path))
    [remote] = run(
        EvalConfig(env="e1", models=[f"local-heuristic@{base_url}"], n=N, output_root=tmp_path)
    )
    by_id = lambda d: {r["example_key"]: r["reward"] for r in read_rows(d)}  # noqa: E731
    assert by_id(local.run_dir) == by_id(remote.run_dir)


def test_same_seed_same_examples_other_seed_other_examples(tmp_path):
    def keys(seed: int, out: Path) -> list[str]:
        [r] = run(EvalConfig(env="e1", models=["random"], n=N, seed=seed, output_root=out))
        rows = read_rows(r.run_dir)
        return sorted(r["example_key"] for r in rows), [r["reward"] for r in rows]

    a_keys, _ = keys(1, tmp_path / "a")
    b_keys, _ = keys(1, tmp_path / "b")
    c_keys, _ = keys(2, tmp_path / "c")
    assert a_keys == b_keys and a_keys != c_keys


def test_retries_on_server_errors(tmp_path):
    from security_verifiers.environments import baseline_policies, resolve_env
    from security_verifiers.serving import PolicyServer, serve_in_thread

    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    for status in (429, 503):
        server = PolicyServer(policy, "flaky", fail_first=3, fail_status=status)
        with serve_in_thread(server) as base_url:
            [result] = run(
                EvalConfig(
                    env="e1",
                    models=[f"flaky@{base_url}"],
                    n=4,
                    max_concurrent=1,
                    output_root=tmp_path / str(status),
                )
            )
        rows = read_rows(result.run_dir)
        assert server.stats.failures_injected == 3
        assert server.stats.requests == 4 + 3
        assert all(r["error"] is None for r in rows)


def test_response_cache_serves_repeated_requests(heuristic_server, tmp_path):
    base_url, server = heuristic_server
    config = EvalConfig(
        env="e1",
        models=[f"local-heuristic@{base_url}"],
        n=N,
        output_root=tmp_path / "runs",
        cache_dir=tmp_path / "cache",
        resume=False,
    )
    [first] = run(config)
    assert server.stats.requests == N
    [second] = run(config)
    assert server.stats.requests == N  # all served from the cache
    meta = json.loads((second.run_dir / "metadata.json").read_text())
    assert meta["cache"]["hits"] == N and meta["cache"]["misses"] == 0
    assert first.run_dir != second.run_dir
    completions = lambda d: sorted(r["completion"] for r in read_rows(d))  # noqa: E731
    assert completions(first.run_dir) == completions(second.run_dir)


def test_sampling_args_reach_the_server(tmp_path):
    from security_verifiers.environments import baseline_policies, resolve_env
    from security_verifiers.serving import PolicyServer, serve_in_thread

    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    server = PolicyServer(policy, "m", record_bodies=True)
    with serve_in_thread(server) as base_url:
        run(
            EvalConfig(
                env="e1",
                models=[f"m@{base_url}"],
                n=2,
                seed=7,
                temperature=0.7,
                top_p=0.9,
                max_tokens=64,
                output_root=tmp_path,
            )
        )
    body = server.stats.seen_bodies[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["temperature"] == 0.7 and body["top_p"] == 0.9 and body["seed"] == 7
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 64
    assert body["messages"][0]["role"] == "system"


def test_json_schema_can_be_switched_off(tmp_path):
    from security_verifiers.environments import baseline_policies, resolve_env
    from security_verifiers.serving import PolicyServer, serve_in_thread

    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    server = PolicyServer(policy, "m", record_bodies=True)
    with serve_in_thread(server) as base_url:
        [result] = run(
            EvalConfig(
                env="e1", models=[f"m@{base_url}"], n=2, json_schema=False, output_root=tmp_path
            )
        )
    assert all("response_format" not in body for body in server.stats.seen_bodies)
    meta = json.loads((result.run_dir / "metadata.json").read_text())
    assert meta["structured_output"] is None
