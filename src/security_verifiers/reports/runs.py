"""Run directories (metadata.json, results.jsonl, summary.json) loaded into typed objects."""

from __future__ import annotations

import glob
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.errors import UserError

METADATA, RESULTS, SUMMARY = "metadata.json", "results.jsonl", "summary.json"


@dataclass(frozen=True)
class Run:
    """One finished run of one model on one environment."""

    path: Path
    metadata: dict[str, Any]
    summary: dict[str, Any]
    rows: list[dict[str, Any]] = field(repr=False)

    @property
    def env_id(self) -> str:
        return str(self.metadata.get("env_id") or self.summary.get("env_id") or "unknown")

    @property
    def env_key(self) -> str:
        """Short name (e1 ... e6), or the env id for environments the harness does not know."""
        if self.metadata.get("env"):
            return str(self.metadata["env"])
        keys = [e.key for e in ENVIRONMENTS.values() if e.env_id == self.env_id]
        return keys[0] if keys else self.env_id

    @property
    def model(self) -> str:
        return str(self.metadata.get("model") or self.summary.get("model") or self.path.parent.name)

    @property
    def run_id(self) -> str:
        return str(self.metadata.get("run_id") or self.path.name)

    @property
    def metrics(self) -> dict[str, Any]:
        return self.summary.get("metrics") or {}

    def rewards_by_key(self) -> dict[str, float]:
        """Example-level rewards keyed by example_key (example_id when there is no key)."""
        out: dict[str, float] = {}
        for row in self.rows:
            key = row.get("example_key")
            out[str(key if key is not None else f"id:{row.get('example_id')}")] = float(
                row.get("reward") or 0.0
            )
        return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} does not hold a JSON object")
    return data


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            raise UserError(f"{path}:{number} is not valid JSON") from None
    return rows


def is_finished(run_dir: Path) -> bool:
    """A run is reportable once summary.json has been written (the runner's last step)."""
    return all((run_dir / name).is_file() for name in (METADATA, RESULTS, SUMMARY))


def load_run(run_dir: str | Path) -> Run:
    """Load one run directory; a missing or unfinished run is a UserError."""
    path = Path(run_dir)
    if not (path / METADATA).is_file():
        raise UserError(f"{path} is not a run directory (no {METADATA})")
    if not is_finished(path):
        raise UserError(f"{path} is unfinished (no {SUMMARY} or {RESULTS}); resume it first")
    return Run(
        path, _read_json(path / METADATA), _read_json(path / SUMMARY), _read_rows(path / RESULTS)
    )


def _run_dirs_under(path: Path) -> list[Path]:
    if (path / METADATA).is_file():
        return [path]
    return sorted(p.parent for p in path.rglob(METADATA))


def resolve_run_dirs(patterns: Iterable[str | Path]) -> list[Path]:
    """Run directories named by paths or globs; a folder stands for every run beneath it."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        text = str(pattern)
        matches = [Path(m) for m in sorted(glob.glob(text, recursive=True))]
        if not matches:
            raise UserError(f"no such run directory or glob match: '{text}'")
        dirs = [d for m in matches if m.is_dir() for d in _run_dirs_under(m)]
        if not dirs:
            raise UserError(f"no run directories (with {METADATA}) under '{text}'")
        found.update(dict.fromkeys(d.resolve() for d in dirs))
    return list(found)


def load_runs(patterns: Sequence[str | Path]) -> tuple[list[Run], list[Path]]:
    """(finished runs, skipped unfinished run dirs) for paths or globs; none finished: error."""
    if not patterns:
        raise UserError("give at least one run directory or glob")
    dirs = resolve_run_dirs(patterns)
    skipped = [d for d in dirs if not is_finished(d)]
    runs = [load_run(d) for d in dirs if is_finished(d)]
    if not runs:
        raise UserError(
            f"no finished runs among {len(dirs)} run director{'y' if len(dirs) == 1 else 'ies'} "
            f"(none has {SUMMARY})"
        )
    return runs, skipped
