"""Mechanisms the environments share through sv_shared: sampling, reward weights, probe
suites by convention and built-dataset loading."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from sv_shared.data import reject_unknown_options
from sv_shared.data.store import load_built_rows
from sv_shared.probes import Probe, ProbeSuite, conventional_suite
from sv_shared.rewards import ComponentWeights
from sv_shared.sampling import shuffle_and_truncate, weighted_pick


def test_weighted_pick_follows_weights_and_is_seeded() -> None:
    weighted = (("a", 0.0), ("b", 3.0), ("c", 1.0))
    rng = random.Random(7)
    draws = [weighted_pick(rng, weighted) for _ in range(2000)]
    assert "a" not in draws
    assert 0.7 < draws.count("b") / len(draws) < 0.8
    again = random.Random(7)
    assert draws[:50] == [weighted_pick(again, weighted) for _ in range(50)]


def test_shuffle_and_truncate() -> None:
    items = tuple(range(10))
    assert shuffle_and_truncate(items, None, -1) == list(items)
    assert shuffle_and_truncate(items, None, 3) == [0, 1, 2]
    shuffled = list(items)
    random.Random(5).shuffle(shuffled)
    assert shuffle_and_truncate(items, 5, None) == shuffled
    assert shuffle_and_truncate(items, 5, 4) == shuffled[:4]
    source = list(items)
    shuffle_and_truncate(source, 5, 4)
    assert source == list(items)  # the input is left alone


@dataclass(frozen=True)
class _Weights(ComponentWeights):
    decision: float = 1.0
    format: float = 0.1


def test_component_weights_base() -> None:
    weights = _Weights.from_mapping({"format": 1})
    assert weights.as_dict() == {"decision": 1.0, "format": 1.0}
    assert isinstance(weights.format, float)
    with pytest.raises(ValueError, match="unknown reward weight"):
        _Weights.from_mapping({"nope": 1.0})
    with pytest.raises(ValueError, match=">= 0"):
        _Weights(decision=-1.0)


def test_conventional_suite_reads_module_names() -> None:
    probe = Probe("p", lambda info: "", "rule", kind="baseline")
    names = {
        "ENV": "env-x",
        "episodes": lambda limit, seed: [],
        "reference": lambda info: "",
        "reward": lambda text, info: 0.0,
        "MIN_REWARD": -1.0,
        "MAX_REWARD": 2.0,
        "_probes": lambda: (probe,),
    }
    suite = conventional_suite(names)
    assert isinstance(suite, ProbeSuite)
    assert (suite.env, suite.min_reward, suite.max_reward) == ("env-x", -1.0, 2.0)
    assert suite.probes == (probe,) and suite.episode_max is None
    assert conventional_suite(names, min_reward=0.0, probes=()).probes == ()


def test_load_built_rows_raises_the_environments_error(tmp_path) -> None:
    class MyError(ValueError):
        pass

    with pytest.raises(MyError, match=r"^ctx: "):
        load_built_rows("sv-env-x", str(tmp_path / "missing"), "test", dict, MyError, "ctx: ")


def test_reject_unknown_options() -> None:
    reject_unknown_options("csv", {"limit": "3"}, ("limit", "columns"))
    with pytest.raises(ValueError, match=r"unknown option\(s\) for csv: a, b \(valid: limit\)"):
        reject_unknown_options("csv", {"b": "1", "a": "2", "limit": "3"}, ("limit",))
    with pytest.raises(ValueError, match=r"\(valid: none\)"):
        reject_unknown_options("builtin", {"x": "1"}, ())
