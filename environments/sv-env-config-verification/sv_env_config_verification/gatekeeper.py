"""Test cases of an OPA Gatekeeper library checkout, mapped onto canonical ids.

A checkout has the public layout ``library/<group>/<policy>/suite.yaml``; a suite lists tests
(a constraint file and cases), a case names an object file and assertions on the violations
Gatekeeper reports for it. `POLICIES` maps the policies whose meaning the catalogue covers
(``general`` and ``pod-security-policy``) to canonical ids; every other policy is *uncovered*.

A mapped case is *in scope* when its label is decided by what the mapped ids model. It is out
of scope, with the reason recorded (never scored), when the object is an AdmissionReview
(Gatekeeper skips UPDATE requests; a static manifest has no operation), its kind is not matched
by the constraint, its constraint does not parse, or a constraint parameter the catalogue does
not model could decide the label (allowed host paths or volume types, hostPort ranges that admit
a port, user/group ranges, allow-listed or required-drop capabilities, resource maxima or
requests, tags other than ``latest``, seccomp/AppArmor profile allow-lists, sysctl lists). When
the modelled part alone already makes the object violate (e.g. ``hostNetwork: true`` under a
constraint that forbids it, a hostPort outside the allowed range, an Unconfined profile the
allow-list rejects), the case stays in scope whatever the other parameters say. A case that
hinges on how the catalogue resolves the object (``k8s_effective``: a claim bound to a hostPath
PersistentVolume of the file, a limit beyond any node's size) is out of scope too.

``exemptImages`` become part of the episode for container-level policies: the scored episode is
the object without its exempted containers (what Gatekeeper audits), or the case is out of scope
when every container is exempt. For pod-level policies (host namespaces, host paths, volume
types) an exempt image puts the case out of scope.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from .canonical import DANGEROUS_CAPABILITIES, SAFE_SYSCTLS
from .k8s_effective import MAX_CPU_CORES, MAX_MEMORY_BYTES, effective_objects, quantity
from .k8s_shape import pod_spec as k8s_pod_spec

_CONTAINER_FIELDS = ("containers", "initContainers", "ephemeralContainers")
_TEMPLATE_KINDS = {
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Job",
}

Obj = dict[str, Any]
Params = dict[str, Any]


class GatekeeperError(ValueError):
    """A path that is not a readable Gatekeeper library checkout."""


@dataclass(frozen=True)
class Case:
    """One suite case: ``policy`` is ``<group>/<policy>``; ``expected`` None when undecided."""

    policy: str
    test: str
    name: str
    constraint: Path | None
    obj: Path | None
    expected: bool | None


# ------------------------------------------------------------------------------ loading
def _violates(assertions: object) -> bool | None:
    """True/False from a case's assertions; None when they only filter messages."""
    if not isinstance(assertions, list) or not assertions:
        return None
    decided: bool | None = None
    for a in assertions:
        if not isinstance(a, dict):
            continue
        count = a.get("violations")
        if isinstance(count, str):
            count = {"yes": True, "no": False}.get(count.strip().lower(), count)
        if count is True or (type(count) is int and count > 0):
            return True
        if (count is False or count == 0) and "message" not in a:
            decided = False
    return decided


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GatekeeperError(f"{path}: cannot read: {exc}") from None


def suite_paths(root: Path) -> list[Path]:
    """Every ``library/<group>/<policy>/suite.yaml`` under a checkout (raises on a bad root)."""
    root = Path(root)
    if not root.is_dir():
        raise GatekeeperError(f"{root}: not a directory")
    suites = sorted((root / "library").glob("*/*/suite.yaml"))
    if not suites:
        raise GatekeeperError(
            f"{root}: not a Gatekeeper library checkout (no library/<group>/<policy>/suite.yaml)"
        )
    return suites


def load_cases(root: Path) -> list[Case]:
    """The cases of every suite of a checkout, in suite order."""
    cases = []
    for suite_path in suite_paths(root):
        policy_dir = suite_path.parent
        policy = f"{policy_dir.parent.name}/{policy_dir.name}"
        suite = _read_yaml(suite_path) or {}
        for test in suite.get("tests") or []:
            if not isinstance(test, dict):
                continue
            constraint = test.get("constraint")
            for case in test.get("cases") or []:
                if not isinstance(case, dict):
                    continue
                obj = case.get("object")
                cases.append(
                    Case(
                        policy,
                        str(test.get("name") or "").strip() or "(unnamed)",
                        str(case.get("name") or ""),
                        policy_dir / constraint if isinstance(constraint, str) else None,
                        policy_dir / obj if isinstance(obj, str) else None,
                        _violates(case.get("assertions")),
                    )
                )
    return cases


