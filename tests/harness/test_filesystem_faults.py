"""Filesystem faults (full disk, read-only or wrong-kind output folders) end an eval in one line
saying what is saved and how to resume, leave no temporary files, and a rerun resumes.

The faults are simulated around an in-process `sv` run (`sv_main`: `security_verifiers.cli.main`
in this process; the writes are patched for that one command, then restored): the tests run as
root, where chmod cannot make a folder read-only, and mounting a read-only or full filesystem
needs privileges the test machine may not have.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pathlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import sv_shared.rollout_logging as rollout_logging
from security_verifiers.environments import baseline_policies, resolve_env
from security_verifiers.evaluation import run_store
from security_verifiers.evaluation.run_store import RunStore, write_json_atomic
from security_verifiers.serving import PolicyServer, serve_in_thread

N = 12


def no_space() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@contextlib.contextmanager
def simulated(fault: dict | None) -> Iterator[None]:
    """The writes of the block fail as `fault` says; everything is restored after it."""
    with pytest.MonkeyPatch.context() as patch:
        if fault is not None and fault["kind"] == "read-only":
            read_only(patch, os.path.realpath(fault["dir"]), fault["errno"])
        if fault is not None and fault["kind"] == "full-after":
            full_after(patch, fault["lines"])
        if fault is not None and fault["kind"] == "summary-full":
            summary_full(patch)
        yield


def read_only(patch: pytest.MonkeyPatch, root: str, code: int) -> None:
    """Creating or writing anything at or under `root` fails with `code`."""
    real_open, real_mkdir = os.open, os.mkdir

    def under(path) -> bool:
        real = os.path.realpath(os.fsdecode(path))
        return real.startswith(root + os.sep) or real == root

    def fake_open(path, flags, *args, **kwargs):
        if under(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    def fake_mkdir(path, *args, **kwargs):
        if under(path):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return real_mkdir(path, *args, **kwargs)

    patch.setattr(os, "open", fake_open)
    patch.setattr(os, "mkdir", fake_mkdir)


def full_after(patch: pytest.MonkeyPatch, lines: int) -> None:
    """The disk fills after `lines` results lines: every later write fails with ENOSPC."""
    full = {"on": False, "lines": 0}

    class FullFile:
        def __init__(self, inner, count):
            self._inner, self._count = inner, count

        def write(self, text):
            if self._count and full["lines"] >= lines:
                full["on"] = True
            if full["on"]:
                raise no_space()
            if self._count:
                full["lines"] += text.count("\n")
            return self._inner.write(text)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._inner.close()

        def __getattr__(self, name):
            return getattr(self._inner, name)

    real_init, real_fdopen = rollout_logging.RolloutLogger.__init__, os.fdopen

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self._file = FullFile(self._file, True)

    def fdopen(*args, **kwargs):
        return FullFile(real_fdopen(*args, **kwargs), False)

    patch.setattr(rollout_logging.RolloutLogger, "__init__", init)
    patch.setattr(os, "fdopen", fdopen)


def summary_full(patch: pytest.MonkeyPatch) -> None:
    """Writing summary.json leaves a torn temporary file and fails with ENOSPC."""
    real_write_text = pathlib.Path.write_text

    def write_text(self, data, *args, **kwargs):
        if self.name.endswith("summary.json.tmp"):
            real_write_text(self, data[:10], *args, **kwargs)  # a torn temporary file
            raise no_space()
        return real_write_text(self, data, *args, **kwargs)

    patch.setattr(pathlib.Path, "write_text", write_text)


@pytest.fixture
def sv(sv_main):
    """`sv(fault, *args)`: `sv ARGS` in this process, its writes failing as `fault` says."""

    def run(fault: dict | None, *args: str):
        with simulated(fault):
            return sv_main(*args)

    return run


def one_line_error(proc, *needles: str) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], proc.stderr
    for needle in needles:
        assert needle in errors[0], proc.stderr
    return errors[0]


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def eval_args(out: Path, *extra: str) -> tuple[str, ...]:
    return ("eval", "e1", "-m", "heuristic", "-n", str(N), "--output-dir", str(out), *extra)


def test_output_dir_that_is_a_file(sv, tmp_path):
    target = tmp_path / "outputs"
    target.write_text("not a folder")
    proc = sv(None, *eval_args(target))
    one_line_error(proc, f"--output-dir {target}: is a file, not a directory")
    nested = target / "evals"
    proc = sv(None, *eval_args(nested))
    one_line_error(proc, f"--output-dir {nested}: {target} is a file, not a directory")
    assert target.read_text() == "not a folder"


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_read_only_output_dir_fails_before_loading(sv, tmp_path, code):
    out = tmp_path / "ro"
    out.mkdir()
    fault = {"kind": "read-only", "dir": str(out), "errno": code}
    proc = sv(fault, *eval_args(out / "evals"))
    line = one_line_error(proc, f"--output-dir {out / 'evals'}", "cannot write there",
                          os.strerror(code))  # fmt: skip
    assert "Loading" not in proc.stderr  # refused before the environment (and any request)
    assert str(out) in line
    assert list(out.iterdir()) == []


def test_full_disk_mid_run_says_what_is_saved_and_a_rerun_resumes(sv, tmp_path):
    saved = 4
    policy = baseline_policies(resolve_env("e1"))["heuristic"]
    server = PolicyServer(policy, "m", latency_s=0.02)
    with serve_in_thread(server) as base_url:
        model = f"m@{base_url}"
        args = ("eval", "e1", "-m", model, "-n", str(N), "--max-concurrent", "2", "--quiet",
                "--output-dir", str(tmp_path))  # fmt: skip
        proc = sv({"kind": "full-after", "lines": saved}, *args)
        [run_dir] = list(tmp_path.glob("*/*/"))
        one_line_error(
            proc,
            f"cannot write {run_dir / 'results.jsonl'}: No space left on device",
            f"{saved} of {N} rollouts are saved in {run_dir}",
            "free space and rerun the same command to resume",
        )
        assert server.stats.requests <= saved + 4  # the rollouts still queued were not sent
        assert temp_files(tmp_path) == []
        assert len((run_dir / "results.jsonl").read_text().splitlines()) == saved
        assert not (run_dir / "summary.json").exists()

        again = sv(None, *args)
    assert again.returncode == 0, again.stderr
    assert f"{saved} of {N} rollouts already scored" in " ".join(again.stderr.split())
    assert list(tmp_path.glob("*/*/")) == [run_dir]
    meta = json.loads((run_dir / "metadata.json").read_text())
    assert meta["status"] == "complete" and meta["n_scored"] == N
    assert (run_dir / "summary.json").is_file()


def test_full_disk_at_the_summary_resumes_to_write_it(sv, tmp_path):
    proc = sv({"kind": "summary-full"}, *eval_args(tmp_path, "--quiet"))
    [run_dir] = list(tmp_path.glob("*/*/"))
    one_line_error(proc, "summary.json", "No space left on device",
                   f"{N} of {N} rollouts are saved in {run_dir}")  # fmt: skip
    assert temp_files(tmp_path) == []
    assert not (run_dir / "summary.json").exists()
    again = sv(None, *eval_args(tmp_path, "--quiet"))
    assert again.returncode == 0, again.stderr
    assert list(tmp_path.glob("*/*/")) == [run_dir]
    assert (run_dir / "summary.json").is_file()


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_atomic_writes_leave_no_temp_file_and_keep_the_old_content(tmp_path, monkeypatch):
    path = tmp_path / "metadata.json"
    write_json_atomic(path, {"status": "running"})
    store = RunStore(tmp_path)
    store.rewrite_results([{"example_id": 0}])
    monkeypatch.setattr(run_store.json, "dump", _no_space)
    with pytest.raises(OSError) as info:
        write_json_atomic(path, {"status": "complete"})
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    monkeypatch.setattr(run_store.json, "dumps", _no_space)
    with pytest.raises(OSError) as info:
        store.rewrite_results([{"example_id": 1}])
    assert info.value.filename == str(store.results_path)
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"status": "running"}
    assert store.load_results() == [{"example_id": 0}]
    assert temp_files(tmp_path) == []
