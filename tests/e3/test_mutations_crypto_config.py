"""E3 mutation operators for crypto and configuration weaknesses: each rewrites what it should,
keeps the module valid Python, refuses sources without its pattern, and the seeds that use
them build."""

from __future__ import annotations

import ast
import hashlib
import os
import random
import re
import ssl
import stat
import textwrap

import pytest

from sv_env_code_vulnerability.generator import build_item
from sv_env_code_vulnerability.library import all_seeds
from sv_env_code_vulnerability.mutations import OPERATORS, NotApplicable, apply_operators

MY_OPERATORS = (
    "weak_hash",
    "secrets_to_random",
    "disable_tls_verify",
    "enable_external_entities",
    "permissive_mode",
    "nested_quantifier",
)
MY_CWES = {
    "CWE-20",
    "CWE-117",
    "CWE-295",
    "CWE-327",
    "CWE-330",
    "CWE-601",
    "CWE-611",
    "CWE-732",
    "CWE-918",
    "CWE-1333",
}


def mutate(name: str, source: str) -> str:
    out = OPERATORS[name](textwrap.dedent(source))
    ast.parse(out)
    return out


def load(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<mutated>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", MY_OPERATORS)
def test_registered(name: str) -> None:
    assert name in OPERATORS


@pytest.mark.parametrize("name", MY_OPERATORS)
def test_not_applicable_without_pattern(name: str) -> None:
    source = "import os\n\n\ndef f(x: int) -> int:\n    return x + 1\n"
    with pytest.raises(NotApplicable):
        OPERATORS[name](source)


# ---------------------------------------------------------------- weak_hash

HASHES = """
import hashlib
import hmac


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def derive(password: bytes, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password, salt, 1000)


def sign(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha512).hexdigest()


def sign2(key: bytes, body: bytes) -> bytes:
    return hmac.new(key, body, digestmod="sha3_256").digest()


def named(data: bytes) -> str:
    return hashlib.new("blake2b", data).hexdigest()


def file_sum(fh) -> str:
    return hashlib.file_digest(fh, "sha384").hexdigest()
"""


def test_weak_hash_rewrites_every_strong_digest() -> None:
    out = mutate("weak_hash", HASHES)
    assert "hashlib.md5(data)" in out
    assert 'hashlib.pbkdf2_hmac("sha1", password' in out
    assert "hmac.new(key, body, hashlib.md5)" in out
    assert 'digestmod="md5"' in out
    assert 'hashlib.new("md5", data)' in out
    assert 'hashlib.file_digest(fh, "md5")' in out
    assert not re.search(r"sha256|sha512|sha3|blake2", out)
    ns = load(out)
    assert ns["digest"](b"x") == hashlib.md5(b"x").hexdigest()
    assert len(ns["derive"](b"pw", b"salt")) == 20


def test_weak_hash_keeps_quote_style_and_sink_marks() -> None:
    source = """
    import hashlib


    def a(d):
        return hashlib.pbkdf2_hmac('sha512', d, b"s", 1)


    def b(d):
        return hashlib.sha256(d).digest()  # sv:sink
    """
    out = mutate("weak_hash", source)
    assert "'sha512'" in out  # only the marked line changes
    assert "hashlib.md5(d).digest()" in out


def test_weak_hash_ignores_already_weak_calls() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["weak_hash"]("import hashlib\nx = hashlib.md5(b'').hexdigest()\n")


# ---------------------------------------------------------------- secrets_to_random

SECRETS = """
import secrets
import string


def token() -> str:
    return secrets.token_hex(16)


def link_token() -> str:
    return secrets.token_urlsafe(24)


def raw() -> bytes:
    return secrets.token_bytes(8)


def pin() -> str:
    return "".join(secrets.choice(string.digits) for _ in range(6))


def draw() -> int:
    return secrets.randbelow(1000)
"""


def test_secrets_to_random_rewrites_calls_and_imports() -> None:
    out = mutate("secrets_to_random", SECRETS)
    assert "secrets" not in out  # the unused import goes too
    assert "import base64\nimport random\nimport string\n" in out  # alphabetical placement
    assert "random.randbytes(16).hex()" in out
    assert "random.choice(string.digits)" in out
    assert "random.randrange(1000)" in out
    ns = load(out)
    for fn, length in (("token", 32), ("link_token", 32), ("raw", 8), ("pin", 6)):
        random.seed(7)
        first = ns[fn]()
        random.seed(7)
        assert ns[fn]() == first, fn  # now reproducible from the seed
        assert len(first) == length, fn
    assert all(c.isalnum() or c in "-_" for c in ns["link_token"]())


def test_secrets_to_random_keeps_secrets_import_still_used() -> None:
    source = """
    import secrets


    def a() -> str:
        return secrets.token_hex()


    def b(x: str, y: str) -> bool:
        return secrets.compare_digest(x, y)
    """
    out = mutate("secrets_to_random", source)
    assert "import secrets" in out and "import random" in out
    assert "random.randbytes(32).hex()" in out


def test_secrets_to_random_handles_os_urandom() -> None:
    out = mutate("secrets_to_random", "import os\n\nsalt = os.urandom(16)\n")
    assert "salt = random.randbytes(16)" in out
    assert "import random" in out


# ---------------------------------------------------------------- disable_tls_verify


def test_disable_tls_verify_default_context() -> None:
    source = """
    import ssl


    def client(ca=None):
        return ssl.create_default_context(cafile=ca)


    def server():
        return ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    """
    out = mutate("disable_tls_verify", source)
    assert "ssl._create_unverified_context(cafile=ca)" in out
    assert "ssl._create_unverified_context(purpose=ssl.Purpose.CLIENT_AUTH)" in out
    ctx = load(out)["client"]()
    assert ctx.verify_mode == ssl.CERT_NONE and not ctx.check_hostname


def test_disable_tls_verify_explicit_settings() -> None:
    source = """
    import ssl


    def client():
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = True
        ctx.verify_mode = ssl.CERT_REQUIRED
        return ctx
    """
    out = mutate("disable_tls_verify", source)
    assert "ctx.check_hostname = False\n    ctx.verify_mode = ssl.CERT_NONE" in out
    assert out.count("check_hostname") == 1
    ctx = load(out)["client"]()
    assert ctx.verify_mode == ssl.CERT_NONE


def test_disable_tls_verify_turns_hostname_checks_off_first() -> None:
    # CERT_NONE on a context that still checks hostnames raises: the operator must add
    # `check_hostname = False` before the verify_mode assignment
    source = """
    import ssl


    class Client:
        def __init__(self):
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self.ctx.verify_mode = ssl.CERT_REQUIRED
    """
    out = mutate("disable_tls_verify", source)
    assert "self.ctx.check_hostname = False\n        self.ctx.verify_mode = ssl.CERT_NONE" in out
    assert load(out)["Client"]().ctx.verify_mode == ssl.CERT_NONE


# ---------------------------------------------------------------- enable_external_entities

XML_SOURCE = """
import io
import xml.sax
from xml.sax.handler import ContentHandler, feature_external_ges


class Text(ContentHandler):
    def __init__(self):
        super().__init__()
        self.parts = []

    def characters(self, content):
        self.parts.append(content)


def text_of(data: bytes) -> str:
    parser = xml.sax.make_parser()
    parser.setFeature(feature_external_ges, False)
    parser.setFeature(xml.sax.handler.feature_external_pes, False)
    handler = Text()
    parser.setContentHandler(handler)
    parser.parse(io.BytesIO(data))
    return "".join(handler.parts)
"""


def test_enable_external_entities(tmp_path) -> None:
    out = mutate("enable_external_entities", XML_SOURCE)
    assert "setFeature(feature_external_ges, True)" in out
    # expat cannot resolve external parameter entities at all: that call is left alone
    assert "setFeature(xml.sax.handler.feature_external_pes, False)" in out
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    doc = (
        f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "{secret.as_uri()}">]><r>&x;</r>'
    ).encode()
    assert "TOP-SECRET" not in load(textwrap.dedent(XML_SOURCE))["text_of"](doc)
    assert "TOP-SECRET" in load(out)["text_of"](doc)


