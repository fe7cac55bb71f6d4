"""Build the report: load runs, group by environment, compute tables, draw, render, write."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from security_verifiers.errors import UserError
from security_verifiers.reports.compare import pairwise
from security_verifiers.reports.definitions import definitions_for
from security_verifiers.reports.figures import TITLES, draw
from security_verifiers.reports.html import render_html
from security_verifiers.reports.markdown import render_markdown
from security_verifiers.reports.profiles import profile_for
from security_verifiers.reports.provenance import provenance_rows
from security_verifiers.reports.redact import display_path, slug, strip_userinfo
from security_verifiers.reports.runs import Run, Warn, load_runs
from security_verifiers.reports.scored import run_metrics_of
from security_verifiers.reports.section import EnvSection, FigureRef, Report
from security_verifiers.reports.tables import calibration_bins, metric_table
from security_verifiers.reports.transcript_view import report_transcripts


@dataclass(frozen=True)
class ReportPaths:
    """Where the report was written."""

    out_dir: Path
    html: Path
    markdown: Path
    figures: list[Path] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    """One line per run that is in the report but not complete."""


def default_out_dir(runs: Sequence[Run]) -> Path:
    """`<common parent of the runs>/report`."""
    return Path(os.path.commonpath([str(r.path.resolve().parent) for r in runs])) / "report"


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Model names (credentials stripped), with the run id added where a model appears more
    than once and the status where a run is not complete."""
    counts = Counter(r.model for r in runs)
    labels = []
    for run in runs:
        label = run.model if counts[run.model] == 1 else f"{run.model} @ {run.run_id}"
        labels.append(label if run.is_complete else f"{label} [{run.status}]")
    return labels


def _skipped_path(path: Path, out: Path) -> str:
    """An unfinished run's folder for printing (credentials in its model slug replaced)."""
    try:
        model = str(json.loads((path / "metadata.json").read_text()).get("model") or "")
    except (OSError, ValueError, AttributeError):
        model = ""
    safe = strip_userinfo(model)
    return display_path(path, out, {slug(model): slug(safe)} if model != safe else None)


def _sort_key(run: Run) -> tuple[str, str]:
    return run.model, run.run_id


def build_section(
    env_runs: Sequence[Run],
    figures_dir: Path,
    *,
    seed: int = 0,
    out_dir: Path | None = None,
    transcripts: int = 0,
    redact: bool = True,
) -> EnvSection:
    """One environment's tables, figures and up to `transcripts` rollouts per run to read;
    `seed` is for paired comparisons and the transcript sample (and for the intervals of a
    run without a seed of its own)."""
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
        provenance=provenance_rows(runs, out_dir or figures_dir.parent),
    )
    if "reliability" in profile.figures:
        section.calibration = [
            (label, calibration_bins(run)) for run, label in zip(runs, labels, strict=True)
        ]
    section.transcripts = [
        (label, *report_transcripts(run, transcripts, seed=seed, redacted=redact))
        for run, label in zip(runs, labels, strict=True)
    ]
    for kind in profile.figures:
        path = draw(
            kind,
            runs,
            labels,
            figures_dir / f"{env_key}_{kind}.png",
            profile.success_metrics,
            table=section.table,
            seed=seed,
        )
        if path is not None:
            section.figures.append(FigureRef(kind, TITLES[kind], path))
    return section


def build_report(
    run_dirs: Sequence[str | Path],
    out_dir: str | Path | None = None,
    *,
    seed: int = 0,
    complete_only: bool = False,
    warn: Warn | None = None,
    transcripts: int = 30,
    redact: bool = True,
) -> ReportPaths:
    """Write report.html, report.md and figures/*.png for the runs (dirs or globs), with up
    to `transcripts` rollouts per run to read in the HTML (redacted unless `redact` is off).

    Runs that are not complete (partial, running, interrupted) are flagged, with their errored
    rollouts left out of every number; `complete_only` leaves such runs out altogether.
    Unreadable runs and results lines are left out, each with a line to `warn`.
    """
    loaded, skipped = load_runs(run_dirs, warn)
    out = Path(out_dir) if out_dir is not None else default_out_dir(loaded)
    runs = [r for r in loaded if r.is_complete] if complete_only else loaded
    excluded = [
        (display_path(r.path, out, r.path_secrets()), r.status_note())
        for r in loaded
        if complete_only and not r.is_complete
    ]
    if not runs:
        raise UserError(
            f"no complete runs among {len(loaded)} finished run(s) "
            f"({'; '.join(note for _, note in excluded)}); drop --complete-only to see them"
        )
    figures_dir = out / "figures"
    by_env: dict[str, list[Run]] = {}
    for run in runs:
        by_env.setdefault(run.env_key, []).append(run)
    sections = [
        build_section(
            by_env[key],
            figures_dir,
            seed=seed,
            out_dir=out,
            transcripts=transcripts,
            redact=redact,
        )
        for key in sorted(by_env)
    ]
    shown = [key for s in sections for key in s.table.rows]
    env_metrics = [run_metrics_of(by_env[key][0]) for key in sorted(by_env)]
    report = Report(
        sections,
        [_skipped_path(p, out) for p in skipped],
        out,
        excluded=excluded,
        definitions=definitions_for(shown, [m.definitions for m in env_metrics if m]),
    )
    out.mkdir(parents=True, exist_ok=True)
    html_path, md_path = out / "report.html", out / "report.md"
    html_path.write_text(render_html(report))
    md_path.write_text(render_markdown(report))
    figures = [f.path for s in sections for f in s.figures]
    flagged = [f"{s.env_key} {label}: {note}" for s in sections for label, note in s.flagged]
    return ReportPaths(out, html_path, md_path, figures, flagged)
