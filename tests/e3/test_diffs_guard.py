"""Diff parsing / applying and the static tamper guard."""

from __future__ import annotations

import pytest

from sv_env_code_vulnerability.diffs import PatchError, apply_patch, make_diff, parse_patch
from sv_env_code_vulnerability.guard import tamper_signals

OLD = "import os\n\n\ndef f(x):\n    return os.path.join('a', x)\n\n\ndef g():\n    return 1\n"
NEW = OLD.replace("return 1", "return 2")


def test_roundtrip_is_clean():
    result = apply_patch(make_diff(OLD, NEW, "m.py"), {"m.py": OLD})
    assert result.files["m.py"] == NEW and result.clean and result.changed_lines == 2


def test_fenced_diff_with_prose_and_wrong_counts_applies_not_cleanly():
    diff = make_diff(OLD, NEW, "m.py").replace("@@ -6,4 +6,4 @@", "@@ -6,9 +6,9 @@")
    result = apply_patch(f"Here you go:\n```diff\n{diff}```\nDone.", {"m.py": OLD})
    assert result.files["m.py"] == NEW and not result.clean


def test_context_mismatch_fails_with_a_message():
    diff = make_diff(OLD, NEW, "m.py").replace(" def g():", " def h():")
    with pytest.raises(PatchError, match="matches nowhere"):
        apply_patch(diff, {"m.py": OLD})


@pytest.mark.parametrize(
    "diff, message",
    [
        (make_diff("a\n", "b\n", "test_m.py"), "only m.py"),
        ("--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1 @@\n+x\n", "creates or deletes"),
        ("--- a/m.py\n+++ b/n.py\n@@ -1 +1 @@\n-import os\n+import sys\n", "renames"),
        ("no diff here", "no unified diff"),
        (make_diff("a\n", "b\n", "../m.py"), "only m.py"),
    ],
)
def test_rejected_patches(diff, message):
    with pytest.raises(PatchError, match=message):
        apply_patch(diff, {"m.py": OLD})


def test_parse_tolerates_missing_prefixes():
    diff = make_diff(OLD, NEW, "m.py").replace("a/m.py", "m.py").replace("b/m.py", "m.py")
    assert parse_patch(diff)[0].new_path == "m.py"


def test_guard_flags_new_tamper_only():
    assert tamper_signals(OLD, NEW) == []
    assert "import sys" in tamper_signals(OLD, OLD + "import sys\n")
    assert ".exit" in tamper_signals(OLD, OLD + "os.exit = 1\n")
    assert ".exit" not in tamper_signals(OLD + "os.exit = 1\n", OLD + "os.exit = 1\n")
    assert tamper_signals(OLD, "def (:\n")[0].startswith("patched module does not parse")
    assert "raise SkipTest" in tamper_signals(OLD, OLD + "raise SkipTest('x')\n")
