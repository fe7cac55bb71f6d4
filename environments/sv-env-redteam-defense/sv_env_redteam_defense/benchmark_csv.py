"""Benchmark CSVs as one-turn conversations: XSTest prompts and HarmBench behaviors."""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterator
from pathlib import Path

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


def _rows(path: str | Path, required: Collection[str]) -> Iterator[tuple[str, dict[str, str]]]:
    """(`file:line`, row) for every data row; clear errors for a missing file or column."""
    file = Path(path)
    if not file.is_file():
        raise ScriptDataError(f"{file}: file not found")
    try:
        with file.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []
            missing = [column for column in required if column not in header]
            if missing:
                raise ScriptDataError(
                    f"{file}: missing column(s) {missing}; the header has {header}"
                )
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


def load_harmbench_csv(
    path: str | Path, functional_categories: Collection[str] | None = None
) -> list[Conversation]:
    """HarmBench behaviors as one-turn direct attacks (a `ContextString` is prepended).

    `functional_categories` keeps only those (e.g. {"standard", "contextual"}).
    """
    conversations = []
    for index, (where, row) in enumerate(_rows(path, ("Behavior",))):
        functional = row.get("FunctionalCategory", "").strip()
        if functional_categories is not None and functional not in functional_categories:
            continue
        behavior = _non_empty(row, "Behavior", where)
        context = row.get("ContextString", "").strip()
        text = f"{context}\n\n---\n\n{behavior}" if context else behavior
        key = row.get("BehaviorID", "").strip() or f"row{index + 1}"
        conversation = Conversation(
            id=f"harmbench-{key}",
            kind="direct",
            turns=(Turn(text, HARMFUL),),
            source="harmbench",
            category=row.get("SemanticCategory", "").strip(),
        )
        conversations.append(validate(conversation, where))
    check_unique_ids(conversations, str(path))
    return conversations
