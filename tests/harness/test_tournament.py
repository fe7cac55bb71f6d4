"""Opponent models and the attacker x defender tournament, with built-in policies."""

from __future__ import annotations

import asyncio
import json

import pytest

from security_verifiers.errors import UserError
from security_verifiers.evaluation.config import EvalConfig
from security_verifiers.evaluation.runner import evaluate
from security_verifiers.tournament import play_round


def test_tournament_matrix_and_artifacts(tmp_path, no_api_keys):
    base = EvalConfig(env="e5", models=[], n=4, seed=42, show_progress=False)
    result = asyncio.run(
        play_round(["direct-request"], ["always-refuse", "always-comply"], base, tmp_path)
    )
    assert result.success["direct-request"]["always-refuse"] == 0.0
    assert result.success["direct-request"]["always-comply"] > 0.0
    saved = json.loads((result.directory / "matrix.json").read_text())
    assert saved["success"] == result.success
    assert "| direct-request |" in (result.directory / "matrix.md").read_text()
    run_dir = result.runs["direct-request"]["always-comply"]
    metadata = json.loads((tmp_path.joinpath(run_dir).resolve() / "metadata.json").read_text())
    assert metadata["target"] == "always-comply"


def test_target_is_refused_for_environments_without_one(tmp_path, no_api_keys):
    config = EvalConfig(env="e4", models=["heuristic"], n=2, target="always-refuse",
                        output_root=tmp_path, show_progress=False)  # fmt: skip
    with pytest.raises(UserError, match="has no target model"):
        asyncio.run(evaluate(config))
