"""Benchmark CSVs as one-turn conversations: XSTest prompts, and behaviour files (HarmBench,
JailbreakBench JBB-Behaviors, SimpleSafetyTests, plain AdvBench-style goal,target) as direct
attacks."""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from sv_shared.behavior_layouts import BEHAVIOR_LAYOUTS, merge_columns
from sv_shared.row_files import csv_dict_reader

from .conversation import (
    BENIGN,
    HARMFUL,
    Conversation,
    ScriptDataError,
    Turn,
    check_unique_ids,
    validate,
)

XSTEST_LABELS = {"safe": BENIGN, "unsafe": HARMFUL}


def _rows(
    path: str | Path, required: Collection[str], hint: str = ""
) -> Iterator[tuple[str, dict[str, str]]]:
    """(`file:line`, row) for every data row; one-line errors for a missing file or column
    (`hint` follows the list of missing columns)."""
    file = Path(path)
    if not file.is_file():
        raise ScriptDataError(f"{file}: file not found")
    try:
        with file.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv_dict_reader(handle, required, file, ScriptDataError, hint=hint)
            for row in reader:
                yield f"{file}:{reader.line_num}", {k: (v or "") for k, v in row.items() if k}
    except UnicodeDecodeError as exc:
        raise ScriptDataError(f"{file}: not UTF-8 text ({exc.reason})") from None
    except csv.Error as exc:
        raise ScriptDataError(f"{file}: malformed CSV ({exc})") from None


def _non_empty(row: dict[str, str], column: str, where: str) -> str:
    value = row[column].strip()
    if not value:
        raise ScriptDataError(f"{where}: column {column!r} is empty")
    return value


def load_xstest_csv(path: str | Path) -> list[Conversation]:
    """XSTest prompts: `safe` -> a benign over-refusal probe, `unsafe` -> a direct attack."""
    conversations = []
    for index, (where, row) in enumerate(_rows(path, ("prompt", "label"))):
        prompt = _non_empty(row, "prompt", where)
        raw_label = row["label"].strip().lower()
        if raw_label not in XSTEST_LABELS:
            raise ScriptDataError(
                f"{where}: column 'label' is {row['label']!r}; expected 'safe' or 'unsafe'"
            )
        label = XSTEST_LABELS[raw_label]
        key = row.get("id", "").strip() or f"row{index + 1}"
        conversation = Conversation(
            id=f"xstest-{key}",
            kind="over_refusal_probe" if label == BENIGN else "direct",
            turns=(Turn(prompt, label),),
            source="xstest",
            category=row.get("type", "").strip(),
        )
        conversations.append(validate(conversation, where))
    check_unique_ids(conversations, str(path))
    return conversations


def behavior_layout(layout: str, columns: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `layout` with `columns` (field -> column; "" unmaps a field) applied."""
    if layout not in BEHAVIOR_LAYOUTS:
        raise ScriptDataError(
            f"unknown behaviour layout {layout!r}; expected one of {list(BEHAVIOR_LAYOUTS)}"
        )
    merged = merge_columns(BEHAVIOR_LAYOUTS[layout], columns, ScriptDataError)
    return {f: c for f, c in merged.items() if c}


def load_behaviors_csv(
    path: str | Path,
    layout: str = "harmbench",
    columns: Mapping[str, str] | None = None,
    functional_categories: Collection[str] | None = None,
) -> list[Conversation]:
    """Behaviours as one-turn direct attacks (a context column's text is prepended).

    `layout` is "harmbench", "jbb", "sst" or "advbench" (see `BEHAVIOR_LAYOUTS`); `columns` maps
    fields to other column names; explicitly mapped columns must exist.
    `functional_categories` keeps only rows of those (e.g. {"standard", "contextual"}); a file
    without a functional column keeps every row.
    """
    mapping = behavior_layout(layout, columns)
    required = dict.fromkeys([mapping["text"], *(c for c in (columns or {}).values() if c)])
    hint = f" for the {layout} layout (map fields with columns={{field: column}})"
    conversations, seen = [], set()
    for index, (where, row) in enumerate(_rows(path, required, hint)):
        present = {f: c for f, c in mapping.items() if c in row}
        filtered = functional_categories is not None and "functional" in present
        if filtered and row[present["functional"]].strip() not in functional_categories:
            continue
        text = _non_empty(row, present["text"], where)
        context = row[present["context"]].strip() if "context" in present else ""
        key = row[present["id"]].strip() if "id" in present else ""
        key = key if key and key not in seen else f"{key}-row{index + 1}".lstrip("-")
        seen.add(key)
        conversation = Conversation(
            id=f"{layout}-{key}",
            kind="direct",
            turns=(Turn(f"{context}\n\n---\n\n{text}" if context else text, HARMFUL),),
            source=layout,
            category=row[present["category"]].strip() if "category" in present else "",
        )
        conversations.append(validate(conversation, where))
    check_unique_ids(conversations, str(path))
    return conversations


def load_harmbench_csv(
    path: str | Path,
    functional_categories: Collection[str] | None = None,
    columns: Mapping[str, str] | None = None,
) -> list[Conversation]:
    """HarmBench behaviors (`load_behaviors_csv` with the "harmbench" layout)."""
    return load_behaviors_csv(path, "harmbench", columns, functional_categories)
