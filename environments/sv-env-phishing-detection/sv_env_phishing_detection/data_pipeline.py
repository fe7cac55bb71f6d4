"""E4's part of the dataset pipeline: sources, facets and the synthetic-data recipe.

Rows are :class:`~sv_env_phishing_detection.records.EmailRecord` (raw RFC 5322 message plus
provenance). sv_data.Facets: the label (Phishing / Legitimate); the scenario (the campaign or benign
kind for generated mail, the label for real corpora, which do not say which kind — language is
not added, since a (scenario, language) stratum would hold only three templates, too few to
reach every split); the group, which is the campaign template for generated mail and the
thread/subject hash for real corpora, so no template or thread crosses splits; and the text,
which is the prompt the model is shown (the rendered email, in the comparable view for
cross-corpus sources), used for deduplication and contamination checks.

Synthetic candidates (``sv synth``): each seed template shows one rendered generated email of a
campaign or benign kind and asks for a new email of that kind in the same layout. ``parse``
rebuilds an RFC 5322 message with :class:`email.message.EmailMessage` from the ``From:`` /
``Subject:`` / other header lines, the optional ``Links:`` and ``Attachments:`` lists and the
body (code fences, markdown and prose before the email are tolerated; exactly one email with
a subject of at most 200 characters, a body of at least 5 words and no unfilled placeholder
such as ``[Your Name]`` is required).

Acceptance policy: ``verify`` labels the candidate with the environment's own verifier, the
deterministic indicator extractor and the heuristic's weighted score, and the label is the
heuristic's decision. A candidate is rejected when the heuristic abstains or decides against
the requested kind (unverifiable); wording that claims a label counts for nothing. The fired
indicators and the score are kept as evidence in ``meta``. Then the generic filter rejects
copies of the shown example, repeats and overlap with the reference build.

Bias: accepted rows are only ones the rules can vouch for — phishing that shows rule-visible
deception and legitimate mail that shows almost none. Subtle phishing and noisy legitimate
mail are rejected by construction, so accepted rows are easier for the heuristic than the
generated corpus, and a model trained on them may inherit the rules' blind spots. The rules
check indicators, not coherence: a rambling email with a gift-card request and a deadline is
accepted as phishing.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import replace
from email import policy
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from random import Random

from sv_shared import data as sv_data
from sv_shared.data import reject_unknown_options
from sv_shared.data.store import file_sha256

from .campaigns import DATA_SCENARIOS, LEGITIMATE_SCENARIOS, PHISHING_SCENARIOS
from .config import ENV_ID
from .generator import GENERATOR_VERSION, generate_corpus
from .heuristic import indicator_score, label_for_score
from .indicators import extract_indicators
from .loaders import (
    EALVARADOB_ID,
    ZEFANG_LIU_ID,
    EmailDatasetError,
    looks_like_html,
    parse_label_map,
)
from .message import parse_message
from .records import ABSTAIN, LEGITIMATE, PHISHING, EmailRecord
from .render import comparable_view, render_email
from .sources import SOURCES, TableColumns, excluded_rows, load_records, renders_comparable

HEURISTIC_VERSION = "e4-heuristic-v1"
RULE_MODULES = ("indicators", "heuristic", "urls", "brands", "message", "render", "normalize")
"""Modules whose source defines the labels (hashed into the verifier version)."""
SYNTHETIC_LICENSE = "Apache-2.0 (generated)"
SYNTH_SOURCE = "synth"
DEFAULT_SIZE = 2000
MIN_BODY_WORDS = 5
MAX_SUBJECT_CHARS = 200
MAX_BODY_CHARS = 20_000
MAX_ATTACHMENT_BYTES = 4096
EXAMPLE_MAX_CHARS = 1500
"""Seed examples are drawn from generated emails whose prompt text is at most this long."""

KIND_DESCRIPTIONS: dict[str, str] = {
    "credential_harvest": "a fake account-security alert that pushes the reader to sign in "
    "or confirm their password through a link",
    "invoice_fraud": "a fake invoice or payment demand that asks the reader to pay or to "
    "change the bank details",
    "delivery_notice": "a fake parcel-delivery notice that asks for a small fee or personal "
    "details through a link",
    "ceo_fraud_bec": "an executive impersonation (business email compromise) asking for an "
    "urgent, confidential wire transfer",
    "mfa_reset_lure": "a fake multi-factor authentication notice that asks the reader to "
    "re-register or enter a security code through a link",
    "tech_support": "a fake subscription renewal or antivirus invoice that pushes the reader "
    "to call a number or pay",
    "gift_card": "a request that pretends to come from a manager to buy gift cards urgently "
    "and send the codes",
    "receipt": "a genuine purchase receipt or invoice from the company's own domain",
    "password_reset": "a genuine password-reset message the user asked for, from the "
    "service's own domain",
    "shipping": "a genuine shipping update from a shop or carrier",
    "newsletter": "a genuine newsletter or product update from a known company",
    "calendar_invite": "a genuine meeting invitation from a colleague",
    "internal_memo": "a genuine internal memo from a colleague at the same company",
}
"""Campaign / benign kind -> what a seed template asks for."""
KIND_DESCRIPTIONS |= {name: entry["description"] for name, entry in DATA_SCENARIOS.items()}

# ---------------------------------------------------------------------------------- facets


@lru_cache(maxsize=1 << 16)
def _prompt_text(raw: str, comparable: bool) -> str:
    view = parse_message(raw)
    return render_email(comparable_view(view) if comparable else view)


def prompt_text(record: EmailRecord) -> str:
    """The text the model is shown for ``record`` (as `load_environment(dataset=...)` renders
    it: the comparable view for cross-corpus sources, the full rendering otherwise)."""
    return _prompt_text(record.raw, renders_comparable(record))


def facets(record: EmailRecord) -> sv_data.Facets:
    return sv_data.Facets(
        label=record.label,
        scenario=record.scenario,
        group=record.group or record.id,
        text=prompt_text(record),
    )


def assign_split(record: EmailRecord, split: str) -> EmailRecord:
    return replace(record, split=split)


@lru_cache(maxsize=1)
def rules_hash() -> str:
    """A short hash of the source of the modules that extract indicators and render mail."""
    digest = hashlib.sha256()
    for name in RULE_MODULES:
        module = import_module(f"{__package__}.{name}")
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:12]


def verifier_version() -> str:
    return f"{HEURISTIC_VERSION}+rules:{rules_hash()}"


def versions() -> dict[str, str]:
    return {"generator": GENERATOR_VERSION, "verifier": verifier_version()}


# --------------------------------------------------------------------------------- sources
COLUMN_OPTIONS: dict[str, str] = {
    "text_col": "text",
    "label_col": "label",
    "subject_col": "subject",
    "sender_col": "sender",
    "label_map": "label_map",
    "text_column": "text",
    "label_column": "label",
}
"""csv / jsonl options (the names `load_environment` takes) -> `TableColumns` field."""
SOURCE_OPTIONS: dict[str, frozenset[str]] = {
    "synthetic": frozenset({"size"}),
    "mbox": frozenset({"label", "limit"}),
    "eml": frozenset({"label", "limit"}),
    "csv": frozenset({*COLUMN_OPTIONS, "limit"}),
    "jsonl": frozenset({*COLUMN_OPTIONS, "limit"}),
}
"""Options each source accepts (every file or hub source also takes ``limit``)."""


def _int_option(options: dict[str, str], name: str) -> int | None:
    if name not in options:
        return None
    value = options.pop(name)
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"option {name}={value!r}: expected an integer") from None
    if number < 0:
        raise ValueError(f"option {name}={value!r}: must not be negative")
    return number


def _excluded(name: str, path: str | None) -> dict[str, dict[str, int]]:
    """``{"excluded": {reason: rows}}`` for sources that leave rows out on purpose."""
    with_exclusions = ("realdata", "realdata-eml", "enron", "eml")
    excluded = excluded_rows(name, path) if name in with_exclusions else {}
    return {"excluded": excluded} if excluded else {}


def _table_columns(name: str, options: dict[str, str]) -> TableColumns:
    """Column options as `TableColumns` (with a one-line error for a malformed label_map)."""
    fields: dict[str, str] = {}
    for option in sorted(options):
        target = COLUMN_OPTIONS[option]
        if target in fields and fields[target] != options[option]:
            raise ValueError(f"options for {name}: {option}= repeats another option's column")
        fields[target] = options[option]
    if "label_map" in fields:
        try:
            parse_label_map(fields["label_map"])
        except EmailDatasetError as exc:
            raise ValueError(f"option label_map: {str(exc).splitlines()[0]}") from None
    return TableColumns(**fields)


def _check_options(name: str, options: dict[str, str]) -> None:
    reject_unknown_options(name, options, sorted(SOURCE_OPTIONS.get(name, frozenset({"limit"}))))


def _revision(name: str, path: str | None) -> tuple[str, str]:
    """(origin, revision): a content hash of the input file(s), or a hub id marked unpinned."""
    hub_default = {"zefang-liu": ZEFANG_LIU_ID, "ealvaradob": EALVARADOB_ID}.get(name)
    where = path or hub_default or ""
    found = Path(where).expanduser()
    if not where or not found.exists():
        return where, f"hf-hub:{where}@unpinned"
    files = sorted(p for p in found.rglob("*") if p.is_file()) if found.is_dir() else [found]
    if len(files) == 1:
        return str(found), file_sha256(files[0])
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.relative_to(found)}={file_sha256(file)}\n".encode())
    return str(found), f"sha256:{digest.hexdigest()}"


def _license(path: str | None) -> str:
    """The licence files shipped next to the input (e.g. ``LICENSE.<repo>.MIT.txt``)."""
    if not path:
        return "see source"
    found = Path(path).expanduser()
    if found.is_dir():
        candidates = [*found.glob("LICENSE*"), *found.glob("*/LICENSE*")]
    else:
        candidates = list(found.parent.glob("LICENSE*"))
    names = sorted({p.name for p in candidates if p.is_file()})
    return f"see source ({', '.join(names)})" if names else "see source"


def _split_valid(records: list[EmailRecord]) -> tuple[list[EmailRecord], list[tuple[str, str]]]:
    """Records with a known label and a message; the others as (id, why) rejections."""
    kept: list[EmailRecord] = []
    rejected: list[tuple[str, str]] = []
    for record in records:
        if record.label not in (PHISHING, LEGITIMATE):
            rejected.append((record.id, f"label {record.label!r} is not Phishing or Legitimate"))
        elif not record.raw.strip():
            rejected.append((record.id, "empty raw message"))
        else:
            kept.append(record)
    return kept, rejected


def _synthetic(request: sv_data.SourceRequest) -> sv_data.SourceData:
    options = dict(request.options)
    size = _int_option(options, "size")
    _check_options("synthetic", options)
    size = DEFAULT_SIZE if size is None else size
    records = generate_corpus(size, request.seed)
    return sv_data.SourceData(
        rows=records,
        name="synthetic",
        license=SYNTHETIC_LICENSE,
        origin="generated",
        revision=GENERATOR_VERSION,
        notes={"size": size, "seed": request.seed},
    )


Loader = Callable[[sv_data.SourceRequest], sv_data.SourceData]
Links = list[tuple[str, str]]
"""(link text, target) pairs."""
Attachments = list[tuple[str, str, int]]
"""(file name, content type, size) triples."""


def _file_source(name: str) -> Loader:
    def load(request: sv_data.SourceRequest) -> sv_data.SourceData:
        options = dict(request.options)
        limit = _int_option(options, "limit")
        _check_options(name, options)
        columns = _table_columns(name, options)
        records = load_records(name, path=request.path, split="all", columns=columns)
        if limit is not None:
            records = records[:limit]
        kept, rejected = _split_valid(records)
        origin, revision = _revision(name, request.path)
        return sv_data.SourceData(
            rows=kept,
            name=name,
            license=_license(request.path),
            origin=origin,
            revision=revision,
            notes={"limit": limit, **options, **_excluded(name, request.path)},
            rejected=rejected,
        )

    return load


def source_loaders() -> dict[str, Loader]:
    return {name: _synthetic if name == "synthetic" else _file_source(name) for name in SOURCES}


# -------------------------------------------------------------------------- synthetic data
def _requested_label(scenario: str) -> str:
    return PHISHING if scenario in PHISHING_SCENARIOS else LEGITIMATE


@lru_cache(maxsize=4)
def _example_pool(seed: int) -> dict[str, tuple[EmailRecord, ...]]:
    """English generated emails per kind that the heuristic labels as their kind (short ones
    first), so each seed example is itself a row the verifier vouches for."""
    pool: dict[str, list[EmailRecord]] = {}
    for record in generate_corpus(210, seed + 7):
        if record.language != "en" or len(prompt_text(record)) > EXAMPLE_MAX_CHARS:
            continue
        label, _ = label_for_score(indicator_score(extract_indicators(parse_message(record.raw))))
        if label == record.label:
            pool.setdefault(record.scenario, []).append(record)
    return {kind: tuple(sorted(found, key=lambda r: r.id)) for kind, found in pool.items()}


def _fallback_example(scenario: str, seed: int) -> EmailRecord:
    records = [r for r in generate_corpus(210, seed + 7) if r.scenario == scenario]
    return min(records, key=lambda r: (r.language != "en", len(prompt_text(r)), r.id))


SYSTEM_PROMPT = (
    "You write realistic emails for an email-security training set. Reply with exactly one "
    "email in the layout of the example: header lines (From:, Subject:, optionally Reply-To:, "
    "To:, Date:), optionally a Links: list ([1] link text -> https://...) and an Attachments: "
    "list, then an empty line and the body. No explanations."
)


def _seed_for(scenario: str, example: EmailRecord) -> sv_data.SynthSeed:
    label = _requested_label(scenario)
    kind = "phishing" if label == PHISHING else "legitimate"
    shown = prompt_text(example)
    user = (
        f"Kind: {kind} email — {KIND_DESCRIPTIONS[scenario]}.\n\nExample:\n\n{shown}\n\n"
        "Write one new, different email of this kind in English: a new sender, subject, "
        "wording and links that fit it. Reply with the email only, starting with From:."
    )
    return sv_data.SynthSeed(
        id=scenario,
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}],
        target={
            "scenario": scenario,
            "label": label,
            "language": "en",
            "group": example.group,
            "example_id": example.id,
        },
        max_tokens=400,
        example_texts=(shown,),
    )


def synth_seeds(seed: int) -> list[sv_data.SynthSeed]:
    """One template per campaign and benign kind, each showing one generated example."""
    pool = _example_pool(seed)
    rng = Random(seed)
    seeds = []
    for scenario in (*PHISHING_SCENARIOS, *LEGITIMATE_SCENARIOS):
        found = pool.get(scenario)
        example = rng.choice(found) if found else _fallback_example(scenario, seed)
        seeds.append(_seed_for(scenario, example))
    return seeds


# ------------------------------------------------------------------------- parsing output
_HEADER_NAMES = {
    "from": "From",
    "reply-to": "Reply-To",
    "return-path": "Return-Path",
    "to": "To",
    "cc": "Cc",
    "subject": "Subject",
    "date": "Date",
    "authentication-results": "Authentication-Results",
}
_DECOR = r"[\s*_#>`]*"
"""Markdown around a label (bold, headings, quote markers, backticks)."""
_TRAIL = r"[\s*_`]*"
_HEADER = re.compile(
    rf"^{_DECOR}(?P<name>{'|'.join(map(re.escape, _HEADER_NAMES))}){_TRAIL}:{_TRAIL}"
    rf"(?P<value>.*?){_TRAIL}$",
    re.IGNORECASE,
)
_SECTION = re.compile(rf"^{_DECOR}(?P<name>links|attachments){_TRAIL}:{_TRAIL}$", re.IGNORECASE)
_LINK = re.compile(r"^\s*(?:\[\d+\]|\d+[.)]|[-*])\s*(?:(?P<text>.*?)\s*->\s*)?(?P<href>\S+)\s*$")
_ATTACHMENT = re.compile(
    r"^\s*[-*]\s*(?P<name>.+?)\s*\((?P<ctype>[\w.+-]+/[\w.+-]+),\s*(?P<size>\d+)\s*bytes?\)\s*$"
)
_BODY_LABEL = re.compile(rf"^{_DECOR}body{_TRAIL}:{_TRAIL}", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_PLACEHOLDER = re.compile(
    r"\[(?:your|my|the|sender|recipient|receiver|insert|name|company|email|username|date|link)"
    r"\b[^\]\n]{0,40}\]",
    re.IGNORECASE,
)
"""Unfilled template slots such as ``[Your Name]`` or ``[recipient's email address]``."""


def _unfenced(text: str) -> str:
    """The content of the first fenced block holding a Subject line, else the whole text."""
    lines = text.replace("\r\n", "\n").split("\n")
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    for start, end in zip(fences, [*fences[1:], len(lines)], strict=False):
        block = lines[start + 1 : end]
        if any(_is_subject(line) for line in block):
            return "\n".join(block)
    return "\n".join(line for line in lines if not _FENCE.match(line))


def _next_nonblank(lines: list[str], index: int) -> int:
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def _is_subject(line: str) -> bool:
    return bool((match := _HEADER.match(line)) and match["name"].lower() == "subject")


def _is_head_line(line: str) -> bool:
    return bool(_HEADER.match(line) or _SECTION.match(line))


def split_email_text(completion: str) -> tuple[dict[str, str], Links, Attachments, str]:
    """(headers, links, attachments, body) of a completion in the rendered-email layout;
    prose before the first header line and code fences are dropped."""
    lines = _unfenced(completion).split("\n")
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        raise sv_data.Rejected("schema", "no header lines (From:/Subject:) found")
    headers: dict[str, str] = {}
    links: Links = []
    attachments: Attachments = []
    section, index = "", start
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            ahead = _next_nonblank(lines, index)
            if ahead < len(lines) and _is_head_line(lines[ahead]):
                index = ahead
                continue
            break
        if match := _SECTION.match(line):
            section = match["name"].lower()
        elif (match := _HEADER.match(line)) and not section:
            headers.setdefault(_HEADER_NAMES[match["name"].lower()], match["value"].strip())
        elif section == "links" and (match := _LINK.match(line)):
            links.append(((match["text"] or "").strip(), match["href"].strip("<>()")))
        elif section == "attachments" and (match := _ATTACHMENT.match(line)):
            attachments.append((match["name"], match["ctype"].lower(), int(match["size"])))
        elif match := _HEADER.match(line):  # a header after a list: the list has ended
            section = ""
            headers.setdefault(_HEADER_NAMES[match["name"].lower()], match["value"].strip())
        else:
            break
        index += 1
    body_lines = lines[_next_nonblank(lines, index) :]
    if body_lines:
        body_lines[0] = _BODY_LABEL.sub("", body_lines[0])
    return headers, links, attachments, "\n".join(body_lines).strip()


def _set_header(msg: EmailMessage, name: str, value: str) -> None:
    value = " ".join(value.split())
    if not value:
        return
    if name == "Date":
        try:
            parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return
    try:
        msg[name] = value
        str(msg[name])
    except Exception:  # an address the email package cannot parse: keep it as plain text
        del msg[name]
        msg[name] = re.sub(r"[<>@,;:\"()\[\]\\]", " ", value).strip() or "unknown"


def _html_body(body: str, links: Links) -> str:
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in body.split("\n\n") if p.strip())
    anchors = "".join(
        f'<p><a href="{html.escape(href, quote=True)}">{html.escape(text or href)}</a></p>'
        for text, href in links
    )
    return f"<html><body>{paragraphs}{anchors}</body></html>"


