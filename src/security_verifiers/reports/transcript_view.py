"""The report's transcripts: per run, the rollouts worth reading, with outcome filters.

Each run contributes up to ``per_run`` rollouts, chosen so that every filter has something to
show: the lowest rewards first, then errored, abstained, wrong and tool-using rollouts, then a
seeded sample of the rest. They are rendered as collapsible blocks tagged with their outcome;
a few lines of inline script switch the filters (all, wrong, errored, abstained, tool calls,
lowest reward). Everything shown is redacted (`transcripts.py`) unless the report is built
with ``redact=False``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from html import escape

from security_verifiers.reports.runs import Run
from security_verifiers.reports.transcripts import Transcript, transcripts

FILTERS = ("all", "wrong", "errored", "abstained", "tool-calls", "lowest-reward")
LOWEST = 10
"""How many of a run's lowest rewards carry the `lowest-reward` tag."""


def pick(records: Sequence[Transcript], per_run: int, seed: int) -> list[Transcript]:
    """Up to ``per_run`` records: lowest rewards, then one group per filter, then a sample."""
    order = list(records)
    random.Random(seed).shuffle(order)
    rewarded = [r for r in order if r.reward is not None]
    lowest = sorted(rewarded, key=lambda r: float(r.reward or 0.0))  # (None left out above)
    groups = [
        lowest[:LOWEST],
        [r for r in order if r.outcome() == "errored"],
        [r for r in order if r.outcome() == "abstained"],
        [r for r in order if r.outcome() == "wrong"],
        [r for r in order if r.tool_calls > 0],
        order,
    ]
    chosen: dict[int, Transcript] = {}
    quota = max(1, per_run // 5)
    for index, group in enumerate(groups):
        room = per_run - len(chosen)
        take = room if index in (0, len(groups) - 1) else min(room, quota)
        for record in group:
            if take <= 0:
                break
            if record.example_id not in chosen:
                chosen[record.example_id] = record
                take -= 1
    return sorted(chosen.values(), key=lambda r: (r.reward is None, r.reward or 0.0))


def report_transcripts(
    run: Run, per_run: int, *, seed: int = 0, redacted: bool = True
) -> tuple[list[Transcript], str | None]:
    """(the chosen transcripts with their prompts, a note when the prompts could not be
    rebuilt) for one run of the report."""
    if per_run <= 0:
        return [], None
    loaded = (run.metadata, run.rows)
    chosen = pick(
        transcripts(run.path, with_prompts=False, redacted=redacted, loaded=loaded), per_run, seed
    )
    ids = {r.example_id for r in chosen}
    try:
        full = transcripts(run.path, redacted=redacted, ids=ids, loaded=loaded)
    except Exception:  # best effort: the report never fails for want of a prompt
        return chosen, "the run's environment cannot be rebuilt here"
    by_id = {r.example_id: r for r in full}
    return [by_id.get(r.example_id, r) for r in chosen], None


def _tags(record: Transcript, lowest: set[int]) -> str:
    tags = [record.outcome()]
    if record.tool_calls:
        tags.append("tool-calls")
    if record.example_id in lowest:
        tags.append("lowest-reward")
    return " ".join(tags)


def _block(record: Transcript, label: str, lowest: set[int]) -> str:
    e = escape
    reward = "–" if record.reward is None else f"{record.reward:.3f}"
    parts = [
        f"<details class='tx' data-tags='{e(_tags(record, lowest))}'><summary>"
        f"<b>{e(label)}</b> · example {e(record.example_key)} · {e(record.outcome())} · "
        f"reward {reward}"
        + (f" · {record.tool_calls} tool call(s)" if record.tool_calls else "")
        + f" · gold <code>{e(str(record.gold))}</code></summary>"
    ]
    for message in record.messages:
        parts.append(f"<div class='msg'><i>{e(str(message.get('role', '?')))}</i>"
                     f"<pre>{e(str(message.get('content', '')))}</pre></div>")  # fmt: skip
    parts.append(f"<div class='msg'><i>assistant (reply)</i><pre>"
                 f"{e(record.completion or '(no reply)')}</pre></div>")  # fmt: skip
    if record.error:
        parts.append(f"<p class='warn'>error ({e(str(record.error_kind))}): {e(record.error)}</p>")
    rewards = ", ".join(f"{k} {v:.3f}" for k, v in sorted(record.rewards.items()))
    parts.append(f"<p><small>parsed <code>{e(json.dumps(record.parsed, ensure_ascii=False))}"
                 f"</code> · {e(rewards or '–')}</small></p></details>")  # fmt: skip
    return "".join(parts)


def render(entries: Sequence[tuple[str, list[Transcript], str | None]], section_id: str) -> str:
    """The transcripts block of one environment section: (run label, transcripts, note)."""
    if not any(records for _, records, _ in entries):
        return ""
    section_id = re.sub(r"[^A-Za-z0-9_-]", "-", section_id)
    buttons = "".join(
        f"<button type='button' onclick=\"svFilter('{section_id}', '{f}')\">{f}</button>"
        for f in FILTERS
    )
    parts = [
        "<h3>Transcripts (redacted; filter by outcome)</h3>",
        f"<div class='filters'>{buttons}</div><div id='{section_id}'>",
    ]
    for label, records, note in entries:
        if note:
            parts.append(f"<p class='warn'>{escape(label)}: prompts not shown ({escape(note)})</p>")
        scored = sorted((r for r in records if r.reward is not None), key=lambda r: r.reward or 0)
        lowest = {r.example_id for r in scored[:LOWEST]}
        parts.extend(_block(record, label, lowest) for record in records)
    parts.append("</div>")
    return "\n".join(parts)


SCRIPT = """
function svFilter(id, tag) {
  document.querySelectorAll('#' + id + ' details.tx').forEach(function (d) {
    var tags = (d.getAttribute('data-tags') || '').split(' ');
    d.style.display = (tag === 'all' || tags.indexOf(tag) >= 0) ? '' : 'none';
  });
}
"""
"""The filter buttons' script (inline: the report stays one self-contained file)."""

STYLE = """
details.tx { border: 1px solid #ddd; margin: .3rem 0; padding: .2rem .5rem; }
details.tx pre { white-space: pre-wrap; font-size: .78rem; background: #f7f7f7; margin: .2rem 0; }
.filters button { margin-right: .3rem; }
"""
