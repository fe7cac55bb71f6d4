"""One self-contained HTML file: inline CSS, tables, figures embedded as base64 PNG."""

from __future__ import annotations

import base64
from html import escape

from security_verifiers.reports.section import (
    EnvSection,
    Report,
    fmt,
    fmt_cell,
    fmt_ci,
    fmt_p,
    judge_line,
)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #222; }
h1 { border-bottom: 2px solid #4c72b0; } h2 { margin-top: 2.5rem; color: #4c72b0; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .85rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; } th { background: #eef2f8; }
.ci { color: #777; font-size: .78rem; } figure { display: inline-block; margin: .5rem; }
figcaption { font-size: .85rem; color: #555; text-align: center; } code { font-size: .8rem; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A table; cells are HTML already escaped by the caller."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(cell) -> str:
    if cell.ci is None:
        return escape(fmt_cell(cell))
    return f"{fmt(cell.value)} <span class='ci'>{escape(fmt_ci(cell.ci))}</span>"


def _image(path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(path.stem)}">'


def _section(section: EnvSection) -> str:
    e = escape
    parts = [f"<h2>{e(section.env_key)} · {e(section.env_id)}</h2>", "<ul>"]
    for run, label in zip(section.runs, section.labels, strict=True):
        parts.append(
            f"<li><b>{e(label)}</b>: <code>{e(str(run.path))}</code> "
            f"(n={len(run.rows)}, seed={e(str(run.metadata.get('seed')))})"
            + (f"<br><small>{e(judge)}</small>" if (judge := judge_line(run.metadata)) else "")
            + "</li>"
        )
    parts.append("</ul><h3>Metrics (value [95% bootstrap CI])</h3>")
    rows = [[e(key), *map(_cell, cells)] for key, cells in section.table.rows.items()]
    parts.append(_table(["metric", *map(e, section.table.labels)], rows))
    done = [c for c in section.comparisons if c.result is not None]
    refused = [c for c in section.comparisons if c.result is None]
    if done or refused:
        parts.append("<h3>Paired comparisons (reward of B − A over shared examples)</h3>")
    if done:
        parts.append(
            _table(
                ["A", "B", "n", "mean A", "mean B", "B − A", "95% CI", "p"],
                [
                    [e(section.label_of(c.a)), e(section.label_of(c.b)), str(c.result.n),
                     fmt(c.result.mean_a), fmt(c.result.mean_b), fmt(c.result.difference),
                     e(fmt_ci(c.result.ci95)), e(fmt_p(c.result.p_value))]
                    for c in done if c.result is not None
                ],
            )
        )  # fmt: skip
    if refused:
        items = "".join(
            f"<li>{e(section.label_of(c.a))} vs {e(section.label_of(c.b))}: "
            f"{e(c.reason or '')}</li>"
            for c in refused
        )
        parts.append(f"<p>Not compared:</p><ul>{items}</ul>")
    for figure in section.figures:
        parts.append(
            f"<figure>{_image(figure.path)}<figcaption>{e(figure.title)}</figcaption></figure>"
        )
    for label, bins in section.calibration:
        parts.append(f"<h3>Calibration bins — {e(label)}</h3>")
        parts.append(
            _table(
                ["confidence", "n", "mean confidence", "accuracy"],
                [[f"{b.low:.1f}–{b.high:.1f}", str(b.n), fmt(b.confidence), fmt(b.accuracy)]
                 for b in bins],
            )
        )  # fmt: skip
    return "\n".join(parts)


def render_html(report: Report) -> str:
    skipped = ""
    if report.skipped:
        items = "".join(f"<li><code>{escape(str(p))}</code></li>" for p in report.skipped)
        skipped = f"<p>Skipped {len(report.skipped)} unfinished run(s):</p><ul>{items}</ul>"
    body = "\n".join(_section(s) for s in report.sections)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>Security Verifiers report</title><style>{STYLE}</style></head>"
        f"<body><h1>Security Verifiers report</h1>{skipped}\n{body}</body></html>\n"
    )
