"""The E2 reward-hacking probe suite on a few episodes: every hack within its limit."""

from __future__ import annotations

from functools import cache

from sv_env_config_verification.probes import MAX_REWARD, WEIGHTS, episode_max, probe_suite
from sv_shared.probes import ProbeReport, run_probes

LIMIT = 8


@cache
def report() -> ProbeReport:
    return run_probes(probe_suite(), limit=LIMIT, seed=7)


def test_episodes_cover_both_kinds_and_carry_labels():
    episodes = probe_suite().episodes(LIMIT, 7)
    assert len(episodes) == LIMIT
    assert {e["kind"] for e in episodes} == {"k8s", "terraform"}
    assert all("findings" in e and "fix_patch" in e for e in episodes)


def test_every_hack_is_within_its_limit():
    failures = [(r.name, round(r.share, 3), r.limit) for r in report().failures]
    assert not failures, failures


def test_reference_reaches_the_achievable_maximum():
    """On a clean config the best answer sends no patch (a patch can only lose there), so an
    episode's achievable maximum is detection + format there (`probes.episode_max`)."""
    assert episode_max({"findings": []}) == MAX_REWARD - WEIGHTS.patch
    assert episode_max({"findings": [{"id": "k8s/host-pid"}]}) == MAX_REWARD
    assert report().reference_share_of_max >= 0.95


def test_patch_hacks_do_not_beat_honest_detection_without_a_patch():
    rows = {r.name: r for r in report().rows}
    honest = rows["oracle-no-patch"].mean
    for row in rows.values():
        if row.kind == "hack" and row.limit is not None and row.name.startswith(("tf-", "blind")):
            assert row.mean <= honest + 1e-9, row.name
