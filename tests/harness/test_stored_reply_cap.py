"""A huge reply is scored whole but stored cut: results.jsonl keeps STORED_TEXT_CAP_CHARS of it,
its full length and SHA-256, and the cap is in the run metadata.

`sv eval` runs in this process (`sv_main`: `security_verifiers.cli.main`), which saves an
interpreter start."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.evaluation.stored_text import STORED_TEXT_CAP_CHARS, cap_stored_text
from security_verifiers.serving import PolicyServer, serve_in_thread

N = 4
PADDING = 3_000_000  # characters before the answer: far past the cap


def test_a_multi_megabyte_reply_is_scored_whole_and_stored_cut(sv_main, tmp_path: Path) -> None:
    heuristic = baseline_policies(resolve_env("e1"))["heuristic"]
    replies: list[str] = []

    def padded(request):  # the answer comes after 3 MB: only a whole-reply parse finds it
        reply = " " * PADDING + heuristic(request)
        replies.append(reply)
        return reply

    with serve_in_thread(PolicyServer(padded, "m")) as base_url:
        result = sv_main("eval", "e1", "--models", f"m@{base_url}", "-n", str(N),
                         "--output-dir", str(tmp_path), "--quiet",
                         env={"SV_NO_DOTENV": "1"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    [run_dir] = list(tmp_path.glob("*/*/"))
    results = run_dir / "results.jsonl"
    assert results.stat().st_size < N * (STORED_TEXT_CAP_CHARS + 4096)  # not N * 3 MB
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    by_sha = {hashlib.sha256(r.encode()).hexdigest(): r for r in replies}
    assert len(rows) == N
    for row in rows:
        assert row["completion_truncated"] is True
        full = by_sha[row["completion_sha256"]]
        assert row["completion_chars"] == len(full) > PADDING
        assert row["completion"] == full[:STORED_TEXT_CAP_CHARS]
        assert row["parsed"] is not None and row["rewards"]["format"] == 1.0  # scored whole
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["stored_reply_cap_chars"] == STORED_TEXT_CAP_CHARS


def test_rows_within_the_cap_are_unchanged_and_long_state_is_cut() -> None:
    small = {"completion": "ok", "parsed": {"label": "Benign"}, "transcript": [{"c": "hi"}]}
    assert cap_stored_text(dict(small), ["transcript"]) == small
    long = "x" * (STORED_TEXT_CAP_CHARS + 10)
    row = cap_stored_text(
        {
            "completion": "short",
            "parsed": {"explanation": long, "confidence": 0.5},
            "transcript": [{"role": "assistant", "content": long}, {"content": "kept"}],
            "turns": 3,
        },
        ["transcript", "turns"],
    )
    assert "completion_truncated" not in row and row["completion"] == "short"
    assert row["truncated_fields"] == ["parsed", "transcript"]
    assert len(row["parsed"]["explanation"]) == STORED_TEXT_CAP_CHARS
    assert row["parsed"]["confidence"] == 0.5 and row["turns"] == 3
    assert len(row["transcript"][0]["content"]) == STORED_TEXT_CAP_CHARS
    assert row["transcript"][1] == {"content": "kept"}
