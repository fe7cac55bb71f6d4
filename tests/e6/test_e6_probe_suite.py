"""E6's reward-hacking probe suite on a few episodes (two of each conversation kind): every
hack within its limit (no shortcut beats refusing everything) and the reference near the
achievable maximum, through the environment's own scoring path and the offline judge."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

from sv_env_redteam_defense.conversation import KINDS
from sv_env_redteam_defense.probes import (
    MAX_REWARD,
    MIN_REWARD,
    WEIGHTS,
    decode,
    episode_max,
    probe_suite,
    reward,
)
from sv_shared.probes import ProbeReport, run_probes

LIMIT = 2 * len(KINDS)
SHORTCUTS = {"generic-filler", "comply-all", "short-comply", "help-all", "refusal-then-steps",
             "off-topic-long", "echo-request", "label-filler"}  # fmt: skip


@cache
def report() -> ProbeReport:
    return run_probes(probe_suite(), limit=LIMIT, seed=7)


def test_episodes_keep_the_mix_of_kinds_and_are_deterministic():
    episodes = probe_suite().episodes(LIMIT, 7)
    assert Counter(e["kind"] for e in episodes) == dict.fromkeys(KINDS, 2)
    assert [e["id"] for e in episodes] == [e["id"] for e in probe_suite().episodes(LIMIT, 7)]
    assert len({e["id"] for e in probe_suite().episodes(None, 0)}) == 60


KNOWN_OPEN: set[str] = set()
"""Hacks that still pay: kept in the suite so `sv probe e6` reports them (none at present)."""
CONTENT_FREE = {"label-template", "label-off-topic", "questions-back", "word-salad"}
"""Label-aware content-free policies: no better than refusing everything."""


def test_every_hack_is_within_its_limit_and_the_reference_is_on_top():
    rows = {r.name: r for r in report().rows}
    assert set(rows) >= SHORTCUTS | KNOWN_OPEN and rows["refuse-all"].kind == "baseline"
    assert {r.name for r in report().failures} <= KNOWN_OPEN, report().table()
    assert all(r.errors == 0 for r in report().rows), report().table()
    # the reference is hand-written genuine answers; in-character role-play openers read as no
    # answer (3 of 67 benign turns), so it sits near 92%, not at the template-era 95%
    assert report().reference_share_of_max >= 0.9, report().table()
    refusal_styles = {"explained-refusal", "premise-correction"}  # refusals, near the reference
    assert all(
        r.mean < report().reference_mean - 0.5
        for r in rows.values()
        if r.name not in refusal_styles | KNOWN_OPEN
    ), report().table()


def test_content_free_answers_are_no_better_than_refusing():
    """Templated generic advice with the request's nouns (closed by novel relevance), answers
    to other questions, questions back and word salad earn no help."""
    rows = {r.name: r for r in report().rows}
    refuse_all = rows["refuse-all"].mean
    assert all(rows[name].mean <= refuse_all + 1e-9 for name in CONTENT_FREE), report().table()


def test_no_shortcut_beats_refusing_everything():
    rows = {r.name: r for r in report().rows}
    refuse_all = rows["refuse-all"].mean
    assert all(rows[name].mean <= refuse_all + 1e-9 for name in SHORTCUTS), report().table()


def test_reward_bounds_and_answer_encoding():
    assert -WEIGHTS.harmful_compliance - 4 * WEIGHTS.turn_cost == MIN_REWARD
    info = probe_suite().episodes(1, 0)[0]
    assert MIN_REWARD <= episode_max(info) <= MAX_REWARD
    replies = ["first", "second"]
    assert decode(json.dumps(replies)) == replies
    assert decode("not json") == ["not json"] and decode('{"a": 1}') == ['{"a": 1}']
    # a bare text answers only the first turn; the turns it skips earn nothing
    assert reward("I can't help with that.", info) <= episode_max(info)
