"""The environments the harness knows: every installed package that registers an `EnvSpec`
under the entry point group `security_verifiers.environments` (see `sv_shared.spec`).

Looked up by short name (e1 ... e6), package id, id without `sv-env-`, or a spec alias.
Discovery reads entry point metadata only; a spec (and its package) is imported on first use.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

from security_verifiers.errors import UserError
from security_verifiers.models.openai_protocol import ChatPolicy, ChatRequest
from sv_shared.spec import ENTRY_POINT_GROUP, EnvSpec


@dataclass(frozen=True)
class EnvEntry:
    key: str
    env_id: str
    entry_point: EntryPoint | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The id without the `sv-env-` prefix, e.g. `network-logs`."""
        return self.env_id.removeprefix("sv-env-")

    @property
    def module_name(self) -> str:
        return self.env_id.replace("-", "_")

    def module(self) -> ModuleType:
        try:
            return importlib.import_module(self.module_name)
        except ImportError as exc:
            raise UserError(
                f"environment '{self.env_id}' is not installed ({exc}); run `make setup`"
            ) from None

    @functools.cached_property
    def spec(self) -> EnvSpec:
        """The registered spec; a bare one (reward only, no hooks beyond the module's own)
        for an entry made by hand."""
        if self.entry_point is None:
            return EnvSpec(self.key, self.env_id)
        try:
            spec = self.entry_point.load()
        except ImportError as exc:
            raise UserError(
                f"environment '{self.env_id}' is not installed ({exc}); run `make setup`"
            ) from None
        if not isinstance(spec, EnvSpec) or (spec.key, spec.env_id) != (self.key, self.env_id):
            raise UserError(
                f"entry point {self.entry_point.value} of '{self.env_id}' is not the EnvSpec "
                f"of {self.key} ({self.env_id})"
            )
        return spec

    def hook(self, name: str):
        """The spec's hook `name` (e.g. "data_adapter"), imported; None when it has none.

        A hook left at its default (`<module>:<name>`) that the module does not define is no
        hook; a reference the spec names that does not resolve is an error naming both."""
        spec = self.spec
        ref = getattr(spec, name, None)
        if not ref:
            return None
        module_name, _, attribute = str(ref).partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name) and exc.name != self.module_name:
                raise UserError(
                    f"environment '{self.env_id}': hook {name} = '{ref}' names module "
                    f"'{module_name}', which does not exist"
                ) from None
            raise UserError(
                f"environment '{self.env_id}' is not installed ({exc}); run `make setup`"
            ) from None
        except ImportError as exc:
            raise UserError(
                f"environment '{self.env_id}' is not installed ({exc}); run `make setup`"
            ) from None
        obj = module
        for part in attribute.split(".") if attribute else ():
            if not hasattr(obj, part):
                if ref == f"{spec.module}:{name}":
                    return None  # the default name, not defined: no hook
                raise UserError(
                    f"environment '{self.env_id}': hook {name} = '{ref}' names nothing "
                    f"('{part}' is not defined in {module_name})"
                )
            obj = getattr(obj, part)
        return obj


def _natural(key: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


@functools.cache
def _discover() -> dict[str, EnvEntry]:
    found: dict[str, EnvEntry] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.dist is None:
            continue
        env_id = ep.dist.metadata["Name"]
        seen = found.get(ep.name)
        if seen is not None and seen.env_id != env_id:
            first = seen.entry_point.value if seen.entry_point else "?"
            raise UserError(
                f"environment key '{ep.name}' is registered twice: by {seen.env_id} ({first}) "
                f"and by {env_id} ({ep.value}); rename one of the two entry points"
            )
        if seen is None:
            found[ep.name] = EnvEntry(ep.name, env_id, ep)
    return {key: found[key] for key in sorted(found, key=_natural)}


def refresh() -> None:
    """Forget what was discovered (after installing an environment in-process, in tests)."""
    _discover.cache_clear()


class _Registry(Mapping[str, EnvEntry]):
    """Short name -> entry, read from the entry points on use."""

    def __getitem__(self, key: str) -> EnvEntry:
        return _discover()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_discover())

    def __len__(self) -> int:
        return len(_discover())


ENVIRONMENTS: Mapping[str, EnvEntry] = _Registry()


def resolve_env(name: str) -> EnvEntry:
    """Accept `e1`, `network-logs`, `network_logs`, `sv-env-network-logs` or a spec alias."""
    wanted = name.strip().lower().replace("_", "-")
    entries = list(ENVIRONMENTS.values())
    for entry in entries:
        if wanted in (entry.key, entry.env_id, entry.name):
            return entry
    for entry in entries:
        try:
            aliases = entry.spec.aliases
        except UserError:
            continue
        if wanted in (a.lower().replace("_", "-") for a in aliases):
            return entry
    known = ", ".join(f"{e.key} ({e.env_id})" for e in entries)
    raise UserError(f"unknown environment '{name}'; available: {known or 'none installed'}")


def entries_with(spec_field: str | None = None) -> list[EnvEntry]:
    """Registered environments (in key order) whose spec sets `spec_field` (all when None).
    A field that holds a profile counts as set when the profile has a positive label."""

    def has(entry: EnvEntry) -> bool:
        if spec_field is None:
            return True
        value = getattr(entry.spec, spec_field)
        if spec_field == "report":
            return value.positive_label is not None
        return bool(value)

    return [entry for entry in ENVIRONMENTS.values() if has(entry)]


def default_env(spec_field: str | None = None) -> str:
    """The key of the first registered environment whose spec sets `spec_field` (a default
    for options that take an environment, so the harness names none itself)."""
    entries = entries_with(spec_field)
    if not entries:
        wanted = f" with {spec_field}" if spec_field else ""
        raise UserError(f"no installed environment{wanted}; run `make setup`")
    return entries[0].key


def is_oracle(entry: EnvEntry, name: str) -> bool:
    """Built-in models that read the labels or the scoring tools' output: upper bounds for the
    reward, not baselines a model competes with (listed in each environment's spec)."""
    return name in entry.spec.oracles


def baseline_policies(entry: EnvEntry) -> dict[str, ChatPolicy]:
    """The environment's built-in reference policies, adapted to the chat protocol."""
    hook = entry.hook("baseline_policies")
    prompt_policies = hook() if hook is not None else {}

    def adapt(policy) -> ChatPolicy:
        return lambda request: policy(request.last_user_text(), request.seed)

    return {name: adapt(policy) for name, policy in prompt_policies.items()}


__all__ = [
    "ENVIRONMENTS",
    "ChatRequest",
    "EnvEntry",
    "EnvSpec",
    "baseline_policies",
    "is_oracle",
    "refresh",
    "resolve_env",
]
