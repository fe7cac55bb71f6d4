"""`make bench` keeps working (tiny runs; no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from security_verifiers import bench
from security_verifiers.models.local_gguf import local_runtime_available


def test_bench_runs_every_measurement_in_its_own_processes(capsys):
    """The quick bench: stub server process, one worker process per env, the summary table."""
    bench.main(["--quick", "--envs", "e1,e2"])
    out = capsys.readouterr().out
    assert "rollouts/hour" in out and "1→2" in out
    [line] = [ln for ln in out.splitlines() if ln.startswith('{"bench"')]
    results = {r["env"]: r for r in json.loads(line)["bench"]["envs"]}
    assert set(results) == {"e1", "e2"}
    for record in results.values():
        assert set(record["median_per_hour"]) == {"1", "2"} and record["scaling"] > 0
        assert record["load_s"] > 0 and record["first_rollout_s"] > record["load_s"]
        assert all(o["errors"] == 0 and o["scoring_errors"] == 0
                   for o in record["outcomes"].values())  # fmt: skip
    assert results["e2"]["outcomes"]["2"]["mean_reward"] > 0  # the fixes were really scored
    assert set(results["e2"]["warm_up_s"]) == {"k8s", "terraform"}
    for record in results.values():  # CPU per scored rollout and the ceiling it implies
        cpu = record["cpu"]
        assert cpu["rollouts"] == 3 and cpu["process_cpu_s"] >= cpu["scoring_cpu_s"] >= 0
        assert record["ceiling_per_hour"] > 0
    assert results["e2"]["cpu"]["scoring_cpu_s"] > 0  # re-scans run in the scoring pool
    assert "CPU ceiling/h" in out


def test_bench_startup_only_stops_after_the_first_rollout(capsys):
    bench.main(["--startup-only", "--envs", "e1", "--latency", "0"])
    out = capsys.readouterr().out
    [line] = [ln for ln in out.splitlines() if ln.startswith('{"startup"')]
    [record] = json.loads(line)["startup"]
    assert record["env"] == "e1" and "runs" not in record
    assert 0 < record["imports_s"] < record["first_rollout_s"]


def test_stub_server_answers_with_the_env_policy_after_its_latency():
    import httpx2

    with bench.stub_server(0.2, ["e1"]) as base_url:
        assert httpx2.get(f"{base_url}/models").json()["data"]
        body = {"model": "target", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx2.post(f"{base_url}/chat/completions", json=body, timeout=30).json()
        assert "can't help" in reply["choices"][0]["message"]["content"]


def test_e2_reward_bench_runs_through_its_spec_hook(capsys):
    from security_verifiers import reward_bench

    assert reward_bench.main(["e2", "--", "--episodes", "1", "--cli-episodes", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== e2 (sv-env-config-verification)")
    assert "in_process_median_s" in out and "cli_median_s" in out


def test_reward_bench_names_a_bad_environment_in_one_line(capsys):
    from security_verifiers import reward_bench

    assert reward_bench.main(["no-such-env"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "unknown environment 'no-such-env'" in line


@pytest.mark.slow
@pytest.mark.skipif(not local_runtime_available(), reason="llama-cpp-python or the GGUF missing")
def test_local_model_bench_runs_and_is_repeatable():
    """Identical requests give identical outputs on each side (in-process, server, bare)."""
    from security_verifiers import bench_local

    result = bench_local.main(["--prompts", "1", "--repeats", "2"])
    assert result["bare_tokens_per_s"] > 0 and result["server_tokens_per_s"] > 0
    assert result["inprocess_tokens_per_s"] > 0
    assert result["repeatable"]
    assert result["same_output"] == {"inprocess_vs_bare": True, "server_vs_bare": True}
    assert "--logits_all" in result["server_flags"]
