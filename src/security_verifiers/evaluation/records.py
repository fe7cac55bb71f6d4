"""Turning a verifiers rollout into one line of results.jsonl."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from security_verifiers.evaluation.stored_text import cap_stored_text
from security_verifiers.models.chat_client import FAILURE_KINDS
from security_verifiers.models.spec import redact_url
from sv_shared.episode_scoring import SCORING_ERROR


def completion_text(completion: Any) -> str:
    """The last assistant message's text ('' when the model said nothing)."""
    if isinstance(completion, str):
        return completion
    for message in reversed(completion or []):
        role = message.get("role") if isinstance(message, Mapping) else getattr(message, "role", "")
        if role == "assistant":
            content = message.get("content") if isinstance(message, Mapping) else message.content
            if isinstance(content, list):
                return " ".join(
                    p.get("text", "") for p in content if isinstance(p, Mapping)
                ).strip()
            return content or ""
    return ""


SCORED_MODEL_ERRORS = frozenset({"EmptyModelResponseError", "InvalidModelResponseError"})
"""Failures that are the model's own output (a reply with no text and no tool call, or more
than one choice): the rollout is scored like any other answer (as invalid) and is not retried
on resume. Everything else — a prompt over the context, a reply cut by the token cap, no
choices, a body that is not a chat completion, an HTTP error — is an error row
(`models.chat_client`), never an answer."""

_BAD_REQUEST = ("BadRequestError", "NotFoundError", "UnprocessableEntityError", "ConflictError")


def error_kind(error: Any, stop_condition: Any = None) -> str | None:
    """The kind of an infrastructure error (`models.chat_client.HINTS`), None for no error."""
    if stop_condition == "prompt_too_long":
        return "context_length"
    if not error:
        return None
    if not isinstance(error, Mapping):
        return "error"
    chain = f"{error.get('error_chain_str') or ''} {error.get('error') or ''}"
    for name, kind in FAILURE_KINDS.items():
        if name in chain:
            return kind
    if any(name in chain for name in _BAD_REQUEST):
        return "bad_request"
    return "http" if "ModelError" in chain or "Timeout" in chain else "error"


def _span(timing: Mapping[str, Any], name: str) -> float:
    """Duration of a verifiers timing span (`env` = tool/environment turns, `scoring`)."""
    span = timing.get(name)
    return float(span.get("duration") or 0.0) if isinstance(span, Mapping) else 0.0


_STATUS = re.compile(r"Error code: (\d{3})")
_CALL = re.compile(r"^\s*(?P<name>\w+)\((?P<args>.*)\)\s*$", re.DOTALL)


def _error_text(error: Any) -> str | None:
    """One line for an error record: `HTTP 503 (ModelError -> InternalServerError): detail`."""
    if not error:
        return None
    if not isinstance(error, Mapping):
        return str(error)
    chain = str(error.get("error_chain_str") or error.get("error") or "error")
    detail = ""  # the first message along the chain (the wrapper errors carry none)
    for part in str(error.get("error_chain_repr") or "").split(" -> "):
        match = _CALL.match(part)
        detail = match.group("args").strip().strip("'\"") if match else ""
        if detail:
            break
    if not detail and error.get("message") and error.get("message") != error.get("error"):
        detail = str(error["message"])
    status = _STATUS.search(detail)
    head = f"HTTP {status.group(1)} ({chain})" if status else chain
    text = f"{head}: {detail}" if detail else head
    return redact_url(text if len(text) <= 500 else text[:497] + "...")


def _split_error(error: Any) -> tuple[str | None, str | None]:
    """(infrastructure error, model-output error) from verifiers' error record."""
    name = error.get("error") if isinstance(error, Mapping) else type(error).__name__
    text = _error_text(error)
    if text is None:
        return None, None
    return (None, text) if name in SCORED_MODEL_ERRORS else (text, None)