def read_objects(path: Path) -> list[Obj]:
    """The mappings of an object file (``kind: List`` items flattened); [] when unreadable."""
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    out: list[Obj] = []
    for doc in docs:
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List"):
            out.extend(i for i in doc.get("items") or [] if isinstance(i, dict))
        elif isinstance(doc, dict):
            out.append(doc)
    return out


# ------------------------------------------------------------------------------ object helpers
def pod_spec(obj: Obj) -> Obj:
    """The pod spec of a workload object ({} for other kinds)."""
    if obj.get("kind") not in ("Pod", "CronJob", *_TEMPLATE_KINDS):
        return {}
    spec = k8s_pod_spec(obj)
    return spec if isinstance(spec, dict) else {}


def containers(obj: Obj, fields: Iterable[str] = _CONTAINER_FIELDS) -> Iterator[Obj]:
    """The container mappings of a workload's pod spec (all three kinds by default)."""
    spec = pod_spec(obj)
    for f in fields:
        for c in spec.get(f) or []:
            if isinstance(c, dict):
                yield c


def exempt(image: object, patterns: Iterable[object]) -> bool:
    """Gatekeeper's exemptImages match: exact, or a prefix when the pattern ends with '*'."""
    if not isinstance(image, str):
        return False
    for p in patterns:
        if isinstance(p, str) and (image.startswith(p[:-1]) if p.endswith("*") else image == p):
            return True
    return False


def _quantity(value: object) -> float | None:
    """A Kubernetes quantity (cpu or memory) as a number; None when unparseable."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or not value:
        return None
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
    units |= {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
    for suffix in sorted(units, key=len, reverse=True):
        if value.endswith(suffix):
            value, scale = value[: -len(suffix)], units[suffix]
            break
    else:
        scale = 1.0
    try:
        return float(value) * scale
    except ValueError:
        return None


# ------------------------------------------------------------------------------ scope rules
Scope = Callable[[Params, list[Obj]], str | None]


def _no_params(params: Params, objects: list[Obj]) -> str | None:
    return None


def _limits(objects: list[Obj], kind: str = "limits") -> list[Obj]:
    """The resources.<kind> mapping of every container and initContainer."""
    flat = [c for o in objects for c in containers(o, ("containers", "initContainers"))]
    return [((c.get("resources") or {}).get(kind) or {}) for c in flat]


def _missing(required: set[str], objects: list[Obj]) -> bool:
    """True when some container lacks one of the `required` cpu/memory limits."""
    return any(not lim.get(r) for lim in _limits(objects) for r in required & {"cpu", "memory"})


def _limits_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sContainerLimits: a missing required limit decides; `-1` and maxima may not."""
    required = {r for r in ("cpu", "memory") if str(params.get(r)) != "-1"}
    if _missing(required, objects):
        return None  # a limit both require is missing: the label is decided
    not_required = sorted({"cpu", "memory"} - required)
    if not_required:
        return f"constraint does not require a {not_required[0]} limit ({not_required[0]}: -1)"
    why = None
    for lim in _limits(objects):
        for res in ("cpu", "memory"):
            over = False
            if res in params:
                have, most = _quantity(lim[res]), _quantity(params[res])
                over = have is None or most is None or have > most
            if over and _vacuous(res, lim[res]):
                return None  # beyond the maximum and any node's size: both flag it
            if why is None and over:
                why = f"{res} limit {lim[res]!r} vs the constraint's maximum {params[res]!r}"
            elif why is None and _vacuous(res, lim[res]):
                why = _vacuous_reason(res, lim[res])
    return why


def _vacuous(res: str, value: object) -> bool:
    """A limit beyond any node's size, which the catalogue reads as no limit (k8s_effective)."""
    number = quantity(value)
    return number is not None and number > (MAX_CPU_CORES if res == "cpu" else MAX_MEMORY_BYTES)


