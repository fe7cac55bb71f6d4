"""`SV_LOCAL_THREADS`: llama.cpp threads for local models (1 on a busy CPU)."""

from __future__ import annotations

import os

import pytest

from security_verifiers.errors import UserError
from security_verifiers.models.local_server import LlamaSettings, local_threads


def test_default_is_every_cpu_and_the_variable_overrides_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.delenv("SV_LOCAL_THREADS", raising=False)
    assert local_threads() == (os.cpu_count() or 1)
    monkeypatch.setenv("SV_LOCAL_THREADS", "1")
    settings = LlamaSettings(gguf=tmp_path / "m.gguf", alias="m")
    assert settings.threads == 1 and settings.llama_kwargs()["n_threads"] == 1


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_value_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SV_LOCAL_THREADS", value)
    with pytest.raises(UserError, match="SV_LOCAL_THREADS"):
        local_threads()