def test_enable_external_entities_by_uri_and_only_when_off() -> None:
    source = (
        "def f(p):\n"
        '    p.setFeature("http://xml.org/sax/features/external-general-entities", 0)\n'
        "    p.setFeature(xml.sax.handler.feature_namespaces, False)\n"
    )
    out = mutate("enable_external_entities", source)
    assert 'external-general-entities", True)' in out
    assert "feature_namespaces, False" in out
    with pytest.raises(NotApplicable):
        OPERATORS["enable_external_entities"](out)  # already on


# ---------------------------------------------------------------- permissive_mode

MODES = """
import os
import stat
from pathlib import Path


def write_secret(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)


def make_dirs(base: Path) -> None:
    os.makedirs(base / "a", 0o750, exist_ok=True)
    os.mkdir(base / "b", mode=0o700)
    (base / "c.sh").touch(mode=0o700)
    (base / "d.txt").touch()
    (base / "d.txt").chmod(0o640)
"""


def test_permissive_mode_rewrites_literal_modes() -> None:
    out = mutate("permissive_mode", MODES)
    assert "mkdir(mode=0o777, parents=True" in out
    assert "os.O_TRUNC, 0o666)" in out
    assert "os.chmod(path, 0o666)" in out
    assert 'os.makedirs(base / "a", 0o777' in out
    assert 'os.mkdir(base / "b", mode=0o777)' in out
    assert "touch(mode=0o777)" in out  # an executable file keeps its x bits
    assert '(base / "d.txt").touch()' in out  # no mode given: left alone
    assert "chmod(0o666)" in out


