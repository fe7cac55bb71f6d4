"""The spec is the only door: the harness (src/) neither imports an environment package nor
names an environment by its key, and no environment package imports the harness.

Everything environment-specific the harness uses is a field or hook of the environment's
`EnvSpec` (sv_shared/spec.py); adding an environment therefore needs no edit under src/.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from security_verifiers.environments import ENVIRONMENTS

ROOT = Path(__file__).resolve().parents[2]
HARNESS = sorted((ROOT / "src" / "security_verifiers").rglob("*.py"))
ENV_CODE = sorted(
    path
    for path in (ROOT / "environments").glob("*/sv_env_*/**/*.py")
    if "/library/" not in str(path) and "/data/" not in str(path)
)
ENV_KEY = re.compile(r"e[1-9][0-9]*")
KEY_IN_PATH = re.compile(r"(?:^|[/_.-])e[1-9][0-9]*(?:[/_.-]|$)")


def _strings(path: Path) -> list[tuple[int, str]]:
    """(line, value) of every string constant the code uses (f-string parts included);
    docstrings and other bare string statements are prose, not code, and left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
    ]


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
    return out


def test_the_harness_imports_no_environment_package():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in HARNESS
        for line, text in _imports(path) + _strings(path)
        if "sv_env_" in text
    ]
    assert not found, "environment code reached outside the spec:\n" + "\n".join(found)


def test_the_harness_names_no_environment_key():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {value!r}"
        for path in HARNESS
        for line, value in _strings(path)
        if ENV_KEY.fullmatch(value) or KEY_IN_PATH.search(value)
    ]
    assert not found, "literal environment keys under src/:\n" + "\n".join(found)


@pytest.mark.parametrize("path", ENV_CODE, ids=lambda p: str(p.relative_to(ROOT / "environments")))
def test_no_environment_imports_the_harness(path: Path):
    harness = [
        f"{line}: {name}" for line, name in _imports(path) if name.startswith("security_verifiers")
    ]
    assert not harness, f"{path.relative_to(ROOT)} imports the harness: {harness}"


def test_the_guard_sees_what_it_should(tmp_path: Path):
    """The checks above would catch the forms they are written for."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Docs may say e1."""\nfrom sv_env_x import y\nKEYS = {"e1": 1}\n'
        'P = f"configs/sft/e4.yaml{y}"\nQ = "see (e1 ... e6)"\n'
    )
    assert [name for _, name in _imports(sample)] == ["sv_env_x"]
    values = [v for _, v in _strings(sample) if ENV_KEY.fullmatch(v) or KEY_IN_PATH.search(v)]
    assert values == ["e1", "configs/sft/e4.yaml"]


def test_every_registered_hook_resolves():
    """Each hook a spec names imports and exists (a misspelt reference is an error, not a
    missing feature)."""
    hooks = (
        "load_environment", "baseline_policies", "data_adapter", "probe_suite",
        "reward_weights", "run_metrics", "sim2real", "sft_renderer", "reward_bench",
        "cold_caches", "fresh_rows", "tool_policy",
    )  # fmt: skip
    for entry in ENVIRONMENTS.values():
        for name in hooks:
            if getattr(entry.spec, name):
                entry.hook(name)
        for ref in entry.spec.more_probe_suites.values():
            assert ref
