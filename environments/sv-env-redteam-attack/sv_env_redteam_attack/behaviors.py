"""Behaviors to elicit: JailbreakBench JBB-Behaviors, HarmBench, and a built-in sanitized set.

Every loader reads through :mod:`sv_shared.hub_datasets` (a local csv/parquet/json(l) file or
directory, or a Hugging Face Hub id) and fails with :class:`BehaviorDataError`, whose message
names the file (or Hub id), the line and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sv_env_redteam_attack.builtin_data import BUILTIN_BEHAVIORS
from sv_env_redteam_attack.categories import S_CODES, harmbench_code, jbb_code
from sv_shared.hub_datasets import HubDatasetError, iter_rows, open_dataset

JBB_HUB_ID = "JailbreakBench/JBB-Behaviors"
HARMBENCH_HUB_ID = "walledai/HarmBench"
HARMBENCH_COLUMNS = ("Behavior", "FunctionalCategory", "SemanticCategory", "BehaviorID")
HARMBENCH_HUB_COLUMNS = ("prompt", "category")
JBB_COLUMNS = ("Behavior", "Goal", "Category")


class BehaviorDataError(ValueError):
    """A behavior file that cannot be used; the message names the file, line and field."""


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
    blob = json.dumps([b.to_dict() for b in behaviors], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "behavior"


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


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


def _require_columns(label: str, ds: Any, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in ds.column_names]
    if missing:
        raise BehaviorDataError(
            f"{label}: missing column(s) {missing}; found {list(ds.column_names)}"
        )


def _line(row_no: int) -> int:
    """File line of a data row (the header is line 1)."""
    return row_no + 1


def _harmbench_rows(
    label: str, ds: Any, functional_categories: Collection[str] | None
) -> list[Behavior]:
    _require_columns(label, ds, HARMBENCH_COLUMNS)
    out: list[Behavior] = []
    seen: dict[str, int] = {}
    for row_no, row in iter_rows(ds):
        where = f"{label} line {_line(row_no)}"
        functional = _text(row.get("FunctionalCategory")).lower()
        if functional_categories is not None and functional not in functional_categories:
            continue
        text, behavior_id = _text(row.get("Behavior")), _text(row.get("BehaviorID"))
        if not text:
            raise BehaviorDataError(f"{where}: empty Behavior")
        if not behavior_id:
            raise BehaviorDataError(f"{where}: empty BehaviorID")
        if behavior_id in seen:
            raise BehaviorDataError(
                f"{where}: BehaviorID {behavior_id!r} repeats line {_line(seen[behavior_id])}"
            )
        seen[behavior_id] = row_no
        semantic = _text(row.get("SemanticCategory"))
        code = harmbench_code(semantic, text)
        if code is None:
            raise BehaviorDataError(f"{where}: unknown SemanticCategory {semantic!r}")
        context = _text(row.get("ContextString"))
        full_text = f"{context}\n\n---\n\n{text}" if context else text
        out.append(Behavior(behavior_id, full_text, code, "harmbench", semantic))
    return out


def _harmbench_hub_rows(label: str, ds: Any) -> list[Behavior]:
    """The Hub mirror's schema: `prompt`, `category` (and `context` for contextual)."""
    _require_columns(label, ds, HARMBENCH_HUB_COLUMNS)
    out: list[Behavior] = []
    for row_no, row in iter_rows(ds):
        text, semantic = _text(row.get("prompt")), _text(row.get("category"))
        if not text:
            raise BehaviorDataError(f"{label} row {row_no}: empty prompt")
        code = harmbench_code(semantic, text)
        if code is None:
            raise BehaviorDataError(f"{label} row {row_no}: unknown category {semantic!r}")
        context = _text(row.get("context"))
        full_text = f"{context}\n\n---\n\n{text}" if context else text
        behavior_id = f"harmbench_{row_no:04d}_{_slug(text)[:40]}"
        out.append(Behavior(behavior_id, full_text, code, "harmbench", semantic))
    return out