def test_permissive_mode_files_become_group_writable(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        load(mutate("permissive_mode", MODES))["write_secret"](tmp_path / "k" / "key", "s")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "k" / "key").st_mode) == 0o666


def test_permissive_mode_umask_and_noop() -> None:
    assert "os.umask(0o000)" in mutate("permissive_mode", "import os\nos.umask(0o077)\n")
    with pytest.raises(NotApplicable):
        OPERATORS["permissive_mode"]("import os\nos.chmod('x', 0o666)\nos.mkdir('d', 0o777)\n")


# ---------------------------------------------------------------- nested_quantifier


def test_nested_quantifier_module_constant_and_first_call_only() -> None:
    source = r"""
    import re

    SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
    SLUG_RE = re.compile(SLUG)


    def words(text):
        return re.findall(r"[a-z]+", text)
    """
    out = mutate("nested_quantifier", source)
    assert 'SLUG = r"(?:[a-z0-9]+)+(?:-[a-z0-9]+)*"' in out
    assert 're.findall(r"[a-z]+", text)' in out


def test_nested_quantifier_inline_literal_keeps_meaning() -> None:
    source = r"""
    import re


    def is_email(s):
        return re.fullmatch(r"[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", s) is not None
    """
    out = mutate("nested_quantifier", source)
    assert r'r"(?:[\w.%+-]+)+@' in out
    fn = load(out)["is_email"]
    assert fn("a.b@example.com") and not fn("nope")
    pattern = re.search(r're\.fullmatch\((r".*?"), s\)', out).group(1)
    assert re.compile(ast.literal_eval(pattern)).pattern.startswith("(?:[")


def test_nested_quantifier_shorthand_and_bracket_edge_cases() -> None:
    out = mutate("nested_quantifier", 'import re\nR = re.compile("\\\\w+@x")\n')
    assert 'R = re.compile("(?:\\\\w+)+@x")' in out
    out = mutate("nested_quantifier", 'import re\nR = re.compile(r"[]a]+-")\n')
    assert 're.compile(r"(?:[]a]+)+-")' in out


def test_nested_quantifier_not_applicable_without_plus_atom() -> None:
    with pytest.raises(NotApplicable):
        OPERATORS["nested_quantifier"]('import re\nR = re.compile(r"[a-z]{3}\\d*")\n')
    with pytest.raises(NotApplicable):  # lazy / possessive atoms are left alone
        OPERATORS["nested_quantifier"]('import re\nR = re.compile(r"[a-z]+?x")\n')


# ---------------------------------------------------------------- the seeds using them


def my_seeds():
    return [s for s in all_seeds() if s.cwe in MY_CWES]


def test_every_cwe_has_three_seeds() -> None:
    counts: dict[str, int] = {}
    for seed in my_seeds():
        counts[seed.cwe] = counts.get(seed.cwe, 0) + 1
    assert counts == dict.fromkeys(MY_CWES, 3)


@pytest.mark.parametrize("seed", my_seeds(), ids=lambda s: s.seed_id)
def test_seed_builds_with_a_small_fix(seed) -> None:
    vulnerable = apply_operators(seed.source, seed.mutations)
    assert vulnerable != seed.source
    item = build_item(seed)
    assert "sv:" not in item.vulnerable and "sv:" not in item.secure
    changed = [
        line
        for line in item.reference_diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert 1 <= len(changed) <= 6
    assert 20 <= len(item.secure.splitlines()) <= 90  # small, realistic modules
    assert f"\nfrom {seed.module} import " in "\n" + item.functional_tests
