"""The project's Rego policy pack evaluated in-process with regorus (no `opa` binary needed).

Policies are compiled once per process into one engine per thread that is reused for every
scan. Kubernetes input is ``{"objects": [...]}`` as `k8s_effective` resolves them (objects
whose fields have the wrong types are reported as warnings, see `k8s_shape`); Terraform input
is `configs.normalise_terraform` of the hcl2 dict, resolved by `tf_effective` and normalised
by `tf_values.normalise_values` (its problems are warnings). Every object / resource is
evaluated (``scanned``).
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import json
import re
import threading
import time
from functools import cached_property
from pathlib import Path
from typing import Any

from ..configs import (
    ConfigError,
    ConfigFile,
    k8s_resource,
    k8s_spans,
    normalise_terraform,
    parse_k8s,
    parse_terraform,
    terraform_spans,
)
from ..k8s_effective import effective_objects
from ..k8s_shape import shape_problems
from ..tf_effective import effective_terraform
from ..tf_values import normalise_values
from . import RawFinding, ToolResult, sha256_files

POLICY_DIR = Path(__file__).resolve().parent.parent / "policies"
RULES = {"k8s": "data.sv.kubernetes.violations", "terraform": "data.sv.terraform.violations"}
PACKAGE_DIR = Path(__file__).resolve().parent.parent
INPUT_MODULES = tuple(
    PACKAGE_DIR / f
    for f in (
        "k8s_shape.py", "k8s_effective.py", "tf_values.py", "tf_network.py", "tf_effective.py",
        "iam_globs.py", "data/k8s_api_resources.json", "data/aws_managed_policies.json",
    )
)  # fmt: skip
"""The code that builds the Rego input: hashed with the policies (scan cache keys)."""


def _short(exc: BaseException) -> str:
    """A regorus error without its Rust stack backtrace."""
    return re.split(r"\n\s*Stack backtrace:", str(exc), maxsplit=1)[0].strip()


class OpaTool:
    """Rego v1 policies (policies/*.rego) on regorus."""

    name = "opa"
    kinds = ("k8s", "terraform")

    def __init__(self, policy_dir: Path = POLICY_DIR) -> None:
        self.policy_dir = policy_dir
        self._local = threading.local()

    @cached_property
    def _policy_files(self) -> list[Path]:
        return sorted(self.policy_dir.glob("*.rego"))

    @property
    def _engine(self) -> Any:
        """This thread's compiled engine: a regorus engine may not cross threads."""
        engine = getattr(self._local, "engine", None)
        if engine is None:
            engine = self._local.engine = self._compile()
            # Never freed: a thread-local is also dropped by *other* threads (a fork with a
            # preexec_fn clears every other thread's locals in the child; interpreter exit),
            # and an unsendable regorus engine dropped off its thread raises. One engine per
            # scoring thread is kept for the life of the process instead.
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine))
        return engine

    def _compile(self) -> Any:
        import regorus

        engine = regorus.Engine()
        for path in self._policy_files:
            try:
                engine.add_policy(path.name, path.read_text(encoding="utf-8"))
            except RuntimeError as exc:
                raise RuntimeError(
                    f"Rego policy {path.name} does not compile: {_short(exc)}"
                ) from None
        return engine

    @cached_property
    def _rules_hash(self) -> str:
        return sha256_files([*self._policy_files, *INPUT_MODULES])

    def rules_hash(self) -> str:
        """sha256 of the policy files and `INPUT_MODULES` (read once per tool instance)."""
        return self._rules_hash

    @cached_property
    def _version(self) -> str:
        pkg = importlib.metadata.version("gordon-to-regorus")
        return f"regorus {pkg}; policies sha256:{self.rules_hash()[:16]}"

    def version(self) -> str:
        return self._version

    def available(self) -> bool:
        return self.unavailable_reason() is None

    def unavailable_reason(self) -> str | None:
        try:
            import regorus  # noqa: F401
        except ImportError:
            return "regorus (gordon-to-regorus) is not installed"
        if not self._policy_files:
            return f"no Rego policies in {self.policy_dir}"
        return None

    def evaluate(self, kind: str, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Raw violations for an already-built input document."""
        engine = self._engine
        engine.set_input_json(json.dumps(data))
        out = json.loads(engine.eval_rule_as_json(RULES[kind]))
        return out if isinstance(out, list) else []

    def _input(self, config: ConfigFile) -> tuple[dict[str, Any], list, list[str], list[str]]:
        """(Rego input, resource spans, resources evaluated, warnings) for one config."""
        if config.kind == "k8s":
            objects = parse_k8s(config.text)
            names = [k8s_resource(o) for o in objects]
            warnings = [
                p for o, n in zip(objects, names, strict=True) for p in shape_problems(o, n)
            ]
            return {"objects": effective_objects(objects)}, k8s_spans(config.text), names, warnings
        doc = parse_terraform(config.text)
        plain = normalise_terraform(doc)
        data, warnings = normalise_values(effective_terraform(plain))
        names = [r["address"] for r in plain["resources"]]
        return data, terraform_spans(doc), names, warnings

    def scan(self, config: ConfigFile) -> ToolResult:
        start = time.perf_counter()
        try:
            data, spans, scanned, warnings = self._input(config)
            raw = self.evaluate(config.kind, data)
        except ConfigError as exc:
            return ToolResult(
                self.name, error=f"invalid config: {exc}", seconds=time.perf_counter() - start
            )
        except RuntimeError as exc:
            return ToolResult(
                self.name, error=f"regorus: {_short(exc)}", seconds=time.perf_counter() - start
            )
        except Exception as exc:  # an input the adapter cannot handle: report, never crash
            return ToolResult(
                self.name,
                error=f"opa adapter failed: {type(exc).__name__}: {exc}"[:400],
                seconds=time.perf_counter() - start,
            )
        lines = {res: s for s, _, res in reversed(spans)}
        findings = sorted(
            {
                RawFinding(
                    self.name,
                    str(v.get("rule")),
                    str(v.get("resource")),
                    str(v.get("msg", "")),
                    lines.get(str(v.get("resource"))),
                )
                for v in raw
                if isinstance(v, dict)
            },
            key=lambda f: (f.rule_id, f.resource, f.message),
        )
        return ToolResult(
            self.name,
            findings,
            seconds=time.perf_counter() - start,
            warnings=warnings,
            scanned=scanned,
        )
