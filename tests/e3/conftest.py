"""E3 fixtures: the sandbox and semgrep are tools the project installs, so their absence fails."""

from __future__ import annotations

import pytest

from sv_env_code_vulnerability.scanners import semgrep_unavailable_reason
from sv_shared.sandbox import sandbox_available


@pytest.fixture(scope="session", autouse=True)
def project_tools() -> None:
    reason = sandbox_available()
    if reason:
        pytest.fail(f"the E3 sandbox does not work here (run make setup): {reason}")
    reason = semgrep_unavailable_reason()
    if reason:
        pytest.fail(f"semgrep/codeshield missing (run make setup): {reason}")
