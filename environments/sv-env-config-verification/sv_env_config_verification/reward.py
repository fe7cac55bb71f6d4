"""Reward for one audit episode (a pure function) and evaluation metrics.

Components of :func:`reward_config_auditing` (severity weights ``low=1, med=2, high=3``; a
reported id's weight is its canonical severity, ``UNKNOWN_ID_WEIGHT`` for ids outside the
catalogue — the severity the model claims is never used for scoring):

* ``detection`` — severity-weighted F1 between reported ids and oracle finding ids, as
  *multisets*: each reported occurrence of an id matches at most one oracle finding with that
  id (the oracle reports an id once per affected resource, so "list each violation once per
  affected resource"). ``TP = Σ w·min(reported, oracle)``, ``FP``/``FN`` the unmatched rest,
  ``F1 = 2TP / (2TP + FP + FN)``. A clean config (no oracle findings) answered with no
  violations scores 1.0; any reported violation on it scores 0.
* ``false_positive`` — ``-min(1, FP / fp_saturation)``: every invented finding costs extra,
  in proportion to its severity weight (with ``fp_saturation=6``, two invented high findings
  cost the whole penalty).
* ``patch`` — only for a patch that applied and preserved the config (see ``patching``) and
  was re-scanned: ``(removed − introduced) / Σ w(oracle findings)``, clipped to [−1, 1], where
  findings are compared as multisets of ``(id, resource)``: *removed* are original findings
  missing after the patch, *introduced* are new ones. On a clean config the denominator is
  3 (one high finding), so a patch can only lose there. An empty patch scores 0.
* ``patch_penalty`` — ``-invalid_patch_penalty`` for a non-empty patch that does not apply,
  fails the preservation rules, or could not be re-scanned; else 0.
* ``format`` — 1 if the answer parsed.

``total = detection·w_d + false_positive·w_fp + (patch + patch_penalty)·w_p + format·w_f``;
a weight of 0 switches a component off. An unparseable answer (``answer=None``) scores 0 on
every component.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.patching import PatchOutcome
from sv_env_config_verification.schema import AuditAnswer
from sv_shared.rewards import ComponentWeights

__all__ = [
    "SEVERITY_WEIGHTS",
    "UNKNOWN_ID_WEIGHT",
    "AuditWeights",
    "EpisodeRecord",
    "audit_metrics",
    "detection_counts",
    "id_weight",
    "patch_delta",
    "reward_config_auditing",
]

SEVERITY_WEIGHTS: dict[str, float] = {"low": 1.0, "med": 2.0, "high": 3.0}
UNKNOWN_ID_WEIGHT = 2.0
CLEAN_PATCH_DENOMINATOR = 3.0


@dataclass(frozen=True)
class AuditWeights(ComponentWeights):
    """Component weights (0 switches one off) and the two penalty scales."""

    detection: float = 1.0
    patch: float = 1.0
    format: float = 0.1
    false_positive: float = 0.5
    fp_saturation: float = 6.0
    invalid_patch_penalty: float = 0.1

    def __post_init__(self) -> None:
        if self.fp_saturation <= 0:
            raise ValueError("fp_saturation must be positive")
        super().__post_init__()


def _field(finding: Any, name: str) -> Any:
    return finding.get(name) if isinstance(finding, Mapping) else getattr(finding, name, None)


def id_weight(violation_id: str) -> float:
    """Severity weight of a canonical id; ``UNKNOWN_ID_WEIGHT`` outside the catalogue."""
    entry = CATALOGUE.get(violation_id)
    return SEVERITY_WEIGHTS[entry.severity] if entry is not None else UNKNOWN_ID_WEIGHT


def _finding_weight(finding: Any) -> float:
    severity = _field(finding, "severity")
    if severity in SEVERITY_WEIGHTS:
        return SEVERITY_WEIGHTS[severity]
    return id_weight(str(_field(finding, "id")))


@dataclass(frozen=True)
class DetectionCounts:
    """Severity-weighted true/false positives and false negatives of one answer."""

    tp: float
    fp: float
    fn: float

    @property
    def f1(self) -> float:
        if self.tp == self.fp == self.fn == 0:
            return 1.0  # clean config, nothing reported
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def detection_counts(reported: Iterable[str], oracle: Iterable[str]) -> DetectionCounts:
    """Multiset, severity-weighted comparison of reported ids with oracle ids."""
    said, truth = Counter(reported), Counter(oracle)
    tp = fp = fn = 0.0
    for vid in said.keys() | truth.keys():
        weight, hit = id_weight(vid), min(said[vid], truth[vid])
        tp += weight * hit
        fp += weight * (said[vid] - hit)
        fn += weight * (truth[vid] - hit)
    return DetectionCounts(tp, fp, fn)


def _keys(findings: Iterable[Any]) -> Counter[tuple[str, str]]:
    return Counter((str(_field(f, "id")), str(_field(f, "resource"))) for f in findings)


def patch_delta(oracle: Sequence[Any], patched_scan: Sequence[Any]) -> tuple[float, float]:
    """Severity weight of (removed, introduced) findings, as multisets of (id, resource)."""
    weights = {
        (str(_field(f, "id")), str(_field(f, "resource"))): _finding_weight(f)
        for f in [*oracle, *patched_scan]
    }
    before, after = _keys(oracle), _keys(patched_scan)
    removed = sum(weights[k] * n for k, n in (before - after).items())
    introduced = sum(weights[k] * n for k, n in (after - before).items())
    return removed, introduced


def _patch_components(
    answer: AuditAnswer,
    oracle: Sequence[Any],
    patched_scan: Sequence[Any] | None,
    outcome: PatchOutcome | None,
    weights: AuditWeights,
) -> tuple[float, float, float]:
    """(patch, patch_penalty, introduced weight)."""
    if not answer.patch.strip():
        return 0.0, 0.0, 0.0
    if outcome is None or not (outcome.applied and outcome.preserved) or patched_scan is None:
        return 0.0, -weights.invalid_patch_penalty, 0.0
    removed, introduced = patch_delta(oracle, patched_scan)
    total = sum(_finding_weight(f) for f in oracle) or CLEAN_PATCH_DENOMINATOR
    return max(-1.0, min(1.0, (removed - introduced) / total)), 0.0, introduced


def reward_config_auditing(
    answer: AuditAnswer | None,
    oracle: Sequence[Any],
    patched_scan: Sequence[Any] | None,
    patch_outcome: PatchOutcome | None,
    weights: AuditWeights | None = None,
) -> dict[str, float]:
    """All reward components and ``total`` for one episode (rules in the module docstring).

    ``oracle``/``patched_scan`` are findings (objects or dicts with ``id``, ``severity``,
    ``resource``); ``patched_scan`` is the re-scan of ``patch_outcome.patched``.
    """
    weights = weights or AuditWeights()
    if answer is None:
        zero = dict.fromkeys(
            ("detection", "precision", "recall", "false_positive", "patch", "patch_penalty"), 0.0
        )
        return {**zero, "format": 0.0, "new_violations": 0.0, "total": 0.0}
    counts = detection_counts(answer.ids, [str(_field(f, "id")) for f in oracle])
    false_positive = -min(1.0, counts.fp / weights.fp_saturation)
    patch, penalty, introduced = _patch_components(
        answer, oracle, patched_scan, patch_outcome, weights
    )
    total = (
        weights.detection * counts.f1
        + weights.false_positive * false_positive
        + weights.patch * (patch + penalty)
        + weights.format * 1.0
    )
    return {
        "detection": counts.f1,
        "precision": counts.precision,
        "recall": counts.recall,
        "false_positive": false_positive,
        "patch": patch,
        "patch_penalty": penalty,
        "format": 1.0,
        "new_violations": introduced,
        "total": total,
    }


# ------------------------------------------------------------------------------ metrics
@dataclass(frozen=True)
class EpisodeRecord:
    """What the metrics need from one episode."""

    reported: Sequence[str] | None  # None: the answer did not parse
    oracle: Sequence[Any]
    patch_submitted: bool = False
    patch_ok: bool = False  # applied and preserved
    patched_scan: Sequence[Any] | None = None


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "support": float(tp + fn)}


def audit_metrics(records: Iterable[EpisodeRecord]) -> dict[str, float]:
    """Per-severity precision/recall/F1 (unweighted multiset counts), clean-config pass rate
    and false positives, patch success rate and introduced violations.

    Unparseable answers count as reporting nothing. ``patch_success_rate`` is over vulnerable
    configs: the patch applied, preserved the config, removed every original finding and
    introduced none. ``new_violations_per_patch`` is over applied patches.
    """
    counts = {sev: [0, 0, 0] for sev in (*SEVERITY_WEIGHTS, "unknown")}
    clean = clean_pass = clean_fp = vulnerable = fixed = applied = new_total = 0
    for record in records:
        reported = list(record.reported or [])
        truth = [str(_field(f, "id")) for f in record.oracle]
        said, real = Counter(reported), Counter(truth)
        for vid in said.keys() | real.keys():
            entry = CATALOGUE.get(vid)
            bucket = counts[entry.severity if entry is not None else "unknown"]
            hit = min(said[vid], real[vid])
            bucket[0] += hit
            bucket[1] += said[vid] - hit
            bucket[2] += real[vid] - hit
        if not truth:
            clean += 1
            clean_pass += not reported
            clean_fp += len(reported)
        else:
            vulnerable += 1
        if record.patch_ok and record.patched_scan is not None:
            applied += 1
            after = _keys(record.patched_scan)
            before = _keys(record.oracle)
            new_total += sum((after - before).values())
            fixed += bool(truth) and not after
    out: dict[str, float] = {}
    for sev, (tp, fp, fn) in counts.items():
        for key, value in _prf(tp, fp, fn).items():
            out[f"{sev}_{key}"] = value
    total = [sum(c[i] for c in counts.values()) for i in range(3)]
    out.update({f"micro_{k}": v for k, v in _prf(*total).items()})
    out["clean_configs"] = float(clean)
    out["clean_pass_rate"] = clean_pass / clean if clean else 0.0
    out["clean_false_positives_per_config"] = clean_fp / clean if clean else 0.0
    out["patch_success_rate"] = fixed / vulnerable if vulnerable else 0.0
    out["new_violations_per_patch"] = new_total / applied if applied else 0.0
    return out
