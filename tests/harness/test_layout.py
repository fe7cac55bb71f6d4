"""One layout: every environment package (and the template) matches the table in
docs/architecture.md — the same file for the same role, and each role's hook names that file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from security_verifiers.environments import ENVIRONMENTS, EnvEntry
from sv_shared.env_config import config_of

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\| `(?P<file>[\w.]+)` \| [^|]+ \| (?:`(?P<hook>\w+)`)? *\| (?P<req>yes|no) \|$")
PACKAGES = sorted(
    [
        *ROOT.glob("environments/sv-env-*/sv_env_*/spec.py"),
        *ROOT.glob("tests/example_env/*/spec.py"),
    ]
)


def layout() -> list[tuple[str, str | None, bool]]:
    """(file, hook, required) rows of the doc's "One environment package" table."""
    section = DOC.read_text(encoding="utf-8").split("## One environment package", 1)[1]
    rows = [ROW.match(line) for line in section.split("\n## ", 1)[0].splitlines()]
    return [(m["file"], m["hook"], m["req"] == "yes") for m in rows if m]


def test_the_doc_has_the_table():
    files = [file for file, _, _ in layout()]
    assert {"environment.py", "config.py", "run_metrics.py", "spec.py"} <= set(files)


@pytest.mark.parametrize("spec_file", PACKAGES, ids=lambda p: p.parent.name)
def test_every_package_has_the_required_files(spec_file: Path):
    package = spec_file.parent
    missing = [file for file, _, required in layout() if required and not (package / file).exists()]
    assert not missing, f"{package.relative_to(ROOT)} lacks {missing} (docs/architecture.md)"


def _defined_in(entry: EnvEntry, hook: str) -> str:
    """The module a hook's object comes from: the reference's own module, or — for a name the
    package re-exports — the module that defines it."""
    ref = str(getattr(entry.spec, hook))
    module = ref.partition(":")[0]
    if module != entry.spec.module:
        return module
    return str(getattr(entry.hook(hook), "__module__", module))


@pytest.mark.parametrize("key", list(ENVIRONMENTS), ids=str)
def test_each_hook_lives_in_its_roles_file(key: str):
    entry = ENVIRONMENTS[key]
    wrong = []
    for file, hook, _ in layout():
        if hook is None or not getattr(entry.spec, hook) or entry.hook(hook) is None:
            continue
        module = _defined_in(entry, hook)
        if module.startswith("sv_shared."):  # a shared implementation (E1's reward weights)
            continue
        if module != f"{entry.spec.module}.{file.removesuffix('.py')}":
            wrong.append(f"{hook}: {module} (expected {file})")
    assert not wrong, f"{entry.env_id}: {wrong}"


@pytest.mark.parametrize("key", list(ENVIRONMENTS), ids=str)
def test_every_environment_has_typed_arguments(key: str):
    entry = ENVIRONMENTS[key]
    config = config_of(entry.module().load_environment)
    assert config is not None, f"{entry.env_id}: load_environment takes no EnvConfig"
    assert config.__module__ == f"{entry.spec.module}.config"
    undocumented = [name for name, f in config.model_fields.items() if not f.description]
    assert not undocumented, f"{entry.env_id}: arguments without a description: {undocumented}"
