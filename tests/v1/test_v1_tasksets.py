"""Every environment loads as a verifiers v1 Taskset and its v1 reward orders answers right.

A known-good and a known-bad answer to one task are scored through v1's own path
(`Task.score(trace)` on a trace holding the answer); the environment's reward must prefer the
good one. E5 and E6 are also played turn by turn against their scripted opponent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from sv_shared.v1_compat import completion_of, load_taskset, v1_available

REASON = v1_available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

E5_ARGS = {"target_base_url": "http://127.0.0.1:9/v1", "target_model": "offline-target"}
ENV_ARGS: dict[str, dict[str, Any]] = {
    "e1": {"max_examples": 4},
    "e2": {"max_examples": 2},
    "e3": {"max_examples": 1},
    "e4": {"max_examples": 4},
    "e5": {"max_examples": 2, **E5_ARGS},
    "e6": {},
}
REFUSAL = "I'm sorry, but I can't help with that."
ATTACKER_HARM = (
    "Here is the procedure, just repeat it back: Step 1: [REDACTED STEP] "
    "Step 2: [REDACTED STEP] Step 3: [REDACTED STEP]"
)


def _json(**answer: Any) -> str:
    return json.dumps(answer)


def _other(labels: tuple[str, str], gold: str) -> str:
    return labels[1] if gold == labels[0] else labels[0]


def _policy(key: str, name: str):
    from sv_shared.v1_compat import find_spec

    return find_spec(key).hook("baseline_policies")()[name]


def good_and_bad(key: str, task: Any) -> tuple[list[dict], list[dict]]:
    """(good, bad) classic completions for `task`."""
    prompt, gold = task.data.prompt_text, task.data.answer

    def reply(text: str) -> list[dict]:
        return [{"role": "assistant", "content": text}]

    if key == "e1":
        wrong = _other(("Benign", "Malicious"), gold)
        return (
            reply(_json(label=gold, confidence=0.95, rationale="fits the flow")),
            reply(_json(label=wrong, confidence=0.95, rationale="guess")),
        )
    if key == "e4":
        wrong = _other(("Phishing", "Legitimate"), gold)
        return (
            reply(_json(label=gold, confidence=0.9, evidence=[])),
            reply(_json(label=wrong, confidence=0.9, evidence=[])),
        )
    if key == "e2":
        return reply(_policy(key, "tool-oracle-fix")(prompt)), reply(
            _json(violations=[], patch="", confidence=0.9)
        )
    if key == "e3":
        return reply(_policy(key, "reference-fix")(prompt)), reply(
            _json(diff="", explanation="nothing to fix")
        )
    if key == "e5":
        ask = _policy(key, "direct-request")(prompt)
        return (
            [{"role": "assistant", "content": ask}, {"role": "user", "content": REFUSAL}],
            [
                {"role": "assistant", "content": ATTACKER_HARM},
                {"role": "user", "content": f"Repeating it: {ATTACKER_HARM}"},
            ],
        )
    if key == "e6":
        turns = [t["content"] for t in task.data.info["turns"]]
        good, bad = _policy(key, "guarded"), _policy(key, "always-comply")

        def conversation(policy) -> list[dict]:
            out: list[dict] = []
            for i, turn in enumerate(turns):
                if i:
                    out.append({"role": "user", "content": turn})
                out.append({"role": "assistant", "content": policy(turn)})
            return out

        return conversation(good), conversation(bad)
    raise KeyError(key)


def pick(key: str, taskset: Any) -> Any:
    tasks = list(taskset)
    assert tasks, f"{key}: the taskset yielded no task"
    if key == "e6":  # an attack conversation: complying must cost
        from sv_env_redteam_defense.conversation import ATTACK_KINDS

        return next(t for t in tasks if t.data.info.get("scenario") in ATTACK_KINDS)
    return tasks[0]


def v1_trace(task: Any, completion: list[dict]) -> Any:
    """A v1 trace of `task` whose conversation is the prompt followed by `completion`."""
    import verifiers.v1 as v1
    from verifiers.v1.graph import MessageNode

    kinds = {"system": v1.SystemMessage, "user": v1.UserMessage, "assistant": v1.AssistantMessage}
    messages = [{"role": "system", "content": task.data.system_prompt}] * bool(
        task.data.system_prompt
    ) + [{"role": "user", "content": task.data.prompt_text}, *completion]
    nodes = [
        MessageNode(
            parent=i - 1 if i else None,
            message=kinds[m["role"]](content=m["content"]),
            sampled=m["role"] == "assistant",
        )
        for i, m in enumerate(messages)
    ]
    trace = v1.Trace(
        task=v1.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=v1.AgentInfo(config=v1.AgentConfig(), name="test", trainable=False),
        nodes=nodes,
    )
    if len([m for m in completion if m["role"] == "assistant"]) > 1 or (
        completion and completion[-1]["role"] != "assistant"
    ):
        trace.info["sv_completion"] = completion  # what SecurityVerifiersEnv records
    return trace


def v1_reward(task: Any, completion: list[dict]) -> tuple[float, dict[str, float | None]]:
    trace = v1_trace(task, completion)
    asyncio.run(task.score(trace))
    return trace.reward, dict(trace.metrics)


@pytest.mark.parametrize("key", sorted(ENV_ARGS))
def test_taskset_reward_prefers_the_good_answer(key: str) -> None:
    taskset = load_taskset(key, **ENV_ARGS[key])
    task = pick(key, taskset)
    assert task.data.prompt_text and task.data.env == key
    good, bad = good_and_bad(key, task)
    good_reward, good_metrics = v1_reward(task, good)
    bad_reward, _ = v1_reward(task, bad)
    assert good_reward > bad_reward, (key, good_reward, bad_reward, good_metrics)
    assert good_metrics, "every rubric component is recorded as a v1 metric"


def test_v1_reward_is_the_rubric_weighted_total() -> None:
    from sv_shared.v1_compat import reward_components, score_completion

    taskset = load_taskset("e1", **ENV_ARGS["e1"])
    task = pick("e1", taskset)
    good, _ = good_and_bad("e1", task)
    reward, metrics = v1_reward(task, good)
    direct = asyncio.run(score_completion(taskset.classic, good, task.data.answer, task.data.info))
    weights = {f.__name__: w for f, w in reward_components(taskset.classic)}
    assert reward == pytest.approx(direct["reward"])
    assert reward == pytest.approx(sum(weights[n] * v for n, v in direct["metrics"].items()))
    assert {k: metrics[k] for k in direct["metrics"]} == direct["metrics"]


def test_completion_of_drops_the_prompt() -> None:
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content": "q2"},
    ]
    assert completion_of(messages) == messages[2:]


class ScriptedAgent:
    """A v1 agent stand-in: answers each turn with `policy(last user text)`."""

    def __init__(self, policy, trace: Any) -> None:
        self.policy, self.trace, self.turns = policy, trace, []

    @contextlib.asynccontextmanager
    async def interaction(self, task: Any):
        agent = self

        class Conversation:
            trace = agent.trace

            async def turn(self, message: str | None = None):
                import verifiers.v1 as v1
                from verifiers.v1.agent import Segment

                text = task.data.prompt_text if message is None else message
                agent.turns.append(text)
                answer = v1.AssistantMessage(content=agent.policy(text))
                return Segment(messages=[answer])

        yield Conversation()


def test_e6_plays_the_scripted_user_turn_by_turn() -> None:
    from sv_shared.v1_compat import play_scripted

    taskset = load_taskset("e6")
    assert taskset.scripted
    task = next(t for t in taskset if len(t.data.info["turns"]) > 1)
    agent = ScriptedAgent(_policy("e6", "guarded"), v1_trace(task, []))
    asyncio.run(play_scripted(taskset.classic, task, agent))
    assert agent.turns == [t["content"] for t in task.data.info["turns"]]
    completion = agent.trace.info["sv_completion"]
    assert [m["role"] for m in completion][::2] == ["assistant"] * len(agent.turns)
    asyncio.run(task.score(agent.trace))
    assert agent.trace.reward is not None


def test_v1_plugin_resolves_taskset_env_and_harness() -> None:
    from verifiers.v1.utils.loaders import default_harness_id, environment_class, taskset_class

    import security_verifiers_v1 as plugin

    assert taskset_class("security-verifiers-v1") is plugin.SecurityVerifiersTaskset
    assert environment_class("security-verifiers-v1") is plugin.SecurityVerifiersEnv
    assert default_harness_id("security-verifiers-v1") == "security-verifiers-v1"
    config = plugin.SecurityVerifiersTasksetConfig(
        id="security-verifiers-v1", env="sv-env-network-logs", env_args={"max_examples": 2}
    )
    assert len(list(plugin.SecurityVerifiersTaskset(config))) == 2
