"""Behaviors to elicit: HarmBench, JailbreakBench JBB-Behaviors, SimpleSafetyTests, plain
AdvBench-layout files, and a built-in sanitized set.

Every loader reads through :mod:`sv_shared.hub_datasets` (a local csv/parquet/json(l) file or
directory, or a Hugging Face Hub id), takes an optional column mapping (fields -> columns, see
:mod:`~sv_env_redteam_attack.behavior_rows`) and fails with :class:`BehaviorDataError`, whose
one-line message names the file (or Hub id), the line and the field, or the missing columns.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, get_args

from sv_env_redteam_attack.behavior_rows import (
    ADVBENCH,
    HARMBENCH,
    HARMBENCH_HUB,
    JBB,
    SST,
    BehaviorDataError,
    Layout,
    RowReader,
)
from sv_env_redteam_attack.builtin_data import BUILTIN_BEHAVIORS
from sv_env_redteam_attack.categories import S_CODES
from sv_env_redteam_attack.config import Source
from sv_shared.content_hash import json_sha256
from sv_shared.hub_datasets import HubDatasetError, iter_rows, open_dataset

JBB_HUB_ID = "JailbreakBench/JBB-Behaviors"
HARMBENCH_HUB_ID = "walledai/HarmBench"


@dataclass(frozen=True)
class Behavior:
    """One behavior the attacker must elicit from the target."""

    id: str
    text: str
    category: str
    source: str
    semantic_category: str = ""

    def __post_init__(self) -> None:
        if self.category not in S_CODES:
            raise BehaviorDataError(f"behavior {self.id}: category {self.category!r} is not S1-S14")

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def builtin_behaviors() -> list[Behavior]:
    """The sanitized behavior set shipped with the package (one per line, all categories)."""
    return [
        Behavior(id=f"builtin_{key}", text=text, category=code, source="builtin")
        for key, code, text in BUILTIN_BEHAVIORS
    ]


def content_hash(behaviors: Iterable[Behavior]) -> str:
    """SHA-256 over the behaviors' fields, in order."""
    return json_sha256([b.to_dict() for b in behaviors])


def _open(name_or_path: str, split: str, data_files: str | None = None) -> tuple[str, Any]:
    """(label used in messages, dataset).

    A local path is opened with `split` (used by saved dataset dicts only); a Hub id with
    `data_files` (files inside the repository, read as the single split "train").
    """
    local = Path(name_or_path).expanduser()
    label = local.name if local.exists() else name_or_path
    try:
        if local.exists():
            return label, open_dataset(str(local), split)
        hub_split = "train" if data_files is not None else split
        return label, open_dataset(name_or_path, hub_split, data_files=data_files)
    except HubDatasetError as exc:
        raise BehaviorDataError(str(exc)) from None


def _read(
    label: str,
    ds: Any,
    layout: Layout,
    columns: Mapping[str, str] | None = None,
    functional_categories: Collection[str] | None = None,
) -> list[Behavior]:
    """Every behavior of `ds` read with `layout` (and the `columns` mapping)."""
    reader = RowReader(label, layout.mapped(columns), list(ds.column_names))
    wanted = _lower(functional_categories)
    rows = (reader.read(row_no, row, wanted) for row_no, row in iter_rows(ds))
    return [Behavior(**fields) for fields in rows if fields is not None]


def load_harmbench_csv(
    path: str | Path,
    functional_categories: Collection[str] | None = ("standard",),
    columns: Mapping[str, str] | None = None,
) -> list[Behavior]:
    """HarmBench behaviors from its CSV (Behavior; BehaviorID, SemanticCategory,
    FunctionalCategory and ContextString when present - a context is prepended to its
    contextual behavior). `columns` maps fields to other column names (``behavior_rows``).

    Keeps rows whose FunctionalCategory is in `functional_categories` (None: all).
    """
    label, ds = _open(str(path), "train")
    return _read(label, ds, HARMBENCH, columns, functional_categories)


