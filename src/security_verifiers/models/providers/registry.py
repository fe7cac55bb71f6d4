"""The provider registry: model name -> provider -> `ModelSpec`, client, server, accounting.

Providers come from three places, merged on first use:
- every module of this package that defines `PROVIDER` (a `Provider` instance): adding a
  built-in provider is adding one module here;
- the `security_verifiers.providers` entry point group (another installed package):
  `[project.entry-points."security_verifiers.providers"] mine = "my_pkg.provider:PROVIDER"`;
- `register(provider)` at run time (tests, notebooks).
A later registration of the same `kind` replaces the earlier one.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from security_verifiers.errors import UserError
from security_verifiers.models.providers.base import ClientOptions, Provider, ResolveContext, Served
from security_verifiers.models.spec import ModelSpec

if TYPE_CHECKING:
    import openai

    from security_verifiers.models.local_server import LocalServerPool

ENTRY_POINT_GROUP = "security_verifiers.providers"

_providers: dict[str, Provider] | None = None


def _as_provider(obj: Any, where: str) -> Provider:
    if isinstance(obj, type) and issubclass(obj, Provider):
        obj = obj()
    if not isinstance(obj, Provider) or not obj.kind:
        raise UserError(f"{where} is not a model provider (a Provider with a `kind`)")
    return obj


def _discover() -> dict[str, Provider]:
    found: dict[str, Provider] = {}
    package = importlib.import_module(__package__)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__package__}.{info.name}")
        if hasattr(module, "PROVIDER"):
            provider = _as_provider(module.PROVIDER, module.__name__)
            found[provider.kind] = provider
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        provider = _as_provider(entry_point.load(), f"entry point '{entry_point.value}'")
        found[provider.kind] = provider
    return found


def _registry() -> dict[str, Provider]:
    global _providers
    if _providers is None:
        _providers = _discover()
    return _providers


def register(provider: Provider | type[Provider]) -> Provider:
    """Add (or replace, by `kind`) a provider; returns the instance."""
    provider = _as_provider(provider, repr(provider))
    _registry()[provider.kind] = provider
    return provider


def unregister(kind: str) -> None:
    _registry().pop(kind, None)


def reload() -> None:
    """Forget every provider; the next lookup discovers them again (modules, entry points)."""
    global _providers
    _providers = None


def providers() -> list[Provider]:
    """Every provider, in the order names are matched."""
    return sorted(_registry().values(), key=lambda p: (p.order, p.kind))


def provider_for(spec_or_kind: ModelSpec | str) -> Provider:
    kind = spec_or_kind if isinstance(spec_or_kind, str) else spec_or_kind.kind
    try:
        return _registry()[kind]
    except KeyError:
        raise UserError(f"no model provider of kind '{kind}' is installed") from None


def resolve(name: str, ctx: ResolveContext) -> ModelSpec:
    """The spec of the first provider (in `order`) that claims `name`."""
    name = name.strip()
    if not name:
        raise UserError("empty model name")
    for provider in providers():
        spec = provider.parse(name, ctx)
        if spec is not None:
            return spec
    raise UserError(f"no model provider accepts '{name}'")


def serve(spec: ModelSpec, pool: LocalServerPool, console: Any = None) -> Served:
    """Start whatever `spec` needs (a llama.cpp or transformers server); `pool` stops it."""
    provider = provider_for(spec)
    message = provider.start_message(spec)
    if message and console is not None:
        console.print(f"[dim]{message}[/dim]")
    return provider.serve(spec, pool)


def build_client(spec: ModelSpec, options: ClientOptions) -> openai.AsyncOpenAI:
    return provider_for(spec).build_client(spec, options)


def resolve_model(
    name: str,
    *,
    baselines: Mapping[str, object],
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
) -> ModelSpec:
    """Resolve `name` through the provider registry (`models.providers`): a built-in baseline,
    `local/<name>` or `local:<file.gguf>` (llama.cpp), `hf:<checkpoint>` (transformers),
    `anthropic/<model>`, `google/<model>`, `model@http://host/v1`, or a model at `base_url`
    (then $OPENAI_BASE_URL, then OpenAI's API).
    """
    return resolve(name, ResolveContext(baselines, base_url=base_url, api_key_env=api_key_env))
