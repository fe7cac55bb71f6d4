"""Judge cards: which judge produced E5/E6 numbers and what its measured agreement is."""

from __future__ import annotations

import json

import pytest

from sv_shared.safety import judge_card as cards

REPORT = {
    "judge": "offline:test-version",
    "styles": ["helpful_prose", "refusal"],
    "measurement": {
        "xstest": {
            "file": "/somewhere/xstest_prompts.csv",
            "requests": {"accuracy": {"value": 0.75}},
            "styles": {
                "n_prompts": 225,
                "overall": {
                    "accuracy": {"value": 0.91},
                    "recall": {"value": 0.5},
                    "precision": {"value": 0.8},
                    "confusion": {"tp": 1, "fp": 2, "fn": 3, "tn": 4},
                },
                "false_unsafe_helpful_safe": {"value": 0.1},
            },
        }
    },
}


def test_card_keeps_headline_numbers_only() -> None:
    card = cards.card_from_report(REPORT)
    xs = card["measured_on"]["xstest"]
    assert card["judge"] == "offline:test-version"
    assert xs["file"] == "xstest_prompts.csv" and xs["prompts"] == 225
    assert xs["reply_accuracy"] == 0.91 and xs["false_unsafe_on_helpful_safe"] == 0.1
    assert xs["confusion"] == {"tp": 1, "fp": 2, "fn": 3, "tn": 4}


def test_card_counts_only_for_the_version_it_measured(monkeypatch) -> None:
    card = cards.card_from_report(REPORT)
    monkeypatch.setattr(cards, "shipped_card", lambda: card)
    monkeypatch.setattr(cards, "judge_version_name", lambda: "offline:test-version")
    current = cards.judge_card("offline")
    assert current["measured_agreement"]["xstest"]["reply_accuracy"] == 0.91
    line = cards.summary_line(current)
    assert "xstest reply accuracy 0.910" in line and "llama-guard" in line
    monkeypatch.setattr(cards, "judge_version_name", lambda: "offline:newer")
    stale = cards.judge_card("offline")
    assert stale["measured_agreement"] is None and "re-measure" in stale["note"]
    endpoint = cards.judge_card("llama-guard@http://127.0.0.1:9/v1")
    assert endpoint["measured_agreement"] is None and "no shipped measurement" in endpoint["note"]


def test_shipped_card_is_for_the_current_offline_judge() -> None:
    shipped = cards.shipped_card()
    assert shipped is not None, f"{cards.CARD_PATH} is missing"
    assert shipped["judge"] == cards.judge_version_name(), (
        "the offline judge changed since its agreement was measured; re-measure and run "
        "`python -m sv_shared.safety.judge_card REPORT.json` (see judge_card.py)"
    )


def test_cli_refuses_a_report_of_another_version(tmp_path, capsys) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(REPORT))
    assert cards.main([str(path)]) == 2
    assert "current judge" in capsys.readouterr().err
    assert cards.main([]) == 2


@pytest.mark.parametrize("env", ["redteam-attack", "redteam-defense"])
def test_runs_record_the_judge_and_its_card(env) -> None:
    import verifiers as vf

    extra = {"target_base_url": "http://127.0.0.1:9/v1", "target_model": "unused"}
    kwargs = extra if env == "redteam-attack" else {}
    loaded = vf.load_environment(f"sv-env-{env}", max_examples=2, **kwargs)
    config = loaded.sv_reward_config
    assert config["judge"] == "offline" and config["judge_card"]["judge"] == "offline"
