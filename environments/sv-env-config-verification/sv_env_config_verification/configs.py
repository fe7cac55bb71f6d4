"""Episode config files: validation, parsing and resource attribution.

A `ConfigFile` is one Kubernetes manifest (multi-document YAML) or one Terraform file. It is
validated on construction (plain file name, size, text) and every tool only ever sees a temp
copy of its text written under its plain name.

Terraform is parsed with `hcl2` (bc-python-hcl2) and normalised by `normalise_terraform` into
the input that the Rego policy pack reads (shape documented on that function).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

Kind = Literal["k8s", "terraform"]
KINDS: tuple[Kind, ...] = ("k8s", "terraform")
MAX_CONFIG_BYTES = 256 * 1024
MAX_NODES = 200_000  # parsed values (aliases counted each time they expand)
MAX_NAME_LEN = 128
EXTENSIONS: dict[Kind, tuple[str, ...]] = {"k8s": (".yaml", ".yml"), "terraform": (".tf",)}
SOURCE_EXTENSIONS: dict[Kind, tuple[str, ...]] = {
    "k8s": (".yaml", ".yml", ".json"),
    "terraform": (".tf",),
}
"""Suffixes of config *source* files; a JSON manifest becomes a YAML episode (`manifest_text`)."""
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
TF_BLOCK_TYPES = frozenset(
    {
        "resource",
        "data",
        "variable",
        "locals",
        "output",
        "provider",
        "terraform",
        "module",
        "moved",
        "import",
        "check",
        "removed",
    }
)


class ConfigError(ValueError):
    """An episode config that cannot be scanned (bad name, size, encoding or syntax)."""


def _check_name(name: object, kind: Kind) -> None:
    if not isinstance(name, str) or not name:
        raise ConfigError("config name must be a non-empty string")
    if "/" in name or "\\" in name or "\x00" in name or name in {".", ".."}:
        raise ConfigError(f"config name must be a plain file name, not a path: {name!r}")
    if len(name) > MAX_NAME_LEN or not _NAME_RE.match(name):
        raise ConfigError(
            f"config name {name!r} must be a plain file name of at most {MAX_NAME_LEN} "
            "characters from [A-Za-z0-9._-]"
        )
    if not name.lower().endswith(EXTENSIONS[kind]):
        raise ConfigError(f"a {kind} config name must end with {' or '.join(EXTENSIONS[kind])}")


def check_text(text: object) -> str:
    """Validate raw episode text: a str, non-empty, within `MAX_CONFIG_BYTES`, no NUL bytes."""
    if isinstance(text, bytes | bytearray):
        text = decode_text(bytes(text))
    if not isinstance(text, str):
        raise ConfigError(f"config text must be str, got {type(text).__name__}")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # lone surrogates
        raise ConfigError(f"config text is not valid Unicode: {exc.reason}") from None
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"config is {size} bytes; the limit is {MAX_CONFIG_BYTES} bytes")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ConfigError(f"config contains NUL bytes (binary data) at line {line}")
    if not text.strip():
        raise ConfigError("config is empty")
    return text


def decode_text(data: bytes) -> str:
    """Decode UTF-8 bytes (BOM allowed) with a clear error for binary or undecodable input."""
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config is {len(data)} bytes; the limit is {MAX_CONFIG_BYTES} bytes")
    if b"\x00" in data:
        raise ConfigError("config contains NUL bytes (binary data)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config is not UTF-8 text (undecodable byte at offset {exc.start})"
        ) from None


@dataclass(frozen=True)
class ConfigFile:
    """One episode config: `kind`, a plain file `name` and its `text` (validated)."""

    kind: Kind
    name: str
    text: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"unknown config kind {self.kind!r}; expected one of {KINDS}")
        _check_name(self.name, self.kind)
        object.__setattr__(self, "text", check_text(self.text))

    @classmethod
    def from_bytes(cls, kind: Kind, name: str, data: bytes) -> ConfigFile:
        return cls(kind, name, decode_text(data))

    @property
    def content_hash(self) -> str:
        """sha256 of the UTF-8 text."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def detect_kind(name: str, text: str) -> Kind:
    """'k8s' or 'terraform' from the file extension (`SOURCE_EXTENSIONS`), else the content."""
    lower = name.lower()
    if lower.endswith(".tf.json"):
        raise ConfigError(f"{name!r}: Terraform JSON (.tf.json) is not supported; use HCL (.tf)")
    for kind, exts in SOURCE_EXTENSIONS.items():
        if lower.endswith(exts):
            return kind
    if re.search(r"^\s*(resource|data|provider|terraform|module|variable)\s+\"", text, re.M):
        return "terraform"
    if re.search(r"^apiVersion\s*:", text, re.M) and re.search(r"^kind\s*:", text, re.M):
        return "k8s"
    if _JSON_MANIFEST_RE.match(text) and '"kind"' in text:
        return "k8s"
    raise ConfigError(f"cannot tell whether {name!r} is a Kubernetes or a Terraform config")


