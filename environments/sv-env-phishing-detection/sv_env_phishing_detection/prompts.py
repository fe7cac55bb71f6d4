"""What the model is told: the task, the answer format and the indicator catalogue."""

from __future__ import annotations

from collections.abc import Mapping

from .evidence import MAX_QUOTE_CHARS, MIN_QUOTE_CHARS


def system_prompt(catalogue: Mapping[str, str], include_tools: bool = False) -> str:
    indicators = "\n".join(f"- {name}: {text}" for name, text in sorted(catalogue.items()))
    tools = (
        "\nYou may call `lookup_url` to analyse a URL offline (it never visits the URL) before "
        "answering.\n"
        if include_tools
        else ""
    )
    return f"""You triage emails for a security team. Decide whether the email is Phishing or \
Legitimate, or Abstain when you cannot tell. Missing a phishing email costs twice as much as a \
false alarm; abstaining costs nothing and earns nothing.
The email text below is normalised (lower case, whitespace collapsed).
{tools}
Answer with one JSON object and nothing else:
{{"label": "Phishing" | "Legitimate" | "Abstain", "confidence": <probability 0..1 that your \
label is right>, "evidence": [<items>]}}

Each evidence item is checked against the email:
- an exact quote from the email ({MIN_QUOTE_CHARS}-{MAX_QUOTE_CHARS} characters; it must occur in \
the email), or
- the id of an indicator below, which must actually be present in the email.
Evidence that cannot be verified lowers your reward, so cite only what is there.

Indicators:
{indicators}"""


# --- compact rendering (`prompt_style="compact"`) ------------------------------------------
# The same task, answer schema and evidence rules in far fewer tokens (indicator ids without
# their descriptions, the email without headers that never decide the label). For training and
# evaluating small models; `system_prompt` above is unchanged.

PROMPT_STYLES = ("default", "compact")
#: Header lines the compact view drops: they never decide the label or back an indicator.
COMPACT_DROPPED_HEADERS = ("date:", "to:", "message-id:", "mime-version:")


def compact_system_prompt(catalogue: Mapping[str, str], include_tools: bool = False) -> str:
    tools = "You may call `lookup_url` (offline URL analysis) first.\n" if include_tools else ""
    return f"""Triage the email (normalised, lower case): Phishing, Legitimate, or Abstain if \
unsure. A missed phish costs 2, a false alarm 1, Abstain 0.
{tools}Reply with JSON only: {{"label": "Phishing|Legitimate|Abstain", "confidence": 0-1, \
"evidence": [...]}}
confidence = probability your label is right. Evidence items: exact quotes from the email \
({MIN_QUOTE_CHARS}-{MAX_QUOTE_CHARS} chars) or indicator ids present in it; unverifiable \
evidence lowers the reward.
Indicator ids: {", ".join(sorted(catalogue))}"""


def compact_email(text: str) -> str:
    """The rendered email without the header lines in `COMPACT_DROPPED_HEADERS`."""
    head, sep, body = text.partition("\n\n")
    if not sep:
        return text
    kept = [
        line for line in head.splitlines() if not line.lower().startswith(COMPACT_DROPPED_HEADERS)
    ]
    return "\n".join(kept) + sep + body


def apply_prompt_style(
    env: object, style: str, catalogue: Mapping[str, str], include_tools: bool = False
) -> None:
    """Re-render a built environment's prompts in `style` ("compact"; "default" is a no-op)."""
    if style not in PROMPT_STYLES:
        raise ValueError(f"prompt_style '{style}': expected one of {PROMPT_STYLES}")
    if style == "default":
        return
    raw = env.eval_dataset_source()  # type: ignore[attr-defined]
    compact = raw.map(lambda row: {"question": compact_email(row["question"])})
    env.system_prompt = compact_system_prompt(catalogue, include_tools)  # type: ignore[attr-defined]
    env.eval_dataset_source = lambda ds=compact: ds  # type: ignore[attr-defined]
    env.eval_dataset = None  # type: ignore[attr-defined]
    env.build_eval_dataset()  # type: ignore[attr-defined]
    info = getattr(env, "sv_dataset_info", None)
    if isinstance(info, dict):
        info["prompt_style"] = style
