"""`sv data build | validate | stats | list` and `sv synth`."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from security_verifiers.environments import resolve_env
from security_verifiers.errors import UserError

T = TypeVar("T")

data_app = typer.Typer(no_args_is_help=True, help="Build, validate and inspect datasets.")
console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def _options(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--option expects KEY=VALUE, got '{pair}'")
        out[key.strip()] = value
    return out


def _resolved(path: str | None) -> str | None:
    """Local paths are recorded absolute (provenance must make sense from anywhere)."""
    if path and Path(path).expanduser().exists():
        return str(Path(path).expanduser().resolve())
    return path


def _fractions(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise UserError(f"--split expects three numbers like 0.7,0.15,0.15, got '{text}'") from None
    if len(parts) != 3:
        raise UserError(f"--split expects three numbers like 0.7,0.15,0.15, got '{text}'")
    return parts


@data_app.command("build")
def build_command(
    env: Annotated[str, typer.Argument(help="Environment (e1 … e6 or its id).")],
    source: Annotated[
        str | None, typer.Option(help="Data source (default: the env's own).")
    ] = None,
    path: Annotated[
        str | None, typer.Option(help="File, directory or hub id for the source.")
    ] = None,
    option: Annotated[list[str], typer.Option(help="Source option KEY=VALUE (repeatable).")] = [],  # noqa: B006
    synth: Annotated[
        list[Path], typer.Option(help="`sv synth` run whose rows join (repeatable).")
    ] = [],  # noqa: B006
    seed: Annotated[int, typer.Option(help="Seed for generation and splitting.")] = 42,
    split: Annotated[str, typer.Option(help="train,dev,test fractions.")] = "0.7,0.15,0.15",
    near_dup: Annotated[
        float, typer.Option(help="Near-duplicate Jaccard threshold (0: off).")
    ] = 0.85,
    out: Annotated[
        Path | None, typer.Option(help="Datasets root (default outputs/datasets).")
    ] = None,
    push: Annotated[str | None, typer.Option(help="Also upload to this HF dataset repo.")] = None,
    token: Annotated[str | None, typer.Option(help="HF token for --push (or $HF_TOKEN).")] = None,
) -> None:
    """Build a validated, split dataset with provenance under outputs/datasets/<env>/<date>/."""
    from security_verifiers.data.adapters import adapter_for
    from security_verifiers.data.build import BuildOptions, build_dataset
    from sv_shared.data import SourceRequest

    adapter = adapter_for(resolve_env(env))
    options = BuildOptions(
        source=source,
        request=SourceRequest(path=_resolved(path), seed=seed, options=_options(option)),
        fractions=_fractions(split),
        near_dup_threshold=near_dup or None,
        root=out,
        synth_runs=tuple(synth),
    )
    with console.status(f"building {adapter.env_id} ({source or adapter.default_source}) ..."):
        build = build_dataset(adapter, options)
    metadata = json.loads((build / "metadata.json").read_text())
    _print_build(metadata)
    typer.echo(str(build))
    if push:
        from security_verifiers.data.publish import push_build

        console.print(f"pushed: {push_build(build, push, token)}")


def _print_build(metadata: dict) -> None:
    v, d, c = metadata["validation"], metadata["dedup"], metadata["contamination"]
    counts = metadata["counts"]
    console.print(
        f"[bold]{metadata['env_id']} {metadata['build']}[/bold]: {counts['total']} rows "
        f"(train {counts['train']} / dev {counts['dev']} / test {counts['test']}); "
        f"{v['invalid']} invalid, {v['duplicate_ids']} duplicate ids, "
        f"{d['exact_duplicates_removed']} exact + {d['near_duplicates_removed']} near duplicates "
        f"removed; contamination: {'none' if c['clean'] else '[red]FOUND[/red]'}"
    )


def _build_path(ref: str, env: str | None) -> Path:
    from sv_shared.data.store import DatasetStoreError, resolve_build

    path = Path(ref)
    if (path / "metadata.json").is_file():
        return path
    if env is None:
        raise UserError(f"{ref}: not a built dataset directory (pass --env to look up by name)")
    try:
        return resolve_build(resolve_env(env).env_id, ref)
    except DatasetStoreError as exc:
        raise UserError(str(exc)) from None


def _not_text(build: Path) -> Path | None:
    """The first file of a build directory that is not UTF-8 text (None when all are)."""
    candidates = [build / "metadata.json", *sorted(build.glob("*.jsonl"))]
    for path in candidates:
        try:
            with path.open("r", encoding="utf-8") as handle:
                for _ in handle:
                    pass
        except UnicodeDecodeError:
            return path
        except OSError:
            continue
    return None


def _inspect(action: Callable[[Path], T], build: Path) -> T:
    """Run `action` on a build directory; unreadable files become one-line user errors."""
    from sv_shared.data.store import DatasetStoreError

    try:
        return action(build)
    except DatasetStoreError as exc:
        raise UserError(str(exc)) from None
    except UnicodeDecodeError as exc:
        bad = _not_text(build) or build
        raise UserError(
            f"{bad}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "is it a binary or compressed file?"
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(
            f"{build}: not a readable built dataset ({type(exc).__name__}: {exc})"
        ) from None


@data_app.command("validate")
def validate_command(
    path: Annotated[str, typer.Argument(help="Built dataset directory (or a name with --env).")],
    env: Annotated[str | None, typer.Option(help="Environment, to look a name up.")] = None,
    recheck: Annotated[
        bool,
        typer.Option(
            "--recheck",
            help="Also re-run the environment's own verification of every row (E3: the "
            "sandboxed item validation; slow).",
        ),
    ] = False,
) -> None:
    """Re-check schema, hashes, counts, ids, grouping and contamination of a built dataset."""
    from functools import partial

    from security_verifiers.data.inspect_build import validate_build

    def progress(done: int, total: int) -> None:
        if done == total or done % 10 == 0:
            print(f"re-checked {done}/{total} rows", file=sys.stderr, flush=True)

    check = _inspect(
        partial(validate_build, recheck=recheck, progress=progress), _build_path(path, env)
    )
    n = sum(len(rows) for rows in check.rows.values())
    if check.ok:
        console.print(f"[green]valid[/green]: {check.build} ({n} rows, no contamination)")
        return
    for problem in check.problems:
        console.print(f"[red]✗[/red] {problem}")
    raise typer.Exit(1)


@data_app.command("stats")
def stats_command(
    path: Annotated[str, typer.Argument(help="Built dataset directory (or a name with --env).")],
    env: Annotated[str | None, typer.Option(help="Environment, to look a name up.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Label balance, scenario coverage and lengths per split."""
    from security_verifiers.data.inspect_build import build_stats

    stats = _inspect(build_stats, _build_path(path, env))
    if as_json:
        typer.echo(json.dumps(stats, indent=2))
        return
    out = Console(width=None if sys.stdout.isatty() else 160)
    table = Table(title=f"{stats['env_id']} — {stats['build']}")
    for column in ("split", "rows", "groups", "labels", "scenarios", "chars p50 / p90 / max"):
        table.add_column(column)
    for name, s in stats["splits"].items():
        labels = ", ".join(f"{k} {v}" for k, v in s["labels"].items())
        lengths = s["text_chars"]
        table.add_row(
            name,
            str(s["n"]),
            str(s["groups"]),
            labels,
            str(len(s["scenarios"])),
            f"{lengths['p50']} / {lengths['p90']} / {lengths['max']}",
        )
    out.print(table)
    missing = stats["scenarios_missing_from_test"]
    out.print(
        f"scenarios: {len(stats['scenario_coverage'])}; missing from test: "
        f"{', '.join(missing) if missing else 'none'}"
    )


