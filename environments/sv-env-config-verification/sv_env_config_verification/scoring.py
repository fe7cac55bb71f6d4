"""E2 reward wiring: parse the answer, apply its patch, re-scan, and score with the tools.

The original config's oracle findings come precomputed with the episode (the original scan is
reused); only a patched config is scanned during scoring, through the scan cache.

A patch must also keep the fix contract (`patch_contract`: it adds only objects of the kinds
the findings' rules list as fixes and leaves scope attributes alone); one that does not is an
invalid patch. A patched config earns patch credit only when its scan is *valid*
(`oracle.ScanResult.valid`: every tool parsed and evaluated every object). An invalid scan — a
tool error or warning, a skipped object, a config the tools cannot read — and a re-scan that
raises are invalid patches (the invalid-patch penalty), never "no findings" and never a scoring
error. The episode metrics `scan_invalid` (the patch applied but its scan did not count) and
`scan_error` (a tool or our code failed; logged) make them visible; `score_episode_details`
also returns the reasons.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sv_env_config_verification.configs import ConfigError, ConfigFile
from sv_env_config_verification.oracle import Finding, scan
from sv_env_config_verification.patch_contract import contract_violation
from sv_env_config_verification.patching import PatchOutcome, apply_patch
from sv_env_config_verification.reward import AuditWeights, reward_config_auditing
from sv_env_config_verification.schema import AuditAnswer, parse_answer
from sv_shared.episode_scoring import MemoizedScorer, component_rubric
from sv_shared.vf_compat import vf

REWARD_COMPONENTS = ("detection", "false_positive", "patch", "format")
"""Components summed into the total reward, each with its weight from AuditWeights."""
EPISODE_METRICS = (
    "precision",
    "recall",
    "new_violations",
    "patch_applied",
    "patch_fixed_all",
    "scan_invalid",
    "scan_error",
)
"""Per-episode numbers kept as zero-weight metrics for the run summary."""
log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class Rescan:
    """The scan of a patched config: findings when it counts, else why not."""

    findings: tuple[Finding, ...] | None
    invalid_reason: str | None = None
    error: bool = False
    """A tool or our own code failed (rather than the config being unreadable)."""


def rescan(config: ConfigFile) -> Rescan:
    """Scan a patched config; never raises (a failure is an invalid scan, and is logged)."""
    try:
        result = scan(config)
    except ConfigError as exc:
        return Rescan(None, f"patched config does not parse: {exc}")
    except Exception as exc:
        log.exception("re-scan of patched %s failed", config.name)
        return Rescan(None, f"re-scan failed: {type(exc).__name__}: {exc}", error=True)
    if not result.valid:
        reason = "; ".join(result.invalid_reasons)
        log.info("patched %s: scan does not count: %s", config.name, reason)
        return Rescan(None, reason, error=bool(result.errors))
    return Rescan(result.findings)


def _apply(info: Mapping[str, Any], patch: str) -> PatchOutcome:
    """Apply the patch, check preservation (`patching`) and the fix contract
    (`patch_contract`: added kinds, immutable scope attributes); never raises."""
    original = episode_config(info)
    try:
        outcome = apply_patch(original, patch)
        if outcome.ok and outcome.patched is not None:
            ids = [str(f["id"]) for f in info["findings"]]
            reason = contract_violation(original, outcome.patched, ids)
            if reason is not None:
                return PatchOutcome(True, False, reason, None)
        return outcome
    except Exception as exc:  # apply_patch should not raise; if it does, the patch is invalid
        log.exception("applying a patch to episode %s failed", info.get("id"))
        return PatchOutcome(False, False, f"patch error: {type(exc).__name__}", None)


def score_episode_details(
    parsed: AuditParse, info: Mapping[str, Any], weights: AuditWeights
) -> tuple[dict[str, float], dict[str, Any]]:
    """(every reward component and episode metric, details: why a patch or its scan did not
    count — ``patch_reason``, ``scan_invalid_reason``)."""
    answer = parsed.answer
    outcome = patched_findings = None
    details: dict[str, Any] = {"patch_reason": None, "scan_invalid_reason": None}
    scan_error = False
    if answer is not None and answer.patch.strip():
        outcome = _apply(info, answer.patch)
        details["patch_reason"] = outcome.reason
        if outcome.ok and outcome.patched is not None:
            result = rescan(outcome.patched)
            patched_findings, scan_error = result.findings, result.error
            details["scan_invalid_reason"] = result.invalid_reason
    parts = reward_config_auditing(answer, info["findings"], patched_findings, outcome, weights)
    original = {(f["id"], f["resource"]) for f in info["findings"]}
    after = {(f.id, f.resource) for f in patched_findings or ()}
    metrics = {
        "detection": parts["detection"],
        "false_positive": parts["false_positive"],
        "patch": parts["patch"] + parts["patch_penalty"],
        "format": parts["format"],
        "precision": parts["precision"],
        "recall": parts["recall"],
        "new_violations": parts["new_violations"],
        "patch_applied": float(patched_findings is not None),
        "patch_fixed_all": float(bool(original) and patched_findings is not None and not after),
        "scan_invalid": float(details["scan_invalid_reason"] is not None),
        "scan_error": float(scan_error),
    }
    return metrics, details


def score_episode(
    parsed: AuditParse, info: Mapping[str, Any], weights: AuditWeights
) -> dict[str, float]:
    """Every reward component and episode metric for one answer to one episode."""
    return score_episode_details(parsed, info, weights)[0]


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
