"""`sv synth` end to end against a model served over HTTP on 127.0.0.1 (E1's recipe)."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import pytest
from rich.console import Console
from toy_adapter import ToyRow, toy_adapter, toy_rows

from security_verifiers.data.adapters import adapter_for
from security_verifiers.data.build import BuildOptions, build_dataset
from security_verifiers.data.candidate_filter import CandidateFilter
from security_verifiers.data.synth import SynthOptions, judge_candidate, plan, synthesize
from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatRequest
from security_verifiers.serving import PolicyServer, serve_in_thread
from sv_env_network_logs.data_pipeline import synth_seeds
from sv_env_network_logs.flows import LabeledFlow
from sv_env_network_logs.generator import NoiseConfig, generate_flows
from sv_env_network_logs.heuristic import heuristic_predict
from sv_env_network_logs.prompts import render_flow
from sv_shared.data import SourceRequest

ENTRY = resolve_env("e1")
GARBAGE = "Sure! Here is a record:\n```python\nprint('hello')\n```"


def confident_pool() -> dict[str, list[LabeledFlow]]:
    """Generator flows the rule oracle labels like their ground truth, by label."""
    pool: dict[str, list[LabeledFlow]] = {"Benign": [], "Malicious": []}
    for item in generate_flows(600, seed=99, noise=NoiseConfig()):
        if heuristic_predict(item.flow)[0] == item.label:
            pool[item.label].append(item)
    return pool


class ScriptedModel:
    """Answers in a fixed cycle: a fresh matching flow, garbage, a copy of the prompt's example,
    a flow of the opposite class."""

    def __init__(self) -> None:
        self.pool = confident_pool()
        self.counter = itertools.count()
        self.fresh = {label: iter(items) for label, items in self.pool.items()}

    def __call__(self, request: ChatRequest) -> str:
        text = request.last_user_text()
        wanted = "Malicious" if "malicious traffic" in text else "Benign"
        other = "Benign" if wanted == "Malicious" else "Malicious"
        kind = next(self.counter) % 4
        if kind == 0:
            return "Here you go:\n" + render_flow(next(self.fresh[wanted]).flow)
        if kind == 1:
            return GARBAGE
        if kind == 2:
            start = text.index("```zeek-conn")
            return text[start : text.index("```", start + 5) + 3]
        return render_flow(next(self.fresh[other]).flow)


def run_synth(tmp_path: Path, base_url: str, n: int, **kwargs) -> Path:
    options = SynthOptions(
        model=f"scripted@{base_url}",
        n=n,
        temperatures=(0.5, 1.0),
        out_root=tmp_path / "synth",
        reference=kwargs.pop("reference", None),
        **kwargs,
    )
    return asyncio.run(synthesize(ENTRY, options, Console(quiet=True))).directory


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_plan_sweeps_temperatures_per_template():
    seeds = synth_seeds(1)
    schedule = plan(seeds, 8, (0.2, 0.9), seed=1)
    assert [t for _, t in schedule] == [0.2, 0.9] * 4
    assert schedule[0][0] == schedule[1][0] and schedule[1][0] != schedule[2][0]
    with pytest.raises(UserError):
        plan([], 3, (1.0,), seed=0)


def test_synth_labels_rejects_and_records_everything(tmp_path):
    server = PolicyServer(ScriptedModel(), "scripted")
    with serve_in_thread(server) as base_url:
        run = run_synth(tmp_path, base_url, 12)
    records = read(run / "candidates.jsonl")
    assert [r["index"] for r in records] == list(range(12))
    stages = [r["stage"] for r in records]
    assert stages == ["accepted", "schema", "dedup", "verify"] * 3
    assert all(
        "the example of seed template" in r["reason"] for r in records if r["stage"] == "dedup"
    )
    assert all("oracle says" in r["reason"] for r in records if r["stage"] == "verify")
    accepted = [LabeledFlow.model_validate(r) for r in read(run / "accepted.jsonl")]
    assert len(accepted) == 3
    for row, record in zip(accepted, [r for r in records if r["stage"] == "accepted"], strict=True):
        assert row.label == record["target"]["label"] == heuristic_predict(row.flow)[0]
        assert row.group == f"synth/{record['template']}" and row.source == "synth"
    meta = json.loads((run / "metadata.json").read_text())
    results = meta["results"]
    assert results["candidates"] == 12 and results["by_stage"]["accepted"] == 3
    assert results["rejection_rate"] == 0.75
    assert set(results["by_temperature"]) == {"0.5", "1.0"}
    assert meta["model"]["name"].startswith("scripted@") and "rule oracle" in meta["verifier"]
    assert meta["seed_templates"]["count"] == 41 and meta["temperatures"] == [0.5, 1.0]
    spot = read(run / "spot_check.jsonl")
    assert len(spot) == 1 and spot[0]["stage"] == "accepted" and spot[0]["reviewer_label"] is None
    assert all("completion" in r for r in records)  # E1 completions are not redacted


def test_synth_resumes_without_asking_again(tmp_path):
    server = PolicyServer(ScriptedModel(), "scripted")
    with serve_in_thread(server) as base_url:
        first = run_synth(tmp_path, base_url, 4)
        asked = server.stats.requests
        again = run_synth(tmp_path, base_url, 8, resume=first)
    assert again == first and server.stats.requests - asked == 4
    assert [r["index"] for r in read(first / "candidates.jsonl")] == list(range(8))
    assert json.loads((first / "metadata.json").read_text())["results"]["candidates"] == 8


def test_synth_rejects_rows_that_overlap_the_built_dataset(tmp_path, monkeypatch):
    monkeypatch.setenv("SV_DATASETS_DIR", str(tmp_path / "datasets"))
    adapter = adapter_for(ENTRY)
    build = build_dataset(
        adapter, BuildOptions(request=SourceRequest(seed=5, options={"size": "300"}))
    )
    test_row = LabeledFlow.model_validate(read(build / "test.jsonl")[0])
    gate = CandidateFilter.for_env(adapter, "latest")
    assert gate.reference_info["dataset"] == str(build)
    seed = next(s for s in synth_seeds(0) if s.target["label"] == test_row.label)
    row, stage, reason = judge_candidate(
        adapter, adapter.synth, seed, render_flow(test_row.flow), "cand-1", gate
    )
    assert row is None and stage == "dedup" and reason.startswith("contaminates:")
    missing = CandidateFilter.for_env(adapter, "no-such-build")
    assert missing.reference_info["dataset"] is None


def test_synth_rows_join_a_build(tmp_path):
    server = PolicyServer(ScriptedModel(), "scripted")
    with serve_in_thread(server) as base_url:
        run = run_synth(tmp_path, base_url, 8)
    adapter = adapter_for(ENTRY)
    build = build_dataset(
        adapter,
        BuildOptions(
            request=SourceRequest(options={"size": "300"}), root=tmp_path / "ds", synth_runs=(run,)
        ),
    )
    meta = json.loads((build / "metadata.json").read_text())
    assert [s["name"] for s in meta["sources"]] == [
        "synthetic",
        "synth:" + meta["sources"][1]["name"][6:],
    ]
    assert meta["sources"][1]["rows"] == 2 and meta["counts"]["total"] >= 290
    rows = [r for s in ("train", "dev", "test") for r in read(build / f"{s}.jsonl")]
    assert sum(r["source"] == "synth" for r in rows) == 2


def test_bad_synth_arguments_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="--n must be positive"):
        asyncio.run(synthesize(ENTRY, SynthOptions(model="heuristic", n=0), Console(quiet=True)))
    with pytest.raises(UserError, match="nothing to resume"):
        asyncio.run(
            synthesize(
                ENTRY, SynthOptions(model="heuristic", n=2, resume=tmp_path), Console(quiet=True)
            )
        )


def test_a_candidate_embedding_an_example_is_rejected():
    adapter = toy_adapter()
    gate = CandidateFilter(adapter)
    example = toy_rows(1, 1)[0]
    gate.add_example(example.text, "the example")

    def row(text: str) -> ToyRow:
        return example.model_copy(update={"id": "cand", "text": text})

    padded = example.text + " and then release it somewhere crowded at night please"
    assert gate.check(row(padded)).startswith("embeds most of the example")
    assert gate.check(row(example.text)).startswith("exact duplicate of the example")
    assert gate.check(row("an entirely new sentence with its own words " * 3)) == ""
    gate.containment = None
    assert "embeds" not in gate.check(row(padded))


def test_near_variants_are_allowed_only_within_their_group_and_outside_evaluation():
    gate = CandidateFilter(toy_adapter())
    base = toy_rows(1, 1)[0]
    gate.add_example(base.text, "the seed's own variant", group=base.group)
    variant = base.model_copy(update={"id": "cand", "text": base.text + " changed"})
    assert gate.check(variant) == ""  # same group: a variant of its own function is fine
    stranger = variant.model_copy(update={"group": "other"})
    assert gate.check(stranger).startswith("embeds most of the seed's own variant")
    gate.add_text(base.text + " test copy", "a row in the test split", base.group, evaluation=True)
    assert gate.check(variant).startswith("contaminates: near duplicate of a row in the test")
    assert gate.check(base).startswith("exact duplicate of")