def _attach(msg: EmailMessage, name: str, ctype: str, size: int) -> None:
    maintype, subtype = ctype.split("/", 1)
    size = min(size, MAX_ATTACHMENT_BYTES)
    if maintype == "text":
        msg.add_attachment("x" * size, subtype=subtype, filename=name)
    else:
        msg.add_attachment(b"\0" * size, maintype=maintype, subtype=subtype, filename=name)


def build_candidate_message(completion: str) -> str:
    """An RFC 5322 message rebuilt from a completion; `Rejected` ("schema") when it has
    no subject or no body."""
    headers, links, attachments, body = split_email_text(completion)
    subject = headers.get("Subject", "")
    if not subject:
        raise sv_data.Rejected("schema", "no Subject: line")
    if len(subject) > MAX_SUBJECT_CHARS:
        raise sv_data.Rejected("schema", f"subject longer than {MAX_SUBJECT_CHARS} characters")
    if len(body.split()) < MIN_BODY_WORDS:
        raise sv_data.Rejected("schema", f"body missing or shorter than {MIN_BODY_WORDS} words")
    if len(body) > MAX_BODY_CHARS:
        raise sv_data.Rejected("schema", f"body longer than {MAX_BODY_CHARS} characters")
    if any(_is_subject(line) for line in body.split("\n")):
        raise sv_data.Rejected("schema", "more than one email (another Subject: line in the body)")
    slot = _PLACEHOLDER.search("\n".join([*headers.values(), body]))
    if slot:
        raise sv_data.Rejected("schema", f"unfilled placeholder {slot.group(0)!r}")
    msg = EmailMessage(policy=policy.default)
    for name, value in headers.items():
        _set_header(msg, name, value)
    if looks_like_html(body):
        msg.set_content(body, subtype="html")
    else:
        msg.set_content(body)
        if links:
            msg.add_alternative(_html_body(body, links), subtype="html")
    for name, ctype, size in attachments:
        _attach(msg, name, ctype, size)
    return msg.as_string()