def _vacuous_reason(res: str, value: object) -> str:
    return (
        f"{res} limit {value!r} is beyond any node's size (the catalogue reads it as no limit; "
        "the constraint accepts it)"
    )


def _resources_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sRequiredResources: a missing required cpu/memory limit decides; other requirements
    (a limit not required, requests, other resources) may not."""
    required = set(params.get("limits") or [])
    if _missing(required, objects):
        return None
    if not {"cpu", "memory"} <= required:
        return f"constraint requires limits {sorted(required)}, not cpu and memory"
    for kind, names in (("limits", required), ("requests", set(params.get("requests") or []))):
        if any(not have.get(n) for have in _limits(objects, kind) for n in names):
            return f"a container lacks required {kind} {sorted(names)} (no canonical id)"
    for lim in _limits(objects):
        for res in ("cpu", "memory"):
            if _vacuous(res, lim.get(res)):
                return _vacuous_reason(res, lim[res])
    return None


def _image_tag(image: str) -> str:
    last = image.rsplit("/", 1)[-1]
    return last.rsplit(":", 1)[1] if ":" in last else ""


PINNED_TAG = re.compile(r"^(?:[vV]?[0-9]+\.[0-9]+|[0-9]{6,}|(?:sha-|g)?[0-9a-f]{7,40}$)")
"""Tags `kubernetes.rego`'s ``pinned_tag`` accepts (release, date/build stamp, commit hash)."""


def _tags_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sDisallowedTags: 'latest' must be disallowed; other tags may decide the label."""
    tags = set(params.get("tags") or [])
    if "latest" not in tags:
        return "constraint does not disallow the latest tag"
    images = [c.get("image") for o in objects for c in containers(o)]
    pinned = [i for i in images if isinstance(i, str) and "@" not in i]
    if any(_image_tag(i) in ("", "latest") for i in pinned):
        return None
    extra = sorted({_image_tag(i) for i in pinned} & (tags - {"latest"}))
    if extra:
        return f"disallowed tags {extra} (no canonical id)"
    floating = sorted({t for i in pinned if not PINNED_TAG.match(t := _image_tag(i))} - tags)
    return (
        f"floating tags {floating} the constraint allows (the catalogue does not)"
        if floating
        else None
    )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _host_port(value: object) -> bool:
    """A hostPort the catalogue flags (`k8s/host-port`): set, and not 0."""
    return value is not None and not (_is_number(value) and value == 0)


def _outside(port: Obj, params: Params) -> bool | None:
    """K8sPSPHostNetworkingPorts on one port: its hostPort is below min or above max (each
    only when given); None when the hostPort is not a number (Rego orders types, CEL fails)."""
    if "hostPort" not in port:
        return False
    hp = port["hostPort"]
    if not _is_number(hp):
        return None
    lo, hi = params.get("min"), params.get("max")
    return (_is_number(lo) and hp < lo) or (_is_number(hi) and hp > hi)


def _host_network_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPHostNetworkingPorts: the pod's hostNetwork violates unless the constraint allows
    it, and a hostPort outside [min, max] of a container whose image is not exempt violates;
    the catalogue flags hostNetwork: true (`k8s/host-network`) and every hostPort but 0
    (`k8s/host-port`), i.e. the same when the range admits no port but 0. A unit both flag
    decides the case; a unit judged differently (hostNetwork allowed, a hostPort the range
    admits, an exempt image, a container whose ports the template's Rego and CEL engines judge
    differently) puts it out of scope."""
    differ = None
    patterns = params.get("exemptImages") or []
    for obj in objects:
        hn = pod_spec(obj).get("hostNetwork")
        ours, theirs = hn is True, hn not in (None, False) and not params.get("hostNetwork")
        if ours and theirs:
            return None
        if ours != theirs and differ is None:
            differ = (
                "constraint allows hostNetwork (it only checks hostPort ranges)"
                if ours
                else f"hostNetwork {hn!r} (the catalogue flags true only)"
            )
        for c in containers(obj):
            ports = [p for p in c.get("ports") or [] if isinstance(p, dict)]
            ours = any(_host_port(p.get("hostPort")) for p in ports)
            judged = [_outside(p, params) for p in ports]
            lo, hi = params.get("min"), params.get("max")
            cel = bool(ports) and (
                all("hostPort" in p and _is_number(lo) and _outside(p, {"min": lo}) for p in ports)
                or all(
                    "hostPort" in p and _is_number(hi) and _outside(p, {"max": hi}) for p in ports
                )
            )
            if exempt(c.get("image"), patterns):
                theirs, why = False, f"image {c.get('image')!r} exempted by exemptImages"
            elif None in judged:
                theirs, why = not ours, "a hostPort that is not a number"
            elif any(judged) != cel:
                theirs, why = (
                    not ours,
                    (
                        "container ports the template's Rego and CEL engines judge differently "
                        "(some ports in the allowed range or without hostPort)"
                    ),
                )
            elif any(judged):
                theirs, why = True, "the constraint's port range rejects hostPort 0"
            else:
                theirs, why = False, f"hostPort range [{lo}, {hi}] admits the hostPort"
            if ours and theirs:
                return None
            if ours != theirs and differ is None:
                differ = f"{why} (the catalogue flags every hostPort but 0)"
    return differ


