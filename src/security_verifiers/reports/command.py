"""`sv report`: the typer command function (wired into the CLI by `cli.py`)."""

# No `from __future__ import annotations`: typer (and cli.py's wrappers, which read this
# signature with inspect) need the annotations as objects, not strings.
from pathlib import Path
from typing import Annotated

import typer


def report(
    runs: Annotated[
        list[str], typer.Argument(help="Run directories, folders holding runs, or globs.")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: <common parent>/report)."),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="Seed of the paired comparisons (a run's own intervals use the run's seed)."
        ),
    ] = 0,
    complete_only: Annotated[
        bool,
        typer.Option(
            "--complete-only",
            help="Leave out runs that are not complete (partial: some rollouts errored; "
            "running; interrupted). By default they are included, flagged, with errored "
            "rollouts left out of every number.",
        ),
    ] = False,
    transcripts: Annotated[
        int,
        typer.Option(
            help="Rollouts per run shown as transcripts in report.html (lowest rewards, "
            "errored, abstained, wrong, tool calls, then a seeded sample); 0 = none."
        ),
    ] = 30,
    no_redact: Annotated[
        bool,
        typer.Option("--no-redact", help="Show keys, tokens and URL credentials as stored."),
    ] = False,
) -> None:
    """Metric tables with 95% CIs, paired comparisons, figures, transcripts to read:
    report.html and report.md."""
    from security_verifiers.reports.build import build_report  # matplotlib: imported on use

    def warn(message: str) -> None:
        typer.echo(f"warning: {message}", err=True)

    if transcripts < 0:
        raise typer.BadParameter("give 0 or more", param_hint="--transcripts")
    paths = build_report(
        runs, out, seed=seed, complete_only=complete_only, warn=warn,
        transcripts=transcripts, redact=not no_redact,
    )  # fmt: skip
    typer.echo(f"report: {paths.html}")
    typer.echo(f"summary: {paths.markdown}")
    typer.echo(f"figures: {len(paths.figures)} in {paths.out_dir / 'figures'}")
    for line in paths.flagged:
        typer.echo(f"warning: not complete, errored rollouts left out: {line}", err=True)
