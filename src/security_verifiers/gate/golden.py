"""Golden runs: deterministic summaries of the built-in baselines, kept in configs/golden/.

`python -m security_verifiers.gate.golden --write` re-runs the baselines (fixed models, n, seed
and target per environment, in-process, in a temporary directory) and rewrites
`configs/golden/<env>.json`; `--check` re-runs exactly what each file records and fails (exit 1)
when any core metric moved: the baselines are deterministic, so a change to a reward, a parser
or a dataset that moves their scores shows up here.
"""

from __future__ import annotations

import asyncio
import io
import logging
import math
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from security_verifiers.environments import ENVIRONMENTS, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.run_store import RunStore, write_json_atomic
from security_verifiers.evaluation.summary import is_answer
from security_verifiers.gate.core_metrics import core_metrics, metric_value
from security_verifiers.gate.gate import GateResult, compare, print_result
from security_verifiers.gate.snapshot import golden_snapshot, load_run, read_golden
from sv_shared.metrics import bootstrap_ci

FORMAT = 1
DIGITS = 10
"""Stored numbers are rounded so that regenerating an unchanged tree rewrites identical files."""
TOLERANCE = 1e-6
"""Relative change a golden check tolerates (floating-point noise only)."""


@dataclass(frozen=True)
class GoldenSpec:
    """What one environment's golden file runs."""

    env: str
    models: tuple[str, ...]
    n: int
    seed: int = 42
    target: str | None = None
    env_args: Mapping[str, Any] = field(default_factory=dict)


def golden_specs() -> tuple[GoldenSpec, ...]:
    """One per registered environment whose spec has a `golden` run (`EnvSpec.golden`).

    Sized so that the whole check takes well under a minute on two cores (E3 runs sandboxed
    tests, about half a second per example)."""
    specs = []
    for entry in ENVIRONMENTS.values():
        run = entry.spec.golden
        if run is not None:
            args = dict(run.env_args)
            specs.append(GoldenSpec(entry.key, run.models, run.n, run.seed, run.target, args))
    return tuple(specs)


def __getattr__(name: str) -> Any:
    if name == "GOLDEN_SPECS":  # read from the registry on use
        return golden_specs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_dir() -> Path:
    """`configs/golden` of this checkout (falling back to the working directory)."""
    root = Path(__file__).resolve().parents[3]
    return (root if (root / "configs").is_dir() else Path.cwd()) / "configs" / "golden"


def golden_path(directory: Path, env: str) -> Path:
    return directory / f"{resolve_env(env).key}.json"


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, DIGITS) if math.isfinite(value) else None
    if isinstance(value, list):
        return [_round(v) for v in value]
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    return value


def _entry(run_dir: Path, seed: int) -> dict[str, Any]:
    """The stored part of one run: identity, core metrics, reward components and a CI
    recomputed from rows in example order (so concurrency cannot reorder the bootstrap)."""
    snap = load_run(run_dir)
    rows = sorted(
        (r for r in RunStore(run_dir).load_results() if is_answer(r)), key=lambda r: r["example_id"]
    )
    rewards = [float(r["reward"]) for r in rows]
    metrics = {
        m.key: metric_value(snap.summary, m.key)
        for m in core_metrics(snap.env_id)
        if m.key != "reward_mean"
    }
    summary = {
        "n": snap.summary.get("n"),
        "n_errors": snap.summary.get("n_errors"),
        "reward_mean": snap.summary.get("reward_mean"),
        "reward_ci95": list(bootstrap_ci(rewards, seed=seed)) if rewards else None,
        "reward_components_mean": snap.summary.get("reward_components_mean") or {},
        "metrics": metrics,
    }
    return _round({"identity": snap.identity, "summary": summary})


async def run_spec(spec: GoldenSpec, output_root: Path) -> list[Path]:
    """Evaluate the spec's baselines into `output_root`; returns their run directories."""
    from security_verifiers.evaluation.config import EvalConfig
    from security_verifiers.evaluation.runner import evaluate

    config = EvalConfig(
        env=spec.env,
        models=list(spec.models),
        n=spec.n,
        seed=spec.seed,
        target=spec.target,
        env_args=dict(spec.env_args),
        output_root=output_root,
        resume=False,
        show_progress=False,
    )
    runs = await evaluate(config, Console(file=io.StringIO()))
    return [run.run_dir for run in runs]


