"""Readers for the labeled CSVs the agreement report measures on (paths, not fixed names).

* Safe/unsafe prompts (XSTest layout): a prompt column, a label column (safe/unsafe) and an
  optional type column.
* Harmful behaviours (all harmful): HarmBench (``Behavior``, ``SemanticCategory``), JBB
  (``Goal``, ``Behavior``, ``Category``) or AdvBench (``goal``, ``target``) layouts, detected
  from the header or chosen explicitly; any column can be overridden.

Errors are one line naming the file and the missing column or bad line.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sv_shared.behavior_layouts import BEHAVIOR_LAYOUTS as BEHAVIOR_COLUMNS
from sv_shared.safety.types import JudgeError

BEHAVIOR_LAYOUTS: dict[str, tuple[str, str | None]] = {
    name: (columns["text"], columns.get("category")) for name, columns in BEHAVIOR_COLUMNS.items()
}
"""Layout -> (request column, category column)."""


class AgreementDataError(JudgeError):
    """A labeled file is missing, unreadable or lacks a required column/value."""


@dataclass(frozen=True)
class LabeledPrompt:
    """One request with its gold harm label and a group (type/category) for breakdowns."""

    text: str
    harmful: bool
    group: str


def read_csv(path: Path, required: Sequence[str]) -> list[dict[str, str]]:
    """Rows of a CSV with the ``required`` columns; clear errors name the file and line."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            columns = list(reader.fieldnames or [])
            missing = [c for c in required if c not in columns]
            if missing:
                raise AgreementDataError(
                    f"{path}: missing column(s) {', '.join(missing)} (has {', '.join(columns)})"
                )
            rows = []
            for row in reader:
                empty = [c for c in required if not (row.get(c) or "").strip()]
                if empty:
                    raise AgreementDataError(f"{path}:{reader.line_num}: empty {', '.join(empty)}")
                rows.append(row)
            return rows
    except FileNotFoundError:
        raise AgreementDataError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise AgreementDataError(f"{path}: is a directory, not a CSV file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AgreementDataError(f"{path}: cannot read ({exc})") from None


def _header(path: Path) -> list[str]:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return next(csv.reader(handle), [])
    except FileNotFoundError:
        raise AgreementDataError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AgreementDataError(f"{path}: cannot read ({exc})") from None


def load_prompts(
    path: Path,
    prompt_column: str = "prompt",
    label_column: str = "label",
    type_column: str | None = "type",
) -> list[LabeledPrompt]:
    """Safe/unsafe labeled prompts (XSTest layout)."""
    header = _header(path)
    group = type_column if type_column and type_column in header else None
    rows = read_csv(path, (prompt_column, label_column))
    prompts = []
    for number, row in enumerate(rows, start=2):
        label = row[label_column].strip().lower()
        if label not in ("safe", "unsafe"):
            raise AgreementDataError(
                f"{path}:{number}: {label_column} must be safe/unsafe, got {row[label_column]!r}"
            )
        prompts.append(
            LabeledPrompt(row[prompt_column].strip(), label == "unsafe", row.get(group or "", ""))
        )
    return prompts


def detect_layout(header: Sequence[str]) -> str:
    """The behaviour layout a header matches (JBB before HarmBench: JBB also has Behavior)."""
    for layout in ("jbb", "harmbench", "advbench"):
        if BEHAVIOR_LAYOUTS[layout][0] in header:
            return layout
    wanted = " or ".join(repr(column) for column, _ in BEHAVIOR_LAYOUTS.values())
    raise AgreementDataError(f"missing column(s): need a request column ({wanted})")


def load_behaviors(
    path: Path,
    layout: str = "auto",
    behavior_column: str | None = None,
    category_column: str | None = None,
) -> list[LabeledPrompt]:
    """Harmful behaviours (every row harmful), grouped by their category column if any."""
    header = _header(path)
    if layout == "auto" and behavior_column is None:
        try:
            layout = detect_layout(header)
        except AgreementDataError as exc:
            raise AgreementDataError(f"{path}: {exc} (has {', '.join(header)})") from None
    if layout not in BEHAVIOR_LAYOUTS and layout != "auto":
        raise AgreementDataError(f"unknown layout {layout!r}; use {', '.join(BEHAVIOR_LAYOUTS)}")
    default_text, default_category = BEHAVIOR_LAYOUTS.get(layout, (None, None))
    text_column = behavior_column or default_text or "Behavior"
    group = category_column or default_category
    if category_column is not None and category_column not in header:
        raise AgreementDataError(
            f"{path}: missing column(s) {category_column} (has {', '.join(header)})"
        )
    rows = read_csv(path, (text_column,))
    return [
        LabeledPrompt(row[text_column].strip(), True, (row.get(group or "") or "").strip())
        for row in rows
    ]
