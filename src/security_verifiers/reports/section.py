"""The content of a report, independent of how it is rendered."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from security_verifiers.reports.compare import Comparison
from security_verifiers.reports.runs import Run
from security_verifiers.reports.tables import CalibrationBin, Cell, MetricTable
from security_verifiers.reports.transcripts import Transcript


@dataclass(frozen=True)
class FigureRef:
    kind: str
    title: str
    path: Path


@dataclass
class EnvSection:
    """Everything reported for one environment."""

    env_key: str
    env_id: str
    runs: list[Run]
    labels: list[str]
    table: MetricTable
    comparisons: list[Comparison]
    calibration: list[tuple[str, list[CalibrationBin]]] = field(default_factory=list)
    figures: list[FigureRef] = field(default_factory=list)
    provenance: list[tuple[str, list[str]]] = field(default_factory=list)
    transcripts: list[tuple[str, list[Transcript], str | None]] = field(default_factory=list)
    """(run label, the rollouts shown, a note when their prompts could not be rebuilt)."""

    @property
    def flagged(self) -> list[tuple[str, str]]:
        """(label, status note) of the runs that are not complete."""
        return [
            (label, run.status_note())
            for run, label in zip(self.runs, self.labels, strict=True)
            if not run.is_complete
        ]

    def label_of(self, run: Run) -> str:
        return self.labels[[r.path for r in self.runs].index(run.path)]


@dataclass
class Report:
    sections: list[EnvSection]
    skipped: list[str]
    """Run folders without summary.json (relative to `out_dir`)."""
    out_dir: Path
    excluded: list[tuple[str, str]] = field(default_factory=list)
    """(run folder relative to `out_dir`, status note) of runs left out by --complete-only."""
    definitions: list[tuple[str, str]] = field(default_factory=list)


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def fmt_cell(cell: Cell) -> str:
    text = fmt(cell.value)
    return f"{text} {fmt_ci(cell.ci)}" if cell.ci is not None else text


def fmt_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def judge_line(metadata: dict) -> str:
    """Which safety judge produced a run's numbers and its measured agreement ("" if none)."""
    card = (metadata.get("reward_config") or {}).get("judge_card")
    if not card:
        return ""
    from security_verifiers.reports.redact import clean_text
    from sv_shared.safety.judge_card import summary_line

    return clean_text(summary_line(card))
