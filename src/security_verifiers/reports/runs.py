"""Run directories (metadata.json, results.jsonl, summary.json) loaded into typed objects."""

from __future__ import annotations

import glob
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.errors import UserError
from security_verifiers.reports.redact import slug, strip_userinfo

METADATA, RESULTS, SUMMARY = "metadata.json", "results.jsonl", "summary.json"
COMPLETE = "complete"
UNFINISHED = ("running", "interrupted")


def is_errored(row: dict[str, Any]) -> bool:
    """A rollout that failed (server error, timeout, failed scoring): it has no score of its
    own (the harness's `evaluation.summary.is_answer`, negated)."""
    return bool(row.get("error")) or row.get("reward") is None


def _example_order(row: dict[str, Any]) -> tuple[int, float, str, str]:
    """Rows by example id (numbers before text), then key: independent of completion order."""
    eid = row.get("example_id")
    key = str(row.get("example_key") or "")
    if isinstance(eid, int | float) and not isinstance(eid, bool):
        return 0, float(eid), "", key
    return 1, 0.0, str(eid), key


@dataclass(frozen=True)
class Run:
    """One run of one model on one environment (summary.json written).

    `rows` are all of results.jsonl; `scored_rows` leave out errored rollouts and are sorted by
    example id. Every number a report shows comes from `scored_rows`.
    """

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
    def raw_model(self) -> str:
        """The model name as recorded (may hold URL credentials in runs of older versions)."""
        return str(self.metadata.get("model") or self.summary.get("model") or self.path.parent.name)

    @property
    def model(self) -> str:
        """The model name with any `user:password@` removed from its URL."""
        return strip_userinfo(self.raw_model)

    def path_secrets(self) -> dict[str, str]:
        """Unsafe text in this run's path (the slug of a name with credentials) -> safe text."""
        raw, safe = self.raw_model, self.model
        return {slug(raw): slug(safe)} if raw != safe else {}

    @cached_property
    def scored_rows(self) -> list[dict[str, Any]]:
        """Rows that did not error, sorted by example id (the order every bootstrap uses)."""
        return sorted((r for r in self.rows if not is_errored(r)), key=_example_order)

    @property
    def n_errors(self) -> int:
        """Errored rollouts (excluded from every number of the report): those in results.jsonl,
        or the count metadata.json / summary.json give when that is larger."""
        recorded = [self.metadata.get("n_errors"), self.summary.get("n_errors")]
        counts = [c for c in recorded if isinstance(c, int) and not isinstance(c, bool)]
        return max([sum(1 for r in self.rows if is_errored(r)), *counts])

    @property
    def recorded_status(self) -> str | None:
        status = self.metadata.get("status")
        return str(status) if status else None

    @property
    def status(self) -> str:
        """complete, partial (some rollouts errored), running or interrupted.

        A run of an older harness that says `complete` but has errored rows is `partial`; a
        run without a status (older still) with no errored rows counts as complete.
        """
        recorded = self.recorded_status
        if recorded in UNFINISHED:
            return recorded
        if recorded == "partial" or self.n_errors:
            return "partial"
        return recorded or COMPLETE

    @property
    def is_complete(self) -> bool:
        return self.status == COMPLETE

    def status_note(self) -> str:
        """'' for a complete run, else e.g. 'partial: 3 of 10 rollouts errored (excluded)'."""
        if self.is_complete:
            return ""
        planned = self.metadata.get("n")
        total = len(self.rows)
        if isinstance(planned, int) and planned > total:
            total = planned
        parts = []
        if self.n_errors:
            parts.append(f"{self.n_errors} of {total} rollouts errored (excluded)")
        missing = total - len(self.rows)
        if missing > 0:
            parts.append(f"{missing} of {total} not run")
        return f"{self.status}: " + ("; ".join(parts) if parts else "not finished")

    @property
    def seed(self) -> int | None:
        """The run's seed (metadata `seed`): the seed of its own intervals."""
        seed = self.metadata.get("seed")
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None

    @cached_property
    def metrics(self) -> dict[str, Any]:
        """Run metrics over the scored rows: summary.json's when it covers exactly those rows,
        else recomputed from them (see `scored.effective_metrics`)."""
        from security_verifiers.reports.scored import effective_metrics

        return effective_metrics(self)

    @property
    def run_id(self) -> str:
        """The run id, with a credential-bearing model slug in it replaced (see path_secrets)."""
        text = str(self.metadata.get("run_id") or self.path.name)
        for unsafe, safe in self.path_secrets().items():
            text = text.replace(unsafe, safe)
        return strip_userinfo(text)

    @property
    def summary_metrics(self) -> dict[str, Any]:
        return self.summary.get("metrics") or {}

    def rewards_by_key(self) -> dict[str, float]:
        """Rewards of the scored (non-errored) rows keyed by example_key (else example_id)."""
        out: dict[str, float] = {}
        for row in self.scored_rows:
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
