"""Optional experiment tracking: send a finished run to Weights & Biases or Weave.

Off unless asked for, by an explicit backend argument (e.g. a `--track` flag) or
`SV_TRACKING=wandb|weave`; the package is imported only then, and a missing package is a
one-line error saying how to install it. `SV_TRACKING_PROJECT` names the project
(default `security-verifiers`). What is sent: the run's metadata (as config), its summary
and its results.jsonl as a table.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from security_verifiers.errors import UserError
from security_verifiers.evaluation.run_store import METADATA, SUMMARY, RunStore, read_json

ENV_VAR = "SV_TRACKING"
PROJECT_VAR = "SV_TRACKING_PROJECT"
DEFAULT_PROJECT = "security-verifiers"
BACKENDS = {"wandb": "wandb", "weave": "weave"}
"""Backend name -> the package to import (and to pip install)."""
OFF = {"", "0", "off", "none", "false", "no"}

TABLE_COLUMNS = ("example_id", "example_key", "scenario", "gold", "completion", "reward", "error")


def backend(explicit: str | None = None) -> str | None:
    """The chosen backend: `explicit`, else $SV_TRACKING; None when tracking is off."""
    raw = explicit if explicit is not None else os.environ.get(ENV_VAR, "")
    name = raw.strip().lower()
    if name in OFF:
        return None
    if name not in BACKENDS:
        source = "--track" if explicit is not None else f"${ENV_VAR}"
        raise UserError(f"{source}={raw!r}: choose one of {', '.join(BACKENDS)} (or off)")
    return name


def import_backend(name: str) -> ModuleType:
    """Import the backend's package, or say how to install it."""
    package = BACKENDS[name]
    try:
        return importlib.import_module(package)
    except ImportError:
        raise UserError(
            f"experiment tracking with {name} needs the '{package}' package: "
            f"pip install {package}  (or unset {ENV_VAR})"
        ) from None


def load_run_files(run_dir: Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(metadata, summary, results rows) of a finished run."""
    metadata, summary = read_json(run_dir / METADATA), read_json(run_dir / SUMMARY)
    if metadata is None or summary is None:
        raise UserError(f"{run_dir} is not a finished run (needs {METADATA} and {SUMMARY})")
    return metadata, summary, RunStore(run_dir).load_results()


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts as `a/b` keys; lists and other values kept as they are."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}/"))
        else:
            flat[name] = value
    return flat


def table_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Columns and cells of the results table: ids, answer, reward, one column per component."""
    components = sorted({c for r in rows for c in (r.get("rewards") or {})})
    columns = [*TABLE_COLUMNS, *(f"reward/{c}" for c in components)]

    def cell(value: Any) -> Any:
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        return json.dumps(value, default=str)

    data = [
        [cell(r.get(c)) for c in TABLE_COLUMNS]
        + [(r.get("rewards") or {}).get(c) for c in components]
        for r in rows
    ]
    return columns, data


def run_name(metadata: Mapping[str, Any]) -> str:
    return f"{metadata.get('env_id')}--{metadata.get('model')}--{metadata.get('run_id')}"


def _to_wandb(wandb: ModuleType, run_dir: Path, project: str) -> None:
    metadata, summary, rows = load_run_files(run_dir)
    run = wandb.init(
        project=project,
        name=run_name(metadata),
        group=metadata.get("env_id"),
        job_type="eval",
        tags=[str(metadata.get("env_id")), str(metadata.get("model"))],
        config=metadata,
    )
    try:
        scalars = {
            k: v
            for k, v in flatten(summary).items()
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)
        }
        run.summary.update(scalars)
        columns, data = table_rows(rows)
        run.log({"results": wandb.Table(columns=columns, data=data)})
    finally:
        run.finish()


def _to_weave(weave: ModuleType, run_dir: Path, project: str) -> None:
    metadata, summary, rows = load_run_files(run_dir)
    weave.init(project)
    name = re.sub(r"[^A-Za-z0-9_-]", "-", run_name(metadata))
    weave.publish({"metadata": metadata, "summary": summary}, name=f"{name}-summary")
    columns, data = table_rows(rows)
    records = [dict(zip(columns, cells, strict=True)) for cells in data]
    if records:
        weave.publish(weave.Dataset(name=f"{name}-results", rows=records))
    finish = getattr(weave, "finish", None)
    if callable(finish):
        finish()


SENDERS = {"wandb": _to_wandb, "weave": _to_weave}


def track_run(run_dir: Path, explicit: str | None = None, project: str | None = None) -> str | None:
    """Send one run when tracking is on; returns the backend used, or None (tracking off)."""
    name = backend(explicit)
    if name is None:
        return None
    module = import_backend(name)
    try:
        SENDERS[name](module, run_dir, project or os.environ.get(PROJECT_VAR) or DEFAULT_PROJECT)
    except UserError:
        raise
    except Exception as exc:  # the service's own failures (login, network): the run is on disk
        raise UserError(
            f"could not send {run_dir} to {name}: {type(exc).__name__}: {exc}"
        ) from None
    return name


def track(
    run_dirs: Annotated[list[Path], typer.Argument(help="Finished run directories.")],
    to: Annotated[
        str | None, typer.Option("--to", help=f"wandb or weave (default: ${ENV_VAR}).")
    ] = None,
    project: Annotated[
        str | None, typer.Option(help=f"Project (default: ${PROJECT_VAR} or {DEFAULT_PROJECT}).")
    ] = None,
) -> None:
    """Send finished runs (metadata, summary, results table) to W&B or Weave."""
    if backend(to) is None:
        raise UserError(f"tracking is off: pass --to wandb|weave or set {ENV_VAR}")
    for run_dir in run_dirs:
        typer.echo(f"{run_dir}: sent to {track_run(run_dir, to, project)}")
