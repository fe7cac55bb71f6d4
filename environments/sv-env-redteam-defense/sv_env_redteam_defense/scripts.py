"""Where conversation scripts come from: the shipped set, a JSONL file, a benchmark CSV or a
benchmark JSON file (CyberSecEval MITRE FRR)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sv_shared.row_files import iter_json_objects

from .benchmark_csv import BEHAVIOR_LAYOUTS, load_behaviors_csv, load_harmbench_csv, load_xstest_csv
from .benchmark_json import load_mitre_frr_json
from .conversation import (
    ATTACK_KINDS,
    BENIGN_KINDS,
    KINDS,
    LABELS,
    Conversation,
    ScriptDataError,
    Turn,
    check_unique_ids,
    from_mapping,
)

BUILTIN_PATH = Path(__file__).with_name("data") / "conversations.jsonl"
SOURCES = ("builtin", "jsonl", "xstest", "mitre_frr", *BEHAVIOR_LAYOUTS)
"""Behaviour files (harmbench, jbb, sst, advbench) become one-turn direct attacks; xstest and
mitre_frr (benign cyber requests) give over-refusal probes."""

__all__ = [
    "ATTACK_KINDS",
    "BENIGN_KINDS",
    "BUILTIN_PATH",
    "KINDS",
    "LABELS",
    "SOURCES",
    "Conversation",
    "ScriptDataError",
    "Turn",
    "load_behaviors_csv",
    "load_builtin_conversations",
    "load_conversations",
    "load_conversations_jsonl",
    "load_harmbench_csv",
    "load_mitre_frr_json",
    "load_xstest_csv",
]


def load_conversations_jsonl(path: str | Path, default_source: str = "jsonl") -> list[Conversation]:
    """One JSON object per line: {"id", "kind", "turns": [{"content", "label"}], ...}."""
    file = Path(path)
    if not file.is_file():
        raise ScriptDataError(f"{file}: file not found")
    conversations = [
        from_mapping(row, f"{file}:{number}", default_source)
        for number, row in iter_json_objects(file, ScriptDataError)
    ]
    if not conversations:
        raise ScriptDataError(f"{file}: no conversations")
    check_unique_ids(conversations, str(file))
    return conversations


def load_builtin_conversations() -> list[Conversation]:
    """The shipped, sanitized scripts (attacks, benign help, over-refusal probes)."""
    return load_conversations_jsonl(BUILTIN_PATH, default_source="builtin")


def load_conversations(
    source: str = "builtin",
    path: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
) -> list[Conversation]:
    """Scripts from `source` ("builtin", or "jsonl" / "xstest" / "mitre_frr" / a behaviour
    layout such as "sst" with `path`); `columns` maps behaviour fields to a file's columns."""
    if source not in SOURCES:
        raise ScriptDataError(f"unknown source {source!r}; expected one of {list(SOURCES)}")
    if columns and source not in BEHAVIOR_LAYOUTS:
        raise ScriptDataError(f"source {source!r} takes no columns mapping")
    if source == "builtin":
        return load_builtin_conversations()
    if path is None:
        raise ScriptDataError(f"source {source!r} needs `path` (a local file)")
    if source == "jsonl":
        return load_conversations_jsonl(path)
    if source == "xstest":
        return load_xstest_csv(path)
    if source == "mitre_frr":
        return load_mitre_frr_json(path)
    return load_behaviors_csv(path, source, columns)
