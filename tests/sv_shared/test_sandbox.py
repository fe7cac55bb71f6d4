"""Escape attempts against the bubblewrap sandbox: each one must be contained AND reported.

Every test runs real code in the real sandbox (the interpreter of `sandbox_python()` under
`-I -S -c`, or /bin/sh) and then checks from the host that nothing got out: no connection
reached a host listener, no host file was read or written, no process outlived the run.
bubblewrap is a dependency the project installs (`apt-get install bubblewrap`), so a machine
without a working sandbox FAILS this module with the reason instead of skipping it.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from sv_env_code_vulnerability.execution import TestRun as RunOutcome
from sv_env_code_vulnerability.execution import run_tests, sandbox_python
from sv_shared.sandbox import (
    UID_RANGE,
    SandboxCommand,
    SandboxLimits,
    SandboxResult,
    run_sandboxed,
    run_sandboxed_group,
    sandbox_available,
    scratch_dir,
)

INTERPRETER, PY_MOUNTS, PY_ENV = sandbox_python()
LIMITS = SandboxLimits(wall_s=8, cpu_s=3)
# what `run_sandboxed` documents as the sandbox's environment, plus `PWD` (exported by the
# /bin/sh that wraps every command) and what `sandbox_python()` asks for
DOCUMENTED_ENV = {
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PWD",
} | {key for key, _ in PY_ENV}
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module", autouse=True)
def _require_sandbox() -> None:
    reason = sandbox_available()
    if reason is not None:
        pytest.fail(f"the bubblewrap sandbox does not work here: {reason}", pytrace=False)


# ---------------------------------------------------------------- helpers


def run_py(
    code: str,
    limits: SandboxLimits = LIMITS,
    *,
    scratch: Path | None = None,
    readonly: Sequence[Path | tuple[Path, str]] = (),
) -> SandboxResult:
    """`python -I -S -c code` in the sandbox (in `scratch` when given, else a throwaway one)."""
    argv = [INTERPRETER, "-I", "-S", "-c", code]
    mounts = (*PY_MOUNTS, *readonly)
    if scratch is not None:
        return run_sandboxed(argv, scratch, limits, readonly=mounts, env=dict(PY_ENV))
    with scratch_dir() as fresh:
        return run_sandboxed(argv, fresh, limits, readonly=mounts, env=dict(PY_ENV))


def run_sh(script: str, limits: SandboxLimits = LIMITS, *, scratch: Path) -> SandboxResult:
    return run_sandboxed(["/bin/sh", "-c", script], scratch, limits)


def token() -> str:
    """A marker put into the sandboxed command line, to find its processes in /proc."""
    return f"sv-escape-{secrets.token_hex(8)}"


def _cmdlines() -> dict[int, list[bytes]]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                raw = Path("/proc", entry, "cmdline").read_bytes()
            except OSError:
                continue
            if raw:  # zombies and kernel threads have none
                found[int(entry)] = raw.rstrip(b"\0").split(b"\0")
    return found


def pids_with_argv(argv: Sequence[str]) -> set[int]:
    want = [a.encode() for a in argv]
    return {pid for pid, cmd in _cmdlines().items() if cmd == want}


def pids_mentioning(marker: str) -> set[int]:
    needle = marker.encode()
    return {
        pid
        for pid, cmd in _cmdlines().items()
        if pid != os.getpid() and any(needle in part for part in cmd)
    }


def pids_of_uid(uid: int) -> set[int]:
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.add(int(entry))
            except OSError:
                continue
    return pids


def still_alive(find: Callable[[], set[int]], grace_s: float = 2.0) -> set[int]:
    """What `find` still sees after a short grace (the kernel reaps a torn-down PID
    namespace asynchronously); empty means nothing survived."""
    deadline = time.monotonic() + grace_s
    while (alive := find()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def assert_nothing_survives(marker: str, sandbox_uid: int | None = None) -> None:
    assert not still_alive(lambda: pids_mentioning(marker)), "a sandboxed process survived"
    if AS_ROOT and sandbox_uid is not None:
        assert sandbox_uid != 0
        survivors = still_alive(lambda: pids_of_uid(sandbox_uid))
        assert not survivors, f"processes of the sandbox uid {sandbox_uid} survived"


def first_line_uid(result: SandboxResult) -> int:
    return int(result.stdout.split()[0])


def mentions(result: SandboxResult, *words: str) -> bool:
    text = " | ".join(result.violations).lower()
    return all(w.lower() in text for w in words)


def test_process_probes_see_host_processes() -> None:
    """The /proc helpers must find a live process, or the "nothing survives" checks are void."""
    sleep = ["sleep", f"100.{secrets.randbelow(10**9):09d}"]
    proc = subprocess.Popen(sleep)
    try:
        deadline = time.monotonic() + 5  # until the child has exec'd sleep
        while not pids_with_argv(sleep) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert pids_with_argv(sleep) == {proc.pid}
        assert proc.pid in pids_of_uid(os.getuid())
    finally:
        proc.kill()
        proc.wait()
    assert not pids_with_argv(sleep)


# ---------------------------------------------------------------- network


def test_tcp_connect_to_public_address_is_unreachable_and_reported() -> None:
    code = "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=3)\nprint('CONNECTED')"
    result = run_py(code)
    assert result.returncode != 0 and "CONNECTED" not in result.stdout
    assert mentions(result, "network"), result.violations


def test_tcp_connect_to_listener_on_host_loopback_is_isolated_and_reported() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        # control: the listener is really reachable from the host's network namespace
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            peer, _ = server.accept()
            peer.close()
        code = (
            "import socket\n"
            f"s = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "s.sendall(b'escaped')\nprint('CONNECTED')\n"
        )
        result = run_py(code)
        server.setblocking(False)
        with pytest.raises(BlockingIOError):  # nobody from the sandbox knocked
            server.accept()
    assert result.returncode != 0 and "CONNECTED" not in result.stdout
    assert mentions(result, "network"), result.violations


def test_dns_resolution_fails_and_is_reported() -> None:
    code = "import socket\nprint(socket.getaddrinfo('example.com', 443))"
    result = run_py(code)
    assert result.returncode != 0 and "gaierror" in result.stderr
    assert mentions(result, "network"), result.violations


# ---------------------------------------------------------------- reading host secrets


def test_host_home_ssh_and_root_files_are_invisible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"PRIVATE-KEY-{secrets.token_hex(16)}"
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key_file = home / ".ssh" / "id_ed25519"
    key_file.write_text(secret)
    monkeypatch.setenv("HOME", str(home))
    skip = ["/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"]
    skip += [str(m if isinstance(m, Path) else m[1]) for m in PY_MOUNTS]
    code = f"""
