"""Apply a model's patch to the audited file and check that it preserves the config's meaning.

Patch formats
-------------
* **Unified diff** (any patch not starting with ``[``). A surrounding Markdown code fence
  (```` ```diff ````) is removed first. The applier is strict:

  - exactly one file section; its ``---``/``+++`` paths must both name the episode's file
    (``a/<name>`` / ``b/<name>`` or the bare ``<name>``; a tab-separated timestamp is allowed);
  - before ``---`` only blank lines, ``diff --git a/<name> b/<name>`` and ``index ...`` lines
    may appear; ``/dev/null`` paths, ``new file``/``deleted file``/``rename``/``copy``/mode
    headers and binary patches are rejected;
  - hunk headers ``@@ -l[,n] +l[,n] @@`` must have line counts that match their bodies; body
    lines start with `` ``, ``-``, ``+`` or ``\\`` (no-newline marker); an empty body line is
    read as an empty context line;
  - context and removed lines must equal the file's lines exactly (no whitespace fuzz; a file
    with CRLF line ends is matched and written back with CRLF). A hunk is tried at its stated
    line first, then at the nearest offset after the previous hunk (content must still match
    exactly); hunks apply in order and never overlap; at most ``MAX_HUNKS`` hunks.

* **JSON patch** (RFC 6902, a JSON array of operations): Kubernetes YAML only, and only a
  single-document manifest; ``add``/``remove``/``replace``/``move``/``copy``/``test`` are
  supported and the result is re-serialised with ``yaml.safe_dump(sort_keys=False)``.

An empty (or whitespace-only) patch gives ``applied=False, reason="empty"``.

Semantic preservation (checked in this order; the first failure is the reason)
----------------------------------------------------------------------------------
1. **Size**: the patched text may not exceed ``2 * len(original) + 2048`` bytes nor
   ``MAX_PATCHED_BYTES``, and may not contain NUL bytes.
2. **Parses**: the patched file must parse as YAML manifests (``configs.parse_k8s``) or HCL
   (``configs.parse_terraform``). Commented-out lines are invisible to the parser, so
   commenting out a resource or container counts as removing it.
3. **No suppressions**: the patch may not add tool-suppression markers (checkov skip
   comments/annotations, tfsec/trivy/kics/kube-linter/semgrep ignores — see
   ``SUPPRESSION_MARKERS``): their count in the patched text may not exceed the original's.
4. **Kubernetes** — every original resource, keyed by ``(kind, metadata.name,
   metadata.namespace or "default")`` (as a multiset), must still exist, and for each:

   - a non-empty ``spec`` mapping stays a non-empty mapping;
   - workloads (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
     Job, CronJob): the pod spec (``spec``, ``spec.template.spec`` or
     ``spec.jobTemplate.spec.template.spec``) stays a non-empty mapping, and every original
     container and init container (by name, each in its own list) still exists with the
     same image *repository* (the tag or digest may change, e.g. ``latest`` → ``1.25.4``);
   - Role/ClusterRole keep a non-empty ``rules`` list; RoleBinding/ClusterRoleBinding keep a
     non-empty ``subjects`` list (when the original had one);
   - no boolean or number of the original becomes a string (``privileged: "false"``,
     ``runAsUser: "0"``), at any depth (list items matched by ``name``, else by position).
5. **Terraform** — every original ``resource`` and ``data`` block (by type and name) and every
   ``module`` (by name) must still exist; ``count`` and ``for_each`` may not be added to,
   removed from, or changed on any of them (so ``count = 0`` / ``for_each = {}`` are
   rejected), and no ``dynamic`` block may be added to them.
6. **Terraform values stay readable** — in ``configs.normalise_terraform`` form (``var``/
   ``local`` references with literal defaults substituted): an attribute whose original value
   was literal may not become an unresolved expression (``publicly_accessible =
   var.no_default``, ``actions = local.computed``), and a ``policy``/``assume_role_policy``
   that decoded to a document must still decode (no ``file("policy.json")``).

A patch that applies but breaks a rule gives ``applied=True, preserved=False`` and the reason;
only ``applied and preserved`` outcomes carry ``patched``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import yaml

from sv_env_config_verification import configs
from sv_env_config_verification.configs import (
    POLICY_KEYS,
    ConfigError,
    ConfigFile,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
)
from sv_env_config_verification.k8s_shape import pod_spec

__all__ = [
    "MAX_PATCHED_BYTES",
    "SUPPRESSION_MARKERS",
    "PatchOutcome",
    "apply_patch",
    "apply_unified_diff",
    "check_preservation",
    "image_repository",
    "k8s_key",
    "make_unified_diff",
]

MAX_PATCHED_BYTES: int = int(getattr(configs, "MAX_CONFIG_BYTES", 256 * 1024))
GROWTH_FACTOR = 2
GROWTH_SLACK = 2048
MAX_JSON_OPS = 256
MAX_HUNKS = 256
MAX_PATCH_CHARS = 256 * 1024

SUPPRESSION_MARKERS: tuple[str, ...] = (
    "checkov:skip",
    "checkov.io/skip",
    "tfsec:ignore",
    "trivy:ignore",
    "kics-scan",
    "ignore-check.kube-linter.io",
    "kube-score/ignore",
    "nosemgrep",
    "opa:ignore",
)

WORKLOAD_KINDS = frozenset(
    {"Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController"}
    | {"Job", "CronJob"}
)
_FORBIDDEN_HEADERS = (
    "new file mode",
    "deleted file mode",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "similarity index",
    "dissimilarity index",
    "old mode",
    "new mode",
    "GIT binary patch",
    "Binary files",
)
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$")
_FENCE_RE = re.compile(r"^\s*```[\w+-]*[ \t]*\n(.*?)\n?```\s*$", re.DOTALL)


@dataclass(frozen=True)
class PatchOutcome:
    """Result of :func:`apply_patch`; ``patched`` is set only when applied and preserved."""

    applied: bool
    preserved: bool
    reason: str | None
    patched: ConfigFile | None

    @property
    def ok(self) -> bool:
        return self.applied and self.preserved


class PatchError(ValueError):
    """A patch that cannot be applied (the message is the reason)."""


# ------------------------------------------------------------------------------ unified diff
@dataclass
class _Hunk:
    old_start: int
    old: list[str]
    new: list[str]
    old_eof_newline: bool = True
    new_eof_newline: bool = True


def _strip_fence(patch: str) -> str:
    match = _FENCE_RE.match(patch)
    return match.group(1) + "\n" if match else patch


def _diff_path(raw: str, side: str, name: str) -> None:
    path = raw.split("\t", 1)[0].strip()
    if path == "/dev/null":
        raise PatchError("diff creates or deletes a file")
    if path not in (f"{side}/{name}", name):
        raise PatchError(f"diff targets {path!r}, not {name!r}")


def _parse_hunk(lines: list[str], i: int, header: re.Match[str]) -> tuple[_Hunk, int]:
    old_count = int(header.group(2)) if header.group(2) is not None else 1
    new_count = int(header.group(4)) if header.group(4) is not None else 1
    hunk = _Hunk(old_start=int(header.group(1)), old=[], new=[])
    last = ""
    while len(hunk.old) < old_count or len(hunk.new) < new_count:
        if i >= len(lines):
            raise PatchError("hunk is shorter than its header says")
        line = lines[i]
        tag, body = (line[:1], line[1:]) if line else (" ", "")
        if tag == " ":
            hunk.old.append(body)
            hunk.new.append(body)
        elif tag == "-":
            hunk.old.append(body)
        elif tag == "+":
            hunk.new.append(body)
        elif tag == "\\":
            _no_newline(hunk, last)
        else:
            raise PatchError(f"line {i + 1}: invalid hunk line {line[:40]!r}")
        last = tag
        i += 1
        if len(hunk.old) > old_count or len(hunk.new) > new_count:
            raise PatchError(f"line {i}: hunk is longer than its header says")
    if i < len(lines) and lines[i].startswith("\\"):
        _no_newline(hunk, last)
        i += 1
    return hunk, i


def _no_newline(hunk: _Hunk, last: str) -> None:
    if last in (" ", "-"):
        hunk.old_eof_newline = False
    if last in (" ", "+"):
        hunk.new_eof_newline = False
    if last not in (" ", "-", "+"):
        raise PatchError("misplaced '\\ No newline at end of file'")


def _parse_diff(patch: str, name: str) -> list[_Hunk]:
    lines = patch.replace("\r\n", "\n").split("\n")
    if not any(line.startswith("--- ") for line in lines):
        raise PatchError("not a unified diff (no '--- a/<file>' / '+++ b/<file>' header)")
    i = 0
    while i < len(lines) and not lines[i].startswith("--- "):
        line = lines[i]
        if line.startswith(_FORBIDDEN_HEADERS):
            header = next(h for h in _FORBIDDEN_HEADERS if line.startswith(h))
            raise PatchError(f"unsupported diff header {header!r} (only edits of the file)")
        if line.startswith("diff --git "):
            if line.split()[2:] != [f"a/{name}", f"b/{name}"]:
                raise PatchError(f"diff targets another file: {line[:80]!r}")
        elif line.strip() and not line.startswith("index "):
            raise PatchError(f"line {i + 1}: unexpected text before the diff header")
        i += 1
    if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
        raise PatchError("not a unified diff (no '--- a/<file>' / '+++ b/<file>' header)")
    _diff_path(lines[i][4:], "a", name)
    _diff_path(lines[i + 1][4:], "b", name)
    i += 2
    hunks: list[_Hunk] = []
    while i < len(lines):
        line = lines[i]
        header = _HUNK_RE.match(line)
        if header:
            hunk, i = _parse_hunk(lines, i + 1, header)
            hunks.append(hunk)
            continue
        if line.startswith(("--- ", "+++ ", "diff ")) or line.startswith(_FORBIDDEN_HEADERS):
            raise PatchError("diff has more than one file section")
        if line.strip():
            raise PatchError(f"line {i + 1}: unexpected text {line[:40]!r} outside a hunk")
        i += 1
    if not hunks:
        raise PatchError("diff has no hunks")
    return hunks


def _candidates(stated: int, low: int, high: int) -> list[int]:
    """Positions in ``[low, high]``, nearest to ``stated`` first (earlier first on ties)."""
    return sorted(range(low, high + 1), key=lambda pos: (abs(pos - stated), pos))


def apply_unified_diff(text: str, patch: str, name: str) -> str:
    """Apply a strict unified diff (rules in the module docstring); raise PatchError."""
    hunks = _parse_diff(_strip_fence(patch), name)
    if len(hunks) > MAX_HUNKS:
        raise PatchError(f"diff has more than {MAX_HUNKS} hunks")
    crlf = "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    eof_newline = text.endswith("\n")
    if eof_newline:
        lines.pop()
    out: list[str] = []
    cursor = 0
    for number, hunk in enumerate(hunks, start=1):
        size = len(hunk.old)
        stated = hunk.old_start - 1 if size else hunk.old_start
        if not size:
            if not cursor <= stated <= len(lines):
                raise PatchError(f"hunk {number}: insertion point outside the file")
            pos = stated
        else:
            first = hunk.old[0]
            found = (
                p
                for p in _candidates(stated, cursor, len(lines) - size)
                if lines[p] == first and lines[p : p + size] == hunk.old
            )
            pos = next(found, None)
            if pos is None:
                raise PatchError(f"hunk {number}: context does not match the file")
        out.extend(lines[cursor:pos])
        out.extend(hunk.new)
        cursor = pos + size
        if cursor == len(lines):
            eof_newline = hunk.new_eof_newline
    out.extend(lines[cursor:])
    result = "\n".join(out) + ("\n" if eof_newline and out else "")
    return result.replace("\n", "\r\n") if crlf else result


def make_unified_diff(name: str, old: str, new: str, context: int = 3) -> str:
    """A unified diff ``a/<name>`` → ``b/<name>`` that :func:`apply_unified_diff` accepts.

    Returns ``""`` when the texts are equal.
    """
    import difflib

    sides = []
    for text in (old, new):
        lines = text.split("\n")
        newline = text.endswith("\n")
        if newline:
            lines.pop()
        # a last line without newline differs from the same line with one
        keys = [*lines[:-1], lines[-1] + ("" if newline else "\x00")] if lines else []
        sides.append((lines, keys, newline))
    (old_lines, old_keys, old_nl), (new_lines, new_keys, new_nl) = sides
    out = [f"--- a/{name}", f"+++ b/{name}"]
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        out.append(f"@@ -{old_start},{i2 - i1} +{new_start},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                _emit(out, " ", old_lines, a1, a2, old_nl)
                continue
            if tag in ("replace", "delete"):
                _emit(out, "-", old_lines, a1, a2, old_nl)
            if tag in ("replace", "insert"):
                _emit(out, "+", new_lines, b1, b2, new_nl)
    return "\n".join(out) + "\n" if len(out) > 2 else ""


def _emit(out: list[str], tag: str, lines: list[str], start: int, end: int, newline: bool) -> None:
    for index in range(start, end):
        out.append(tag + lines[index])
        if index == len(lines) - 1 and not newline:
            out.append("\\ No newline at end of file")


# ------------------------------------------------------------------------------ JSON patch
def _pointer(path: Any) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def _index(container: list[Any], token: str, *, for_add: bool) -> int:
    if for_add and token == "-":
        return len(container)
    if not re.fullmatch(r"0|[1-9]\d*", token):
        raise PatchError(f"invalid array index {token!r}")
    index = int(token)
    if index > len(container) or (index == len(container) and not for_add):
        raise PatchError(f"array index {index} out of range")
    return index


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, for_add=False)]
        else:
            raise PatchError(f"path segment {token!r} not found")
    return node


def _get(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        return doc
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, for_add=False)]
    raise PatchError(f"path segment {last!r} not found")


def _remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, for_add=False))
    raise PatchError(f"path segment {last!r} not found")


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, for_add=True), value)
    else:
        raise PatchError(f"cannot add below a scalar at {last!r}")
    return doc


def apply_json_patch(doc: Any, ops: Any) -> Any:
    """Apply RFC 6902 operations to a deep copy of ``doc``; raise PatchError."""
    if not isinstance(ops, list) or not ops:
        raise PatchError("JSON patch must be a non-empty array of operations")
    if len(ops) > MAX_JSON_OPS:
        raise PatchError(f"JSON patch has more than {MAX_JSON_OPS} operations")
    doc = json.loads(json.dumps(doc))
    for number, op in enumerate(ops, start=1):
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise PatchError(f"operation {number} needs 'op' and 'path'")
        kind, tokens = op["op"], _pointer(op["path"])
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchError(f"operation {number} ({kind}) needs 'value'")
        if kind == "add":
            doc = _add(doc, tokens, op["value"])
        elif kind == "remove":
            _remove(doc, tokens)
        elif kind == "replace":
            _get(doc, tokens)  # the target must exist
            doc = _replace(doc, tokens, op["value"])
        elif kind in ("move", "copy"):
            source = _pointer(op.get("from"))
            if kind == "move" and tokens[: len(source)] == source and tokens != source:
                raise PatchError(f"operation {number}: cannot move a value into itself")
            value = _remove(doc, source) if kind == "move" else _get(doc, source)
            doc = _add(doc, tokens, json.loads(json.dumps(value)))
        elif kind == "test":
            if _get(doc, tokens) != op["value"]:
                raise PatchError(f"operation {number}: test failed at {op['path']!r}")
        else:
            raise PatchError(f"operation {number}: unknown op {kind!r}")
    return doc


def _replace(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, list):
        parent[_index(parent, last, for_add=False)] = value
    else:
        parent[last] = value
    return doc


def _apply_json(original: ConfigFile, patch: str) -> str:
    if original.kind != "k8s":
        raise PatchError("JSON patch is only supported for Kubernetes YAML")
    try:
        ops = json.loads(patch)
    except ValueError as exc:
        raise PatchError(f"JSON patch is not valid JSON: {exc}") from None
    try:
        docs = parse_k8s(original.text)
    except ConfigError as exc:
        raise PatchError(f"original does not parse: {exc}") from None
    if len(docs) != 1:
        raise PatchError("JSON patch needs a single-document manifest")
    return yaml.safe_dump(apply_json_patch(docs[0], ops), sort_keys=False)


# ------------------------------------------------------------------------------ preservation
def image_repository(image: Any) -> str:
    """``registry/name`` of an image reference, without tag or digest."""
    ref = str(image or "").strip().split("@", 1)[0]
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    return ref[:colon] if colon > slash else ref


def k8s_key(doc: dict[str, Any]) -> tuple[str, str, str]:
    """(kind, name, namespace or "default"): how an object is matched across a patch."""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    return (
        str(doc.get("kind") or ""),
        str(meta.get("name") or ""),
        str(meta.get("namespace") or "default"),
    )


def _non_empty_mapping(value: Any) -> bool:
    return isinstance(value, dict) and bool(value)


def _containers(spec: Any, field: str) -> dict[str, str]:
    items = spec.get(field) if isinstance(spec, dict) else None
    return (
        {
            str(c.get("name")): image_repository(c.get("image"))
            for c in items or []
            if isinstance(c, dict)
        }
        if isinstance(items, list)
        else {}
    )


def _check_k8s(original: list[dict[str, Any]], patched: list[dict[str, Any]]) -> str | None:
    by_key: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for doc in patched:
        by_key.setdefault(k8s_key(doc), []).append(doc)
    missing = Counter(k8s_key(d) for d in original) - Counter(k8s_key(d) for d in patched)
    if missing:
        kind, name, namespace = next(iter(missing))
        return f"resource {kind}/{name} (namespace {namespace}) was removed or renamed"
    used: Counter[tuple[str, str, str]] = Counter()
    for doc in original:
        key = k8s_key(doc)
        twin = by_key[key][used[key]]
        used[key] += 1
        reason = _check_k8s_resource(doc, twin)
        if reason:
            return f"{key[0]}/{key[1]}: {reason}"
    return None


def _check_k8s_resource(doc: dict[str, Any], twin: dict[str, Any]) -> str | None:
    kind = doc.get("kind")
    if _non_empty_mapping(doc.get("spec")) and not _non_empty_mapping(twin.get("spec")):
        return "spec was removed or emptied"
    if kind in WORKLOAD_KINDS and _non_empty_mapping(pod_spec(doc)):
        new_spec = pod_spec(twin)
        if not _non_empty_mapping(new_spec):
            return "pod spec was removed or emptied"
        for field in ("containers", "initContainers"):
            after = _containers(new_spec, field)
            for name, repo in _containers(pod_spec(doc), field).items():
                if name not in after:
                    return f"{field[:-1]} {name!r} was removed or renamed"
                if after[name] != repo:
                    return f"{field[:-1]} {name!r} image repository changed from {repo!r}"
    for field, kinds in (("rules", ("Role", "ClusterRole")), ("subjects", ("RoleBinding",))):
        if kind in kinds or (field == "subjects" and kind == "ClusterRoleBinding"):
            before, after = doc.get(field), twin.get(field)
            if isinstance(before, list) and before and not (isinstance(after, list) and after):
                return f"{field} were removed or emptied"
    path = _retyped(doc, twin, "")
    return f"value at {path} changed from a boolean/number to a string" if path else None


def _retyped(before: Any, after: Any, path: str) -> str | None:
    """Path of the first boolean/number of ``before`` that is a string in ``after``."""
    if isinstance(before, bool | int | float) and isinstance(after, str):
        return path or "/"
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before.keys() & after.keys():
            found = _retyped(before[key], after[key], f"{path}.{key}")
            if found:
                return found
    elif isinstance(before, list) and isinstance(after, list):
        named = all(isinstance(x, dict) and "name" in x for x in [*before, *after])
        if named:
            twins = {str(x["name"]): x for x in after}
            pairs = [(x, twins.get(str(x["name"])), f"{path}[{x['name']}]") for x in before]
        elif len(before) == len(after):
            pairs = [(x, after[i], f"{path}[{i}]") for i, x in enumerate(before)]
        else:
            pairs = []
        for x, y, where in pairs:
            found = _retyped(x, y, where) if y is not None else None
            if found:
                return found
    return None


def _tf_blocks(parsed: Any) -> dict[tuple[str, str, str], dict[str, Any]]:
    """``{(block, type, name): body}`` for resource/data (type+name) and module (name)."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    if not isinstance(parsed, dict):
        return out
    for block in ("resource", "data", "module"):
        entries = parsed.get(block) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict):
                continue
            for first, inner in entry.items():
                if block == "module":
                    out[(block, "", str(first))] = inner if isinstance(inner, dict) else {}
                    continue
                for name, body in (inner or {}).items() if isinstance(inner, dict) else []:
                    out[(block, str(first), str(name))] = body if isinstance(body, dict) else {}
    return out


