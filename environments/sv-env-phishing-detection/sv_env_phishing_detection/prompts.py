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
