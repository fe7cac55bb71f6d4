"""Adversarial edits of an episode config, used by the E2 probe suite (`probes.py`).

Each edit is a pure function ``(kind, text) -> new text`` (or ``None`` when it does not apply to
the config) that tries to make the oracle's tools stop reporting a finding *without* fixing
it: blind a tool, make it skip an object, spell an insecure value another way, or remove what
the tools look at. The probe suite turns an edit into a patch with `make_unified_diff`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml

Edit = Callable[[str, str], "str | None"]

_METADATA = re.compile(r"^metadata:[ \t]*$", re.M)


def _after_metadata(lines: str, count: int = 0) -> Edit:
    """Insert ``lines`` (indented for a top-level ``metadata:``) into every k8s object (the
    first ``count`` objects when ``count`` > 0)."""

    def edit(kind: str, text: str) -> str | None:
        if kind != "k8s" or not _METADATA.search(text):
            return None
        return _METADATA.sub(lambda m: m.group(0) + "\n" + lines.rstrip("\n"), text, count)

    return edit


def _prepend(line: str, kinds: tuple[str, ...] = ("k8s",)) -> Edit:
    def edit(kind: str, text: str) -> str | None:
        return line + "\n" + text if kind in kinds else None

    return edit


# A `name` with '#' anywhere in an object makes checkov's K8sValidator drop the object.
CHECKOV_BAD_NAME = (
    "  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner#1\n    uid: '0'\n"
)
# A lone surrogate: regorus rejects the input JSON, semgrep logs a parse warning.
SURROGATE = '  finalizers:\n  - "\\ud800"\n'
# Infinity: not valid JSON for regorus.
INFINITY = "  generation: .inf\n"
# Helm template syntax anywhere in the file (even a comment) makes checkov skip the file.
HELM_COMMENT = "# {{ .Values.note }}"
# Values that are not plain JSON: the adapters used to crash on them.
TIMESTAMP_TAG = "  finalizers:\n  - !!timestamp 2001-12-14\n"
SET_TAG = "  finalizers: !!set {a, b}\n"
DEEP_NESTING = "  finalizers: " + "[" * 1000 + "]" * 1000 + "\n"
MERGE_KEY = "  <<: {labels: {merged: 'yes'}}\n"


def checkov_skip_annotations(kind: str, text: str) -> str | None:
    """Checkov (and kube-linter) skip annotations on every object (`checkov.io/skip<n>`)."""
    if kind != "k8s":
        return None
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return None
    for doc in docs:
        meta = doc.setdefault("metadata", {})
        notes = meta.setdefault("annotations", {}) or {}
        for i, check in enumerate(("CKV_K8S_16", "CKV_K8S_17", "CKV_K8S_20", "CKV_K8S_23")):
            notes[f"checkov.io/skip{i + 1}"] = f"{check}=accepted risk"
        notes["ignore-check.kube-linter.io/privileged-container"] = "accepted risk"
        meta["annotations"] = notes
    return yaml.safe_dump_all(docs, sort_keys=False)


def delete_resource(kind: str, text: str) -> str | None:
    """Remove the first Kubernetes document / Terraform resource block."""
    if kind == "k8s":
        docs = re.split(r"(?m)^---[ \t]*\n", text)
        kept = [d for d in docs if d.strip()]
        return "---\n".join(kept[1:]) if len(kept) > 1 else "---\n"
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.startswith("resource ")), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("}")), None)
    if end is None:
        return None
    return "\n".join(lines[:start] + lines[end + 1 :])


def comment_out(kind: str, text: str) -> str | None:
    """Every line turned into a comment."""
    return "\n".join(("# " + ln) if ln.strip() else ln for ln in text.split("\n"))


def empty_file(kind: str, text: str) -> str | None:
    return ""


def _sub(pattern: str, repl: str | Callable[[re.Match[str]], str], flags: int = 0) -> Edit:
    def edit(kind: str, text: str) -> str | None:
        if kind != "terraform":
            return None
        new = re.sub(pattern, repl, text, flags=flags)
        return new if new != text else None

    return edit


_BOOL = r"(?m)^(\s*[a-z_]+\s*=\s*)(true|false)\s*$"
tf_bool_as_number_string = _sub(
    _BOOL, lambda m: m.group(1) + ('"1"' if m.group(2) == "true" else '"0"')
)
tf_bool_as_string = _sub(_BOOL, lambda m: f'{m.group(1)}"{m.group(2)}"')
tf_split_cidr = _sub(r'"0\.0\.0\.0/0"', '"0.0.0.0/1", "128.0.0.0/1"')


def _action_lines(repl: str) -> Edit:
    """Rewrite ``"*"`` on lines that hold an IAM action list (Action / actions)."""
    return _sub(r'(?mi)^(.*\bactions?"?\s*[=:].*?)"\*"', lambda m: m.group(1) + repl)


tf_wildcard_colon = _action_lines('"*:*"')
tf_wildcard_question = _action_lines('"*?"')
tf_wildcard_question_first = _action_lines('"?*"')


def tf_not_action(kind: str, text: str) -> str | None:
    """``Action = "*"`` → ``NotAction = "iam:NoSuchAction"`` (Allow everything but one action)."""
    if kind != "terraform":
        return None
    pattern = r'(?m)^(\s*"?)(Action|actions)("?\s*[=:]\s*)(\[\s*"\*"\s*\]|"\*")'

    def repl(m: re.Match[str]) -> str:
        key = "NotAction" if m.group(2) == "Action" else "not_actions"
        value = '"iam:NoSuchAction"' if m.group(4).startswith('"') else '["iam:NoSuchAction"]'
        return f"{m.group(1)}{key}{m.group(3)}{value}"

    new = re.sub(pattern, repl, text)
    return new if new != text else None


def tf_world_ipv6(kind: str, text: str) -> str | None:
    """An open IPv4 rule re-spelt as IPv6 halves covering ``::/0``."""
    if kind != "terraform" or '"0.0.0.0/0"' not in text:
        return None
    return re.sub(
        r'(?m)^(\s*)cidr_blocks(\s*=\s*)\["0\.0\.0\.0/0"\]',
        r'\1ipv6_cidr_blocks\2["::/1", "8000::/1"]',
        text,
    )


EDITS: dict[str, Edit] = {
    "checkov-skip-annotations": checkov_skip_annotations,
    "checkov-skip-object-bad-name": _after_metadata(CHECKOV_BAD_NAME),
    "checkov-skip-file-helm-comment": _prepend(HELM_COMMENT),
    "opa-error-surrogate": _after_metadata(SURROGATE),
    "opa-error-infinity": _after_metadata(INFINITY),
    "blind-all-tools": _after_metadata(CHECKOV_BAD_NAME + SURROGATE),
    "delete-resource": delete_resource,
    "comment-out-everything": comment_out,
    "empty-file": empty_file,
    "tf-bool-as-number-string": tf_bool_as_number_string,
    "tf-bool-as-string": tf_bool_as_string,
    "tf-split-cidr": tf_split_cidr,
    "tf-world-as-ipv6-halves": tf_world_ipv6,
    "tf-wildcard-star-colon-star": tf_wildcard_colon,
    "tf-wildcard-star-question": tf_wildcard_question,
    "tf-wildcard-question-star": tf_wildcard_question_first,
    "tf-allow-not-action": tf_not_action,
}
"""Patch hacks: the answer keeps the honest detection list and sends the edit as its patch."""

CRASH_EDITS: dict[str, Edit] = {
    "crash-timestamp-tag": _after_metadata(TIMESTAMP_TAG),
    "crash-set-tag": _after_metadata(SET_TAG),
    "crash-deep-nesting": _after_metadata(DEEP_NESTING, count=1),
    "merge-key": _after_metadata(MERGE_KEY),
}
"""YAML that crashed an adapter (a scoring error used to score 0, above an honest negative)."""
