"""Run directories (metadata.json, results.jsonl, summary.json) loaded into typed objects."""

from __future__ import annotations

import glob
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.errors import UserError
from security_verifiers.reports.redact import slug, strip_userinfo
from security_verifiers.reports.scored import effective_metrics

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


Warn = Callable[[str], None]
"""Receives one line per skipped file or line (without a `warning: ` prefix)."""

MAX_LINE_WARNINGS = 5
"""Skipped lines named one by one per file; the rest are counted in one more line."""


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_json_object(path: Path) -> dict[str, Any]:
    raw = _read_bytes(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UserError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} does not hold a JSON object")
    return data


def _line_problem(line: bytes) -> tuple[dict[str, Any] | None, str]:
    """(the row, '') or (None, why the line cannot be read)."""
    try:
        row = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg})"
    if not isinstance(row, dict):
        return None, "not a JSON object"
    return row, ""


def read_results(path: Path, warn: Warn) -> list[dict[str, Any]]:
    """The JSON-object lines of results.jsonl; an unreadable line is skipped with a warning
    naming the file and line (split on newlines only: JSON text may hold U+2028)."""
    rows, skipped = [], 0
    for number, line in enumerate(_read_bytes(path).split(b"\n"), start=1):
        if not line.strip():
            continue
        row, problem = _line_problem(line)
        if row is not None:
            rows.append(row)
            continue
        skipped += 1
        if skipped <= MAX_LINE_WARNINGS:
            warn(f"{path}:{number}: {problem}; line skipped")
    if skipped > MAX_LINE_WARNINGS:
        warn(f"{path}: {skipped - MAX_LINE_WARNINGS} more unreadable line(s) skipped")
    return rows


def is_finished(run_dir: Path) -> bool:
    """A run is reportable once summary.json has been written (the runner's last step)."""
    return all((run_dir / name).is_file() for name in (METADATA, RESULTS, SUMMARY))


def load_run(run_dir: str | Path, warn: Warn | None = None) -> Run:
    """Load one run directory; a missing, unfinished or unreadable run is a UserError, an
    unreadable line of results.jsonl is skipped with a warning (`warn`, default stderr)."""
    path = Path(run_dir)
    if not (path / METADATA).is_file():
        raise UserError(f"{path} is not a run directory (no {METADATA})")
    if not is_finished(path):
        raise UserError(f"{path} is unfinished (no {SUMMARY} or {RESULTS}); resume it first")
    return Run(
        path,
        read_json_object(path / METADATA),
        read_json_object(path / SUMMARY),
        read_results(path / RESULTS, warn or warn_on_stderr),
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


def load_runs(
    patterns: Sequence[str | Path], warn: Warn | None = None
) -> tuple[list[Run], list[Path]]:
    """(finished runs, skipped unfinished run dirs) for paths or globs; none finished: error.
    A run whose files cannot be read is left out, and an unreadable results line skipped,
    each with a warning (`warn`, default stderr); none readable: error."""
    if not patterns:
        raise UserError("give at least one run directory or glob")
    warn = warn or warn_on_stderr
    dirs = resolve_run_dirs(patterns)
    skipped = [d for d in dirs if not is_finished(d)]
    runs, unreadable = [], []
    for run_dir in dirs:
        if not is_finished(run_dir):
            continue
        try:
            runs.append(load_run(run_dir, warn))
        except UserError as exc:
            unreadable.append(str(exc))
            warn(f"{exc}; run skipped")
    if not runs and unreadable:
        more = f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""
        raise UserError(f"no readable finished runs: {unreadable[0]}{more}")
    if not runs:
        raise UserError(
            f"no finished runs among {len(dirs)} run director{'y' if len(dirs) == 1 else 'ies'} "
            f"(none has {SUMMARY})"
        )
    return runs, skipped
