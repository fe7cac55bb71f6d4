"""The audit answer: its pydantic schema, a never-raising parser and the JSON Schema.

An answer is one JSON object::

    {"violations": [{"id": "k8s/host-pid", "severity": "high"}],
     "patch": "--- a/deploy.yaml\\n+++ b/deploy.yaml\\n@@ ...", "confidence": 0.8}

Extraction reuses :func:`sv_shared.parsers.extract_json_object` (reasoning blocks dropped,
fenced JSON preferred, else the last balanced object). Validation is strict: ``confidence`` is
a real JSON number in ``[0, 1]`` (no strings, booleans, NaN), ``severity`` one of
``low|med|high``, at most ``MAX_VIOLATIONS`` items, a patch of at most ``MAX_PATCH_CHARS``
characters. Unknown keys are ignored; unknown violation ids are *accepted* here (the reward
treats them as invented findings).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sv_shared.parsers import extract_json_object

__all__ = [
    "MAX_PATCH_CHARS",
    "MAX_VIOLATIONS",
    "AuditAnswer",
    "ViolationItem",
    "answer_json_schema",
    "parse_answer",
]

MAX_VIOLATIONS = 64
MAX_PATCH_CHARS = 64 * 1024
MAX_ID_CHARS = 128
DECODING_MAX_VIOLATIONS = 16

Severity = Literal["low", "med", "high"]


class ViolationItem(BaseModel):
    """One reported violation: a canonical id and the severity the model assigns."""

    model_config = ConfigDict(extra="ignore")

    id: Annotated[str, Field(strict=True, min_length=1, max_length=MAX_ID_CHARS)]
    severity: Severity


class AuditAnswer(BaseModel):
    """A validated audit answer. Unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    violations: Annotated[list[ViolationItem], Field(max_length=MAX_VIOLATIONS)]
    patch: Annotated[str, Field(strict=True, max_length=MAX_PATCH_CHARS)] = ""
    confidence: Annotated[float, Field(strict=True, ge=0.0, le=1.0, allow_inf_nan=False)]

    @property
    def ids(self) -> list[str]:
        """Reported ids (stripped), in answer order, duplicates kept."""
        return [item.id.strip() for item in self.violations]


def _reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first.get("loc", ())) or "answer"
    return f"{loc}: {first.get('msg', 'invalid')}"


def parse_answer(text: Any) -> tuple[AuditAnswer | None, str | None]:
    """``(answer, None)`` for a valid answer, else ``(None, reason)``. Never raises."""
    try:
        if not isinstance(text, str):
            return None, "completion is not text"
        if not text.strip():
            return None, "empty completion"
        obj = extract_json_object(text)
        if obj is None:
            return None, "no JSON object found"
        try:
            return AuditAnswer.model_validate(obj), None
        except ValidationError as exc:
            return None, _reason(exc)
    except Exception as exc:  # defensive: parsing must never break a rollout
        return None, f"parser error: {type(exc).__name__}"


def answer_json_schema(
    ids: list[str] | None = None, *, for_decoding: bool = False
) -> dict[str, Any]:
    """JSON Schema of a valid answer.

    ``ids``, when given, restricts violation ids to that list (e.g. the canonical catalogue).
    ``for_decoding`` drops the length limits and caps the list at 16 items: grammar-based
    decoders (llama.cpp) expand a ``maxLength`` into that many grammar repetitions, which for
    the patch limit would make the grammar unusably large. The parser still enforces limits.
    """
    id_schema: dict[str, Any] = {"type": "string", "maxLength": MAX_ID_CHARS}
    if ids:
        id_schema = {"type": "string", "enum": list(ids)}
    item = {
        "type": "object",
        "properties": {
            "id": id_schema,
            "severity": {"type": "string", "enum": ["low", "med", "high"]},
        },
        "required": ["id", "severity"],
        "additionalProperties": False,
    }
    patch: dict[str, Any] = {"type": "string"}
    if not for_decoding:
        patch["maxLength"] = MAX_PATCH_CHARS
    properties = {
        "violations": {
            "type": "array",
            "items": item,
            "maxItems": DECODING_MAX_VIOLATIONS if for_decoding else MAX_VIOLATIONS,
        },
        "patch": patch,
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    }
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
