"""E2 `source=dir` on real configs: comments are stripped (they may name the flaws) without
changing what the oracle finds, and Helm chart files are skipped with a reason and counted.

The last tests read the deliberately vulnerable projects in ../shared/realdata (TerraGoat,
Kubernetes Goat) and skip cleanly when that folder is absent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from sv_env_config_verification import data_adapter
from sv_env_config_verification.configs import (
    ConfigError,
    ConfigFile,
    same_meaning,
    strip_comments,
)
from sv_env_config_verification.dataset import DatasetError, LoadReport, helm_reason, load_report
from sv_env_config_verification.oracle import scan
from sv_env_config_verification.scan_cache import ScanCache
from sv_shared.data import SourceRequest

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
E2 = REALDATA / "E2_config_verification"

POD = """# This pod is privileged ON PURPOSE: the flaw of this scenario.
apiVersion: v1
kind: Pod
metadata:
  name: debug  # flaw: privileged container
  annotations:
    note: "keep # this"
    link: http://example.com/#anchor
    plain: a#b
spec:
  containers:
    - name: shell # comment after a key
      image: busybox:1.36.1
      args:
        - | # comment after a block indicator
          echo "# not a comment"
          # still the script
      securityContext:
        privileged: true   # the flaw
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        runAsNonRoot: true
      resources:
        limits: {cpu: 100m, memory: 64Mi}  # braces
"""
SG = """# security group is open to the world on SSH
resource "aws_security_group" "ssh" {
  name        = "ssh-#1" // a hash inside a string
  description = "see https://example.com/a#b // not a comment"
  /* the flaw:
     0.0.0.0/0 on port 22 */
  ingress {
    from_port   = 22 # admin port
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"] /* world */
  }
  tags = {
    Name = "${var.env == "#prod" ? "a/*b*/" : "c"}-sg" # nested template strings
  }
}

resource "aws_instance" "web" {
  ami       = "ami-0123456789abcdef0"
  user_data = <<EOF
#! /bin/bash
# heredoc lines are data, not comments
echo "hi" // kept
EOF
}

variable "env" {
  default = "dev"
}
"""
TEMPLATE = """apiVersion: v1
kind: Pod
metadata:
  name: {{ .Values.name }}
spec:
  containers:
    - name: app
      image: "{{ .Values.image }}"
"""
ALERT_STRINGS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: alerts
data:
  summary: "{{ $labels.instance }} is down"
"""


def no_scan(config: ConfigFile) -> list:
    return []


def found(kind: str, name: str, text: str) -> list[tuple[str, str]]:
    return sorted((f.id, f.resource) for f in scan(ConfigFile(kind, name, text)).findings)


def test_yaml_comments_are_stripped_and_strings_kept() -> None:
    out = strip_comments("k8s", POD)
    for gone in ("ON PURPOSE", "flaw", "comment after", "the flaw", "# braces"):
        assert gone not in out
    for kept in ('"keep # this"', "/#anchor", "a#b", 'echo "# not a comment"', "# still the"):
        assert kept in out
    assert "  name: debug\n" in out and "privileged: true\n" in out and "- |\n" in out
    assert out.splitlines()[0] == "apiVersion: v1"
    assert same_meaning("k8s", POD, out) and strip_comments("k8s", out) == out


def test_hcl_comment_styles_are_stripped_and_strings_and_heredocs_kept() -> None:
    out = strip_comments("terraform", SG)
    for gone in ("open to the world", "a hash inside", "the flaw", "0.0.0.0/0 on", "admin port"):
        assert gone not in out
    assert "/* world */" not in out and "nested template" not in out
    for kept in ('"ssh-#1"', "a#b // not a comment", '"#prod"', '"a/*b*/"', "#! /bin/bash"):
        assert kept in out
    assert "# heredoc lines are data" in out and 'echo "hi" // kept' in out
    assert '    cidr_blocks = ["0.0.0.0/0"]\n' in out
    assert same_meaning("terraform", SG, out) and strip_comments("terraform", out) == out


def test_the_oracle_finds_the_same_after_stripping() -> None:
    assert found("k8s", "pod.yaml", POD) == found("k8s", "pod.yaml", strip_comments("k8s", POD))
    assert ("k8s/privileged-container", "Pod/debug") in found("k8s", "pod.yaml", POD)
    stripped = strip_comments("terraform", SG)
    assert found("terraform", "sg.tf", SG) == found("terraform", "sg.tf", stripped)
    assert ("tf/sg-open-admin-port", "aws_security_group.ssh") in found("terraform", "sg.tf", SG)


def test_a_strip_that_would_change_the_meaning_fails_the_file(tmp_path: Path) -> None:
    # a comment ends a keep-chomped (|+) block scalar's trailing blank lines; without it the
    # blank line after it would join the value
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: |+\n    x\n\n# c\n\n"
    assert not same_meaning("k8s", text, strip_comments("k8s", text))
    (tmp_path / "cm.yaml").write_text(text)
    with pytest.raises(DatasetError, match=r"cm\.yaml: stripping its comments would change"):
        load_report("all", "dir", tmp_path, scan=no_scan)
    kept = load_report("all", "dir", tmp_path, scan=no_scan, strip_comments=False)
    assert [item.text for item in kept.items] == [text]


def write_tree(root: Path) -> None:
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: demo\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("name: demo\nimage: nginx:1.25\n")
    (chart / "templates" / "pod.yaml").write_text(TEMPLATE)
    (chart / "templates" / "plain.yaml").write_text(POD)  # under templates/: still a template
    (root / "loose-template.yaml").write_text(TEMPLATE)
    (root / "alerts.yaml").write_text(ALERT_STRINGS)
    (root / "pod.yaml").write_text(POD)
    (root / "sg.tf").write_text(SG)