def synth_parse(template: sv_data.SynthSeed, completion: str, row_id: str) -> EmailRecord:
    raw = build_candidate_message(completion)
    return EmailRecord(
        id=row_id,
        raw=raw,
        label=template.target["label"],
        source=SYNTH_SOURCE,
        scenario=template.target["scenario"],
        group=template.target["group"],
        language=template.target["language"],
        meta={"template": template.id, "example_id": template.target["example_id"]},
    )


# -------------------------------------------------------------------------------- verifying
def synth_verify(template: sv_data.SynthSeed, row: EmailRecord) -> EmailRecord:
    """Label with the indicator extractor + heuristic; reject abstentions and contradictions."""
    found = extract_indicators(parse_message(row.raw))
    score = indicator_score(found)
    label, confidence = label_for_score(score)
    fired = ", ".join(sorted(found)) or "no indicators"
    if label == ABSTAIN:
        raise sv_data.Rejected("verify", f"heuristic abstains (score {score}: {fired})")
    requested = template.target["label"]
    if label != requested:
        raise sv_data.Rejected(
            "verify",
            f"heuristic says {label} (score {score}: {fired}); template asked for "
            f"{requested.lower()} {template.id}",
        )
    evidence = {
        "verifier": verifier_version(),
        "heuristic": {"label": label, "confidence": confidence, "score": score},
        "indicators": {name: list(details) for name, details in sorted(found.items())},
    }
    return replace(row, label=label, meta={**row.meta, **evidence})


