"""The E2 answer schema and its never-raising parser."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sv_env_config_verification.schema import (
    MAX_PATCH_CHARS,
    MAX_VIOLATIONS,
    AuditAnswer,
    answer_json_schema,
    parse_answer,
)

GOOD = {
    "violations": [{"id": "k8s/host-pid", "severity": "high"}],
    "patch": "--- a/x.yaml\n+++ b/x.yaml\n",
    "confidence": 0.75,
}


def test_valid_answer_parses() -> None:
    answer, error = parse_answer(json.dumps(GOOD))
    assert error is None and answer is not None
    assert answer.ids == ["k8s/host-pid"]
    assert answer.violations[0].severity == "high"
    assert answer.confidence == 0.75


def test_fenced_answer_after_reasoning_and_extra_keys() -> None:
    payload = {
        **GOOD,
        "rationale": "ignored",
        "violations": [{"id": " tf/rds-public ", "severity": "high", "resource": "x"}],
    }
    text = '<think>{"violations": []}</think>Here:\n```json\n' + json.dumps(payload) + "\n```"
    answer, error = parse_answer(text)
    assert error is None and answer is not None
    assert answer.ids == ["tf/rds-public"]


def test_patch_defaults_to_empty() -> None:
    answer, _ = parse_answer('{"violations": [], "confidence": 1}')
    assert answer is not None and answer.patch == "" and answer.violations == []


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({**GOOD, "confidence": "0.7"}, "confidence"),
        ({**GOOD, "confidence": True}, "confidence"),
        ({**GOOD, "confidence": 1.5}, "confidence"),
        ({**GOOD, "violations": [{"id": "k8s/host-pid", "severity": "critical"}]}, "severity"),
        ({**GOOD, "violations": [{"id": 3, "severity": "low"}]}, "id"),
        ({**GOOD, "violations": "k8s/host-pid"}, "violations"),
        ({**GOOD, "patch": 5}, "patch"),
        ({k: v for k, v in GOOD.items() if k != "violations"}, "violations"),
        ({k: v for k, v in GOOD.items() if k != "confidence"}, "confidence"),
    ],
)
def test_invalid_fields_are_rejected(payload: dict, fragment: str) -> None:
    answer, error = parse_answer(json.dumps(payload))
    assert answer is None and error is not None and fragment in error


def test_limits() -> None:
    many = {
        **GOOD,
        "violations": [{"id": "k8s/host-pid", "severity": "high"}] * (MAX_VIOLATIONS + 1),
    }
    assert parse_answer(json.dumps(many))[0] is None
    huge = {**GOOD, "patch": "x" * (MAX_PATCH_CHARS + 1)}
    assert parse_answer("```json\n" + json.dumps(huge) + "\n```")[0] is None


def test_nan_confidence_rejected() -> None:
    assert parse_answer('{"violations": [], "patch": "", "confidence": NaN}')[0] is None


@pytest.mark.parametrize("text", ["", "   ", "no json here", "[1, 2]", None, 42, b"{}"])
def test_garbage_gives_reason(text: object) -> None:
    answer, error = parse_answer(text)
    assert answer is None and isinstance(error, str) and error


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parser_never_raises(text: str) -> None:
    answer, error = parse_answer(text)
    assert (answer is None) != (error is None)


def test_json_schema_matches_model() -> None:
    schema = answer_json_schema(["k8s/host-pid", "tf/rds-public"])
    assert schema["required"] == ["violations", "patch", "confidence"]
    assert schema["additionalProperties"] is False
    item = schema["properties"]["violations"]["items"]
    assert item["properties"]["id"]["enum"] == ["k8s/host-pid", "tf/rds-public"]
    assert item["properties"]["severity"]["enum"] == ["low", "med", "high"]
    free = answer_json_schema()
    assert "enum" not in free["properties"]["violations"]["items"]["properties"]["id"]
    assert isinstance(AuditAnswer.model_validate(GOOD), AuditAnswer)


def test_huge_and_binary_completions() -> None:
    answer, error = parse_answer("x" * 2_000_000 + json.dumps(GOOD))
    assert error is None and answer is not None
    assert parse_answer("{" * 500_000)[0] is None
    assert parse_answer("\x00\xff\x89PNG" * 10_000)[0] is None