_JSON_MANIFEST_RE = re.compile(r'^\ufeff?\s*\{\s*"(apiVersion|kind|items|metadata)"\s*:')


def manifest_text(name: str, text: str) -> str:
    """The episode text of a Kubernetes source file.

    JSON is YAML, so a JSON manifest (a `.json` name, or text that starts like a JSON object)
    keeps its text, unless YAML would read it differently (tab indentation, exponent
    numbers, ...): then it is re-indented as JSON with two spaces. Invalid JSON in a `.json`
    file raises `ConfigError`; other texts are returned unchanged.
    """
    is_json_name = name.lower().endswith(".json")
    if not is_json_name and not _JSON_MANIFEST_RE.match(text):
        return text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        if not is_json_name:
            return text
        if isinstance(exc, json.JSONDecodeError):
            raise ConfigError(
                f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        raise ConfigError(f"invalid JSON: {type(exc).__name__}") from None
    try:
        same = yaml.load(text, Loader=_Loader) == value
    except yaml.YAMLError:
        same = False
    return text if same else json.dumps(value, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- Kubernetes


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings (JSON-compatible, like the k8s API) and
    refuses what tools read differently: merge keys (`<<`) and duplicate mapping keys."""

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        for key, _ in node.value:
            if key.tag == "tag:yaml.org,2002:merge":
                raise yaml.constructor.ConstructorError(
                    None, None, "YAML merge keys (<<) are not supported", key.start_mark
                )
        super().flatten_mapping(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep=deep)
        if len(mapping) < len(node.value):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = getattr(key_node, "value", None)
                if isinstance(key_node, yaml.ScalarNode) and key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate mapping key {key!r}", key_node.start_mark
                    )
                seen.add(key)
            raise yaml.constructor.ConstructorError(
                None, None, "duplicate mapping key", node.start_mark
            )
        return mapping


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


def _yaml_error(exc: yaml.YAMLError) -> ConfigError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    return ConfigError(f"invalid YAML{where}: {problem}")


MAX_DEPTH = 64
"""Deepest nesting of a parsed config (real manifests stay far below it)."""


def _json_text(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"string {value[:40]!r} is not valid Unicode (lone surrogate)") from None
    return value


def _jsonable(value: Any, budget: list[int], depth: int = 0) -> Any:
    """A plain-JSON copy; aliases are expanded within `MAX_NODES` (YAML bombs fail).

    Raises `ConfigError` for what has no single JSON reading: non-string mapping keys, NaN or
    infinite numbers, strings with lone surrogates, binary/set/timestamp/ordered-map values
    (explicit YAML tags) and nesting deeper than `MAX_DEPTH`.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise ConfigError(f"config expands to more than {MAX_NODES} values (YAML aliases?)")
    if depth > MAX_DEPTH:
        raise ConfigError(f"config is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigError(f"mapping key {key!r} is not a string (quote it)")
            out[_json_text(key)] = _jsonable(item, budget, depth + 1)
        return out
    if isinstance(value, list):
        return [_jsonable(v, budget, depth + 1) for v in value]
    if isinstance(value, str):
        return _json_text(value)
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        raise ConfigError(f"{value} is not a JSON number")
    if value is None or isinstance(value, bool | int | float):
        return value
    raise ConfigError(f"a {type(value).__name__} value (explicit YAML tag?) has no JSON form")


def is_list_object(doc: object) -> bool:
    """True for a `kind: List` (or `<Kind>List`) wrapper whose objects are in `items`."""
    if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
        return False
    named = isinstance(doc.get("metadata"), dict) and bool(doc["metadata"].get("name"))
    return doc["kind"].endswith("List") and "items" in doc and not named


def _check_object(obj: object, where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ConfigError(f"{where} is a {type(obj).__name__}, not a Kubernetes object")
    for key in ("apiVersion", "kind"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise ConfigError(f"{where} has no {key!r} (every object needs apiVersion/kind)")
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise ConfigError(f"{where} ({obj['kind']}) has no metadata.name")
    return obj


def manifest_objects(doc: object, where: str) -> list[dict[str, Any]]:
    """The Kubernetes objects of one YAML document (`where` names it in errors).

    A plain document is one object. A `kind: List` document (see `is_list_object`) stands for
    its `items`: each item is an object with its own apiVersion, kind and metadata.name (so its
    own resource name); nested lists are refused.
    """
    if not is_list_object(doc):
        return [_check_object(doc, where)]
    assert isinstance(doc, dict)
    items = doc["items"]
    if items is None:
        return []
    if not isinstance(items, list):
        raise ConfigError(f"{where} ({doc['kind']}) has items that are not a list")
    out = []
    for j, item in enumerate(items):
        at = f"{where} item {j + 1}"
        if is_list_object(item):
            raise ConfigError(f"{at} is a nested {item['kind']}")
        out.append(_check_object(item, at))
    return out


def _parse_k8s(text: str) -> list[dict[str, Any]]:
    """The objects of a multi-document manifest; empty documents are skipped.

    Every object must be a mapping with string `apiVersion`, `kind` and `metadata.name`; a
    `kind: List` document contributes its items (see `manifest_objects`).
    """
    text = check_text(text)
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        raise _yaml_error(exc) from None
    except RecursionError:
        raise ConfigError(f"YAML is nested more than {MAX_DEPTH} levels deep") from None
    objects: list[dict[str, Any]] = []
    budget = [MAX_NODES]
    starts = [s for s, _, _ in _doc_spans(text)]
    for i, doc in enumerate(docs):
        if doc is None:
            continue
        where = f"document {i + 1}" + (f" (line {starts[i]})" if i < len(starts) else "")
        objects.extend(_jsonable(o, budget) for o in manifest_objects(doc, where))
    if not objects:
        raise ConfigError("manifest contains no Kubernetes objects")
    return objects


def _compose_spans(text: str) -> list[tuple[int, int, Any]]:
    """(first line, last line, node) per YAML document, 1-based; [] on YAML errors."""
    spans = []
    try:
        for node in yaml.compose_all(text, Loader=_Loader):
            if node is None:
                spans.append((0, 0, None))
                continue
            end = node.end_mark.line + (1 if node.end_mark.column else 0)
            spans.append((node.start_mark.line + 1, max(end, node.start_mark.line + 1), node))
    except yaml.YAMLError:
        return []
    return spans


def k8s_resource(obj: dict[str, Any]) -> str:
    """Canonical resource name of a Kubernetes object: '<Kind>/<metadata.name>'."""
    return f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}"


def _node_resource(node: yaml.Node) -> tuple[str | None, dict[str, yaml.Node]]:
    """('Kind/name' or None, top-level fields) of a composed YAML mapping node."""
    if not isinstance(node, yaml.MappingNode):
        return None, {}
    fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    kind, meta = fields.get("kind"), fields.get("metadata")
    name = None
    if isinstance(meta, yaml.MappingNode):
        name = next((v.value for k, v in meta.value if getattr(k, "value", None) == "name"), None)
    if isinstance(kind, yaml.ScalarNode) and isinstance(name, str) and name:
        return f"{kind.value}/{name}", fields
    return None, fields


def _node_lines(node: yaml.Node) -> tuple[int, int]:
    end = node.end_mark.line + (1 if node.end_mark.column else 0)
    return node.start_mark.line + 1, max(end, node.start_mark.line + 1)


def k8s_spans(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, 'Kind/name') per object of a manifest (`kind: List` items too)."""
    out = []
    for start, end, node in _doc_spans(text):
        resource, fields = _node_resource(node)
        if resource is not None:
            out.append((start, end, resource))
            continue
        items = fields.get("items")
        kind = fields.get("kind")
        if not (isinstance(kind, yaml.ScalarNode) and str(kind.value).endswith("List")):
            continue
        for item in items.value if isinstance(items, yaml.SequenceNode) else []:
            name, _ = _node_resource(item)
            if name is not None:
                out.append((*_node_lines(item), name))
    return out


# ---------------------------------------------------------------- Terraform


def _parse_terraform(text: str) -> dict[str, Any]:
    """The raw `hcl2` dict of a Terraform file (values wrapped in lists, as hcl2 gives them)."""
    import hcl2  # deferred: lark grammar load

    text = check_text(text)
    try:
        doc = hcl2.loads(text if text.endswith("\n") else text + "\n")
    except Exception as exc:  # lark raises several exception types
        line, col = getattr(exc, "line", None), getattr(exc, "column", None)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        first = re.sub(r" at line \d+, column \d+\.?$", "", first)
        where = f" at line {line}, column {col}" if isinstance(line, int) and line > 0 else ""
        raise ConfigError(f"invalid HCL{where}: {first}") from None
    if not isinstance(doc, dict):
        raise ConfigError("invalid HCL: top level is not a body")
    bad = sorted(k for k in doc if k not in TF_BLOCK_TYPES)
    if bad:
        raise ConfigError(f"not a Terraform file: unexpected top-level attribute(s) {bad}")
    if not doc:
        raise ConfigError("Terraform file contains no blocks")
    _jsonable(doc, [MAX_NODES])
    return doc


_META = ("__start_line__", "__end_line__")
_VAR_RE = re.compile(r"^\$\{(var|local)\.([A-Za-z_][A-Za-z0-9_-]*)\}$")
_ADDR_RE = re.compile(r"(?<![\w.])((?:data\.)?[a-z][a-z0-9]*_[a-z0-9_]+\.[A-Za-z_][A-Za-z0-9_-]*)")
_JSONENCODE_RE = re.compile(r"^\$\{jsonencode\((.*)\)\}$", re.S)
POLICY_KEYS = frozenset({"policy", "assume_role_policy"})


def _is_block_body(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) for k, v in value.items() if k not in _META
    )


def _norm_body(body: dict[str, Any], env: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key in _META:
            continue
        if isinstance(value, list) and value and all(_is_block_body(v) for v in value):
            out[key] = [_norm_body(v, env) for v in value]  # nested blocks: list of objects
        elif isinstance(value, list) and len(value) == 1:
            out[key] = _resolve(value[0], env)
        else:
            out[key] = _resolve(value, env)
        if key in POLICY_KEYS and isinstance(out[key], str):
            out[key] = decode_policy(out[key])
    return out


def _resolve(value: Any, env: dict[str, Any]) -> Any:
    """Substitute whole-value `${var.x}` / `${local.x}` references that have literal values."""
    if isinstance(value, str):
        m = _VAR_RE.match(value)
        if m and (m.group(1), m.group(2)) in env:
            return env[(m.group(1), m.group(2))]
        return value
    if isinstance(value, list):
        return [_resolve(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, env) for k, v in value.items() if k not in _META}
    return value


def _literal(value: Any) -> bool:
    if isinstance(value, str):
        return "${" not in value
    if isinstance(value, list):
        return all(_literal(v) for v in value)
    if isinstance(value, dict):
        return all(_literal(v) for v in value.values())
    return True


def decode_policy(text: str) -> Any:
    """A policy document from JSON text or `${jsonencode({...})}`; the string if undecodable."""
    stripped = text.strip()
    m = _JSONENCODE_RE.match(stripped)
    try:
        if m:
            return ast.literal_eval(m.group(1))
        if stripped.startswith("{"):
            return json.loads(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    return text


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if "${" in value:
            for m in _ADDR_RE.finditer(value):
                yield m.group(1)
    elif isinstance(value, list):
        for v in value:
            yield from _refs(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _refs(v)


def _env(doc: dict[str, Any]) -> dict[tuple[str, str], Any]:
    env: dict[tuple[str, str], Any] = {}
    for block in doc.get("variable", []) or []:
        for name, body in (block or {}).items():
            default = (body or {}).get("default")
            if isinstance(default, list) and len(default) == 1 and _literal(default[0]):
                env[("var", name)] = default[0]
    for block in doc.get("locals", []) or []:
        for name, value in (block or {}).items():
            literal = isinstance(value, list) and len(value) == 1 and _literal(value[0])
            if name not in _META and literal:
                env[("local", name)] = value[0]
    return env


def normalise_terraform(doc: dict[str, Any]) -> dict[str, Any]:
    """The Rego input for a parsed Terraform file.

    Shape: ``{"resources": [{"mode": "managed"|"data", "type", "name", "address", "line",
    "config", "refs"}]}`` where `address` is ``<type>.<name>`` (``data.<type>.<name>`` for
    data sources), `line` the block's first line, `config` the block body with attribute values
    unwrapped from hcl2's one-element lists, nested blocks always as lists of objects,
    whole-value ``${var.x}`` / ``${local.x}`` references replaced by literal defaults, and
    `policy` / `assume_role_policy` strings decoded from JSON or ``jsonencode`` when possible;
    `refs` lists the resource addresses referenced from the body (``${aws_s3_bucket.b.id}``
    gives ``aws_s3_bucket.b``). Unresolved expressions stay strings starting with ``${``.
    """
    env = _env(doc)
    resources = []
    for mode, key in (("managed", "resource"), ("data", "data")):
        for block in doc.get(key, []) or []:
            for rtype, named in (block or {}).items():
                for name, body in (named or {}).items():
                    if not isinstance(body, dict):
                        continue
                    address = f"{rtype}.{name}" if mode == "managed" else f"data.{rtype}.{name}"
                    refs = sorted({r for r in _refs(body) if r != address})
                    resources.append(
                        {
                            "mode": mode,
                            "type": rtype,
                            "name": name,
                            "address": address,
                            "line": body.get("__start_line__", 0),
                            "config": _norm_body(body, env),
                            "refs": refs,
                        }
                    )
    return {"resources": resources}


def terraform_spans(doc: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(first line, last line, address) per resource / data block of a parsed file."""
    out = []
    for mode, key in (("managed", "resource"), ("data", "data")):
        for block in doc.get(key, []) or []:
            for rtype, named in (block or {}).items():
                for name, body in (named or {}).items():
                    if isinstance(body, dict) and "__start_line__" in body:
                        addr = f"{rtype}.{name}" if mode == "managed" else f"data.{rtype}.{name}"
                        out.append((body["__start_line__"], body.get("__end_line__", 0), addr))
    return out


def resource_spans(config: ConfigFile) -> list[tuple[int, int, str]]:
    """(first line, last line, canonical resource) for every object/block of `config`."""
    if config.kind == "k8s":
        return k8s_spans(config.text)
    return terraform_spans(parse_terraform(config.text))


def resource_at(spans: list[tuple[int, int, str]], line: int) -> str | None:
    """The innermost resource whose span holds `line` (1-based)."""
    hits = [(end - start, res) for start, end, res in spans if start <= line <= end]
    return min(hits)[1] if hits else None


def parse(config: ConfigFile) -> list[dict[str, Any]] | dict[str, Any]:
    """Parse `config` by kind (raises `ConfigError`)."""
    return parse_k8s(config.text) if config.kind == "k8s" else parse_terraform(config.text)


# ---------------------------------------------------------------- parse memo
# One scan parses the same text several times (validation, expected resources, each tool's
# input, line spans); scoring a batch re-parses every episode's config. Parsing is pure-Python
# YAML / lark and dominates a scan's CPU, so results are memoised by text (bounded LRU,
# thread-safe; errors are not memoised). Callers get their own copy of a parsed tree.
_PARSE_MEMO_SIZE = 512
_parse_memo: OrderedDict[tuple[str, str], Any] = OrderedDict()
_parse_lock = threading.Lock()


def _copy_tree(value: Any) -> Any:
    """A copy of a JSON-like tree (dicts and lists copied, leaves shared)."""
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_tree(v) for v in value]
    return value


def _memoised(kind: str, text: str, parse: Callable[[str], Any]) -> Any:
    key = (kind, text)
    with _parse_lock:
        if key in _parse_memo:
            _parse_memo.move_to_end(key)
            return _parse_memo[key]
    result = parse(text)
    with _parse_lock:
        _parse_memo[key] = result
        if len(_parse_memo) > _PARSE_MEMO_SIZE:
            _parse_memo.popitem(last=False)
    return result


def parse_k8s(text: str) -> list[dict[str, Any]]:
    """The objects of a multi-document manifest (see `_parse_k8s`); memoised, copied."""
    return _copy_tree(_memoised("k8s", text, _parse_k8s))


def parse_terraform(text: str) -> dict[str, Any]:
    """The raw `hcl2` dict of a Terraform file (see `_parse_terraform`); memoised, copied."""
    return _copy_tree(_memoised("terraform", text, _parse_terraform))


def _doc_spans(text: str) -> list[tuple[int, int, Any]]:
    """(first line, last line, composed node) per YAML document (see `_compose_spans`);
    memoised: the nodes are shared and must not be modified."""
    return list(_memoised("spans", text, _compose_spans))


# ---------------------------------------------------------------- comments
# Comments of real configs often name their flaws ("# bucket is public"), so a loader may show
# a model the file without them. The stripped text is the episode: the one shown, scanned and
# patched. Only lines that held a comment change: a trailing comment is cut (with the blanks
# before it) and a line left empty by it is dropped; strings, block scalars and heredocs stay.

_HEREDOC_RE = re.compile(r"<<(-?)([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")


def _drop_touched(text: str, cuts: list[tuple[int, int]]) -> str:
    """`text` without the character ranges `cuts`; lines they touched are right-stripped and
    dropped when nothing is left on them (newlines inside a cut are kept until then)."""
    if not cuts:
        return text
    pieces: list[str] = []
    touched: set[int] = set()
    pos = line = 0
    for start, end in sorted(cuts):
        if start < pos:
            continue
        pieces.append(text[pos:start])
        line += text.count("\n", pos, start)
        inner = text.count("\n", start, end)
        touched.update(range(line, line + inner + 1))
        pieces.append("\n" * inner)
        line += inner
        pos = end
    pieces.append(text[pos:])
    out = []
    for i, row in enumerate("".join(pieces).split("\n")):
        if i not in touched:
            out.append(row)
            continue
        cr = "\r" if row.endswith("\r") else ""
        body = row.removesuffix("\r").rstrip(" \t")
        if body:
            out.append(body + cr)
    return "\n".join(out)


def _yaml_comment_cuts(text: str) -> list[tuple[int, int]]:
    """(start, end) of every YAML comment: a `#` outside every token (or after a block scalar's
    indicator), up to the end of its line. Invalid YAML has no cuts (its parse error stands)."""
    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return []
    cuts: list[tuple[int, int]] = []

    def comments(start: int, end: int) -> None:
        at = text.find("#", start, end)
        while at != -1:
            stop = text.find("\n", at, end)
            stop = end if stop == -1 else stop
            cuts.append((at, stop))
            at = text.find("#", stop, end)

    pos = 0
    for token in tokens:
        start, end = token.start_mark.index, token.end_mark.index
        if start > pos:
            comments(pos, start)
        if isinstance(token, yaml.ScalarToken) and token.style in ("|", ">"):
            header_end = text.find("\n", start, end)
            header = text[start : end if header_end == -1 else header_end]
            m = re.search(r"[ \t]#", header)
            if m:
                cuts.append((start + m.start() + 1, start + len(header)))
        pos = max(pos, end)
    if pos < len(text):
        comments(pos, len(text))
    return cuts


def _hcl_comment_cuts(text: str) -> list[tuple[int, int]]:
    """(start, end) of every HCL comment (`#`, `//` to the end of the line, `/* ... */`),
    skipping quoted strings (with `${...}` / `%{...}` templates, which may nest strings) and
    heredocs."""
    cuts: list[tuple[int, int]] = []
    stack: list[int] = []  # open templates: brace depth inside each `${` / `%{`
    in_string = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_string = False
            elif ch == "\n":  # unterminated string: leave the error to the parser
                in_string, stack = False, []
            elif ch in "$%":
                if text.startswith(ch + ch + "{", i):  # `$${` / `%%{` is a literal
                    i += 3
                    continue
                if text.startswith("{", i + 1):
                    stack.append(0)
                    in_string = False
                    i += 2
                    continue
            i += 1
            continue
        if ch == '"':
            in_string = True
        elif ch == "#" or text.startswith("//", i):
            stop = text.find("\n", i)
            stop = n if stop == -1 else stop
            cuts.append((i, stop))
            i = stop
            continue
        elif text.startswith("/*", i):
            stop = text.find("*/", i + 2)
            stop = n if stop == -1 else stop + 2
            cuts.append((i, stop))
            i = stop
            continue
        elif ch == "<" and not stack and (m := _HEREDOC_RE.match(text, i)):
            i = m.end()
            marker = m.group(2)
            while i < n:
                stop = text.find("\n", i)
                stop = n if stop == -1 else stop
                line = text[i:stop].strip()
                i = stop + 1
                if line == marker:
                    break
            continue
        elif stack and ch == "{":
            stack[-1] += 1
        elif stack and ch == "}":
            if stack[-1] == 0:
                stack.pop()
                in_string = True
            else:
                stack[-1] -= 1
        i += 1
    return cuts


def strip_comments(kind: Kind, text: str) -> str:
    """`text` without its comments: YAML `#` for k8s; `#`, `//` and `/* */` for Terraform.

    Strings, YAML block scalars and HCL heredocs are kept verbatim; a line that only held a
    comment is dropped and trailing blanks before a cut comment go with it. Invalid YAML is
    returned unchanged (the parser reports it). Callers should check that the stripped text
    parses to the same config (`same_meaning`).
    """
    if kind not in KINDS:
        raise ConfigError(f"unknown config kind {kind!r}; expected one of {KINDS}")
    cuts = _yaml_comment_cuts(text) if kind == "k8s" else _hcl_comment_cuts(text)
    return _drop_touched(text, cuts)


def _without_lines(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_lines(v) for k, v in value.items() if k not in _META}
    if isinstance(value, list):
        return [_without_lines(v) for v in value]
    return value


def same_meaning(kind: Kind, before: str, after: str) -> bool:
    """Whether `after` parses to the same config as `before` (Terraform line numbers aside);
    True when `before` does not parse (there is no meaning to keep)."""
    parse_one = parse_k8s if kind == "k8s" else parse_terraform
    try:
        old = parse_one(before)
    except ConfigError:
        return True
    try:
        new = parse_one(after)
    except ConfigError:
        return False
    return _without_lines(old) == _without_lines(new)
