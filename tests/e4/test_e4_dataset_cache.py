"""E4's generated corpus is cached on disk and read back unchanged."""

from __future__ import annotations

from sv_env_phishing_detection import dataset


def test_split_corpus_is_cached_on_disk_and_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SV_CACHE_DIR", str(tmp_path))
    dataset._split_corpus.cache_clear()
    built = dataset._split_corpus(60, 3)
    entries = list((tmp_path / "datasets" / "e4-synthetic").glob("*.json"))
    assert len(entries) == 1
    dataset._split_corpus.cache_clear()
    assert dataset._split_corpus(60, 3) == built  # read from the entry
    monkeypatch.setenv("SV_DATASET_CACHE", "0")
    dataset._split_corpus.cache_clear()
    assert dataset._split_corpus(60, 3) == built  # rebuilt without the cache: the same
    dataset._split_corpus.cache_clear()
