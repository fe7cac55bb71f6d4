"""Resolving a model name typed by the user into something the harness can call."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from security_verifiers.errors import UserError
from security_verifiers.models.hf_server import checkpoint_of
from security_verifiers.models.local_gguf import DEFAULT_LOCAL_MODEL, local_model_path

OPENAI_BASE_URL = "https://api.openai.com/v1"
BASELINE_BASE_URL = "http://sv-baseline.invalid/v1"
"""Never contacted: baseline requests are answered in-process by a transport."""

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s<>\"'`]*@)")
"""`scheme://userinfo@`; userinfo runs to the last `@` of the authority (a password may hold
an unescaped `@`)."""


def redact_url(text: str) -> str:
    """`text` with the user:password part of every URL in it removed
    (`m@http://user:pw@host/v1` -> `m@http://host/v1`)."""
    return _USERINFO.sub(lambda m: m.group("scheme"), text)


def redact(value: Any) -> Any:
    """`redact_url` applied to every string inside `value` (dicts, lists, tuples)."""
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, Mapping):
        return {redact(k): redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value


def check_url(url: str, what: str) -> str:
    """`url` (trailing slash removed) if it is an http(s) URL with a host and a valid port;
    otherwise a UserError naming `what` and the problem (never the password)."""
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a non-numeric or out-of-range port
    except ValueError as exc:
        raise UserError(f"{what} '{shown}': {_port_problem(exc)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{what} '{shown}': expected http(s)://HOST[:PORT]/v1")
    if port == 0:
        raise UserError(f"{what} '{shown}': port must be between 1 and 65535")
    return url.rstrip("/")


def _port_problem(exc: ValueError) -> str:
    text = str(exc)
    if "out of range" in text:
        return "port must be between 1 and 65535"
    if "invalid literal" in text or "Port could not be cast" in text:
        return "the port is not a number"
    return f"not a valid URL ({text})"


@dataclass(frozen=True)
class ModelSpec:
    """A model to evaluate. `name` is what the user typed, any URL password removed (it names
    the artifact directory); `base_url` keeps credentials for the client only."""

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
    def public_url(self) -> str:
        """`base_url` without credentials: the only form written to artifacts or the console."""
        return redact_url(self.base_url)

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
            raise UserError(
                f"model '{redact_url(name)}': expected the form MODEL@http(s)://HOST[:PORT]/v1"
            )
        url = check_url(url, f"model '{model_id}': URL")
        return ModelSpec(redact_url(name), model_id, "endpoint", url, api_key_env)
    if base_url:
        base_url = check_url(base_url, "--base-url")
    elif os.environ.get("OPENAI_BASE_URL"):
        base_url = check_url(os.environ["OPENAI_BASE_URL"], "OPENAI_BASE_URL")
    url = base_url or OPENAI_BASE_URL
    if url.rstrip("/") == OPENAI_BASE_URL and not os.environ.get(api_key_env):
        known = ", ".join(sorted(baselines))
        raise UserError(
            f"unknown model '{name}': it is not a built-in model ({known}, "
            f"{DEFAULT_LOCAL_MODEL}, local:<file.gguf>) and no endpoint is "
            f"configured — set {api_key_env} for OpenAI, or --base-url / OPENAI_BASE_URL for "
            f"any OpenAI-compatible server (vLLM, TGI, OpenRouter), or write MODEL@URL"
        )
    return ModelSpec(name, name, "endpoint", url.rstrip("/"), api_key_env)