def _check_tf(original: Any, patched: Any) -> str | None:
    before, after = _tf_blocks(original), _tf_blocks(patched)
    for key, body in before.items():
        label = ".".join(part for part in key[1:] if part)
        if key not in after:
            return f"{key[0]} {label} was removed or renamed"
        for meta in ("count", "for_each"):
            if json.dumps(body.get(meta), sort_keys=True, default=str) != json.dumps(
                after[key].get(meta), sort_keys=True, default=str
            ):
                return f"{key[0]} {label}: {meta} was added, removed or changed"
        if _count_key(after[key], "dynamic") > _count_key(body, "dynamic"):
            return f"{key[0]} {label}: a dynamic block was added"
    return _check_tf_values(original, patched)


def _count_key(value: Any, key: str) -> int:
    if isinstance(value, dict):
        return (key in value) + sum(_count_key(v, key) for v in value.values())
    if isinstance(value, list):
        return sum(_count_key(v, key) for v in value)
    return 0


def _unresolved(value: Any) -> bool:
    if isinstance(value, str):
        return "${" in value
    if isinstance(value, list):
        return any(_unresolved(v) for v in value)
    if isinstance(value, dict):
        return any(_unresolved(v) for v in value.values())
    return False


def _hidden(before: Any, after: Any, path: str) -> str | None:
    """Path where a literal value of ``before`` became an unresolved expression in ``after``."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before.keys() & after.keys():
            found = _hidden(before[key], after[key], f"{path}.{key}")
            if found:
                return found
        return None
    if (
        isinstance(before, list)
        and isinstance(after, list)
        and any(isinstance(x, dict) for x in before)
    ):
        if len(before) != len(after):
            return None  # nested blocks added or removed: compared by the tools, not here
        for i, x in enumerate(before):
            found = _hidden(x, after[i], f"{path}[{i}]")
            if found:
                return found
        return None
    if not _unresolved(before) and _unresolved(after):
        return path
    return None


def _check_tf_values(original: Any, patched: Any) -> str | None:
    """Rule 6: literal values (after var/local defaults are substituted) and decodable IAM
    policy documents must stay readable by the tools."""
    before = {r["address"]: r["config"] for r in normalise_terraform(original)["resources"]}
    after = {r["address"]: r["config"] for r in normalise_terraform(patched)["resources"]}
    for address, config in before.items():
        twin = after.get(address, {})
        for key in POLICY_KEYS & config.keys() & twin.keys():
            if isinstance(config[key], dict | list) and not isinstance(twin[key], dict | list):
                return f"{address}: {key} is no longer a readable policy document"
        path = _hidden(config, twin, address)
        if path:
            return f"{path} became an expression the tools cannot evaluate"
    return None


def _suppressions(text: str) -> Counter[str]:
    lowered = text.lower()
    return Counter({marker: lowered.count(marker.lower()) for marker in SUPPRESSION_MARKERS})


def check_preservation(original: ConfigFile, patched_text: str) -> str | None:
    """``None`` when ``patched_text`` preserves ``original`` (rules 1–6), else the reason."""
    size = len(patched_text.encode("utf-8", "surrogatepass"))
    bound = min(MAX_PATCHED_BYTES, GROWTH_FACTOR * len(original.text.encode()) + GROWTH_SLACK)
    if size > bound:
        return f"patched file is too large ({size} bytes > {bound})"
    if "\x00" in patched_text:
        return "patched file contains NUL bytes"
    parse = parse_k8s if original.kind == "k8s" else parse_terraform
    try:
        before = parse(original.text)
    except ConfigError as exc:
        return f"original file does not parse: {exc}"
    try:
        after = parse(patched_text)
    except ConfigError as exc:
        return f"patched file does not parse: {exc}"
    added = _suppressions(patched_text) - _suppressions(original.text)
    if added:
        return f"patch adds a tool suppression ({next(iter(added))})"
    if original.kind == "k8s":
        return _check_k8s(before, after)
    return _check_tf(before, after)


# ------------------------------------------------------------------------------ entry point
def apply_patch(original: ConfigFile, patch: str) -> PatchOutcome:
    """Apply ``patch`` (unified diff or JSON patch) to ``original``; never raises."""
    if not isinstance(patch, str) or not patch.strip():
        return PatchOutcome(False, False, "empty", None)
    if len(patch) > MAX_PATCH_CHARS:
        return PatchOutcome(
            False, False, f"patch is longer than {MAX_PATCH_CHARS} characters", None
        )
    if "\x00" in patch:
        return PatchOutcome(False, False, "patch contains NUL bytes (binary)", None)
    try:
        if patch.lstrip().startswith("["):
            text = _apply_json(original, patch)
        else:
            text = apply_unified_diff(original.text, patch, original.name)
    except PatchError as exc:
        return PatchOutcome(False, False, str(exc), None)
    except (RecursionError, ValueError, TypeError, KeyError, IndexError, yaml.YAMLError) as exc:
        return PatchOutcome(False, False, f"patch error: {type(exc).__name__}", None)
    try:
        reason = check_preservation(original, text)
    except (RecursionError, ValueError, TypeError, AttributeError) as exc:
        reason = f"preservation check failed: {type(exc).__name__}"
    if reason is not None:
        return PatchOutcome(True, False, reason, None)
    return PatchOutcome(
        True, True, None, ConfigFile(kind=original.kind, name=original.name, text=text)
    )
