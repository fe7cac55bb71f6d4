"""The remote-object layer between the test process and the candidate process, in one
process: a guarded test-side Peer talks to a candidate-side Peer served from a thread over a
real socket pair (the sandboxed setup is exercised in test_trust_boundary.py)."""

from __future__ import annotations

import datetime
import decimal
import io
import json
import os
import pathlib
import socket
import ssl
import struct
import sys
import threading
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

import sv_env_code_vulnerability

sys.path.insert(0, str(pathlib.Path(sv_env_code_vulnerability.__file__).parent / "sandbox_files"))

from sv_proxy import RemoteModule, star_names
from sv_rpc import Peer, ProcessContext
from sv_wire import Channel, PeerLost, PeerTimeout

CANDIDATE = '''
import io
import ssl
from dataclasses import dataclass


class VaultError(Exception):
    """Base error of the module."""


class Locked(VaultError):
    def __init__(self, door):
        super().__init__(f"door {door} is locked")
        self.door = door


@dataclass
class Item:
    name: str
    qty: int


class Box:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return self

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __contains__(self, name):
        return any(i.name == name for i in self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SHARED = Box()
LIMIT = 10


def open_vault(door):
    raise Locked(door)


def apply(fn, *args):
    return fn(*args)


def echo(value):
    return value


def stream():
    return io.StringIO("hello")


def context():
    return ssl.create_default_context()


def shared():
    return SHARED


def reach(obj, name):
    return getattr(obj, name)


def sneaky_import(name):
    return PEER.request("import", None, name)
'''


def _serve(peer: Peer) -> None:
    with suppress(PeerLost):
        peer.serve()


@contextmanager
def connected(source: str = CANDIDATE, name: str = "candmod") -> Iterator[RemoteModule]:
    """A RemoteModule for `source`, whose code runs behind a candidate-side Peer."""
    module = types.ModuleType(name)
    test_end, candidate_end = socket.socketpair()
    candidate = Peer(Channel(candidate_end), guarded=False, importable={name})
    module.PEER = candidate
    sys.modules[name] = module
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    thread = threading.Thread(target=_serve, args=(candidate,), daemon=True)
    thread.start()
    test = Peer(Channel(test_end, time.monotonic() + 20), guarded=True, excluded={name})
    try:
        yield RemoteModule(name, test)
    finally:
        test_end.close()
        thread.join(5)
        candidate_end.close()
        del sys.modules[name]


def test_plain_values_cross_by_value():
    values = [
        None, True, 3, 2.5, "ünï", b"\x00\xff", [1, [2, (3, frozenset({4}))]], {"a": {1: b"x"}},
        {1, 2}, pathlib.Path("/tmp/x"), datetime.datetime(2024, 5, 1, 9, 30),
        datetime.date(2024, 1, 2), datetime.timedelta(days=1, seconds=3), decimal.Decimal("1.5"),
        ssl.CERT_REQUIRED, ssl.TLSVersion.TLSv1_2,
    ]  # fmt: skip
    with connected() as mod:
        for value in values:
            back = mod.echo(value)
            assert back == value and type(back) is type(value), value
        assert mod.echo(float("nan")) != mod.echo(float("nan"))


def test_objects_stay_remote_and_keep_identity_and_behaviour():
    with connected() as mod:
        box = mod.shared()
        assert box is mod.shared() and box is mod.SHARED
        assert type(box).__name__ == "Remote" and not isinstance(box, list)
        box.add(mod.Item("tea", 2)).add(mod.Item("mug", 1))
        assert len(box) == 2 and bool(box)
        # membership iterates and compares here (by value): the Box's own __contains__,
        # which matches names, never decides
        assert mod.Item("tea", 2) in box and "tea" not in box
        assert box[0] == mod.Item("tea", 2) and box[0] != mod.Item("tea", 3)
        assert [i.name for i in box] == ["tea", "mug"]
        assert box[1].qty == 1 and repr(box[0]) == "Item(name='tea', qty=2)"
        with box as same:
            assert same is box
        mod.LIMIT = 11
        assert mod.LIMIT == 11
        with pytest.raises(TypeError):
            isinstance(box, mod.Box)  # candidate classes decide no isinstance check
        assert callable(mod.echo) and not callable(box)
        with pytest.raises(TypeError):
            hash(box[0])  # a dataclass with eq=True is unhashable, here too


def test_class_claims_of_candidate_objects_are_not_believed():
    with connected() as mod:
        ctx = mod.context()
        assert not isinstance(ctx, ssl.SSLContext) and ctx.__class__ is type(ctx)
        assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname is True
        assert not isinstance(mod.stream(), io.StringIO) and mod.stream().read() == "hello"


