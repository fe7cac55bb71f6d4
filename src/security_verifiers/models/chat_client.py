"""The verifiers chat client every evaluated model is called through, with model failures that
are never mistaken for answers.

verifiers' own client scores some failures as the model's (empty) answer: a context-length 400
becomes a quiet `prompt_too_long` stop, a 200 with `choices: []` an invalid answer, a reply cut
by the token cap an answer like any other. Here each of them raises a `ModelFailure` with its
`kind` and a hint that fits, so the rollout is recorded as an error and left out of every metric.
R1-style `<think>...</think>` blocks are moved out of the answer into `reasoning_content`, and
the reasoning tokens of every call are added to the rollout's `RolloutUsage`.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from dataclasses import dataclass
from typing import Any

import pydantic
import verifiers as vf

from security_verifiers.models.capabilities import RequestPlan

RETRYABLE_KINDS = frozenset({"empty_choices", "invalid_body", "http", "scoring", "error"})
"""Error kinds a rerun of the same command retries (the others give the same result again)."""

HINTS = {
    "context_length": "shorten the prompt or raise the model's context (vLLM --max-model-len), "
    "or lower --max-tokens / --reasoning-budget",
    "truncated": "raise --max-tokens (the answer) or --reasoning-budget (reasoning models)",
    "bad_request": "the server rejects the request as sent; check the model name, "
    "--capability and the sampling options (a rerun sends the same request)",
    "empty_choices": "rerun the same command to retry them",
    "invalid_body": "check the base URL points at the API (…/v1); rerun to retry them",
    "http": "rerun the same command to retry them",
    "scoring": "rerun the same command to retry them",
    "error": "rerun the same command to retry them",
}


class ModelFailure(vf.ModelError):
    """A model call that produced no usable answer, and why (`kind`, see `HINTS`)."""

    kind = "error"


class ContextLengthError(ModelFailure):
    kind = "context_length"


class TruncatedReplyError(ModelFailure):
    kind = "truncated"


class EmptyChoicesError(ModelFailure):
    kind = "empty_choices"


class InvalidBodyError(ModelFailure):
    kind = "invalid_body"


FAILURES = (ContextLengthError, TruncatedReplyError, EmptyChoicesError, InvalidBodyError)
FAILURE_KINDS = {cls.__name__: cls.kind for cls in FAILURES}
"""Error class name (as verifiers records it) -> kind."""


@dataclass
class RolloutUsage:
    """What one rollout's model calls used beyond verifiers' input/output token counts."""

    calls: int = 0
    reasoning_tokens: int = 0
    reasoning_chars: int = 0
    """Characters of `<think>` / `reasoning_content` text."""
    estimated: bool = False
    """Reasoning tokens were not reported: they are the reasoning text's share (by characters)
    of the completion tokens."""


ROLLOUT_USAGE: contextvars.ContextVar[RolloutUsage | None] = contextvars.ContextVar(
    "sv_rollout_usage", default=None
)
"""Set by the runner for each rollout task; the client adds every call's usage to it."""

_THINK = re.compile(r"^\s*<think>(?P<reasoning>.*?)</think>\s*", re.DOTALL)
_THINK_CLOSE_ONLY = re.compile(r"^(?P<reasoning>.*?)</think>\s*", re.DOTALL)


def split_think(content: str, expect_tags: bool) -> tuple[str | None, str]:
    """(reasoning, answer) of `content`: a leading `<think>...</think>` block is reasoning; with
    `expect_tags` (an R1-style family, whose template may open the block in the prompt) text up
    to a lone `</think>` is too. An unclosed `<think>` leaves no answer."""
    match = _THINK.match(content)
    if match:
        return match.group("reasoning").strip(), content[match.end() :]
    stripped = content.lstrip()
    if stripped.startswith("<think>"):
        return stripped[len("<think>") :].strip(), ""
    if expect_tags and "</think>" in content:
        match = _THINK_CLOSE_ONLY.match(content)
        if match:
            return match.group("reasoning").strip(), content[match.end() :]
    return None, content


