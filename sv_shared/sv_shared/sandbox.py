"""A sandbox for running untrusted, model-influenced code with bubblewrap.

Every run gets: new network, PID, IPC and UTS namespaces (no network at all; the whole
process tree dies with the namespace's first process), a read-only view of only the system
directories it needs, one writable scratch directory mounted at `/sandbox`, a clean
environment (no API keys or tokens), resource limits (CPU seconds, address space, file
size, processes, open files, no core dumps) and a wall-clock timeout that kills the whole
process group. Run as root, the code runs under a fresh unprivileged uid, so the process
limit really applies and nothing of root's (`~/.ssh`, keys) is readable.

`run_sandboxed_group` runs several such sandboxes at once that share only the scratch
directory (and the private uid) and talk over descriptors passed in, e.g. E3's test process
and the untrusted code it tests, each unable to see the other's files or processes. With
`private_homes=True` each sandbox also gets its own writable home at `/tmp` (its working
directory, HOME and TMPDIR) that no other sandbox can see, and the shared directory becomes
traverse-only (run as root: owned by root, mode 0333): a sandbox can create and use entries
whose names it knows, but cannot list it to discover what another sandbox created there.

Requires the `bwrap` binary (Debian/Ubuntu: `apt-get install bubblewrap`).
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

INSIDE = "/sandbox"
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
UID_RANGE = (2_000_000_000, 2_100_000_000)
# Runs the command, then counts processes still alive in the sandbox's PID namespace (besides
# bwrap's init and this shell) before the namespace, and with it every leftover, is torn down.
LEFTOVER_PROBE = (
    '"$@"; rc=$?; n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; '
    'echo "SV-LEFTOVER $((n-2))" >&2; exit $rc'
)
LEFTOVER_LINE = re.compile(r"^SV-LEFTOVER (-?\d+)\n?", re.MULTILINE)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create namespaces on this machine."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed run."""

    wall_s: float = 30.0
    cpu_s: int = 30
    memory_mb: int = 1024  # address space (RLIMIT_AS)
    file_size_mb: int = 16  # largest file the code may write (RLIMIT_FSIZE)
    processes: int = 64  # processes + threads of the sandbox's user (RLIMIT_NPROC)
    open_files: int = 256
    output_bytes: int = 256 * 1024  # stdout / stderr kept per stream


@dataclass
class SandboxResult:
    """What happened: exit status, captured output and every limit that fired."""

    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    violations: list[str] = field(default_factory=list)
    leftover_processes: int = 0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def bwrap_path() -> str:
    found = shutil.which("bwrap")
    if not found:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed; install it with `apt-get install bubblewrap` "
            "(make setup does this when run as root)"
        )
    return found


ReadOnly = Path | tuple[Path, str]


def _mounts(readonly: Sequence[ReadOnly]) -> list[str]:
    args: list[str] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            args += ["--ro-bind", d, d]
    for extra in readonly:
        source, dest = extra if isinstance(extra, tuple) else (extra, None)
        resolved = str(Path(source).resolve())
        dest = dest or resolved
        if any(dest == d or dest.startswith(d + "/") for d in SYSTEM_DIRS):
            continue
        # parents are fresh, empty, traversable directories (nothing else of theirs is seen)
        for parent in reversed(Path(dest).parents[:-1]):
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", resolved, dest]
    return args