def test_exceptions_reraise_as_builtin_or_mirrored_classes():
    with connected() as mod:
        vault_error, locked = mod.VaultError, mod.Locked
        assert isinstance(vault_error, type) and issubclass(locked, vault_error)
        assert issubclass(vault_error, Exception) and mod.Locked is locked
        with pytest.raises(vault_error) as caught:
            mod.open_vault(7)
        assert type(caught.value) is locked and str(caught.value) == "door 7 is locked"
        assert caught.value.door == 7
        with pytest.raises(KeyError):
            mod.apply({}.__getitem__, "missing")
        with pytest.raises(AttributeError):
            mod.not_there  # noqa: B018
        with pytest.raises(ImportError):
            exec("from candmod import not_there", {})


def test_callbacks_run_in_the_test_process():
    seen = []
    with connected() as mod:
        assert mod.apply(lambda v: seen.append(v) or v * 2, 21) == 42
        assert seen == [21]
        with pytest.raises(ZeroDivisionError):
            mod.apply(lambda: 1 / 0)


def test_the_candidate_reaches_only_what_a_test_hands_it():
    with connected() as mod:
        callback = lambda: None  # noqa: E731
        for name in ("__globals__", "__code__", "_private", "gi_frame", "f_globals"):
            with pytest.raises(AttributeError):
                mod.reach(callback, name)
        gen = (i for i in range(3))
        with pytest.raises(AttributeError):
            mod.reach(gen, "gi_frame")
        with pytest.raises(TypeError):
            mod.apply(lambda: os)  # a module is never handed over
        with pytest.raises(TypeError):
            mod.apply(lambda: os.system)  # nor a module-level builtin function
        with pytest.raises(TypeError):
            mod.echo(print)
        with pytest.raises(PermissionError):
            mod.sneaky_import("os")


def test_star_import_never_rebinds_builtins_or_stdlib_module_names():
    source = "import pathlib\n__all__ = ['pathlib', 'isinstance', 'open', 'GOOD', '_x']\nGOOD = 1\n"
    with connected(source) as mod:
        assert mod.__all__ == ["GOOD"]
    assert star_names(["json", "len", "Cart", "_p", "for", 3]) == ["Cart"]


def _fake_candidate(reply: bytes) -> Peer:
    """A test-side Peer whose other end reads one request and answers `reply` raw."""
    test_end, other = socket.socketpair()

    def answer() -> None:
        size = struct.unpack("!I", other.recv(4))[0]
        while size:
            size -= len(other.recv(size))
        other.sendall(reply)

    threading.Thread(target=answer, daemon=True).start()
    context = ProcessContext(test_side=True)
    return Peer(Channel(test_end, time.monotonic() + 5), guarded=True, context=context)


def _frame(message: object) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack("!I", len(data)) + data


@pytest.mark.parametrize(
    "reply",
    [
        b"\x00\x00\x00\x05{oops",
        struct.pack("!I", 1 << 30),
        _frame([1, 2]),
        _frame({"r": 99, "ok": 1}),
        _frame({"r": 1, "ok": {"#": "pickle", "v": "gASVAAAA"}}),
        _frame({"r": 1, "ok": {"#": "yours", "id": 5}}),
        _frame({"r": 1, "ok": {"#": "ref", "id": -1}}),
        _frame({"r": 1, "err": 3}),
        _frame({"r": 1, "ok": {"#": "list", "v": "abc"}}),
        _frame({"r": 1, "ok": 1, "x": {"random": [3, [1, 2], None]}}),
        b"",
    ],
)
def test_a_malformed_answer_ends_the_connection_uncatchably(reply: bytes):
    peer = _fake_candidate(reply)
    with pytest.raises(PeerLost):
        peer.request("import", None, "m")
    assert not issubclass(PeerLost, Exception)  # `except Exception` in a test cannot hide it
    assert peer.trouble == "lost" and peer.channel.dead
    with pytest.raises(PeerLost):
        peer.request("import", None, "m")


def test_a_silent_candidate_times_out_and_the_connection_stays_dead():
    test_end, _other = socket.socketpair()
    peer = Peer(Channel(test_end, time.monotonic() + 0.3), guarded=True)
    with pytest.raises(PeerTimeout):
        peer.request("import", None, "m")
    assert isinstance(PeerTimeout("x"), TimeoutError) and peer.trouble == "timeout"
    with pytest.raises(PeerLost):
        peer.request("import", None, "m")


def test_process_context_carries_environment_umask_cwd_and_random_once():
    import random

    test_side = ProcessContext(test_side=True)
    first = test_side.outgoing()
    assert {"env", "umask", "cwd", "random"} <= set(first)
    assert test_side.outgoing() == {}
    random.seed(0)
    assert set(test_side.outgoing()) == {"random"}
    candidate = ProcessContext(test_side=False)
    state = random.getstate()
    random.seed(1)
    candidate.incoming({"random": first["random"]})
    assert random.getstate() != state  # took the test's state
    with pytest.raises(ValueError):
        candidate.incoming({"random": [3, [2**40] * 625, None]})
