"""Build the report: load runs, group by environment, compute tables, draw, render, write."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from security_verifiers.reports.compare import pairwise
from security_verifiers.reports.figures import TITLES, draw
from security_verifiers.reports.html import render_html
from security_verifiers.reports.markdown import render_markdown
from security_verifiers.reports.profiles import profile_for
from security_verifiers.reports.runs import Run, load_runs
from security_verifiers.reports.section import EnvSection, FigureRef, Report
from security_verifiers.reports.tables import calibration_bins, metric_table


@dataclass(frozen=True)
class ReportPaths:
    """Where the report was written."""

    out_dir: Path
    html: Path
    markdown: Path
    figures: list[Path] = field(default_factory=list)


def default_out_dir(runs: Sequence[Run]) -> Path:
    """`<common parent of the runs>/report`."""
    return Path(os.path.commonpath([str(r.path.resolve().parent) for r in runs])) / "report"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Model names, with the run id added where a model appears more than once."""
    counts = Counter(r.model for r in runs)
    return [r.model if counts[r.model] == 1 else f"{r.model} @ {r.run_id}" for r in runs]


def _sort_key(run: Run) -> tuple[str, str]:
    return run.model, run.run_id


def build_section(env_runs: Sequence[Run], figures_dir: Path, *, seed: int = 0) -> EnvSection:
    runs = sorted(env_runs, key=_sort_key)
    labels = run_labels(runs)
    env_key = runs[0].env_key
    profile = profile_for(env_key)
    section = EnvSection(
        env_key=env_key,
        env_id=runs[0].env_id,
        runs=runs,
        labels=labels,
        table=metric_table(runs, labels, profile, seed=seed),
        comparisons=pairwise(runs, seed=seed),
    )
    if "reliability" in profile.figures:
        section.calibration = [
            (label, calibration_bins(run)) for run, label in zip(runs, labels, strict=True)
        ]
    for kind in profile.figures:
        path = draw(
            kind, runs, labels, figures_dir / f"{env_key}_{kind}.png", profile.success_metrics
        )
        if path is not None:
            section.figures.append(FigureRef(kind, TITLES[kind], path))
    return section


def build_report(
    run_dirs: Sequence[str | Path], out_dir: str | Path | None = None, *, seed: int = 0
) -> ReportPaths:
    """Write report.html, report.md and figures/*.png for the runs (dirs or globs)."""
    runs, skipped = load_runs(run_dirs)
    out = Path(out_dir) if out_dir is not None else default_out_dir(runs)
    figures_dir = out / "figures"
    by_env: dict[str, list[Run]] = {}
    for run in runs:
        by_env.setdefault(run.env_key, []).append(run)
    sections = [build_section(by_env[key], figures_dir, seed=seed) for key in sorted(by_env)]
    report = Report(sections, skipped, out)
    out.mkdir(parents=True, exist_ok=True)
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(render_html(report))
    md_path.write_text(render_markdown(report))
    figures = [f.path for s in sections for f in s.figures]
    return ReportPaths(out, html_path, md_path, figures)
