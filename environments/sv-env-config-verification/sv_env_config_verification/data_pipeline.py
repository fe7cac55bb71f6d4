"""E2's part of the dataset pipeline: sources, facets and the synthetic-data recipe.

Rows are :class:`ConfigItem` episodes. The label is ``clean`` or ``misconfigured`` — whether
the tool oracle (the Rego pack via regorus, checkov and semgrep, mapped to canonical ids)
reports any violation; the scenario is the config kind plus the violation family of the
oracle's findings (``k8s/workload``, ``k8s/rbac``, ``terraform/data-protection``,
``terraform/access`` or ``<kind>/clean``); the group is ``base_id``, so every variant of one
base config (and every synthetic config written from it) stays in one split.

Acceptance policy for ``sv synth`` candidates. Each seed template shows one secure base
config and asks for a config for a different application in the same style, either fully
hardened or carrying one named catalogue misconfiguration.

* schema — the completion must hold a config of the template's kind: a fenced block (yaml /
  hcl fences tried first; an unterminated last fence is allowed) or, with no fence, the text
  from the first line that starts a manifest / Terraform block, that parses with the
  environment's own parser (``ConfigFile`` + ``configs.parse``: YAML objects with apiVersion,
  kind and metadata.name, alias bombs refused; HCL with Terraform top-level blocks only).
* verify — the oracle (the same scan that labels the built-in data) must run without tool
  errors, with the Rego pack available, on a config holding at least one resource the
  catalogue audits (a workload or RBAC object; an AWS resource type the rules cover). The
  label is the oracle's: any finding makes it ``misconfigured`` (also when a hardened config
  was asked for), no finding makes it ``clean``. A candidate asked to carry a
  misconfiguration on which the oracle finds nothing is rejected: the injection failed or lies
  outside the oracle's coverage, and a ``clean`` label would be unverified.
* dedup — exact or near copies of the shown base, of an earlier candidate or of a built row
  are rejected by the generic filter.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from sv_env_config_verification.canonical import CATALOGUE
from sv_env_config_verification.configs import KINDS, ConfigError, ConfigFile, parse
from sv_env_config_verification.dataset import (
    CLEAN_FRACTION,
    CORPUS_DIR,
    DEFAULT_N,
    DEFAULT_SEED,
    DIR_SUFFIXES,
    ENV_ID,
    ConfigItem,
    DatasetError,
    build_items,
    finding_dict,
    load_bases,
    load_report,
)
from sv_env_config_verification.mutations import supported_ids
from sv_env_config_verification.tools.semgrep_tool import WORKLOADS
from sv_shared import data as sv_data
from sv_shared.data import reject_unknown_options

LABELS = ("clean", "misconfigured")
FAMILIES: Mapping[str, tuple[str, ...]] = {
    "k8s/workload": (
        "k8s/privileged-container",
        "k8s/host-network",
        "k8s/host-pid",
        "k8s/host-ipc",
        "k8s/hostpath-volume",
        "k8s/dangerous-capabilities",
        "k8s/run-as-root",
        "k8s/privilege-escalation",
        "k8s/writable-root-filesystem",
        "k8s/missing-resource-limits",
        "k8s/image-latest-tag",
        "k8s/host-port",
        "k8s/seccomp-unconfined",
        "k8s/apparmor-unconfined",
        "k8s/unmasked-proc-mount",
        "k8s/unsafe-sysctls",
    ),
    "k8s/rbac": ("k8s/rbac-wildcard", "k8s/cluster-admin-binding"),
    "terraform/data-protection": (
        "tf/s3-unencrypted",
        "tf/rds-unencrypted",
        "tf/ebs-unencrypted",
        "tf/kms-rotation-disabled",
    ),
    "terraform/access": (
        "tf/s3-public-access",
        "tf/sg-open-admin-port",
        "tf/rds-public",
        "tf/iam-wildcard-action",
        "tf/cloudtrail-logging-disabled",
    ),
}
"""Coarse violation families: fine enough to separate what a config gets wrong, coarse enough
that ~33 base groups still fill every (label, scenario) stratum at 70/15/15."""
FAMILY_OF = {vid: family for family, ids in FAMILIES.items() for vid in ids}
LICENSE_BUILTIN = "Apache-2.0 (the project's corpus and mutation engine)"
SYNTH_MAX_BASE_CHARS = 2600
"""Bases longer than this are not shown to synthesis models (prompt + answer must fit 4k)."""
SYNTH_MISCONFIGS_PER_BASE = 2
SYNTH_SPLIT = "unassigned"
"""The split field of synthetic rows until a build assigns one."""
K8S_AUDITED_KINDS = WORKLOADS | {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.S)
_START = {
    "k8s": re.compile(r"^(?:---\s*$|apiVersion\s*:|kind\s*:)", re.M),
    "terraform": re.compile(
        r'^(?:resource|data|module|variable|output|provider)\s+"|^(?:terraform|locals)\s*\{', re.M
    ),
}
_FENCE_LANGS = {
    "k8s": ("yaml", "yml", "k8s", "kubernetes", "config", ""),
    "terraform": ("hcl", "terraform", "tf", "config", ""),
}
_HF_SUFFIXES = (".csv", ".json", ".jsonl", ".parquet")
_KIND_WORDS = {"k8s": "Kubernetes manifest (YAML)", "terraform": "Terraform file (HCL, AWS)"}
_SOURCE_OPTIONS = {
    "builtin": {"n", "clean_fraction", "generator_seed", "tools", "cache_dir"},
    "dir": {"recursive", "strict", "strip_comments", "tools", "cache_dir"},
    "hf": {"hf_split", "strict", "text_column", "name_column", "kind_column", "tools", "cache_dir"},
}


# ------------------------------------------------------------------------------- facets
def label_of(item: ConfigItem) -> str:
    return "clean" if item.is_clean else "misconfigured"


def scenario_of(item: ConfigItem) -> str:
    """``<kind>/<family>`` of the oracle's findings (the most frequent family), or clean."""
    if item.is_clean:
        return f"{item.kind}/clean"
    counts = Counter(FAMILY_OF.get(fid, f"{item.kind}/other") for fid in item.finding_ids)
    return max(sorted(counts), key=lambda family: counts[family])


