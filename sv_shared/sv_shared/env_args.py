"""One check for the keyword arguments of an environment's `load_environment`.

A `**kwargs` catch-all silently swallows a misspelled argument (`sourc=zeek` evaluated the
built-in data). Every environment declares what it accepts instead:

    @accepts_env_args(ENV_ID)                      # named parameters only
    def load_environment(source="synthetic", path=None): ...

    @accepts_env_args(ENV_ID, forwards_to=lambda: build_env)   # **kwargs forwarded to a builder
    def load_environment(**kwargs): ...

The allowed names are the function's named parameters, plus `passthrough` (names its `**kwargs`
forwards), plus the named parameters of `forwards_to()` (resolved on first use, so a package
can keep its builder import lazy). Anything else raises
`ValueError("unknown argument(s) for <env>: x (valid: a, b, c)")` before the environment is
built. The harness reads the same set (`allowed_env_args`) to reject a typo before loading.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

ALLOWED_ATTR = "sv_env_args"
"""Attribute set on a decorated `load_environment`: a zero-argument function returning the
frozenset of names it accepts."""


def unknown_env_args_message(env_id: str, unknown: Iterable[str], allowed: Iterable[str]) -> str:
    """`unknown argument(s) for <env>: x (did you mean y?) (valid: a, b, c)`."""
    valid = sorted(set(allowed))
    parts = []
    for name in sorted(set(unknown)):
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
        parts.append(f"{name} (did you mean {close[0]}?)" if close else name)
    return f"unknown argument(s) for {env_id}: {', '.join(parts)} (valid: {', '.join(valid)})"


def check_env_args(env_id: str, given: Iterable[str], allowed: Iterable[str]) -> None:
    """Raise ValueError naming every key of `given` that is not in `allowed`."""
    allowed_set = set(allowed)
    unknown = [name for name in given if name not in allowed_set]
    if unknown:
        raise ValueError(unknown_env_args_message(env_id, unknown, allowed_set))


def expect_object(name: str, value: Any, expected: str) -> dict[str, Any]:
    """An object-valued argument (`reward_weights`, `columns`, ...) as a dict; None is empty.
    A string, list or number (`--env-arg reward_weights=abc`) raises ValueError
    `"<name>: expected <expected>, got 'abc'"` instead of being iterated."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    shown = repr(value)
    shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
    raise ValueError(f"{name}: expected {expected}, got {shown}")


def named_parameters(func: Callable[..., Any]) -> frozenset[str]:
    """Names `func` takes by keyword (its `*args` / `**kwargs` themselves excluded)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return frozenset(
        name for name, p in inspect.signature(func).parameters.items() if p.kind in kinds
    )


def takes_var_keyword(func: Callable[..., Any]) -> bool:
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(func).parameters.values()
    )


def accepts_env_args(
    env_id: str,
    *,
    passthrough: Iterable[str] = (),
    forwards_to: Callable[[], Callable[..., Any]] | None = None,
) -> Callable[[F], F]:
    """Decorate `load_environment`: reject keyword arguments outside its named parameters,
    `passthrough` and the named parameters of `forwards_to()` (the builder its `**kwargs` go
    to). The result keeps the signature (for verifiers' logging) and carries the allowed set
    as `sv_env_args()`."""
    extra = frozenset(passthrough)

    def decorate(func: F) -> F:
        if (extra or forwards_to is not None) and not takes_var_keyword(func):
            missing = sorted(extra - named_parameters(func))
            if missing or forwards_to is not None:
                raise TypeError(
                    f"{func.__qualname__}: declares forwarded arguments "
                    f"({', '.join(missing) or 'forwards_to'}) but has no **kwargs to receive them"
                )

        @functools.cache
        def allowed() -> frozenset[str]:
            names = named_parameters(func) | extra
            return names | named_parameters(forwards_to()) if forwards_to else names

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            check_env_args(env_id, kwargs, allowed())
            return func(*args, **kwargs)

        setattr(wrapper, ALLOWED_ATTR, allowed)
        return wrapper  # type: ignore[return-value]

    return decorate


def allowed_env_args(load_environment: Callable[..., Any]) -> frozenset[str] | None:
    """What `load_environment` accepts: its declared set (`accepts_env_args`), else its named
    parameters when it has no `**kwargs`; None when that cannot be known (an undeclared
    catch-all)."""
    declared = getattr(load_environment, ALLOWED_ATTR, None)
    if callable(declared):
        return frozenset(declared())
    if takes_var_keyword(load_environment):
        return None
    return named_parameters(load_environment)


__all__ = [
    "accepts_env_args",
    "allowed_env_args",
    "check_env_args",
    "expect_object",
    "named_parameters",
    "unknown_env_args_message",
]
