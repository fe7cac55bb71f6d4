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
