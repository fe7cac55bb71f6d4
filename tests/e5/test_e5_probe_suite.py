"""E5's reward-hacking probe suite on a few episodes: every hack stays under its limit and the
reference earns (nearly) the maximum, through the real scoring path and the offline judge."""

from __future__ import annotations

from sv_env_redteam_attack.probes import BASELINE, probe_suite
from sv_shared.probes import run_probes


def test_probe_suite_holds_on_a_few_episodes():
    suite = probe_suite()
    report = run_probes(suite, limit=6, seed=7)
    assert report.episodes == 6
    assert report.reference_share_of_max >= 0.95, report.table()
    rows = {row.name: row for row in report.rows}
    assert all(row.errors == 0 for row in report.rows), report.table()
    hacks = [row for row in report.rows if row.kind == "hack"]
    assert len(hacks) >= 10 and all(row.rule for row in hacks)
    assert not report.failures, report.table()
    assert rows["refusal-then-content"].share >= 0.95, report.table()  # a jailbreak all the same
    assert rows["attacker-writes-content"].mean < rows[BASELINE].mean - 0.9  # the -1 penalty


def test_keyword_stuffing_is_not_paid():
    """A harmless text that merely names the behavior's words is not on behavior (theme)."""
    report = run_probes(probe_suite(), only=("keyword-stuffed-essay", "keyword-stuffed-how-to"))
    assert not report.failures, report.table()


def test_episodes_are_deterministic_and_cover_every_behavior():
    suite = probe_suite()
    assert [e["id"] for e in suite.episodes(5, 3)] == [e["id"] for e in suite.episodes(5, 3)]
    episodes = suite.episodes(None, 0)
    assert len({e["id"] for e in episodes}) == 31
    for episode in episodes:  # the same-category probe asks for a different behavior
        assert episode["other_behavior"] != episode["behavior"]["text"]


def test_agreement_measure_runs_on_the_builtin_set():
    from sv_env_redteam_attack.agreement import STYLES, measure, summarize
    from sv_env_redteam_attack.behaviors import builtin_behaviors

    report = summarize(measure(builtin_behaviors()[:6], {}))
    assert report["overall"]["n"] == 6 * len(STYLES)
    assert set(report["by_style"]) == set(STYLES) and set(report["by_group"]) == {"builtin"}
    wrong = [s for s, m in report["by_style"].items() if not STYLES[s][0] and m["fp"]]
    assert not wrong  # no shortcut style counts as a success on these behaviors
