"""sv_shared.row_files: JSONL objects and CSV headers, with one-line errors naming file:line."""

from __future__ import annotations

import pytest

from sv_shared.row_files import csv_dict_reader, iter_json_objects


class RowError(ValueError):
    pass


def test_json_objects_with_line_numbers_skipping_blank_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"b": [2]}\n', encoding="utf-8")
    assert list(iter_json_objects(path)) == [(1, {"a": 1}), (4, {"b": [2]})]
    assert list(iter_json_objects(str(path))) == [(1, {"a": 1}), (4, {"b": [2]})]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": 1}\n{oops\n', ":2: invalid JSON (Expecting property name"),
        ('{"a": 1}\n\n[1, 2]\n', ":3: expected a JSON object, got list"),
        ('"text"\n', ":1: expected a JSON object, got str"),
    ],
)
def test_bad_lines_name_file_and_line_in_the_callers_error(tmp_path, content, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RowError) as info:
        list(iter_json_objects(path, RowError))
    text = str(info.value)
    assert text.startswith(f"{path}:") and message in text and "\n" not in text


def test_default_error_is_value_error(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("nope\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"rows.jsonl:1: invalid JSON"):
        list(iter_json_objects(path))


def test_encoding_options(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": "caf\xc3\xa9"}\n{"b": "\xff"}\n')
    with pytest.raises(RowError, match=r"rows.jsonl: not UTF-8 text"):
        list(iter_json_objects(path, RowError))
    rows = list(iter_json_objects(path, RowError, encoding="utf-8-sig", errors="replace"))
    assert rows == [(1, {"a": "café"}), (2, {"b": "\ufffd"})]


def test_missing_file_is_left_to_the_caller(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(iter_json_objects(tmp_path / "absent.jsonl", RowError))


def test_csv_reader_checks_required_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with path.open(encoding="utf-8", newline="") as handle:
        assert list(csv_dict_reader(handle, ("a",), path)) == [{"a": "1", "b": "2"}]
    with path.open(encoding="utf-8", newline="") as handle, pytest.raises(RowError) as info:
        csv_dict_reader(handle, ("a", "c", "d"), path, RowError, hint=" for layout x")
    assert str(info.value) == (
        f"{path}:1: missing column(s) ['c', 'd'] for layout x; the header has ['a', 'b']"
    )


def test_csv_reader_empty_file_and_wide_header(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    expected = r"empty.csv:1: missing column\(s\) \['a'\]; the header has \[\]$"
    with empty.open(encoding="utf-8", newline="") as fh, pytest.raises(ValueError, match=expected):
        csv_dict_reader(fh, ["a"], empty)
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(20)) + "\n", encoding="utf-8")
    with wide.open(encoding="utf-8", newline="") as handle, pytest.raises(ValueError) as info:
        csv_dict_reader(handle, ["a"], wide)
    assert "'c11', ...] (20 columns)" in str(info.value) and "'c12'" not in str(info.value)
