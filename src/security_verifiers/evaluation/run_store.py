"""One evaluation run on disk: metadata.json, results.jsonl (append-only) and summary.json.

results.jsonl is written one line per finished rollout and flushed, so a killed run loses at
most the line being written; `load_results` drops such a torn last line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

RESULTS = "results.jsonl"
METADATA = "metadata.json"
SUMMARY = "summary.json"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON via a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_via_temp(path, lambda handle: _dump(data, handle), f".{path.name}.")


def _dump(data: Any, handle: IO[str]) -> None:
    json.dump(data, handle, indent=2, sort_keys=True, default=str)
    handle.write("\n")


def _write_via_temp(path: Path, write: Callable[[IO[str]], None], prefix: str) -> None:
    """`write` into a temporary file beside `path`, then rename it over `path`. On failure
    (disk full, read-only, Ctrl-C) the temporary file is removed, `path` keeps its old
    content, and an OSError names `path` rather than the temporary file."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError) and (not exc.filename or str(exc.filename) == tmp):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


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

        def write(handle: IO[str]) -> None:
            for row in rows:
                handle.write(json.dumps(row, default=str) + "\n")

        _write_via_temp(self.results_path, write, ".results.")

    def metadata(self) -> dict[str, Any] | None:
        return read_json(self.dir / METADATA)

    def write_metadata(self, metadata: Mapping[str, Any]) -> None:
        write_json_atomic(self.dir / METADATA, metadata)


@dataclass
class PastRuns:
    """What earlier runs of the same model directory mean for this one."""

    resumable: RunStore | None = None
    """The newest run of exactly this command (same fingerprint) that has work left."""
    complete: RunStore | None = None
    """The newest run of exactly this command, when it is complete: nothing to do."""
    other_code: RunStore | None = None
    """An unfinished run of the same configuration started with other code or packages."""


def find_resumable(
    model_dir: Path, fingerprint: str, config_fingerprint: str | None = None
) -> PastRuns:
    """Earlier runs under `model_dir`. The newest run with the same fingerprint (configuration
    and code) is resumable when it has work to do: unfinished (`running`, `interrupted`),
    `partial` (some rollouts errored; resuming retries the transient ones) or without
    summary.json (a full disk stopped its writing); otherwise it is complete. A run with the
    same `config_fingerprint` but other code is never resumed (its rows were scored by other
    code); it is reported so the caller can say why a new run starts."""
    found = PastRuns()
    if not model_dir.is_dir():
        return found
    for run_dir in sorted((p for p in model_dir.iterdir() if p.is_dir()), reverse=True):
        meta = read_json(run_dir / METADATA) or {}
        unfinished = (
            meta.get("status") != "complete"
            or bool(meta.get("n_errors"))
            or not (run_dir / SUMMARY).is_file()  # its summary could not be written
        )
        if meta.get("fingerprint") == fingerprint:
            if unfinished:
                found.resumable = RunStore(run_dir)
            else:
                found.complete = RunStore(run_dir)
            return found
        same_config = config_fingerprint and meta.get("config_fingerprint") == config_fingerprint
        if same_config and unfinished and found.other_code is None:
            found.other_code = RunStore(run_dir)
    return found
