"""Typed environment arguments: one pydantic model per environment, validated once.

Each environment declares what `load_environment` accepts as an `EnvConfig` subclass (its
`config.py`), with a type, a default and a one-line description per field, and decorates its
`load_environment(config)` with `takes_config`:

    class NetworkLogsConfig(EnvConfig):
        source: str = Field("synthetic", description="where the flows come from")
        max_examples: int = Field(-1, ge=-1, description="keep the first N (-1: all)")

    @takes_config(ENV_ID, NetworkLogsConfig)
    def load_environment(config: NetworkLogsConfig) -> vf.Environment: ...

`load_environment(**kwargs)` (how verifiers and the harness call it) then validates the
arguments with the model: an unknown name or an ill-typed value raises one-line
`ValueError("<env>: <field>: <problem>")` before anything is built. The harness reads the same
model (`config_of`) to check `--env-arg`s up front and to print them (`sv envs eN --args`).
"""

from __future__ import annotations

import functools
import inspect
import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import pydantic
from pydantic import ConfigDict
from pydantic_core import PydanticUndefined

from sv_shared.env_args import ALLOWED_ATTR, unknown_env_args_message

CONFIG_ATTR = "sv_env_config"
"""Attribute set on a decorated `load_environment`: its `EnvConfig` subclass."""

C = TypeVar("C", bound="EnvConfig")


class EnvConfig(pydantic.BaseModel):
    """Base of every environment's arguments: unknown names and ill-typed values are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    @classmethod
    def from_args(cls: type[C], env_id: str, args: Mapping[str, Any]) -> C:
        """Validate `args`; ValueError with one line naming the environment and the field."""
        unknown = [name for name in args if name not in cls.model_fields]
        if unknown:
            raise ValueError(unknown_env_args_message(env_id, unknown, cls.model_fields))
        try:
            return cls.model_validate(dict(args))
        except pydantic.ValidationError as exc:
            raise ValueError(first_problem(env_id, exc)) from None

    def given(self) -> dict[str, Any]:
        """The fields set explicitly (what the caller passed)."""
        return {name: getattr(self, name) for name in self.model_fields_set}


def first_problem(env_id: str, exc: pydantic.ValidationError) -> str:
    """`<env>: <field>: <message> (got <value>)` for the first error (and how many more)."""
    errors = exc.errors()
    error = errors[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    shown = repr(error.get("input"))
    shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    message = error["msg"][0].lower() + error["msg"][1:]
    got = f" (got {shown})" if "input" in error and error["type"] != "missing" else ""
    return f"{env_id}: {where}: {message}{got}{more}"


@dataclass(frozen=True)
class ArgDoc:
    """One argument as `sv envs eN --args` prints it."""

    name: str
    type: str
    default: str
    description: str


def _type_name(annotation: Any) -> str:
    """`str | None`, `"train" | "test"`, `dict[str, float]`: the annotation as a user reads it."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(arg) for arg in args)
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(_type_name(arg) for arg in args)}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation)).replace("typing.", "")


def describe(config: type[EnvConfig]) -> list[ArgDoc]:
    """Every field of `config` in declaration order."""
    out = []
    for name, field in config.model_fields.items():
        if field.default_factory is not None:
            default = repr(field.default_factory())  # type: ignore[call-arg]
        elif field.default is PydanticUndefined:
            default = "(required)"
        else:
            default = repr(field.default)
        out.append(ArgDoc(name, _type_name(field.annotation), default, field.description or ""))
    return out


def takes_config(env_id: str, config: type[C]) -> Callable[[Callable[[C], Any]], Any]:
    """Decorate `load_environment(config)` so it is called with keyword arguments, validated
    by `config` (see the module docstring)."""

    def decorate(func: Callable[[C], Any]) -> Any:
        @functools.wraps(func)
        def load_environment(**kwargs: Any) -> Any:
            return func(config.from_args(env_id, kwargs))

        setattr(load_environment, CONFIG_ATTR, config)
        setattr(load_environment, ALLOWED_ATTR, lambda: frozenset(config.model_fields))
        load_environment.__signature__ = signature(config)  # type: ignore[attr-defined]
        return load_environment

    return decorate


def signature(config: type[EnvConfig]) -> inspect.Signature:
    """Keyword-only parameters with the model's defaults (what verifiers logs at load)."""
    params = []
    for name, field in config.model_fields.items():
        default = field.default
        if field.default_factory is not None or default is PydanticUndefined:
            default = inspect.Parameter.empty if default is PydanticUndefined else None
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default))
    return inspect.Signature(params)


def config_of(load_environment: Callable[..., Any] | None) -> type[EnvConfig] | None:
    """The `EnvConfig` a decorated `load_environment` validates with (None when untyped)."""
    found = getattr(load_environment, CONFIG_ATTR, None)
    return found if isinstance(found, type) and issubclass(found, EnvConfig) else None


__all__ = [
    "ArgDoc",
    "EnvConfig",
    "config_of",
    "describe",
    "first_problem",
    "takes_config",
]
