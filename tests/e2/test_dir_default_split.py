"""E2 on your own configs (`source=dir` / `source=hf`) evaluates every row by default, as E1 and
E4 file sources do; `split=` still picks one split, and the built-in data keeps its test split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sv_env_config_verification import dataset
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.environment import load_environment

N_FILES = 24

POD = """apiVersion: v1
kind: Pod
metadata:
  name: app-{i}
spec:
  containers:
    - name: app
      image: busybox:1.36
"""


def no_scan(config: ConfigFile) -> list:
    return []


@pytest.fixture
def manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of N_FILES pods; labeling is stubbed (the split logic is under test)."""
    monkeypatch.setattr(dataset, "_scanner", lambda scan=None, cache_dir=None: no_scan)
    folder = tmp_path / "manifests"
    folder.mkdir()
    for i in range(N_FILES):
        (folder / f"pod-{i:02d}.yaml").write_text(POD.format(i=i))
    return folder


def eval_keys(env) -> list[str]:
    return [row["info"]["id"] for row in env.get_eval_dataset()]


def test_dir_source_defaults_to_every_file(manifests: Path) -> None:
    env = load_environment(source="dir", path=str(manifests), warm_up=False)
    assert len(env.get_eval_dataset()) == N_FILES
    assert env.sv_dataset_info["split"] == "all" and env.sv_dataset_info["n"] == N_FILES


def test_explicit_split_still_selects_one(manifests: Path) -> None:
    every = load_environment(source="dir", path=str(manifests), warm_up=False)
    test = load_environment(source="dir", path=str(manifests), split="test", warm_up=False)
    expected = dataset.load_items("test", source="dir", path=manifests, scan=no_scan)
    assert 0 < len(expected) < N_FILES  # the grouped split leaves some files out
    assert len(test.get_eval_dataset()) == len(expected)
    assert set(eval_keys(test)) < set(eval_keys(every))
    assert test.sv_dataset_info["split"] == "test"


def test_hf_source_defaults_to_every_row(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(dataset, "_scanner", lambda scan=None, cache_dir=None: no_scan)
    data = tmp_path / "configs.jsonl"
    rows = [{"path": f"pod-{i}.yaml", "content": POD.format(i=i)} for i in range(N_FILES)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    env = load_environment(source="hf", path=str(data), warm_up=False)
    assert len(env.get_eval_dataset()) == N_FILES and env.sv_dataset_info["split"] == "all"


def test_builtin_data_keeps_the_test_split(monkeypatch) -> None:
    seen: list[str] = []

    def fake_report(split, source, path, **options):
        seen.append(split)
        raise dataset.DatasetError("stop here")

    monkeypatch.setattr("sv_env_config_verification.environment.load_report", fake_report)
    with pytest.raises(dataset.DatasetError):
        load_environment(warm_up=False)
    assert seen == ["test"]