def _users_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPAllowedUsers: only runAsUser MustRunAsNonRoot is modelled."""
    rule = (params.get("runAsUser") or {}).get("rule")
    if rule != "MustRunAsNonRoot":
        return f"runAsUser rule {rule!r} (only MustRunAsNonRoot is modelled)"
    for key in ("runAsGroup", "supplementalGroups", "fsGroup"):
        if (params.get(key) or {}).get("rule") in ("MustRunAs", "MayRunAs"):
            return f"{key} ranges (no canonical id)"
    return None


def _host_paths_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPHostFilesystem: allowedHostPaths may allow a hostPath the catalogue flags."""
    allowed = [p.get("pathPrefix", "") for p in params.get("allowedHostPaths") or []]
    paths = [
        str((v.get("hostPath") or {}).get("path", ""))
        for o in objects
        for v in pod_spec(o).get("volumes") or []
        if isinstance(v, dict) and "hostPath" in v
    ]
    if not allowed or any(not any(p.startswith(a) for a in allowed) for p in paths):
        return None
    return "hostPath allowed by allowedHostPaths" if paths else None


def _volumes_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPVolumeTypes: hostPath must be disallowed; other types may decide."""
    allowed = set(params.get("volumes") or [])
    if allowed & {"*", "hostPath"}:
        return "constraint allows hostPath volumes"
    volumes = [v for o in objects for v in pod_spec(o).get("volumes") or [] if isinstance(v, dict)]
    if any("hostPath" in v for v in volumes):
        return None
    types = sorted({k for v in volumes for k in v if k != "name"} - allowed)
    return f"volume types {types} not allowed (no canonical id)" if types else None


def _norm_cap(cap: str) -> str:
    up = cap.upper()
    return up[4:] if up.startswith("CAP_") else up


def _caps_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPCapabilities: an allow-list and required drops versus the catalogue's deny-list."""
    allowed = {str(c).lower() for c in params.get("allowedCapabilities") or []}
    must_drop = {str(c).lower() for c in params.get("requiredDropCapabilities") or []}
    differ, drops_missing = set(), False
    for c in (c for o in objects for c in containers(o)):
        caps = ((c.get("securityContext") or {}).get("capabilities")) or {}
        for cap in (x for x in caps.get("add") or [] if isinstance(x, str)):
            theirs = "*" not in allowed and cap.lower() not in allowed
            ours = _norm_cap(cap) in DANGEROUS_CAPABILITIES
            if theirs and ours:
                return None  # a capability both forbid decides the label
            if theirs != ours:
                differ.add(cap)
        dropped = {str(x).lower() for x in caps.get("drop") or []}
        drops_missing |= bool(must_drop - dropped) and "all" not in dropped
    if differ:
        return f"allowedCapabilities judge {sorted(differ)} unlike the catalogue's set"
    return "requiredDropCapabilities (no canonical id)" if drops_missing else None


SECCOMP_POD_KEY = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_KEY = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_KEY = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_NAMES = {
    "RuntimeDefault": ("runtime/default", "docker/default"),
    "Unconfined": ("unconfined",),
    "Localhost": ("localhost",),
    "runtime/default": ("RuntimeDefault",),
    "docker/default": ("RuntimeDefault",),
    "unconfined": ("Unconfined",),
    "localhost": ("Localhost",),
}


