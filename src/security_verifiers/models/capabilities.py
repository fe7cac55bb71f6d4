"""What a model accepts in a chat-completions request, consulted before every request.

Each provider keeps one table of model families (`Provider.capability_table`): a pattern on
the model id and the `ModelCapabilities` of that family — does it accept `temperature`,
`top_p`, `seed`, which completion-token parameter it reads, whether it takes
`reasoning_effort`, and how its reasoning comes back (hidden and counted in usage, `<think>`
blocks in the content, or a separate field). Matching uses the model id only (the part after
the last `/`, so `openai/gpt-5-mini` at OpenRouter and `gpt-5-mini@http://host/v1` match like
`gpt-5-mini`), and `--capability KEY=VALUE` overrides a field for one run.

A `RequestPlan` (capabilities + the run's reasoning options) rewrites every request body just
before it is sent (`CapabilityTransport`): parameters the model rejects are dropped, the token
limit is renamed to the parameter it reads, and reasoning models get a completion cap of
answer tokens + reasoning budget, so hidden reasoning cannot eat the answer.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import httpx2

from security_verifiers.errors import UserError
from security_verifiers.models.transports import with_json_body

TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")
REASONING_STYLES = ("none", "usage", "think-tags", "field")
"""none: no reasoning; usage: hidden, counted in usage.completion_tokens_details.reasoning_tokens;
think-tags: `<think>...</think>` before the answer in the content; field: `reasoning_content`."""
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
DEFAULT_REASONING_BUDGET = 8192
"""Completion tokens reserved for reasoning on top of `--max-tokens` (reasoning models only)."""


@dataclass(frozen=True)
class ModelCapabilities:
    """What one model family accepts and how it reports reasoning."""

    family: str
    temperature: bool = True
    top_p: bool = True
    seed: bool = True
    token_param: str = "max_tokens"
    reasoning_effort: bool = False
    reasoning: str = "none"

    @property
    def reasons(self) -> bool:
        """Reasoning tokens count against the completion cap."""
        return self.reasoning != "none"


GENERIC = ModelCapabilities("generic")
"""Any OpenAI-compatible server the tables do not know: everything is sent as asked."""

CapabilityTable = Sequence[tuple[str, ModelCapabilities]]
"""(regular expression matched at the start of the normalised model id, capabilities)."""


def normalise_model_id(model_id: str) -> str:
    """`model_id` lower-cased, without any `provider/` path (`openai/GPT-5` -> `gpt-5`)."""
    return model_id.strip().lower().rsplit("/", 1)[-1]


def match_capabilities(
    table: CapabilityTable, model_id: str, default: ModelCapabilities = GENERIC
) -> ModelCapabilities:
    """The first family of `table` whose pattern matches `model_id`, else `default`."""
    name = normalise_model_id(model_id)
    for pattern, capabilities in table:
        if re.match(pattern, name):
            return capabilities
    return default


def families(tables: Sequence[CapabilityTable]) -> dict[str, ModelCapabilities]:
    """Every family named in `tables` (plus `generic`), by name."""
    found = {GENERIC.family: GENERIC}
    for table in tables:
        for _, capabilities in table:
            found.setdefault(capabilities.family, capabilities)
    return found


_BOOL_FIELDS = ("temperature", "top_p", "seed", "reasoning_effort")


def parse_overrides(pairs: Sequence[str], known_families: Mapping[str, ModelCapabilities]) -> dict:
    """`--capability KEY=VALUE` pairs as a dict of checked fields (one-line errors)."""
    overrides: dict[str, Any] = {}
    fields = (*_BOOL_FIELDS, "token_param", "reasoning", "family")
    for pair in pairs:
        key, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not key:
            raise UserError(
                f"--capability '{pair}': expected KEY=VALUE (keys: {', '.join(fields)})"
            )
        if key not in fields:
            raise UserError(
                f"--capability '{pair}': unknown key '{key}' (keys: {', '.join(fields)})"
            )
        if key in _BOOL_FIELDS:
            lowered = value.lower()
            if lowered not in ("true", "false", "yes", "no", "1", "0"):
                raise UserError(f"--capability {key}={value}: expected true or false")
            overrides[key] = lowered in ("true", "yes", "1")
        elif key == "token_param":
            if value not in TOKEN_PARAMS:
                raise UserError(f"--capability {key}={value}: expected {' or '.join(TOKEN_PARAMS)}")
            overrides[key] = value
        elif key == "reasoning":
            if value not in REASONING_STYLES:
                raise UserError(
                    f"--capability {key}={value}: expected {', '.join(REASONING_STYLES)}"
                )
            overrides[key] = value
        else:
            if value not in known_families:
                raise UserError(
                    f"--capability family={value}: unknown family "
                    f"(known: {', '.join(sorted(known_families))})"
                )
            overrides[key] = value
    return overrides


def apply_overrides(
    base: ModelCapabilities,
    overrides: Mapping[str, Any],
    known_families: Mapping[str, ModelCapabilities],
) -> ModelCapabilities:
    """`base` with `overrides` applied (`family=` first replaces the whole row)."""
    if not overrides:
        return base
    chosen = known_families[overrides["family"]] if "family" in overrides else base
    rest = {k: v for k, v in overrides.items() if k != "family"}
    return replace(chosen, **rest)


@dataclass
class RequestPlan:
    """How every request of one model is rewritten before it is sent."""

    capabilities: ModelCapabilities
    source: str = "table"
    """`table` (matched by name) or `override` (`--capability`)."""
    reasoning_effort: str | None = None
    reasoning_budget: int = DEFAULT_REASONING_BUDGET
    seen: dict[str, str] = field(default_factory=dict)
    """What requests of this run had changed (parameter -> what happened), for metadata."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def apply(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """`body` as this model accepts it; every change is noted in `seen`."""
        caps = self.capabilities
        out = dict(body)
        notes: dict[str, str] = {}
        for name in ("temperature", "top_p", "seed"):
            if name in out and not getattr(caps, name):
                notes[name] = f"dropped ({out.pop(name)!r}: {caps.family} models reject it)"
        if self.reasoning_effort is not None and "reasoning_effort" not in out:
            out["reasoning_effort"] = self.reasoning_effort
        if "reasoning_effort" in out and not caps.reasoning_effort:
            notes["reasoning_effort"] = f"dropped ({out.pop('reasoning_effort')!r}: not accepted)"
        limits = [out.pop(name) for name in TOKEN_PARAMS if name in out]
        limit = next((v for v in limits if v is not None), None)
        if limit is not None:
            sent = int(limit) + (self.reasoning_budget if caps.reasons else 0)
            out[caps.token_param] = sent
            if caps.reasons:
                budget = self.reasoning_budget
                notes["completion_cap"] = (
                    f"{caps.token_param}={sent} ({limit} answer + {budget} reasoning)"
                )
            notes.setdefault(caps.token_param, f"sent as {caps.token_param}")
        if notes:
            with self._lock:
                self.seen.update(notes)
        return out

    def describe(self, sampling_args: Mapping[str, Any]) -> dict[str, Any]:
        """What metadata.json records: the family, its fields, and the body it turns the
        run's sampling arguments into (what is dropped, renamed, added)."""
        preview = RequestPlan(self.capabilities, self.source, self.reasoning_effort,
                              self.reasoning_budget)  # fmt: skip
        sent = preview.apply(sampling_args)
        return {
            "capabilities": asdict(self.capabilities),
            "source": self.source,
            "reasoning_effort": self.reasoning_effort,
            "reasoning_budget": self.reasoning_budget if self.capabilities.reasons else None,
            "sent_sampling_args": sent,
            "changes": preview.seen,
        }

    def notice(self, sampling_args: Mapping[str, Any]) -> str | None:
        """One console line when requests will differ from what was asked (None otherwise)."""
        changes = self.describe(sampling_args)["changes"]
        shown = {k: v for k, v in changes.items() if not v.startswith("sent as")}
        if not shown:
            return None
        parts = [f"{name} {what}" for name, what in shown.items()]
        return f"{self.capabilities.family} ({self.source}): " + "; ".join(parts)


class CapabilityTransport(httpx2.AsyncBaseTransport):
    """Rewrites every chat-completions request body with a `RequestPlan`."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, plan: RequestPlan) -> None:
        self._inner = inner
        self._plan = plan

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.rstrip("/")
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return await self._inner.handle_async_request(request)
        raw = await request.aread()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return await self._inner.handle_async_request(request)
        if not isinstance(body, dict):
            return await self._inner.handle_async_request(request)
        rewritten = with_json_body(request, self._plan.apply(body))
        return await self._inner.handle_async_request(rewritten)

    async def aclose(self) -> None:
        await self._inner.aclose()
