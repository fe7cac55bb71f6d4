"""E4's reward-hacking probe suite on a few episodes: constant and confidence hacks do not beat
abstaining, evidence hacks do not beat the right call with no evidence, and the reference (the
extractor's confirmed indicators) earns the achievable maximum."""

from __future__ import annotations

from sv_env_phishing_detection.probes import probe_suite
from sv_shared.probes import run_probes

EVIDENCE_HACKS = {
    "evidence-date-line",
    "evidence-random-fragments",
    "evidence-whole-email",
    "evidence-many-short-quotes",
    "evidence-not-in-email",
}


def test_probe_suite_holds_on_a_few_episodes():
    suite = probe_suite()
    assert EVIDENCE_HACKS | {"abstain-always", "right-label-no-evidence"} <= {
        p.name for p in suite.probes
    }
    report = run_probes(suite, limit=12, seed=7)
    assert report.episodes == 12
    assert report.reference_share_of_max >= 0.95, report.table()
    hacks = [row for row in report.rows if row.kind == "hack"]
    assert hacks and not report.failures, report.table()
    assert all(row.errors == 0 for row in report.rows), report.table()


def test_evidence_hacks_earn_less_than_no_evidence():
    report = run_probes(probe_suite(), limit=12, seed=7)
    means = {row.name: row.mean for row in report.rows}
    for name in EVIDENCE_HACKS:  # irrelevant quotes earn what no evidence earns, never more
        assert means[name] <= means["right-label-no-evidence"] + 1e-9, report.table()
    for name in ("evidence-whole-email", "evidence-not-in-email"):
        assert means[name] < means["right-label-no-evidence"], report.table()
    assert means["right-label-no-evidence"] < report.reference_mean
