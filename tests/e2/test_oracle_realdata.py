"""Oracle agreement with externally labeled real cases in ../shared/realdata (skips cleanly
when absent). Thresholds are the measured values; see
`sv_env_config_verification.oracle_agreement`."""

from __future__ import annotations

from pathlib import Path

import pytest

from sv_env_config_verification.scan_cache import ScanCache
from sv_env_config_verification.tools import get_tool

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
E2 = REALDATA / "E2_config_verification"

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def agreement():
    if not E2.is_dir():
        pytest.skip(f"real data samples not present at {E2}")
    for tool in ("opa", "checkov"):
        if not get_tool(tool).available():
            pytest.skip(f"{tool}: {get_tool(tool).unavailable_reason()}")
    from sv_env_config_verification import oracle_agreement

    return oracle_agreement


def test_gatekeeper_cases(agreement):
    """The shared copy holds the library's `general` policies: the covered ones agree on every
    in-scope case; the others are listed as uncovered, and parameter cases as out of scope."""
    checkout = E2 / "gatekeeper-library"
    if not (checkout / "library").is_dir():
        pytest.skip(f"no Gatekeeper library checkout at {checkout}")
    res = agreement.gatekeeper_rows(checkout, ScanCache())
    m = agreement.metrics(res.rows)
    assert m["n"] >= 10 and m["accuracy"] >= 0.95, [
        (r.group, r.case, r.detail) for r in res.rows if r.expected != r.predicted
    ]
    covered = {r.group for r in res.rows}
    assert {"general/containerresources", "general/disallowedtags"} <= covered
    reasons = {why for _, _, why in res.out_of_scope}
    assert any("maximum" in why for why in reasons)  # K8sContainerLimits' maxima
    assert "general/requiredlabels" in res.uncovered and not set(res.uncovered) & covered


def test_checkov_labels_and_adapter_fidelity(agreement):
    if not (REALDATA / agreement.TF_LABELS).is_file():
        pytest.skip(f"no checkov labels at {REALDATA / agreement.TF_LABELS}")
    ck = agreement.checkov_rows(REALDATA, ScanCache(), cross_tool=False)
    assert ck["errors"] == [] and ck["unlocated"] == []
    adapter = agreement.metrics(ck["adapter"])
    assert adapter["n"] == 470 and adapter["accuracy"] >= 0.995
    oracle = agreement.metrics(ck["oracle"])
    assert oracle["n"] == 0 or oracle["accuracy"] == 1.0  # no label row uses a mapped check
