"""`sv data build` end to end on a toy adapter and on E1: files, provenance, checks, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toy_adapter import ToyRow, toy_adapter, toy_rows
from typer.testing import CliRunner

from security_verifiers.cli import app
from security_verifiers.data.build import BuildOptions, build_dataset
from security_verifiers.data.inspect_build import build_stats, validate_build
from security_verifiers.errors import UserError
from sv_shared.data import SourceRequest, grouped_split
from sv_shared.data.store import DatasetStoreError, list_builds, load_built_split, resolve_build

ENV = "sv-env-network-logs"


def build(tmp_path: Path, rows=None, **kwargs) -> Path:
    return build_dataset(
        toy_adapter(rows), BuildOptions(root=tmp_path, date="2026-01-02", **kwargs)
    )


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_build_writes_splits_metadata_card_and_rejections(tmp_path):
    rows = toy_rows(40, 3)
    bad = ToyRow.model_construct(id="bad", text="x", label="good", scenario="s", group="gx")
    bad.__dict__["label"] = None  # invalid against the schema
    dup = rows[0]
    out = build(tmp_path, [*rows, bad, dup])
    assert out == tmp_path / ENV / "2026-01-02"
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["validation"] == {"rows_in": 122, "invalid": 1, "duplicate_ids": 1, "valid": 120}
    assert meta["counts"]["total"] == 120 and meta["contamination"]["clean"]
    assert sum(meta["counts"][s] for s in ("train", "dev", "test")) == 120
    assert 0.6 < meta["counts"]["train"] / 120 < 0.8
    assert meta["sources"][0]["license"] == "CC0-1.0" and meta["versions"]["generator"] == "toy-v1"
    assert meta["splits"]["test"]["sha256"].startswith("sha256:")
    assert meta["row_schema"]["type"] == "ToyRow" and meta["seed"] == 42
    groups = {s: {r["group"] for r in read(out / f"{s}.jsonl")} for s in ("train", "dev", "test")}
    assert not (groups["train"] & groups["test"]) and not (groups["train"] & groups["dev"])
    rejected = read(out / "rejected.jsonl")
    assert {r["stage"] for r in rejected} == {"schema", "source"}
    assert any("label" in r["reason"] for r in rejected)
    card = (out / "README.md").read_text()
    assert "Provenance" in card and "CC0-1.0" in card and "contamination: none" in card
    assert not list(tmp_path.glob(f"{ENV}/.*partial"))


def test_same_day_builds_get_numbered_and_latest_resolves(tmp_path):
    first, second = build(tmp_path), build(tmp_path)
    assert second.name == "2026-01-02.2"
    assert list_builds(ENV, tmp_path) == [first, second]
    assert resolve_build(ENV, "latest", tmp_path) == second
    assert resolve_build(ENV, "2026-01-02", tmp_path) == first
    assert resolve_build(ENV, str(first), tmp_path) == first
    with pytest.raises(DatasetStoreError, match=r"available: 2026-01-02, 2026-01-02\.2"):
        resolve_build(ENV, "1999-01-01", tmp_path)
    with pytest.raises(DatasetStoreError, match="sv data build"):
        resolve_build("sv-env-unknown", "latest", tmp_path)


def test_build_is_deterministic(tmp_path):
    a, b = build(tmp_path / "a"), build(tmp_path / "b")
    for split in ("train", "dev", "test"):
        assert (a / f"{split}.jsonl").read_bytes() == (b / f"{split}.jsonl").read_bytes()


def test_failed_build_leaves_nothing_behind(tmp_path, monkeypatch):
    import security_verifiers.data.build as build_module

    def boom(metadata):
        raise RuntimeError("disk full")

    monkeypatch.setattr(build_module, "dataset_card", boom)
    with pytest.raises(RuntimeError):
        build(tmp_path)
    assert list((tmp_path / ENV).iterdir()) == []


def test_user_mistakes_are_clear_errors(tmp_path):
    adapter = toy_adapter()
    with pytest.raises(UserError, match="unknown source 'nope'; available: toy"):
        build_dataset(adapter, BuildOptions(source="nope", root=tmp_path))
    with pytest.raises(UserError, match="unknown option"):
        build_dataset(
            adapter, BuildOptions(request=SourceRequest(options={"x": "1"}), root=tmp_path)
        )
    with pytest.raises(UserError, match="fractions"):
        build_dataset(adapter, BuildOptions(fractions=(0.5, 0.5, 0.5), root=tmp_path))
    with pytest.raises(UserError, match="no valid rows"):
        build_dataset(toy_adapter([]), BuildOptions(root=tmp_path))


def test_load_built_split_checks_hashes(tmp_path):
    out = build(tmp_path)
    test = load_built_split(ENV, "latest", "test", ToyRow.model_validate, tmp_path)
    assert test.info["build"] == out.name and test.info["n"] == len(test.rows) > 0
    every = load_built_split(ENV, str(out), "all", ToyRow.model_validate, tmp_path)
    assert every.info["n"] == 120
    with (out / "test.jsonl").open("a") as handle:
        handle.write(json.dumps(read(out / "train.jsonl")[0]) + "\n")
    with pytest.raises(DatasetStoreError, match="content changed since it was built"):
        load_built_split(ENV, str(out), "test", ToyRow.model_validate, tmp_path)
    with pytest.raises(DatasetStoreError, match="unknown split"):
        load_built_split(ENV, str(out), "validation", ToyRow.model_validate, tmp_path)


def test_grouped_split_is_order_independent_and_keeps_groups_whole():
    rows = toy_rows(60, 2)
    kwargs = {"group": lambda r: r.group, "stratum": lambda r: (r.label, r.scenario), "seed": 3}
    first = grouped_split(rows, **kwargs)
    second = grouped_split(list(reversed(rows)), **kwargs)
    assert {k: {r.id for r in v} for k, v in first.items()} == {
        k: {r.id for r in v} for k, v in second.items()
    }
    owner = {r.group: name for name, part in first.items() for r in part}
    assert all(owner[r.group] == name for name, part in first.items() for r in part)
    with pytest.raises(ValueError, match="fractions"):
        grouped_split(rows, group=lambda r: r.group, stratum=lambda r: r.label, fractions=(1, 1, 1))


def test_e1_build_validate_stats_and_load_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("SV_DATASETS_DIR", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(app, ["data", "build", "e1", "--option", "size=400", "--seed", "7"])
    assert result.exit_code == 0, result.output
    out = Path(result.stdout.strip().splitlines()[-1])
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["env_id"] == ENV and meta["contamination"]["clean"]
    assert meta["sources"][0]["revision"] == "synthetic-v3" and meta["versions"]["verifier"]
    assert validate_build(out).ok
    stats = build_stats(out)
    assert set(stats["splits"]) == {"train", "dev", "test"}
    assert stats["splits"]["train"]["labels"].keys() >= {"Benign", "Malicious"}
    assert runner.invoke(app, ["data", "validate", str(out)]).exit_code == 0
    assert runner.invoke(app, ["data", "stats", "latest", "--env", "e1", "--json"]).exit_code == 0
    import verifiers as vf

    env = vf.load_environment(ENV, dataset="latest")
    assert env.sv_dataset_info["source"] == "dataset"
    assert env.sv_dataset_info["n"] == meta["counts"]["test"]
    rows = read(out / "test.jsonl")
    assert env.get_eval_dataset()[0]["info"]["id"] == rows[0]["id"]


def test_validate_reports_tampering_and_leaks(tmp_path):
    out = build(tmp_path)
    assert validate_build(out, toy_adapter()).ok
    assert build_stats(out, toy_adapter())["splits"]["test"]["labels"].keys() == {"good", "bad"}
    leaked = read(out / "train.jsonl")[0]
    with (out / "test.jsonl").open("a") as handle:
        handle.write(json.dumps(leaked) + "\n")
    check = validate_build(out, toy_adapter())
    problems = "\n".join(check.problems)
    assert "sha256 differs" in problems and "appears in train and test" in problems
    assert "groups span both splits" in problems and "exact" in problems


def test_bad_references_exit_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setenv("SV_DATASETS_DIR", str(tmp_path))
    from security_verifiers.cli import main

    monkeypatch.setattr("sys.argv", ["sv", "data", "stats", str(tmp_path / "nowhere")])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    from sv_env_network_logs import load_environment

    with pytest.raises(ValueError, match="no built dataset for sv-env-network-logs"):
        load_environment(dataset="latest")
