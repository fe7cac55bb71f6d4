"""Hidden tests a candidate cannot tell apart: one header and template for every test, private
homes, a scratch root that cannot be listed, a random order, and checks decided on the test
side (values by value, no candidate `__eq__` / `__bool__` / class claims)."""

from __future__ import annotations

import ast

import pytest

from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.execution import run_tests
from sv_env_code_vulnerability.testgen import test_names as names_of_tests

MODULE = """
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: int
    y: int


class Agreeable(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

    def __bool__(self):
        return False

    def __contains__(self, item):
        return False

    def __len__(self):
        return 0


class Box(list):
    pass


class Liar:
    def __eq__(self, other):
        return True

    def __contains__(self, item):
        return True

    def __iter__(self):
        return iter(["only"])


def liar():
    return Liar()


def point(x, y):
    return Point(x, y)


def agreeable():
    return Agreeable("x")


def fake_list():
    class Claims:
        __class__ = list

    return Claims()


def boxed(*values):
    return Box(values)


def scratch_listing():
    try:
        return sorted(os.listdir("/sandbox"))
    except OSError as exc:
        return type(exc).__name__


def cwd():
    return os.getcwd()


def home_has(name):
    return os.path.exists(os.path.join("/tmp", name))

"""

TESTS = """
import os
import pathlib

from probe_mod import (
    Point, agreeable, boxed, cwd, fake_list, home_has, liar, point, scratch_listing,
)


def test_dataclass_values_compare_by_value():
    assert point(1, 2) == point(1, 2)
    assert point(1, 2) != point(2, 1)
    assert point(3, 4).x == 3


def test_agreeable_object_decides_nothing():
    value = agreeable()
    assert type(value) is str and value == "x"  # a str subclass crosses as its value
    assert not (value == [])
    assert value  # truth is decided here, not by the candidate's __bool__


def test_candidate_special_methods_decide_nothing():
    value = liar()
    assert not (value == 5) and not (value == liar()) and value == value
    assert "anything" not in value and "only" in value


def test_builtin_subclasses_cross_by_value():
    box = boxed(1, 2, 3)
    assert type(box) is list and box == [1, 2, 3]
    assert 2 in box and 5 not in box


def test_class_claims_are_refused():
    fake = fake_list()
    assert fake.__class__ is not list and not isinstance(fake, list)
    try:
        isinstance(point(1, 2), Point)
        refused = False
    except TypeError:
        refused = True
    assert refused


def test_scratch_root_cannot_be_listed():
    assert scratch_listing() == "PermissionError"


def test_candidate_works_in_the_tests_directory():
    here = os.getcwd()
    assert here.startswith("/sandbox/") and cwd() == here
    pathlib.Path("made-by-test.txt").write_text("x")
    assert os.path.exists(os.path.join(cwd(), "made-by-test.txt"))


def test_homes_are_private():
    pathlib.Path("/tmp/test-side-marker").write_text("x")
    assert not home_has("test-side-marker")
"""


@pytest.fixture(scope="module")
def run():
    return run_tests({"probe_mod.py": MODULE}, {"test_probe.py": TESTS})


@pytest.mark.parametrize("name", names_of_tests(TESTS))
def test_boundary_behaviour(run, name):
    outcome = run.outcomes[f"test_probe.py::{name}"]
    assert outcome.status == "passed", outcome.detail


def test_every_test_ran(run):
    assert all(o.status == "passed" for o in run.outcomes.values()), run.outcomes


def test_hidden_files_share_one_header():
    for item in load_items("all"):
        functional, cases = item.functional_tests, item.security_tests
        head = functional[: functional.index("\n\n\n")]
        assert cases.startswith(head), item.id
        imports = [n for n in ast.parse(functional).body if isinstance(n, ast.ImportFrom)]
        stem = item.module_file[:-3]
        assert [n.module for n in imports].count(stem) == 1, item.id


def test_security_and_lookalike_tests_have_one_shape():
    for item in load_items("all"):
        if not item.lookalike_inputs:
            continue
        tree = ast.parse(item.security_tests)
        tests = [
            n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
        ]
        cases = [
            sum(
                isinstance(c, ast.Call) and getattr(c.func, "id", "") == "_case_dir"
                for c in ast.walk(t)
            )
            for t in tests
        ]
        shapes = set(cases)  # cases per test
        assert len(shapes) == 1, (item.id, shapes)
        assert all(t.name.startswith("test_case_") for t in tests)


def test_every_lookalike_test_runs_a_lookalike_that_carries_attack_syntax():
    """A filter refusing whatever looks like an attack must fail the item: each look-alike
    test holds one benign input with attack syntax whenever the seed has one."""
    import random

    from sv_env_code_vulnerability.library import all_seeds
    from sv_env_code_vulnerability.library.signatures import carries_attack_syntax
    from sv_env_code_vulnerability.mutations import strip_markers
    from sv_env_code_vulnerability.testgen import case_tests

    checked = 0
    for seed in all_seeds():
        if not any(carries_attack_syntax(v) for v in seed.probe.lookalikes):
            continue
        for variant in range(3):
            rng = random.Random(f"{seed.seed_id}/{variant}")
            _, tests = case_tests(seed, strip_markers(seed.source), ["x", "y", "z"], rng)
            lookalike_tests = [t for t in tests if not t.attack]
            assert lookalike_tests, seed.seed_id
            signed = {repr(v) for v in seed.probe.lookalikes if carries_attack_syntax(v)}
            assert all(signed & set(t.inputs) for t in lookalike_tests), seed.seed_id
            checked += 1
    assert checked >= 150


def test_lookalikes_are_drawn_without_replacement_across_the_file():
    import random

    from sv_env_code_vulnerability.library import all_seeds
    from sv_env_code_vulnerability.mutations import strip_markers
    from sv_env_code_vulnerability.testgen import LOOKALIKE_TESTS, case_tests

    for seed in all_seeds():
        pool = [repr(v) for v in seed.probe.lookalikes]
        if not pool:
            continue
        _, tests = case_tests(
            seed, strip_markers(seed.source), ["a", "b"], random.Random(seed.seed_id)
        )
        drawn = [i for t in tests for i in t.inputs if i in pool]
        # only the attack-syntax look-alike each look-alike test starts from may repeat
        repeats_allowed = LOOKALIKE_TESTS - 1
        assert len(set(drawn)) >= min(len(drawn) - repeats_allowed, len(set(pool))), seed.seed_id


def test_attack_syntax_families():
    from sv_env_code_vulnerability.library.signatures import carries_attack_syntax

    for text in ("a/../b", "rock&&roll", "<script> tag", "{x.__class__}", {"$ne": 1}, "a\r\nb"):
        assert carries_attack_syntax(text), text
    for text in ("plain words", "50% off", "{member}", "Zoë's café", 42, ("a", "b")):
        assert not carries_attack_syntax(text), text