def build_document(spec: GoldenSpec) -> dict[str, Any]:
    """Run the spec's baselines and return the golden document."""
    logging.getLogger("stevedore").setLevel(logging.CRITICAL)
    entry = resolve_env(spec.env)
    with tempfile.TemporaryDirectory(prefix="sv-golden-") as tmp:
        run_dirs = asyncio.run(run_spec(spec, Path(tmp)))
        models = {load_run(d).model: _entry(d, spec.seed) for d in run_dirs}
    return {
        "format": FORMAT,
        "env": entry.key,
        "env_id": entry.env_id,
        "run": {
            "models": list(spec.models),
            "n": spec.n,
            "seed": spec.seed,
            "target": spec.target,
            "env_args": dict(spec.env_args),
        },
        "models": models,
        "regenerate": "python -m security_verifiers.gate.golden --write",
    }


def spec_of(document: Mapping[str, Any], path: Path) -> GoldenSpec:
    """The spec a golden document was produced with."""
    run = document.get("run")
    if not isinstance(run, Mapping) or "n" not in run or "env" not in document:
        raise UserError(f"{path} does not record how it was produced; regenerate it with --write")
    return GoldenSpec(
        env=document["env"],
        models=tuple(run.get("models") or document["models"]),
        n=int(run["n"]),
        seed=int(run.get("seed", 42)),
        target=run.get("target"),
        env_args=dict(run.get("env_args") or {}),
    )


def write_golden(specs: Iterable[GoldenSpec], directory: Path) -> list[Path]:
    """Regenerate the golden file of each spec; returns the paths written."""
    paths = []
    for spec in specs:
        path = golden_path(directory, spec.env)
        write_json_atomic(path, build_document(spec))
        paths.append(path)
    return paths


def check_golden(
    directory: Path, envs: Sequence[str] | None = None, tolerance: float = TOLERANCE
) -> list[GateResult]:
    """Re-run each golden file's baselines and compare every model (two-sided)."""
    keys = [resolve_env(e).key for e in envs] if envs else [s.env for s in golden_specs()]
    results = []
    for key in keys:
        path = golden_path(directory, key)
        if not path.is_file():
            raise UserError(f"no golden file {path}; create it with --write")
        stored = read_golden(path)
        fresh = build_document(spec_of(stored, path))
        for model in stored["models"]:
            results.append(
                compare(
                    golden_snapshot(path, stored, model),
                    golden_snapshot(path, fresh, model),
                    tolerance,
                    two_sided=True,
                )
            )
    return results


def report(results: Sequence[GateResult], console: Console, verbose: bool = False) -> bool:
    """One line per passing model (a table with `verbose`), a table per failing one."""
    for result in results:
        name = f"{result.candidate.env_id} · {result.candidate.model}"
        if result.passed and not verbose:
            console.print(f"[green]ok[/green]   {name}")
        else:
            print_result(result, console, title=f"Golden: {name}")
    failed = [r for r in results if not r.passed]
    if failed:
        console.print(
            f"[bold red]{len(failed)} golden run(s) moved.[/bold red] If the change is "
            "intended, regenerate: python -m security_verifiers.gate.golden --write"
        )
    return not failed


def main(
    write: Annotated[bool, typer.Option("--write", help="Regenerate the golden files.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Gate the baselines on them.")] = False,
    env: Annotated[
        list[str] | None, typer.Option("--env", "-e", help="Only these environments.")
    ] = None,
    directory: Annotated[Path | None, typer.Option("--dir", help="Golden file folder.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Every table.")] = False,
) -> None:
    """Write or check the golden runs of the built-in baselines."""
    if write == check:
        raise UserError("give exactly one of --write or --check")
    folder = directory or default_dir()
    console = Console()
    if write:
        wanted = {resolve_env(e).key for e in env} if env else None
        specs = [s for s in golden_specs() if wanted is None or resolve_env(s.env).key in wanted]
        for path in write_golden(specs, folder):
            console.print(f"wrote {path}")
        return
    if not report(check_golden(folder, env), console, verbose):
        raise typer.Exit(1)


def cli(argv: Sequence[str] | None = None) -> None:
    """`python -m security_verifiers.gate.golden`: user mistakes are one line, exit 2."""
    app = typer.Typer(add_completion=False)
    app.command()(main)
    try:
        app(args=argv)
    except UserError as exc:
        Console(stderr=True).print(f"[red]error:[/red] {exc}")
        raise SystemExit(2) from None


if __name__ == "__main__":
    cli()
