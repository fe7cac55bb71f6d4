"""A scoring function that raises becomes an errored rollout, never a silent reward of 0."""

from __future__ import annotations

import logging

import verifiers as vf

from security_verifiers.evaluation.records import rollout_row
from sv_shared.episode_scoring import SCORING_ERROR, MemoizedScorer, component_rubric


def _scorer(fail: bool) -> MemoizedScorer:
    def score(completion, info):
        if fail:
            raise RuntimeError("sandbox vanished")
        return {"tests": 1.0, "format": 1.0}

    return MemoizedScorer(score, key=lambda completion, info: (info["id"], str(completion)))


def test_failure_reads_zero_and_reports_the_error(caplog):
    rubric = component_rubric(_scorer(True), ("tests", "format"), {"tests": 1.0}, vf.Parser())
    funcs = {f.__name__: f for f in rubric.funcs}
    with caplog.at_level(logging.ERROR):
        values = {name: f(completion="x", info={"id": "e1"}) for name, f in funcs.items()}
    assert values == {"tests": 0.0, "format": 0.0, SCORING_ERROR: 1.0}
    assert "sandbox vanished" in caplog.text and "e1" in caplog.text
    assert rubric.weights[-1] == 0.0  # the error metric never moves the reward


def test_success_reports_no_error():
    rubric = component_rubric(_scorer(False), ("tests", "format"), {"tests": 1.0}, vf.Parser())
    funcs = {f.__name__: f for f in rubric.funcs}
    assert funcs[SCORING_ERROR](completion="x", info={"id": "e1"}) == 0.0
    assert funcs["tests"](completion="x", info={"id": "e1"}) == 1.0


def test_harness_marks_the_rollout_errored():
    output = {
        "completion": "x",
        "info": {"id": "e1"},
        "metrics": {"tests": 0.0, SCORING_ERROR: 1.0},
    }
    row = rollout_row(output, parser=None, component_names={"tests"}, run_attempt=1)
    assert row["error"] and "reward computation raised" in row["error"]
    clean = {**output, "metrics": {"tests": 1.0, SCORING_ERROR: 0.0}}
    assert (
        rollout_row(clean, parser=None, component_names={"tests"}, run_attempt=1)["error"] is None
    )
