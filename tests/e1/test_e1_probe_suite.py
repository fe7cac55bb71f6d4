"""E1's reward-hacking probe suite on a few episodes: no hack beats abstaining or the 10% line,
and the reference earns the maximum, through the rubric's own components."""

from __future__ import annotations

from sv_env_network_logs.probes import probe_suite
from sv_shared.probes import run_probes


def test_probe_suite_holds_on_a_few_episodes():
    suite = probe_suite()
    names = {p.name for p in suite.probes}
    assert {"abstain-always", "always-malicious", "always-benign", "both-labels"} <= names
    assert all(p.rule for p in suite.probes)
    report = run_probes(suite, limit=12, seed=7)
    assert report.episodes == 12
    assert report.reference_share_of_max >= 0.95, report.table()
    hacks = [row for row in report.rows if row.kind == "hack"]
    assert hacks and not report.failures, report.table()
    assert all(row.errors == 0 for row in report.rows), report.table()


def test_episodes_are_deterministic_and_balanced():
    suite = probe_suite()
    first = suite.episodes(8, 3)
    assert [e["id"] for e in first] == [e["id"] for e in suite.episodes(8, 3)]
    golds = [e["gold"] for e in first]
    assert golds.count("Benign") == golds.count("Malicious") == 4
