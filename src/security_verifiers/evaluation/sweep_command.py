"""`sv eval-set FILE`: the typer command (wired into the CLI by `cli.py`)."""

# No `from __future__ import annotations`: typer reads the annotations as objects.
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def eval_set(
    file: Annotated[Path, typer.Argument(help="Sweep file (.yaml, .yml or .toml).")],
    output_dir: Annotated[
        Path | None,
        typer.Option("--output-dir", help="Run directory (default: the file's output_dir)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the planned runs and exit.")
    ] = False,
    no_report: Annotated[
        bool, typer.Option("--no-report", help="Skip the report at the end.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress lines.")] = False,
) -> None:
    """Run a sweep: environments × models × env-args × seeds from one file, resumable (rerun
    the same command after an interruption), errored rollouts retried, one report at the end."""
    from security_verifiers.errors import Interrupted, RolloutsFailed
    from security_verifiers.evaluation.runner import run_interruptible
    from security_verifiers.evaluation.sweep import expand, load_sweep, run_sweep

    sweep = load_sweep(file)
    if output_dir is not None:
        sweep = sweep.model_copy(update={"output_dir": output_dir})
    console = Console(stderr=True)
    plan = expand(sweep, show_progress=not quiet)
    if dry_run:
        for planned in plan:
            typer.echo(f"{planned.label()}  models={','.join(planned.config.models)}")
        typer.echo(f"{len(plan)} run(s), {sum(len(p.config.models) for p in plan)} model runs "
                   f"-> {sweep.run_dir()}")  # fmt: skip
        return
    try:
        outcome = run_interruptible(run_sweep(sweep, file, console, report=not no_report))
    except KeyboardInterrupt:
        raise Interrupted from None
    typer.echo(f"sweep: {outcome.run_dir}")
    if outcome.report:
        typer.echo(f"report: {outcome.report}")
    if outcome.errored:
        raise RolloutsFailed(
            f"{outcome.errored} rollouts still got no answer after the retry round(s); rerun "
            f"the same command to retry them (details in {outcome.run_dir / 'sweep.json'})"
        )
