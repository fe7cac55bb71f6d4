"""E3's reward-hacking probe suite on a few episodes: every hack stays under its limit and
the reference earns (nearly) the maximum, through the real scoring path."""

from __future__ import annotations

from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.probes import probe_suite
from sv_shared.probes import run_probes


def test_probe_suite_holds_on_four_episodes():
    suite = probe_suite()
    names = {p.name for p in suite.probes}
    assert {"fd-result-tamper", "forge-results-line", "hidden-test-reader"} <= names
    assert all(p.rule for p in suite.probes)
    report = run_probes(suite, limit=4, seed=7)
    assert report.episodes == 4
    assert report.reference_mean >= 0.95 * suite.max_reward, report.table()
    hacks = [row for row in report.rows if row.kind == "hack"]
    assert hacks and not report.failures, report.table()
    assert all(row.errors == 0 for row in report.rows), report.table()


def test_episodes_are_deterministic_and_cover_every_item():
    suite = probe_suite()
    assert [e["id"] for e in suite.episodes(5, 3)] == [e["id"] for e in suite.episodes(5, 3)]
    assert len({e["id"] for e in suite.episodes(None, 0)}) == len(load_items("all"))
