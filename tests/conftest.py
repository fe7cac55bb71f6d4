"""Shared fixtures: a real OpenAI-compatible server on 127.0.0.1 serving an E1 baseline."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "realdata"


@pytest.fixture
def realdata() -> Path:
    """../shared/realdata, or a clean skip when this checkout has none."""
    if not REALDATA.is_dir():
        pytest.skip(f"real data samples not present at {REALDATA}")
    return REALDATA


@pytest.fixture
def hf_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No network: offline flags (env and the already-imported libraries) and a tmp cache."""
    import datasets
    import huggingface_hub.constants

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")


@pytest.fixture
def no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def heuristic_server() -> Iterator[tuple[str, object]]:
    """(base_url, server) for the E1 heuristic served over HTTP."""
    from security_verifiers.environments import baseline_policies, resolve_env
    from security_verifiers.serving import PolicyServer, serve_in_thread

    server = PolicyServer(baseline_policies(resolve_env("e1"))["heuristic"], "local-heuristic")
    with serve_in_thread(server) as base_url:
        yield base_url, server
