"""Resolving a model name typed by the user into something the harness can call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from security_verifiers.errors import UserError
from security_verifiers.url_credentials import strip_userinfo

OPENAI_BASE_URL = "https://api.openai.com/v1"
BASELINE_BASE_URL = "http://sv-baseline.invalid/v1"
"""Never contacted: baseline requests are answered in-process by a transport."""

redact_url = strip_userinfo
"""`text` with the user:password part of every URL in it removed (`url_credentials`)."""


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
    kind: str
    """The provider that resolved it (`models.providers`): baseline, local, hf, endpoint, ..."""
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
