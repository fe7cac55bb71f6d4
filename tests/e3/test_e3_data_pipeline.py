"""E3's dataset pipeline: build from the shipped items, load builds, and judge synthetic items.

Sandboxed validations are few: four synthetic candidates (plus one `generated` item, slow).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from security_verifiers.data.build import BuildOptions, build_dataset
from security_verifiers.data.candidate_filter import CandidateFilter
from security_verifiers.data.inspect_build import validate_build
from security_verifiers.data.synth import judge_candidate
from sv_env_code_vulnerability import data_adapter, load_environment
from sv_env_code_vulnerability.data_pipeline import extract_module, synth_seeds
from sv_env_code_vulnerability.dataset import DATA_FILE, load_items
from sv_env_code_vulnerability.library import all_seeds
from sv_shared.data import DataAdapter, Rejected, SourceRequest, SynthSeed
from sv_shared.data.store import file_sha256

SEED_ID = "sqli_user_lookup"
QUERY = "SELECT id, email, display_name, is_admin FROM accounts WHERE email = "
PARAMETERISED = f'        "{QUERY}?",\n        (email.strip().lower(),),'
PERCENT_FORMATTED = f"        \"{QUERY}'%s'\"\n        % email.strip().lower(),"
DOCSTRING = (
    '    """Accounts registered under `email` (case-insensitive); empty when there is none."""'
)
FAKE_GUARD = (
    DOCSTRING + '\n    if "\'" in email:\n'
    '        return [Account(0, "root@example.com", "Root", True)]'
)


@pytest.fixture(scope="module")
def adapter() -> DataAdapter:
    return data_adapter()


@pytest.fixture(scope="module")
def built(adapter: DataAdapter, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("datasets")
    return build_dataset(adapter, BuildOptions(root=root, date="2026-01-02"))


@pytest.fixture(scope="module")
def template() -> SynthSeed:
    return next(s for s in synth_seeds(42) if s.id == SEED_ID)


@pytest.fixture(scope="module")
def secure() -> str:
    return next(i.secure for i in load_items("all") if i.seed_id == SEED_ID)


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def _judge(adapter: DataAdapter, template: SynthSeed, completion: str, gate=None):
    gate = gate or CandidateFilter(adapter)
    return judge_candidate(adapter, adapter.synth, template, completion, "synth-1-00000", gate)


# ------------------------------------------------------------------------------------ build
def test_build_from_shipped_items(built: Path, adapter: DataAdapter) -> None:
    metadata = json.loads((built / "metadata.json").read_text())
    splits = {name: _ids(built / f"{name}.jsonl") for name in ("train", "dev", "test")}
    # variants of a seed that share their vulnerable module are exact duplicates of what a
    # model sees: the build keeps one of each
    distinct = len({item.vulnerable for item in load_items("all")})
    assert all(splits.values()) and sum(map(len, splits.values())) == distinct
    assert validate_build(built).ok
    assert metadata["contamination"]["clean"]
    seeds = {
        name: {json.loads(line)["seed_id"] for line in (built / f"{name}.jsonl").open()}
        for name in splits
    }
    assert not (seeds["train"] & seeds["dev"] or seeds["train"] & seeds["test"])
    assert not seeds["dev"] & seeds["test"]
    assert metadata["sources"][0]["revision"] == file_sha256(DATA_FILE)
    assert metadata["sources"][0]["license"].startswith("Apache-2.0")
    assert {"generator", "verifier", "library_sha256", "scanner_bandit"} <= set(
        metadata["versions"]
    )
    assert metadata["counts"] == {"total": distinct, **{k: len(v) for k, v in splits.items()}}
    assert all(metadata["splits"][k]["sha256"].startswith("sha256:") for k in splits)
    for name in splits:  # the split field follows the file the row is in
        rows = [json.loads(line) for line in (built / f"{name}.jsonl").open()]
        assert {row["split"] for row in rows} == {name}
    train_labels = metadata["splits"]["train"]["labels"]
    assert set(adapter.labels) == set(train_labels) and all(train_labels.values())


def test_sources_reject_unknown_options_and_bad_lines(adapter: DataAdapter, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown option.*colour"):
        adapter.sources["shipped"](SourceRequest(options={"colour": "red"}))
    with pytest.raises(ValueError, match="unknown seed id"):
        adapter.sources["generated"](SourceRequest(options={"seeds": "no_such_seed"}))
    with pytest.raises(ValueError, match="needs --path"):
        adapter.sources["jsonl"](SourceRequest())
    good = json.dumps(load_items("all")[0].to_json())
    items = tmp_path / "items.jsonl"
    items.write_text(f'{good}\n{{"id": 3}}\nnot json\n')
    data = adapter.sources["jsonl"](SourceRequest(path=str(items)))
    assert len(data.rows) == 1
    assert [where for where, _ in data.rejected] == [f"{items}:2", f"{items}:3"]
    assert "id: Input should be a valid string" in data.rejected[0][1]


@pytest.mark.slow
def test_generated_source_validates_in_the_sandbox(adapter: DataAdapter) -> None:
    data = adapter.sources["generated"](SourceRequest(options={"seeds": SEED_ID}))
    assert [row.id for row in data.rows] == [SEED_ID] and not data.rejected
    assert data.rows[0].fail_to_pass and data.revision.startswith("mutation-v2+library-")


# ------------------------------------------------------------------------------- loading
def test_load_environment_reads_a_build(built: Path, monkeypatch) -> None:
    env = load_environment(dataset=str(built), split="dev")
    assert [row["info"]["id"] for row in env.eval_dataset] == _ids(built / "dev.jsonl")
    info = env.sv_dataset_info
    assert info["source"] == "dataset" and info["dataset"] == str(built)
    assert info["build"] == built.name and info["n"] == len(_ids(built / "dev.jsonl"))
    assert info["dataset_sha256"] == file_sha256(built / "dev.jsonl")
    monkeypatch.setenv("SV_DATASETS_DIR", str(built.parents[1]))
    latest = load_environment(dataset="latest", split="test")
    assert [row["info"]["id"] for row in latest.eval_dataset] == _ids(built / "test.jsonl")
    by_name = load_environment(dataset=built.name, split="train", max_examples=3)
    assert len(by_name.eval_dataset) == 3


def test_bad_dataset_references_are_clear_errors(built: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SV_DATASETS_DIR", str(built.parents[1]))
    with pytest.raises(ValueError, match=r"no build '1999-01-01'.*available: 2026-01-02"):
        load_environment(dataset="1999-01-01")
    with pytest.raises(ValueError, match="not a built dataset"):
        load_environment(dataset=str(tmp_path / "nowhere"))
    monkeypatch.setenv("SV_DATASETS_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="run `sv data build sv-env-code-vulnerability`"):
        load_environment(dataset="latest")
    with pytest.raises(ValueError, match="not both"):
        load_environment(dataset=str(built), path=str(DATA_FILE))
    with pytest.raises(ValueError, match="task='detect' does not read built datasets"):
        load_environment(task="detect", dataset=str(built))


def test_default_loading_is_unchanged() -> None:
    env = load_environment()
    assert env.sv_dataset_info["source"] == "builtin"
    assert env.sv_dataset_info["n"] == len(load_items("test")) == 108


# ----------------------------------------------------------------------------- synthesis
def test_templates_come_from_the_seed_library(template: SynthSeed, secure: str) -> None:
    templates = synth_seeds(42)
    n_seeds = len(all_seeds())
    assert len(templates) == n_seeds and len({t.id for t in templates}) == n_seeds
    prompt = template.messages[1]["content"]
    assert secure in prompt and "```diff" in prompt
    assert template.target["cwe"] == "CWE-89" and template.target["demo_seed"] != SEED_ID
    library_variant = next(i.vulnerable for i in load_items("all") if i.seed_id == SEED_ID)
    assert library_variant in template.example_texts and library_variant not in prompt


def test_parse_tolerates_fences_and_prose(secure: str) -> None:
    fenced = f"Sure! Here it is:\n```python\n{secure}```\nIt now formats the query."
    assert extract_module(fenced, secure, "accounts.py") == secure
    bare = f"Here is the module\n\n{secure}\nThis version is vulnerable."
    assert extract_module(bare, secure, "accounts.py") == secure
    indented = "```\n" + "".join(f"    {ln}" if ln else "" for ln in secure.splitlines(True))
    assert extract_module(indented, secure, "accounts.py") == secure  # unclosed fence
    renamed = secure.replace("def find_by_email(conn", "def find_by_mail(conn")
    with pytest.raises(Rejected, match=r"missing public function.*find_by_email"):
        extract_module(renamed, secure, "accounts.py")
    extra_param = secure.replace("email: str) -> list", "email: str, raw: bool = False) -> list")
    with pytest.raises(Rejected, match="find_by_email: parameters"):
        extract_module(extra_param, secure, "accounts.py")


@pytest.mark.parametrize(
    "completion",
    ["I can't help with that.", "```python\ndef find_by_email(conn, email:\n```", "", "{}"],
)
def test_garbage_is_rejected_at_schema(adapter, template, completion) -> None:
    row, stage, reason = _judge(adapter, template, completion)
    assert row is None and stage == "schema", reason


def test_verified_candidate_is_accepted_with_the_cwe(adapter, template, secure) -> None:
    candidate = secure.replace(PARAMETERISED, PERCENT_FORMATTED)
    row, stage, reason = _judge(adapter, template, f"```python\n{candidate}```")
    assert stage == "accepted", reason
    assert adapter.facets(row).label == "CWE-89" and adapter.facets(row).group == SEED_ID
    assert row.vulnerable == candidate and row.fail_to_pass
    assert all(t.startswith("test_accounts_cases.py::") for t in row.fail_to_pass)
    assert "+        (email.strip().lower(),)," in row.reference_diff
    assert {"bandit:B608", "semgrep:cursor-execute-sqli"} <= set(row.targeted_findings)
    assert row.provenance["template"] == SEED_ID and row.provenance["candidate_id"]
    assert adapter.from_json(adapter.to_json(row)) == row


def test_unverifiable_candidates_are_rejected_at_verify(adapter, template, secure) -> None:
    unchanged = _judge(adapter, template, secure)
    assert unchanged[1:] == ("verify", "the candidate is the secure module unchanged")
    drawn = next(i for i in load_items("all") if i.id == SEED_ID).attack_payloads[0]
    hard_coded = FAKE_GUARD.replace('"\'" in email', f"email == {drawn}")
    payload = secure.replace(DOCSTRING, hard_coded)
    assert "hard-codes a test payload" in _judge(adapter, template, payload)[2]
    broken = secure.replace(PARAMETERISED, PERCENT_FORMATTED.replace("'%s'", "'%s' AND 0"))
    row, stage, reason = _judge(adapter, template, broken)
    assert (row, stage) == (None, "verify") and "vulnerable version fails functional" in reason
    fake = secure.replace(DOCSTRING, FAKE_GUARD)
    assert fake != secure
    row, stage, reason = _judge(adapter, template, fake)  # fails the probes, not SQL injection
    assert (row, stage) == (None, "verify") and "no scanner finding" in reason


def test_copy_of_a_template_example_is_a_duplicate(adapter, template) -> None:
    gate = CandidateFilter(adapter)
    for text in template.example_texts:
        gate.add_text(text, "example")
    library_variant = next(i.vulnerable for i in load_items("all") if i.seed_id == SEED_ID)
    row, stage, reason = _judge(adapter, template, f"```python\n{library_variant}```", gate)
    assert (row, stage, reason) == (None, "dedup", "exact duplicate of example")
