"""Robust extraction and validation of a model's JSON classification answer.

The expected answer is a single JSON object such as::

    {"label": "Malicious", "confidence": 0.83, "rationale": "port scan from ..."}

Extraction rules (see :func:`extract_json_object`):

1. Only the last ``MAX_SCAN_CHARS`` characters are examined, so the work per call is bounded.
2. Reasoning is discarded: every ``<think>...</think>`` block (also ``<thinking>``, any
   case) is removed; a dangling ``</think>`` (opening tag injected by the chat template)
   drops everything before it; an unclosed ``<think>`` drops everything after it (so an
   unclosed block at the start means "no answer"). The tags are recognised anywhere, so
   an answer that quotes them literally can only lose its own answer.
3. The contents of ```` ```json ```` / bare ```` ``` ```` fences are preferred, last fence first.
4. Otherwise the text is scanned for balanced ``{...}`` objects (decoded by the stdlib JSON
   decoder, so strings and escapes are respected) and the last one that decodes to a JSON
   object wins; objects nested inside it never shadow it.

Validation is strict: ``confidence`` must be a real JSON number (no strings, no booleans,
no NaN/Infinity) in ``[0, 1]``, and ``label`` must be one of the allowed labels
(case-insensitive, normalised to the canonical spelling).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sv_shared.vf_compat import vf

__all__ = [
    "MAX_SCAN_CHARS",
    "ClassificationAnswer",
    "JsonClassificationParser",
    "ParseResult",
    "extract_json_object",
]

MAX_SCAN_CHARS = 20_000
"""Only this many trailing characters of a completion are examined."""

_DECODER = json.JSONDecoder()
_OBJECT_START = re.compile(r'\{\s*["}]')  # a JSON object opens with a key or closes at once
_MAX_DEEP_FAILURES = 16

_THINK_TAG = re.compile(r"<(/?)think(?:ing)?\s*>", re.IGNORECASE)
_FENCE = "```"


# --------------------------------------------------------------------------- extraction


def _strip_reasoning(text: str) -> str:
    """Remove ``<think>`` reasoning from ``text`` (rules in the module docstring)."""
    kept: list[str] = []
    pos = 0
    open_at: int | None = None
    for match in _THINK_TAG.finditer(text):
        is_close = match.group(1) == "/"
        if open_at is None:
            if is_close:
                kept = []  # dangling close tag: everything so far was reasoning
            else:
                kept.append(text[pos : match.start()])
                open_at = match.start()
            pos = match.end()
        elif is_close:
            open_at = None
            pos = match.end()
    if open_at is not None:
        return "".join(kept)  # unclosed <think>: the rest is reasoning
    kept.append(text[pos:])
    return "".join(kept)


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ```json / bare ``` fences, in order of appearance (linear time)."""
    blocks: list[str] = []
    start = text.find(_FENCE)
    while start != -1:
        end = text.find(_FENCE, start + len(_FENCE))
        if end == -1:
            break
        body = text[start + len(_FENCE) : end]
        newline = body.find("\n")
        info = body[:newline] if newline != -1 else ""
        if info.strip().lower() in ("", "json"):
            blocks.append(body[newline + 1 :] if newline != -1 else body)
        start = text.find(_FENCE, end + len(_FENCE))
    return blocks


def _last_object(text: str) -> dict[str, Any] | None:
    """The JSON object (decoded by ``json``) that ends last in ``text``, else ``None``.

    Scans left to right: at each ``{`` the stdlib decoder tries to read one JSON value
    (so strings and escapes are handled exactly); on success the scan resumes after that
    value, so nested objects never shadow their enclosing object and the last top-level
    object wins. Stray braces and quotes in prose cannot hide a later answer. Input
    nested deeper than the interpreter's recursion limit more than a few times is
    treated as having no answer (bounds the work on adversarial input).
    """
    found: dict[str, Any] | None = None
    deep_failures = 0
    match = _OBJECT_START.search(text)
    while match is not None:
        pos = match.start()
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except ValueError:
            match = _OBJECT_START.search(text, pos + 1)
            continue
        except RecursionError:
            deep_failures += 1
            if deep_failures > _MAX_DEEP_FAILURES:
                return None  # pathological nesting: treat as no answer
            match = _OBJECT_START.search(text, pos + 1)
            continue
        if isinstance(value, dict):
            found = value
        match = _OBJECT_START.search(text, max(end, pos + 1))
    return found


def extract_json_object(text: str) -> dict[str, Any] | None:
    """Find the model's JSON answer object in free text; ``None`` if there is none.

    Never raises. See the module docstring for the exact rules.
    """
    try:
        if not isinstance(text, str) or not text:
            return None
        answer_text = _strip_reasoning(text[-MAX_SCAN_CHARS:])
        for block in reversed(_fenced_blocks(answer_text)):
            found = _last_object(block)
            if found is not None:
                return found
        return _last_object(answer_text)
    except Exception:  # defensive: extraction must never break a rollout
        return None


# --------------------------------------------------------------------------- schema


