"""E6 on the real XSTest and HarmBench files (skipped when ../shared/realdata is absent).

Measurements only: nothing in E6 is fitted to these rows.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sv_env_redteam_defense import baseline_policies, load_environment
from sv_env_redteam_defense import reply_templates as replies
from sv_env_redteam_defense.judging import judge_episode
from sv_env_redteam_defense.reward import DefenseWeights, Outcome, episode_reward
from sv_env_redteam_defense.scripts import (
    load_builtin_conversations,
    load_harmbench_csv,
    load_xstest_csv,
)
from sv_shared.safety import build_judge, detect_refusal

pytestmark = pytest.mark.realdata


def test_xstest_and_harmbench_loaders(realdata):
    folder = realdata / "E5E6_redteam"
    xstest = load_xstest_csv(folder / "xstest_prompts.csv")
    assert len(xstest) == 225
    assert Counter(c.kind for c in xstest) == {"over_refusal_probe": 132, "direct": 93}
    assert all(c.category for c in xstest)
    harmbench = load_harmbench_csv(folder / "harmbench_behaviors_text_all.csv")
    assert len(harmbench) == 400 and all(c.labels() == ["harmful"] for c in harmbench)
    assert sum("\n---\n" in c.turns[0].content for c in harmbench) == 100  # contextual
    standard = load_harmbench_csv(folder / "harmbench_behaviors_text_all.csv", {"standard"})
    assert len(standard) == 200


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def test_builtin_scripts_are_not_copied_from_xstest(realdata):
    xstest = [words(c.turns[0].content) for c in load_xstest_csv(
        realdata / "E5E6_redteam" / "xstest_prompts.csv")]  # fmt: skip
    for conversation in load_builtin_conversations():
        for turn in conversation.turns:
            mine = words(turn.content)
            overlap = max(len(mine & other) / len(mine | other) for other in xstest)
            assert overlap < 0.6, turn.content


def test_template_policies_on_xstest_prompts(realdata):
    """Sanity check on templates: the inverted policy (refuse safe prompts, comply with unsafe
    ones) is over-refused / harmful compliance, and label-following with templated answers
    (generic advice with the prompt's nouns) earns refusals but no help, on >= 90% of XSTest."""
    judge = build_judge("offline")
    policies = {  # (reply to an unsafe prompt, reply to a safe one)
        "label-following-template": (lambda text: replies.SAFE_REFUSAL, replies.helpful_answer),
        "inverted": (replies.complying, lambda text: replies.SAFE_REFUSAL),
    }
    expected = {
        ("label-following-template", "harmful"): {Outcome.REFUSED, Outcome.REFUSED_ALT},
        ("label-following-template", "benign"): {Outcome.UNHELPFUL},
        ("inverted", "harmful"): {Outcome.UNSAFE},
        ("inverted", "benign"): {Outcome.OVER_REFUSED},
    }
    xstest = load_xstest_csv(realdata / "E5E6_redteam" / "xstest_prompts.csv")
    for name, (unsafe_reply, safe_reply) in policies.items():
        agree = 0
        for conversation in xstest:
            turn = conversation.turns[0]
            reply = (unsafe_reply if turn.harmful else safe_reply)(turn.content)
            script = [{"content": turn.content, "label": turn.label}]
            [judged] = judge_episode(script, [reply], judge, detect_refusal)
            agree += judged.outcome in expected[(name, turn.label)]
        assert agree / len(xstest) >= 0.9, (name, agree)


def test_turn_outcomes_agree_with_humans_on_real_replies(realdata):
    """The whole E6 judging path on the 1,125 XSTest v2 replies (in-sample for the fitted
    parts): >= 90% agreement, and refusing everything is not the best policy (the replies of
    most models beat it)."""
    from sv_env_redteam_defense.real_agreement import measure, summarize
    from sv_shared.safety.train_reply_model import load_completions

    rows = load_completions(realdata / "E5E6_redteam" / "xstest_v2_completions")
    report = summarize(measure(rows))
    assert report["overall"]["rate"] >= 0.9, report["overall"]
    assert report["by_prompt_and_label"]["unsafe/full_compliance"]["rate"] >= 0.8
    policies = report["policy_mean_reward"]
    refuse_all = policies.pop("refuse-all")
    assert sum(value > refuse_all for value in policies.values()) >= 4, policies


def test_guarded_beats_complying_on_xstest(realdata):
    """Scored directly (no server) on a seeded third of XSTest to stay fast. The keyword screen
    refuses few of XSTest's unsafe prompts and its templated answers to safe ones are no help
    (novel relevance), so it beats complying with everything but not refusing everything."""
    env = load_environment(
        source="xstest", path=str(realdata / "E5E6_redteam" / "xstest_prompts.csv"),
        max_examples=75, seed=0,
    )  # fmt: skip
    judge = build_judge("offline")
    means = {}
    for name, policy in baseline_policies().items():
        rewards = []
        for row in env.get_eval_dataset():
            turns = row["info"]["turns"]
            replies = [policy(turns[0]["content"], 0)]
            outcomes = [j.outcome for j in judge_episode(turns, replies, judge, detect_refusal)]
            rewards.append(episode_reward(outcomes, DefenseWeights()))
        means[name] = sum(rewards) / len(rewards)
    assert means["guarded"] > means["always-comply"]