def facets(item: ConfigItem) -> sv_data.Facets:
    return sv_data.Facets(
        label=label_of(item), scenario=scenario_of(item), group=item.base_id, text=item.text
    )


def assign_split(item: ConfigItem, split: str) -> ConfigItem:
    return item.model_copy(update={"split": split})


# ------------------------------------------------------------------------------- versions
@cache
def generator_version() -> str:
    """A fingerprint of the built-in generator: corpus files plus the code that mutates them."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    files = sorted(p for p in CORPUS_DIR.rglob("*") if p.is_file())
    for path in [*files, package / "mutations.py", package / "dataset.py"]:
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"e2-builtin@sha256:{digest.hexdigest()[:16]}"


def oracle_versions(tools: Sequence[str] | None = None) -> dict[str, str]:
    from sv_env_config_verification.oracle import tool_versions
    from sv_env_config_verification.tools import DEFAULT_TOOLS

    return tool_versions(tuple(tools or DEFAULT_TOOLS))


def versions() -> dict[str, str]:
    found = oracle_versions()
    return {
        "generator": generator_version(),
        "verifier": "e2-oracle: " + "; ".join(f"{k}={v}" for k, v in found.items()),
        **{f"oracle.{name}": version for name, version in found.items()},
    }


# ------------------------------------------------------------------------------- sources
class OracleLabeler:
    """The oracle as a ``scan`` function for :func:`load_items` that remembers tool errors."""

    def __init__(self, tools: Sequence[str], cache_dir: str | None) -> None:
        from sv_env_config_verification.scan_cache import ScanCache

        self.tools = tuple(tools)
        self.store = ScanCache(directory=cache_dir) if cache_dir else ScanCache()
        self.errors: dict[str, str] = {}

    def __call__(self, config: ConfigFile) -> Sequence[Any]:
        from sv_env_config_verification.oracle import scan

        result = scan(config, tools=self.tools, cache=self.store)
        if result.errors:
            self.errors[config.content_hash] = "; ".join(
                f"{tool}: {error}" for tool, error in sorted(result.errors.items())
            )
        return result.findings

    def error_of(self, item: ConfigItem) -> str | None:
        return self.errors.get(hashlib.sha256(item.text.encode("utf-8")).hexdigest())


def _flag(options: dict[str, str], key: str, default: bool) -> bool:
    value = options.pop(key, None)
    if value is None:
        return default
    if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
        raise ValueError(f"option {key}={value!r}: expected true or false")
    return value.lower() in ("1", "true", "yes")


def _number(options: dict[str, str], key: str, default: Any, kind: Callable[[str], Any]) -> Any:
    value = options.pop(key, None)
    if value is None:
        return default
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"option {key}={value!r}: expected a {kind.__name__}") from None


def _labeler(options: dict[str, str]) -> OracleLabeler:
    from sv_env_config_verification.environment import default_scan_cache_dir
    from sv_env_config_verification.tools import DEFAULT_TOOLS, TOOL_NAMES

    tools = [t.strip() for t in options.pop("tools", ",".join(DEFAULT_TOOLS)).split(",")]
    unknown = [t for t in tools if t not in TOOL_NAMES]
    if unknown or not any(tools):
        raise ValueError(f"option tools: unknown tool(s) {unknown}; valid: {', '.join(TOOL_NAMES)}")
    cache_dir = options.pop("cache_dir", None) or str(default_scan_cache_dir())
    return OracleLabeler(tools, cache_dir)


def _tree_hash(files: Sequence[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        rel = path.relative_to(root).as_posix() if path != root else path.name
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()}"


def _input_revision(source: str, path: str, recursive: bool) -> str:
    where = Path(path)
    if source == "hf" and not where.exists():
        return f"hf-hub:{path}@unpinned"
    if where.is_file():
        return _tree_hash([where], where)
    suffixes = DIR_SUFFIXES if source == "dir" else _HF_SUFFIXES
    pattern = where.rglob("*") if recursive or source == "hf" else where.glob("*")
    files = [p for p in pattern if p.is_file() and p.suffix.lower() in suffixes]
    return _tree_hash(files, where)


def _without_errors(
    items: Sequence[ConfigItem], labeler: OracleLabeler
) -> tuple[list[ConfigItem], list[tuple[str, str]]]:
    kept: list[ConfigItem] = []
    rejected: list[tuple[str, str]] = []
    for item in items:
        error = labeler.error_of(item)
        if error is None:
            kept.append(item)
        else:
            rejected.append((f"{item.id} ({item.base_id})", f"oracle tool error: {error}"))
    return kept, rejected


def _load(name: str, request: sv_data.SourceRequest) -> sv_data.SourceData:
    options = dict(request.options)
    reject_unknown_options(name, options, sorted(_SOURCE_OPTIONS[name]))
    labeler = _labeler(options)
    notes: dict[str, Any] = {
        "tools": list(labeler.tools),
        "tool_versions": oracle_versions(labeler.tools),
    }
    skipped: list[tuple[str, str]] = []  # inputs a strict=False load skipped
    if name == "builtin":
        n = _number(options, "n", DEFAULT_N, int)
        fraction = _number(options, "clean_fraction", CLEAN_FRACTION, float)
        generator_seed = _number(options, "generator_seed", DEFAULT_SEED, int)
        try:
            items = build_items(generator_seed, n, clean_fraction=fraction, scan=labeler)
        except ValueError as exc:
            raise ValueError(f"option n / clean_fraction: {exc}") from None
        notes |= {"n": n, "clean_fraction": fraction, "generator_seed": generator_seed}
        origin, revision, license_ = "generated", generator_version(), LICENSE_BUILTIN
    else:
        if not request.path:
            raise ValueError(f"source {name!r} needs --path (a directory or dataset)")
        recursive = _flag(options, "recursive", True)
        columns = {
            role: options.pop(f"{role}_column")
            for role in ("text", "name", "kind")
            if f"{role}_column" in options
        }
        report = load_report(
            "all",
            name,
            request.path,
            seed=request.seed,
            recursive=recursive,
            strict=_flag(options, "strict", True),
            hf_split=options.pop("hf_split", "train"),
            columns=columns or None,
            scan=labeler,
            strip_comments=_flag(options, "strip_comments", True),
        )
        items, skipped = report.items, list(report.skipped)
        origin, license_ = request.path, "see source"
        revision = _input_revision(name, request.path, recursive)
    items, rejected = _without_errors(items, labeler)
    rejected = skipped + rejected
    return sv_data.SourceData(
        rows=items,
        name=name,
        license=license_,
        origin=origin,
        revision=revision,
        notes=notes,
        rejected=rejected,
    )


def _source(name: str) -> Callable[[sv_data.SourceRequest], sv_data.SourceData]:
    def load(request: sv_data.SourceRequest) -> sv_data.SourceData:
        try:
            return _load(name, request)
        except DatasetError as exc:
            raise ValueError(str(exc)) from None

    return load


# ------------------------------------------------------------------------------- synthesis
def _request_text(kind: str, request: str) -> str:
    if request == "hardened":
        titles = "; ".join(v.title for v in CATALOGUE.values() if v.kind == kind)
        return (
            f"Keep it fully hardened: it must not contain any of these misconfigurations: {titles}."
        )
    violation = CATALOGUE[request]
    return (
        f"Introduce exactly one security misconfiguration: {violation.title} "
        f"({violation.description}) Keep everything else hardened."
    )


def synth_seed(base_id: str, request: str) -> sv_data.SynthSeed:
    """The template that shows base ``base_id`` and asks for ``request`` ("hardened" or a
    catalogue id)."""
    bases = load_bases()
    if base_id not in bases:
        raise ValueError(f"unknown base {base_id!r}; bases: {', '.join(sorted(bases))}")
    base = bases[base_id]
    if request != "hardened" and request not in CATALOGUE:
        raise ValueError(f"unknown request {request!r}: 'hardened' or a catalogue id")
    lang = "yaml" if base.kind == "k8s" else "hcl"
    what = _KIND_WORDS[base.kind]
    messages = [
        {
            "role": "system",
            "content": f"You write realistic {what}s for a cloud-security training set. Reply "
            f"with exactly one fenced ```{lang} block holding the complete file, and nothing "
            "else.",
        },
        {
            "role": "user",
            "content": f"Example ({base.name}):\n\n```{lang}\n{base.text.rstrip()}\n```\n\n"
            f"Write a new, complete {what} for a different application in the same style, "
            "with new resource names, labels, images, ports, address ranges and tags as fits. "
            f"{_request_text(base.kind, request)}",
        },
    ]
    return sv_data.SynthSeed(
        id=f"{base_id}|{request}",
        messages=messages,
        target={
            "base_id": base_id,
            "kind": base.kind,
            "request": request,
            "label": "clean" if request == "hardened" else "misconfigured",
        },
        max_tokens=min(1100, 64 + int(len(base.text) / 2.2)),
        example_texts=(base.text,),
    )


def synth_seeds(seed: int) -> list[sv_data.SynthSeed]:
    """Per short base: a hardened request and up to two applicable named misconfigurations."""
    rng = random.Random(f"synth:{seed}")
    seeds = []
    for base_id, base in sorted(load_bases().items()):
        if len(base.text) > SYNTH_MAX_BASE_CHARS:
            continue
        applicable = sorted(i for i in supported_ids(base) if i in CATALOGUE)
        chosen = rng.sample(applicable, min(SYNTH_MISCONFIGS_PER_BASE, len(applicable)))
        seeds.extend(synth_seed(base_id, request) for request in ("hardened", *chosen))
    return seeds


def _candidates(kind: str, completion: str) -> list[str]:
    """Config texts a completion may hold: fenced blocks (best language first), then the raw
    text from the first line that starts a config of ``kind``."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(completion)]
    ranked = sorted(
        blocks, key=lambda b: _FENCE_LANGS[kind].index(b[0]) if b[0] in _FENCE_LANGS[kind] else 99
    )
    out = [body for _, body in ranked if body.strip()]
    if not blocks:
        start = _START[kind].search(completion)
        if start is not None:
            out.append(completion[start.start() :])
    return out


