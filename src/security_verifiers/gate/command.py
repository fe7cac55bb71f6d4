"""Typer command functions `gate` and `scoreboard` (wired into `sv` by the CLI module)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def _console() -> Console:
    return Console(width=None if sys.stdout.isatty() else 120)


def gate(
    baseline: Annotated[
        Path, typer.Option("--baseline", help="Baseline run directory or golden JSON file.")
    ],
    candidate: Annotated[Path, typer.Option("--candidate", help="Candidate run directory.")],
    max_drop: Annotated[
        float, typer.Option("--max-drop", help="Largest tolerated relative drop (0.03 = 3%).")
    ] = 0.03,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Entry of a golden file to use (default: the candidate's)."),
    ] = None,
) -> None:
    """Fail (exit 1) when a core metric of the candidate is worse than the baseline's by more
    than --max-drop; prints metric, baseline, candidate, change and verdict."""
    from security_verifiers.gate.gate import gate_paths, print_result

    result = gate_paths(baseline, candidate, max_drop, model)
    print_result(result, _console())
    if not result.passed:
        raise typer.Exit(1)


def scoreboard(
    root: Annotated[Path, typer.Option("--root", help="Where the runs are.")] = Path(
        "outputs/evals"
    ),
    out: Annotated[Path, typer.Option("--out", help="Where the scoreboard goes.")] = Path(
        "outputs/scoreboard"
    ),
    env: Annotated[
        list[str] | None, typer.Option("--env", "-e", help="Only these environments.")
    ] = None,
    run_baselines: Annotated[
        bool,
        typer.Option("--run-baselines", help="First evaluate every built-in baseline into ROOT."),
    ] = False,
) -> None:
    """Per environment, a JSON and Markdown table of the latest run of every model."""
    from security_verifiers.scoreboard import write_scoreboard

    console = _console()
    if run_baselines:
        import asyncio

        from security_verifiers.gate.golden import golden_specs, run_spec

        for spec in golden_specs():
            if not env or spec.env in env:
                console.print(f"[dim]{spec.env}: evaluating {', '.join(spec.models)}[/dim]")
                asyncio.run(run_spec(spec, root))
    for env_id, paths in write_scoreboard(root, out, env).items():
        console.print(f"{env_id}: {', '.join(str(p) for p in paths)}")
