"""Asking a provider for schema-constrained JSON, in the dialect it understands."""

from __future__ import annotations

from typing import Any, Literal

ProviderKind = Literal["baseline", "endpoint", "local", "hf"]


def response_format(kind: ProviderKind, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` request field constraining output to `schema`.

    llama.cpp's server takes `{"type": "json_object", "schema": ...}`; OpenAI and vLLM take
    OpenAI's `{"type": "json_schema", "json_schema": {...}}`. Built-in baselines need none, and
    the transformers server (`hf:`) cannot constrain decoding, so it is sent none.
    """
    if kind in ("baseline", "hf"):
        return None
    if kind == "local":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema, "strict": True},
    }
