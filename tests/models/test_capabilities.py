"""What each model family accepts, and the request bodies that reach a server.

The end-to-end tests run `sv eval` (the real OpenAI client and verifiers' chat client) against
`RulesServer`, an OpenAI-compatible server on 127.0.0.1 that answers 400 where OpenAI does. The
command runs in this process (`sv_main`: `security_verifiers.cli.main`, its exit status and
output), which saves an interpreter start per case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_rules_server import REASONING_TOKENS, RulesServer

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.models.capabilities import GENERIC, RequestPlan, parse_overrides
from security_verifiers.models.clients import request_plan
from security_verifiers.models.pricing import list_price
from security_verifiers.models.providers.openai_compat import PRICES_USD_PER_MTOK
from security_verifiers.models.providers.registry import resolve_model
from security_verifiers.serving import serve_in_thread

N = 2


def spec(name: str):
    return resolve_model(name, baselines={}, base_url="http://127.0.0.1:9/v1")


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("gpt-5-mini", "openai-reasoning"),
        ("gpt-5-mini@http://127.0.0.1:9/v1", "openai-reasoning"),
        ("openai/gpt-5", "openai-reasoning"),
        ("o3-mini", "openai-reasoning"),
        ("o4-mini-2025-04-16", "openai-reasoning"),
        ("gpt-5-chat-latest", "openai-chat"),
        ("gpt-4o-mini", "openai-chat"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "think-tags"),
        ("Qwen/QwQ-32B", "think-tags"),
        ("openai/gpt-oss-20b", "reasoning-field"),
        ("Qwen/Qwen2.5-7B-Instruct", "generic"),
        ("anthropic/claude-opus-4-7@http://127.0.0.1:9", "claude-no-sampling"),
        ("anthropic/claude-sonnet-4-5@http://127.0.0.1:9", "claude"),
        ("google/gemini-2.5-flash@http://127.0.0.1:9", "gemini-thinking"),
    ],
)
def test_families_are_matched_by_model_id(name: str, family: str) -> None:
    assert request_plan(spec(name)).capabilities.family == family


def test_a_reasoning_plan_drops_sampling_and_adds_the_reasoning_budget() -> None:
    plan = request_plan(spec("gpt-5-mini"), reasoning_effort="low", reasoning_budget=1000)
    body = {"model": "gpt-5-mini", "temperature": 0.0, "seed": 42, "max_completion_tokens": 512}
    sent = plan.apply(body)
    assert sent == {"model": "gpt-5-mini", "seed": 42, "max_completion_tokens": 1512,
                    "reasoning_effort": "low"}  # fmt: skip
    assert "temperature" in plan.seen and "completion_cap" in plan.seen


def test_a_classic_server_gets_max_tokens_and_no_effort() -> None:
    plan = request_plan(spec("Qwen/Qwen2.5-7B-Instruct"), reasoning_effort="high")
    sent = plan.apply({"temperature": 0.0, "max_completion_tokens": 512})
    assert sent == {"temperature": 0.0, "max_tokens": 512}  # verifiers' rename undone
    assert plan.seen["reasoning_effort"].startswith("dropped")


def test_overrides_are_checked_and_applied() -> None:
    plan = request_plan(spec("my-r1-finetune"), overrides=["family=think-tags", "seed=false"])
    assert plan.capabilities.family == "think-tags" and plan.capabilities.seed is False
    assert plan.source == "override"
    for bad in ("temperature=maybe", "colour=red", "token_param=max_len", "family=nope", "x"):
        with pytest.raises(UserError, match="--capability"):
            parse_overrides([bad], {"generic": GENERIC})


def test_prices_match_snapshots_but_not_other_models() -> None:
    assert list_price(PRICES_USD_PER_MTOK, "gpt-5-mini-2025-08-07") == (0.25, 2.00)
    assert list_price(PRICES_USD_PER_MTOK, "openai/gpt-5-mini") == (0.25, 2.00)
    assert list_price(PRICES_USD_PER_MTOK, "gpt-5-mini-custom") is None
    assert list_price(PRICES_USD_PER_MTOK, "o3-mini") == (1.10, 4.40)


def test_describe_is_what_metadata_records() -> None:
    plan = RequestPlan(request_plan(spec("gpt-5-mini")).capabilities, reasoning_budget=100)
    described = plan.describe({"temperature": 0.0, "max_tokens": 512, "seed": 1})
    assert described["sent_sampling_args"] == {"seed": 1, "max_completion_tokens": 612}
    assert described["reasoning_budget"] == 100 and plan.seen == {}  # a preview, not a request


# -- end to end: sv eval against the rules server ---------------------------------------------


@pytest.fixture
def sv_eval(sv_main):
    """`sv_eval(model, out, *extra)`: `sv eval e1` of N examples against `model`."""

    def run(model: str, out: Path, *extra: str):
        return sv_main("eval", "e1", "--models", model, "-n", str(N), "--max-concurrent", "1",
                       "--max-retries", "0", "--output-dir", str(out), *extra)  # fmt: skip

    return run


def run_files(out: Path) -> tuple[dict, dict, list[dict]]:
    [run_dir] = list(out.glob("*/*/"))
    meta = json.loads((run_dir / "metadata.json").read_text())
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return meta, summary, rows


@pytest.fixture(scope="module")
def rules():
    server = RulesServer(baseline_policies(resolve_env("e1"))["heuristic"])
    with serve_in_thread(server) as base_url:
        yield server, base_url


def test_a_reasoning_model_gets_only_what_it_accepts(rules, sv_eval, tmp_path: Path) -> None:
    server, base_url = rules
    server.bodies.clear()
    proc = sv_eval(f"gpt-5-mini@{base_url}", tmp_path, "--reasoning-effort", "low")
    assert proc.returncode == 0, proc.stderr
    meta, summary, rows = run_files(tmp_path)
    assert summary["n"] == N and summary["n_errors"] == 0
    [body, *_] = server.bodies
    assert "temperature" not in body and "max_tokens" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 512 + 8192 and body["reasoning_effort"] == "low"
    assert body["seed"] == 42
    assert all(r["tokens"]["reasoning"] == REASONING_TOKENS["low"] for r in rows)
    assert summary["tokens_reasoning"] == N * REASONING_TOKENS["low"]
    assert meta["token_usage"]["reasoning"] == N * REASONING_TOKENS["low"]
    assert meta["request"]["capabilities"]["family"] == "openai-reasoning"
    assert "temperature" in meta["request"]["changes"]
    assert meta["cost_usd"] is not None and meta["cost_usd"] > 0
    assert meta["price_usd_per_mtok"]["source"].startswith("list price as of")


def test_reasoning_that_exhausts_the_cap_is_a_truncated_error(
    rules, sv_eval, tmp_path: Path
) -> None:
    _, base_url = rules
    proc = sv_eval(f"gpt-5-mini@{base_url}", tmp_path, "--reasoning-budget", "0")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert f"{N} truncated" in last and "--reasoning-budget" in last and "rerun" not in last
    meta, summary, rows = run_files(tmp_path)
    assert summary["n"] == 0 and summary["errors_by_kind"] == {"truncated": N}
    assert all(r["reward"] is None and r["error_kind"] == "truncated" for r in rows)
    assert meta["status"] == "partial"


def test_a_classic_chat_model_keeps_its_sampling(rules, sv_eval, tmp_path: Path) -> None:
    server, base_url = rules
    server.bodies.clear()
    proc = sv_eval(f"gpt-4o-mini@{base_url}", tmp_path, "--reasoning-effort", "high")
    assert proc.returncode == 0, proc.stderr
    [body, *_] = server.bodies
    assert body["temperature"] == 0.0 and body["max_completion_tokens"] == 512
    assert "reasoning_effort" not in body  # dropped (the server would answer 400) and noted
    meta, _, _ = run_files(tmp_path)
    assert meta["request"]["changes"]["reasoning_effort"].startswith("dropped")


def test_an_r1_model_is_scored_on_its_answer_not_its_thoughts(
    rules, sv_eval, tmp_path: Path
) -> None:
    server, base_url = rules
    server.bodies.clear()
    proc = sv_eval(f"DeepSeek-R1-Distill-Qwen-7B@{base_url}", tmp_path)
    assert proc.returncode == 0, proc.stderr
    [body, *_] = server.bodies
    assert body["max_tokens"] == 512 + 8192 and body["temperature"] == 0.0
    _, summary, rows = run_files(tmp_path)
    assert summary["n"] == N
    assert all("<think>" not in r["completion"] and r["parsed"] is not None for r in rows)
    for row in rows:  # not reported by the server: the thoughts' share of the completion
        assert row["tokens"]["reasoning_estimated"] is True
        assert 0.8 * row["tokens"]["output"] < row["tokens"]["reasoning"] < row["tokens"]["output"]


def test_an_r1_model_cut_inside_its_thoughts_is_truncated(rules, sv_eval, tmp_path: Path) -> None:
    _, base_url = rules
    proc = sv_eval(
        f"DeepSeek-R1@{base_url}", tmp_path, "--reasoning-budget", "0", "--max-tokens", "100"
    )
    assert proc.returncode == 1
    _, summary, _ = run_files(tmp_path)
    assert summary["errors_by_kind"] == {"truncated": N}


@pytest.mark.parametrize(
    ("model", "kind", "hint"),
    [
        ("ctx-small", "context_length", "shorten the prompt"),
        ("empty-choices", "empty_choices", "rerun"),
        ("html-portal", "invalid_body", "not JSON"),
        ("rejects-all", "bad_request", "a rerun sends the same request"),
    ],
)
def test_failures_are_error_rows_with_a_fitting_hint(
    rules, sv_eval, tmp_path: Path, model: str, kind: str, hint: str
) -> None:
    _, base_url = rules
    proc = sv_eval(f"{model}@{base_url}", tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert f"{N} {kind}" in last and hint in last, last
    meta, summary, rows = run_files(tmp_path)
    assert summary["n"] == 0 and summary["reward_mean"] is None
    assert all(r["error_kind"] == kind and r["reward"] is None for r in rows)
    assert meta["status"] == "partial"


def test_deterministic_errors_are_not_requested_again(rules, sv_eval, tmp_path: Path) -> None:
    server, base_url = rules
    assert sv_eval(f"ctx-small@{base_url}", tmp_path).returncode == 1
    before = len(server.bodies)
    again = sv_eval(f"ctx-small@{base_url}", tmp_path)
    assert again.returncode == 1 and len(server.bodies) == before
    assert len(list(tmp_path.glob("*/*/"))) == 1


def test_truncated_score_keeps_a_cut_reply_as_the_answer(rules, sv_eval, tmp_path: Path) -> None:
    _, base_url = rules
    proc = sv_eval(f"gpt-5-mini@{base_url}", tmp_path, "--reasoning-budget", "0",
                   "--truncated", "score")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    meta, summary, rows = run_files(tmp_path)
    assert summary["n"] == N and meta["truncated"] == "score"
    assert all(r["error"] is None and r["reward"] is not None for r in rows)