class ClassificationAnswer(BaseModel):
    """Validated classification answer. Unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    label: Annotated[str, Field(strict=True)]
    confidence: Annotated[float, Field(strict=True, ge=0.0, le=1.0, allow_inf_nan=False)]
    rationale: Annotated[str, Field(strict=True, max_length=4000)] = ""


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one completion: exactly one of ``answer``/``error`` is set."""

    answer: ClassificationAnswer | None
    error: str | None

    @property
    def ok(self) -> bool:
        """True iff a valid answer was parsed."""
        return self.answer is not None and self.error is None

    @property
    def label(self) -> str | None:
        """Canonical label of a valid answer, else ``None``."""
        return self.answer.label if self.ok and self.answer is not None else None


def _fail(reason: str) -> ParseResult:
    return ParseResult(answer=None, error=reason)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _validation_reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first.get("loc", ())) or "answer"
    return f"{loc}: {first.get('msg', 'invalid')}"


# --------------------------------------------------------------------------- parser


class JsonClassificationParser(vf.Parser):
    """Parser for JSON classification answers with a fixed label set.

    ``require_confidence=False`` (lenient mode): an answer *without* a ``confidence`` key
    is accepted and returned with ``answer.confidence = None`` (built with
    ``model_copy`` after validating the other fields). Downstream, such an answer earns
    no calibration credit (``reward_calibration(None, ...) == 0``) and is left out of
    confidence-based metrics. A ``confidence`` that *is* present is still validated.

    Environments whose answers carry more fields subclass it with their own ``answer_model``
    (a ``ClassificationAnswer`` subclass).
    """

    answer_model: type[ClassificationAnswer] = ClassificationAnswer

    def __init__(self, allowed_labels: Sequence[str], require_confidence: bool = True) -> None:
        super().__init__()
        labels = [str(label) for label in allowed_labels]
        if not labels:
            raise ValueError("allowed_labels must not be empty")
        canonical: dict[str, str] = {}
        for label in labels:
            key = label.strip().casefold()
            if not key:
                raise ValueError("allowed_labels must not contain empty labels")
            if key in canonical:
                raise ValueError(f"allowed_labels contains duplicate label {label!r}")
            canonical[key] = label
        self.allowed_labels: tuple[str, ...] = tuple(labels)
        self.require_confidence = require_confidence
        self._canonical = canonical

    def answer_json_schema(self, rationale_max_chars: int = 400) -> dict[str, Any]:
        """JSON Schema of a valid answer, for providers that constrain decoding to a schema.

        Key order is the order the model should write them; the rationale is capped shorter
        than the parser's limit so that a constrained small model cannot ramble. `required`
        is what the parser requires (the rationale is optional): a schema stricter than the
        parser forces a model trained on the answers the parser accepts off its distribution.
        """
        properties: dict[str, Any] = {
            "label": {"type": "string", "enum": list(self.allowed_labels)},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "rationale": {"type": "string", "maxLength": rationale_max_chars},
        }
        return {
            "type": "object",
            "properties": properties,
            "required": ["label", "confidence"] if self.require_confidence else ["label"],
            "additionalProperties": False,
        }

    # -- parsing
    def parse(self, text: str) -> ParseResult:
        """Parse one text into a :class:`ParseResult`. Never raises."""
        try:
            return self._parse(text)
        except Exception as exc:  # defensive: a reward must never crash a rollout
            return _fail(f"parser error: {type(exc).__name__}")

    def _parse(self, text: str) -> ParseResult:
        if not isinstance(text, str):
            return _fail("completion is not text")
        if not text.strip():
            return _fail("empty completion")
        obj = extract_json_object(text)
        if obj is None:
            return _fail("no JSON object found")
        missing_confidence = "confidence" not in obj and not self.require_confidence
        payload = {**obj, "confidence": 0.0} if missing_confidence else obj
        try:
            answer = self.answer_model.model_validate(payload)
        except ValidationError as exc:
            return _fail(_validation_reason(exc))
        canonical = self._canonical.get(answer.label.strip().casefold())
        if canonical is None:
            return _fail(f"label {_short(answer.label)} not in {list(self.allowed_labels)}")
        update: dict[str, Any] = {"label": canonical}
        if missing_confidence:
            update["confidence"] = None
        return ParseResult(answer=answer.model_copy(update=update), error=None)

    def parse_completion(self, completion: Any) -> ParseResult:
        """Parse a string or the LAST assistant message of a chat completion. Never raises."""
        try:
            if isinstance(completion, str):
                return self.parse(completion)
            if not completion:
                return _fail("empty completion")
            assistant = self.get_assistant_messages(list(completion))
            if not assistant:
                return _fail("no assistant message")
            content = self._message_field(assistant[-1], "content", "") or ""
            return self.parse(self._content_to_text(content))
        except Exception as exc:
            return _fail(f"parser error: {type(exc).__name__}")

    def parse_answer(self, completion: Any) -> str | None:
        """Canonical label of the completion's answer, or ``None`` if invalid."""
        return self.parse_completion(completion).label

    def get_format_reward_func(self) -> Callable[..., float]:
        """Reward function: 1.0 if the completion holds a valid answer, else 0.0."""

        def format_reward_func(completion: Any, **kwargs: Any) -> float:
            return 1.0 if self.parse_completion(completion).ok else 0.0

        return format_reward_func
