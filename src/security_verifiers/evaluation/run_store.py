"""One evaluation run on disk: metadata.json, results.jsonl (append-only) and summary.json.

results.jsonl is written one line per finished rollout and flushed, so a killed run loses at
most the line being written; `load_results` drops such a torn last line.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

RESULTS = "results.jsonl"
METADATA = "metadata.json"
SUMMARY = "summary.json"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON via a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True, default=str)
        handle.write("\n")
    os.replace(tmp, path)


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class RunStore:
    """The files of one run directory."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = run_dir
        self._lock: IO[str] | None = None

    def lock(self) -> bool:
        """Take the run's exclusive lock (released at exit); False if another process holds it."""
        self.dir.mkdir(parents=True, exist_ok=True)
        handle = (self.dir / ".lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._lock = handle
        return True

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @property
    def results_path(self) -> Path:
        return self.dir / RESULTS

    def load_results(self) -> list[dict[str, Any]]:
        """All complete result lines (a torn or corrupt line is skipped)."""
        rows: list[dict[str, Any]] = []
        try:
            lines = self.results_path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return rows
        for line in lines:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and "example_id" in row:
                rows.append(row)
        return rows

    def rewrite_results(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Replace results.jsonl atomically with exactly `rows`."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".results.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, default=str) + "\n")
        os.replace(tmp, self.results_path)

    def metadata(self) -> dict[str, Any] | None:
        return read_json(self.dir / METADATA)

    def write_metadata(self, metadata: Mapping[str, Any]) -> None:
        write_json_atomic(self.dir / METADATA, metadata)


def find_resumable(model_dir: Path, fingerprint: str) -> RunStore | None:
    """The newest run under `model_dir` with the same configuration fingerprint that still
    has work to do: unfinished (`running`, `interrupted`) or `partial` (some rollouts errored;
    resuming retries exactly those). A `complete` run has a scored answer for every rollout
    (older runs marked complete despite errors count as partial)."""
    if not model_dir.is_dir():
        return None
    for run_dir in sorted((p for p in model_dir.iterdir() if p.is_dir()), reverse=True):
        meta = read_json(run_dir / METADATA) or {}
        if meta.get("fingerprint") != fingerprint:
            continue
        if meta.get("status") != "complete" or meta.get("n_errors"):
            return RunStore(run_dir)
        return None  # the newest such run is complete: a rerun starts a new one
    return None
