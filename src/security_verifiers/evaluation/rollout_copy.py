"""`sv eval --rollout-log PATH`: an extra JSONL copy of every rollout record a run writes.

The run directory's results.jsonl stays the source of truth (resume, summary, reports read
it); the copy is appended to (one file can collect several models and runs), each record
preceded by `model`, `env_id` and `run_id` so the runs stay apart.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from sv_shared.rollout_logging import RolloutLogger


def check_rollout_log(path: Path) -> Path:
    """`path` when a copy can be appended there, else a one-line UserError (checked before any
    model is called)."""
    where = f"--rollout-log {path}"
    if path.is_dir():
        raise UserError(f"{where}: is a directory; give a file name such as rollouts.jsonl")
    parent = path.parent if str(path.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise UserError(f"{where}: {parent} is a file, not a folder")
    if not parent.is_dir():
        raise UserError(f"{where}: the folder {parent} does not exist")
    try:
        if path.exists():
            path.open("a", encoding="utf-8").close()  # appends nothing
        else:
            fd, probe = tempfile.mkstemp(dir=parent, prefix=".sv-write-check.", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise UserError(f"{where}: cannot write there: {exc.strerror or exc}") from None
    return path


class RolloutLogWithCopy:
    """The run's own rollout logger (results.jsonl, summary.json, W&B / Weave when enabled),
    each record also appended to the `--rollout-log` file (JSONL only, preceded by the run's
    ids). A failed write of the copy names the copy's file."""

    def __init__(self, log: RolloutLogger, copy_path: Path, ids: Mapping[str, str]) -> None:
        self._log, self.ids = log, dict(ids)
        self.copy_path = copy_path
        self._copy = RolloutLogger(copy_path, enable_wandb=False, enable_weave=False)

    @property
    def path(self) -> Path:
        return self._log.path

    def log(self, record: Mapping[str, Any]) -> None:
        self._log.log(record)
        try:
            self._copy.log({**self.ids, **record})
        except OSError as exc:
            if exc.filename:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), str(self.copy_path)) from None

    def log_summary(self, summary: Mapping[str, Any]) -> Path:
        return self._log.log_summary(summary)

    def close(self) -> None:
        try:
            self._log.close()
        finally:
            self._copy.close()


def with_rollout_copy(
    log: RolloutLogger, copy_path: Path | None, **ids: str
) -> RolloutLogger | RolloutLogWithCopy:
    """`log`, teed to `copy_path` (records preceded by `ids`) when `--rollout-log` was given."""
    return log if copy_path is None else RolloutLogWithCopy(log, copy_path, ids)
