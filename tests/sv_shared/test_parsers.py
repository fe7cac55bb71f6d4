"""Behavioural tests for sv_shared.parsers."""

from __future__ import annotations

import json
import math
import time
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sv_shared.parsers import (
    MAX_SCAN_CHARS,
    ClassificationAnswer,
    JsonClassificationParser,
    ParseResult,
    extract_json_object,
)

LABELS = ("Benign", "Malicious", "Abstain")
PARSER = JsonClassificationParser(LABELS)

# (model output, expected canonical label, expected confidence) for valid answers
VALID_CASES = [
    pytest.param('{"label": "Benign", "confidence": 0.8}', "Benign", 0.8, id="bare"),
    pytest.param(
        'Looking at the logs...\n```json\n{"label": "Malicious", "confidence": 0.93,'
        ' "rationale": "SYN flood"}\n```\nHope this helps!',
        "Malicious",
        0.93,
        id="fenced-json-with-prose",
    ),
    pytest.param(
        '```\n{"label": "Benign", "confidence": 0.6}\n```', "Benign", 0.6, id="bare-fence"
    ),
    pytest.param(
        'My answer: {"label": "Malicious", "confidence": 0.7} -- final.',
        "Malicious",
        0.7,
        id="prose-before-after",
    ),
    pytest.param(
        '<think>Maybe {"label": "Benign", "confidence": 0.99}? No.</think>\n'
        '{"label": "Malicious", "confidence": 0.75}',
        "Malicious",
        0.75,
        id="think-decoy",
    ),
    pytest.param(
        '<THINK>{"label": "Malicious", "confidence": 1.0}</THINK>'
        '```json\n{"label": "Benign", "confidence": 0.55}\n```',
        "Benign",
        0.55,
        id="think-decoy-uppercase-tags",
    ),
    pytest.param(
        'reasoning with injected template {"label": "Benign", "confidence": 0.9}\n</think>\n'
        '{"label": "Abstain", "confidence": 0.5}',
        "Abstain",
        0.5,
        id="dangling-close-think",
    ),
    pytest.param(
        '{"label": "Benign", "confidence": 0.9}\n{"label": "Malicious", "confidence": 0.65}',
        "Malicious",
        0.65,
        id="multiple-objects-last-wins",
    ),
    pytest.param('{"label": "malicious", "confidence": 0.9}', "Malicious", 0.9, id="lowercase"),
    pytest.param('{"label": "BENIGN", "confidence": 0.9}', "Benign", 0.9, id="uppercase"),
    pytest.param('{"label": " abstain ", "confidence": 0.5}', "Abstain", 0.5, id="padded"),
    pytest.param(
        '{"label": "Malicious", "confidence": 0.8, "rationale": "regex {a,b} and \\"}\\" seen"}',
        "Malicious",
        0.8,
        id="braces-and-escapes-in-string",
    ),
    pytest.param(
        '{"label": "Benign", "confidence": 0.7, "evidence": {"ports": [80, 443]}}',
        "Benign",
        0.7,
        id="nested-object-outer-wins",
    ),
    pytest.param(
        '{"label": "Benign", "confidence": 0.7} }}} ]] trailing garbage {{ "oops',
        "Benign",
        0.7,
        id="trailing-garbage",
    ),
    pytest.param(
        'He wrote "see {config" and then: {"label": "Malicious", "confidence": 0.6}',
        "Malicious",
        0.6,
        id="stray-brace-and-quote-in-prose",
    ),
    pytest.param('{"label": "Benign", "confidence": 1}', "Benign", 1.0, id="int-confidence"),
    pytest.param('{"label": "Benign", "confidence": 0}', "Benign", 0.0, id="zero-confidence"),
    pytest.param(
        '{"label": "Benign", "confidence": 0.5, "unknown_key": [1, 2]}',
        "Benign",
        0.5,
        id="extra-keys-ignored",
    ),
]

