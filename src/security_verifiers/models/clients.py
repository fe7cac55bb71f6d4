"""Building the one OpenAI-compatible client every model is called through (by its provider,
see `models.providers`), and checking it answers."""

from __future__ import annotations

from collections.abc import Mapping

import httpx2
import openai

from security_verifiers.errors import UserError
from security_verifiers.models.capabilities import (
    RequestPlan,
    apply_overrides,
    families,
    parse_overrides,
)
from security_verifiers.models.openai_protocol import ChatPolicy
from security_verifiers.models.response_cache import ResponseCache
from security_verifiers.models.spec import ModelSpec


def build_client(
    spec: ModelSpec,
    *,
    baselines: Mapping[str, ChatPolicy],
    cache: ResponseCache | None = None,
    max_retries: int = 5,
    timeout_s: float = 120.0,
    transport: httpx2.AsyncBaseTransport | None = None,
    plan: RequestPlan | None = None,
) -> openai.AsyncOpenAI:
    """An `AsyncOpenAI` for `spec`, built by its provider; retries with backoff on
    408/409/429/5xx/timeouts.

    `transport` answers requests instead of real HTTP (a local model's `transport()`); `plan`
    rewrites every request body to what the model accepts (`models.capabilities`).
    """
    from security_verifiers.models.providers.registry import ClientOptions, provider_for

    options = ClientOptions(baselines, cache, max_retries, timeout_s, transport, plan)
    return provider_for(spec).build_client(spec, options)


async def check_endpoint(client: openai.AsyncOpenAI, spec: ModelSpec) -> None:
    """Fail early, with a clear message, when the endpoint is unreachable or lacks the model."""
    from security_verifiers.models.providers.registry import provider_for

    if not provider_for(spec).probe:
        return  # built in, or a local server the harness started and already probed
    probe = client.with_options(max_retries=0, timeout=15.0)
    try:
        page = await probe.models.list()
    except openai.APIConnectionError as exc:
        raise UserError(f"cannot reach {spec.public_url} for model '{spec.name}': {exc}") from None
    except openai.AuthenticationError:
        raise UserError(
            f"{spec.public_url} rejected the API key from ${spec.api_key_env} (401)"
        ) from None
    except openai.APIStatusError:
        return  # some providers do not implement /models; the first request will tell
    available = [m.id for m in page.data]
    if available and spec.model_id not in available:
        shown = ", ".join(available[:12]) + (" ..." if len(available) > 12 else "")
        raise UserError(f"unknown model '{spec.model_id}' at {spec.public_url}; it serves: {shown}")


def request_plan(
    spec: ModelSpec,
    *,
    overrides: list[str] | tuple[str, ...] = (),
    reasoning_effort: str | None = None,
    reasoning_budget: int | None = None,
) -> RequestPlan:
    """How requests to `spec` are rewritten: its provider's family for the model id, with the
    run's `--capability` overrides, reasoning effort and reasoning budget."""
    from security_verifiers.models.capabilities import DEFAULT_REASONING_BUDGET
    from security_verifiers.models.providers.registry import provider_for, providers

    known = families([p.capability_table() for p in providers()])
    parsed = parse_overrides(list(overrides), known)
    base = provider_for(spec).capabilities(spec.model_id)
    return RequestPlan(
        apply_overrides(base, parsed, known),
        source="override" if parsed else "table",
        reasoning_effort=reasoning_effort,
        reasoning_budget=DEFAULT_REASONING_BUDGET if reasoning_budget is None else reasoning_budget,
    )