def _environment(extra: Mapping[str, str], home: str | None = None) -> list[str]:
    base = {
        "PATH": DEFAULT_PATH,
        "HOME": home or INSIDE,
        "TMPDIR": home or f"{INSIDE}/.tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }
    args: list[str] = []
    for key, value in {**base, **extra}.items():
        args += ["--setenv", key, value]
    return args


def _processes_of(uid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def _own_process_count() -> int:
    return len(_processes_of(os.getuid()))


def _limits_preexec(limits: SandboxLimits, nproc: int):
    def apply() -> None:
        mb = 1024 * 1024
        for res, value in (
            (resource.RLIMIT_CPU, limits.cpu_s),
            (resource.RLIMIT_AS, limits.memory_mb * mb),
            (resource.RLIMIT_FSIZE, limits.file_size_mb * mb),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_NPROC, nproc),
        ):
            # CPU: the soft limit sends SIGXCPU, the hard one (a second later) SIGKILL
            hard = value + 1 if res == resource.RLIMIT_CPU else value
            resource.setrlimit(res, (value, hard))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    return apply


def _read_capped(path: Path, cap: int) -> tuple[str, bool]:
    with path.open("rb") as fh:
        data = fh.read(cap + 1)
    return data[:cap].decode("utf-8", "replace"), len(data) > cap


def _signal_violation(returncode: int | None) -> str | None:
    if returncode is None:
        return None
    # bwrap reports a child killed by signal N as exit status 128 + N
    sig = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    violations: dict[int, str] = {
        signal.SIGXCPU: "cpu time limit exceeded (SIGXCPU)",
        signal.SIGXFSZ: "file size limit exceeded (SIGXFSZ)",
        signal.SIGKILL: "killed (SIGKILL: CPU hard limit or out of memory)",
        signal.SIGSEGV: "segmentation fault",
    }
    return violations.get(sig)


def _stderr_violations(stderr: str) -> list[str]:
    found = []
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr:
        found.append("memory limit hit (allocation refused)")
    if "Resource temporarily unavailable" in stderr or "BlockingIOError" in stderr:
        found.append("process limit hit (fork refused)")
    if "File too large" in stderr:
        found.append("file size limit hit (write refused)")
    # no route out; only the sandbox's own empty loopback (host listeners are not on it); no DNS
    network = (
        "Network is unreachable",
        "Connection refused",
        "Temporary failure in name resolution",
        "Name or service not known",
    )
    if any(message in stderr for message in network):
        found.append("network access attempted (no network in sandbox)")
    if "Read-only file system" in stderr:
        found.append("write outside the scratch directory refused")
    return found


@dataclass(frozen=True)
class SandboxCommand:
    """One command of `run_sandboxed_group`: its own sandbox, mounts, stdin and descriptors."""

    argv: Sequence[str]
    readonly: Sequence[ReadOnly] = ()
    stdin: str = ""
    pass_fds: Sequence[int] = ()
    """Descriptors the command inherits at the same numbers (e.g. one end of a socket pair)."""


def run_sandboxed(
    argv: Sequence[str],
    scratch: Path,
    limits: SandboxLimits = SandboxLimits(),
    *,
    stdin: str = "",
    readonly: Sequence[ReadOnly] = (),
    env: Mapping[str, str] | None = None,
) -> SandboxResult:
    """Run `argv` in a fresh sandbox whose only writable directory is `scratch` (at /sandbox).

    `readonly` adds host directories visible read-only: a path appears at the same path
    (e.g. a Python prefix), a `(host_path, inside_path)` pair at `inside_path`.
    Returns when the process tree is gone; never raises for what the code does.
    """
    command = SandboxCommand(argv, readonly, stdin)
    return run_sandboxed_group([command], scratch, limits, env=env)[0]


def run_sandboxed_group(
    commands: Sequence[SandboxCommand],
    scratch: Path,
    limits: SandboxLimits = SandboxLimits(),
    *,
    env: Mapping[str, str] | None = None,
    grace_s: float = 2.0,
    on_start: Callable[[], None] | None = None,
    private_homes: bool = False,
) -> list[SandboxResult]:
    """Run several commands at once, each in its own sandbox (own PID, network, IPC and
    mount namespaces; it sees only its own `readonly` mounts), sharing only `scratch` and,
    run as root, one private uid (so each can use the files the other writes there, and
    the process limit counts them together). They can talk only over descriptors passed
    with `pass_fds`. The first command is the main one: the run lasts until it ends or
    `limits.wall_s` passes; the others then get `grace_s` to exit before their process
    groups are killed. Every other limit applies to each command. One result per command,
    in order; the stdin of commands after the first must fit a pipe buffer. `on_start` runs
    once every command has started (e.g. to close the caller's copies of passed sockets).
    `private_homes`: see the module docstring.
    """
    if not commands:
        raise ValueError("no command to run")
    bwrap = bwrap_path()
    scratch = Path(scratch).resolve()
    if not private_homes:
        (scratch / ".tmp").mkdir(exist_ok=True)
    as_root = os.geteuid() == 0
    if as_root:
        uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0]
        _chown_tree(scratch, uid)
        nproc = limits.processes
    else:
        uid = os.getuid()
        nproc = _own_process_count() + limits.processes
    with tempfile.TemporaryDirectory(prefix="sv-sbx-io-") as io_dir:
        homes: list[Path | None] = [None] * len(commands)
        if private_homes:
            private_dirs = [Path(io_dir, f"home{n}") for n in range(len(commands))]
            for home in private_dirs:
                home.mkdir(mode=0o700)
                os.chown(home, uid, uid)
            homes = list(private_dirs)
            if as_root:
                os.chown(scratch, 0, 0)
            os.chmod(scratch, 0o333)
        running = []
        try:
            for n, command in reversed(list(enumerate(commands))):
                cmd = _bwrap_command(
                    bwrap, command, scratch, env or {}, uid if as_root else None, homes[n]
                )
                running.append(_Running.start(cmd, command, Path(io_dir, str(n)), limits, nproc))
            running.reverse()
            for other, command in zip(running[1:], commands[1:], strict=True):
                other.feed(command.stdin)
            if on_start is not None:
                on_start()
            running[0].communicate(commands[0].stdin, limits.wall_s)
            for other in running[1:]:
                other.wait(grace_s)
        finally:
            for proc in running:
                proc.stop()
        results = [proc.result(limits) for proc in running]
    if as_root:
        main = results[0]
        reaped = _reap_uid(uid)
        if reaped > main.leftover_processes:
            main.violations = [v for v in main.violations if "outlived the sandbox" not in v]
            main.violations.append(f"{reaped} process(es) outlived the sandbox and were killed")
            main.leftover_processes = reaped
    return results