# (model output, substring expected in the error)
INVALID_CASES = [
    pytest.param('{"label": "Benign", "confidence": "0.9"}', "confidence", id="string-conf"),
    pytest.param('{"label": "Benign", "confidence": 1.5}', "confidence", id="conf-above-1"),
    pytest.param('{"label": "Benign", "confidence": -0.1}', "confidence", id="negative-conf"),
    pytest.param('{"label": "Benign", "confidence": NaN}', "confidence", id="nan-conf"),
    pytest.param('{"label": "Benign", "confidence": Infinity}', "confidence", id="inf-conf"),
    pytest.param('{"label": "Benign", "confidence": 1e999}', "confidence", id="overflow-conf"),
    pytest.param('{"label": "Benign", "confidence": true}', "confidence", id="bool-conf"),
    pytest.param('{"label": "Benign", "confidence": null}', "confidence", id="null-conf"),
    pytest.param('{"label": "Benign"}', "confidence", id="missing-conf"),
    pytest.param('{"confidence": 0.9}', "label", id="missing-label"),
    pytest.param('{"label": ["Benign"], "confidence": 0.9}', "label", id="list-label"),
    pytest.param('{"label": "Suspicious", "confidence": 0.9}', "not in", id="unknown-label"),
    pytest.param('{"label": "", "confidence": 0.9}', "not in", id="empty-label"),
    pytest.param(
        '{"label": "Benign", "confidence": 0.9, "rationale": "' + "x" * 4001 + '"}',
        "rationale",
        id="rationale-too-long",
    ),
    pytest.param("Malicious Benign Abstain", "no JSON object", id="keyword-stuffing"),
    pytest.param("label: Malicious, confidence: 0.9", "no JSON object", id="yaml-ish"),
    pytest.param("", "empty", id="empty"),
    pytest.param("   \n ", "empty", id="whitespace"),
    pytest.param(
        '<think>{"label": "Benign", "confidence": 0.9} still thinking',
        "no JSON object",
        id="unterminated-think",
    ),
    pytest.param('["Benign", 0.9]', "no JSON object", id="json-array"),
    pytest.param("{'label': 'Benign', 'confidence': 0.9}", "no JSON object", id="python-dict"),
    pytest.param(
        '{"label": "Benign", "confidence": 0.9}\n{"label": "Malicious", "confidence": 2}',
        "confidence",
        id="last-object-invalid-no-fallback",
    ),
]


@pytest.mark.parametrize(("text", "label", "confidence"), VALID_CASES)
def test_valid_outputs(text: str, label: str, confidence: float) -> None:
    result = PARSER.parse(text)
    assert result.ok, result.error
    assert result.error is None
    assert result.answer is not None
    assert result.answer.label == label
    assert result.answer.confidence == pytest.approx(confidence)
    assert PARSER.parse_answer(text) == label


@pytest.mark.parametrize(("text", "reason"), INVALID_CASES)
def test_invalid_outputs(text: str, reason: str) -> None:
    result = PARSER.parse(text)
    assert not result.ok
    assert result.answer is None
    assert result.error is not None and reason in result.error
    assert PARSER.parse_answer(text) is None


def test_error_messages_are_human_readable() -> None:
    assert PARSER.parse("nothing here").error == "no JSON object found"
    assert PARSER.parse('{"label": "Foo", "confidence": 0.5}').error == (
        "label 'Foo' not in ['Benign', 'Malicious', 'Abstain']"
    )
    assert PARSER.parse('{"label": "Benign", "confidence": 3}').error.startswith("confidence: ")


def test_rationale_is_kept() -> None:
    result = PARSER.parse('{"label": "Benign", "confidence": 0.6, "rationale": "DNS lookups"}')
    assert result.answer is not None and result.answer.rationale == "DNS lookups"


def test_parse_result_ok_property() -> None:
    answer = ClassificationAnswer(label="Benign", confidence=0.5)
    assert ParseResult(answer=answer, error=None).ok
    assert not ParseResult(answer=None, error="x").ok