import json, os
secret, skip = {secret!r}, set({skip!r})
reads = {{}}
for path in ({str(key_file)!r}, os.path.expanduser("~/.ssh/id_ed25519"), "/root/.ssh/id_rsa",
             "/root/.ssh/authorized_keys", "/root/.bash_history", "/etc/shadow", "/etc/passwd"):
    try:
        with open(path) as fh:
            reads[path] = fh.read()
    except OSError as exc:
        reads[path] = type(exc).__name__
hits, root_files = [], []
for top, found in (("/", hits), ("/root", root_files)):
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if top == "/root":
                found.append(path)
                continue
            try:
                with open(path, errors="ignore") as fh:
                    if secret in fh.read():
                        found.append(path)
            except OSError:
                pass
print(json.dumps({{"reads": reads, "hits": hits, "root_files": root_files}}))
"""
    result = run_py(code)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    for path, outcome in seen["reads"].items():
        assert outcome in {"FileNotFoundError", "PermissionError"}, (path, outcome)
    assert seen["hits"] == [], "the host secret is readable inside the sandbox"
    assert seen["root_files"] == [], "files of the host's /root are visible"
    assert secret not in result.stdout + result.stderr


def test_environment_secrets_are_not_passed_in(monkeypatch: pytest.MonkeyPatch) -> None:
    planted = {
        "OPENAI_API_KEY": f"sk-{secrets.token_hex(16)}",
        "HF_TOKEN": f"hf_{secrets.token_hex(16)}",
        "AWS_SECRET_ACCESS_KEY": secrets.token_hex(20),
    }
    for key, value in planted.items():
        monkeypatch.setenv(key, value)
    # also every /proc/<pid>/environ the code can read (bwrap itself is PID 1 in there)
    code = """