def _bwrap_command(
    bwrap: str,
    command: SandboxCommand,
    scratch: Path,
    env: Mapping[str, str],
    uid: int | None,
    home: Path | None = None,
) -> list[str]:
    """The bwrap command line for `command`; `uid` is the private uid (run as root) or None
    (run as a user: a user namespace); `home` a private directory bound at /tmp."""
    if home is not None:
        tmp = ["--bind", str(home), "/tmp"]
        workdir, home_inside = "/tmp", "/tmp"
    else:
        tmp = ["--symlink", f"{INSIDE}/.tmp", "/tmp"]
        workdir, home_inside = INSIDE, None
    cmd = [
        bwrap,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        *_mounts(command.readonly),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *tmp,
        "--bind",
        str(scratch),
        INSIDE,
        "--chdir",
        workdir,
        *_environment(env, home_inside),
        "--remount-ro",
        "/",
    ]
    if uid is not None:
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        cmd += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        cmd += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    else:
        cmd[1:1] = ["--unshare-user"]
    return [*cmd, "/bin/sh", "-c", LEFTOVER_PROBE, "sv-sandbox", *command.argv]


@dataclass
class _Running:
    """One started sandbox: its process, output files and what happened to it."""

    proc: subprocess.Popen
    io: Path
    started: float
    timed_out: bool = False
    killed_late: bool = False
    ended: float | None = None

    @classmethod
    def start(
        cls, cmd: list[str], command: SandboxCommand, io: Path, limits: SandboxLimits, nproc: int
    ) -> _Running:
        io.mkdir()
        with (io / "stdout").open("wb") as out, (io / "stderr").open("wb") as err:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                preexec_fn=_limits_preexec(limits, nproc),
                start_new_session=True,
                close_fds=True,
                pass_fds=tuple(command.pass_fds),
                # bwrap runs inside as PID 1, and (as a non-root user) the code may read its
                # /proc/1/environ: it must not hold the caller's environment (API keys)
                env={"PATH": DEFAULT_PATH},
            )
        return cls(proc, io, time.perf_counter())

    def communicate(self, stdin: str, timeout: float) -> None:
        try:
            self.proc.communicate(stdin.encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            self.timed_out = True
            _kill_group(self.proc.pid)
            self.proc.wait()
        self.ended = time.perf_counter()

    def feed(self, stdin: str) -> None:
        """A command after the first: all of its stdin at once, then end of file."""
        if self.proc.stdin is not None:
            with suppress(OSError):
                self.proc.stdin.write(stdin.encode())
            with suppress(OSError):
                self.proc.stdin.close()

    def wait(self, grace_s: float) -> None:
        """A command after the first: `grace_s` to end once the main command has."""
        try:
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.killed_late = True
            _kill_group(self.proc.pid)
            self.proc.wait()
        except OSError:
            pass
        self.ended = time.perf_counter()

    def stop(self) -> None:
        _kill_group(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdin is not None:
            with suppress(OSError):
                self.proc.stdin.close()
        if self.ended is None:
            self.ended = time.perf_counter()

    def result(self, limits: SandboxLimits) -> SandboxResult:
        stdout, out_cut = _read_capped(self.io / "stdout", limits.output_bytes)
        stderr, err_cut = _read_capped(self.io / "stderr", limits.output_bytes)
        leftovers = sum(max(0, int(m)) for m in LEFTOVER_LINE.findall(stderr))
        stderr = LEFTOVER_LINE.sub("", stderr)
        violations: list[str] = []
        if self.timed_out:
            violations.append(f"wall-clock timeout after {limits.wall_s:g}s (process group killed)")
        elif self.killed_late:
            violations.append("still running after the main command ended (process group killed)")
        elif (sig := _signal_violation(self.proc.returncode)) is not None:
            violations.append(sig)
        violations += _stderr_violations(stderr)
        if out_cut or err_cut:
            violations.append(f"output truncated to {limits.output_bytes} bytes")
        if leftovers:
            violations.append(f"{leftovers} process(es) outlived the sandbox and were killed")
        return SandboxResult(
            returncode=None if self.timed_out else self.proc.returncode,
            stdout=stdout,
            stderr=stderr,
            duration_s=(self.ended or time.perf_counter()) - self.started,
            timed_out=self.timed_out,
            violations=violations,
            leftover_processes=leftovers,
        )


def _kill_group(pgid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _reap_uid(uid: int, grace_s: float = 1.0) -> int:
    """Kill anything still running as the run's private uid once the namespace's own
    teardown had `grace_s` to finish (there should be nothing)."""
    deadline = time.monotonic() + grace_s
    while (pids := _processes_of(uid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)


def _chown_tree(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)


def _make_removable(root: Path) -> None:
    """Give the owner rwx on every directory of the tree, top-down so that each one is fixed
    before it is entered (symlinks are never followed): a `chmod 000` directory left by the
    code would otherwise stop rmtree, which cannot retry entering it from its error hook."""
    with suppress(OSError):
        os.chmod(root, stat.S_IRWXU)
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            sub = os.path.join(dirpath, name)
            if not os.path.islink(sub):
                with suppress(OSError):
                    os.chmod(sub, stat.S_IRWXU)


def _force_remove(func, path, _exc) -> None:
    parent = os.path.dirname(path)
    os.chmod(parent, stat.S_IRWXU)
    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, stat.S_IRWXU)
    func(path)


@contextmanager
def scratch_dir(prefix: str = "sv-sandbox-") -> Iterator[Path]:
    """A fresh scratch directory, removed afterwards whatever the sandboxed code left in it."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        _make_removable(path)
        shutil.rmtree(path, onerror=_force_remove)


def sandbox_available() -> str | None:
    """None when a trivial sandboxed command runs, else the reason it does not."""
    try:
        with scratch_dir() as scratch:
            result = run_sandboxed(["/bin/true"], scratch, SandboxLimits(wall_s=10))
    except (SandboxUnavailable, OSError) as exc:
        return str(exc)
    if result.returncode != 0:
        return f"bwrap failed: {result.stderr.strip()[-300:]}"
    return None
