"""`python -m sv_shared.safety.train_offline` reproduces the shipped offline model."""

from __future__ import annotations

import json
from importlib import resources

import pytest


@pytest.mark.slow
def test_training_reproduces_the_shipped_weights():
    """Same corpus + the shipped C -> the same weights (the CV search is skipped for speed)."""
    from sv_shared.safety import train_offline

    shipped = json.loads(
        (resources.files("sv_shared.safety") / "data" / "offline_model.json").read_text()
    )
    model = json.loads(json.dumps(train_offline.train(c=shipped["metadata"]["C"])))
    assert model["binary"] == shipped["binary"]
    assert model["categories"] == shipped["categories"]
    assert model["metadata"]["corpus_sha256"] == shipped["metadata"]["corpus_sha256"]
