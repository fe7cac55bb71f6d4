"""Publishing is explicit: it needs a token and the network, and says so."""

from __future__ import annotations

import pytest

from security_verifiers.data.publish import push_build
from security_verifiers.errors import UserError


def test_push_needs_a_token(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(UserError, match="needs a Hugging Face token"):
        push_build(tmp_path, "org/name")


def test_push_refuses_offline_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="HF_HUB_OFFLINE=1"):
        push_build(tmp_path, "org/name", token="hf_x")
