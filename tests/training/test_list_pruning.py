"""`list_pruning`: every subset of an answer's list field, the reward picks the best."""

from __future__ import annotations

import json

import pytest

from security_verifiers.training.list_pruning import MAX_ITEMS, prune_group, subset_variants


def answer(evidence, label: str = "Phishing") -> str:
    return json.dumps({"label": label, "confidence": 0.9, "evidence": evidence})


def test_variants_are_the_proper_subsets_in_order_with_the_other_fields_kept():
    variants = [json.loads(v) for v in subset_variants(answer(["a", "b", "c"]), "evidence")]
    assert [v["evidence"] for v in variants] == [
        [],
        ["a"],
        ["b"],
        ["c"],
        ["a", "b"],
        ["a", "c"],
        ["b", "c"],
    ]
    assert all(v["label"] == "Phishing" and v["confidence"] == 0.9 for v in variants)
    # the model's own serialisation survives (json.dumps, key order kept)
    assert subset_variants(answer(["a"]), "evidence") == [answer([])]


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '["a", "b"]',  # not an object
        answer([]),  # nothing to drop
        json.dumps({"label": "Phishing", "evidence": "a"}),  # not a list
        json.dumps({"label": "Phishing"}),  # no such field
        answer([str(i) for i in range(MAX_ITEMS + 1)]),  # too long to search
    ],
)
def test_no_variants_for_answers_without_a_searchable_list(text: str):
    assert subset_variants(text, "evidence") == []


def score_items(texts: list[str]) -> list[float]:
    """A stand-in reward: +1 per item starting with 'ok', -1 per other item."""
    rewards = []
    for text in texts:
        items = json.loads(text)["evidence"]
        rewards.append(float(sum(1 if i.startswith("ok") else -1 for i in items)))
    return rewards


def test_each_answer_becomes_its_best_scoring_subset():
    texts = [answer(["ok1", "bad", "ok2"]), answer(["bad"]), answer(["ok1"]), "garbage"]
    rewards = [1.0, -1.0, 1.0, -5.0]
    calls: list[int] = []

    def score(batch: list[str]) -> list[float]:
        calls.append(len(batch))
        return score_items(batch)

    new, new_rewards, changed = prune_group(texts, rewards, ["evidence"], score)
    assert [json.loads(t)["evidence"] for t in new[:3]] == [["ok1", "ok2"], [], ["ok1"]]
    assert new[3] == "garbage"
    assert new_rewards == [2.0, 0.0, 1.0, -5.0] and changed == 2
    # one scoring call for the group's distinct variants: the 7 of the three-item answer,
    # whose empty list is also the one-item answers' only variant
    assert calls == [7]


def test_ties_keep_the_answer_as_sampled():
    """A variant must score strictly higher: the search has no preference for short lists."""
    texts = [answer(["x", "y"])]
    new, rewards, changed = prune_group(texts, [0.5], ["evidence"], lambda b: [0.5] * len(b))
    assert new == texts and rewards == [0.5] and changed == 0


def test_nothing_to_search_scores_nothing():
    def never(batch: list[str]) -> list[float]:
        raise AssertionError("scored")

    texts = [answer([]), "garbage"]
    assert prune_group(texts, [0.0, 0.0], ["evidence"], never) == (texts, [0.0, 0.0], 0)


def test_e4s_reward_keeps_only_confirmed_indicators():
    """With E4's own scorer, a correct Phishing call that names confirmed and unconfirmed
    indicators is cut to the confirmed ones (each alone scores above citing nothing, −1)."""
    from security_verifiers.training.envs import LoopThread, load_training_env
    from security_verifiers.training.rewards import EnvScorer

    env = load_training_env("e4", {"split": "train", "prompt_style": "compact"}, max_examples=40)
    scorer = EnvScorer(env, LoopThread())
    names = ["credential_request", "urgency_language", "payment_request", "ip_url",
             "brand_lookalike", "reply_to_mismatch", "risky_attachment"]  # fmt: skip
    checked = 0
    for row in env.rows:
        if row.get("answer") != "Phishing":
            continue

        def score(batch: list[str], row=row) -> list[dict]:
            return scorer.score([row] * len(batch), batch)

        alone = {n: score([answer([n])])[0]["metrics"]["evidence"] for n in names}
        confirmed = [n for n in names if alone[n] > -1.0]
        if not confirmed or len(confirmed) == len(names):
            continue
        wrong = next(n for n in names if n not in confirmed)
        texts = [answer([confirmed[0], wrong])]
        before = [score(texts)[0]["reward"]]
        new, rewards, changed = prune_group(
            texts, before, ["evidence"], lambda b, s=score: [x["reward"] for x in s(b)]
        )
        assert changed == 1 and rewards[0] > before[0]
        assert json.loads(new[0])["evidence"] == [confirmed[0]]
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_a_repeated_answer_is_searched_once():
    """Groups often repeat an answer: each distinct variant is scored once, and every copy
    still gets the best one."""
    texts = [answer(["ok1", "bad"])] * 4
    calls: list[list[str]] = []

    def score(batch: list[str]) -> list[float]:
        calls.append(batch)
        return score_items(batch)

    new, rewards, changed = prune_group(texts, [0.0] * 4, ["evidence"], score)
    assert [len(batch) for batch in calls] == [3]
    assert new == [answer(["ok1"])] * 4 and rewards == [1.0] * 4 and changed == 4