def test_dir_source_strips_and_reports_helm_files(tmp_path: Path) -> None:
    write_tree(tmp_path)
    report = load_report("all", "dir", tmp_path, scan=no_scan)  # strict: Helm is no error
    by_name = {item.name: item for item in report.items}
    assert sorted(by_name) == ["alerts.yaml", "pod.yaml", "sg.tf"]
    assert by_name["pod.yaml"].text == strip_comments("k8s", POD)
    assert by_name["sg.tf"].text == strip_comments("terraform", SG)
    assert by_name["alerts.yaml"].text == ALERT_STRINGS  # `{{ }}` inside strings is kept
    reasons = dict(report.skipped)
    assert sorted(reasons) == [
        "chart/Chart.yaml",
        "chart/templates/plain.yaml",
        "chart/templates/pod.yaml",
        "chart/values.yaml",
        "loose-template.yaml",
    ]
    assert "metadata (Chart.yaml)" in reasons["chart/Chart.yaml"]
    assert "values file" in reasons["chart/values.yaml"]
    assert "template (under templates/)" in reasons["chart/templates/pod.yaml"]
    assert "Helm template syntax" in reasons["loose-template.yaml"]
    assert "line 4" in reasons["loose-template.yaml"]
    assert all("helm template" in why for why in reasons.values())
    info = report.provenance()
    assert info["helm_templates"] == 5 and info["skipped"] == 5
    assert info["comments_stripped"] == 2 and info["n"] == 3
    raw = load_report("all", "dir", tmp_path, scan=no_scan, strip_comments=False)
    assert {i.name: i.text for i in raw.items}["pod.yaml"] == POD
    assert "comments_stripped" not in raw.provenance()


def test_helm_reason_and_bad_flags(tmp_path: Path) -> None:
    assert helm_reason(tmp_path / "x.yaml", ALERT_STRINGS) is None
    assert helm_reason(tmp_path / "x.yaml", "a: {{ b }}\n")  # does not load as YAML
    assert helm_reason(tmp_path / "x.yaml", "a: 1\n") is None
    (tmp_path / "pod.yaml").write_text(POD)
    with pytest.raises(DatasetError, match="strip_comments: expected true or false"):
        load_report("all", "dir", tmp_path, scan=no_scan, strip_comments="no")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown config kind"):
        strip_comments("helm", "a: 1")  # type: ignore[arg-type]


def test_pipeline_dir_source_strips_and_rejects_helm(tmp_path: Path) -> None:
    write_tree(tmp_path)
    load = data_adapter().sources["dir"]
    data = load(SourceRequest(path=str(tmp_path), options={"tools": "opa"}))
    texts = {row.base_id: row.text for row in data.rows}
    assert texts["pod.yaml"] == strip_comments("k8s", POD) and len(texts) == 3
    assert {where for where, _ in data.rejected} >= {"chart/templates/pod.yaml"}
    options = {"tools": "opa", "strip_comments": "false"}
    kept = load(SourceRequest(path=str(tmp_path), options=options))
    assert {row.base_id: row.text for row in kept.rows}["pod.yaml"] == POD
    with pytest.raises(ValueError, match="option strip_comments='maybe': expected true or false"):
        load(SourceRequest(path=str(tmp_path), options={"strip_comments": "maybe"}))


# ------------------------------------------------------------------------ shared real data
PROJECTS = {"terragoat": (47, 0, 0, 13), "kubernetes_goat": (15, 10, 1, 8)}
"""Per project of the shared copy: files loaded, Helm chart files skipped, other files skipped
(Kubernetes Goat's registry `config.yml` is no manifest: strict=False), comments stripped."""


@dataclass
class Loaded:
    report: LoadReport
    changed: list[str]
    """Files whose oracle result (findings, unmapped tool findings, validity) changes."""


@pytest.fixture(scope="module")
def loaded() -> dict[str, Loaded]:
    if not E2.is_dir():
        pytest.skip(f"real data samples not present at {E2}")
    cache = ScanCache()

    def result(config: ConfigFile) -> tuple:
        r = scan(config, cache=cache)
        return (r.findings, sorted((u.tool, u.rule_id, u.resource) for u in r.unmapped), r.valid)

    out = {}
    for project in PROJECTS:
        root = E2 / project
        if not root.is_dir():
            pytest.skip(f"no {project} copy at {root}")
        report = load_report("all", "dir", root, strict=False, scan=lambda c: result(c)[0])
        changed = [
            item.base_id
            for item in report.items
            if result(ConfigFile(item.kind, item.name, (root / item.base_id).read_text("utf-8")))
            != result(item.config)
        ]
        out[project] = Loaded(report, changed)
    return out


@pytest.mark.realdata
@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_real_projects_load_without_comments(project: str, loaded: dict[str, Loaded]) -> None:
    report = loaded[project].report
    n, helm, other, stripped = PROJECTS[project]
    assert (len(report.items), report.helm_templates, report.comments_stripped) == (
        n,
        helm,
        stripped,
    )
    assert len(report.skipped) == helm + other
    for item in report.items:
        assert strip_comments(item.kind, item.text) == item.text, item.base_id
    texts = {item.base_id: item.text for item in report.items}
    if project == "terragoat":
        assert "bucket is public" not in texts["terraform/aws/s3.tf"]
        assert "#! /bin/bash" in texts["terraform/aws/ec2.tf"]  # heredoc kept
    else:
        assert all(item.findings for item in report.items if "kyverno" not in item.base_id)


@pytest.mark.realdata
@pytest.mark.parametrize("project", sorted(PROJECTS))
def test_real_projects_findings_unchanged_by_stripping(
    project: str, loaded: dict[str, Loaded]
) -> None:
    assert loaded[project].changed == []
