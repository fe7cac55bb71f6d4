"""Built-in reference policies for E2, exposed by the harness as models.

`tool-oracle` runs the oracle's tools on the config in the prompt and reports exactly their
findings, with no patch. `tool-oracle-fix` also returns the known inverse patch for configs
made by the built-in mutation engine (found by content hash); for other configs it cannot
know a fix and sends none.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache

from sv_env_config_verification.configs import ConfigError, ConfigFile
from sv_env_config_verification.dataset import build_items
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.prompts import parse_rendered_config

PromptPolicy = Callable[[str, "int | None"], str]


def _answer(violations: list[dict], patch: str, confidence: float) -> str:
    return json.dumps({"violations": violations, "patch": patch, "confidence": confidence})


def _text_key(text: str) -> str:
    """Hash of a config as it appears in a prompt (trailing whitespace is not shown)."""
    return hashlib.sha256(text.rstrip().encode()).hexdigest()


@cache
def _known_fixes() -> dict[str, str]:
    """Prompt-text hash -> fix patch, for every built-in mutated item (no scans needed)."""
    return {
        _text_key(item.text): item.fix_patch
        for item in build_items(scan=lambda config: [])
        if item.fix_patch
    }


def _oracle_answer(prompt: str, with_fix: bool) -> str:
    found = parse_rendered_config(prompt)
    if found is None:
        return _answer([], "", 0.0)
    name, kind, text = found
    try:
        result = scan(ConfigFile(kind=kind, name=name, text=text))
    except ConfigError:
        return _answer([], "", 0.0)
    violations = [{"id": f.id, "severity": f.severity} for f in result.findings]
    patch = ""
    if with_fix and violations:
        patch = _known_fixes().get(_text_key(text), "")
    return _answer(violations, patch, 0.95)


def tool_oracle(prompt: str, seed: int | None = None) -> str:
    return _oracle_answer(prompt, with_fix=False)


def tool_oracle_fix(prompt: str, seed: int | None = None) -> str:
    return _oracle_answer(prompt, with_fix=True)


def report_nothing(prompt: str, seed: int | None = None) -> str:
    return _answer([], "", 0.5)


def baseline_policies() -> dict[str, PromptPolicy]:
    return {
        "tool-oracle": tool_oracle,
        "tool-oracle-fix": tool_oracle_fix,
        "report-nothing": report_nothing,
    }
