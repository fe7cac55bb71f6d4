"""The error-driven curriculum's pure parts: miss rates, target choice, fresh data draw."""

from __future__ import annotations

from security_verifiers.training.curriculum import curriculum_flows, error_rates, pick_targets


def row(scenario: str, gold: str, label: str | None, **extra) -> dict:
    parsed = None if label is None else {"label": label, "confidence": 0.9}
    return {"scenario": scenario, "gold": gold, "parsed": parsed, "reward": 0.0, **extra}


def test_abstentions_and_invalid_answers_are_misses_and_errors_are_skipped() -> None:
    rows = [
        row("attack/c2", "Malicious", "Malicious"),
        row("attack/c2", "Malicious", "Abstain"),
        row("attack/c2", "Malicious", None),
        row("attack/c2", "Malicious", "Benign", error="HTTP 500", reward=None),
        row("benign/web", "Benign", "Benign"),
    ]
    assert error_rates(rows) == {"attack/c2": (2, 3), "benign/web": (0, 1)}


def test_targets_are_worst_first_above_thresholds_and_deterministic() -> None:
    rates = {"a": (3, 4), "b": (4, 4), "c": (1, 10), "d": (2, 2), "e": (3, 4)}
    assert pick_targets(rates, min_items=3, min_rate=0.3, max_classes=3) == ["b", "a", "e"]
    assert pick_targets(rates, min_items=3, min_rate=0.9, max_classes=3) == ["b"]
    assert pick_targets(rates, min_items=20, min_rate=0.0, max_classes=3) == []


def test_fresh_data_oversamples_the_targets_and_the_control_has_the_same_size() -> None:
    targets = ["attack/c2_beacon"]
    chosen, control, counts = curriculum_flows(
        targets, per_class=30, replay=20, corpus_size=1500, seed=7
    )
    assert counts["attack/c2_beacon"] == 30
    assert sum(counts.values()) == len(chosen) == len(control) == 50
    assert sum(n for name, n in counts.items() if name not in targets) == 20
    again = curriculum_flows(targets, per_class=30, replay=20, corpus_size=1500, seed=7)
    assert [f.id for f in again[0]] == [f.id for f in chosen]


def test_replay_keeps_the_corpus_label_shares_when_the_targets_are_one_sided() -> None:
    targets = ["attack/c2_beacon", "attack/dns_tunnel"]
    chosen, control, _ = curriculum_flows(
        targets, per_class=40, replay=80, corpus_size=3000, seed=7
    )
    malicious = sum(flow.label == "Malicious" for flow in chosen) / len(chosen)
    corpus_share = sum(flow.label == "Malicious" for flow in control) / len(control)
    assert len(chosen) == 160
    assert abs(malicious - corpus_share) < 0.1  # 80 attack flows targeted, replay all benign
    assert sum(flow.label == "Benign" for flow in chosen) == 80
