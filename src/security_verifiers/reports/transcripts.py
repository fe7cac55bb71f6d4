"""Rollouts you can read: a run's records joined with the prompts they answered.

`results.jsonl` keeps the reply, the parsed answer, the rewards and any state columns (a tool
transcript), not the prompt; the prompt is rebuilt by loading the environment with the run's
own arguments (`metadata.json`) and taking the rows by `example_id`, so a transcript shows
exactly what the model saw. Everything shown is redacted (`redact`: keys, tokens and URL
credentials) unless the caller asks otherwise.

Used by `sv sample` (a seeded sample of N rollouts across runs, with outcome filters), the
Inspect export (`inspect_export.py`) and the HTML report's transcript section.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from security_verifiers.errors import UserError
from security_verifiers.models.spec import redact
from security_verifiers.reports.runs import Warn, read_json_object, read_results, warn_on_stderr

OUTCOMES = ("wrong", "errored", "abstained", "tool-calls", "lowest-reward", "right", "all")
"""Filters of `sv sample` and the report (``all``: no filter)."""


@dataclass
class Transcript:
    """One rollout: what the model saw, what it said, how it was scored."""

    run_dir: Path
    env_id: str
    model: str
    example_id: int
    example_key: str
    gold: Any
    messages: list[dict[str, Any]]
    completion: str
    parsed: Any
    reward: float | None
    rewards: dict[str, float]
    error: str | None
    error_kind: str | None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> Any:
        return self.parsed.get("label") if isinstance(self.parsed, Mapping) else None

    @property
    def tool_calls(self) -> int:
        return int(self.extra.get("tool_calls") or 0)

    def outcome(self) -> str:
        """errored, abstained, right or wrong (by the `accuracy` or `decision` component)."""
        if self.error or self.error_kind:
            return "errored"
        if self.label == "Abstain":
            return "abstained"
        score = self.rewards.get("accuracy", self.rewards.get("decision"))
        if score is None:
            return "right" if (self.reward or 0) > 0 else "wrong"
        return "right" if score > 0 else "wrong"


def read_rows(
    run_dir: Path, warn: Warn | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(metadata, results rows) of one run directory, read as the report reads them: an
    unreadable line is skipped with a warning naming the file and line; a bad directory is
    one line."""
    meta_path, results_path = run_dir / "metadata.json", run_dir / "results.jsonl"
    if not results_path.is_file() or not meta_path.is_file():
        raise UserError(f"{run_dir}: not a run directory (no metadata.json / results.jsonl)")
    return read_json_object(meta_path), read_results(results_path, warn or warn_on_stderr)


def run_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """Run directories named directly or found below the given folders (sorted, unique)."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if (path / "results.jsonl").is_file():
            found.add(path)
        elif path.is_dir():
            found.update(p.parent for p in path.rglob("results.jsonl"))
        else:
            raise UserError(f"{path}: no such run directory or folder")
    if not found:
        raise UserError(f"no runs (results.jsonl) under {', '.join(map(str, paths))}")
    return sorted(found)


def _prompts(meta: Mapping[str, Any], ids: set[int]) -> dict[int, list[dict[str, Any]]]:
    """The prompt messages of the chosen examples, rebuilt from the run's environment."""
    from security_verifiers.environments import resolve_env
    from security_verifiers.evaluation.runner import load_env

    try:
        env = load_env(resolve_env(str(meta["env_id"])), dict(meta.get("env_args") or {}))
    except (UserError, KeyError) as exc:
        raise UserError(f"cannot rebuild the prompts of {meta.get('env_id')}: {exc}") from None
    dataset = env.get_eval_dataset()
    out: dict[int, list[dict[str, Any]]] = {}
    for row in dataset:
        example_id = int(row.get("example_id", -1))
        if example_id in ids:
            prompt = row.get("prompt") or []
            out[example_id] = [dict(m) for m in prompt] if isinstance(prompt, list) else []
    return out


