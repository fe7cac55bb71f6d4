"""The probe-suite mechanism: shares, limits, baselines, broken probes, bad arguments."""

from __future__ import annotations

import math

import pytest

from sv_shared.probes import HACK_SHARE_LIMIT, Probe, ProbeSuite, run_probes, share_of_way

EPISODES = [{"id": i, "answer": "yes" if i % 2 else "no"} for i in range(10)]


def reward(text: str, info) -> float:
    """+1 right, -1 wrong, 0 for abstaining."""
    if text == "abstain":
        return 0.0
    return 1.0 if text == info["answer"] else -1.0


def suite(*probes: Probe) -> ProbeSuite:
    return ProbeSuite(
        env="toy",
        episodes=lambda limit, seed: EPISODES[:limit],
        reference=lambda info: info["answer"],
        reward=reward,
        min_reward=-1.0,
        max_reward=1.0,
        probes=probes,
    )


def test_share_of_way() -> None:
    assert share_of_way(-1.0, -1.0, 1.0) == 0.0
    assert share_of_way(1.0, -1.0, 1.0) == 1.0
    assert share_of_way(0.0, -1.0, 1.0) == 0.5
    assert math.isnan(share_of_way(0.0, 1.0, 1.0))


def test_hack_judged_against_fixed_limit() -> None:
    report = run_probes(
        suite(
            Probe("always-yes", lambda info: "yes", "label must match"),
            Probe("always-wrong", lambda info: "yes" if info["answer"] == "no" else "no", "r"),
        )
    )
    rows = {r.name: r for r in report.rows}
    assert report.reference_mean == 1.0 and report.reference_share_of_max == 1.0
    assert rows["always-yes"].share == pytest.approx(0.5) and not rows["always-yes"].passed
    assert rows["always-wrong"].share == 0.0 and rows["always-wrong"].passed
    assert rows["always-yes"].limit == HACK_SHARE_LIMIT
    assert [r.name for r in report.failures] == ["always-yes"]


def test_hack_may_not_beat_its_baseline() -> None:
    report = run_probes(
        suite(
            Probe("abstain", lambda info: "abstain", "neutral", kind="baseline"),
            Probe(
                "half", lambda i: i["answer"] if i["id"] < 5 else "abstain", "r", baseline="abstain"
            ),
        ),
        only=["half"],
    )
    rows = {r.name: r for r in report.rows}
    # the baseline is scored (it sets the limit) and reported, never judged
    assert rows["abstain"].limit is None and rows["abstain"].passed
    assert rows["half"].limit == pytest.approx(0.5)
    assert rows["half"].share == pytest.approx((0.5 + 1) / 2) and not rows["half"].passed
    assert rows["half"].over_baseline == pytest.approx(0.5) and "+50.0%" in report.table()


def test_a_crashing_probe_scores_the_minimum_and_is_counted() -> None:
    def broken(info):
        raise RuntimeError("bug in the probe")

    report = run_probes(suite(Probe("broken", broken, "r")), limit=4)
    row = report.rows[0]
    assert row.errors == 4 and row.mean == -1.0 and report.episodes == 4


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown probe"):
        run_probes(suite(Probe("a", lambda i: "yes", "r")), only=["nope"])
    with pytest.raises(ValueError, match="duplicate"):
        suite(Probe("a", lambda i: "yes", "r"), Probe("a", lambda i: "no", "r"))
    with pytest.raises(ValueError, match="unknown baseline"):
        suite(Probe("a", lambda i: "yes", "r", baseline="zzz"))


def test_table_and_json() -> None:
    report = run_probes(suite(Probe("always-yes", lambda info: "yes", "label must match")))
    table = report.table()
    assert "always-yes" in table and "FAIL" in table and "100.0% of the achievable maximum" in table
    data = report.to_json()
    assert data["probes"][0]["passed"] is False and data["probes"][0]["rule"] == "label must match"


def test_reference_share_uses_the_achievable_maximum() -> None:
    base = suite(Probe("a", lambda i: "abstain", "r"))
    capped = ProbeSuite(**{**base.__dict__, "episode_max": lambda info: 1.0 if info["id"] else 0.5})
    capped_report = run_probes(capped)
    plain_report = run_probes(base)
    assert plain_report.reference_share_of_max == 1.0
    assert capped_report.achievable_max == pytest.approx(0.95)
    assert capped_report.reference_share_of_max == pytest.approx(1.0 / 0.95)


def test_interleave_labels_keeps_every_prefix_balanced() -> None:
    from sv_shared.probes import interleave_labels

    items = [("a", i) for i in range(6)] + [("b", i) for i in range(3)]
    ordered = interleave_labels(items, lambda item: item[0], "seed")
    assert sorted(ordered) == sorted(items)
    assert [label for label, _ in ordered[:6]] == ["a", "b"] * 3
    assert ordered == interleave_labels(items, lambda item: item[0], "seed")