def _sc(obj: object) -> Obj:
    sc = obj.get("securityContext") if isinstance(obj, dict) else None
    return sc if isinstance(sc, dict) else {}


def _notes(obj: Obj) -> Obj:
    notes = (obj.get("metadata") or {}).get("annotations") if isinstance(obj, dict) else None
    return notes if isinstance(notes, dict) else {}


def _unconfined(value: object) -> bool:
    return str(value).lower() == "unconfined"


def _kind_of(profile: object) -> object:
    return profile.get("type") if isinstance(profile, dict) else None


def _not_pods(objects: list[Obj]) -> str | None:
    """The pod-security templates read ``spec`` of the reviewed object itself: a workload's
    pod template is never judged."""
    kinds = sorted({str(o.get("kind")) for o in objects} - {"Pod"})
    return (
        f"the template judges a Pod's own spec, not a {kinds[0]}'s pod template" if kinds else None
    )


def _profile_scope(
    objects: list[Obj],
    prefix: str,
    ours: Callable[[Obj, Obj, Obj, Obj], bool],
    theirs: Callable[[Obj, Obj, Obj, Obj], bool],
    note: str,
) -> str | None:
    """Per container (ours/theirs of container, pod spec, pod, annotations), and per container
    annotation naming no container of the episode (the catalogue reads it; the policy does not):
    a unit both flag decides, a unit judged differently puts the case out of scope."""
    if (why := _not_pods(objects)) is not None:
        return why
    differ = None
    for obj in objects:
        spec, notes = pod_spec(obj), _notes(obj)
        names = set()
        for c in containers(obj):
            names.add(str(c.get("name")))
            o, t = ours(c, spec, obj, notes), theirs(c, spec, obj, notes)
            if o and t:
                return None
            if o != t and differ is None:
                side = "the catalogue flags it" if o else "the constraint flags it"
                differ = f"{note}; at container {c.get('name')!r}: {side}"
        if not names and ours({}, spec, obj, notes) and differ is None:
            differ = "the pod's own profile with no container to judge (the catalogue flags it)"
        for key, value in notes.items():
            stray = str(key).startswith(prefix) and str(key)[len(prefix) :] not in names
            if stray and _unconfined(value) and differ is None:
                differ = f"annotation {key} names no judged container (the catalogue flags it)"
    return differ


def _seccomp_ours(c: Obj, spec: Obj, obj: Obj, notes: Obj) -> bool:
    """The catalogue on a container: its own or the pod's seccompProfile.type Unconfined, or its
    own or the pod-wide annotation 'unconfined' (every source, no precedence)."""
    types = (_kind_of(_sc(c).get("seccompProfile")), _kind_of(_sc(spec).get("seccompProfile")))
    keys = (SECCOMP_KEY + str(c.get("name")), SECCOMP_POD_KEY)
    return "Unconfined" in types or any(k in notes and _unconfined(notes[k]) for k in keys)


def _seccomp_profile(c: Obj, spec: Obj, notes: Obj) -> tuple[object, object] | None:
    """K8sPSPSeccomp's (profile, localhost file) of a container: its securityContext, else the
    pod's, else its annotation, else the pod-wide one, else 'not configured'; None when the
    chosen securityContext profile has no type (the template then reports nothing)."""
    for sc in (_sc(c), _sc(spec)):
        if sc.get("seccompProfile") not in (None, False):
            profile = sc["seccompProfile"] if isinstance(sc["seccompProfile"], dict) else {}
            if "type" not in profile:
                return None
            return profile["type"], profile.get("localhostProfile", "")
    for key in (SECCOMP_KEY + str(c.get("name")), SECCOMP_POD_KEY):
        if notes.get(key) not in (None, False):
            return notes[key], ""
    return "not configured", ""


