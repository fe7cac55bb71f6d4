"""Built-in datasets are cached on disk by content hash: read back, rebuilt when the key changes."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from sv_shared import dataset_cache
from sv_shared.dataset_cache import cached_rows, entry_path, tree_hash


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(dataset_cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(dataset_cache.DISABLE_ENV, raising=False)
    return tmp_path / "cache"


def _builder(rows: list, calls: list) -> object:
    def build() -> list:
        calls.append(1)
        return rows

    return build


def test_second_load_reads_the_cache_and_a_new_key_rebuilds(cache_dir: Path):
    calls: list = []
    build = _builder([{"id": 1}, {"id": 2}], calls)
    key = {"generator": "abc", "n": 2}
    assert cached_rows("demo", key, build) == ([{"id": 1}, {"id": 2}], False)
    assert cached_rows("demo", key, build) == ([{"id": 1}, {"id": 2}], True)
    assert len(calls) == 1
    assert entry_path("demo", key).is_relative_to(cache_dir)
    assert cached_rows("demo", {**key, "generator": "abd"}, build)[1] is False  # code changed
    assert cached_rows("demo", {**key, "n": 3}, build)[1] is False  # arguments changed
    assert len(calls) == 3


def test_a_corrupt_entry_is_rebuilt(cache_dir: Path):
    calls: list = []
    key = {"generator": "x"}
    cached_rows("demo", key, _builder([1, 2], calls))
    entry_path("demo", key).write_text('{"rows": [1, 2')  # truncated by a crash
    assert cached_rows("demo", key, _builder([1, 2], calls)) == ([1, 2], False)
    assert json.loads(entry_path("demo", key).read_text())["rows"] == [1, 2]


def test_disabled_cache_always_builds(cache_dir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(dataset_cache.DISABLE_ENV, "0")
    calls: list = []
    cached_rows("demo", {"k": 1}, _builder([1], calls))
    cached_rows("demo", {"k": 1}, _builder([1], calls))
    assert len(calls) == 2 and not cache_dir.exists()


def test_concurrent_writers_leave_one_complete_entry(cache_dir: Path):
    rows = [{"i": i, "text": "x" * 1000} for i in range(200)]
    start = threading.Barrier(8)
    results: list = []

    def writer() -> None:
        start.wait()
        results.append(cached_rows("demo", {"k": "same"}, lambda: rows)[0])

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [rows] * 8
    folder = entry_path("demo", {"k": "same"}).parent
    assert [p.name for p in folder.iterdir()] == [entry_path("demo", {"k": "same"}).name]
    assert cached_rows("demo", {"k": "same"}, lambda: []) == (rows, True)


def test_tree_hash_follows_content(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "gen.py").write_text("N = 1\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    before = tree_hash(tmp_path / "pkg")
    (tmp_path / "pkg" / "__pycache__" / "gen.pyc").write_bytes(b"\0")
    assert tree_hash(tmp_path / "pkg") == before  # bytecode is not source
    (tmp_path / "pkg" / "gen.py").write_text("N = 2\n")
    assert tree_hash(tmp_path / "pkg") != before


def test_e2_builtin_load_is_cached(cache_dir: Path, monkeypatch: pytest.MonkeyPatch):
    from sv_env_config_verification import dataset

    first = dataset.load_items("test", n=24)
    assert first and any(item.findings for item in first)

    def no_generation(*args: object) -> None:
        raise AssertionError("the built-in dataset was regenerated")

    monkeypatch.setattr(dataset, "_generate", no_generation)
    assert dataset.load_items("test", n=24) == first  # read from the cache, equal items
    assert dataset.content_hash(dataset.load_items("test", n=24)) == dataset.content_hash(first)
    with pytest.raises(AssertionError, match="regenerated"):
        dataset.load_items("test", n=25)  # another key: a rebuild
    real_key = dataset.builtin_cache_key(
        "test", dataset.DEFAULT_SEED, 24, dataset.CLEAN_FRACTION, None
    )
    monkeypatch.setattr(dataset_cache, "tree_hash", lambda *a, **k: "changed-generator")
    assert (
        dataset.builtin_cache_key("test", dataset.DEFAULT_SEED, 24, dataset.CLEAN_FRACTION, None)
        != real_key
    )
    with pytest.raises(AssertionError, match="regenerated"):
        dataset.load_items("test", n=24)  # the generator's code changed: a rebuild
