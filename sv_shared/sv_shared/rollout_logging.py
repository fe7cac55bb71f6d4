"""Local-first rollout logging: JSONL always, Weights & Biases / Weave only on request.

* Every :meth:`RolloutLogger.log` call appends one JSON object as one line to the JSONL
  file (append mode, flushed per record, parent directories created, ``default=str`` for
  values JSON cannot encode).
* :meth:`RolloutLogger.log_summary` writes (and on repeated calls overwrites) a sibling
  file ``<name>.summary.json`` (``rollouts-x.jsonl`` -> ``rollouts-x.summary.json``), so
  the JSONL file contains rollout records only.
* Optional sinks are enabled by ``enable_wandb=True`` / ``enable_weave=True`` or, when those
  are left as ``None``, by the environment variables ``SV_WANDB=1`` / ``SV_WEAVE=1``. The
  packages are imported lazily; if an enabled sink is missing or fails, one warning is
  emitted and logging continues with JSONL only. Weights & Biases receives the numeric
  top-level fields of each record and of the summary; Weave is initialised for the project
  (tracing ``weave.op`` calls) and receives the summary via ``weave.publish``.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import threading
import warnings
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["RolloutLogger", "build_rollout_logger"]

_TRUE = {"1", "true", "yes", "on"}


def _flag(explicit: bool | None, env_var: str) -> bool:
    if explicit is not None:
        return bool(explicit)
    return os.environ.get(env_var, "").strip().lower() in _TRUE


def _numeric_fields(record: Mapping[str, Any]) -> dict[str, float]:
    return {
        str(k): v
        for k, v in record.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


def summary_path_for(path: Path) -> Path:
    """Sibling summary file of a JSONL log: ``x.jsonl`` -> ``x.summary.json``."""
    return path.with_name(f"{path.stem}.summary.json")


class RolloutLogger:
    """Append-only JSONL rollout log with optional W&B / Weave mirrors. Thread-safe."""

    def __init__(
        self,
        path: str | Path,
        *,
        run_name: str | None = None,
        enable_wandb: bool | None = None,
        enable_weave: bool | None = None,
        project: str = "security-verifiers",
        summary_path: str | Path | None = None,
    ) -> None:
        self.path = Path(path)
        self.summary_path = Path(summary_path) if summary_path else summary_path_for(self.path)
        self.run_name = run_name
        self.project = project
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")
        self._wandb_run: Any = None
        self._weave: Any = None
        if _flag(enable_wandb, "SV_WANDB"):
            self._wandb_run = self._start_sink("wandb", self._init_wandb)
        if _flag(enable_weave, "SV_WEAVE"):
            self._weave = self._start_sink("weave", self._init_weave)

    # -- optional sinks
    def _start_sink(self, name: str, init: Any) -> Any:
        try:
            module = importlib.import_module(name)
        except ImportError:
            warnings.warn(
                f"{name} logging was enabled but {name} is not installed; "
                "logging rollouts to JSONL only",
                RuntimeWarning,
                stacklevel=3,
            )
            return None
        try:
            return init(module)
        except Exception as exc:
            self._sink_failed(name, exc)
            return None

    def _init_wandb(self, wandb: Any) -> Any:
        return wandb.init(project=self.project, name=self.run_name)

    def _init_weave(self, weave: Any) -> Any:
        weave.init(self.project)
        return weave

    @staticmethod
    def _sink_failed(name: str, exc: BaseException) -> None:
        warnings.warn(
            f"{name} logging failed ({type(exc).__name__}: {exc}); continuing with JSONL only",
            RuntimeWarning,
            stacklevel=4,
        )

    # -- public API
    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._file.closed

    def log(self, record: Mapping[str, Any]) -> None:
        """Append ``record`` as one JSON line and flush."""
        if not isinstance(record, Mapping):
            raise TypeError(f"record must be a mapping, got {type(record).__name__}")
        line = json.dumps(dict(record), default=str, ensure_ascii=False)
        with self._lock:
            if self._file.closed:
                raise ValueError(f"RolloutLogger({self.path}) is closed")
            self._file.write(line + "\n")
            self._file.flush()
            if self._wandb_run is not None:
                try:
                    self._wandb_run.log(_numeric_fields(record))
                except Exception as exc:
                    self._wandb_run = None
                    self._sink_failed("wandb", exc)

    def log_summary(self, summary: Mapping[str, Any]) -> Path:
        """Write ``summary`` to :attr:`summary_path` (atomic overwrite); return the path."""
        if not isinstance(summary, Mapping):
            raise TypeError(f"summary must be a mapping, got {type(summary).__name__}")
        text = json.dumps(dict(summary), default=str, ensure_ascii=False, indent=2)
        with self._lock:
            tmp = self.summary_path.with_name(self.summary_path.name + ".tmp")
            try:
                tmp.write_text(text + "\n", encoding="utf-8")
                tmp.replace(self.summary_path)
            except BaseException:  # disk full, ...: leave no half-written temporary file
                tmp.unlink(missing_ok=True)
                raise
            if self._wandb_run is not None:
                try:
                    self._wandb_run.summary.update(_numeric_fields(summary))
                except Exception as exc:
                    self._wandb_run = None
                    self._sink_failed("wandb", exc)
            if self._weave is not None:
                try:
                    self._weave.publish(dict(summary), name=f"{self.run_name or 'run'}-summary")
                except Exception as exc:
                    self._weave = None
                    self._sink_failed("weave", exc)
        return self.summary_path

    def close(self) -> None:
        """Flush and close the file and finish enabled sinks. Idempotent."""
        with self._lock:
            if not self._file.closed:
                self._file.close()
            run, self._wandb_run = self._wandb_run, None
            weave, self._weave = self._weave, None
        for name, finish in (
            ("wandb", getattr(run, "finish", None)),
            ("weave", getattr(weave, "finish", None)),
        ):
            if finish is not None:
                try:
                    finish()
                except Exception as exc:
                    self._sink_failed(name, exc)

    def __enter__(self) -> RolloutLogger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _safe_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")
    return cleaned or "run"


def build_rollout_logger(
    path: str | Path | None = None,
    *,
    run_name: str | None = None,
    enable_wandb: bool | None = None,
    enable_weave: bool | None = None,
    project: str = "security-verifiers",
    summary_path: str | Path | None = None,
) -> RolloutLogger:
    """Create a :class:`RolloutLogger`.

    Default path: ``outputs/logs/rollouts-<run_name or UTC timestamp>.jsonl`` (relative to
    the working directory; ``run_name`` is sanitised for the file system).
    """
    if path is None:
        stem = run_name or datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = Path("outputs") / "logs" / f"rollouts-{_safe_name(stem)}.jsonl"
    return RolloutLogger(
        path,
        run_name=run_name,
        enable_wandb=enable_wandb,
        enable_weave=enable_weave,
        project=project,
        summary_path=summary_path,
    )