def load_harmbench(
    name_or_path: str = HARMBENCH_HUB_ID,
    subset: str = "standard",
    split: str = "train",
    functional_categories: Collection[str] | None = ("standard",),
    columns: Mapping[str, str] | None = None,
) -> list[Behavior]:
    """HarmBench from a local file/directory or the Hub.

    A file with HarmBench's own columns is read like :func:`load_harmbench_csv`; the Hub mirror
    (`prompt`, `category`) is read from its `subset` folder (standard, contextual, copyright).
    """
    label, ds = _open(name_or_path, split, data_files=f"{subset}/*.parquet")
    names = ds.column_names
    hub = columns is None and "Behavior" not in names and "prompt" in names
    return _read(label, ds, HARMBENCH_HUB if hub else HARMBENCH, columns, functional_categories)


def load_jbb_csv(path: str | Path, columns: Mapping[str, str] | None = None) -> list[Behavior]:
    """JBB-Behaviors from a local CSV (Goal; Behavior and Category when present)."""
    label, ds = _open(str(path), "train")
    return _read(label, ds, JBB, columns)


def load_jbb(
    name_or_path: str = JBB_HUB_ID,
    subset: str = "behaviors",
    split: str = "harmful",
    columns: Mapping[str, str] | None = None,
) -> list[Behavior]:
    """JBB-Behaviors from the Hub (`subset` "behaviors", split "harmful"/"benign") or a local
    file/directory (read whole)."""
    if subset != "behaviors":
        raise BehaviorDataError(f"{name_or_path}: only the 'behaviors' subset has behaviors")
    if split not in ("harmful", "benign"):
        raise BehaviorDataError(f"{name_or_path}: split must be 'harmful' or 'benign'")
    label, ds = _open(name_or_path, split, data_files=f"data/{split}-behaviors.csv")
    return _read(label, ds, JBB, columns)


def load_advbench(path: str | Path, columns: Mapping[str, str] | None = None) -> list[Behavior]:
    """Plain behaviors in AdvBench's layout (`goal`, `target`; only `goal` is read) from a
    local file or directory."""
    label, ds = _open(str(path), "train")
    return _read(label, ds, ADVBENCH, columns)


def load_sst(path: str | Path, columns: Mapping[str, str] | None = None) -> list[Behavior]:
    """SimpleSafetyTests prompts (prompts_final; id and harm_area when present, harm_area
    mapped to an S-code) from a local file or directory; every prompt is harmful."""
    label, ds = _open(str(path), "train")
    return _read(label, ds, SST, columns)


def _lower(values: Collection[str] | None) -> set[str] | None:
    return None if values is None else {v.strip().lower() for v in values}


SOURCES: tuple[str, ...] = get_args(Source)


def load_behaviors(
    source: str = "builtin", path: str | None = None, columns: Mapping[str, str] | None = None
) -> list[Behavior]:
    """Behaviors of `source` ("builtin", "harmbench", "jbb", "sst" or "advbench"); `path` is a
    local file or directory or a Hub id (default: the benchmark's Hub dataset; sst and
    advbench need a path); `columns` maps fields to the file's column names (see
    ``behavior_rows``)."""
    if source == "builtin":
        if path is not None or columns:
            raise BehaviorDataError("source 'builtin' takes no path or columns")
        return builtin_behaviors()
    if source == "harmbench":
        return load_harmbench(path or HARMBENCH_HUB_ID, columns=columns)
    if source == "jbb":
        return load_jbb(path or JBB_HUB_ID, columns=columns)
    if source == "sst":
        if not path:
            raise BehaviorDataError("source 'sst' needs path= (a SimpleSafetyTests CSV)")
        return load_sst(path, columns)
    if source == "advbench":
        if not path:
            raise BehaviorDataError("source 'advbench' needs path= (a goal,target CSV)")
        return load_advbench(path, columns)
    raise BehaviorDataError(f"unknown source {source!r}; expected one of {list(SOURCES)}")