def _episode_name(kind: str, text: str, fallback: str) -> str:
    """A plain file name from the config's first object or resource."""
    try:
        parsed = parse(ConfigFile(kind=kind, name="x.yaml" if kind == "k8s" else "x.tf", text=text))
    except ConfigError:
        parsed = None
    stem = fallback
    if kind == "k8s" and isinstance(parsed, list) and parsed:
        stem = f"{parsed[0]['kind']}-{parsed[0]['metadata']['name']}".lower()
    elif kind == "terraform" and isinstance(parsed, dict):
        addresses = [
            f"{rtype}-{name}"
            for block in parsed.get("resource", []) or []
            for rtype, named in (block or {}).items()
            for name in named or {}
        ]
        stem = addresses[0] if addresses else fallback
    stem = re.sub(r"[^A-Za-z0-9._-]", "-", stem).strip(".-")[:100] or fallback
    return f"{stem}.yaml" if kind == "k8s" else f"{stem}.tf"


def parse_candidate(kind: str, completion: str, row_id: str) -> ConfigFile:
    """The config of ``kind`` in a completion, or :class:`sv_data.Rejected` (stage schema)."""
    if kind not in KINDS:
        raise sv_data.Rejected("schema", f"unknown kind {kind!r}")
    texts = _candidates(kind, completion)
    if not texts:
        raise sv_data.Rejected("schema", f"no {_KIND_WORDS[kind]} in the completion")
    first_error = ""
    for text in texts:
        try:
            config = ConfigFile(kind=kind, name=_episode_name(kind, text, row_id), text=text)
            parse(config)
            return config
        except ConfigError as exc:
            first_error = first_error or str(exc)
    raise sv_data.Rejected("schema", f"not a valid {_KIND_WORDS[kind]}: {first_error}"[:300])