VERIFIER_DESCRIPTION = (
    "E4 indicator extractor + heuristic ({version}): the label is the heuristic's decision "
    "(weighted indicator score >= 2.0 Phishing, <= 1.0 Legitimate); candidates where it "
    "abstains or contradicts the requested kind are rejected, so accepted rows are ones the "
    "rules can vouch for"
)


def data_adapter() -> sv_data.DataAdapter:
    return sv_data.DataAdapter(
        env_id=ENV_ID,
        row_type=EmailRecord,
        sources=source_loaders(),
        facets=facets,
        versions=versions,
        description="Emails (raw RFC 5322 plus provenance) labelled Phishing or Legitimate. "
        "Scenario: the campaign or benign kind (the label for real corpora). Groups are "
        "campaign templates (generated mail) or subject threads (real corpora), so a "
        "template or thread never crosses splits. Text: the email as the model is shown it.",
        default_source="synthetic",
        assign_split=assign_split,
        labels=(PHISHING, LEGITIMATE),
        synth=sv_data.SynthRecipe(
            seeds=synth_seeds,
            parse=synth_parse,
            verify=synth_verify,
            verifier=VERIFIER_DESCRIPTION.format(version=verifier_version()),
        ),
    )


__all__ = [
    "build_candidate_message",
    "data_adapter",
    "facets",
    "prompt_text",
    "split_email_text",
    "synth_parse",
    "synth_seeds",
    "synth_verify",
]
