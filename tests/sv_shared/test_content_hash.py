"""The two content-hash forms environments record (byte-for-byte as before they were shared)."""

from __future__ import annotations

import hashlib

from sv_shared.content_hash import json_sha256, lines_sha256


def test_json_sha256_is_the_digest_of_sorted_json() -> None:
    expected = hashlib.sha256(b'[{"a": 1, "b": 2}]').hexdigest()
    assert json_sha256([{"b": 2, "a": 1}]) == expected
    assert json_sha256([{"b": 2, "a": 1}], prefix=True) == f"sha256:{expected}"
    assert json_sha256([object], default=lambda o: "x") == hashlib.sha256(b'["x"]').hexdigest()


def test_lines_sha256_is_order_sensitive() -> None:
    assert lines_sha256(["a", "b"]) == "sha256:" + hashlib.sha256(b"a\nb\n").hexdigest()
    assert lines_sha256(["b", "a"]) != lines_sha256(["a", "b"])
