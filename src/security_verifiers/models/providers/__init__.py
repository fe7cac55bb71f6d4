"""Model providers: one module per family, found by the registry (see `registry.py`)."""

from security_verifiers.models.providers.base import ClientOptions, Provider, ResolveContext, Served

__all__ = ["ClientOptions", "Provider", "ResolveContext", "Served"]
