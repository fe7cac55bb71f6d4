"""Building the one OpenAI-compatible client every model is called through."""

from __future__ import annotations

from collections.abc import Mapping

import httpx2
import openai

from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatPolicy
from security_verifiers.models.response_cache import ResponseCache
from security_verifiers.models.spec import ModelSpec
from security_verifiers.models.transports import (
    CachingTransport,
    LlamaCppCompatTransport,
    PolicyTransport,
)


def build_client(
    spec: ModelSpec,
    *,
    baselines: Mapping[str, ChatPolicy],
    cache: ResponseCache | None = None,
    max_retries: int = 5,
    timeout_s: float = 120.0,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> openai.AsyncOpenAI:
    """An `AsyncOpenAI` for `spec`; retries with backoff on 408/409/429/5xx/timeouts.

    `transport` answers requests instead of real HTTP (a local model's `transport()`).
    """
    if spec.kind == "baseline":
        transport = PolicyTransport(baselines[spec.name], spec.model_id)
    elif transport is None:
        transport = httpx2.AsyncHTTPTransport()
    if spec.kind == "local":
        transport = LlamaCppCompatTransport(transport)
    if cache is not None:
        transport = CachingTransport(transport, cache)
    http_client = openai.DefaultAsyncHttpx2Client(transport=transport, timeout=timeout_s)
    return openai.AsyncOpenAI(
        base_url=spec.base_url,
        api_key=spec.api_key(),
        max_retries=max_retries,
        timeout=timeout_s,
        http_client=http_client,
    )


async def check_endpoint(client: openai.AsyncOpenAI, spec: ModelSpec) -> None:
    """Fail early, with a clear message, when the endpoint is unreachable or lacks the model."""
    if spec.kind != "endpoint":
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