import json, os
environs = {}
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                environs[pid] = fh.read().decode("utf-8", "replace")
        except OSError:
            pass
print(json.dumps({"env": dict(os.environ), "environs": environs}))
"""
    result = run_py(code)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert set(seen["env"]) <= DOCUMENTED_ENV, set(seen["env"]) - DOCUMENTED_ENV
    assert not set(planted) & set(seen["env"])
    everything = result.stdout + result.stderr
    for key, value in planted.items():
        assert value not in everything, f"{key} leaked into the sandbox"
    with scratch_dir() as scratch:  # the same seen through /bin/sh's `env`
        listed = run_sh("env", scratch=scratch).stdout
    assert {line.split("=", 1)[0] for line in listed.splitlines()} <= DOCUMENTED_ENV
    assert not any(value in listed for value in planted.values())


# ---------------------------------------------------------------- writing outside scratch

WRITE_ATTEMPT = """
import os
target = {target!r}
os.makedirs(os.path.dirname(target), exist_ok=True)
with open(target, "w") as fh:
    fh.write("pwned")
print("WROTE")
"""


@pytest.mark.parametrize(
    "target",
    [
        "/usr/sv-escape",
        "/usr/local/bin/sv-escape",
        "/etc/sv-escape",
        "/sv-escape",
        "/root/sv-escape",
        "/root/.ssh/authorized_keys",
        "/code/sv-escape",
        "/code/test_target.py",
    ],
)
def test_write_outside_scratch_is_refused_and_reported(tmp_path: Path, target: str) -> None:
    code_dir = tmp_path / "code"  # mounted read-only at /code, as run_tests does
    code_dir.mkdir()
    (code_dir / "test_target.py").write_text("def test_x():\n    assert False\n")
    before_root = set(os.listdir("/"))
    host_target = Path(target) if not target.startswith("/code/") else None
    existed = host_target is not None and host_target.exists()
    result = run_py(WRITE_ATTEMPT.format(target=target), readonly=[(code_dir, "/code")])
    assert result.returncode != 0 and "WROTE" not in result.stdout
    assert "Read-only file system" in result.stderr, result.stderr
    assert mentions(result, "write outside the scratch directory"), result.violations
    assert sorted(p.name for p in code_dir.iterdir()) == ["test_target.py"]
    assert (code_dir / "test_target.py").read_text() == "def test_x():\n    assert False\n"
    assert set(os.listdir("/")) == before_root
    if host_target is not None and not existed:
        assert not host_target.exists(), f"{target} was created on the host"


def test_code_mount_cannot_be_modified_in_any_way(tmp_path: Path) -> None:
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    test_file = code_dir / "test_target.py"
    test_file.write_text("ORIGINAL = True\n")
    code = """
import os
outcomes = {}
attempts = {
    "rewrite": lambda: open("/code/test_target.py", "w").write("ORIGINAL = False\\n"),
    "append": lambda: open("/code/test_target.py", "a").write("X = 1\\n"),
    "chmod": lambda: os.chmod("/code/test_target.py", 0o777),
    "unlink": lambda: os.unlink("/code/test_target.py"),
    "rename": lambda: os.rename("/code/test_target.py", "/code/moved.py"),
    "mkdir": lambda: os.mkdir("/code/__pycache__"),
    "symlink": lambda: os.symlink("/sandbox", "/code/link"),
}
for name, attempt in attempts.items():
    try:
        attempt()
        outcomes[name] = "DONE"
    except OSError as exc:
        outcomes[name] = exc.strerror