def synth_parse(template: sv_data.SynthSeed, completion: str, row_id: str) -> ConfigItem:
    config = parse_candidate(template.target["kind"], completion, row_id)
    return ConfigItem(
        id=row_id,
        kind=config.kind,
        name=config.name,
        text=config.text,
        base_id=template.target["base_id"],
        injected=[],
        findings=[],
        split=SYNTH_SPLIT,
        source="synth",
    )


@cache
def _audited_tf_types() -> frozenset[str]:
    types: set[str] = set()
    for violation in CATALOGUE.values():
        if violation.kind == "terraform":
            types.update(re.findall(r"aws_[a-z0-9_]+", violation.description))
    return frozenset(types)


def audited_resources(config: ConfigFile) -> list[str]:
    """Resources of ``config`` that some catalogue rule looks at."""
    parsed = parse(config)
    if config.kind == "k8s":
        return [
            f"{obj['kind']}/{obj['metadata']['name']}"
            for obj in parsed
            if isinstance(obj, dict) and obj.get("kind") in K8S_AUDITED_KINDS
        ]
    assert isinstance(parsed, dict)
    return [
        f"{rtype}.{name}"
        for block in parsed.get("resource", []) or []
        for rtype, named in (block or {}).items()
        if rtype in _audited_tf_types()
        for name in named or {}
    ]


