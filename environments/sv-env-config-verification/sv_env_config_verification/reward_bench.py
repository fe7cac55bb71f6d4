"""E2's reward micro-benchmark: the cost of one full E2 reward computation.

`make bench` runs it through the spec's `reward_bench` hook; alone:
`python -m sv_env_config_verification.reward_bench`.

One computation = parse the answer, apply its patch, check preservation, re-scan the patched
config with every tool and score it; the original config's scan is cached (it comes with the
episode). Measured in-process (the reward path used in training and evaluation) and with the
same tools run as command-line subprocesses (checkov CLI, semgrep's Python CLI; OPA has no
CLI here, so the Rego pack stays in-process on both sides — said in the output).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sv_env_config_verification.baselines import tool_oracle_fix
from sv_env_config_verification.canonical import TOOL_RULES
from sv_env_config_verification.configs import ConfigFile
from sv_env_config_verification.dataset import load_items
from sv_env_config_verification.oracle import DEFAULT_CACHE, scan
from sv_env_config_verification.patching import apply_patch
from sv_env_config_verification.prompts import render_config
from sv_env_config_verification.reward import AuditWeights
from sv_env_config_verification.scoring import AuditParser, score_episode
from sv_env_config_verification.tools import get_tool
from sv_env_config_verification.tools.semgrep_tool import RULE_FILES, RULES_DIR


def _episodes(count: int) -> list[tuple[dict, str]]:
    items = [item for item in load_items("test") if item.fix_patch][:count]
    episodes = []
    for item in items:
        info = {"id": item.id, "kind": item.kind, "name": item.name, "text": item.text,
                "findings": item.findings}  # fmt: skip
        episodes.append((info, tool_oracle_fix(render_config(item.name, item.kind, item.text))))
    return episodes


def _in_process(info: dict, reply: str, parser: AuditParser) -> float:
    DEFAULT_CACHE.clear()  # the patched config must really be re-scanned
    start = time.perf_counter()
    score_episode(parser.parse(reply), info, AuditWeights())
    return time.perf_counter() - start


def _run_cli(command: list[str]) -> None:
    """Run one tool CLI; exit codes 0/1 mean "no findings" / "findings", anything else fails."""
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{command[0]} exited {proc.returncode}: {proc.stderr[-500:]}")


def _cli(info: dict, reply: str, parser: AuditParser, semgrep: Path) -> float:
    start = time.perf_counter()
    answer = parser.parse(reply).answer
    assert answer is not None
    outcome = apply_patch(ConfigFile(info["kind"], info["name"], info["text"]), answer.patch)
    assert outcome.patched is not None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / info["name"]
        path.write_text(outcome.patched.text)
        framework = "kubernetes" if info["kind"] == "k8s" else "terraform"
        checks = ",".join(sorted(TOOL_RULES["checkov"]))
        checkov = Path(sys.executable).with_name("checkov")
        _run_cli([str(checkov), "-f", str(path), "--framework", framework, "-o", "json",
                  "--check", checks, "--quiet"])  # fmt: skip
        rules = RULES_DIR / RULE_FILES[info["kind"]]
        _run_cli([str(semgrep), "--metrics=off", "--disable-version-check", "--json",
                  "--config", str(rules), str(path)])  # fmt: skip
        scan(outcome.patched, tools=("opa",), cache=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--cli-episodes", type=int, default=3)
    args = parser.parse_args(argv)
    core = get_tool("semgrep").engine.located[0]
    if core is None:
        raise SystemExit(f"semgrep is not installed: {get_tool('semgrep').unavailable_reason()}")
    semgrep = core.parents[5] / "bin" / "semgrep"  # <venv>/lib/pythonX/site-packages/semgrep/bin
    audit = AuditParser()
    episodes = _episodes(args.episodes)
    _in_process(*episodes[0], audit)  # warm-up: imports, compiled policies
    fast = [_in_process(info, reply, audit) for info, reply in episodes]
    slow = [_cli(info, reply, audit, semgrep) for info, reply in episodes[: args.cli_episodes]]
    table = Table(title="E2: one full reward computation (apply patch + re-scan + score)")
    for column in ("path", "episodes", "median s", "ratio"):
        table.add_column(column, justify="right")
    fast_median, slow_median = statistics.median(fast), statistics.median(slow)
    table.add_row("in-process (opa, checkov, osemgrep)", str(len(fast)), f"{fast_median:.3f}",
                  "1.00×")  # fmt: skip
    table.add_row("CLI subprocesses (checkov, semgrep)", str(len(slow)),
                  f"{slow_median:.3f}", f"{slow_median / fast_median:.1f}×")  # fmt: skip
    Console(width=120).print(table)
    print("OPA has no CLI on this machine; the Rego pack runs in-process on both paths.")
    print(json.dumps({"in_process_median_s": fast_median, "cli_median_s": slow_median}))


if __name__ == "__main__":
    main()
