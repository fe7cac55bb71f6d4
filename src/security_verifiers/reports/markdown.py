"""The Markdown summary: per environment, the metric table, comparisons and figure links."""

from __future__ import annotations

from pathlib import Path

from security_verifiers.reports.definitions import COMMON
from security_verifiers.reports.redact import strip_userinfo
from security_verifiers.reports.section import (
    EnvSection,
    Report,
    fmt,
    fmt_cell,
    fmt_ci,
    fmt_p,
    judge_line,
)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(header), line(["---"] * len(header)), *(line(r) for r in rows)]


def _section(section: EnvSection, out_dir: Path) -> list[str]:
    lines = [f"## {section.env_key} · {section.env_id}", ""]
    if section.flagged:
        lines += ["> **Not complete:** errored rollouts are left out of every number below.", ">"]
        lines += [f"> - **{label}**: {note}" for label, note in section.flagged] + [""]
    lines += ["Runs:", ""]
    for run, label in zip(section.runs, section.labels, strict=True):
        errored = f", {run.n_errors} errored (excluded)" if run.n_errors else ""
        lines.append(
            f"- **{label}**: n={len(run.scored_rows)} scored{errored}, "
            f"seed={run.metadata.get('seed')}"
        )
        if judge := judge_line(run.metadata):
            lines.append(f"  - {judge}")
    lines += ["", "Provenance:", ""]
    lines += _table(
        ["", *section.labels],
        [[name, *(f"`{v}`" if v else "" for v in values)] for name, values in section.provenance],
    )
    lines += ["", "Metrics (value [95% bootstrap CI]):", ""]
    rows = [[key, *map(fmt_cell, cells)] for key, cells in section.table.rows.items()]
    lines += _table(["metric", *section.table.labels], rows)
    if section.comparisons:
        lines += ["", "Paired comparisons (reward of B − A over examples scored in both):", ""]
        done = [c for c in section.comparisons if c.result is not None]
        refused = [c for c in section.comparisons if c.result is None]
        if done:
            lines += _table(
                ["A", "B", "n", "mean A", "mean B", "B − A", "95% CI", "p", "note"],
                [
                    [section.label_of(c.a), section.label_of(c.b), str(c.result.n),
                     fmt(c.result.mean_a), fmt(c.result.mean_b), fmt(c.result.difference),
                     fmt_ci(c.result.ci95), fmt_p(c.result.p_value),
                     f"{c.note}: errored rollouts left out" if c.note else ""]
                    for c in done if c.result is not None
                ],
            )  # fmt: skip
        if refused:
            lines += ["", "Not compared:", ""]
            lines += [
                f"- {section.label_of(c.a)} vs {section.label_of(c.b)}: {c.reason}" for c in refused
            ]
    for label, bins in section.calibration:
        if not bins:
            continue
        lines += ["", f"Calibration bins — {label} (bins with examples):", ""]
        lines += _table(
            ["confidence", "n", "mean confidence", "accuracy"],
            [
                [f"{b.low:.1f}–{b.high:.1f}", str(b.n), fmt(b.confidence), fmt(b.accuracy)]
                for b in bins
            ],
        )
    if section.figures:
        lines.append("")
        for figure in section.figures:
            lines.append(f"![{figure.title}]({figure.path.relative_to(out_dir).as_posix()})")
    return [*lines, ""]


def render_markdown(report: Report) -> str:
    """The report as Markdown (no credentials, no absolute paths)."""
    lines = ["# Security Verifiers report", ""]
    if report.skipped:
        lines += [f"Skipped {len(report.skipped)} unfinished run(s):", ""]
        lines += [f"- `{p}`" for p in report.skipped] + [""]
    if report.excluded:
        lines += [
            f"Left out {len(report.excluded)} run(s) that are not complete (--complete-only):",
            "",
        ]
        lines += [f"- `{p}`: {note}" for p, note in report.excluded] + [""]
    for section in report.sections:
        lines += _section(section, report.out_dir)
    lines += ["## Metric definitions", "", COMMON, ""]
    lines += [f"- `{key}`: {text}" for key, text in report.definitions] + [""]
    return strip_userinfo("\n".join(lines))
