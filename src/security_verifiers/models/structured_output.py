"""Asking a provider for schema-constrained JSON, in the dialect it understands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ProviderKind = str
"""A provider's `kind` (`models.providers`): baseline, local, hf, endpoint, anthropic, ..."""


def response_format(kind: ProviderKind, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `response_format` request field constraining output to `schema`, as the provider
    of `kind` declares it (`Provider.response_format`).

    llama.cpp's server takes `{"type": "json_object", "schema": ...}`; OpenAI and vLLM take
    OpenAI's `{"type": "json_schema", "json_schema": {...}}` (the Anthropic and Google SDK
    adapters translate that one). Built-in baselines need none, and the transformers server
    (`hf:`) cannot constrain decoding, so it is sent none.
    """
    from security_verifiers.models.providers.registry import provider_for

    return provider_for(kind).response_format(schema)
