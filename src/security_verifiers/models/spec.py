"""Resolving a model name typed by the user into something the harness can call."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from security_verifiers.errors import UserError
from security_verifiers.models.hf_server import checkpoint_of
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL, local_model_path

OPENAI_BASE_URL = "https://api.openai.com/v1"
BASELINE_BASE_URL = "http://sv-baseline.invalid/v1"
"""Never contacted: baseline requests are answered in-process by a transport."""


@dataclass(frozen=True)
class ModelSpec:
    """A model to evaluate. `name` is what the user typed (and names the artifact directory)."""

    name: str
    model_id: str
    kind: Literal["baseline", "endpoint", "local", "hf"]
    base_url: str
    api_key_env: str | None = None
    gguf: Path | None = None
    """For `local` models: the GGUF file the harness serves (base_url is set once it runs)."""
    checkpoint: str | None = None
    """For `hf` models: the checkpoint the harness serves with transformers (see hf_server)."""

    @property
    def slug(self) -> str:
        """A filesystem-safe form of `name` for artifact paths."""
        keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in self.name)
        return keep.strip("-") or "model"

    def api_key(self) -> str:
        """The API key from the configured environment variable ('EMPTY' for keyless servers)."""
        if self.kind != "endpoint":
            return "EMPTY"
        value = os.environ.get(self.api_key_env or "", "")
        if value:
            return value
        if self.base_url.rstrip("/") == OPENAI_BASE_URL:
            raise UserError(
                f"model '{self.name}' needs an API key: set {self.api_key_env} "
                f"(or pass --base-url for an OpenAI-compatible server such as vLLM, "
                f"or pick a built-in model)"
            )
        return "EMPTY"


def resolve_model(
    name: str,
    *,
    baselines: Mapping[str, object],
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
) -> ModelSpec:
    """Resolve `name`: a built-in baseline, `local/<name>` or `local:<file.gguf>` (served by
    llama.cpp on 127.0.0.1), `hf:<checkpoint>` (served by transformers on 127.0.0.1),
    `model@http://host/v1`, or a model at `base_url`.

    Without an explicit base URL the OPENAI_BASE_URL variable is used, then OpenAI's API.
    """
    name = name.strip()
    if not name:
        raise UserError("empty model name")
    if name in baselines:
        return ModelSpec(name=name, model_id=name, kind="baseline", base_url=BASELINE_BASE_URL)
    gguf = local_model_path(name)
    if gguf is not None:
        return ModelSpec(name=name, model_id=name, kind="local", base_url="", gguf=gguf)
    checkpoint = checkpoint_of(name)
    if checkpoint is not None:
        return ModelSpec(name=name, model_id=name, kind="hf", base_url="", checkpoint=checkpoint)
    if "@" in name:
        model_id, _, url = name.partition("@")
        if not model_id or not url.startswith(("http://", "https://")):
            raise UserError(f"model '{name}': expected the form MODEL@http(s)://HOST[:PORT]/v1")
        return ModelSpec(name, model_id, "endpoint", url.rstrip("/"), api_key_env)
    url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    if url.rstrip("/") == OPENAI_BASE_URL and not os.environ.get(api_key_env):
        known = ", ".join(sorted(baselines))
        raise UserError(
            f"unknown model '{name}': it is not a built-in model ({known}, "
            f"{DEFAULT_LOCAL_MODEL}, local:<file.gguf>) and no endpoint is "
            f"configured — set {api_key_env} for OpenAI, or --base-url / OPENAI_BASE_URL for "
            f"any OpenAI-compatible server (vLLM, TGI, OpenRouter), or write MODEL@URL"
        )
    return ModelSpec(name, name, "endpoint", url.rstrip("/"), api_key_env)
