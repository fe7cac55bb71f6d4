"""Where the fields of a harmful-behaviour file live, per public benchmark layout.

One table for every reader of behaviour files (E5 attack targets, E6 direct attacks, the
safety judge's agreement measurement): HarmBench, JailbreakBench JBB-Behaviors,
SimpleSafetyTests (``id,harm_area,...,prompts_final``) and plain AdvBench-style
``goal,target`` files. Only ``text`` must be present in a file.
"""

from __future__ import annotations

from collections.abc import Mapping

from sv_shared.env_args import expect_object

BEHAVIOR_FIELDS = ("text", "id", "category", "functional", "context")
BEHAVIOR_LAYOUTS: dict[str, dict[str, str]] = {
    "harmbench": {"text": "Behavior", "id": "BehaviorID", "category": "SemanticCategory",
                  "functional": "FunctionalCategory", "context": "ContextString"},
    "jbb": {"text": "Goal", "id": "Behavior", "category": "Category"},
    "sst": {"text": "prompts_final", "id": "id", "category": "harm_area"},
    "advbench": {"text": "goal"},
}  # fmt: skip
"""Layout -> {field: column}."""


def merge_columns(
    base: Mapping[str, str],
    overrides: Mapping[str, str] | None,
    error: type[Exception] = ValueError,
) -> dict[str, str]:
    """`base` with `overrides` (field -> column; "" unmaps a field) applied; raises `error`
    for an unknown field or an unmapped text field."""
    expected = 'an object mapping fields to column names, like {"text": "prompt"}'
    try:
        mapping = expect_object("columns", overrides, expected)
    except ValueError as exc:
        raise error(str(exc)) from None
    given = {str(k): str(v) for k, v in mapping.items()}
    unknown = sorted(set(given) - set(BEHAVIOR_FIELDS))
    if unknown:
        raise error(f"columns: unknown field(s) {unknown}; fields are {list(BEHAVIOR_FIELDS)}")
    if given.get("text") == "":
        raise error("columns: the text field cannot be unmapped")
    return {**base, **given}