@data_app.command("list")
def list_command(env: Annotated[str, typer.Argument(help="Environment.")]) -> None:
    """Built datasets of an environment, oldest first (the last is `latest`)."""
    from sv_shared.data.store import list_builds

    for build in list_builds(resolve_env(env).env_id):
        typer.echo(str(build))


def synth_command(
    env: Annotated[str, typer.Argument(help="Environment (e1 … e6 or its id).")],
    model: Annotated[str, typer.Option(help="Generating model (e.g. local/smollm2-135m).")],
    n: Annotated[int, typer.Option("--n", "-n", help="Candidates to sample.")] = 50,
    seed: Annotated[int, typer.Option(help="Seed for template order and sampling.")] = 42,
    temperatures: Annotated[str, typer.Option(help="Temperature sweep.")] = "0.3,0.7,1.0,1.3",
    reference: Annotated[
        str,
        typer.Option(
            help="Built dataset to check overlap against ('latest', a name, a path, or 'none')."
        ),
    ] = "latest",
    out: Annotated[Path, typer.Option(help="Output root.")] = Path("outputs/synth"),
    resume: Annotated[Path | None, typer.Option(help="Continue an interrupted run.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Variable holding the API key.")
    ] = "OPENAI_API_KEY",
    timeout: Annotated[float, typer.Option(help="Seconds per model request.")] = 120.0,
) -> None:
    """Generate candidates with a model, label them with the env's verifiers, keep the verified."""
    from security_verifiers.data.synth import SynthOptions, synthesize

    try:
        temps = tuple(float(t) for t in temperatures.split(","))
    except ValueError:
        raise UserError(
            f"--temperatures expects numbers like 0.3,0.7,1.0, got '{temperatures}'"
        ) from None
    options = SynthOptions(
        model=model,
        n=n,
        seed=seed,
        temperatures=temps,
        out_root=out,
        reference=None if reference == "none" else reference,
        resume=resume,
        base_url=base_url,
        api_key_env=api_key_env,
        timeout_s=timeout,
    )
    run = asyncio.run(synthesize(resolve_env(env), options, console))
    results = run.metadata["results"]
    console.print(
        f"[bold]{results['by_stage'].get('accepted', 0)}/{results['candidates']} accepted[/bold] "
        f"(rejection rate {results['rejection_rate']:.0%}; by stage {results['by_stage']})"
    )
    typer.echo(str(run.directory))
