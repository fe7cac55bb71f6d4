"""Export runs to Inspect AI's JSON log format, so `inspect view` can browse them.

One run directory becomes one log file (format version 2): the run's environment is the task,
its model the model, every rollout a sample with the prompt messages, the reply, the gold
label as target and one score per reward component (plus the total as ``reward``). The
harness does not depend on Inspect: the file is written from the documented schema, and the
tests read every export back with Inspect's own `read_eval_log` (in its tool venv,
`.tools/inspect`, since Inspect and verifiers pin different dependencies).

    sv export-inspect RUNS... [--out DIR]      then: inspect view --log-dir DIR
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from security_verifiers.reports.transcripts import Transcript, read_rows, transcripts

LOG_VERSION = 2
_ROLES = ("system", "user", "assistant", "tool")


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    role = str(message.get("role", "user"))
    content = message.get("content", "")
    if not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    out: dict[str, Any] = {"role": role if role in _ROLES else "user", "content": content}
    if out["role"] == "tool":
        out["tool_call_id"] = str(message.get("tool_call_id") or "")
    return out


def _sample(record: Transcript) -> dict[str, Any]:
    messages = [_message(m) for m in record.messages]
    reply = {"role": "assistant", "content": record.completion, "source": "generate"}
    label = record.label
    scores: dict[str, Any] = {
        "reward": {
            "value": record.reward if record.reward is not None else 0.0,
            "answer": None if label is None else str(label),
            "explanation": record.outcome(),
        }
    }
    for name, value in sorted(record.rewards.items()):
        scores[name] = {"value": float(value)}
    sample: dict[str, Any] = {
        "id": record.example_key,
        "epoch": 1,
        "input": messages or record.example_key,
        "target": "" if record.gold is None else str(record.gold),
        "messages": [*messages, reply],
        "output": {
            "model": record.model,
            "choices": [{"message": reply, "stop_reason": "stop"}],
            "completion": record.completion,
        },
        "scores": scores,
        "metadata": {
            "example_id": record.example_id,
            "outcome": record.outcome(),
            "parsed": record.parsed,
            "run_dir": str(record.run_dir),
        },
    }
    if record.error:
        sample["error"] = {"message": record.error, "traceback": "", "traceback_ansi": ""}
    return sample


def eval_log(run_dir: Path, *, redacted: bool = True) -> dict[str, Any]:
    """The Inspect log (as JSON data) of one run directory."""
    meta, _ = read_rows(run_dir)
    records = transcripts(run_dir, redacted=redacted)
    rewards = [r.reward for r in records if r.reward is not None and not r.error]
    status = {"complete": "success", "partial": "error"}.get(str(meta.get("status")), "started")
    started = str(meta.get("started_at") or "")
    run_id = str(meta.get("run_id") or run_dir.name)
    task_id = hashlib.sha256(f"{meta.get('env_id')}|{run_id}".encode()).hexdigest()[:22]
    log: dict[str, Any] = {
        "version": LOG_VERSION,
        "status": status,
        "eval": {
            "run_id": run_id,
            "eval_id": task_id,
            "created": started,
            "task": str(meta.get("env_id")),
            "task_id": task_id,
            "task_version": 0,
            "task_args": dict(meta.get("env_args") or {}),
            "model": str(meta.get("model")),
            "dataset": {"name": str(meta.get("env_id")), "samples": len(records)},
            "config": {},
            "model_generate_config": dict(meta.get("sampling_args") or {}),
            "metadata": {"sv_run_dir": str(run_dir), "sv_fingerprint": meta.get("fingerprint")},
        },
        "plan": {"name": "plan", "steps": [], "config": {}},
        "results": {
            "total_samples": len(records),
            "completed_samples": len(rewards),
            "scores": [
                {
                    "name": "reward",
                    "scorer": "reward",
                    "params": {},
                    "metrics": {
                        "mean": {
                            "name": "mean",
                            "value": statistics.fmean(rewards) if rewards else 0.0,
                            "params": {},
                        }
                    },
                }
            ],
        },
        "stats": {
            "started_at": started,
            "completed_at": str(meta.get("finished_at") or ""),
            "model_usage": {},
        },
        "samples": [_sample(record) for record in records],
    }
    if status == "error":
        log["error"] = {
            "message": f"{meta.get('n_errors')} rollouts errored (left out of the scores)",
            "traceback": "",
            "traceback_ansi": "",
        }
    return log


def export(run_dir: Path, out_dir: Path, *, redacted: bool = True) -> Path:
    """Write one run's log to ``out_dir`` (named after the run); returns the file."""
    meta, _ = read_rows(run_dir)
    name = f"{meta.get('env_id')}--{run_dir.parent.name.split('--', 1)[-1]}--{run_dir.name}"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(
        json.dumps(eval_log(run_dir, redacted=redacted), ensure_ascii=False), encoding="utf-8"
    )
    tmp.replace(path)
    return path
