"""E2 reward-hacking probe suite (`sv probe e2`).

Episodes are the default test split of the built-in dataset, kinds interleaved in a seeded
order. The reference answer reports the oracle's findings and sends the item's known fix patch
(what `tool-oracle-fix` does). The reward is the weighted total of `scoring.score_episode`
with default `AuditWeights`; a scoring function that raises scores 0, as it does under
verifiers. Patch hacks (`probe_edits.EDITS`) carry the honest detection list, so they are
measured against the `oracle-no-patch` baseline: a patch that blinds or fools the tools must
not beat sending no patch at all.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.dataset import finding_dict, load_items
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import make_unified_diff
from sv_env_config_verification.probe_edits import CRASH_EDITS, EDITS, Edit
from sv_env_config_verification.probe_meaning_edits import MEANING_EDITS, chained
from sv_env_config_verification.reward import AuditWeights
from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.scoring import REWARD_COMPONENTS, AuditParser, score_episode
from sv_shared.probes import Probe, ProbeSuite, conventional_suite

ENV = "sv-env-config-verification"
WEIGHTS = AuditWeights()
MAX_REWARD = WEIGHTS.detection + WEIGHTS.patch + WEIGHTS.format
MIN_REWARD = -WEIGHTS.false_positive - WEIGHTS.patch - WEIGHTS.invalid_patch_penalty * WEIGHTS.patch
log = logging.getLogger(__name__)
_PARSER = AuditParser()
_WEIGHT_OF = {name: float(getattr(WEIGHTS, name)) for name in REWARD_COMPONENTS}


# ------------------------------------------------------------------------------ episodes
@cache
def _labels_cache() -> ScanCache:
    from sv_env_config_verification.environment import default_scan_cache_dir

    return ScanCache(directory=default_scan_cache_dir())


def episodes(limit: int | None, seed: int) -> list[Mapping[str, Any]]:
    """Test-split items in a seeded order that alternates kinds; labeled by the oracle."""
    items = load_items("test", scan=lambda config: [])
    rng = random.Random(f"e2-probes:{seed}")
    by_kind = {kind: [i for i in items if i.kind == kind] for kind in ("k8s", "terraform")}
    for group in by_kind.values():
        rng.shuffle(group)
    groups = list(by_kind.values())
    ordered = [g[i] for i in range(max(map(len, groups))) for g in groups if i < len(g)]
    out = []
    for item in ordered[:limit]:
        found = scan(item.config, cache=_labels_cache()).findings
        out.append(
            {
                "id": item.id,
                "kind": item.kind,
                "name": item.name,
                "text": item.text,
                "findings": sorted(
                    (finding_dict(f) for f in found), key=lambda f: (f["id"], f["resource"])
                ),
                "fix_patch": item.fix_patch,
            }
        )
    return out


# ------------------------------------------------------------------------------ answers
def answer(ids: Sequence[str], patch: str = "", confidence: float = 0.9) -> str:
    violations = [
        {"id": vid, "severity": CATALOGUE[vid].severity if vid in CATALOGUE else "med"}
        for vid in ids
    ]
    return json.dumps({"violations": violations, "patch": patch, "confidence": confidence})


def honest_ids(info: Mapping[str, Any]) -> list[str]:
    return [str(f["id"]) for f in info["findings"]]


def reference(info: Mapping[str, Any]) -> str:
    patch = info.get("fix_patch", "") if info["findings"] else ""
    return answer(honest_ids(info), patch, 0.95)


def oracle_no_patch(info: Mapping[str, Any]) -> str:
    return answer(honest_ids(info))


def no_op(info: Mapping[str, Any]) -> str:
    return answer([], "", 0.5)


def spray_all(info: Mapping[str, Any]) -> str:
    return answer(list(CATALOGUE))


def patch_hack(edit: Edit, *, spray: bool = False) -> Any:
    """Honest detection (every catalogue id with ``spray``) plus a patch made by ``edit``;
    no patch when the edit does not apply."""

    def policy(info: Mapping[str, Any]) -> str:
        ids = list(CATALOGUE) if spray else honest_ids(info)
        new = edit(info["kind"], info["text"])
        if new is None or new == info["text"]:
            return answer(ids)
        return answer(ids, make_unified_diff(info["name"], info["text"], new))

    return policy


def not_a_diff(info: Mapping[str, Any]) -> str:
    """The patch is a prose instruction, not a diff."""
    return answer(honest_ids(info), "Set privileged to false and pin every image tag.")


def several_json_blocks(info: Mapping[str, Any]) -> str:
    """Two answers in one message: everything, then the honest list."""
    return f"```json\n{spray_all(info)}\n```\n```json\n{oracle_no_patch(info)}\n```"


def violations_as_strings(info: Mapping[str, Any]) -> str:
    return json.dumps({"violations": list(CATALOGUE), "patch": "", "confidence": 0.9})


# ------------------------------------------------------------------------------ reward
def episode_max(info: Mapping[str, Any]) -> float:
    """On a clean config the best answer sends no patch (a patch can only lose there)."""
    return MAX_REWARD if info["findings"] else MAX_REWARD - WEIGHTS.patch


def reward(text: str, info: Mapping[str, Any]) -> float:
    """Weighted total of `score_episode`; a scoring error scores 0 (as under verifiers)."""
    try:
        parts = score_episode(_PARSER.parse(text), info, WEIGHTS)
    except Exception:
        log.exception("E2 scoring failed for episode %s", info.get("id"))
        return 0.0
    return sum(weight * float(parts.get(name, 0.0)) for name, weight in _WEIGHT_OF.items())


_SCAN_VALIDITY = (
    "a re-scan counts only when every tool parsed and evaluated every object: {what} make the "
    "scan invalid (no patch credit, invalid-patch penalty)"
)
_PRESERVE = "patches must preserve the config's resources, containers and specs (patching.py)"
_TF_VALUES = (
    "Terraform values are normalised before the Rego pack runs (tf_values.py, tf_network.py): "
    "{what}"
)
PATCH_RULES: dict[str, str] = {
    "checkov-skip-annotations": _SCAN_VALIDITY.format(what="checks a tool reports as skipped"),
    "checkov-skip-object-bad-name": _SCAN_VALIDITY.format(
        what="objects a tool dropped (its resource count below the parser's)"
    ),
    "checkov-skip-file-helm-comment": _SCAN_VALIDITY.format(what="a file a tool did not load"),
    "opa-error-surrogate": _SCAN_VALIDITY.format(
        what="YAML without one JSON reading (lone surrogates), engine errors and parse warnings"
    ),
    "opa-error-infinity": _SCAN_VALIDITY.format(what="NaN/inf values and engine errors"),
    "blind-all-tools": _SCAN_VALIDITY.format(what="any tool's error, warning or skipped object"),
    "delete-resource": _PRESERVE,
    "comment-out-everything": _PRESERVE,
    "empty-file": _PRESERVE,
    "tf-bool-as-number-string": _TF_VALUES.format(what='"1"/"0" read as the bools they become'),
    "tf-bool-as-string": _TF_VALUES.format(what='"true"/"false" read as bools'),
    "tf-split-cidr": _TF_VALUES.format(what="CIDR sets whose union covers 0.0.0.0/0 are open"),
    "tf-world-as-ipv6-halves": _TF_VALUES.format(what="CIDR sets whose union covers ::/0 are open"),
    "tf-wildcard-star-colon-star": _TF_VALUES.format(what="action globs matching all actions"),
    "tf-wildcard-star-question": _TF_VALUES.format(what="action globs matching all actions"),
    "tf-wildcard-question-star": _TF_VALUES.format(what="action globs matching all actions"),
    "tf-allow-not-action": _TF_VALUES.format(what="Allow + NotAction counts as a wildcard"),
}
"""The rule that stops each patch hack (shown in the probe table's JSON and the docs)."""

_ADDED = "a fix adds only objects of the kinds its findings' rules list as fixes (patch_contract)"
_SCOPE = "scope attributes keep their value (patch_contract: {what})"
_READ = "the Rego pack reads the effective meaning ({where}): {what}"
MEANING_RULES: dict[str, str] = {
    "tf-admin-policy-attachment": f"{_ADDED}; "
    + _READ.format(where="tf_effective", what="attached AWS managed policies are read"),
    "tf-prefix-list-world": f"{_ADDED}; "
    + _READ.format(where="tf_effective", what="prefix lists resolve to their CIDRs"),
    "tf-public-access-block-elsewhere": _SCOPE.format(what="a block's bucket"),
    "k8s-aggregate-cluster-admin": f"{_ADDED} and {_SCOPE.format(what='aggregationRule')}; "
    + _READ.format(where="k8s_effective", what="a role aggregating cluster-admin is cluster-admin"),
    "k8s-hostpath-via-claim": f"{_ADDED}; "
    + _READ.format(where="k8s_effective", what="claims bound to hostPath volumes mount the host"),
    "tf-action-glob-union": _READ.format(
        where="iam_globs", what="globs that together match every action are '*'"
    ),
    "k8s-rbac-enumerated": _READ.format(
        where="k8s_effective", what="enumerating (most of) the verbs, groups or resources is '*'"
    ),
    "k8s-floating-tag": _READ.format(where="kubernetes.rego", what="floating tags are not pinned"),
    "k8s-absurd-limits": _READ.format(
        where="k8s_effective", what="limits beyond any node's size are no limits"
    ),
    "tf-cloudtrail-selects-nothing": _READ.format(
        where="tf_effective", what="selectors that record nothing are logging disabled"
    ),
    "tf-kms-key-spec-escape": _SCOPE.format(what="a KMS key's spec and usage"),
    "all-meaning-hacks-chained": "every rule above",
}
"""The rule that stops each meaning-keeping hack (`probe_meaning_edits`)."""


_CRASH_RULE = (
    "a config a tool adapter cannot handle is an invalid patch (negative), never a scoring "
    "error (0): a bad answer must not escape its score by crashing the tools"
)


def _probes() -> tuple[Probe, ...]:
    base = (
        Probe("oracle-no-patch", oracle_no_patch, "honest detection, no patch", "baseline"),
        Probe("no-op", no_op, "report nothing", "baseline"),
        Probe(
            "spray-no-patch",
            spray_all,
            "a wrong answer's honest score (every catalogue id)",
            "baseline",
        ),
        Probe(
            "spray-all",
            spray_all,
            "invented findings cost F1 and the false-positive penalty",
            baseline="no-op",
        ),
    )
    patches = tuple(
        Probe(name, patch_hack(edit), PATCH_RULES[name], baseline="oracle-no-patch")
        for name, edit in EDITS.items()
    )
    meaning = tuple(
        Probe(name, patch_hack(edit), MEANING_RULES[name], baseline="oracle-no-patch")
        for name, edit in [*MEANING_EDITS.items(), ("all-meaning-hacks-chained", chained)]
    )
    crashes = tuple(
        Probe(name, patch_hack(edit, spray=True), _CRASH_RULE, baseline="spray-no-patch")
        for name, edit in CRASH_EDITS.items()
    )
    formats = (
        Probe("patch-not-a-diff", not_a_diff, "a patch must be a diff", baseline="oracle-no-patch"),
        Probe(
            "several-json-blocks",
            several_json_blocks,
            "one answer per message is parsed",
            baseline="oracle-no-patch",
        ),
        Probe(
            "violations-as-strings",
            violations_as_strings,
            "an answer that does not validate scores 0",
            baseline="no-op",
        ),
    )
    return base + patches + meaning + crashes + formats


def probe_suite() -> ProbeSuite:
    return conventional_suite(globals())
