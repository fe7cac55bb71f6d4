"""What a gate compares: the summary and identity of one run, from a run directory or a
golden file (`configs/golden/<env>.json`, one entry per built-in model)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.evaluation.run_store import METADATA, SUMMARY, read_json

IDENTITY_FIELDS = (
    "dataset_hash",
    "examples_hash",
    "seed",
    "n",
    "env_args",
    "reward_config",
    "target",
)
"""Metadata fields that make two runs measure the same thing."""


@dataclass(frozen=True)
class Snapshot:
    """A run's numbers (`summary`, shaped like summary.json) and where they came from."""

    source: str
    env_id: str
    model: str
    summary: dict[str, Any]
    identity: dict[str, Any] = field(default_factory=dict)


def identity_of(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {name: metadata.get(name) for name in IDENTITY_FIELDS if name in metadata}


def load_run(path: Path) -> Snapshot:
    """A run directory (or its summary.json) as a snapshot."""
    run_dir = path.parent if path.name == SUMMARY else path
    if not run_dir.exists():
        raise UserError(f"no such run directory: {path}")
    summary = read_json(run_dir / SUMMARY)
    if summary is None:
        raise UserError(f"{run_dir} has no readable {SUMMARY}; is it a finished run directory?")
    metadata = read_json(run_dir / METADATA) or {}
    env_id = metadata.get("env_id") or summary.get("env_id")
    model = metadata.get("model") or summary.get("model")
    if not env_id or not model:
        raise UserError(f"{run_dir} does not say which environment and model it ran")
    return Snapshot(str(run_dir), env_id, model, summary, identity_of(metadata))


def read_golden(path: Path) -> dict[str, Any]:
    """A golden file's document; a clear error when it is missing or malformed."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read golden file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(f"golden file {path} is not valid JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("models"), dict):
        raise UserError(f"{path} is not a golden file (no 'models' table)")
    return document


def golden_snapshot(path: Path, document: Mapping[str, Any], model: str) -> Snapshot:
    """The entry for `model` in a golden document."""
    entry = document["models"].get(model)
    if entry is None:
        known = ", ".join(sorted(document["models"])) or "none"
        raise UserError(f"golden file {path} has no model '{model}' (it has: {known})")
    return Snapshot(
        f"{path}#{model}",
        document.get("env_id", "?"),
        model,
        dict(entry.get("summary") or {}),
        dict(entry.get("identity") or {}),
    )


def is_golden_file(path: Path) -> bool:
    return path.is_file() and path.suffix == ".json" and path.name != SUMMARY


def load_baseline(path: Path, model: str | None, env_id: str | None = None) -> Snapshot:
    """A run directory, or the `model` entry of a golden file (the only entry if just one);
    a golden file for another environment than `env_id` is refused."""
    if not is_golden_file(path):
        return load_run(path)
    document = read_golden(path)
    if env_id and document.get("env_id", env_id) != env_id:
        raise UserError(
            f"cannot gate across environments: {path} is for {document['env_id']}, "
            f"the candidate ran {env_id}"
        )
    if model is None:
        if len(document["models"]) != 1:
            raise UserError(f"{path} holds several models; say which with --model")
        model = next(iter(document["models"]))
    return golden_snapshot(path, document, model)


def identity_notes(baseline: Snapshot, candidate: Snapshot) -> list[str]:
    """One line per identity field that differs (only fields both sides record)."""
    notes = []
    for name in IDENTITY_FIELDS:
        if name in baseline.identity and name in candidate.identity:
            before, after = baseline.identity[name], candidate.identity[name]
            if _canonical(before) != _canonical(after):
                notes.append(f"{name} differs: {_short(before)} → {_short(after)}")
    return notes


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _short(value: Any, limit: int = 60) -> str:
    if isinstance(value, str) and len(value) > 16:
        return value[:12] + "…"
    text = _canonical(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
