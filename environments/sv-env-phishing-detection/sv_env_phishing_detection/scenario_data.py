"""Template text kept in data files, not in Python literals.

`data/classic_templates.json` holds the classic scenarios' fixed templates (3 variants x 5
languages, content indicators declared); `data/scenarios.json` the newer scenarios;
`data/locales.json` the per-language names, organisations and formats (`campaigns.Locale`).

Each scenario there names its label, a planner (`plan`, see `generator._DATA_PLANNERS`) and,
per language, a list of templates. A template holds alternatives: `subject` is a list of
subject lines, `body` a list of paragraphs where each paragraph is a string or a list of
alternative strings (an empty string drops the paragraph), plus an optional call-to-action
label (`cta`), quoted earlier mail (`quote`, with `thread` "reply" or "forward") and
attachment name patterns (`attach`). The generator draws one alternative per slot from the
email's seeded `Random`, so every email stays deterministic. Content indicators are not
declared here: they are read back from the finished message, so `meta["planted"]` stays
honest whatever alternative was drawn.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

DATA_FILE = "scenarios.json"
CLASSIC_FILE = "classic_templates.json"
LOCALES_FILE = "locales.json"
LABELS = ("Phishing", "Legitimate")
MAX_VARIANTS = 99
"""Templates per scenario and language (record ids number them round * 100 + variant)."""


class ScenarioDataError(ValueError):
    """The scenario data file is malformed."""


def _check(data: dict[str, Any]) -> dict[str, Any]:
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, dict) or not scenarios:
        raise ScenarioDataError(f"{DATA_FILE}: 'scenarios' must be a non-empty object")
    for name, entry in scenarios.items():
        if entry.get("label") not in LABELS:
            raise ScenarioDataError(f"{DATA_FILE}: {name}: label must be one of {LABELS}")
        if not isinstance(entry.get("plan"), str):
            raise ScenarioDataError(f"{DATA_FILE}: {name}: 'plan' must name a planner")
        for language, templates in entry.get("templates", {}).items():
            if len(templates) > MAX_VARIANTS:
                raise ScenarioDataError(
                    f"{DATA_FILE}: {name}/{language}: at most {MAX_VARIANTS} templates"
                )
            for index, template in enumerate(templates):
                where = f"{DATA_FILE}: {name}/{language}/v{index}"
                if not template.get("subject") or not template.get("body"):
                    raise ScenarioDataError(f"{where}: needs a subject and a body")
    return data


@lru_cache(maxsize=1)
def load_scenario_data() -> dict[str, Any]:
    """The parsed data file (cached)."""
    text = resources.files(__package__).joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    return _check(json.loads(text))


@lru_cache(maxsize=1)
def load_classic_templates() -> dict[str, Any]:
    """`data/classic_templates.json`: the classic scenarios' fixed templates (subject, body,
    call to action, declared content indicators) by label, scenario and language."""
    path = resources.files(__package__).joinpath("data", CLASSIC_FILE)
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def load_locales() -> dict[str, Any]:
    """`data/locales.json`: per language, the names, organisations and formats that fill
    templates (the fields of `campaigns.Locale`)."""
    path = resources.files(__package__).joinpath("data", LOCALES_FILE)
    return json.loads(path.read_text(encoding="utf-8"))


def alternatives(slot: str | list[str]) -> list[str]:
    """A slot's alternatives (a plain string is its only alternative)."""
    return [slot] if isinstance(slot, str) else list(slot)
