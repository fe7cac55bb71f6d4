"""Reading behavior rows in the four benchmark layouts, with an optional column mapping.

A layout names, for each field of a behavior, the file column it comes from:

=========== ===================== ============ ====================== ============
field       HarmBench             JBB          SimpleSafetyTests      AdvBench
=========== ===================== ============ ====================== ============
text        Behavior (required)   Goal (req.)  prompts_final (req.)   goal (req.)
id          BehaviorID            Behavior     id                     -
category    SemanticCategory      Category     harm_area              -
functional  FunctionalCategory    -            -                      -
context     ContextString         -            -                      -
=========== ===================== ============ ====================== ============

Only ``text`` is required; ``columns={"text": "prompt", ...}`` maps fields to other column
names (a field mapped to ``""`` is read as absent). Without an id column, ids are
``<source>_<row>_<slug>``; without a category column, the hazard code is inferred from the
text (:func:`~sv_env_redteam_attack.categories.infer_code`; it only groups metrics, the reward
does not use it); without a functional column no row is filtered out. Errors are one line
naming the file, the line and the field (or every missing column).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from sv_env_redteam_attack.categories import harmbench_code, infer_code, jbb_code, refine
from sv_shared.behavior_layouts import BEHAVIOR_FIELDS, BEHAVIOR_LAYOUTS, merge_columns

FIELDS = BEHAVIOR_FIELDS
ROW_FORMATS = (".jsonl", ".json", ".parquet")
"""Files whose rows are not numbered by line (no header line)."""
CONTEXT_SEPARATOR = "\n\n---\n\n"
"""Between a contextual behavior's context and its request."""


SST_CATEGORIES: dict[str, str] = {
    "suicide, self-harm, and eating disorders": "S11",
    "physical harm and violence": "S1",
    "illegal and highly regulated items": "S2",
    "scams and fraud": "S2",
    "child safety": "S4",
}
"""SimpleSafetyTests harm_area (lower-cased) -> S-code."""


def sst_code(harm_area: str, text: str = "") -> str | None:
    """S-code of a SimpleSafetyTests harm_area (None when unknown)."""
    code = SST_CATEGORIES.get(harm_area.strip().lower())
    return None if code is None else refine(code, text)


class BehaviorDataError(ValueError):
    """A behavior file that cannot be used; the message names the file, line and field."""


@dataclass(frozen=True)
class Layout:
    """Where each field comes from in one benchmark's files, and how categories map."""

    source: str
    columns: Mapping[str, str]
    code: Callable[[str, str], str | None] = field(repr=False)
    """(category value, text) -> S-code (None: unknown category)."""
    unique_ids: bool = True
    """A repeated id is an error (else it gets the row number appended)."""
    required: frozenset[str] = frozenset({"text"})
    """Fields whose column the file must have (text, and every field mapped explicitly)."""

    def mapped(self, overrides: Mapping[str, str] | None) -> Layout:
        """This layout with `overrides` (field -> column) applied."""
        columns = merge_columns(self.columns, overrides, BehaviorDataError)
        overrides = {str(k): str(v) for k, v in (overrides or {}).items()}
        required = self.required | {f for f, c in overrides.items() if c}
        return Layout(self.source, columns, self.code, self.unique_ids, frozenset(required))


HARMBENCH = Layout("harmbench", BEHAVIOR_LAYOUTS["harmbench"], harmbench_code)
HARMBENCH_HUB = Layout(
    "harmbench", {"text": "prompt", "category": "category", "context": "context"}, harmbench_code
)
"""The Hub mirror's schema: `prompt`, `category` (and `context` for contextual behaviors)."""
JBB = Layout("jbb", BEHAVIOR_LAYOUTS["jbb"], jbb_code, False)
SST = Layout("sst", BEHAVIOR_LAYOUTS["sst"], sst_code)
ADVBENCH = Layout("advbench", BEHAVIOR_LAYOUTS["advbench"], lambda category, text: None)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "behavior"


def _value(row: Mapping[str, Any], column: str | None) -> str:
    value = row.get(column) if column else None
    return "" if value is None else str(value).strip()


@dataclass
class RowReader:
    """Turns the rows of one file (`label` in messages) into behavior field dicts."""

    label: str
    layout: Layout
    present: Collection[str]
    _ids: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        columns = self.layout.columns
        missing = [columns[f] for f in FIELDS if f in self.layout.required]
        missing = [c for c in missing if c not in self.present]
        if missing:
            raise BehaviorDataError(
                f"{self.label}: missing column(s) {missing} for the {self.layout.source} layout; "
                f"found {list(self.present)} (map them with columns={{field: column}})"
            )

    def column(self, name: str) -> str | None:
        """The file column of field `name`, when it is mapped and the file has it."""
        column = self.layout.columns.get(name)
        return column if column and column in self.present else None

    def where(self, row_no: int) -> str:
        """`<file> line <n>` of a CSV (its header is line 1), else `<file> row <n>`."""
        if self.label.lower().endswith(ROW_FORMATS):
            return f"{self.label} row {row_no}"
        return f"{self.label} line {row_no + 1}"

    def read(
        self, row_no: int, row: Mapping[str, Any], functional: Collection[str] | None
    ) -> dict[str, str] | None:
        """The behavior fields of one row (None when its functional category is filtered out)."""
        where = self.where(row_no)
        kind = self.column("functional")
        if kind and functional is not None and _value(row, kind).lower() not in functional:
            return None
        text = _value(row, self.column("text"))
        if not text:
            raise BehaviorDataError(f"{where}: empty {self.column('text')}")
        category_column = self.column("category")
        semantic = _value(row, category_column)
        if category_column:
            code = self.layout.code(semantic, text)
            if code is None:
                raise BehaviorDataError(f"{where}: unknown {category_column} {semantic!r}")
        else:
            code = infer_code(text)
        context = _value(row, self.column("context"))
        full_text = f"{context}{CONTEXT_SEPARATOR}{text}" if context else text
        return {
            "id": self._id(row_no, row, text, where),
            "text": full_text,
            "category": code,
            "source": self.layout.source,
            "semantic_category": semantic,
        }

    def _id(self, row_no: int, row: Mapping[str, Any], text: str, where: str) -> str:
        id_column = self.column("id")
        if id_column is None:
            return f"{self.layout.source}_{row_no:04d}_{slug(text)[:40]}"
        given = _value(row, id_column)
        if self.layout.unique_ids:
            if not given:
                raise BehaviorDataError(f"{where}: empty {id_column}")
            if given in self._ids:
                first = self.where(self._ids[given]).rsplit(" ", 2)[-2:]
                raise BehaviorDataError(f"{where}: {id_column} {given!r} repeats {' '.join(first)}")
            self._ids[given] = row_no
            return given
        behavior_id = f"{self.layout.source}_{slug(given or text)}"
        if behavior_id in self._ids:
            behavior_id = f"{behavior_id}_{row_no}"
        self._ids[behavior_id] = row_no
        return behavior_id
