"""Per-run provenance for the report: what produced each column's numbers.

Everything comes from metadata.json (written by the harness) and is cleaned for printing: no URL
credentials, no absolute machine paths (see `redact`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from security_verifiers.reports.redact import clean_text, clean_value, display_path
from security_verifiers.reports.runs import Run

MISSING = "–"


def _compact(value: Any) -> str:
    """A short, deterministic one-line rendering of a metadata value."""
    if value is None or value == {} or value == []:
        return MISSING
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_scalar(v)}" for k, v in sorted(clean_value(value).items()))
    return json.dumps(clean_value(value), sort_keys=True, default=str)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def commit(meta: Mapping[str, Any]) -> str:
    git = meta.get("git") or {}
    sha = git.get("commit") if isinstance(git, Mapping) else None
    if not sha:
        return "unknown (not run from a git checkout)"
    dirty = git.get("dirty")
    flag = " (dirty: uncommitted changes)" if dirty else (" (clean)" if dirty is False else "")
    return f"{str(sha)[:12]}{flag}"


def dataset(meta: Mapping[str, Any]) -> str:
    info = meta.get("dataset") or {}
    if not isinstance(info, Mapping):
        info = {}
    name = info.get("name") or info.get("dataset") or info.get("source") or MISSING
    parts = [clean_text(str(name))]
    if info.get("split"):
        parts.append(f"split {clean_text(str(info['split']))}")
    if info.get("build"):
        parts.append(f"build {clean_text(str(info['build']))}")
    return ", ".join(parts)


def sampling(meta: Mapping[str, Any]) -> str:
    args = dict(meta.get("sampling_args") or {})
    fmt = args.pop("response_format", None)
    if isinstance(fmt, Mapping):
        args["response_format"] = fmt.get("type") or "set"
    extra = args.pop("extra_body", None)
    if extra:
        args["extra_body"] = extra
    return _compact(args)


def judge(meta: Mapping[str, Any]) -> str:
    config = meta.get("reward_config") or {}
    if not isinstance(config, Mapping):
        return MISSING
    card = config.get("judge_card")
    if card:
        from sv_shared.safety.judge_card import summary_line

        return clean_text(summary_line(card))
    if config.get("judge"):
        return clean_text(str(config["judge"]))
    return MISSING


def weights(meta: Mapping[str, Any]) -> str:
    config = meta.get("reward_config") or {}
    return _compact(config.get("weights") if isinstance(config, Mapping) else None)


def _package(meta: Mapping[str, Any], name: str) -> str:
    packages = meta.get("packages") or {}
    return _compact(packages.get(name) if isinstance(packages, Mapping) else None)


def counts(run: Run) -> str:
    planned = run.metadata.get("n")
    planned_text = str(planned) if isinstance(planned, int) else MISSING
    return f"{planned_text} / {len(run.scored_rows)} / {run.n_errors}"


def status(run: Run) -> str:
    return run.status_note() or run.status


FIELDS: tuple[tuple[str, Any], ...] = (
    ("status", status),
    ("n planned / scored / errored", counts),
    ("run id", lambda r: clean_text(r.run_id)),
    ("model id", lambda r: _compact(r.metadata.get("model_id"))),
    ("model kind", lambda r: _compact(r.metadata.get("model_kind"))),
    ("endpoint", lambda r: _compact(r.metadata.get("base_url"))),
    ("commit", lambda r: commit(r.metadata)),
    ("dataset", lambda r: dataset(r.metadata)),
    ("dataset hash", lambda r: _compact(r.metadata.get("dataset_hash"))),
    ("examples hash", lambda r: _compact(r.metadata.get("examples_hash"))),
    ("env args", lambda r: _compact(r.metadata.get("env_args"))),
    ("seed", lambda r: _compact(r.metadata.get("seed"))),
    ("sampling args", lambda r: sampling(r.metadata)),
    ("judge", lambda r: judge(r.metadata)),
    ("reward weights", lambda r: weights(r.metadata)),
    ("tool versions", lambda r: _compact(r.metadata.get("tool_versions"))),
    ("verifiers", lambda r: _package(r.metadata, "verifiers")),
    ("security-verifiers", lambda r: _package(r.metadata, "security-verifiers")),
    ("python", lambda r: _compact((r.metadata.get("platform") or {}).get("python"))),
    ("finished at", lambda r: _compact(r.metadata.get("finished_at"))),
)
"""(field, how to read it from a run): the rows of the provenance table."""


def provenance_rows(runs: Sequence[Run], out_dir: Path) -> list[tuple[str, list[str]]]:
    """(field, one value per run): the run's folder (relative to `out_dir`) then `FIELDS`."""
    rows = [("run folder", [display_path(r.path, out_dir, r.path_secrets()) for r in runs])]
    rows += [(name, [get(run) for run in runs]) for name, get in FIELDS]
    return rows
