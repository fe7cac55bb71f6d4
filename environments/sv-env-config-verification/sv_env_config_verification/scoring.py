"""E2 reward wiring: parse the answer, apply its patch, re-scan, and score with the tools.

The original config's oracle findings come precomputed with the episode (the original scan is
reused); only a patched config is scanned during scoring, through the scan cache.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import verifiers as vf

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import apply_patch
from sv_env_config_verification.reward import AuditWeights, reward_config_auditing
from sv_env_config_verification.schema import AuditAnswer, parse_answer

REWARD_COMPONENTS = ("detection", "false_positive", "patch", "format")
"""Components summed into the total reward, each with its weight from AuditWeights."""
EPISODE_METRICS = ("precision", "recall", "new_violations", "patch_applied", "patch_fixed_all")
"""Per-episode numbers kept as zero-weight metrics for the run summary."""


@dataclass(frozen=True)
class AuditParse:
    """The parser's verdict on one completion (same shape as sv_shared's ParseResult)."""

    answer: AuditAnswer | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.answer is not None


class AuditParser(vf.Parser):
    """Parses the final assistant message into an AuditAnswer; never raises."""

    def parse(self, text: str) -> AuditParse:  # type: ignore[override]
        answer, error = parse_answer(text)
        return AuditParse(answer, error)

    def parse_completion(self, completion: Any) -> AuditParse:
        if isinstance(completion, str):
            return self.parse(completion)
        messages = self.get_assistant_messages(completion or [])
        if not messages:
            return AuditParse(None, "no assistant message")
        content = self._message_field(messages[-1], "content", "") or ""
        return self.parse(self._content_to_text(content))

    def parse_answer(self, completion: Any) -> str | None:  # type: ignore[override]
        result = self.parse_completion(completion)
        return None if result.answer is None else result.answer.model_dump_json()


def episode_config(info: Mapping[str, Any]) -> ConfigFile:
    return ConfigFile(kind=info["kind"], name=info["name"], text=info["text"])


def score_episode(
    parsed: AuditParse, info: Mapping[str, Any], weights: AuditWeights
) -> dict[str, float]:
    """Every reward component and episode metric for one answer to one episode."""
    answer = parsed.answer
    outcome = patched_findings = None
    if answer is not None and answer.patch.strip():
        outcome = apply_patch(episode_config(info), answer.patch)
        if outcome.applied and outcome.preserved and outcome.patched is not None:
            patched_findings = scan(outcome.patched).findings
    parts = reward_config_auditing(answer, info["findings"], patched_findings, outcome, weights)
    original = {(f["id"], f["resource"]) for f in info["findings"]}
    after = {(f.id, f.resource) for f in patched_findings or ()}
    return {
        "detection": parts["detection"],
        "false_positive": parts["false_positive"],
        "patch": parts["patch"] + parts["patch_penalty"],
        "format": parts["format"],
        "precision": parts["precision"],
        "recall": parts["recall"],
        "new_violations": parts["new_violations"],
        "patch_applied": float(patched_findings is not None),
        "patch_fixed_all": float(bool(original) and patched_findings is not None and not after),
    }


class EpisodeScorer:
    """Scores each (episode, completion) once and serves every component from that result."""

    def __init__(self, parser: AuditParser, weights: AuditWeights, memo_size: int = 4096):
        self.parser = parser
        self.weights = weights
        self._memo: OrderedDict[tuple[str, str], dict[str, float]] = OrderedDict()
        self._memo_size = memo_size

    def __call__(self, completion: Any, info: Mapping[str, Any]) -> dict[str, float]:
        parsed = self.parser.parse_completion(completion)
        key = (str(info.get("id")), parsed.answer.model_dump_json() if parsed.answer else "")
        if key not in self._memo:
            self._memo[key] = score_episode(parsed, info, self.weights)
            if len(self._memo) > self._memo_size:
                self._memo.popitem(last=False)
        return self._memo[key]


def build_rubric(parser: AuditParser, weights: AuditWeights) -> vf.Rubric:
    scorer = EpisodeScorer(parser, weights)

    def component(name: str) -> Callable[..., float]:
        def reward(completion: Any, info: Mapping[str, Any], **_: Any) -> float:
            return float(scorer(completion, info)[name])

        reward.__name__ = name
        return reward

    names = (*REWARD_COMPONENTS, *EPISODE_METRICS)
    weight_of = {
        "detection": weights.detection,
        "false_positive": weights.false_positive,
        "patch": weights.patch,
        "format": weights.format,
    }
    return vf.Rubric(
        funcs=[component(n) for n in names],
        weights=[weight_of.get(n, 0.0) for n in names],
        parser=parser,
    )
