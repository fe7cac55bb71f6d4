"""The default offline dataset, grouped splits, content hashing and the source dispatcher."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sv_env_network_logs.address_plan import assign_splits
from sv_env_network_logs.flows import LABELS, LabeledFlow
from sv_env_network_logs.generator import GENERATOR_VERSION, NoiseConfig, generate_flows
from sv_env_network_logs.loaders import (
    HF_IOT23_ID,
    DatasetError,
    LoadStats,
    describe_validation_error,
    load_cic_ids_2017,
    load_hf_iot23,
    load_nsl_kdd,
    load_unsw_nb15,
    load_zeek_labeled,
)
from sv_shared.content_hash import lines_sha256
from sv_shared.data import grouped_split
from sv_shared.data.store import load_built_rows

DEFAULT_DATASET_SEED = 20261121
DEFAULT_DATASET_SIZE = 6000
SPLIT_NAMES = ("train", "dev", "test")
ENV_ID = "sv-env-network-logs"
SOURCES = ("synthetic", "zeek", "hf-iot23", "cic-ids-2017", "unsw-nb15", "nsl-kdd", "jsonl")
"""Raw sources; ``source="dataset"`` reads a build of ``sv data build`` instead."""
SYNTHETIC_LICENSE = "Apache-2.0 (generated)"

_LOG = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_DATASET_SEED",
    "DEFAULT_DATASET_SIZE",
    "SOURCES",
    "SPLIT_NAMES",
    "DatasetError",
    "DatasetInfo",
    "build_default_dataset",
    "content_hash",
    "label_counts",
    "load_flows",
    "read_jsonl",
    "split_flows",
    "write_jsonl",
]


@dataclass
class DatasetInfo:
    """Provenance of a loaded split; ``to_dict()`` is JSON-serialisable."""

    source: str
    path: str | None
    split: str
    n: int
    content_hash: str
    revision: str
    label_counts: dict[str, int]
    license: str
    seed: int
    skipped: int = 0
    excluded: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------- default dataset
@lru_cache(maxsize=8)
def _cached_default(size: int, seed: int) -> tuple[LabeledFlow, ...]:
    items = generate_flows(size, seed=seed, noise=NoiseConfig())
    split_of = {
        item.id: name for name, part in split_flows(items, seed=seed).items() for item in part
    }
    return tuple(assign_splits(items, split_of))


def build_default_dataset(
    size: int = DEFAULT_DATASET_SIZE, seed: int = DEFAULT_DATASET_SEED
) -> list[LabeledFlow]:
    """The synthetic default dataset (balanced, mild noise), generated and cached in-process.

    Items keep the generator's order; each one's addresses are in the plan of the split
    :func:`split_flows` puts it in (:mod:`sv_env_network_logs.address_plan`), so no address
    prefix is shared between train, dev and test.
    """
    return list(_cached_default(size, seed))


# ---------------------------------------------------------------------------- hashing / splits
def canonical_json(item: LabeledFlow) -> str:
    """Compact JSON with sorted keys: the serialisation hashed by :func:`content_hash`."""
    return json.dumps(
        item.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def content_hash(items: Iterable[LabeledFlow]) -> str:
    """``sha256:<hex>`` over the items' canonical JSON, one per line.

    Order-sensitive by design: a dataset is a sequence (evaluation order, ``max_examples``
    prefixes), so the same items in another order hash differently.
    """
    return lines_sha256(canonical_json(item) for item in items)


def label_counts(items: Iterable[LabeledFlow]) -> dict[str, int]:
    counts = Counter(item.label for item in items)
    return {label: counts.get(label, 0) for label in LABELS}


def _unit(*parts: object) -> float:
    """A stable pseudo-random number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_flows(
    items: Sequence[LabeledFlow],
    *,
    fractions: tuple[float, float, float] = (0.7, 0.15, 0.15),
    seed: int = DEFAULT_DATASET_SEED,
) -> dict[str, list[LabeledFlow]]:
    """Grouped train/dev/test split, stratified by (label, scenario): see
    :func:`sv_shared.data.grouped_split` (a session never spans two splits)."""
    return grouped_split(
        items,
        group=lambda item: item.group,
        stratum=lambda item: (item.label, item.scenario),
        fractions=fractions,
        seed=seed,
    )