def load_harmbench_csv(
    path: str | Path, functional_categories: Collection[str] | None = ("standard",)
) -> list[Behavior]:
    """HarmBench behaviors from its CSV (Behavior, FunctionalCategory, SemanticCategory,
    BehaviorID; ContextString, when present, is prepended to contextual behaviors).

    Keeps rows whose FunctionalCategory is in `functional_categories` (None: all).
    """
    label, ds = _open(str(path), "train")
    return _harmbench_rows(label, ds, _lower(functional_categories))


def load_harmbench(
    name_or_path: str = HARMBENCH_HUB_ID,
    subset: str = "standard",
    split: str = "train",
    functional_categories: Collection[str] | None = ("standard",),
) -> list[Behavior]:
    """HarmBench from a local file/directory or the Hub.

    A file with HarmBench's own columns is read like :func:`load_harmbench_csv`; the Hub mirror
    (`prompt`, `category`) is read from its `subset` folder (standard, contextual, copyright).
    """
    label, ds = _open(name_or_path, split, data_files=f"{subset}/*.parquet")
    if "BehaviorID" in ds.column_names:
        return _harmbench_rows(label, ds, _lower(functional_categories))
    return _harmbench_hub_rows(label, ds)


def _jbb_rows(label: str, ds: Any) -> list[Behavior]:
    _require_columns(label, ds, JBB_COLUMNS)
    out: list[Behavior] = []
    ids: set[str] = set()
    for row_no, row in iter_rows(ds):
        where = f"{label} line {_line(row_no)}"
        name, goal = _text(row.get("Behavior")), _text(row.get("Goal"))
        category = _text(row.get("Category"))
        if not goal:
            raise BehaviorDataError(f"{where}: empty Goal")
        code = jbb_code(category, goal)
        if code is None:
            raise BehaviorDataError(f"{where}: unknown Category {category!r}")
        behavior_id = f"jbb_{_slug(name or goal)}"
        if behavior_id in ids:
            behavior_id = f"{behavior_id}_{row_no}"
        ids.add(behavior_id)
        out.append(Behavior(behavior_id, goal, code, "jbb", category))
    return out


def load_jbb_csv(path: str | Path) -> list[Behavior]:
    """JBB-Behaviors from a local CSV (Behavior, Goal, Category; Target, Source optional)."""
    label, ds = _open(str(path), "train")
    return _jbb_rows(label, ds)


def load_jbb(
    name_or_path: str = JBB_HUB_ID, subset: str = "behaviors", split: str = "harmful"
) -> list[Behavior]:
    """JBB-Behaviors from the Hub (`subset` "behaviors", split "harmful"/"benign") or a local
    file/directory (read whole)."""
    if subset != "behaviors":
        raise BehaviorDataError(f"{name_or_path}: only the 'behaviors' subset has behaviors")
    if split not in ("harmful", "benign"):
        raise BehaviorDataError(f"{name_or_path}: split must be 'harmful' or 'benign'")
    label, ds = _open(name_or_path, split, data_files=f"data/{split}-behaviors.csv")
    return _jbb_rows(label, ds)


def _lower(values: Collection[str] | None) -> set[str] | None:
    return None if values is None else {v.strip().lower() for v in values}


SOURCES = ("builtin", "harmbench", "jbb")


def load_behaviors(source: str = "builtin", path: str | None = None) -> list[Behavior]:
    """Behaviors of `source` ("builtin", "harmbench" or "jbb"); `path` is a local file or
    directory or a Hub id (default: the benchmark's Hub dataset)."""
    if source == "builtin":
        if path is not None:
            raise BehaviorDataError("source 'builtin' takes no path")
        return builtin_behaviors()
    if source == "harmbench":
        return load_harmbench(path or HARMBENCH_HUB_ID)
    if source == "jbb":
        return load_jbb(path or JBB_HUB_ID)
    raise BehaviorDataError(f"unknown source {source!r}; expected one of {list(SOURCES)}")
