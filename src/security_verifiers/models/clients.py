"""Building the one OpenAI-compatible client every model is called through (by its provider,
see `models.providers`), and checking it answers."""

from __future__ import annotations

from collections.abc import Mapping

import httpx2
import openai

from security_verifiers.errors import UserError
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
) -> openai.AsyncOpenAI:
    """An `AsyncOpenAI` for `spec`, built by its provider; retries with backoff on
    408/409/429/5xx/timeouts.

    `transport` answers requests instead of real HTTP (a local model's `transport()`).
    """
    from security_verifiers.models.providers.registry import ClientOptions, provider_for

    options = ClientOptions(baselines, cache, max_retries, timeout_s, transport)
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
