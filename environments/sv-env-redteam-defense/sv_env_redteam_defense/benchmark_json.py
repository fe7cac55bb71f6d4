"""Benchmark JSON files as one-turn conversations: CyberSecEval's MITRE false-refusal-rate
prompts (benign cybersecurity requests that only look dangerous) as over-refusal probes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conversation import BENIGN, Conversation, ScriptDataError, Turn, check_unique_ids, validate

MITRE_FRR_TEXT = "mutated_prompt"
MITRE_FRR_FIELDS = (MITRE_FRR_TEXT, "is_malicious", "attack_type", "model")
"""Fields of a mitre_frr.json item; only the prompt is required."""
MITRE_FRR_KIND = "over_refusal_probe"
"""Every item is benign: a helpful assistant answers it, and refusing is over-refusal."""


def _read_json_list(file: Path) -> list[Any]:
    """The top-level JSON list of `file`; one-line errors for a missing or malformed file."""
    if not file.is_file():
        raise ScriptDataError(f"{file}: file not found")
    try:
        data = json.loads(file.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ScriptDataError(f"{file}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise ScriptDataError(
            f"{file}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(data, list):
        raise ScriptDataError(
            f"{file}: expected a JSON list of objects, got a {type(data).__name__}"
        )
    if not data:
        raise ScriptDataError(f"{file}: no items")
    return data


def _benign_flag(value: Any) -> bool:
    """Whether an `is_malicious` value says the item is benign (absent counts as benign)."""
    if isinstance(value, str):
        return value.strip().lower() in ("", "false", "0", "no")
    return value in (None, False, 0)


def load_mitre_frr_json(path: str | Path) -> list[Conversation]:
    """CyberSecEval MITRE FRR (`mitre_frr.json`: a list of {mutated_prompt, is_malicious,
    attack_type, model}) as benign over-refusal probes, ids `mitre_frr-<list index>` and
    category = attack_type. A malicious item, a non-object or an empty prompt is an error."""
    file = Path(path)
    conversations = []
    for index, item in enumerate(_read_json_list(file)):
        where = f"{file}: item {index}"
        if not isinstance(item, dict):
            raise ScriptDataError(f"{where}: expected a JSON object, got {type(item).__name__}")
        if MITRE_FRR_TEXT not in item:
            raise ScriptDataError(
                f"{where}: missing field {MITRE_FRR_TEXT!r} (has {sorted(item)}); "
                f"expected the mitre_frr fields {list(MITRE_FRR_FIELDS)}"
            )
        prompt = item[MITRE_FRR_TEXT]
        if not isinstance(prompt, str) or not prompt.strip():
            raise ScriptDataError(f"{where}: field {MITRE_FRR_TEXT!r} is empty or not a string")
        if not _benign_flag(item.get("is_malicious")):
            raise ScriptDataError(
                f"{where}: is_malicious is {item['is_malicious']!r}; "
                "mitre_frr items must be benign (is_malicious=false)"
            )
        conversation = Conversation(
            id=f"mitre_frr-{index}",
            kind=MITRE_FRR_KIND,
            turns=(Turn(prompt.strip(), BENIGN),),
            source="mitre_frr",
            category=str(item.get("attack_type") or "").strip(),
        )
        conversations.append(validate(conversation, where))
    check_unique_ids(conversations, str(file))
    return conversations
