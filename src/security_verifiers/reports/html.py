"""One self-contained HTML file: inline CSS, tables, figures embedded as base64 PNG."""

from __future__ import annotations

import base64
from html import escape

from security_verifiers.reports import transcript_view
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

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #222; }
h1 { border-bottom: 2px solid #4c72b0; } h2 { margin-top: 2.5rem; color: #4c72b0; }
table { border-collapse: collapse; margin: .6rem 0 1.2rem; font-size: .85rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; } th { background: #eef2f8; }
.ci { color: #777; font-size: .78rem; } figure { display: inline-block; margin: .5rem; }
figcaption { font-size: .85rem; color: #555; text-align: center; } code { font-size: .8rem; }
.warn { background: #fff4e5; border-left: 4px solid #e8a33d; padding: .4rem .8rem; }
table.prov td { text-align: left; max-width: 28rem; overflow-wrap: anywhere; }
dl.defs dt { font-weight: bold; font-family: monospace; } dl.defs dd { margin: 0 0 .3rem 1.5rem; }
"""


def _table(header: list[str], rows: list[list[str]], css: str = "") -> str:
    """A table; cells are HTML already escaped by the caller."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    cls = f" class='{css}'" if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(cell) -> str:
    if cell.ci is None:
        return escape(fmt_cell(cell))
    return f"{fmt(cell.value)} <span class='ci'>{escape(fmt_ci(cell.ci))}</span>"


def _image(path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(path.stem)}">'


def _section(section: EnvSection) -> str:
    e = escape
    parts = [f"<h2>{e(section.env_key)} · {e(section.env_id)}</h2>"]
    if section.flagged:
        items = "".join(f"<li><b>{e(label)}</b>: {e(note)}</li>" for label, note in section.flagged)
        parts.append(
            "<div class='warn'><b>Not complete:</b> errored rollouts are left out of every "
            f"number below.<ul>{items}</ul></div>"
        )
    parts.append("<ul>")
    for run, label in zip(section.runs, section.labels, strict=True):
        parts.append(
            f"<li><b>{e(label)}</b>: n={len(run.scored_rows)} scored"
            + (f", {run.n_errors} errored (excluded)" if run.n_errors else "")
            + f", seed={e(str(run.metadata.get('seed')))}"
            + (f"<br><small>{e(judge)}</small>" if (judge := judge_line(run.metadata)) else "")
            + "</li>"
        )
    parts.append("</ul><h3>Provenance</h3>")
    parts.append(
        _table(
            ["", *map(e, section.labels)],
            [[e(name), *(f"<code>{e(v)}</code>" for v in values)]
             for name, values in section.provenance],
            css="prov",
        )
    )  # fmt: skip
    parts.append("<h3>Metrics (value [95% bootstrap CI])</h3>")
    rows = [[e(key), *map(_cell, cells)] for key, cells in section.table.rows.items()]
    parts.append(_table(["metric", *map(e, section.table.labels)], rows))
    done = [c for c in section.comparisons if c.result is not None]
    refused = [c for c in section.comparisons if c.result is None]
    if done or refused:
        parts.append("<h3>Paired comparisons (reward of B − A over examples scored in both)</h3>")
    if done:
        parts.append(
            _table(
                ["A", "B", "n", "mean A", "mean B", "B − A", "95% CI", "p", "note"],
                [
                    [e(section.label_of(c.a)), e(section.label_of(c.b)), str(c.result.n),
                     fmt(c.result.mean_a), fmt(c.result.mean_b), fmt(c.result.difference),
                     e(fmt_ci(c.result.ci95)), e(fmt_p(c.result.p_value)),
                     e(f"{c.note}: errored rollouts left out" if c.note else "")]
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
        if not bins:
            continue
        parts.append(f"<h3>Calibration bins — {e(label)} (bins with examples)</h3>")
        parts.append(
            _table(
                ["confidence", "n", "mean confidence", "accuracy"],
                [[f"{b.low:.1f}–{b.high:.1f}", str(b.n), fmt(b.confidence), fmt(b.accuracy)]
                 for b in bins],
            )
        )  # fmt: skip
    parts.append(transcript_view.render(section.transcripts, f"tx-{section.env_key}"))
    return "\n".join(parts)


def _definitions(report: Report) -> str:
    items = "".join(
        f"<dt>{escape(key)}</dt><dd>{escape(text)}</dd>" for key, text in report.definitions
    )
    return f"<h2>Metric definitions</h2><p>{escape(COMMON)}</p><dl class='defs'>{items}</dl>"


def render_html(report: Report) -> str:
    """The report as one HTML document (no credentials, no absolute paths)."""
    notes = ""
    if report.skipped:
        items = "".join(f"<li><code>{escape(p)}</code></li>" for p in report.skipped)
        notes += f"<p>Skipped {len(report.skipped)} unfinished run(s):</p><ul>{items}</ul>"
    if report.excluded:
        items = "".join(
            f"<li><code>{escape(p)}</code>: {escape(note)}</li>" for p, note in report.excluded
        )
        notes += (
            f"<p class='warn'>Left out {len(report.excluded)} run(s) that are not complete "
            f"(--complete-only):</p><ul>{items}</ul>"
        )
    body = "\n".join(_section(s) for s in report.sections)
    document = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>Security Verifiers report</title><style>{STYLE}{transcript_view.STYLE}</style>"
        f"<script>{transcript_view.SCRIPT}</script></head>"
        f"<body><h1>Security Verifiers report</h1>{notes}\n{body}\n{_definitions(report)}"
        "</body></html>\n"
    )
    return strip_userinfo(document)
