"""`sv new-env NAME`: a new environment package made from the template (`tests/example_env`).

The copy gets its own module, id and key; nothing outside it is edited. `make setup` then
installs it like every `environments/sv-env-*`.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = REPO_ROOT / "tests" / "example_env"
ENTRY_POINT_GROUP = "security_verifiers.environments"
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
KEY = re.compile(r"e([1-9][0-9]*)")
SKIP = ("__pycache__", ".egg-info", ".pytest_cache")


def template_names(template: Path = TEMPLATE) -> tuple[str, str, str]:
    """(env id, module, key) of the template, read from its pyproject.toml."""
    project = tomllib.loads((template / "pyproject.toml").read_text(encoding="utf-8"))
    env_id = project["project"]["name"]
    [(key, ref)] = project["project"]["entry-points"][ENTRY_POINT_GROUP].items()
    return env_id, ref.split(".", 1)[0], key


def next_key() -> str:
    """One past the largest numbered key installed."""
    numbers = [int(m.group(1)) for key in ENVIRONMENTS if (m := KEY.fullmatch(key))]
    return f"e{max(numbers, default=0) + 1}"


def create(name: str, dest: Path, key: str | None = None, template: Path = TEMPLATE) -> Path:
    """Copy the template to `dest/sv-env-NAME` with NAME's module, id and key; the new path."""
    if not NAME.fullmatch(name):
        raise UserError(f"NAME {name!r}: lower-case letters, digits and single hyphens only")
    key = key or next_key()
    if not KEY.fullmatch(key):
        raise UserError(f"--key {key!r}: expected e<number>, e.g. e8")
    if key in ENVIRONMENTS:
        raise UserError(f"--key {key}: already used by {ENVIRONMENTS[key].env_id}")
    env_id = f"sv-env-{name}"
    module = env_id.replace("-", "_")
    target = dest / env_id
    if target.exists():
        raise UserError(f"{target}: already exists")
    old_id, old_module, old_key = template_names(template)
    shutil.copytree(template, target, ignore=shutil.ignore_patterns(*(f"*{s}" for s in SKIP)))
    (target / old_module).rename(target / module)
    for path in sorted(target.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".toml", ".md"):
            text = path.read_text(encoding="utf-8")
            text = text.replace(old_module, module).replace(old_id, env_id)
            text = re.sub(rf'\bkey="{old_key}"', f'key="{key}"', text)
            text = re.sub(rf"^{old_key} = ", f"{key} = ", text, flags=re.MULTILINE)
            text = re.sub(r"\n    aliases=\([^)]*\),", "", text)
            path.write_text(text, encoding="utf-8")
    return target
