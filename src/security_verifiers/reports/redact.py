"""What a report may print: no URL credentials, no absolute machine paths.

Runs written before the harness stripped credentials at the source can carry a password in
`MODEL@http://user:pw@host/v1` (model name, base_url, run directory name). Everything the report
prints passes through `clean_text` / `clean_value`, and the rendered documents go through
`clean_text` once more as a last line of defence.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from security_verifiers.url_credentials import strip_userinfo

ABSOLUTE = re.compile(r"^(?:/|~[/\\]|[A-Za-z]:[\\/])")


def slug(text: str) -> str:
    """The harness's filesystem-safe form of a model name (ModelSpec.slug)."""
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in text)
    return keep.strip("-") or "model"


def is_absolute_path(text: str) -> bool:
    return bool(ABSOLUTE.match(text)) and "\n" not in text and "://" not in text


def short_path(text: str) -> str:
    """An absolute path reduced to its last component (`…/name`); anything else unchanged."""
    if not is_absolute_path(text):
        return text
    name = (PureWindowsPath(text) if "\\" in text else PurePosixPath(text)).name
    return f"…/{name}" if name else "…"


def clean_text(text: str) -> str:
    return short_path(strip_userinfo(text))


def clean_value(value: Any) -> Any:
    """A JSON-like value with credentials and absolute paths removed from every string."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, Mapping):
        return {clean_text(str(k)): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(v) for v in value]
    return value


def display_path(path: Path, out_dir: Path, secrets: Mapping[str, str] | None = None) -> str:
    """`path` relative to the report's output folder (POSIX separators), never absolute.

    `secrets` maps text to replace in the result (e.g. the slug of a model name holding a
    password, which the harness put in the run directory's name) to its safe form.
    """
    try:
        rel = os.path.relpath(path.resolve(), out_dir.resolve())
    except ValueError:  # another drive (Windows)
        rel = path.name
    common = os.path.commonpath([str(path.resolve()), str(out_dir.resolve())])
    if common == os.path.abspath(os.sep):  # nothing shared but the root: keep the tail only
        rel = "/".join(path.parts[-2:])
    text = Path(rel).as_posix()
    for unsafe, safe in (secrets or {}).items():
        if unsafe and unsafe != safe:
            text = text.replace(unsafe, safe)
    return strip_userinfo(text)