def oracle_scan(config: ConfigFile) -> Any:
    """The environment's oracle with its default tools and the shared on-disk scan cache."""
    from sv_env_config_verification.environment import default_scan_cache_dir
    from sv_env_config_verification.oracle import scan
    from sv_env_config_verification.scan_cache import ScanCache

    return scan(config, cache=ScanCache(directory=default_scan_cache_dir()))


def synth_verify(template: sv_data.SynthSeed, row: ConfigItem) -> ConfigItem:
    """Label with the tool oracle (module docstring); reject what it cannot vouch for."""
    config = row.config
    if not audited_resources(config):
        raise sv_data.Rejected(
            "verify", "no resource the oracle audits (workload/RBAC or covered AWS)"
        )
    try:
        result = oracle_scan(config)
    except ConfigError as exc:
        raise sv_data.Rejected("verify", f"oracle cannot parse the config: {exc}") from None
    opa = result.per_tool.get("opa")
    if opa is None or not opa.available:
        raise sv_data.Rejected("verify", "the Rego policy pack (opa/regorus) is unavailable")
    if result.errors:
        errors = "; ".join(f"{t}: {e}" for t, e in sorted(result.errors.items()))
        raise sv_data.Rejected("verify", f"oracle tool error(s): {errors}"[:300])
    findings = [finding_dict(f) for f in result.findings]
    request = template.target["request"]
    if request != "hardened" and not findings:
        raise sv_data.Rejected(
            "verify",
            f"asked for {request} but the oracle finds no violation (injection failed or "
            "outside the oracle's coverage), so a clean label is unverified",
        )
    return row.model_copy(update={"findings": findings})


def _synth_verifier() -> str:
    found = ", ".join(f"{k} {v}" for k, v in oracle_versions().items())
    return (
        f"E2 tool oracle ({found}) mapped to canonical ids; label = any finding; rejects tool "
        "errors, unaudited configs and requested misconfigurations the oracle does not see"
    )


def data_adapter() -> sv_data.DataAdapter:
    return sv_data.DataAdapter(
        env_id=ENV_ID,
        row_type=ConfigItem,
        sources={name: _source(name) for name in _SOURCE_OPTIONS},
        facets=facets,
        versions=versions,
        description="Kubernetes manifests and Terraform files labelled clean or misconfigured "
        "by the tool oracle (Rego pack, checkov, semgrep; canonical violation ids in "
        "`findings`). Built-in rows are secure base configs and variants with 1-3 injected "
        "misconfigurations; the scenario is the kind plus the findings' violation family, and "
        "the group is the base config, so variants of one base never cross splits.",
        default_source="builtin",
        assign_split=assign_split,
        labels=LABELS,
        synth=sv_data.SynthRecipe(
            seeds=synth_seeds,
            parse=synth_parse,
            verify=synth_verify,
            verifier=_synth_verifier(),
        ),
    )
