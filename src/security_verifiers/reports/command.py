"""`sv report`: the typer command function (wired into the CLI by `cli.py`)."""

from __future__ import annotations

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
    seed: Annotated[int, typer.Option(help="Bootstrap / permutation seed.")] = 0,
) -> None:
    """Metric tables with 95% CIs, paired comparisons, figures: report.html and report.md."""
    from security_verifiers.reports.build import build_report  # matplotlib: imported on use

    paths = build_report(runs, out, seed=seed)
    typer.echo(f"report: {paths.html}")
    typer.echo(f"summary: {paths.markdown}")
    typer.echo(f"figures: {len(paths.figures)} in {paths.out_dir / 'figures'}")
