"""E2 reward wiring: parse the answer, apply its patch, re-scan, and score with the tools.

The original config's oracle findings come precomputed with the episode (the original scan is
reused); only a patched config is scanned during scoring, through the scan cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import verifiers as vf

from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import apply_patch
from sv_env_config_verification.reward import AuditWeights, reward_config_auditing
from sv_env_config_verification.schema import AuditAnswer, parse_answer
from sv_shared.episode_scoring import MemoizedScorer, component_rubric

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


def build_rubric(parser: AuditParser, weights: AuditWeights) -> vf.Rubric:
    def score(completion: Any, info: Mapping[str, Any]) -> dict[str, float]:
        return score_episode(parser.parse_completion(completion), info, weights)

    def key(completion: Any, info: Mapping[str, Any]) -> tuple[str, str]:
        parsed = parser.parse_completion(completion)
        return str(info.get("id")), parsed.answer.model_dump_json() if parsed.answer else ""

    weight_of = {
        "detection": weights.detection,
        "false_positive": weights.false_positive,
        "patch": weights.patch,
        "format": weights.format,
    }
    names = (*REWARD_COMPONENTS, *EPISODE_METRICS)
    return component_rubric(MemoizedScorer(score, key), names, weight_of, parser)
