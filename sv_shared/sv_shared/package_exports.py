"""The one `__init__.py` style of every environment package: names resolved on first use.

    __getattr__, __dir__ = lazy_exports(__name__, {
        "ENV_ID": ".environment", "load_environment": ".environment",
        "baseline_policies": ".baselines", "data_adapter": ".data_pipeline",
    })

Importing a leaf module (`sv_env_x.records`) then costs that module only, while
`sv_env_x.load_environment` (how verifiers calls an environment) still works.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Module-level `__getattr__` and `__dir__` serving `exports` (name -> relative module)."""

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(where, package), name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__


__all__ = ["lazy_exports"]
