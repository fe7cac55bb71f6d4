"""Attacker × defender tournaments on E5: the attack-success matrix and its artifacts.

Every cell is an ordinary E5 evaluation (the attacker is the evaluated model, the defender is
the target), so each has its own run directory with metadata and results. The same round is
what attacker/defender co-training alternates over: train one side against the other side's
current checkpoints, play a round, repeat.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate

SUCCESS_METRIC = "attack_success_rate"


@dataclass
class TournamentResult:
    attackers: list[str]
    defenders: list[str]
    success: dict[str, dict[str, float | None]] = field(default_factory=dict)
    runs: dict[str, dict[str, str]] = field(default_factory=dict)
    directory: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {"attackers": self.attackers, "defenders": self.defenders,
                "metric": SUCCESS_METRIC, "success": self.success, "runs": self.runs}  # fmt: skip

    def markdown(self) -> str:
        header = "| attacker \\ defender | " + " | ".join(self.defenders) + " |"
        lines = [header, "|---" * (len(self.defenders) + 1) + "|"]
        for attacker in self.attackers:
            cells = [_cell(self.success[attacker].get(d)) for d in self.defenders]
            lines.append(f"| {attacker} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


async def play_round(
    attackers: Sequence[str],
    defenders: Sequence[str],
    base: EvalConfig,
    output_root: Path,
    console: Console | None = None,
) -> TournamentResult:
    """Evaluate every attacker against every defender; write matrix.json / matrix.md."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    directory = output_root / stamp
    result = TournamentResult(list(attackers), list(defenders), directory=directory)
    for attacker in attackers:
        result.success[attacker] = {}
        result.runs[attacker] = {}
    for defender in defenders:
        update = {"env": base.env, "models": list(attackers), "target": defender,
                  "output_root": directory / "runs"}  # fmt: skip
        config = base.model_copy(update=update)
        for run in await evaluate(config, console):
            metrics = run.summary.get("metrics") or {}
            result.success[run.spec.name][defender] = metrics.get(SUCCESS_METRIC)
            result.runs[run.spec.name][defender] = str(run.run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "matrix.json").write_text(json.dumps(result.to_json(), indent=2) + "\n")
    (directory / "matrix.md").write_text(result.markdown())
    return result


def print_matrix(result: TournamentResult, console: Console) -> None:
    table = Table(title=f"{SUCCESS_METRIC} (rows: attackers, columns: defenders)")
    table.add_column("attacker")
    for defender in result.defenders:
        table.add_column(defender, justify="right")
    for attacker in result.attackers:
        table.add_row(attacker, *[_cell(result.success[attacker].get(d)) for d in result.defenders])
    console.print(table)
    console.print(f"[dim]{result.directory}[/dim]")
