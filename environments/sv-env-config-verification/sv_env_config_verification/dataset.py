"""E2 datasets: the built-in corpus with injected misconfigurations, user directories and
Hugging Face datasets of configs — all labeled by running the oracle.

Built-in items (:func:`build_items`) start from the secure bases in ``corpus/`` (normalised by
:func:`mutations.normalise`): about ``clean_fraction`` of them are left clean, the rest get
1–3 distinct mutations (50/30/20 %). Each item records the ids *injected* and the oracle's
*findings* on the final text; labels are the findings, and :func:`agreement_report` lists
where the two disagree. Splits (train/dev/test ≈ 70/15/15 of the bases, per kind) are
grouped by base config, so no base appears in two splits; among split assignments drawn from
the seed the first that lets every supported mutation id occur in every split is used.
Generating items is cheap and deterministic; labeling runs the tools once per distinct text
(≈0.2–0.3 s with semgrep), so only the requested split/prefix is scanned, and ``cache_dir``
(or ``$SV_E2_SCAN_CACHE_DIR``) keeps tool results on disk between processes. A whole
built-in load (generation + labels; ~2–6 s) is cached on disk by `sv_shared.dataset_cache`,
keyed by this package's tree hash (code, corpus, rules, policies), the tools' versions and the
arguments, so a later load of the same split reads one JSON file.

Sources of :func:`load_items`:

* ``builtin`` — the above.
* ``dir`` — every ``*.yaml``/``*.yml``/``*.json``/``*.tf`` file under ``path`` (recursive by
  default); the kind comes from the extension, the episode name is the sanitised base name, the
  group (``base_id``) is the path relative to ``path``. A JSON manifest is a YAML episode named
  ``<stem>.yaml`` (JSON is YAML; see :func:`configs.manifest_text`). Comments are stripped
  (``strip_comments=False`` keeps them): real configs' comments often name their flaws, and the
  stripped text is the episode (shown, scanned and patched); a file whose stripped text would
  parse differently fails to load. Helm chart files (``Chart.yaml``, ``values*.yaml``, files
  under a chart's ``templates/``) and manifests with Helm template actions (``{{ .Values.x }}``,
  or ``{{ ... }}`` in YAML that does not load) are not manifests: they are always skipped, each
  listed with its reason in the :class:`LoadReport` and counted (``helm_templates``).
* ``hf`` — ``datasets.load_dataset`` on a Hub id or a local csv/json/jsonl/parquet file or
  directory. Column mapping (first present wins): text ← ``content``, ``text``, ``config``;
  name ← ``path``, ``filename``, ``file_name``, ``name``; optional kind ← ``kind``
  (``k8s``/``kubernetes``/``yaml`` or ``terraform``/``tf``/``hcl``), else from the name's
  extension, else from the content. Override with ``columns={"text": ..., "name": ...}``.

A dataset built by ``sv data build`` is read with :func:`load_built` (a build directory, a
build name or ``latest``).

Files and rows are validated (size, UTF-8 text, no NUL bytes, parse). With ``strict=True`` (the
default) a failure raises :class:`DatasetError` naming the file or row and the reason; with
``strict=False`` it is skipped with a warning log line and recorded in the load's
:class:`LoadReport` (``skipped``; :meth:`LoadReport.provenance` gives the count), never silently.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from sv_env_config_verification.configs import (
    SOURCE_EXTENSIONS,
    ConfigError,
    ConfigFile,
    decode_text,
    detect_kind,
    manifest_text,
    parse,
    same_meaning,
    strip_comments,
)
from sv_env_config_verification.mutations import (
    MutationResult,
    normalise,
    random_mutation,
    supported_ids,
)
from sv_shared import dataset_cache
from sv_shared.content_hash import lines_sha256
from sv_shared.data.store import load_built_rows

__all__ = [
    "CORPUS_DIR",
    "DEFAULT_N",
    "DEFAULT_SEED",
    "ENV_ID",
    "SOURCES",
    "SPLITS",
    "ConfigItem",
    "DatasetError",
    "LoadReport",
    "agreement_report",
    "base_splits",
    "build_items",
    "content_hash",
    "finding_dict",
    "load_bases",
    "load_built",
    "load_items",
    "load_report",
]

ENV_ID = "sv-env-config-verification"
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
DEFAULT_SEED = 20261121
DEFAULT_N = 400
CLEAN_FRACTION = 0.25
SPLITS = ("train", "dev", "test")
SPLIT_FRACTIONS = (0.7, 0.15, 0.15)
SOURCES = ("builtin", "dir", "hf")
_MUTATION_COUNTS = ((1, 0.5), (2, 0.3), (3, 0.2))
_SPLIT_TRIES = 500
_FRESH_TRIES = 8
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")
DIR_SUFFIXES = tuple(dict.fromkeys(ext for exts in SOURCE_EXTENSIONS.values() for ext in exts))
"""File suffixes that ``source=dir`` loads (lower case)."""
log = logging.getLogger(__name__)

ScanFn = Callable[[ConfigFile], Sequence[Any]]


class DatasetError(ValueError):
    """A dataset source that cannot be loaded (the message names the file or row)."""


Skipped = list[tuple[str, str]]
"""(file or row, reason) of inputs skipped by a ``strict=False`` load."""


def _skip(skipped: Skipped, where: str, reason: object, strict: bool) -> None:
    """Fail the load (``strict``) or record and log the skipped input: never silently."""
    if strict:
        raise DatasetError(f"{where}: {reason}")
    log.warning("skipped %s (strict=False): %s", where, reason)
    skipped.append((where, str(reason)))


class ConfigItem(BaseModel):
    """One episode: the config, its group, what was injected and what the oracle found."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: Literal["k8s", "terraform"]
    name: str
    text: str
    base_id: str
    injected: list[str]
    mutated_resources: list[str] = []
    fix_patch: str = ""
    findings: list[dict[str, Any]]
    split: str
    source: str = "builtin"

    @property
    def config(self) -> ConfigFile:
        return ConfigFile(kind=self.kind, name=self.name, text=self.text)

    @property
    def finding_ids(self) -> list[str]:
        return sorted(str(f.get("id")) for f in self.findings)

    @property
    def is_clean(self) -> bool:
        return not self.findings


