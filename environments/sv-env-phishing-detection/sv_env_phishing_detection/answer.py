"""The E4 answer: `{"label", "confidence", "evidence": [...]}` and its parser.

An evidence item is a string — either an indicator id from the catalogue (optionally written
`indicator:<id>`) or a quoted span of the email — or an object `{"indicator": id}` /
`{"quote": span}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from sv_shared.parsers import ClassificationAnswer, JsonClassificationParser

from .records import LABELS

MAX_EVIDENCE_ITEMS = 12
MAX_ITEM_CHARS = 2000


@dataclass(frozen=True)
class EvidenceItem:
    kind: Literal["indicator", "quote"]
    value: str


def classify_item(raw: object, catalogue: frozenset[str]) -> EvidenceItem:
    """Decide whether one raw evidence entry names an indicator or quotes the email."""
    if isinstance(raw, dict):
        if "indicator" in raw:
            return EvidenceItem("indicator", str(raw["indicator"]).strip().lower())
        return EvidenceItem("quote", str(raw.get("quote", "")))
    text = str(raw)
    bare = text.strip().lower()
    if bare.startswith("indicator:"):
        return EvidenceItem("indicator", bare.removeprefix("indicator:").strip())
    if bare in catalogue:
        return EvidenceItem("indicator", bare)
    return EvidenceItem("quote", text)


class TriageAnswer(ClassificationAnswer):
    """Label, confidence and up to MAX_EVIDENCE_ITEMS evidence entries."""

    evidence: Annotated[list[Any], Field(default_factory=list, max_length=MAX_EVIDENCE_ITEMS)]

    @field_validator("evidence")
    @classmethod
    def _items_are_strings_or_objects(cls, items: list[Any]) -> list[Any]:
        for position, item in enumerate(items):
            if isinstance(item, dict):
                if not ({"indicator", "quote"} & set(item)):
                    raise ValueError(f"evidence[{position}] needs an 'indicator' or 'quote' key")
                value = item.get("indicator", item.get("quote"))
            else:
                value = item
            if not isinstance(value, str):
                raise ValueError(f"evidence[{position}] must be a string")
            if len(value) > MAX_ITEM_CHARS:
                raise ValueError(f"evidence[{position}] is longer than {MAX_ITEM_CHARS} chars")
        return items


class TriageParser(JsonClassificationParser):
    """Parses E4 answers; never raises (see `JsonClassificationParser`)."""

    answer_model = TriageAnswer

    def __init__(self) -> None:
        super().__init__(allowed_labels=LABELS)

    def answer_json_schema(self, rationale_max_chars: int = 400) -> dict[str, Any]:
        schema = super().answer_json_schema(rationale_max_chars)
        properties = dict(schema["properties"])
        properties.pop("rationale", None)
        properties["evidence"] = {
            "type": "array",
            "maxItems": MAX_EVIDENCE_ITEMS,
            "items": {"type": "string", "maxLength": 300},
        }
        return {**schema, "properties": properties}  # evidence is optional, as in the parser
