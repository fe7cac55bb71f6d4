"""E2 datasets: grouped deterministic splits, oracle labels, and the dir / Hugging Face loaders."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from sv_env_config_verification.configs import MAX_CONFIG_BYTES, ConfigFile
from sv_env_config_verification.dataset import (
    SPLITS,
    DatasetError,
    agreement_report,
    base_splits,
    build_items,
    content_hash,
    load_bases,
    load_items,
)
from sv_env_config_verification.mutations import supported_ids
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.patching import apply_patch

PRIVILEGED_POD = """apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  containers:
  - name: shell
    image: busybox:1.36.1
    securityContext:
      privileged: true
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      runAsNonRoot: true
    resources:
      limits: {cpu: 100m, memory: 64Mi}
"""
OPEN_SG = """resource "aws_security_group" "ssh" {
  name = "ssh"
  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }
}
"""
KEY_OK = 'resource "aws_kms_key" "k" {\n  enable_key_rotation = true\n}\n'


def no_scan(config: ConfigFile) -> list:
    return []


class CountingScan:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, config: ConfigFile) -> list:
        self.seen.append(config.name)
        return [{"id": "x", "severity": "low", "resource": "r", "tools": ("t",)}]


# ------------------------------------------------------------------------ built-in
def test_splits_are_grouped_by_base_and_cover_every_id() -> None:
    items = build_items(n=300, scan=no_scan)
    split_of: dict[str, set[str]] = defaultdict(set)
    for item in items:
        split_of[item.base_id].add(item.split)
    assert all(len(splits) == 1 for splits in split_of.values())
    assert {item.split for item in items} == set(SPLITS)
    assignment = base_splits()
    assert set(assignment) == set(load_bases())
    bases = load_bases()
    everything = set().union(*(supported_ids(cfg) for cfg in bases.values()))
    for split in SPLITS:
        members = [b for b, s in assignment.items() if s == split]
        assert {bases[b].kind for b in members} == {"k8s", "terraform"}
        assert set().union(*(supported_ids(bases[b]) for b in members)) == everything, split
    counts = Counter(item.split for item in items)
    assert counts["train"] > counts["dev"] > 0 and counts["test"] > 0


def test_build_is_deterministic_and_mixed() -> None:
    first = build_items(seed=5, n=120, scan=no_scan)
    again = build_items(seed=5, n=120, scan=no_scan)
    other = build_items(seed=6, n=120, scan=no_scan)
    assert first == again and content_hash(first) == content_hash(again)
    assert content_hash(first) != content_hash(other)
    assert len({item.id for item in first}) == 120
    sizes = Counter(len(item.injected) for item in first)
    assert set(sizes) == {0, 1, 2, 3}
    assert 0.15 <= sizes[0] / 120 <= 0.35
    mutated_texts = [item.text for item in first if item.injected]
    assert len(mutated_texts) == len(set(mutated_texts))
    for item in first:
        assert (item.fix_patch == "") == (not item.injected)
        assert len(item.mutated_resources) == len(item.injected)


def test_load_items_filters_and_scans_only_what_it_returns() -> None:
    counting = CountingScan()
    dev = load_items("dev", max_examples=5, n=200, scan=counting)
    assert len(dev) == 5 and len(counting.seen) <= 5
    assert all(item.split == "dev" for item in dev)
    assert dev[0].findings == [{"id": "x", "severity": "low", "resource": "r", "tools": ["t"]}]
    everything = load_items("all", n=200, scan=no_scan)
    assert len(everything) == 200
    with pytest.raises(DatasetError, match="unknown split"):
        load_items("validation")
    with pytest.raises(DatasetError, match="unknown source"):
        load_items("test", source="s3")
    with pytest.raises(DatasetError, match="needs path"):
        load_items("test", source="dir")


def test_labels_come_from_the_oracle_and_fixes_restore_the_base() -> None:
    items = build_items(seed=99, n=36)
    report = agreement_report(items)
    assert report["items"] == 36
    assert report["missed"] == {}, report  # every injected misconfiguration is found
    bases = load_bases()
    for item in items:
        assert item.findings == sorted(item.findings, key=lambda f: (f["id"], f["resource"]))
        if not item.injected:
            assert item.findings == [] and item.text == bases[item.base_id].text
            continue
        assert set(item.finding_ids) >= set(item.injected)
        outcome = apply_patch(item.config, item.fix_patch)
        assert outcome.ok and outcome.patched is not None, (item.id, outcome.reason)
        assert outcome.patched.text == bases[item.base_id].text
        assert scan(outcome.patched).findings == scan(bases[item.base_id]).findings == ()


# ------------------------------------------------------------------------ directory source
def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_dir_source_labels_files_with_the_oracle(tmp_path: Path) -> None:
    write(tmp_path / "apps" / "debug pod.yaml", PRIVILEGED_POD)
    write(tmp_path / "net.tf", OPEN_SG)
    write(tmp_path / "README.md", "not a config")
    items = load_items("all", source="dir", path=tmp_path)
    by_name = {item.name: item for item in items}
    assert set(by_name) == {"debug_pod.yaml", "net.tf"}
    assert by_name["debug_pod.yaml"].finding_ids == ["k8s/privileged-container"]
    assert by_name["debug_pod.yaml"].base_id == "apps/debug pod.yaml"
    assert by_name["net.tf"].finding_ids == ["tf/sg-open-admin-port"]
    assert all(item.source == "dir" and item.injected == [] for item in items)
    shallow = load_items("all", source="dir", path=tmp_path, recursive=False, scan=no_scan)
    assert [item.name for item in shallow] == ["net.tf"]
    split = {item.split for item in load_items("all", source="dir", path=tmp_path, scan=no_scan)}
    assert split <= set(SPLITS)


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [\n", "invalid YAML"),
        ("bad.tf", 'resource "aws_kms_key" "k" {\n  enable_key_rotation = \n', "invalid HCL"),
        ("list.yaml", "- a\n- b\n", "not a Kubernetes object"),
        ("huge.tf", KEY_OK + "# " + "x" * MAX_CONFIG_BYTES + "\n", "limit"),
        ("blob.yaml", b"\x89PNG\r\n\x1a\n\x00\x00binary", "binary"),
        ("latin1.tf", "# caf\xe9\n".encode("latin-1") + KEY_OK.encode(), "not UTF-8"),
        ("empty.yaml", "   \n", "empty"),
    ],
)
def test_dir_source_errors_name_the_file(tmp_path: Path, name: str, content, fragment: str) -> None:
    write(tmp_path / "ok.tf", KEY_OK)
    write(tmp_path / "sub" / name, content)
    with pytest.raises(DatasetError) as err:
        load_items("all", source="dir", path=tmp_path, scan=no_scan)
    assert f"sub/{name}" in str(err.value) and fragment in str(err.value)
    kept = load_items("all", source="dir", path=tmp_path, strict=False, scan=no_scan)
    assert [item.name for item in kept] == ["ok.tf"]


def test_dir_source_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a directory"):
        load_items("all", source="dir", path=tmp_path / "nope")
    with pytest.raises(DatasetError, match=r"no \.yaml"):
        load_items("all", source="dir", path=tmp_path)


# ------------------------------------------------------------------------ Hugging Face source
def test_hf_source_jsonl_with_content_and_path(tmp_path: Path) -> None:
    rows = [
        {"content": PRIVILEGED_POD, "path": "k8s/debug.yaml"},
        {"content": OPEN_SG, "path": "infra/main.tf"},
        {"content": KEY_OK, "path": "keys.hcl.txt", "kind": "terraform"},
    ]
    data = write(tmp_path / "configs.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    items = load_items("all", source="hf", path=data)
    assert [item.name for item in items] == ["debug.yaml", "main.tf", "keys.hcl.txt.tf"]
    assert [item.finding_ids for item in items] == [
        ["k8s/privileged-container"],
        ["tf/sg-open-admin-port"],
        [],
    ]
    assert {item.source for item in items} == {"hf"}
    assert items[0].base_id == "k8s/debug.yaml"


def test_hf_source_csv_text_column_and_sniffed_kind(tmp_path: Path) -> None:
    import csv

    data = tmp_path / "configs.csv"
    with data.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "filename"])
        writer.writerow([PRIVILEGED_POD, ""])
        writer.writerow([KEY_OK, "x"])
    items = load_items("all", source="hf", path=data, scan=no_scan)
    assert [item.kind for item in items] == ["k8s", "terraform"]
    renamed = load_items(
        "all", source="hf", path=data, columns={"text": "text", "name": "filename"}, scan=no_scan
    )
    assert len(renamed) == 2


def test_hf_source_errors(tmp_path: Path) -> None:
    no_text = write(tmp_path / "a.jsonl", json.dumps({"body": KEY_OK}) + "\n")
    with pytest.raises(DatasetError, match="no config text column"):
        load_items("all", source="hf", path=no_text)
    bad = write(tmp_path / "b.jsonl", json.dumps({"content": "resource {", "path": "x.tf"}) + "\n")
    with pytest.raises(DatasetError, match=r"row 1 \(x.tf\).*invalid HCL"):
        load_items("all", source="hf", path=bad, scan=no_scan)
    unknown = write(tmp_path / "c.jsonl", json.dumps({"content": KEY_OK, "kind": "ansible"}) + "\n")
    with pytest.raises(DatasetError, match="unknown kind"):
        load_items("all", source="hf", path=unknown, scan=no_scan)
    prose = write(tmp_path / "d.jsonl", json.dumps({"content": "hello world"}) + "\n")
    with pytest.raises(DatasetError, match="cannot tell"):
        load_items("all", source="hf", path=prose, scan=no_scan)
    with pytest.raises(DatasetError, match="cannot load"):
        load_items("all", source="hf", path="some-org/some-configs")
