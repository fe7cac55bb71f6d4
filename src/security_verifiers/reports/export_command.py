"""`sv export-inspect RUNS...`: runs as Inspect AI logs, to browse with `inspect view`."""

# No `from __future__ import annotations`: typer reads the annotations as objects.
from pathlib import Path
from typing import Annotated

import typer


def export_inspect(
    runs: Annotated[list[Path], typer.Argument(help="Run directories or folders holding runs.")],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the log files (one per run).")
    ] = Path("outputs/inspect-logs"),
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Keep keys, tokens and URL credentials as stored.")
    ] = False,
) -> None:
    """Export runs to Inspect AI's log format; then `inspect view --log-dir OUT`."""
    from security_verifiers.errors import UserError
    from security_verifiers.reports.inspect_export import export
    from security_verifiers.reports.transcripts import run_dirs

    found = run_dirs(runs)
    if not found:
        raise UserError(f"no run directories under {', '.join(map(str, runs))}")
    for run_dir in found:
        typer.echo(export(run_dir, out, redacted=not no_redact))
    typer.echo(f"{len(found)} log(s) in {out}; browse them with: inspect view --log-dir {out}",
               err=True)  # fmt: skip