import sys
print(outcomes, file=sys.stderr)
print(sorted(outcomes.values()))
"""
    result = run_py(code, readonly=[(code_dir, "/code")])
    assert result.returncode == 0, result.stderr
    assert "DONE" not in result.stdout
    assert mentions(result, "write outside the scratch directory"), result.violations
    assert sorted(p.name for p in code_dir.iterdir()) == ["test_target.py"]
    assert test_file.read_text() == "ORIGINAL = True\n"


def test_host_tmp_dir_is_untouched_writes_to_tmp_land_in_scratch(tmp_path: Path) -> None:
    host_tmp = Path(tempfile.gettempdir())
    name = f"{token()}.txt"
    nested = tmp_path / "nested" / "sv-escape"  # a host path under the host's tmp dir
    code = f"""
import os
results = []
for target in ({str(host_tmp / name)!r}, "/tmp/" + {name!r}, {str(nested)!r}):
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as fh:
            fh.write("pwned")
        results.append(os.path.realpath(target))
    except OSError as exc:
        results.append(exc.strerror)
print(results)
"""
    with scratch_dir() as scratch:
        result = run_py(code, scratch=scratch)
        inside = {str(p.relative_to(scratch)) for p in scratch.rglob("*") if p.is_file()}
    assert not (host_tmp / name).exists(), "the host's tmp dir was written"
    assert not nested.exists() and not nested.parent.exists()
    # /tmp inside is a symlink into the scratch directory: what was written stayed there
    assert f".tmp/{name}" in inside, (result.stdout, result.stderr)
    assert "/sandbox/.tmp/" in result.stdout


def test_writes_in_scratch_work_and_are_visible_to_the_host() -> None:
    code = """
import os
with open("/sandbox/absolute.txt", "w") as fh:
    fh.write("one")
with open("relative.txt", "w") as fh:
    fh.write("two")
os.makedirs("deep/er")
with open("deep/er/file.txt", "w") as fh:
    fh.write("three")
with open(os.path.join(os.environ["TMPDIR"], "tmp.txt"), "w") as fh:
    fh.write("four")
