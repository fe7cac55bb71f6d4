"""Oracle agreement with externally labeled real cases in ../shared/realdata (skips cleanly
when absent). Thresholds are the measured values; see scripts/e2_oracle_agreement.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.tools import get_tool

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
E2 = REALDATA / "E2_config_verification"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "e2_oracle_agreement.py"

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def agreement():
    if not E2.is_dir():
        pytest.skip(f"real data samples not present at {E2}")
    for tool in ("opa", "checkov"):
        if not get_tool(tool).available():
            pytest.skip(f"{tool}: {get_tool(tool).unavailable_reason()}")
    spec = importlib.util.spec_from_file_location("e2_oracle_agreement", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need it
    spec.loader.exec_module(module)
    return module


def test_gatekeeper_cases(agreement):
    rows, strict = agreement.gatekeeper_rows(REALDATA, ScanCache())
    m = agreement.metrics(rows)
    assert agreement.metrics(strict) | {} == {
        "n": 4,
        "tp": 3,
        "tn": 1,
        "fp": 0,
        "fn": 0,
        "accuracy": 1.0,
        "precision": 1.0,
        "recall": 1.0,
    }
    assert m["n"] == 13 and m["tp"] + m["tn"] >= 11
    wrong = {r.case for r in rows if r.expected != r.predicted}
    # Both are semantic differences, not oracle errors: a limit above the constraint's maximum,
    # and images exempted by the constraint's exemptImages parameter.
    assert wrong <= {
        "container-limits/example-disallowed",
        "disallowed-tags/exempt-images-with-disallowed-tags",
    }


def test_checkov_labels_and_adapter_fidelity(agreement):
    ck = agreement.checkov_rows(REALDATA, ScanCache(), cross_tool=False)
    assert ck["errors"] == [] and ck["unlocated"] == []
    adapter = agreement.metrics(ck["adapter"])
    assert adapter["n"] == 470 and adapter["accuracy"] >= 0.995
    oracle = agreement.metrics(ck["oracle"])
    assert oracle["n"] == 0 or oracle["accuracy"] == 1.0  # no label row uses a mapped check
