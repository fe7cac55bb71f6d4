"""Cross-fitted gold confidences: out-of-fold probabilities from the training split only."""

from __future__ import annotations

import pytest

from security_verifiers.errors import UserError
from security_verifiers.training.cross_fit import out_of_fold_probabilities


def corpus() -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for i in range(30):
        texts.append(f"urgent verify your password now at login page {i}")
        labels.append("Phishing")
        texts.append(f"minutes of the budget meeting attached for review {i}")
        labels.append("Legitimate")
    for i in range(10):  # ten look-alike mails that carry either label: nothing tells them apart
        texts.append("please see the note below")
        labels.append("Phishing" if i % 2 else "Legitimate")
    return texts, labels


def test_clear_items_get_high_probability_and_look_alikes_about_even() -> None:
    texts, labels = corpus()
    probabilities = out_of_fold_probabilities(texts, labels, seed=0)
    gold = [p[label] for p, label in zip(probabilities, labels, strict=True)]
    assert all(abs(sum(p.values()) - 1.0) < 1e-9 for p in probabilities)
    assert min(gold[:60]) > 0.8
    assert all(0.2 < g < 0.8 for g in gold[60:])


def test_too_few_items_of_a_label_is_a_user_error() -> None:
    with pytest.raises(UserError, match="cross_fit needs >= 5"):
        out_of_fold_probabilities(["a b", "c d", "a b c"], ["x", "y", "x"])


class StubEnv:
    """What `calibrate_rows` reads of a training environment: rows and the payoffs."""

    def __init__(self, texts: list[str], labels: list[str]) -> None:
        self.rows = [
            {"prompt": [{"role": "user", "content": t}], "answer": a, "info": {"id": str(i)}}
            for i, (t, a) in enumerate(zip(texts, labels, strict=True))
        ]

    def reward_config(self) -> dict:
        return {"abstention_thresholds": {"Phishing": 0.5, "Legitimate": 2 / 3}}


def test_cross_fit_calibration_abstains_on_items_the_text_cannot_place() -> None:
    from collections import Counter

    from security_verifiers.training.sft_data import calibrate_rows

    texts, labels = corpus()
    env = StubEnv(texts, labels)
    stats: Counter = Counter()
    rows = calibrate_rows(env.rows, env, 0.9, stats, method="cross_fit")  # type: ignore[arg-type]
    assert {r["_sv_label"] for r in rows[:60]} == {"Phishing", "Legitimate"}
    assert all(r["_sv_confidence"] <= 0.9 for r in rows)
    look_alikes = [r["_sv_label"] for r in rows[60:]]
    assert look_alikes.count("Abstain") >= 5  # Legitimate needs p >= 2/3: the even ones abstain
    assert stats["calibrated_abstain"] == sum(r["_sv_label"] == "Abstain" for r in rows)


def templated_corpus() -> tuple[list[str], list[str], list[str]]:
    """Twelve templates of five mails each; a template's own word gives away its label, and
    no word is shared between templates of a label: only a sibling reveals the label."""
    texts, labels, groups = [], [], []
    for t in range(12):
        label = "Phishing" if t % 2 else "Legitimate"
        for i in range(5):
            texts.append(f"template{t}word message number{i} common")
            labels.append(label)
            groups.append(f"g{t}")
    return texts, labels, groups


def test_grouped_folds_never_let_a_sibling_give_the_label_away() -> None:
    texts, labels, groups = templated_corpus()
    plain = out_of_fold_probabilities(texts, labels, seed=0)
    grouped = out_of_fold_probabilities(texts, labels, seed=0, groups=groups)
    gold = lambda ps: [p[label] for p, label in zip(ps, labels, strict=True)]  # noqa: E731
    # a sibling in the training folds names the template; a new template leaves only the
    # words every mail shares, so the classifier can do no better than a coin
    assert sum(gold(plain)) / len(labels) > 0.7 and min(gold(plain)) > 0.5
    assert max(gold(grouped)) < 0.6


def test_grouped_folds_need_enough_groups_of_each_label() -> None:
    texts, labels, groups = templated_corpus()
    with pytest.raises(UserError, match="cross_fit_groups needs >= 5 groups"):
        out_of_fold_probabilities(texts, labels, groups=[g if g < "g2" else "g0"
                                                         for g in groups])  # fmt: skip
