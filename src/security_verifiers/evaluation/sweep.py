"""Sweep files (`sv eval-set FILE`): environments × models × env-args × seeds in one file.

A sweep file (YAML or TOML) names the models, the seeds, default evaluation options, optional
per-provider concurrency limits and a list of tasks (one environment each, with one env-args
mapping or a list of them). :func:`expand` turns it into one :class:`EvalConfig` per
(task, env-args variant, seed), all writing under one run directory
(``<output_dir>/runs``); :func:`run_sweep` evaluates them with the models of each config in
parallel, retries errored rollouts in one more pass, and writes ``sweep.json`` (the plan and
where each run is) and one report (``<output_dir>/report``).

Resuming is the ordinary `sv eval` resume: rerunning the same file finds each (environment,
model, config) run on disk, skips the complete ones and requests only the missing rollouts
of the others, so a sweep killed at any point (kill -9 included) loses nothing and repeats
nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pydantic
import yaml
from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console

from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig

SWEEP_MANIFEST = "sweep.json"


class EvalOptions(BaseModel):
    """Evaluation options a sweep sets for every task (``defaults``) or one task; unset
    options keep `sv eval`'s defaults."""

    model_config = ConfigDict(extra="forbid")

    n: int | None = Field(default=None, ge=-1, description="examples; -1 = all")
    max_concurrent: int | None = Field(default=None, ge=1)
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    reasoning_effort: str | None = None
    reasoning_budget: int | None = Field(default=None, ge=0)
    truncated: Literal["error", "score"] | None = None
    json_schema: bool | None = None
    max_retries: int | None = Field(default=None, ge=0)
    timeout_s: float | None = Field(default=None, gt=0)
    base_url: str | None = None
    api_key_env: str | None = None
    target: str | None = None

    def set_values(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class SweepTask(EvalOptions):
    """One environment: its env-args (one mapping, or a list = one run per mapping), and
    optionally its own models and seeds."""

    env: str
    env_args: dict[str, Any] | list[dict[str, Any]] = Field(default_factory=dict[str, Any])
    models: list[str] | None = None
    seeds: list[int] | None = None


class SweepFile(BaseModel):
    """A whole sweep."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    output_dir: Path | None = Field(
        default=None, description="the sweep's run directory (default outputs/sweeps/<name>)"
    )
    models: list[str] = Field(default_factory=list)
    seeds: list[int] = Field(default_factory=lambda: [42], min_length=1)
    defaults: EvalOptions = Field(default_factory=EvalOptions)
    concurrency: dict[str, int] = Field(
        default_factory=dict,
        description="provider kind (openai, anthropic, google, baseline, local, ...) -> the "
        "most rollouts in flight at once across all that provider's models",
    )
    retry_rounds: int = Field(default=1, ge=0, le=5)
    tasks: list[SweepTask] = Field(min_length=1)

    def run_dir(self) -> Path:
        return self.output_dir or Path("outputs/sweeps") / self.name


def _location(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def load_sweep(path: Path) -> SweepFile:
    """Parse and validate a sweep file; any problem is one line naming the file and key."""
    if not path.is_file():
        raise UserError(f"{path}: no such sweep file")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".toml":
            raw: Any = tomllib.loads(text)
        elif path.suffix.lower() in (".yaml", ".yml"):
            raw = yaml.safe_load(text)
        else:
            raise UserError(f"{path}: a sweep file is .yaml, .yml or .toml")
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise UserError(f"{path}:{where} not valid YAML: {problem}") from None
    if not isinstance(raw, dict):
        raise UserError(f"{path}: expected a mapping at the top level (name, models, tasks)")
    try:
        sweep = SweepFile.model_validate(raw)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        key = _location(first.get("loc", ()))
        message = first.get("msg", "invalid value")
        if first.get("type") == "extra_forbidden":
            message = "unknown key"
        raise UserError(f"{path}: {key}: {message}") from None
    from security_verifiers.models.providers.registry import providers

    kinds = sorted({provider.kind for provider in providers()})
    for kind, limit in sweep.concurrency.items():
        if kind not in kinds:
            raise UserError(f"{path}: concurrency.{kind}: unknown provider (one of {kinds})")
        if limit < 1:
            raise UserError(f"{path}: concurrency.{kind}: must be at least 1")
    for index, task in enumerate(sweep.tasks):
        if not (task.models or sweep.models):
            raise UserError(f"{path}: tasks[{index}].models: no models (set models: at the top)")
    return sweep


@dataclass(frozen=True)
class PlannedRun:
    """One `sv eval` of the sweep: a config with every model of its task."""

    task_index: int
    config: EvalConfig

    def label(self) -> str:
        args = json.dumps(self.config.env_args, sort_keys=True) if self.config.env_args else ""
        return f"{self.config.env} seed={self.config.seed} {args}".strip()


def expand(sweep: SweepFile, *, show_progress: bool = True) -> list[PlannedRun]:
    """One planned run per (task, env-args variant, seed), in file order."""
    root = sweep.run_dir() / "runs"
    planned: list[PlannedRun] = []
    defaults = sweep.defaults.set_values()
    for index, task in enumerate(sweep.tasks):
        variants = task.env_args if isinstance(task.env_args, list) else [task.env_args]
        options = {**defaults, **EvalOptions.model_validate(
            task.model_dump(include=set(EvalOptions.model_fields))
        ).set_values()}  # fmt: skip
        n = options.pop("n", None)
        for env_args in variants or [{}]:
            for seed in task.seeds or sweep.seeds:
                config = EvalConfig(
                    env=task.env,
                    models=list(task.models or sweep.models),
                    n=None if n in (None, -1) else n,
                    seed=seed,
                    env_args=dict(env_args),
                    output_root=root,
                    show_progress=show_progress,
                    **options,
                )
                planned.append(PlannedRun(index, config))
    return planned


@dataclass
class SweepOutcome:
    """What a sweep left on disk."""

    run_dir: Path
    runs: list[dict[str, Any]] = field(default_factory=list)
    report: Path | None = None

    @property
    def errored(self) -> int:
        return sum(int(r.get("n_errors") or 0) for r in self.runs)


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_manifest(sweep: SweepFile, source: Path, outcome: SweepOutcome, status: str) -> None:
    manifest = {
        "name": sweep.name,
        "file": str(source),
        "file_sha256": _file_hash(source),
        "status": status,
        "runs": outcome.runs,
        "report": str(outcome.report) if outcome.report else None,
    }
    path = outcome.run_dir / SWEEP_MANIFEST
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


async def _evaluate_plan(
    plan: Sequence[PlannedRun], limits: Mapping[str, int], console: Console
) -> list[dict[str, Any]]:
    from security_verifiers.evaluation.runner import evaluate

    limiters = {kind: asyncio.Semaphore(n) for kind, n in limits.items()}
    rows: list[dict[str, Any]] = []
    for planned in plan:
        console.print(f"[bold]sweep[/bold] · {planned.label()}")
        runs = await evaluate(planned.config, console, parallel_models=True, limiters=limiters)
        for run in runs:
            rows.append(
                {
                    "env": planned.config.env,
                    "env_args": planned.config.env_args,
                    "seed": planned.config.seed,
                    "model": run.spec.name,
                    "run_dir": str(run.run_dir),
                    "n": run.summary.get("n"),
                    "n_errors": run.summary.get("n_errors") or 0,
                    "reward_mean": run.summary.get("reward_mean"),
                }
            )
    return rows


async def run_sweep(
    sweep: SweepFile, source: Path, console: Console, *, report: bool = True
) -> SweepOutcome:
    """Evaluate every planned run (resuming what is on disk), retry errored rollouts, report."""
    outcome = SweepOutcome(sweep.run_dir())
    outcome.run_dir.mkdir(parents=True, exist_ok=True)
    plan = expand(sweep)
    _write_manifest(sweep, source, outcome, "running")
    outcome.runs = await _evaluate_plan(plan, sweep.concurrency, console)
    for round_no in range(1, sweep.retry_rounds + 1):
        again = [p for p in plan if _has_errors(p, outcome.runs)]
        if not again:
            break
        console.print(
            f"[yellow]sweep: retrying errored rollouts of {len(again)} run(s) "
            f"(round {round_no} of {sweep.retry_rounds})[/yellow]"
        )
        retried = await _evaluate_plan(again, sweep.concurrency, console)
        outcome.runs = _merge(outcome.runs, retried)
    if report:
        from security_verifiers.reports.build import build_report

        paths = build_report(
            [str(outcome.run_dir / "runs")],
            outcome.run_dir / "report",
            seed=0,
            complete_only=False,
            warn=lambda message: console.print(f"[yellow]warning: {message}[/yellow]"),
        )
        outcome.report = paths.html
    _write_manifest(sweep, source, outcome, "partial" if outcome.errored else "complete")
    return outcome


def _key(row: Mapping[str, Any]) -> tuple[str, str, int, str]:
    return (row["env"], json.dumps(row["env_args"], sort_keys=True), row["seed"], row["model"])


def _has_errors(planned: PlannedRun, rows: Sequence[Mapping[str, Any]]) -> bool:
    args = json.dumps(planned.config.env_args, sort_keys=True)
    return any(
        row["n_errors"]
        for row in rows
        if (row["env"], json.dumps(row["env_args"], sort_keys=True), row["seed"])
        == (planned.config.env, args, planned.config.seed)
    )


def _merge(rows: list[dict[str, Any]], newer: list[dict[str, Any]]) -> list[dict[str, Any]]:
    latest = {_key(row): row for row in newer}
    return [latest.get(_key(row), row) for row in rows]
