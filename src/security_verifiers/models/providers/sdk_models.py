"""Model names of the SDK providers: `<prefix><model>[@URL]`, with the base URL from the name,
the provider's base-URL variable or its default, and a key required only for the default."""

from __future__ import annotations

import os

from security_verifiers.errors import UserError
from security_verifiers.models.spec import ModelSpec, check_url


def parse_sdk_model(
    name: str,
    *,
    prefix: str,
    kind: str,
    base_url_env: str,
    default_base_url: str,
    key_envs: tuple[str, ...],
) -> ModelSpec | None:
    """The spec of `name`, None when it does not carry `prefix`; one line for a bad name or
    a missing key (any of `key_envs`; the spec names the first one set)."""
    if not name.startswith(prefix):
        return None
    model_id, _, url = name.removeprefix(prefix).partition("@")
    if not model_id:
        raise UserError(f"model '{name}': expected {prefix}<model>[@http(s)://HOST[:PORT]]")
    if url:
        url = check_url(url, f"model '{prefix}{model_id}': URL")
    elif os.environ.get(base_url_env):
        url = check_url(os.environ[base_url_env], base_url_env)
    url = url or default_base_url
    key_env = next((env for env in key_envs if os.environ.get(env)), None)
    if url == default_base_url and key_env is None:
        raise UserError(f"model '{name}' needs an API key: set {' or '.join(key_envs)}")
    return ModelSpec(name, model_id, kind, url, key_env or key_envs[0])