# ------------------------------------------------------------------------------ oracle glue
def finding_dict(finding: Any) -> dict[str, Any]:
    """A JSON-able ``{"id", "severity", "resource", "tools"}`` dict of one finding."""
    get = finding.get if isinstance(finding, dict) else lambda k: getattr(finding, k, None)
    tools = get("tools")
    return {
        "id": str(get("id")),
        "severity": str(get("severity")),
        "resource": str(get("resource")),
        "tools": sorted(str(t) for t in tools) if isinstance(tools, list | tuple | set) else [],
    }


def _scanner(
    scan: ScanFn | None, cache_dir: str | Path | None = None
) -> Callable[[ConfigFile], list[dict[str, Any]]]:
    """A memoised labeler: the given ``scan``, else the oracle (optionally disk-cached); an
    oracle scan that did not evaluate every object raises `ConfigError` (no label)."""
    if scan is None:
        from sv_env_config_verification.oracle import scan as oracle_scan
        from sv_env_config_verification.scan_cache import ScanCache

        directory = cache_dir or os.environ.get("SV_E2_SCAN_CACHE_DIR") or None
        store = ScanCache(directory=directory) if directory else None

        def scan(config: ConfigFile) -> Sequence[Any]:
            result = oracle_scan(config, cache=store)
            if not result.valid:  # labels from a partial scan would be wrong
                reasons = "; ".join(result.invalid_reasons)
                raise ConfigError(f"the tools did not scan every object ({reasons})")
            return result.findings

    memo: dict[tuple[str, str, str], list[dict[str, Any]]] = {}

    def run(config: ConfigFile) -> list[dict[str, Any]]:
        key = (config.kind, config.name, config.text)
        if key not in memo:
            found = [finding_dict(f) for f in scan(config)]
            memo[key] = sorted(found, key=lambda f: (f["id"], f["resource"]))
        return [dict(f) for f in memo[key]]

    return run


# ------------------------------------------------------------------------------ corpus
@lru_cache(maxsize=1)
def _bases() -> tuple[tuple[str, ConfigFile], ...]:
    out = []
    for folder, kind in (("k8s", "k8s"), ("terraform", "terraform")):
        for path in sorted((CORPUS_DIR / folder).iterdir()):
            if path.suffix in (".yaml", ".yml", ".tf"):
                config = ConfigFile(kind=kind, name=path.name, text=path.read_text("utf-8"))
                out.append((f"{folder}/{path.stem}", normalise(config)))
    return tuple(out)