def _context_length_detail(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    response = getattr(cause, "response", None)
    text = getattr(response, "text", "") or str(cause)
    return " ".join(str(text).split())[:300]


class HarnessChatClient(vf.OpenAIChatCompletionsClient):
    """`vf.OpenAIChatCompletionsClient` that turns model failures into `ModelFailure`s."""

    def __init__(
        self, client: Any, plan: RequestPlan | None = None, *, truncated_is_error: bool = True
    ) -> None:
        super().__init__(client)
        self.plan = plan
        self.truncated_is_error = truncated_is_error
        """False: a reply cut by the cap is scored as it stands (`--truncated score`, for
        evals whose short cap is part of the design, such as the training proof's)."""

    async def get_native_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_native_response(*args, **kwargs)
        except vf.OverlongPromptError as exc:
            raise ContextLengthError(
                f"the prompt does not fit the model's context: {_context_length_detail(exc)}"
            ) from exc
        except pydantic.ValidationError as exc:
            raise InvalidBodyError(_body_problem(exc)) from exc

    async def raise_from_native_response(self, response: Any) -> None:
        if response is None or not getattr(response, "choices", None):
            raise EmptyChoicesError("the server answered 200 with no choices (`choices: []`)")
        usage = ROLLOUT_USAGE.get()
        reasoning = _reasoning_tokens(getattr(response, "usage", None))
        choice = response.choices[0]
        message = getattr(choice, "message", None)
        think = self._split_reasoning(message)
        if think and not reasoning:  # in the content: its share of the completion tokens
            reasoning = _estimated_share(getattr(response, "usage", None), think, message)
            if usage is not None:
                usage.estimated = True
        if usage is not None:
            usage.calls += 1
            usage.reasoning_tokens += reasoning
            usage.reasoning_chars += len(think or "")
        if self.truncated_is_error and choice.finish_reason == "length":
            raise TruncatedReplyError(self._truncation_text(response, reasoning))
        await super().raise_from_native_response(response)

    def _split_reasoning(self, message: Any) -> str | None:
        """Move a `<think>` block out of the answer; the reasoning text (None: none)."""
        if message is None:
            return None
        existing = getattr(message, "reasoning_content", None) or getattr(
            message, "reasoning", None
        )
        content = message.content if isinstance(message.content, str) else None
        if content is None:
            return existing if isinstance(existing, str) else None
        expect = self.plan is not None and self.plan.capabilities.reasoning == "think-tags"
        reasoning, answer = split_think(content, expect)
        if reasoning is None:
            return existing if isinstance(existing, str) else None
        message.content = answer
        with contextlib.suppress(AttributeError, ValueError, TypeError):
            message.reasoning_content = reasoning
        return reasoning

    def _truncation_text(self, response: Any, reasoning: int) -> str:
        used = getattr(getattr(response, "usage", None), "completion_tokens", None)
        cap = ""
        if self.plan is not None:
            cap = self.plan.seen.get("completion_cap") or ""
        spent = f"{used} completion tokens" if used is not None else "the completion cap"
        of_which = f", {reasoning} of them reasoning" if reasoning else ""
        return f"the reply was cut at {spent}{of_which}{f' ({cap})' if cap else ''}"


def _estimated_share(usage: Any, think: str, message: Any) -> int:
    completion = getattr(usage, "completion_tokens", None)
    answer = message.content if isinstance(getattr(message, "content", None), str) else ""
    if not isinstance(completion, int) or not (think or answer):
        return 0
    return round(completion * len(think) / (len(think) + len(answer)))


def _reasoning_tokens(usage: Any) -> int:
    details = getattr(usage, "completion_tokens_details", None)
    value = getattr(details, "reasoning_tokens", None)
    if value is None and isinstance(details, dict):
        value = details.get("reasoning_tokens")
    return int(value) if isinstance(value, int) else 0


def _body_problem(exc: pydantic.ValidationError) -> str:
    """One line for a 200 body that is not a chat completion."""
    first: dict[str, Any] = dict(exc.errors()[0]) if exc.errors() else {}
    raw = first.get("input")
    if first.get("type") == "json_invalid" and isinstance(raw, (str, bytes)):
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        start = " ".join(text.split())[:60]
        return f"the server answered 200 with a body that is not JSON (it starts: {start!r})"
    where = ".".join(str(p) for p in first.get("loc", ())) or "body"
    return (
        f"the server answered 200 with a body that is not a chat completion ({where}: "
        f"{first.get('msg', 'invalid')})"
    )