print(os.getcwd())
"""
    with scratch_dir() as scratch:
        result = run_py(code, scratch=scratch)
        assert result.ok and result.violations == [], (result.stderr, result.violations)
        assert result.stdout.strip() == "/sandbox"
        assert (scratch / "absolute.txt").read_text() == "one"
        assert (scratch / "relative.txt").read_text() == "two"
        assert (scratch / "deep" / "er" / "file.txt").read_text() == "three"
        assert (scratch / ".tmp" / "tmp.txt").read_text() == "four"


# ---------------------------------------------------------------- resource limits


def test_fork_bomb_hits_the_process_limit_and_the_host_is_unaffected() -> None:
    marker = token()
    limits = SandboxLimits(wall_s=10, cpu_s=3, processes=32)
    code = f"# {marker}\nimport os\nprint(os.getuid(), flush=True)\nwhile True:\n    os.fork()\n"
    start = time.monotonic()
    result = run_py(code, limits)
    elapsed = time.monotonic() - start
    assert not result.timed_out, "the fork bomb did not end before the wall-clock limit"
    assert elapsed < limits.wall_s + 10
    assert mentions(result, "process limit"), result.violations
    assert_nothing_survives(marker, first_line_uid(result))
    # the host can still start processes
    assert subprocess.run(["/bin/true"], timeout=10).returncode == 0


@pytest.mark.parametrize("ignore_sigxcpu", [False, True], ids=["plain", "ignoring-SIGXCPU"])
def test_infinite_cpu_loop_is_killed_by_the_cpu_limit(ignore_sigxcpu: bool) -> None:
    # SIGXCPU at cpu_s, SIGKILL at cpu_s + 1; wall_s leaves room for a loaded machine, where
    # CPU seconds accrue slower than wall ones
    limits = SandboxLimits(wall_s=10, cpu_s=1 if ignore_sigxcpu else 2)
    marker = token()
    code = f"# {marker}\nimport os, signal\nprint(os.getuid(), flush=True)\n"
    if ignore_sigxcpu:
        code += "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
    code += "while True:\n    pass\n"
    result = run_py(code, limits)
    assert not result.timed_out, "the CPU limit, not the wall clock, should have stopped it"
    assert result.returncode not in (0, None)
    assert mentions(result, "cpu"), result.violations
    assert_nothing_survives(marker, first_line_uid(result))


def test_sleep_past_the_wall_clock_is_killed_and_nothing_survives() -> None:
    limits = SandboxLimits(wall_s=3, cpu_s=3)
    marker = token()
    code = (
        f"# {marker}\nimport os, signal, time\nprint(os.getuid(), flush=True)\n"
        "for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n"
        "    signal.signal(sig, signal.SIG_IGN)\n"
        "time.sleep(100)\n"
    )
    start = time.monotonic()
    result = run_py(code, limits)
    elapsed = time.monotonic() - start
    assert result.timed_out and result.returncode is None and not result.ok
    assert mentions(result, "wall-clock timeout"), result.violations
    assert elapsed < limits.wall_s + 10
    assert_nothing_survives(marker, first_line_uid(result))


def test_allocating_10_gb_raises_memory_error_and_is_reported() -> None:
    code = "data = bytearray(10 * 1024 ** 3)\nprint('ALLOCATED')"
    result = run_py(code)
    assert result.returncode != 0 and "ALLOCATED" not in result.stdout
    assert "MemoryError" in result.stderr
    assert mentions(result, "memory limit"), result.violations


@pytest.mark.parametrize("writer", ["python", "sh"])
def test_writing_a_100_mb_file_hits_the_file_size_limit(writer: str) -> None:
    limits = SandboxLimits(wall_s=10, cpu_s=3, file_size_mb=16)
    with scratch_dir() as scratch:
        if writer == "python":
            code = (
                "with open('big.bin', 'wb') as fh:\n"
                "    for _ in range(100):\n"
                "        fh.write(b'x' * 1024 * 1024)\n"
                "print('WROTE')\n"
            )
            result = run_py(code, limits, scratch=scratch)
            assert "File too large" in result.stderr
        else:  # the shell's `head` is killed by SIGXFSZ instead of seeing EFBIG
            result = run_sh("head -c 104857600 /dev/zero > big.bin && echo WROTE", scratch=scratch)
        size = (scratch / "big.bin").stat().st_size
    assert result.returncode != 0 and "WROTE" not in result.stdout
    assert mentions(result, "file size limit"), result.violations
    assert size <= limits.file_size_mb * 1024 * 1024


# ---------------------------------------------------------------- leftover processes

BACKGROUND = {
    "popen": """
import subprocess
subprocess.Popen({sleep!r}, start_new_session=True)
print("SPAWNED", flush=True)
""",
    "double-fork-setsid-daemon": """
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execvp("sleep", {sleep!r})
    os._exit(0)
os.wait()
print("SPAWNED", flush=True)
""",
}


@pytest.mark.parametrize("how", list(BACKGROUND))
def test_background_process_is_reported_and_killed(how: str) -> None:
    # "sleep 100" with a unique fraction, so only this test's processes are looked for
    sleep = ["sleep", f"100.{secrets.randbelow(10**9):09d}"]
    marker = token()
    code = f"# {marker}\nimport os\nprint(os.getuid(), flush=True)\n"
    code += BACKGROUND[how].format(sleep=sleep)
    result = run_py(code)
    assert result.returncode == 0 and "SPAWNED" in result.stdout, result.stderr
    assert result.leftover_processes >= 1
    assert mentions(result, "outlived the sandbox"), result.violations
    assert not still_alive(lambda: pids_with_argv(sleep)), "the background sleep survived"
    assert_nothing_survives(marker, first_line_uid(result))


def test_killing_the_parent_inside_leaks_nothing() -> None:
    sleep = ["sleep", f"100.{secrets.randbelow(10**9):09d}"]
    marker = token()
    code = (
        f"# {marker}\nimport os, signal, subprocess, time\nprint(os.getuid(), flush=True)\n"
        f"subprocess.Popen({sleep!r}, start_new_session=True)\n"
        "os.kill(os.getppid(), signal.SIGKILL)\n"
        "time.sleep(100)\n"
    )
    start = time.monotonic()
    result = run_py(code)
    elapsed = time.monotonic() - start
    # the sandbox's command died of SIGKILL; its whole PID namespace went with it
    assert not result.timed_out and elapsed < LIMITS.wall_s + 10
    assert result.returncode != 0
    assert mentions(result, "killed"), result.violations
    assert not still_alive(lambda: pids_with_argv(sleep))
    assert_nothing_survives(marker, first_line_uid(result))


# ---------------------------------------------------------------- identity, cleanup


def test_code_runs_as_an_unprivileged_uid() -> None:
    code = """