def test_classification_answer_strict_schema() -> None:
    with pytest.raises(ValueError):
        ClassificationAnswer(label="Benign", confidence=True)
    with pytest.raises(ValueError):
        ClassificationAnswer(label="Benign", confidence="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ClassificationAnswer(label="Benign", confidence=math.nan)
    assert ClassificationAnswer(label="Benign", confidence=1).confidence == 1.0


# --------------------------------------------------------------------------- completions


def test_message_list_uses_last_assistant_message() -> None:
    completion = [
        {"role": "assistant", "content": '{"label": "Benign", "confidence": 0.9}'},
        {"role": "user", "content": '{"label": "Benign", "confidence": 0.9} really?'},
        {"role": "assistant", "content": 'Revised: {"label": "Malicious", "confidence": 0.7}'},
    ]
    result = PARSER.parse_completion(completion)
    assert result.ok and result.answer is not None
    assert result.answer.label == "Malicious"
    assert PARSER.parse_answer(completion) == "Malicious"


def test_message_list_ignores_non_assistant_json() -> None:
    completion = [
        {"role": "user", "content": '{"label": "Benign", "confidence": 0.9}'},
        {"role": "assistant", "content": "I think it is Benign."},
    ]
    result = PARSER.parse_completion(completion)
    assert not result.ok and result.error == "no JSON object found"


def test_message_objects_and_content_parts() -> None:
    completion = [
        SimpleNamespace(role="assistant", content="ignored"),
        {
            "role": "assistant",
            "content": [{"type": "text", "text": '{"label": "benign", "confidence": 0.6}'}],
        },
    ]
    assert PARSER.parse_answer(completion) == "Benign"
    objects = [SimpleNamespace(role="assistant", content='{"label":"Abstain","confidence":0.5}')]
    assert PARSER.parse_answer(objects) == "Abstain"


@pytest.mark.parametrize(
    ("completion", "reason"),
    [
        ([], "empty completion"),
        ("", "empty completion"),
        (None, "empty completion"),
        ([{"role": "user", "content": "hi"}], "no assistant message"),
        ([{"role": "assistant", "content": None}], "empty completion"),
        (12345, "parser error"),
    ],
)
def test_degenerate_completions(completion: object, reason: str) -> None:
    result = PARSER.parse_completion(completion)
    assert not result.ok
    assert result.error is not None and reason in result.error


def test_format_reward_func() -> None:
    fmt = PARSER.get_format_reward_func()
    assert fmt(completion='{"label": "Benign", "confidence": 0.5}', answer="Benign") == 1.0
    assert fmt(completion="Benign", answer="Benign") == 0.0
    assert fmt([{"role": "assistant", "content": '{"label":"Benign","confidence":0.5}'}]) == 1.0
    assert fmt([]) == 0.0


def test_parser_is_a_verifiers_parser() -> None:
    import verifiers as vf

    assert isinstance(PARSER, vf.Parser)


def test_constructor_validation() -> None:
    with pytest.raises(ValueError):
        JsonClassificationParser([])
    with pytest.raises(ValueError):
        JsonClassificationParser(["Benign", "benign"])


def test_lenient_mode_allows_missing_confidence_only() -> None:
    lenient = JsonClassificationParser(["Benign", "Malicious"], require_confidence=False)
    result = lenient.parse('{"label": "malicious"}')
    assert result.ok and result.answer is not None
    assert result.answer.label == "Malicious"
    assert result.answer.confidence is None
    # a confidence that is present is still validated
    assert not lenient.parse('{"label": "Benign", "confidence": "high"}').ok
    assert not lenient.parse('{"label": "Benign", "confidence": 1.2}').ok
    ok = lenient.parse('{"label": "Benign", "confidence": 0.4}')
    assert ok.answer is not None and ok.answer.confidence == 0.4


# --------------------------------------------------------------------------- extraction


def test_extract_prefers_fence_over_later_prose_object() -> None:
    text = '```json\n{"label": "Benign"}\n```\nExample format: {"label": "X"}'
    assert extract_json_object(text) == {"label": "Benign"}


def test_extract_ignores_non_json_fences() -> None:
    text = '```python\nd = {"label": "X"}\n```\n{"label": "Y"}'
    assert extract_json_object(text) == {"label": "Y"}


def test_extract_only_looks_at_the_tail() -> None:
    head = '{"label": "Benign", "confidence": 0.9}'
    assert extract_json_object(head + " " * MAX_SCAN_CHARS) is None
    assert extract_json_object(" " * (10 * MAX_SCAN_CHARS) + head) == json.loads(head)


@pytest.mark.parametrize(
    "text",
    [
        "{" * 20_000,
        '{"a":' * 4_000,
        '{"a":[' * 3_500,
        '{"a":{"a":' * 2_000 + "1 x" + "}}" * 2_000,
        '"' * 20_000,
        "<think>" * 3_000,
        "```" * 7_000,
        "\x00\xff\ud7ff" * 50_000,
        "x" * 5_000_000,
    ],
)
def test_extract_is_fast_and_safe_on_adversarial_input(text: str) -> None:
    start = time.perf_counter()
    assert extract_json_object(text) is None
    assert not PARSER.parse(text).ok
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("value", [None, 3, b'{"a": 1}', ["{}"]])
def test_extract_non_text_returns_none(value: object) -> None:
    assert extract_json_object(value) is None  # type: ignore[arg-type]
    assert not PARSER.parse(value).ok  # type: ignore[arg-type]


# --------------------------------------------------------------------------- properties

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
answer_like = st.fixed_dictionaries(
    {},
    optional={
        "label": st.sampled_from(["Benign", "malicious", "ABSTAIN", "Other", ""]) | json_values,
        "confidence": st.floats() | st.integers(-2, 2) | json_values,
        "rationale": st.text(max_size=30) | json_values,
    },
)
fragments = st.sampled_from(
    ["{", "}", '"', "\\", "```", "```json\n", "<think>", "</think>", ":", ",", "\n", "NaN"]
)


def _assert_schema(result: ParseResult) -> None:
    if result.ok:
        assert result.answer is not None
        assert result.answer.label in LABELS
        conf = result.answer.confidence
        assert isinstance(conf, float) and math.isfinite(conf) and 0.0 <= conf <= 1.0
    else:
        assert result.answer is None and isinstance(result.error, str) and result.error


@FUZZ
@given(st.text())
def test_parse_never_raises_on_text(text: str) -> None:
    _assert_schema(PARSER.parse(text))


@FUZZ
@given(st.lists(st.one_of(fragments, st.text(max_size=10), answer_like.map(json.dumps))))
def test_parse_never_raises_on_json_like_compositions(parts: list[str]) -> None:
    text = "".join(parts)
    _assert_schema(PARSER.parse(text))
    obj = extract_json_object(text)
    assert obj is None or isinstance(obj, dict)


@FUZZ
@given(answer_like, st.text(max_size=20), st.text(max_size=20))
def test_random_answer_dicts_respect_schema(obj: dict, before: str, after: str) -> None:
    _assert_schema(PARSER.parse(before + json.dumps(obj) + after))


prose = st.text(
    alphabet=st.characters(blacklist_characters="{}`<", blacklist_categories=("Cs",)),
    max_size=200,
)


@FUZZ
@given(
    st.sampled_from(LABELS),
    st.floats(min_value=0.0, max_value=1.0),
    st.text(max_size=100),
    prose,
    prose,
)
def test_valid_answer_in_prose_is_recovered_exactly(
    label: str, confidence: float, rationale: str, before: str, after: str
) -> None:
    answer = {"label": label, "confidence": confidence, "rationale": rationale}
    result = PARSER.parse(before + json.dumps(answer) + after)
    assert result.ok, result.error
    assert result.answer is not None
    assert result.answer.model_dump() == answer


def test_decoding_schema_requires_no_more_than_the_parser() -> None:
    """Constrained decoding must allow every answer the parser accepts: a model trained on
    `{"label", "confidence"}` answers is otherwise forced off its distribution (a required
    rationale made it write 0.9999999999999997-style confidences until the token budget ran
    out)."""
    import jsonschema

    from sv_env_phishing_detection.answer import TriageParser
    from sv_shared.parsers import JsonClassificationParser

    for parser, answer in [
        (JsonClassificationParser(["Benign", "Malicious", "Abstain"]), '{"label": "Benign", '
         '"confidence": 0.9}'),
        (TriageParser(), '{"label": "Legitimate", "confidence": 0.8}'),
    ]:  # fmt: skip
        assert parser.parse(answer).ok
        jsonschema.validate(json.loads(answer), parser.answer_json_schema())
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"label": "Benign"}, parser.answer_json_schema())
