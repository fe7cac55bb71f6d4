"""Whether a set of IAM action globs, together, matches every action.

An IAM action is ``<service>:<Name>``: a service prefix of lowercase letters, digits and
hyphens that starts with a letter (at least `MIN_SERVICE` characters) and an action name of
letters and digits (at least `MIN_NAME`); matching is case-insensitive, ``*`` matches any run
of characters and ``?`` one character. `cover_every_action(patterns)` decides whether the union
of the patterns' languages contains every string of that shape — ``"*"``, ``"*:*"``, ``["a*",
…, "z*"]``, ``["*:?*", "*:??"]``… — by exploring the product of the shape automaton with the
set of glob positions the patterns can be in (a subset construction on the fly). Characters are
explored by class: each character some pattern names literally, plus one stand-in for every
other character of each class. The search is bounded (`MAX_STATES`); a set too large to decide
counts as not covering.
"""

from __future__ import annotations

from collections.abc import Iterable

MIN_SERVICE, MIN_NAME = 2, 2
MAX_STATES = 20_000
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
SERVICE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # compared lower-cased
_CLASSES = ("abcdefghijklmnopqrstuvwxyz", "0123456789", "-")


def _advance(pattern: str, positions: frozenset[int], char: str) -> frozenset[int]:
    """Positions after reading `char` from `positions` (each closed over leading ``*``)."""
    out: set[int] = set()
    for i in positions:
        if i >= len(pattern):
            continue
        token = pattern[i]
        if token == "*":
            out.add(i)  # the star eats the character
        elif token == "?" or token == char:
            out.add(i + 1)
    return _closure(pattern, out)


def _closure(pattern: str, positions: Iterable[int]) -> frozenset[int]:
    out, stack = set(), list(positions)
    while stack:
        i = stack.pop()
        if i in out:
            continue
        out.add(i)
        if i < len(pattern) and pattern[i] == "*":
            stack.append(i + 1)
    return frozenset(out)


# Shape states: (section, length so far) with length capped at the minimum it needs.
def _shape_step(state: tuple[int, int], char: str) -> tuple[int, int] | None:
    section, length = state
    if section == 0:
        if char == ":":
            return (1, 0) if length >= MIN_SERVICE else None
        allowed = SERVICE_CHARS if length else LETTERS  # a prefix starts with a letter
        return (0, min(length + 1, MIN_SERVICE)) if char in allowed else None
    if char in NAME_CHARS:
        return (1, min(length + 1, MIN_NAME))
    return None


def _alphabet(patterns: list[str]) -> list[str]:
    """The characters named by a pattern, ``:``, and one unnamed stand-in per class."""
    named = {c for p in patterns for c in p if c not in "*?"}
    stand_ins = {next((c for c in cls if c not in named), "") for cls in _CLASSES} - {""}
    return sorted(named | {":"} | stand_ins)


def cover_every_action(patterns: Iterable[object], service: str | None = None) -> bool:
    """True when the glob patterns together match every IAM action (module docstring), or,
    with `service`, every action of that service (``<service>:<Name>``)."""
    globs = [p.lower() for p in patterns if isinstance(p, str) and p]
    if not globs:
        return False
    if any(set(g) <= {"*"} for g in globs):
        return True
    positions = tuple(_closure(g, [0]) for g in globs)
    shape: tuple[int, int] = (0, 0)
    if service is not None:  # read the fixed prefix, then explore the names
        for char in f"{service.lower()}:":
            positions = tuple(
                _advance(g, pos, char) for g, pos in zip(globs, positions, strict=True)
            )
        shape = (1, 0)
    alphabet = _alphabet(globs)
    start = (shape, positions)
    seen = {start}
    frontier = [start]
    while frontier:
        shape, positions = frontier.pop()
        accepting_shape = shape == (1, MIN_NAME)
        if accepting_shape and not any(
            len(g) in pos for g, pos in zip(globs, positions, strict=True)
        ):
            return False  # an action no pattern matches
        for char in alphabet:
            nxt_shape = _shape_step(shape, char)
            if nxt_shape is None:
                continue
            nxt = (
                nxt_shape,
                tuple(_advance(g, pos, char) for g, pos in zip(globs, positions, strict=True)),
            )
            if nxt not in seen:
                if len(seen) >= MAX_STATES:
                    return False
                seen.add(nxt)
                frontier.append(nxt)
    return True


SELF_GRANT_ACTIONS = (
    "iam:PutRolePolicy", "iam:PutUserPolicy", "iam:PutGroupPolicy", "iam:AttachRolePolicy",
    "iam:AttachUserPolicy", "iam:AttachGroupPolicy", "iam:CreatePolicyVersion",
    "iam:SetDefaultPolicyVersion",
)  # fmt: skip
"""Actions that let a principal, on any resource, write itself a policy granting every action."""


def glob_matches(pattern: str, action: str) -> bool:
    """One IAM glob against one concrete action (case-insensitive)."""
    globbed, name = pattern.lower(), action.lower()
    positions = _closure(globbed, [0])
    for char in name:
        positions = _advance(globbed, positions, char)
        if not positions:
            return False
    return len(globbed) in positions


def grants_self_grant(patterns: Iterable[object]) -> bool:
    """True when some pattern matches an action of `SELF_GRANT_ACTIONS` (``iam:*``,
    ``iam:Attach*``, ``iam:Put*Policy``…)."""
    globs = [p for p in patterns if isinstance(p, str) and p]
    return any(glob_matches(g, a) for g in globs for a in SELF_GRANT_ACTIONS)