def rollout_row(
    output: Mapping[str, Any],
    parser: Any,
    run_attempt: int,
    component_names: Collection[str] | None = None,
    state_columns: Collection[str] = (),
    reasoning: Any = None,
) -> dict[str, Any]:
    """One results.jsonl record: ids, raw completion, parsed answer, every reward component.
    `reasoning` (a `models.chat_client.RolloutUsage`) adds the rollout's reasoning tokens;
    `error_kind` says why a rollout has no answer (`models.chat_client.HINTS`).

    `component_names` picks the reward components out of verifiers' metrics; the rest (such as
    `num_turns`) are kept under `metrics`. `state_columns` (an environment's
    `sv_state_columns`, e.g. a redacted `transcript`) are copied from the rollout as they are.
    Long texts are cut to `stored_text.STORED_TEXT_CAP_CHARS` (the stored copy only).
    """
    info = output.get("info") or {}
    text = completion_text(output.get("completion"))
    parsed: dict[str, Any] | None = None
    parse_error: str | None = None
    parse = getattr(parser, "parse_completion", None)
    if parse is not None:
        result = parse(output.get("completion") or [])
        parsed = result.answer.model_dump() if result.answer is not None else None
        parse_error = result.error
    metrics = dict(output.get("metrics") or {})

    def is_component(name: str) -> bool:
        return component_names is None or name in component_names

    infra_error, model_error = _split_error(output.get("error"))
    kind = error_kind(output.get("error")) if infra_error else None
    if infra_error is None and output.get("stop_condition") == "prompt_too_long":
        infra_error, kind = "the prompt does not fit the model's context", "context_length"
    if infra_error is None and metrics.get(SCORING_ERROR):
        infra_error = "the reward computation raised (traceback in the run log); rollout not scored"
        kind = "scoring"
    if infra_error is None and output.get("stop_condition") == "timeout_reached" and not text:
        infra_error, kind = "the rollout timed out before the model answered", "http"
    usage = output.get("token_usage") or {}
    timing = output.get("timing") or {}
    if infra_error is not None:  # no answer to score: never aggregated as one
        parsed, parse_error, metrics = None, None, {}
    record = {
        "example_id": output.get("example_id"),
        "example_key": info.get("id"),
        "scenario": info.get("scenario"),
        "gold": output.get("answer"),
        "completion": text,
        "parsed": parsed,
        "parse_error": parse_error,
        "rewards": {k: v for k, v in metrics.items() if is_component(k)},
        "metrics": {k: v for k, v in metrics.items() if not is_component(k)},
        "reward": None if infra_error else float(output.get("reward") or 0.0),
        "latency_s": round(float(timing.get("total") or 0.0), 6),
        "tool_s": round(_span(timing, "env"), 6),
        "scoring_s": round(_span(timing, "scoring"), 6),
        "tokens": {
            "input": int(usage.get("input_tokens") or 0),
            "output": int(usage.get("output_tokens") or 0),
            "reasoning": int(getattr(reasoning, "reasoning_tokens", 0) or 0),
            **({"reasoning_estimated": True} if getattr(reasoning, "estimated", False) else {}),
        },
        "error": infra_error,
        "error_kind": kind,
        "model_error": model_error,
        "attempt": run_attempt,
        **{name: output.get(name) for name in state_columns},
    }
    return cap_stored_text(record, state_columns)


def failed_row(row: Mapping[str, Any], exc: BaseException, run_attempt: int) -> dict[str, Any]:
    """A results record for a rollout that raised before verifiers could score it."""
    info = row.get("info") or {}
    return {
        "example_id": row.get("example_id"),
        "example_key": info.get("id"),
        "scenario": info.get("scenario"),
        "gold": row.get("answer"),
        "completion": "",
        "parsed": None,
        "parse_error": None,
        "rewards": {},
        "metrics": {},
        "reward": None,
        "latency_s": 0.0,
        "tokens": {"input": 0, "output": 0},
        "error": redact_url(f"{type(exc).__name__}: {exc}"),
        "error_kind": "error",
        "model_error": None,
        "attempt": run_attempt,
    }
