"""sv_shared.hub_datasets on small local files (offline), and its clear errors."""

from __future__ import annotations

import json

import pytest

from sv_shared.hub_datasets import (
    LOCAL_BUILDERS,
    HubDatasetError,
    iter_rows,
    load_local_dataset,
    open_dataset,
)

pytestmark = pytest.mark.usefixtures("hf_offline")


def test_csv_tsv_and_jsonl_files_read_whole(tmp_path):
    (tmp_path / "a.csv").write_text("text,label\nhello,1\nworld,0\n")
    (tmp_path / "b.tsv").write_text("text\tlabel\nhi there\t1\n")
    (tmp_path / "c.jsonl").write_text(json.dumps({"text": "x", "label": 0}) + "\n")
    cache = str(tmp_path / "c")
    assert open_dataset(str(tmp_path / "a.csv"), "ignored", cache)["text"] == ["hello", "world"]
    assert open_dataset(str(tmp_path / "b.tsv"), "train", cache)["text"] == ["hi there"]
    assert open_dataset(str(tmp_path / "c.jsonl"), "train", cache)["label"] == [0]
    assert LOCAL_BUILDERS[".jsonl"] == "json"


def test_directory_of_files_and_mixed_kinds(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "1.csv").write_text("v\n1\n")
    (folder / "2.csv").write_text("v\n2\n")
    assert sorted(load_local_dataset(folder, "train", str(tmp_path / "c"))["v"]) == [1, 2]
    (folder / "3.jsonl").write_text('{"v": 3}\n')
    with pytest.raises(HubDatasetError, match=r"parts: expected csv/tsv/parquet/json\(l\)/arrow"):
        load_local_dataset(folder, "train")


def test_saved_dataset_dict_split(tmp_path):
    import datasets

    saved = tmp_path / "saved"
    datasets.DatasetDict(
        {
            "train": datasets.Dataset.from_dict({"v": [1]}),
            "test": datasets.Dataset.from_dict({"v": [2]}),
        }
    ).save_to_disk(str(saved))
    assert open_dataset(str(saved), "test")["v"] == [2]
    with pytest.raises(
        HubDatasetError, match=r"saved: no split 'dev' \(have \['test', 'train'\]\)"
    ):
        open_dataset(str(saved), "dev")


def test_iter_rows_numbers_rows_across_batches(tmp_path):
    import datasets

    ds = datasets.Dataset.from_dict({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    rows = list(iter_rows(ds, batch_size=2))
    assert rows == [(1, {"a": 1, "b": "x"}), (2, {"a": 2, "b": "y"}), (3, {"a": 3, "b": "z"})]


def test_unreadable_file_and_absent_path_and_offline_hub(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(HubDatasetError, match=r"bad.json: cannot read local data"):
        open_dataset(str(bad), "train", str(tmp_path / "c"))
    with pytest.raises(HubDatasetError, match=r"absent.csv: file not found"):
        open_dataset(str(tmp_path / "absent.csv"), "train")
    with pytest.raises(HubDatasetError, match=r"not a Hugging Face Hub id"):
        open_dataset("no-slash-here", "train")
    with pytest.raises(HubDatasetError) as exc:
        open_dataset("owner/surely-absent-dataset", "train", data_files="texts.json")
    message = str(exc.value)
    assert "owner/surely-absent-dataset" in message and "offline" in message
    assert isinstance(exc.value, ValueError)
