"""`sv sample ENV`: a seeded sample of rollouts to read, filtered by outcome."""

# No `from __future__ import annotations`: typer reads the annotations as objects.
import json
from pathlib import Path
from typing import Annotated

import typer


def sample(
    env: Annotated[str, typer.Argument(help="Environment (e1 ... e6, or its id).")],
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="Run directories or folders holding runs (default outputs/evals)."),
    ] = None,
    n: Annotated[int, typer.Option("-n", help="Rollouts to show.")] = 50,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    outcome: Annotated[
        str,
        typer.Option(
            help="all, wrong, errored, abstained, tool-calls, right, or lowest-reward "
            "(the n lowest rewards)."
        ),
    ] = "all",
    model: Annotated[str | None, typer.Option(help="Only this model's runs.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Show keys, tokens and URL credentials as stored.")
    ] = False,
) -> None:
    """Read rollouts: N of them drawn with a seed across runs, with their prompts."""
    from security_verifiers.environments import resolve_env
    from security_verifiers.errors import UserError
    from security_verifiers.reports.transcripts import as_text, read_rows, run_dirs, select
    from security_verifiers.reports.transcripts import transcripts as load

    env_id = resolve_env(env).env_id
    chosen = []
    for run_dir in run_dirs(runs or [Path("outputs/evals")]):
        meta, _ = read_rows(run_dir)
        if meta.get("env_id") == env_id and (model is None or meta.get("model") == model):
            chosen.append(run_dir)
    if not chosen:
        raise UserError(f"no {env_id} runs{f' of {model}' if model else ''} there")
    records = [r for d in chosen for r in load(d, with_prompts=False, redacted=not no_redact)]
    picked = select(records, outcome, n, seed)
    by_run: dict[Path, set[int]] = {}
    for record in picked:
        by_run.setdefault(record.run_dir, set()).add(record.example_id)
    full = {
        (d, r.example_id): r
        for d, ids in by_run.items()
        for r in load(d, redacted=not no_redact, ids=ids)
    }
    for record in picked:
        shown = full[(record.run_dir, record.example_id)]
        if as_json:
            typer.echo(json.dumps({
                "run_dir": str(shown.run_dir), "env_id": shown.env_id, "model": shown.model,
                "example_id": shown.example_id, "example_key": shown.example_key,
                "outcome": shown.outcome(), "gold": shown.gold, "messages": shown.messages,
                "completion": shown.completion, "parsed": shown.parsed, "reward": shown.reward,
                "rewards": shown.rewards, "error": shown.error,
            }, ensure_ascii=False))  # fmt: skip
        else:
            typer.echo(as_text(shown) + "\n")
    typer.echo(f"{len(picked)} of {len(records)} rollouts ({outcome}, seed {seed}) from "
               f"{len(chosen)} run(s)", err=True)  # fmt: skip
