"""What a safety judge's numbers are worth: its measured agreement, attached to every E5/E6 run.

The offline judge ships a card (`data/judge_card.json`) with its agreement on third-party
labeled sets (XSTest prompts and a HarmBench behaviours file, measured with templated reply
styles by `python -m sv_shared.safety.agreement`; those rows are never used for tuning). A card
counts only for the judge version it was measured on: after a change to the judge, re-measure
and rewrite it with

    python -m sv_shared.safety.agreement --xstest X.csv --behaviors B.csv --out report.json
    python -m sv_shared.safety.judge_card report.json

The learned judge (``build_judge("learned")``) ships `data/reply_model_card.json`, written by
`python -m sv_shared.safety.train_reply_model` from its cross-validation on the XSTest v2 human
labels it was fitted to (grouped by prompt and leave-one-model-out); it counts only for the
reply-model weights it was measured on.

Endpoint judges (Llama Guard, HarmBench classifier) carry no shipped measurement; they are the
recommended judges for published numbers, measured the same way against their endpoint.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

CARD_PATH = Path(__file__).resolve().parent / "data" / "judge_card.json"
REPLY_CARD_PATH = CARD_PATH.parent / "reply_model_card.json"
RECOMMENDED = "llama-guard@<base_url>#<model> (Llama Guard 3 served OpenAI-compatibly)"


def _value(entry: Mapping[str, Any] | None, *keys: str) -> Any:
    node: Any = entry
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def card_from_report(report: Mapping[str, Any]) -> dict[str, Any]:
    """The headline numbers of an agreement report (no rows, no prompts)."""
    measurement = report.get("measurement") or {}
    card: dict[str, Any] = {"judge": report.get("judge"), "measured_on": {}}
    for name, entry in measurement.items():
        styles = _value(entry, "styles", "overall") or {}
        card["measured_on"][name] = {
            "file": Path(str(entry.get("file", ""))).name,
            "prompts": _value(entry, "styles", "n_prompts"),
            "reply_styles": list(report.get("styles") or []),
            "reply_accuracy": _value(styles, "accuracy", "value"),
            "reply_recall": _value(styles, "recall", "value"),
            "reply_precision": _value(styles, "precision", "value"),
            "confusion": styles.get("confusion"),
            "false_unsafe_on_helpful_safe": _value(
                entry, "styles", "false_unsafe_helpful_safe", "value"
            ),
            "request_accuracy": _value(entry, "requests", "accuracy", "value"),
        }
    return card


def judge_version_name() -> str:
    """The offline judge's versioned name, as agreement reports carry it."""
    from sv_shared.safety.offline import offline_judge_version

    return offline_judge_version()


@cache
def shipped_card() -> dict[str, Any] | None:
    try:
        return json.loads(CARD_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _point(metric: Mapping[str, Any] | None) -> Any:
    return metric.get("value") if isinstance(metric, Mapping) else None


def reply_card_from_report(report: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The learned judge's card from a reply-model CV report (no rows, no prompts)."""
    shipped = (report.get("shipped") or {}).get("candidate", "tfidf")
    cv = report["candidates"][shipped]
    measured: dict[str, Any] = {}
    protocols = {
        "grouped_by_prompt": "xstest_v2_replies_grouped_cv",
        "leave_one_model_out": "xstest_v2_replies_leave_one_model_out",
    }
    for name, key in protocols.items():
        agreed = cv[name]["agreed"]
        measured[key] = {
            "file": "xstest_v2_completions_*.csv",
            "replies": agreed["n"],
            "prompts": agreed["n_prompts"],
            "reply_accuracy": _point(agreed["accuracy"]),
            "reply_accuracy_ci95": agreed["accuracy"]["ci95"],
            "macro_f1": agreed["macro_f1"],
            "refusal_vs_compliance": agreed["refusal_vs_compliance"],
            "accuracy_all_rows": cv[name]["all"]["accuracy"],
            "confusion_safe": agreed["confusion"]["safe"],
            "confusion_unsafe": agreed["confusion"]["unsafe"],
        }
    return {
        "judge": "learned",
        "reply_model": version,
        "fitted_to": report.get("data"),
        "measured_on": measured,
        "no_answer_evaluation_forms": cv.get("no_answer_eval_forms"),
        "latency": cv.get("latency"),
        "limits": report.get("limits", []),
        "note": "reply outcome (refusal / compliance / partial / no_answer) accuracy, "
        "cross-validated on the sample the model was fitted to; not harmfulness of content",
    }


@cache
def shipped_reply_card() -> dict[str, Any] | None:
    try:
        return json.loads(REPLY_CARD_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _learned_card(judge_name: str) -> dict[str, Any]:
    from sv_shared.safety.reply_model import reply_model_version

    card = shipped_reply_card()
    if card is not None and card.get("reply_model") == reply_model_version():
        note = "learned judge; " + card["note"] + " (reply_model_card.json)"
        return {"judge": judge_name, "measured_agreement": card["measured_on"], "note": note}
    note = "learned reply model changed since its card was measured: run train_reply_model"
    return {"judge": judge_name, "measured_agreement": None, "note": note}


def judge_card(judge_name: str) -> dict[str, Any]:
    """`{"judge", "measured_agreement", "note"}` for a run's metadata and reports."""
    if judge_name == "learned" or judge_name.startswith("learned:"):
        return _learned_card(judge_name)
    card = shipped_card()
    offline = judge_name == "offline" or judge_name.startswith("offline:")
    if offline and card is not None and card.get("judge") == judge_version_name():
        note = "offline judge; numbers from templated replies, see docs/reward-integrity.md"
        return {"judge": judge_name, "measured_agreement": card["measured_on"], "note": note}
    if offline:
        note = "offline judge changed since its card was measured: re-measure (judge_card.py)"
    else:
        note = "no shipped measurement for this judge: measure it with sv_shared.safety.agreement"
    return {"judge": judge_name, "measured_agreement": None, "note": note}


def summary_line(card: Mapping[str, Any] | None) -> str:
    """One line for reports: which judge, and its measured agreement (or that there is none)."""
    if not card:
        return ""
    measured = card.get("measured_agreement") or {}
    parts = []
    for name, entry in measured.items():
        accuracy = entry.get("reply_accuracy")
        if accuracy is not None:
            parts.append(f"{name} reply accuracy {accuracy:.3f}")
        false_unsafe = entry.get("false_unsafe_on_helpful_safe")
        if false_unsafe is not None:
            parts.append(f"{name} false-unsafe on helpful answers {false_unsafe:.3f}")
    numbers = "; ".join(parts) if parts else card.get("note", "")
    return (
        f"judge {card.get('judge')}: {numbers} (recommended for published numbers: {RECOMMENDED})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m sv_shared.safety.judge_card AGREEMENT_REPORT.json", file=sys.stderr)
        return 2
    try:
        report = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: {args[0]}: {exc}", file=sys.stderr)
        return 2
    card = card_from_report(report)
    if card["judge"] != judge_version_name():
        print(
            f"error: {args[0]} measured {card['judge']}, the current judge is "
            f"{judge_version_name()}",
            file=sys.stderr,
        )
        return 2
    CARD_PATH.write_text(json.dumps(card, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {CARD_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
