"""Scoreboard: the latest finished run of every (environment, model) under an outputs folder,
as `<out>/<env>.json` and `<out>/<env>.md` (reward with its 95% CI, core metrics, n, date, run).
Built-in baselines are listed like any other model (kind `baseline`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from security_verifiers.environments import ENVIRONMENTS, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.evaluation.run_store import METADATA, SUMMARY, read_json, write_json_atomic
from security_verifiers.gate.core_metrics import core_metrics, metric_value

IDENTITY = ("dataset_hash", "seed", "n", "target")
"""Fields that, when rows disagree on them, make the scoreboard warn they are not like for like."""


@dataclass(frozen=True)
class BoardRow:
    """One model's latest run."""

    model: str
    kind: str | None
    reward_mean: float | None
    reward_ci95: list[float] | None
    metrics: dict[str, float | None]
    n: int | None
    date: str | None
    run_dir: str
    dataset_hash: str | None
    seed: int | None
    target: str | None


def run_time(metadata: Mapping[str, Any], run_dir: Path) -> datetime | None:
    """When the run finished (else started), from its metadata."""
    for key in ("finished_at", "started_at"):
        try:
            return datetime.fromisoformat(str(metadata[key]))
        except (KeyError, ValueError):
            continue
    return None


def _row(env_id: str, metadata: Mapping[str, Any], summary: Mapping[str, Any], run_dir: Path):
    when = run_time(metadata, run_dir)
    return BoardRow(
        model=str(metadata.get("model") or summary.get("model")),
        kind=metadata.get("model_kind"),
        reward_mean=metric_value(summary, "reward_mean"),
        reward_ci95=summary.get("reward_ci95"),
        metrics={
            m.key: metric_value(summary, m.key)
            for m in core_metrics(env_id)
            if m.key != "reward_mean"
        },
        n=summary.get("n"),
        date=when.isoformat(timespec="seconds") if when else None,
        run_dir=str(run_dir),
        dataset_hash=metadata.get("dataset_hash"),
        seed=metadata.get("seed"),
        target=metadata.get("target"),
    )


def collect(root: Path, envs: Sequence[str] | None = None) -> dict[str, list[BoardRow]]:
    """Per environment id, the latest finished run of each model, best reward first."""
    if not root.is_dir():
        raise UserError(f"no runs: {root} is not a directory")
    wanted = {resolve_env(e).env_id for e in envs} if envs else None
    latest: dict[tuple[str, str], tuple[tuple[str, str], BoardRow]] = {}
    for meta_path in root.rglob(METADATA):
        run_dir = meta_path.parent
        metadata, summary = read_json(meta_path), read_json(run_dir / SUMMARY)
        if not metadata or not summary or metadata.get("status", "complete") != "complete":
            continue
        env_id = metadata.get("env_id") or summary.get("env_id")
        if not env_id or (wanted is not None and env_id not in wanted):
            continue
        row = _row(env_id, metadata, summary, run_dir)
        order = (row.date or "", run_dir.name)
        key = (env_id, row.model)
        if key not in latest or order > latest[key][0]:
            latest[key] = (order, row)
    if not latest:
        scope = f" for {', '.join(sorted(wanted))}" if wanted else ""
        raise UserError(f"no finished runs under {root}{scope}; run `sv eval` first")
    boards: dict[str, list[BoardRow]] = defaultdict(list)
    for (env_id, _), (_, row) in sorted(latest.items()):
        boards[env_id].append(row)
    for rows in boards.values():
        rows.sort(key=lambda r: (r.reward_mean is None, -(r.reward_mean or 0.0), r.model))
    return dict(boards)


def mixed_identity(rows: Sequence[BoardRow]) -> list[str]:
    """The identity fields on which the rows disagree."""
    return [name for name in IDENTITY if len({str(getattr(r, name)) for r in rows}) > 1]


def board_json(env_id: str, rows: Sequence[BoardRow]) -> dict[str, Any]:
    return {
        "env_id": env_id,
        "core_metrics": [
            {"key": m.key, "higher_is_better": m.higher_is_better} for m in core_metrics(env_id)
        ],
        "not_like_for_like": mixed_identity(rows),
        "rows": [asdict(row) for row in rows],
    }


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def board_markdown(env_id: str, rows: Sequence[BoardRow]) -> str:
    """A Markdown table, best reward first."""
    metrics = [m for m in core_metrics(env_id) if m.key != "reward_mean"]
    show_target = any(r.target for r in rows)
    header = ["#", "model", "kind", "reward (95% CI)", *(f"{m.key} {m.arrow}" for m in metrics)]
    header += [*(["target"] if show_target else []), "n", "date (UTC)", "run"]
    lines = [
        f"# Scoreboard: {env_id}",
        "",
        "Latest finished run per model. ↑ higher is better, ↓ lower is better.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    for rank, row in enumerate(rows, 1):
        ci = row.reward_ci95
        reward = _num(row.reward_mean) + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
        cells = [str(rank), row.model, row.kind or "–", reward]
        cells += [_num(row.metrics.get(m.key)) for m in metrics]
        cells += [row.target or "–"] if show_target else []
        cells += [str(row.n), (row.date or "–")[:16].replace("T", " "), f"`{row.run_dir}`"]
        lines.append("| " + " | ".join(cells) + " |")
    mixed = mixed_identity(rows)
    if mixed:
        lines += ["", f"Note: the runs differ in {', '.join(mixed)}; compare them with care."]
    return "\n".join(lines) + "\n"


def write_scoreboard(
    root: Path, out_dir: Path, envs: Sequence[str] | None = None
) -> dict[str, list[Path]]:
    """Write `<out_dir>/<env>.json` and `.md` for every environment with runs."""
    written: dict[str, list[Path]] = {}
    for env_id, rows in collect(root, envs).items():
        stem = next((e.key for e in ENVIRONMENTS.values() if e.env_id == env_id), env_id)
        json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
        write_json_atomic(json_path, board_json(env_id, rows))
        md_path.write_text(board_markdown(env_id, rows), encoding="utf-8")
        written[env_id] = [json_path, md_path]
    return written
