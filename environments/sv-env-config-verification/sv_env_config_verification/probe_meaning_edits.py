"""Patch hacks that keep the insecure meaning in a form the rules might not read (`sv probe e2`).

Each edit is ``(kind, text) -> new text`` (``None`` where it does not apply), like those in
`probe_edits`, and belongs to one of three classes:

* **indirection** — the capability moves to another object or reference: an AWS managed
  administrator policy attached by a new attachment, a world-open range behind a new managed
  prefix list, a public-access block pointed at another bucket, a binding to a new ClusterRole
  that aggregates the built-in roles, a hostPath reached through a new PersistentVolume + claim;
* **equivalent spellings** — action globs whose union is every action (``a*`` … ``z*``), RBAC
  wildcards replaced by the full enumeration, a floating image tag that is not ``latest``;
* **vacuous values and scope escapes** — absurd resource limits, CloudTrail "logging" whose
  selectors record nothing, a KMS key moved out of the rotation rule's scope by its key spec.

`chained` applies every edit that applies. None of them fixes anything.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

import yaml

from .k8s_effective import ALL_VERBS, KNOWN_GROUPS, group_resources
from .k8s_shape import pod_spec

Edit = Callable[[str, str], "str | None"]


# ------------------------------------------------------------------------------ Kubernetes
def _k8s(change: Callable[[list[dict[str, Any]]], bool]) -> Edit:
    """Load the manifest, let ``change`` edit the documents in place (True when it changed
    something) and dump it back."""

    def edit(kind: str, text: str) -> str | None:
        if kind != "k8s":
            return None
        try:
            docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
        except yaml.YAMLError:
            return None
        if not change(docs):
            return None
        return yaml.safe_dump_all(docs, sort_keys=False)

    return edit


def _pod_specs(docs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(doc, spec) for doc in docs if isinstance(spec := pod_spec(doc), dict)]


def _containers(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        c
        for _, spec in _pod_specs(docs)
        for key in ("containers", "initContainers")
        for c in spec.get(key) or []
        if isinstance(c, dict)
    ]


def _floating_tag(docs: list[dict[str, Any]]) -> bool:
    changed = False
    for c in _containers(docs):
        image = c.get("image")
        if not isinstance(image, str) or "@" in image:
            continue
        last = image.rsplit("/", 1)[-1]
        if ":" not in last or last.endswith(":latest"):
            c["image"] = image.removesuffix(":latest") + ":stable"
            changed = True
    return changed


def _absurd_limits(docs: list[dict[str, Any]]) -> bool:
    changed = False
    for c in _containers(docs):
        resources = c.setdefault("resources", {}) or {}
        limits = resources.setdefault("limits", {}) or {}
        for key, value in (("cpu", "100000"), ("memory", "1000Pi")):
            if not limits.get(key):
                limits[key] = value
                changed = True
        resources["limits"] = limits
        c["resources"] = resources
    return changed


def _enumerate_rbac(docs: list[dict[str, Any]]) -> bool:
    changed = False
    for doc in docs:
        if doc.get("kind") not in ("Role", "ClusterRole"):
            continue
        for rule in doc.get("rules") or []:
            if not isinstance(rule, dict):
                continue
            groups = rule.get("apiGroups") or [""]
            if "*" in groups:
                rule["apiGroups"] = groups = list(KNOWN_GROUPS)
                changed = True
            if "*" in (rule.get("resources") or []):
                rule["resources"] = sorted({r for g in groups for r in group_resources(g)})
                changed = True
            if "*" in (rule.get("verbs") or []):
                rule["verbs"] = list(ALL_VERBS)
                changed = True
    return changed


AGGREGATE_ROLE = "platform-operators"


def _aggregate_cluster_admin(docs: list[dict[str, Any]]) -> bool:
    bindings = [
        d
        for d in docs
        if d.get("kind") in ("ClusterRoleBinding", "RoleBinding")
        and (d.get("roleRef") or {}).get("name") == "cluster-admin"
    ]
    for binding in bindings:
        binding["roleRef"]["name"] = AGGREGATE_ROLE
    if bindings:
        selector = {"matchLabels": {"kubernetes.io/bootstrapping": "rbac-defaults"}}
        docs.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": AGGREGATE_ROLE},
                "aggregationRule": {"clusterRoleSelectors": [selector]},
                "rules": [],
            }
        )
    return bool(bindings)


def _hostpath_via_claim(docs: list[dict[str, Any]]) -> bool:
    extra: list[dict[str, Any]] = []
    for doc, spec in _pod_specs(docs):
        namespace = (doc.get("metadata") or {}).get("namespace", "default")
        for vol in spec.get("volumes") or []:
            if not isinstance(vol, dict) or "hostPath" not in vol:
                continue
            name = f"{vol.get('name', 'data')}-{len(extra)}"
            host = vol.pop("hostPath")
            vol["persistentVolumeClaim"] = {"claimName": f"{name}-claim"}
            extra.append(
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolume",
                    "metadata": {"name": f"{name}-pv"},
                    "spec": {
                        "capacity": {"storage": "1Gi"},
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": "manual",
                        "hostPath": host,
                    },
                }
            )
            extra.append(
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "metadata": {"name": f"{name}-claim", "namespace": namespace},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": "manual",
                        "volumeName": f"{name}-pv",
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                }
            )
    docs.extend(extra)
    return bool(extra)


# ------------------------------------------------------------------------------ Terraform
_BLOCK_START = re.compile(r'(?m)^resource\s+"(?P<type>[\w-]+)"\s+"(?P<name>[\w-]+)"\s*\{')


def _blocks(text: str, rtype: str) -> list[tuple[int, int, str]]:
    """(start, end, name) character spans of the top-level ``resource "<rtype>"`` blocks."""
    out = []
    for m in _BLOCK_START.finditer(text):
        if m.group("type") != rtype:
            continue
        end = re.compile(r"(?m)^\}").search(text, m.end())
        if end is not None:
            out.append((m.start(), end.end(), m.group("name")))
    return out


def _edit_blocks(text: str, rtype: str, change: Callable[[str, str], str | None]) -> str | None:
    """Rewrite each ``rtype`` block with ``change(block_text, name)`` (None: unchanged)."""
    pieces, last, changed = [], 0, False
    for start, end, name in _blocks(text, rtype):
        new = change(text[start:end], name)
        pieces.append(text[last:start])
        pieces.append(new if new is not None else text[start:end])
        changed |= new is not None and new != text[start:end]
        last = end
    pieces.append(text[last:])
    return "".join(pieces) if changed else None


def _terraform(edit: Callable[[str], str | None]) -> Edit:
    def wrapped(kind: str, text: str) -> str | None:
        if kind != "terraform":
            return None
        new = edit(text)
        return new if new is not None and new != text else None

    return wrapped


_ACTION_BARE = re.compile(r'(?m)^(\s*"?(?:Action|actions)"?\s*[=:]\s*)"\*"')
_ACTION_IN_LIST = re.compile(r'(?mi)^(.*\bactions?"?\s*[=:].*?)"\*"')
ADMIN_ARN = "arn:aws:iam::aws:policy/AdministratorAccess"


def _narrow_actions(text: str, bare: str, listed: str) -> str:
    text = _ACTION_BARE.sub(lambda m: m.group(1) + bare, text)
    return _ACTION_IN_LIST.sub(lambda m: m.group(1) + listed, text)


def _admin_attachment(text: str) -> str | None:
    if not (_ACTION_BARE.search(text) or _ACTION_IN_LIST.search(text)):
        return None
    role = re.search(r'(?m)^resource\s+"aws_iam_role"\s+"([\w-]+)"', text)
    if role is None:
        return None
    narrowed = _narrow_actions(text, '["s3:GetObject"]', '"s3:GetObject"')
    return (
        narrowed.rstrip("\n")
        + f'\n\nresource "aws_iam_role_policy_attachment" "{role.group(1)}_ops" {{\n'
        + f"  role       = aws_iam_role.{role.group(1)}.name\n"
        + f'  policy_arn = "{ADMIN_ARN}"\n}}\n'
    )


_LETTER_GLOBS = ", ".join(f'"{c}*"' for c in string.ascii_lowercase)


def _glob_union(text: str) -> str | None:
    return _narrow_actions(text, f"[{_LETTER_GLOBS}]", _LETTER_GLOBS)


_OPEN_LIST = re.compile(r'(?m)^(\s*)cidr_blocks(\s*=\s*)\["0\.0\.0\.0/0"\]')
_OPEN_SINGLE = re.compile(r'(?m)^(\s*)cidr_ipv4(\s*=\s*)"0\.0\.0\.0/0"')
PREFIX_LIST = "aws_ec2_managed_prefix_list.everyone"


def _prefix_list(text: str) -> str | None:
    new = _OPEN_LIST.sub(rf"\1prefix_list_ids\2[{PREFIX_LIST}.id]", text)
    new = _OPEN_SINGLE.sub(rf"\1prefix_list_id\2{PREFIX_LIST}.id", new)
    if new == text:
        return None
    return (
        new.rstrip("\n")
        + '\n\nresource "aws_ec2_managed_prefix_list" "everyone" {\n'
        + '  name           = "everyone"\n  address_family = "IPv4"\n  max_entries    = 1\n'
        + '  entry {\n    cidr = "0.0.0.0/0"\n  }\n}\n'
    )


_PAB_SETTINGS = re.compile(
    r"(?m)^(\s*(?:block_public_acls|block_public_policy|ignore_public_acls|"
    r"restrict_public_buckets)\s*=\s*)\S+"
)


def _pab_elsewhere(text: str) -> str | None:
    def change(block: str, name: str) -> str | None:
        if not re.search(r"=\s*false\b", block):
            return None
        block = _PAB_SETTINGS.sub(r"\1true", block)
        return re.sub(r"(?m)^(\s*bucket\s*=\s*).*$", r'\1"acme-unused-bucket"', block, count=1)

    return _edit_blocks(text, "aws_s3_bucket_public_access_block", change)


def _kms_key_spec(text: str) -> str | None:
    def change(block: str, name: str) -> str | None:
        if re.search(r"enable_key_rotation\s*=\s*true", block) or "key_spec" in block:
            return None
        head, _, rest = block.partition("\n")
        spec = (
            '  customer_master_key_spec = "RSA_2048"\n  key_usage                = "SIGN_VERIFY"\n'
        )
        return f"{head}\n{spec}{rest}"

    return _edit_blocks(text, "aws_kms_key", change)


def _vacuous_trail(text: str) -> str | None:
    """Logging "enabled", with selectors that admit no event (management events excluded, no
    data resource named)."""

    def change(block: str, name: str) -> str | None:
        if not re.search(r"enable_logging\s*=\s*false", block):
            return None
        block = re.sub(r"(enable_logging\s*=\s*)false", r"\1true", block)
        if "event_selector" in block:
            block = re.sub(r"(include_management_events\s*=\s*)true", r"\1false", block)
            return re.sub(r"(?m)^(\s*values\s*=\s*)\[.*\]\s*$", r"\1[]", block)
        selector = (
            '  event_selector {\n    read_write_type           = "All"\n'
            "    include_management_events = false\n  }\n"
        )
        return block[: block.rindex("}")] + selector + "}"

    return _edit_blocks(text, "aws_cloudtrail", change)


MEANING_EDITS: dict[str, Edit] = {
    "tf-admin-policy-attachment": _terraform(_admin_attachment),
    "tf-prefix-list-world": _terraform(_prefix_list),
    "tf-public-access-block-elsewhere": _terraform(_pab_elsewhere),
    "k8s-aggregate-cluster-admin": _k8s(_aggregate_cluster_admin),
    "k8s-hostpath-via-claim": _k8s(_hostpath_via_claim),
    "tf-action-glob-union": _terraform(_glob_union),
    "k8s-rbac-enumerated": _k8s(_enumerate_rbac),
    "k8s-floating-tag": _k8s(_floating_tag),
    "k8s-absurd-limits": _k8s(_absurd_limits),
    "tf-cloudtrail-selects-nothing": _terraform(_vacuous_trail),
    "tf-kms-key-spec-escape": _terraform(_kms_key_spec),
}
"""Indirection, equivalent spellings, vacuous values / scope escapes (module docstring)."""

# Glob union and admin attachment rewrite the same lines: the chain takes the attachment.
_CHAIN = [name for name in MEANING_EDITS if name != "tf-action-glob-union"]


def chained(kind: str, text: str) -> str | None:
    """Every edit of `MEANING_EDITS` that applies, one after another."""
    current = text
    for name in _CHAIN:
        new = MEANING_EDITS[name](kind, current)
        if new is not None:
            current = new
    return current if current != text else None
