"""docs/reward-integrity.md lists every probe of every shipped suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from security_verifiers.probe_command import available_suites, load_suite

DOC = Path(__file__).resolve().parents[2] / "docs" / "reward-integrity.md"


@pytest.mark.parametrize("entry", available_suites(), ids=lambda e: e.key)
def test_every_probe_is_documented(entry) -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = [p.name for p in load_suite(entry).probes if f"`{p.name}`" not in text]
    assert not missing, f"{entry.key} probes missing from {DOC.name}: {missing}"


def test_suites_for_e2_and_e3_exist() -> None:
    assert {"e2", "e3"} <= {e.key for e in available_suites()}
