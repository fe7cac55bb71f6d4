"""An external file (`path=`) is used whole unless a split is asked for, and then it is logged."""

from __future__ import annotations

import logging

import sv_env_network_logs
from sv_env_network_logs.dataset import build_default_dataset, load_flows, write_jsonl


def _file(tmp_path):
    path = tmp_path / "external.jsonl"
    write_jsonl(build_default_dataset()[:253], path)
    return path


def test_external_file_defaults_to_all_rows(tmp_path, caplog):
    path = _file(tmp_path)
    with caplog.at_level(logging.WARNING):
        items, info = load_flows("jsonl", path=str(path))
    assert len(items) == 253 and info.split == "all"
    assert not caplog.records


def test_split_on_external_file_is_logged_in_one_line(tmp_path, caplog):
    path = _file(tmp_path)
    with caplog.at_level(logging.WARNING):
        items, info = load_flows("jsonl", path=str(path), split="test")
    assert info.split == "test" and 0 < len(items) < 253
    (record,) = caplog.records
    message = record.getMessage()
    assert "\n" not in message and str(path) in message
    assert f"keeps {len(items)} of 253 rows" in message and "split=all" in message


def test_synthetic_default_is_still_test_split(caplog):
    with caplog.at_level(logging.WARNING):
        _, info = load_flows("synthetic")
    assert info.split == "test" and not caplog.records


def test_environment_records_resolved_split(tmp_path):
    env = sv_env_network_logs.load_environment(source="jsonl", path=str(_file(tmp_path)))
    assert env.sv_dataset_info["split"] == "all" and env.sv_dataset_info["n"] == 253