def transcripts(
    run_dir: Path,
    *,
    with_prompts: bool = True,
    redacted: bool = True,
    ids: set[int] | None = None,
    loaded: tuple[dict[str, Any], list[dict[str, Any]]] | None = None,
) -> list[Transcript]:
    """Every rollout of one run (or those with the given example ids) as a
    :class:`Transcript`; `loaded` is the run's (metadata, rows) when already read."""
    meta, rows = loaded or read_rows(run_dir)
    if ids is not None:
        rows = [r for r in rows if int(r["example_id"]) in ids]
    prompts = _prompts(meta, {int(r["example_id"]) for r in rows}) if with_prompts else {}
    out = []
    for row in rows:
        extra = {
            k: v
            for k, v in row.items()
            if k not in ("completion", "parsed", "rewards", "reward", "error", "error_kind")
        }
        tools = (row.get("metrics") or {}).get("tool_calls") or (row.get("state") or {}).get(
            "tool_calls"
        )
        extra["tool_calls"] = tools or 0
        record = Transcript(
            run_dir=run_dir,
            env_id=str(meta.get("env_id")),
            model=str(meta.get("model")),
            example_id=int(row["example_id"]),
            example_key=str(row.get("example_key", row["example_id"])),
            gold=row.get("gold"),
            messages=prompts.get(int(row["example_id"]), []),
            completion=str(row.get("completion") or ""),
            parsed=row.get("parsed"),
            reward=row.get("reward"),
            rewards=dict(row.get("rewards") or {}),
            error=row.get("error"),
            error_kind=row.get("error_kind"),
            extra=extra,
        )
        out.append(_redacted(record) if redacted else record)
    return out


_SECRET = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|AIza[0-9A-Za-z_-]{30,})"
    r"|(?i:bearer\s+)[A-Za-z0-9._~+/-]{16,}=*"
)
"""API keys and bearer tokens a prompt or reply may carry."""


def _hide(value: Any) -> Any:
    value = redact(value)
    if isinstance(value, str):
        return _SECRET.sub("[redacted]", value)
    if isinstance(value, Mapping):
        return {k: _hide(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_hide(v) for v in value]
    return value


def _redacted(record: Transcript) -> Transcript:
    record.messages = _hide(record.messages)
    record.completion = _hide(record.completion)
    record.parsed = _hide(record.parsed)
    record.error = _hide(record.error) if record.error else record.error
    record.extra = _hide(record.extra)
    return record


def select(records: Sequence[Transcript], outcome: str, n: int, seed: int) -> list[Transcript]:
    """``n`` records with that outcome: a seeded random sample, or for ``lowest-reward`` the
    ``n`` lowest rewards (ties broken by the same seeded order)."""
    if outcome not in OUTCOMES:
        raise UserError(f"--outcome {outcome}: expected one of {', '.join(OUTCOMES)}")
    if n < 1:
        raise UserError(f"-n {n}: give a positive number of rollouts")
    order = list(records)
    random.Random(seed).shuffle(order)
    if outcome == "lowest-reward":
        scored = [r for r in order if r.reward is not None]
        return sorted(scored, key=lambda r: float(r.reward or 0.0))[:n]
    if outcome == "tool-calls":
        return [r for r in order if r.tool_calls > 0][:n]
    if outcome != "all":
        order = [r for r in order if r.outcome() == outcome]
    return order[:n]


def as_text(record: Transcript) -> str:
    """A plain-text transcript: header, messages, reply, parsed answer, rewards."""
    rewards = ", ".join(f"{k} {v:.3f}" for k, v in sorted(record.rewards.items()))
    reward = "–" if record.reward is None else f"{record.reward:.3f}"
    lines = [
        f"=== {record.env_id} · {record.model} · example {record.example_key} "
        f"({record.outcome()}, reward {reward})",
        f"run: {record.run_dir}",
        f"gold: {record.gold}",
    ]
    for message in record.messages:
        lines.append(f"--- {message.get('role', '?')}")
        lines.append(str(message.get("content", "")))
    lines.append("--- assistant (reply)")
    lines.append(record.completion or "(no reply)")
    if record.error:
        lines.append(f"--- error ({record.error_kind}): {record.error}")
    lines.append(f"--- parsed: {json.dumps(record.parsed, ensure_ascii=False)}")
    lines.append(f"--- rewards: {rewards or '–'}")
    return "\n".join(lines)