import json, os
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
try:
    os.setuid(0)
    setuid = "ROOT"
except PermissionError:
    setuid = "refused"
print(json.dumps({
    "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "status": {k: v.strip() for k, v in status.items()}, "setuid": setuid,
}))
"""
    result = run_py(code)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["uid"] != 0 and seen["euid"] != 0 and seen["gid"] != 0
    assert seen["setuid"] == "refused"
    for caps in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(seen["status"][caps], 16) == 0, (caps, seen["status"][caps])
    if AS_ROOT:  # a fresh uid of its own: RLIMIT_NPROC counts only the sandbox
        assert UID_RANGE[0] <= seen["uid"] < UID_RANGE[1]
        assert seen["groups"] == []
        assert int(seen["status"]["CapBnd"], 16) == 0
        assert seen["status"]["NoNewPrivs"] == "1"


LOCK_UP = """
import os
os.makedirs("locked/deeper")
for path in ("locked/f", "locked/deeper/f"):
    with open(path, "w") as fh:
        fh.write("x")
os.makedirs("readonly")
with open("readonly/f", "w") as fh:
    fh.write("x")
os.symlink({host_dir!r}, "link-to-host")
os.chmod("readonly", 0o500)
os.chmod("locked/deeper", 0)
os.chmod("locked", 0)
os.chmod(".", 0o500)
"""


def _host_dir_with_file(tmp_path: Path) -> tuple[Path, Path, int]:
    host_dir = tmp_path / "host"
    host_dir.mkdir()
    keep = host_dir / "keep.txt"
    keep.write_text("keep")
    host_dir.chmod(0o751)
    return host_dir, keep, host_dir.stat().st_mode


def test_scratch_dir_removes_files_locked_by_the_sandboxed_code(tmp_path: Path) -> None:
    host_dir, keep, mode = _host_dir_with_file(tmp_path)
    with scratch_dir() as scratch:
        result = run_py(LOCK_UP.format(host_dir=str(host_dir)), scratch=scratch)
        assert result.returncode == 0, result.stderr
    assert not scratch.exists()
    # the cleanup never followed the symlink the code left
    assert keep.read_text() == "keep" and host_dir.stat().st_mode == mode


def _lock_up_and_clean_as(uid: int | None, host_dir: Path) -> Path:
    if uid is not None:
        os.setgid(uid)
        os.setuid(uid)
    with scratch_dir() as scratch:
        cwd = os.getcwd()
        os.chdir(scratch)
        try:
            exec(LOCK_UP.format(host_dir=str(host_dir)), {})
        finally:
            os.chdir(cwd)
    return scratch


def test_scratch_dir_cleanup_works_for_an_unprivileged_owner(tmp_path: Path) -> None:
    """The root case above is easy (root ignores modes): the owner of a scratch directory
    must be able to remove it too, `chmod 000` directories included."""
    host_dir, keep, mode = _host_dir_with_file(tmp_path)
    if not AS_ROOT:
        scratch = _lock_up_and_clean_as(None, host_dir)
        assert not scratch.exists()
    else:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            os.close(read)
            try:
                scratch = _lock_up_and_clean_as(65534, host_dir)
                report = "GONE" if not scratch.exists() else f"LEFT {scratch}"
            except BaseException:
                report = traceback.format_exc()
            os.write(write, report.encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as fh:
            report = fh.read().decode()
        os.waitpid(pid, 0)
        assert report == "GONE", report
    assert keep.read_text() == "keep" and host_dir.stat().st_mode == mode


# ---------------------------------------------------------------- several sandboxes at once

GROUP_MAIN = """
import os, socket, sys
sock = socket.socket(fileno=int(sys.argv[1]))
sock.sendall(b"ping")
reply = sock.recv(16).decode()
print(reply, open("from-helper.txt").read(), os.path.isdir("/private-main"))
"""
GROUP_HELPER = """
import json, os, socket, sys
sock = socket.socket(fileno=int(sys.argv[1]))
assert sock.recv(16) == b"ping"
with open("from-helper.txt", "w") as fh:
    fh.write(json.dumps(os.path.isdir("/private-main")))