# ---------------------------------------------------------------------------- JSONL
def write_jsonl(items: Iterable[LabeledFlow], path: str | Path) -> None:
    """Write items as JSONL (canonical JSON per line), readable with ``source="jsonl"``."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(canonical_json(item) + "\n")


def read_jsonl(
    path: str | Path, *, strict: bool = True, stats: LoadStats | None = None
) -> list[LabeledFlow]:
    """Read LabeledFlow dicts from JSONL; ids must be unique."""
    path, stats = Path(path), stats if stats is not None else LoadStats()
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    out: list[LabeledFlow] = []
    seen: set[str] = set()
    try:
        with path.open("r", encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                stats.rows += 1
                try:
                    item = LabeledFlow.model_validate(json.loads(line))
                    if item.id in seen:
                        raise ValueError(f"duplicate id {item.id!r}")
                except (ValueError, ValidationError) as exc:
                    message = f"{path.name}: line {line_no}: {_short(exc)}"
                    if strict:
                        raise DatasetError(message) from None
                    stats.skipped += 1
                    continue
                seen.add(item.id)
                out.append(item)
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "is it a binary or compressed file?"
        ) from None
    return out


def _short(exc: Exception) -> str:
    return describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)


# ---------------------------------------------------------------------------- dispatcher
def _file_revision(path: Path) -> str:
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode() + b"\x00")
        with file.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def _file_loader(source: str, include_background: bool) -> Callable[..., list[LabeledFlow]]:
    if source == "zeek":
        return lambda p, **kw: load_zeek_labeled(p, include_background=include_background, **kw)
    return {
        "cic-ids-2017": load_cic_ids_2017,
        "unsw-nb15": load_unsw_nb15,
        "nsl-kdd": load_nsl_kdd,
        "jsonl": read_jsonl,
    }[source]


def _load_built(ref: str, split: str, seed: int) -> tuple[list[LabeledFlow], DatasetInfo]:
    """A split of a dataset built by `sv data build` (a path, a build name or ``latest``)."""
    items, built_info = load_built_rows(
        ENV_ID, ref, split, LabeledFlow.model_validate, DatasetError
    )
    info = DatasetInfo(
        source="dataset",
        path=built_info["dataset"],
        split=split,
        n=len(items),
        content_hash=content_hash(items),
        revision=built_info["content_hash"],
        label_counts=label_counts(items),
        license=built_info["license"],
        seed=seed,
    )
    return items, info


def load_flows(
    source: str = "synthetic",
    *,
    path: str | None = None,
    split: str | None = None,
    include_background: bool = False,
    strict: bool = True,
    seed: int = DEFAULT_DATASET_SEED,
    size: int = DEFAULT_DATASET_SIZE,
) -> tuple[list[LabeledFlow], DatasetInfo]:
    """Load ``split`` ("train", "dev", "test" or "all") of a source.

    ``split`` defaults to "all" for an external file (``path=``) and to "test" otherwise; a
    split applied to an external file is logged in one line (its rows are re-split here).

    ``source="dataset"`` reads a build of ``sv data build``: ``path`` is its directory, its
    build name or ``latest`` (the default). ``seed`` seeds the grouped split (and, for
    "synthetic", the generator; ``size`` is the synthetic dataset size). ``path`` is required
    for file sources; for "hf-iot23" it defaults to the Hub id ``19kmunz/iot-23-preprocessed``
    (a local file or directory also works).
    """
    external = source not in ("synthetic", "dataset") and bool(path)
    split = split or ("all" if external else "test")
    if source == "dataset":
        return _load_built(path or "latest", split, seed)
    if source not in SOURCES:
        valid = ", ".join((*SOURCES, "dataset"))
        raise DatasetError(f"unknown source {source!r}; valid sources: {valid}")
    if split not in (*SPLIT_NAMES, "all"):
        raise DatasetError(f"unknown split {split!r}; valid splits: train, dev, test, all")
    stats = LoadStats()
    if source == "synthetic":
        items = build_default_dataset(size, seed)
        revision, license_, where = GENERATOR_VERSION, SYNTHETIC_LICENSE, None
    elif source == "hf-iot23":
        where = path or HF_IOT23_ID
        items = load_hf_iot23(where, strict=strict, stats=stats)
        local = Path(where).exists()
        revision = _file_revision(Path(where)) if local else f"hf-hub:{where}@unpinned"
        license_ = "see source"
    else:
        if not path:
            raise DatasetError(f"source {source!r} needs path=<file>")
        where = path
        items = _file_loader(source, include_background)(Path(path), strict=strict, stats=stats)
        revision, license_ = _file_revision(Path(path)), "see source"
    if split != "all":
        total = len(items)
        items = split_flows(items, seed=seed)[split]
        if external:
            _LOG.warning(
                "%s: split=%s keeps %d of %d rows (pass split=all to use the whole file)",
                path, split, len(items), total,
            )  # fmt: skip
    info = DatasetInfo(
        source=source,
        path=where,
        split=split,
        n=len(items),
        content_hash=content_hash(items),
        revision=revision,
        label_counts=label_counts(items),
        license=license_,
        seed=seed,
        skipped=stats.skipped,
        excluded=dict(stats.excluded),
    )
    return items, info
