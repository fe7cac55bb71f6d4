"""External task suites (suites.py, suite_execution.py): the fixture suite in the
"module + tests/" layout, real pytest in the two sandboxes, rejection of test-less items,
and (when ../shared/realdata is present) a few CWEval tasks."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from sv_env_code_vulnerability.dataset import load_items
from sv_env_code_vulnerability.generator import RepairItem
from sv_env_code_vulnerability.suite_execution import (
    run_item_tests,
    run_pytest_tests,
    suite_tools_unavailable,
)
from sv_env_code_vulnerability.suites import (
    discover,
    load_suite,
    missing_tests,
    reward_table,
)

FIXTURES = Path(__file__).parent / "fixtures" / "suites"
CWEVAL = ("E3_code_vulnerability", "cweval_python")


@pytest.fixture(scope="module", autouse=True)
def suite_tools() -> None:
    reason = suite_tools_unavailable()
    if reason:  # a tool the project installs (make setup): its absence fails
        pytest.fail(reason)


@pytest.fixture(scope="module")
def fixture_items() -> list[RepairItem]:
    items, rejected = load_suite(FIXTURES)
    assert rejected == []
    return items


def _item_file(tmp_path: Path, items: list[RepairItem]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in items), encoding="utf-8")
    return path


def test_discovers_both_fixture_tasks():
    tasks = {t.task_id: t for t in discover(FIXTURES)}
    assert set(tasks) == {"fixture/cwe_022_notes", "cwe_089_users"}
    notes, users = tasks["fixture/cwe_022_notes"], tasks["cwe_089_users"]
    assert notes.module_file == "notes.py" and notes.cwe == "CWE-22" and notes.entry == "read_note"
    assert "commonpath" in notes.secure and "commonpath" not in notes.vulnerable
    assert set(notes.tests) == {"test_notes.py", "pytest.ini"}
    # reference/ fix, id and CWE from the directory name, summary from the docstring
    assert users.cwe == "CWE-89" and "?" in users.secure and users.summary.startswith("Return")
    assert set(users.tests) == {"conftest.py", "test_users_functional.py", "test_users_security.py"}
    assert not notes.problems and not users.problems


def test_loaded_items_split_tests_by_mark_and_file(fixture_items):
    items = {i.id: i for i in fixture_items}
    notes, users = items["fixture/cwe_022_notes"], items["cwe_089_users"]
    assert notes.test_format == users.test_format == "pytest"
    assert sorted(notes.fail_to_pass) == [
        "test_notes.py::test_absolute_name_stays_inside",
        "test_notes.py::test_read_note[#4]",
        "test_notes.py::test_read_note[#5]",
    ]
    assert notes.provenance["node_ids"]["test_notes.py::test_read_note[#4]"] == (
        "test_notes.py::test_read_note[../secret.txt-]"
    )
    assert len(notes.pass_to_pass) == 4 and all("test_read_note" in t for t in notes.pass_to_pass)
    assert all(t.startswith("test_users_security.py::") for t in users.fail_to_pass)
    assert len(users.fail_to_pass) == 3
    assert sorted(users.pass_to_pass) == [
        "test_users_functional.py::test_finds_alice",
        "test_users_functional.py::test_finds_bob",
        "test_users_functional.py::test_unknown_user",
    ]
    assert notes.suite["files"]["test_notes.py"] and notes.reference_diff.startswith("--- a/notes")
    assert notes.visible_tests == notes.functional_tests == notes.security_tests == ""
    assert missing_tests(notes) is None and missing_tests(users) is None


def test_reference_earns_the_reward_and_non_fixes_do_not(fixture_items):
    table = reward_table(fixture_items)
    share = table["share_of_max"]
    assert share["reference"] >= 0.95
    assert share["comment-only"] <= 0.10 and share["no-op"] == 0.0
    assert share["refuse-unusual shim"] <= 0.10
    assert all(row["reference"] >= 0.95 * table["max"] for row in table["items"])


def test_candidate_is_remote_with_a_fresh_worker_per_test():
    module = (
        "import os\nimport sys\n\n"
        "calls = []\n\n\n"
        "def touch(folder):\n"
        "    calls.append(folder)\n"
        "    with open(os.path.join(folder, 'made.txt'), 'w') as fh:\n"
        "        fh.write('by the candidate')\n"
        "    return [len(calls), '_pytest' in sys.modules, os.environ.get('PYTEST_CURRENT_TEST')]\n"
    )
    tests = (
        "import os\nimport sys\n\nimport mod\nfrom mod import touch\n\n\n"
        "def check(tmp_path):\n"
        "    assert type(sys.modules['mod']).__name__ == 'RemoteModule'\n"
        "    count, has_pytest, current = touch(str(tmp_path))\n"
        "    assert count == 1 and not has_pytest and current is None\n"
        "    assert os.environ.get('PYTEST_CURRENT_TEST') is None\n"
        "    assert (tmp_path / 'made.txt').read_text() == 'by the candidate'\n"
        "    assert 'test_' not in str(tmp_path)\n\n\n"
        "def test_first(tmp_path):\n    check(tmp_path)\n\n\n"
        "def test_second(tmp_path):\n    check(tmp_path)\n"
    )
    ids = ["test_mod.py::test_first", "test_mod.py::test_second", "test_mod.py::test_absent"]
    run = run_pytest_tests({"mod.py": module}, {"test_mod.py": tests}, test_ids=ids)
    assert run.error is None, run.error
    assert run.status(ids[0]) == run.status(ids[1]) == "passed", run.outcomes
    assert run.status(ids[2]) == "error" and "not collected" in run.outcomes[ids[2]].detail


def test_skips_xfails_and_exits_are_not_passes():
    tests = (
        "import pytest\nimport mod\n\n\n"
        "def test_skip():\n    pytest.skip('not here')\n\n\n"
        "@pytest.mark.xfail(reason='known')\ndef test_xpass():\n    assert mod.ok()\n\n\n"
        "def test_exit():\n    mod.leave()\n"
    )
    module = "import sys\n\n\ndef ok():\n    return True\n\n\ndef leave():\n    sys.exit(0)\n"
    ids = [f"test_mod.py::test_{n}" for n in ("skip", "xpass", "exit")]
    run = run_pytest_tests({"mod.py": module}, {"test_mod.py": tests}, test_ids=ids)
    assert run.passed(ids) == [], run.outcomes
    assert run.status(ids[0]) == "skipped"


def test_dispatch_on_test_format(fixture_items):
    notes = next(i for i in fixture_items if i.id == "fixture/cwe_022_notes")
    from sv_env_code_vulnerability.environment import episode_info

    info = episode_info(notes)
    assert info["test_format"] == "pytest" and isinstance(info["suite"], str)
    everything = notes.fail_to_pass + notes.pass_to_pass
    run = run_item_tests({notes.module_file: notes.secure}, info)
    assert run.passed(everything) == everything, run.outcomes
    with pytest.raises(ValueError, match="unknown test_format"):
        run_item_tests({}, {**info, "test_format": "junit"})


def test_item_file_round_trip_and_environment(tmp_path, fixture_items):
    from sv_env_code_vulnerability import load_environment

    path = _item_file(tmp_path, fixture_items)
    loaded = load_items("all", str(path))
    assert [i.to_json() for i in loaded] == [i.to_json() for i in fixture_items]
    env = load_environment(path=str(path), split="all", warm_up=False)
    infos = [row["info"] for row in env.eval_dataset]
    assert {i["test_format"] for i in infos} == {"pytest"}
    assert json.loads(infos[0]["suite"])["files"]


def test_test_less_items_are_rejected_with_one_line(tmp_path, fixture_items):
    notes = fixture_items[0]
    bare = dataclasses.replace(notes, id="bare", fail_to_pass=[], pass_to_pass=[], suite={})
    path = _item_file(tmp_path, [notes, bare])
    with pytest.raises(ValueError) as caught:
        load_items("all", str(path))
    message = str(caught.value)
    assert "\n" not in message and f"{path}:2" in message and "'bare'" in message
    assert "no FAIL_TO_PASS tests" in message
    no_files = dataclasses.replace(notes, id="nofiles", suite={"files": {}})
    assert "without suite files" in missing_tests(no_files)
    shipped = load_items("all")[0]
    sv_bare = dataclasses.replace(shipped, functional_tests="", security_tests="")
    assert "no hidden test code" in missing_tests(sv_bare)

    from sv_env_code_vulnerability.data_pipeline import data_adapter
    from sv_shared.data import SourceRequest

    data = data_adapter().sources["jsonl"](SourceRequest(path=str(path)))
    assert [r.id for r in data.rows] == [notes.id]
    assert [where for where, _ in data.rejected] == [f"{path}:2"]
    assert "no FAIL_TO_PASS tests" in data.rejected[0][1]


def test_broken_tasks_are_rejected_with_the_reason(tmp_path):
    missing_fix = tmp_path / "suite" / "cwe_022_nofix"
    (missing_fix / "tests").mkdir(parents=True)
    (missing_fix / "mod.py").write_text("def f(x):\n    return x\n")
    (missing_fix / "tests" / "test_mod_security.py").write_text("def test_f():\n    pass\n")
    no_tests = tmp_path / "suite" / "cwe_022_notests"
    (no_tests / "tests").mkdir(parents=True)
    (no_tests / "mod.py").write_text("def f(x):\n    return x\n")
    (no_tests / "mod.secure.py").write_text("def f(x):\n    return x\n")
    items, rejected = load_suite(tmp_path / "suite")
    assert items == []
    reasons = dict(rejected)
    assert "no secure reference" in reasons[str(missing_fix)]
    assert "holds no test_*.py" in reasons[str(no_tests)]
    with pytest.raises(ValueError, match="no task suite"):
        discover(tmp_path)


@pytest.mark.realdata
def test_cweval_tasks_score_like_the_reference(realdata):
    root = realdata.joinpath(*CWEVAL)
    if not root.is_dir():
        pytest.skip(f"CWEval sample not present at {root}")
    from sv_env_code_vulnerability.suites import build_item

    tasks = {t.task_id: t for t in discover(root)}
    assert len(tasks) == 25 and "no vulnerable module" in tasks["cweval/cwe_020_0"].problems[0]
    items = []
    for task_id in ("cweval/cwe_022_0", "cweval/cwe_347_0"):  # stdlib and PyJWT
        item, problems = build_item(tasks[task_id])
        assert item is not None, problems
        assert not any("unsafe" in t for t in item.fail_to_pass + item.pass_to_pass)
        items.append(item)
    table = reward_table(items)
    assert table["share_of_max"]["reference"] >= 0.95
    assert table["share_of_max"]["comment-only"] <= 0.10
