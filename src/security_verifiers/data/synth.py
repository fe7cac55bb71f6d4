"""`sv synth`: grow an environment's data with model-written candidates its verifiers label.

The recipe is the same for every environment: seed templates → candidates sampled across a
temperature sweep → schema validation → rejection of duplicates (of earlier candidates, of the
templates' examples, of a built dataset — overlap with its dev/test splits is contamination) →
labels from the environment's own verifiers, rejecting what they cannot verify → a 5%
spot-check sample for humans. Everything lands in ``outputs/synth/<env>/<run>/``:
``candidates.jsonl`` (every candidate and its fate, appended as it happens, so an interrupted
run resumes), ``accepted.jsonl`` (rows in the environment's schema), ``spot_check.jsonl`` and
``metadata.json``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openai
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from security_verifiers.data.adapters import adapter_for
from security_verifiers.data.build import _tool_versions, row_id
from security_verifiers.data.candidate_filter import CandidateFilter
from security_verifiers.data.rows_io import append_jsonl, write_jsonl
from security_verifiers.environments import EnvEntry, baseline_policies
from security_verifiers.errors import UserError
from security_verifiers.models.clients import build_client, check_endpoint
from security_verifiers.models.local_server import LocalServerPool
from security_verifiers.models.providers.registry import resolve_model, serve
from security_verifiers.models.spec import ModelSpec
from sv_shared.data import DataAdapter, Rejected, SynthRecipe, SynthSeed

DEFAULT_TEMPERATURES = (0.3, 0.7, 1.0, 1.3)
SPOT_CHECK_FRACTION = 0.05


@dataclass(frozen=True)
class SynthOptions:
    model: str
    n: int
    seed: int = 42
    temperatures: tuple[float, ...] = DEFAULT_TEMPERATURES
    out_root: Path = Path("outputs/synth")
    reference: str | None = "latest"
    """Built dataset whose dev/test splits candidates must not overlap (None: skip)."""
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    resume: Path | None = None
    timeout_s: float = 120.0


@dataclass
class SynthRun:
    directory: Path
    metadata: dict[str, Any] = field(default_factory=dict)


def plan(
    seeds: Sequence[SynthSeed], n: int, temperatures: Sequence[float], seed: int
) -> list[tuple[SynthSeed, float]]:
    """Candidate i uses template ``order[i // T]`` at temperature ``temps[i % T]``: each
    template is sampled across the whole sweep before the next one starts."""
    if not seeds:
        raise UserError("the environment produced no seed templates")
    order = list(seeds)
    random.Random(seed).shuffle(order)
    width = len(temperatures)
    return [(order[(i // width) % len(order)], temperatures[i % width]) for i in range(n)]


def _run_dir(entry: EnvEntry, spec_name: str, options: SynthOptions) -> Path:
    if options.resume is not None:
        if not (options.resume / "candidates.jsonl").is_file():
            raise UserError(f"{options.resume}: nothing to resume (no candidates.jsonl)")
        return options.resume
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in spec_name)
    path = options.out_root / entry.env_id / f"{stamp}--{slug}"
    path.mkdir(parents=True, exist_ok=False)
    return path


def _done(path: Path) -> dict[int, dict[str, Any]]:
    if not path.is_file():
        return {}
    done: dict[int, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            done[int(record["index"])] = record
    return done


async def _complete(
    client: openai.AsyncOpenAI, spec: ModelSpec, template: SynthSeed, temperature: float, seed: int
) -> str:
    response = await client.chat.completions.create(
        model=spec.model_id,
        messages=[dict(m) for m in template.messages],  # type: ignore[misc]
        temperature=temperature,
        max_tokens=template.max_tokens,
        seed=seed,
    )
    return response.choices[0].message.content or ""


def judge_candidate(
    adapter: DataAdapter,
    recipe: SynthRecipe,
    template: SynthSeed,
    completion: str,
    candidate_id: str,
    gate: CandidateFilter,
) -> tuple[Any | None, str, str]:
    """(row or None, stage, reason): schema → dedup/contamination → verifier label."""
    try:
        row = recipe.parse(template, completion, candidate_id)
        row = adapter.from_json(json.loads(json.dumps(adapter.to_json(row))))
    except Rejected as exc:
        return None, exc.stage, exc.reason
    except ValueError as exc:  # pydantic ValidationError included
        return None, "schema", str(exc).splitlines()[0]
    problem = gate.check(row)  # before verifying: copies never cost a tool or sandbox run
    if problem:
        return None, "dedup", problem
    try:
        row = recipe.verify(template, row)
    except Rejected as exc:
        return None, exc.stage, exc.reason
    return row, "accepted", ""


async def synthesize(entry: EnvEntry, options: SynthOptions, console: Console) -> SynthRun:
    adapter = adapter_for(entry)
    recipe = adapter.synth
    if recipe is None:
        raise UserError(f"{entry.env_id} has no synthetic-data recipe")
    if options.n <= 0:
        raise UserError("--n must be positive")
    baselines = baseline_policies(entry)
    spec = resolve_model(
        options.model,
        baselines=baselines,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
    )
    seeds = list(recipe.seeds(options.seed))
    schedule = plan(seeds, options.n, options.temperatures, options.seed)
    directory = _run_dir(entry, spec.name, options)
    candidates_path = directory / "candidates.jsonl"
    done = _done(candidates_path)
    gate = CandidateFilter.for_env(adapter, options.reference)
    gate.containment = recipe.example_containment
    for template in seeds:
        groups = template.example_groups or [None] * len(template.example_texts)
        for text, group in zip(template.example_texts, groups, strict=True):
            gate.add_example(text, f"the example of seed template {template.id}", group)
    accepted: list[Any] = []
    for record in sorted(done.values(), key=lambda r: r["index"]):
        if record["stage"] == "accepted":
            row = adapter.from_json(record["row"])
            gate.remember(row)
            accepted.append(row)
    started = time.monotonic()
    with LocalServerPool() as pool:
        served = serve(spec, pool, console)  # a local model server, when it needs one
        spec = served.spec
        client = build_client(
            spec, baselines=baselines, timeout_s=options.timeout_s, transport=served.transport
        )
        try:
            await check_endpoint(client, spec)
            with _progress(console) as progress:
                task = progress.add_task("candidates", total=options.n, completed=len(done))
                for index, (template, temperature) in enumerate(schedule):
                    if index in done:
                        continue
                    record = await _one(
                        adapter, recipe, client, spec, template, temperature, index, options, gate
                    )
                    if record["stage"] == "accepted":
                        accepted.append(adapter.from_json(record["row"]))
                    append_jsonl(candidates_path, record)
                    done[index] = record
                    progress.advance(task)
        finally:
            await client.close()
    records = [done[i] for i in sorted(done)]
    write_jsonl(directory / "accepted.jsonl", (adapter.to_json(r) for r in accepted))
    spot = spot_check_sample(records, options.seed)
    write_jsonl(directory / "spot_check.jsonl", spot)
    metadata = synth_metadata(
        entry,
        adapter,
        recipe,
        spec,
        options,
        seeds,
        records,
        gate,
        spot,
        elapsed_s=time.monotonic() - started,
    )
    (directory / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    return SynthRun(directory=directory, metadata=metadata)


async def _one(
    adapter: DataAdapter,
    recipe: SynthRecipe,
    client: openai.AsyncOpenAI,
    spec: ModelSpec,
    template: SynthSeed,
    temperature: float,
    index: int,
    options: SynthOptions,
    gate: CandidateFilter,
) -> dict[str, Any]:
    candidate_id = f"synth-{options.seed}-{index:05d}"
    record: dict[str, Any] = {
        "index": index,
        "id": candidate_id,
        "template": template.id,
        "target": dict(template.target),
        "temperature": temperature,
    }
    try:
        completion = await _complete(client, spec, template, temperature, options.seed + index)
    except openai.APIError as exc:
        return {**record, "stage": "model", "reason": f"{type(exc).__name__}: {exc}"[:300]}
    record["completion_sha256"] = hashlib.sha256(completion.encode()).hexdigest()
    if not recipe.redact_completions:
        record["completion"] = completion
    row, stage, reason = judge_candidate(adapter, recipe, template, completion, candidate_id, gate)
    record.update(stage=stage, reason=reason)
    if row is not None:
        gate.remember(row)
        record["row"] = adapter.to_json(row)
        record["label"] = adapter.facets(row).label
    return record


def spot_check_sample(records: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """5% of the accepted candidates (at least one when any), for a human to confirm labels."""
    accepted = [r for r in records if r["stage"] == "accepted"]
    if not accepted:
        return []
    k = max(1, math.ceil(SPOT_CHECK_FRACTION * len(accepted)))
    chosen = random.Random(seed).sample(accepted, k)
    return [{**r, "reviewer_label": None, "reviewer_note": ""} for r in chosen]


def rejection_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    total = len(records)
    stages = Counter(r["stage"] for r in records)
    by_temperature: dict[str, dict[str, Any]] = {}
    for temperature in sorted({r["temperature"] for r in records}):
        subset = [r for r in records if r["temperature"] == temperature]
        ok = sum(r["stage"] == "accepted" for r in subset)
        by_temperature[str(temperature)] = {
            "candidates": len(subset),
            "accepted": ok,
            "acceptance_rate": round(ok / len(subset), 4) if subset else 0.0,
        }
    reasons = Counter(f"{r['stage']}: {r['reason']}"[:120] for r in records if r["reason"])
    return {
        "candidates": total,
        "by_stage": dict(stages),
        "acceptance_rate": round(stages.get("accepted", 0) / total, 4) if total else 0.0,
        "rejection_rate": round(1 - stages.get("accepted", 0) / total, 4) if total else 0.0,
        "by_temperature": by_temperature,
        "top_rejection_reasons": dict(reasons.most_common(10)),
        "accepted_labels": dict(
            Counter(r.get("label") for r in records if r["stage"] == "accepted")
        ),
    }


def synth_metadata(
    entry: EnvEntry,
    adapter: DataAdapter,
    recipe: SynthRecipe,
    spec: ModelSpec,
    options: SynthOptions,
    seeds: Sequence[SynthSeed],
    records: Sequence[dict[str, Any]],
    gate: CandidateFilter,
    spot: Sequence[dict[str, Any]],
    *,
    elapsed_s: float,
) -> dict[str, Any]:
    templates = json.dumps([[s.id, list(s.messages)] for s in seeds], sort_keys=True)
    return {
        "env_id": entry.env_id,
        "kind": "synthetic",
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "model": {
            "name": spec.name,
            "model_id": spec.model_id,
            "kind": spec.kind,
            "gguf": str(spec.gguf) if spec.gguf else None,
        },
        "n": options.n,
        "seed": options.seed,
        "temperatures": list(options.temperatures),
        "seed_templates": {
            "count": len(seeds),
            "sha256": f"sha256:{hashlib.sha256(templates.encode()).hexdigest()}",
        },
        "verifier": recipe.verifier,
        "versions": {**adapter.versions(), **_tool_versions()},
        "reference_dataset": gate.reference_info,
        "results": rejection_summary(records),
        "spot_check": {"fraction": SPOT_CHECK_FRACTION, "n": len(spot), "file": "spot_check.jsonl"},
        "license": f"generated by {spec.name}; subject to that model's terms",
        "elapsed_s": round(elapsed_s, 1),
        "accepted_ids": [r["id"] for r in records if r["stage"] == "accepted"],
    }


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


__all__ = ["SynthOptions", "SynthRun", "judge_candidate", "plan", "row_id", "synthesize"]