def _seccomp_allowed(profile: object, file: object, params: Params) -> bool:
    """K8sPSPSeccomp's allowed_profile with its translations between the two naming schemes."""
    given = [p for p in params.get("allowedProfiles") or [] if isinstance(p, str)]
    files = [f for f in params.get("allowedLocalhostFiles") or [] if isinstance(f, str)]
    allowed = set(given)
    allowed |= {
        t for p in given if not p.lower().startswith("localhost") for t in _SECCOMP_NAMES.get(p, ())
    }
    if "Localhost" in given:
        allowed |= {f"localhost/{f}" for f in files}
    if any(p.startswith("localhost") for p in given):
        allowed.add("Localhost")
    any_file = "*" in files or "localhost/*" in given
    named = set(files) | {p.removeprefix("localhost/") for p in given if p.startswith("localhost/")}
    if not isinstance(profile, str):
        return False
    if not profile.lower().startswith("localhost") and profile in allowed:
        return True
    if profile == "Localhost" and "Localhost" in allowed and (any_file or file in named):
        return True
    return profile.startswith("localhost/") and ("localhost/*" in allowed or profile in allowed)


def _seccomp_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPSeccomp: an allow-list, judged on each container's one effective profile (an unset
    profile is 'not configured', allowed only when listed); the catalogue flags Unconfined in
    any source. Out of scope where they differ (e.g. an unset profile, a custom profile, an
    Unconfined source the container's own profile overrides)."""
    wildcard = "*" in (params.get("allowedProfiles") or [])

    def theirs(c: Obj, spec: Obj, obj: Obj, notes: Obj) -> bool:
        found = None if wildcard else _seccomp_profile(c, spec, notes)
        return found is not None and not _seccomp_allowed(*found, params)

    return _profile_scope(
        objects,
        SECCOMP_KEY,
        _seccomp_ours,
        theirs,
        "allowedProfiles judge the container's effective profile unlike the catalogue (Unconfined "
        "in any source)",
    )


def _apparmor_ours(c: Obj, spec: Obj, obj: Obj, notes: Obj) -> bool:
    key = APPARMOR_KEY + str(c.get("name"))
    types = (_kind_of(_sc(c).get("appArmorProfile")), _kind_of(_sc(spec).get("appArmorProfile")))
    return "Unconfined" in types or (key in notes and _unconfined(notes[key]))


def _apparmor_name(profile: object) -> object:
    """K8sPSPAppArmor's canonical name of a securityContext appArmorProfile (None: undefined)."""
    kind = _kind_of(profile)
    if kind == "RuntimeDefault":
        return "runtime/default"
    if kind == "Unconfined":
        return "unconfined"
    if kind == "Localhost" and isinstance(profile, dict) and "localhostProfile" in profile:
        return f"localhost/{profile['localhostProfile']}"
    return None


def _apparmor_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPAppArmor: each container's profile (its appArmorProfile, else its annotation, else
    the pod's appArmorProfile, unset = runtime/default) must be in allowedProfiles; the
    catalogue flags Unconfined/'unconfined' in any source."""
    allowed = list(params.get("allowedProfiles") or [])

    def theirs(c: Obj, spec: Obj, obj: Obj, notes: Obj) -> bool:
        key = APPARMOR_KEY + str(c.get("name"))
        if _sc(c).get("appArmorProfile") is not None:
            profile = _apparmor_name(_sc(c)["appArmorProfile"])
        elif notes.get(key) not in (None, False):
            profile = notes[key]
        else:
            pod_profile = _sc(spec).get("appArmorProfile")
            profile = "runtime/default" if pod_profile is None else _apparmor_name(pod_profile)
        return profile is None or profile not in allowed

    return _profile_scope(
        objects,
        APPARMOR_KEY,
        _apparmor_ours,
        theirs,
        "allowedProfiles judge the container's effective profile unlike the catalogue "
        "(unconfined in any source)",
    )


def _proc_mount_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPProcMount: with procMount Default (or none given) a container whose procMount is
    set and is not 'default' (case-insensitive) violates; Unmasked allows everything."""
    if (why := _not_pods(objects)) is not None:
        return why
    value = params.get("procMount", "Default")
    if not isinstance(value, str) or value.lower() not in ("default", "unmasked"):
        return f"procMount parameter {value!r} is neither Default nor Unmasked"
    differ = None
    for c in (c for o in objects for c in containers(o)):
        pm = _sc(c).get("procMount")
        ours = pm is not None and pm != "Default"
        theirs = value.lower() == "default" and "procMount" in _sc(c) and pm is not False
        theirs = theirs and not (isinstance(pm, str) and pm.lower() == "default")
        if ours and theirs:
            return None
        if ours != theirs and differ is None:
            differ = (
                "constraint allows Unmasked"
                if value.lower() == "unmasked"
                else f"procMount {pm!r} is judged differently (the template lowercases it)"
            )
    return differ


def _sysctl_matches(name: str, patterns: list[object]) -> bool:
    return any(
        p == "*"
        or p == name
        or (isinstance(p, str) and p.endswith("*") and name.startswith(p[:-1]))
        for p in patterns
    )


def _sysctls_scope(params: Params, objects: list[Obj]) -> str | None:
    """K8sPSPForbiddenSysctls: a pod sysctl that is forbidden, or not allowed when
    allowedSysctls is given, violates; the catalogue flags every sysctl outside its safe set."""
    if (why := _not_pods(objects)) is not None:
        return why
    forbidden = list(params.get("forbiddenSysctls") or [])
    allowed = params.get("allowedSysctls")
    differ = None
    for obj in objects:
        for entry in _sc(pod_spec(obj)).get("sysctls") or []:
            name = entry.get("name") if isinstance(entry, dict) else None
            ours = not (isinstance(name, str) and name in SAFE_SYSCTLS)
            theirs = isinstance(entry, dict) and "name" in entry
            if theirs:
                named = str(name)
                barred = _sysctl_matches(named, forbidden)
                admitted = allowed in (None, False) or _sysctl_matches(named, list(allowed or []))
                theirs = barred or not admitted
            if ours and theirs:
                return None
            if ours != theirs and differ is None:
                side = "the catalogue flags it" if ours else "the constraint flags it"
                differ = (
                    f"forbiddenSysctls/allowedSysctls judge sysctl {name!r} unlike the catalogue's "
                    f"safe set ({side})"
                )
    return differ


Exemptions = Literal["containers", "pod", "none"]


@dataclass(frozen=True)
class PolicyMap:
    """Canonical ids a policy's violations correspond to, its parameter scope rule and what
    ``exemptImages`` exempt: single containers, the pod's property, or nothing modelled."""

    ids: tuple[str, ...]
    scope: Scope = _no_params
    exemptions: Exemptions = "containers"
    note: str = ""


POLICIES: dict[str, PolicyMap] = {
    "general/containerlimits": PolicyMap(
        ("k8s/missing-resource-limits",), _limits_scope, note="limits required, maxima ignored"
    ),
    "general/containerresources": PolicyMap(
        ("k8s/missing-resource-limits",), _resources_scope, note="limits [cpu, memory]"
    ),
    "general/disallowedtags": PolicyMap(
        ("k8s/image-latest-tag",), _tags_scope, note="tags [latest]; untagged images too"
    ),
    "pod-security-policy/privileged-containers": PolicyMap(("k8s/privileged-container",)),
    "pod-security-policy/allow-privilege-escalation": PolicyMap(("k8s/privilege-escalation",)),
    "pod-security-policy/host-namespaces": PolicyMap(
        ("k8s/host-pid", "k8s/host-ipc"), exemptions="pod"
    ),
    "pod-security-policy/host-network-ports": PolicyMap(
        ("k8s/host-network", "k8s/host-port"),
        _host_network_scope,
        exemptions="none",
        note="hostNetwork forbidden; hostPorts outside [min, max], exemptImages in the scope rule",
    ),
    "pod-security-policy/read-only-root-filesystem": PolicyMap(("k8s/writable-root-filesystem",)),
    "pod-security-policy/users": PolicyMap(("k8s/run-as-root",), _users_scope),
    "pod-security-policy/host-filesystem": PolicyMap(
        ("k8s/hostpath-volume",), _host_paths_scope, exemptions="pod"
    ),
    "pod-security-policy/volumes": PolicyMap(
        ("k8s/hostpath-volume",), _volumes_scope, exemptions="pod"
    ),
    "pod-security-policy/capabilities": PolicyMap(("k8s/dangerous-capabilities",), _caps_scope),
    "pod-security-policy/seccomp": PolicyMap(
        ("k8s/seccomp-unconfined",), _seccomp_scope, note="allowedProfiles; unset profiles out"
    ),
    "pod-security-policy/apparmor": PolicyMap(("k8s/apparmor-unconfined",), _apparmor_scope),
    "pod-security-policy/proc-mount": PolicyMap(("k8s/unmasked-proc-mount",), _proc_mount_scope),
    "pod-security-policy/forbidden-sysctls": PolicyMap(
        ("k8s/unsafe-sysctls",), _sysctls_scope, exemptions="none"
    ),
}


def _matched_kinds(constraint: Obj) -> set[str] | None:
    kinds = ((constraint.get("spec") or {}).get("match") or {}).get("kinds")
    if not isinstance(kinds, list):
        return None
    return {str(k) for entry in kinds if isinstance(entry, dict) for k in entry.get("kinds") or []}


def without_exempt(objects: list[Obj], patterns: list[Any]) -> tuple[list[Obj], int, int]:
    """(copies of `objects` without exempted containers, containers removed, containers kept)."""
    out, removed, kept = [], 0, 0
    for obj in objects:
        obj = copy.deepcopy(obj)
        spec = pod_spec(obj)
        for f in _CONTAINER_FIELDS:
            if isinstance(spec.get(f), list):
                keep = [
                    c
                    for c in spec[f]
                    if not (isinstance(c, dict) and exempt(c.get("image"), patterns))
                ]
                removed += len(spec[f]) - len(keep)
                kept += len(keep)
                spec[f] = keep
        out.append(obj)
    return out, removed, kept


@dataclass(frozen=True)
class Assessment:
    """How a mapped case is scored: `reason` set means out of scope; `objects` set means the
    episode is these objects (exempted containers removed) rather than the object file."""

    reason: str | None = None
    objects: list[Obj] | None = None
    exempted: int = 0


def assess(case: Case, mapping: PolicyMap) -> Assessment:
    """Whether and how a mapped case is scored (module docstring)."""
    if case.expected is None:
        return Assessment("assertions only filter messages")
    if case.obj is None or not case.obj.is_file():
        return Assessment("object file missing")
    if case.constraint is None or not case.constraint.is_file():
        return Assessment("constraint file missing")
    objects = read_objects(case.obj)
    if any(o.get("kind") == "AdmissionReview" for o in objects):
        return Assessment(
            "AdmissionReview request (Gatekeeper skips UPDATE; not a static manifest)"
        )
    try:
        constraint = _read_yaml(case.constraint) or {}
    except GatekeeperError as exc:
        return Assessment(f"constraint does not parse: {' '.join(str(exc).split())[:200]}")
    if not isinstance(constraint, dict):
        return Assessment("constraint is not a mapping")
    params = (constraint.get("spec") or {}).get("parameters") or {}
    kinds = _matched_kinds(constraint)
    unmatched = sorted({str(o.get("kind")) for o in objects} - (kinds or set()))
    if kinds is not None and "*" not in kinds and unmatched:
        return Assessment(f"kind {unmatched} not matched by the constraint")
    patterns = (params.get("exemptImages") or []) if mapping.exemptions != "none" else []
    view, removed, kept = without_exempt(objects, patterns)
    if removed and mapping.exemptions == "pod":
        return Assessment("image exempted by exemptImages (pod-level property)")
    if removed and not kept:
        return Assessment("every container exempted by exemptImages")
    reason = mapping.scope(params, view)
    if reason is None and "k8s/hostpath-volume" in mapping.ids:
        reason = _claimed_host_path(view)
    if reason is not None:
        return Assessment(reason)
    return Assessment(None, view if removed else None, removed)


def _claimed_host_path(objects: list[Obj]) -> str | None:
    """A claim bound to a hostPath PersistentVolume of the file (k8s_effective) when the pod
    declares no hostPath volume itself: the catalogue flags it, the policies read the pod's
    volumes as written."""
    inline = any(
        isinstance(v, dict) and "hostPath" in v
        for o in objects
        for v in pod_spec(o).get("volumes") or []
    )
    resolved = [
        v
        for o in effective_objects(objects)
        if isinstance(o, dict)
        for v in pod_spec(o).get("volumes") or []
        if isinstance(v, dict) and "hostPath" in v
    ]
    if resolved and not inline:
        return (
            "a claim binds a hostPath PersistentVolume of the file (the catalogue follows it; "
            "the policy reads the pod's volumes as written)"
        )
    return None