def load_bases() -> dict[str, ConfigFile]:
    """``{base_id: normalised ConfigFile}`` of the built-in corpus (ids like ``k8s/…``)."""
    return dict(_bases())


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def base_splits(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """``{base_id: split}``: per kind ≈70/15/15 of the bases, every id in every split if
    possible (see the module docstring). Deterministic in ``seed``."""
    bases = load_bases()
    support = {bid: set(supported_ids(cfg)) for bid, cfg in bases.items()}
    rng = random.Random(f"splits:{seed}")
    best: tuple[int, dict[str, str]] | None = None
    for _ in range(_SPLIT_TRIES):
        assignment: dict[str, str] = {}
        for kind in ("k8s", "terraform"):
            ids = sorted(b for b, cfg in bases.items() if cfg.kind == kind)
            rng.shuffle(ids)
            n_dev = max(1, round(len(ids) * SPLIT_FRACTIONS[1]))
            n_test = max(1, round(len(ids) * SPLIT_FRACTIONS[2]))
            for i, bid in enumerate(ids):
                assignment[bid] = "dev" if i < n_dev else "test" if i < n_dev + n_test else "train"
        missing = 0
        for split in SPLITS:
            covered = set().union(*(support[b] for b, s in assignment.items() if s == split))
            missing += len(set().union(*support.values()) - covered)
        if best is None or missing < best[0]:
            best = (missing, assignment)
        if missing == 0:
            break
    assert best is not None
    return best[1]


def _mutation_count(rng: random.Random) -> int:
    pick, acc = rng.random(), 0.0
    for count, share in _MUTATION_COUNTS:
        acc += share
        if pick < acc:
            return count
    return _MUTATION_COUNTS[-1][0]


def build_items(
    seed: int = DEFAULT_SEED,
    n: int = DEFAULT_N,
    *,
    clean_fraction: float = CLEAN_FRACTION,
    splits: Iterable[str] | None = None,
    scan: ScanFn | None = None,
    cache_dir: str | Path | None = None,
) -> list[ConfigItem]:
    """``n`` built-in items, labeled by the oracle; deterministic in ``seed``.

    Bases are visited round-robin in a seeded order; a mutated text is never repeated while
    any base still yields new variants (a base that has run out hands its turn to the next),
    while clean bases do repeat, by design. Generation is cheap
    and covers all splits; only items of ``splits`` (default: all) are returned and scanned.
    ``cache_dir`` (or ``$SV_E2_SCAN_CACHE_DIR``) keeps tool results on disk across processes.
    """
    if n < 0 or not 0 <= clean_fraction <= 1:
        raise ValueError("n must be >= 0 and clean_fraction in [0, 1]")
    wanted = set(SPLITS if splits is None else splits)
    run = _scanner(scan, cache_dir)
    return [
        ConfigItem(**raw, findings=run(ConfigFile(raw["kind"], raw["name"], raw["text"])))
        for raw in _generate(seed, n, clean_fraction)
        if raw["split"] in wanted
    ]


def _fresh_mutation(
    bases: dict[str, ConfigFile], order: list[str], index: int, seen: set[str], rng: random.Random
) -> tuple[str, MutationResult] | None:
    """A mutation of the scheduled base whose text is new; when that base has run out of new
    variants, the next bases in ``order`` are tried (so texts repeat only when all have)."""
    last = None
    for step in range(len(order)):
        base_id = order[(index + step) % len(order)]
        if not supported_ids(bases[base_id]):
            continue
        for _ in range(_FRESH_TRIES):
            result = random_mutation(bases[base_id], rng, _mutation_count(rng))
            last = (base_id, result)
            if result.config.text not in seen:
                return last
    return last


@lru_cache(maxsize=8)
def _generate(seed: int, n: int, clean_fraction: float) -> tuple[dict[str, Any], ...]:
    """Unlabeled items (everything but ``findings``)."""
    bases = load_bases()
    splits = base_splits(seed)
    rng = random.Random(f"items:{seed}")
    order = sorted(bases)
    rng.shuffle(order)
    seen: set[str] = set()
    items = []
    for index in range(n):
        base_id = order[index % len(order)]
        injected: list[str] = []
        resources: list[str] = []
        fix, config = "", bases[base_id]
        if rng.random() >= clean_fraction:
            found = _fresh_mutation(bases, order, index, seen, rng)
            if found is not None:
                base_id, result = found
                seen.add(result.config.text)
                config, fix = result.config, result.fix_patch
                injected = result.injected
                resources = [m.resource for m in result.mutations]
        items.append(
            {
                "id": f"e2-{index:05d}-{base_id.split('/', 1)[1]}",
                "kind": config.kind,
                "name": config.name,
                "text": config.text,
                "base_id": base_id,
                "injected": injected,
                "mutated_resources": resources,
                "fix_patch": fix,
                "split": splits[base_id],
            }
        )
    return tuple(items)


# ------------------------------------------------------------------------------ reporting
def content_hash(items: Iterable[ConfigItem]) -> str:
    """``sha256:<hex>`` over the items' canonical JSON (order-sensitive)."""
    return lines_sha256(
        json.dumps(item.model_dump(), sort_keys=True, ensure_ascii=False) for item in items
    )


def agreement_report(items: Iterable[ConfigItem]) -> dict[str, Any]:
    """Where the oracle's ids differ from the injected ids (built-in items).

    ``missed[id]``: injected but not found; ``extra[id]``: found but not injected;
    ``disagreements``: items with any difference.
    """
    missed: Counter[str] = Counter()
    extra: Counter[str] = Counter()
    total = disagreements = 0
    for item in items:
        if item.source != "builtin":
            continue
        total += 1
        injected, found = set(item.injected), set(item.finding_ids)
        missed.update(injected - found)
        extra.update(found - injected)
        disagreements += injected != found
    return {
        "items": total,
        "disagreements": disagreements,
        "missed": dict(sorted(missed.items())),
        "extra": dict(sorted(extra.items())),
    }


# ------------------------------------------------------------------------------ external
def _group_split(group: str, seed: int) -> str:
    u = _unit(seed, "group", group)
    return "train" if u < SPLIT_FRACTIONS[0] else "dev" if u < 1 - SPLIT_FRACTIONS[2] else "test"


def _episode_name(raw: str, kind: str, fallback: str) -> str:
    base = Path(raw.replace("\\", "/")).name if raw else ""
    if kind == "k8s" and base.lower().endswith(".json"):
        base = base[: -len(".json")] + ".yaml"  # a JSON manifest is a YAML episode
    name = _NAME_CHARS.sub("_", base).lstrip(".-") or fallback
    ext = ".tf" if kind == "terraform" else (".yaml", ".yml")
    if not name.lower().endswith(ext):
        name += ".tf" if kind == "terraform" else ".yaml"
    return name[-120:].lstrip(".-") or fallback


def _external_item(
    *, item_id: str, raw_name: str, kind: str | None, text: str, group: str, source: str
) -> tuple[ConfigFile, dict[str, Any]]:
    kind = kind or detect_kind(raw_name, text)
    if kind == "k8s" and isinstance(text, str):
        text = manifest_text(raw_name, text)
    config = ConfigFile(kind=kind, name=_episode_name(raw_name, kind, f"{item_id}"), text=text)
    parse(config)  # syntax errors surface here, with the file named by the caller
    meta = {"id": item_id, "base_id": group, "source": source}
    return config, meta


_TEMPLATE_ACTION_RE = re.compile(r"\{\{.*?\}\}", re.S)
_HELM_ACTION_RE = re.compile(
    r"\{\{-|-\}\}|\{\{[^}]*(?:\.(?:Values|Release|Chart|Capabilities|Files|Template)\b"
    r"|\b(?:include|toYaml|tpl|define|required)\b)"
)
_HELM_HINT = "render the chart with `helm template` and load its output"


def _yaml_loads(text: str) -> bool:
    try:
        for _ in yaml.load_all(text, Loader=yaml.SafeLoader):
            pass
    except (yaml.YAMLError, RecursionError):
        return False
    return True


def helm_reason(file: Path, text: str | None = None) -> str | None:
    """Why ``file`` is a Helm chart file rather than a manifest, or None.

    A file of the nearest enclosing chart (a folder with ``Chart.yaml``) is its metadata
    (``Chart.yaml``), values (``values*.yaml`` at the chart's top) or a template (under
    ``templates/``); other ``text`` is a template when it holds template actions that only Helm
    uses (``.Values``, ``include``, ``{{-`` ...) or any ``{{ ... }}`` and does not load as YAML.
    """
    for parent in file.parents:
        if not any((parent / name).is_file() for name in ("Chart.yaml", "Chart.yml")):
            continue
        rel = file.relative_to(parent).parts
        chart = f"Helm chart {parent.name!r}"
        if len(rel) == 1 and rel[0].lower() in ("chart.yaml", "chart.yml"):
            return f"{chart} metadata (Chart.yaml), not a manifest; {_HELM_HINT}"
        if len(rel) == 1 and re.fullmatch(r"values.*\.ya?ml", rel[0], re.I):
            return f"{chart} values file, not a manifest; {_HELM_HINT}"
        if rel[0] == "templates":
            return f"{chart} template (under templates/); {_HELM_HINT}"
        break  # crds/ and other chart files are plain manifests
    if text is None or not _TEMPLATE_ACTION_RE.search(text):
        return None
    helm = _HELM_ACTION_RE.search(text)
    if helm is None and _yaml_loads(text):
        return None  # `{{ ... }}` inside YAML strings (Argo, alert templates) is plain text
    found = helm or _TEMPLATE_ACTION_RE.search(text)
    assert found is not None
    line = text.count("\n", 0, found.start()) + 1
    return f"Helm template syntax ({{{{ ... }}}} at line {line}); {_HELM_HINT}"


def dir_files(path: Path, recursive: bool = True) -> list[Path]:
    """The config files ``source=dir`` loads from ``path`` (suffixes `DIR_SUFFIXES`), sorted."""
    pattern = path.rglob("*") if recursive else path.glob("*")
    return sorted(p for p in pattern if p.is_file() and p.suffix.lower() in DIR_SUFFIXES)


@dataclass
class _DirCounts:
    helm: int = 0
    stripped: int = 0


def _dir_text(file: Path, strip: bool) -> tuple[str | None, str, bool]:
    """(Helm reason or None, episode text, whether comments were cut) of one file."""
    reason = helm_reason(file)
    if reason is not None:
        return reason, "", False
    raw = decode_text(file.read_bytes())
    kind = detect_kind(file.name, raw)
    text = manifest_text(file.name, raw) if kind == "k8s" else raw
    shown = strip_comments(kind, text) if strip else text
    if kind == "k8s":
        reason = helm_reason(file, shown)
        if reason is not None:
            return reason, "", False
    if shown != text and not same_meaning(kind, text, shown):
        raise ConfigError(
            "stripping its comments would change what the file means; "
            "load it with strip_comments=false"
        )
    return None, shown, shown != text


def _load_dir(
    path: Path, recursive: bool, strict: bool, skipped: Skipped, strip: bool, counts: _DirCounts
) -> list[tuple[ConfigFile, dict]]:
    if not path.is_dir():
        raise DatasetError(f"{path}: not a directory")
    files = dir_files(path, recursive)
    if not files:
        raise DatasetError(f"{path}: no {'/'.join(DIR_SUFFIXES)} files found")
    out = []
    for file in files:
        rel = file.relative_to(path).as_posix()
        try:
            helm, text, stripped = _dir_text(file, strip)
            if helm is not None:  # not an error: always skipped, never silently
                log.warning("skipped %s: %s", rel, helm)
                skipped.append((rel, helm))
                counts.helm += 1
                continue
            out.append(
                _external_item(
                    item_id=f"dir-{len(out):05d}",
                    raw_name=file.name,
                    kind=None,
                    text=text,
                    group=rel,
                    source="dir",
                )
            )
            counts.stripped += stripped
        except ConfigError as exc:
            _skip(skipped, rel, exc, strict)
        except OSError as exc:
            _skip(skipped, rel, f"cannot read: {exc.strerror or exc}", strict)
    return out


_HF_COLUMNS = {
    "text": ("content", "text", "config"),
    "name": ("path", "filename", "file_name", "name"),
    "kind": ("kind",),
}
_KIND_ALIASES = {
    "k8s": "k8s",
    "kubernetes": "k8s",
    "yaml": "k8s",
    "terraform": "terraform",
    "tf": "terraform",
    "hcl": "terraform",
}
_HF_BUILDERS = {".csv": "csv", ".json": "json", ".jsonl": "json", ".parquet": "parquet"}


def _hf_dataset(name_or_path: str, hf_split: str) -> Any:
    import datasets

    local = Path(name_or_path)
    try:
        if local.exists():
            files = (
                [local] if local.is_file() else sorted(p for p in local.rglob("*") if p.is_file())
            )
            data = [str(p) for p in files if p.suffix.lower() in _HF_BUILDERS]
            builders = {_HF_BUILDERS[Path(f).suffix.lower()] for f in data}
            if len(builders) != 1:
                raise DatasetError(f"{local.name}: expected csv/json/jsonl/parquet data files")
            return datasets.load_dataset(builders.pop(), data_files=data, split="train")
        return datasets.load_dataset(name_or_path, split=hf_split)
    except DatasetError:
        raise
    except Exception as exc:
        raise DatasetError(
            f"{name_or_path}: cannot load with datasets ({type(exc).__name__}: {exc}); "
            "download it while online or pass a local csv/json/jsonl/parquet file"
        ) from None


def _load_hf(
    name_or_path: str,
    hf_split: str,
    columns: dict[str, str] | None,
    strict: bool,
    skipped: Skipped,
) -> list[tuple[ConfigFile, dict]]:
    ds = _hf_dataset(name_or_path, hf_split)
    names = list(ds.column_names)
    chosen = {
        role: (columns or {}).get(role) or next((c for c in options if c in names), None)
        for role, options in _HF_COLUMNS.items()
    }
    if chosen["text"] is None or chosen["text"] not in names:
        raise DatasetError(
            f"{name_or_path}: no config text column (looked for {_HF_COLUMNS['text']}; "
            f"have {names}); pass columns={{'text': ...}}"
        )
    out = []
    for row_no, row in enumerate(ds, start=1):
        raw_name = str(row.get(chosen["name"]) or "") if chosen["name"] else ""
        where = f"{name_or_path}: row {row_no}" + (f" ({raw_name})" if raw_name else "")
        try:
            kind_raw = row.get(chosen["kind"]) if chosen["kind"] else None
            kind = _KIND_ALIASES.get(str(kind_raw).strip().lower()) if kind_raw else None
            if kind_raw and kind is None:
                raise ConfigError(f"unknown kind {kind_raw!r}")
            text = row.get(chosen["text"])
            if isinstance(text, bytes):
                text = decode_text(text)
            out.append(
                _external_item(
                    item_id=f"hf-{row_no:06d}",
                    raw_name=raw_name,
                    kind=kind,
                    text=text,
                    group=raw_name or f"row-{row_no}",
                    source="hf",
                )
            )
        except ConfigError as exc:
            _skip(skipped, where, exc, strict)
    return out


@dataclass(frozen=True)
class LoadReport:
    """The items of one load and the inputs it skipped, with reasons: Helm chart files
    (always; ``helm_templates`` of them) and files a ``strict=False`` load could not load.
    ``comments_stripped`` counts the files whose comments were stripped (``source=dir``)."""

    items: list[ConfigItem]
    skipped: tuple[tuple[str, str], ...] = ()
    helm_templates: int = 0
    comments_stripped: int = 0

    def provenance(self) -> dict[str, Any]:
        """``{"n", "skipped", "skipped_inputs": [{"where", "reason"}]}`` for run metadata, with
        ``helm_templates`` and ``comments_stripped`` when nonzero."""
        counts = {
            "helm_templates": self.helm_templates,
            "comments_stripped": self.comments_stripped,
        }
        return {
            "n": len(self.items),
            "skipped": len(self.skipped),
            "skipped_inputs": [{"where": w, "reason": r} for w, r in self.skipped],
        } | {key: value for key, value in counts.items() if value}


def builtin_cache_key(
    split: str, seed: int, n: int, clean_fraction: float, limit: int | None
) -> dict[str, Any]:
    """What a built-in load's items depend on: this package's code, corpus, rules and
    policies (one tree hash), the labelling tools' versions, and the arguments."""
    from sv_env_config_verification.oracle import tool_versions

    package = Path(__file__).resolve().parent
    semgrep_glue = Path(dataset_cache.__file__).with_name("semgrep.py")
    return {
        "generator": dataset_cache.tree_hash(package, semgrep_glue),
        "tools": tool_versions(),
        "split": split,
        "seed": seed,
        "n": n,
        "clean_fraction": clean_fraction,
        "limit": limit,
    }


def load_items(
    split: str = "test",
    source: str = "builtin",
    path: str | Path | None = None,
    max_examples: int = -1,
    **options: Any,
) -> list[ConfigItem]:
    """Items of one split (``train``/``dev``/``test``/``all``) from a source (module docstring).

    Options as for :func:`load_report`, which also says what a ``strict=False`` load skipped.
    """
    return load_report(split, source, path, max_examples, **options).items


def load_report(
    split: str = "test",
    source: str = "builtin",
    path: str | Path | None = None,
    max_examples: int = -1,
    *,
    seed: int = DEFAULT_SEED,
    n: int = DEFAULT_N,
    recursive: bool = True,
    strict: bool = True,
    hf_split: str = "train",
    columns: dict[str, str] | None = None,
    scan: ScanFn | None = None,
    cache_dir: str | Path | None = None,
    strip_comments: bool = True,
) -> LoadReport:
    """The items of one split from a source, and what was skipped.

    ``max_examples`` > 0 keeps the first that many items of the split (only those are
    scanned). ``scan`` replaces the oracle (tests). ``strict`` (default) raises
    :class:`DatasetError` naming the failing file or row; ``strict=False`` skips it with a
    warning and lists it in ``LoadReport.skipped`` (inputs of every split, since splits are
    assigned after loading). ``strip_comments`` (``source=dir``): show and scan each file
    without its comments (module docstring).
    """
    if source not in SOURCES:
        raise DatasetError(f"unknown source {source!r}; valid sources: {', '.join(SOURCES)}")
    if split not in (*SPLITS, "all"):
        raise DatasetError(f"unknown split {split!r}; valid splits: train, dev, test, all")
    for flag, value in (("strict", strict), ("strip_comments", strip_comments)):
        if not isinstance(value, bool):
            raise DatasetError(f"{flag}: expected true or false, got {value!r}")
    limit = max_examples if max_examples and max_examples > 0 else None
    run = _scanner(scan, cache_dir)
    if source == "builtin":

        def build() -> list[dict[str, Any]]:
            raws = [r for r in _generate(seed, n, CLEAN_FRACTION) if split in ("all", r["split"])]
            return [
                ConfigItem(
                    **raw, findings=run(ConfigFile(raw["kind"], raw["name"], raw["text"]))
                ).model_dump()
                for raw in raws[:limit]
            ]

        if scan is not None:  # a caller's labeler (tests): nothing to key a cache entry on
            return LoadReport([ConfigItem.model_validate(row) for row in build()])
        key = builtin_cache_key(split, seed, n, CLEAN_FRACTION, limit)
        rows, _ = dataset_cache.cached_rows("e2-builtin", key, build)
        return LoadReport([ConfigItem.model_validate(row) for row in rows])
    if path is None:
        raise DatasetError(f"source {source!r} needs path=<directory or dataset>")
    skipped: Skipped = []
    counts = _DirCounts()
    loaded = (
        _load_dir(Path(path), recursive, strict, skipped, strip_comments, counts)
        if source == "dir"
        else _load_hf(str(path), hf_split, columns, strict, skipped)
    )
    chosen = [
        (config, {**meta, "split": _group_split(meta["base_id"], seed)}) for config, meta in loaded
    ]
    chosen = [(c, m) for c, m in chosen if split in ("all", m["split"])][:limit]
    items = []
    for config, meta in chosen:
        try:
            findings = run(config)
        except ConfigError as exc:
            _skip(skipped, meta["base_id"], exc, strict)
            continue
        items.append(
            ConfigItem(
                kind=config.kind,
                name=config.name,
                text=config.text,
                injected=[],
                findings=findings,
                **meta,
            )
        )
    if skipped:
        log.warning("%s load of %s: %d input(s) skipped", source, path, len(skipped))
    return LoadReport(items, tuple(skipped), counts.helm, counts.stripped)


def load_built(ref: str, split: str = "test") -> tuple[list[ConfigItem], dict[str, Any]]:
    """Items of one split of a dataset built by `sv data build`, and its provenance
    (``dataset``, ``build``, ``content_hash`` of the split file, ``license``, ...)."""
    items, info = load_built_rows(ENV_ID, ref, split, ConfigItem.model_validate, DatasetError)
    return items, dict(info)