sock.sendall(b"pong")
"""


def _group(helper: str, tmp_path: Path, limits: SandboxLimits = LIMITS) -> list[SandboxResult]:
    private = tmp_path / "private"
    private.mkdir()
    main_end, helper_end = socket.socketpair()
    with main_end, helper_end, scratch_dir() as scratch:
        commands = [
            SandboxCommand(
                [INTERPRETER, "-I", "-S", "-c", GROUP_MAIN, str(main_end.fileno())],
                readonly=(*PY_MOUNTS, (private, "/private-main")),
                pass_fds=[main_end.fileno()],
            ),
            SandboxCommand(
                [INTERPRETER, "-I", "-S", "-c", helper, str(helper_end.fileno())],
                readonly=PY_MOUNTS,
                pass_fds=[helper_end.fileno()],
            ),
        ]

        def close() -> None:
            main_end.close()
            helper_end.close()

        return run_sandboxed_group(commands, scratch, limits, env=dict(PY_ENV), on_start=close)


def test_group_sandboxes_share_scratch_and_sockets_but_not_mounts(tmp_path: Path) -> None:
    main, helper = _group(GROUP_HELPER, tmp_path)
    assert main.returncode == 0 and helper.returncode == 0, (main.stderr, helper.stderr)
    # the helper saw the main command's socket end and scratch, not its private mount
    assert main.stdout.split() == ["pong", "false", "True"], main.stdout
    assert main.violations == [] and helper.violations == []


def test_group_helper_that_outlives_the_main_command_is_killed_and_reported(
    tmp_path: Path,
) -> None:
    stuck = GROUP_HELPER + "import time\ntime.sleep(60)\n"
    main, helper = _group(stuck, tmp_path)
    assert main.returncode == 0 and main.violations == []
    assert mentions(helper, "still running after the main command ended"), helper.violations
    assert helper.duration_s < 30


# ---------------------------------------------------------------- run_tests-level escapes

BROKEN_ADD = "\n\ndef add(a, b):\n    return a - b\n"
ATTACK_TEST = "import target\n\n\ndef test_add():\n    assert target.add(2, 2) == 4\n"
GENUINE_TEST = "def test_genuine():\n    assert sorted([3, 1, 2]) == [1, 2, 3]\n"

IMPORT_ATTACKS = {
    "os-exit-0": "import os\nos._exit(0)\n",
    "sys-exit-0": "import sys\nsys.exit(0)\n",
    "raise-skip-test": "import unittest\nraise unittest.SkipTest('not today')\n",
    "patch-builtins-import": (
        "import builtins, types\n"
        "_stub = types.SimpleNamespace(add=lambda a, b: 4)\n"
        "builtins.__import__ = lambda *args, **kwargs: _stub\n"
    ),
    "patch-assertion-error": (
        "import builtins\n"
        "builtins.AssertionError = type('AssertionError', (Exception,), {})\n"
        "builtins.TimeoutError = type('TimeoutError', (Exception,), {})\n"
    ),
    "patch-exception-hierarchy": (
        "import builtins\n"
        "builtins.AssertionError = 1\n"
        "builtins.BaseException = type('BaseException', (Exception,), {})\n"
    ),
    "sleep-past-timeout": "import time\ntime.sleep(60)\n",
    "sleep-ignoring-the-alarm": (
        "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)\n"
    ),
}


def _attack_run(source: str, tests: dict[str, str] | None = None) -> RunOutcome:
    tests = tests or {"test_attack.py": ATTACK_TEST}
    run = run_tests(
        {"target.py": source},
        {"test_first.py": GENUINE_TEST, **tests, "test_last.py": GENUINE_TEST},
        per_test_timeout=1.0,
    )
    assert run.error is None, run.error
    # genuine tests before and after the attack still pass in the same run
    assert run.status("test_first.py::test_genuine") == "passed", run.to_json()
    assert run.status("test_last.py::test_genuine") == "passed", run.to_json()
    return run


def test_run_tests_baseline_a_correct_module_passes() -> None:
    run = _attack_run("def add(a, b):\n    return a + b\n")
    assert run.status("test_attack.py::test_add") == "passed", run.to_json()


@pytest.mark.parametrize("attack", list(IMPORT_ATTACKS))
def test_run_tests_import_time_escape_is_not_a_pass(attack: str) -> None:
    run = _attack_run(IMPORT_ATTACKS[attack] + BROKEN_ADD)
    outcome = run.outcomes["test_attack.py::test_add"]
    assert outcome.status != "passed", run.to_json()
    if attack.startswith("sleep"):
        assert outcome.status == "timeout", run.to_json()


def test_run_tests_rewriting_the_test_file_has_no_effect() -> None:
    source = (
        "import glob, os\n"
        "for path in glob.glob('/code/*.py'):\n"
        "    for attempt in (\n"
        "        lambda: open(path, 'w').write('def test_add():\\n    pass\\n'),\n"
        "        lambda: os.chmod(path, 0o666),\n"
        "        lambda: os.unlink(path),\n"
        "        lambda: os.rename(path, path + '.bak'),\n"
        "    ):\n"
        "        try:\n"
        "            attempt()\n"
        "        except OSError:\n"
        "            pass\n"
    ) + BROKEN_ADD
    two_tests = ATTACK_TEST + "\n\ndef test_add_again():\n    assert target.add(3, 3) == 6\n"
    run = _attack_run(source, {"test_attack.py": two_tests})
    # the second test ran the original test code again: the rewrite never landed
    for test_id in ("test_attack.py::test_add", "test_attack.py::test_add_again"):
        outcome = run.outcomes[test_id]
        assert outcome.status == "failed" and "AssertionError" in outcome.detail, run.to_json()


def test_run_tests_rewriting_the_test_file_uncaught_is_an_error() -> None:
    source = "open('/code/test_attack.py', 'w').write('def test_add():\\n    pass\\n')\n"
    run = _attack_run(source + BROKEN_ADD)
    outcome = run.outcomes["test_attack.py::test_add"]
    assert outcome.status == "error", run.to_json()
    assert "Read-only file system" in outcome.detail or "Permission" in outcome.detail


def test_run_tests_tempfile_shadow_in_cwd_does_not_reach_later_tests() -> None:
    source = (
        "import os, sys\n"
        "shadow = 'SHADOWED = True\\nraise ImportError(\"shadow tempfile imported\")\\n'\n"
        "for folder in (os.getcwd(), os.environ.get('TMPDIR', '/tmp'), '/tmp', '/code',\n"
        "               os.path.dirname(os.__file__)):\n"
        "    try:\n"
        "        with open(os.path.join(folder, 'tempfile.py'), 'w') as fh:\n"
        "            fh.write(shadow)\n"
        "    except OSError:\n"
        "        pass\n"
    ) + BROKEN_ADD
    uses_stdlib = (
        "import os\nimport sys\n\nPRELOADED = 'tempfile' in sys.modules\n\nimport tempfile\n\n\n"
        "def test_real_tempfile():\n"
        "    assert not hasattr(tempfile, 'SHADOWED')\n"
        "    assert tempfile.__file__.startswith(sys.base_prefix)\n"
        "    with tempfile.TemporaryDirectory() as folder:\n"
        "        assert folder\n"
    )
    run = _attack_run(source, {"test_attack.py": ATTACK_TEST, "test_stdlib.py": uses_stdlib})
    assert run.status("test_attack.py::test_add") != "passed", run.to_json()
    assert run.status("test_stdlib.py::test_real_tempfile") == "passed", run.to_json()
