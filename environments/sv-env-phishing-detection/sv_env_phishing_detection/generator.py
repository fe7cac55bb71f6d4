"""Deterministic synthetic phishing and legitimate emails, built as full RFC 5322 messages.

`generate_corpus(n, seed)` returns `n` `EmailRecord`s, half phishing and half legitimate. Each
label's budget is dealt round-robin over its templates (`campaigns.templates_for`), so every
scenario x language pair appears once n >= 70, and each email draws everything else (people,
brands, amounts, obfuscation techniques, MIME layout) from a `Random` seeded by
(seed, template, round): an id always names the same message for a given seed, whatever `n`.

No single surface feature gives the label away: legitimate mail is also HTML-only, urgent, full
of links, sent through bulk-mail providers (Return-Path elsewhere, click-tracking anchors),
from misconfigured small senders (softfail, no DKIM) or from free-mail; phishing BEC and
gift-card lures often pass authentication from free-mail or look-alike company domains with
plain text and no links.

This module is the driver: `_build` seeds the email's `Random`, draws its people, dates and
placeholder values (`draft_fields`), lets the scenario's planner (`phishing_plans`,
`legitimate_plans`, both built from `draft_parts`) fill a `mime.Draft`, and `mime.render` turns
that plan into the message and `meta["planted"]`, the catalogue indicators really in it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from random import Random
from typing import Any

from sv_env_phishing_detection.campaigns import (
    DATA_SCENARIOS,
    LANGUAGES,
    LEGITIMATE_SCENARIOS,
    LOCALES,
    PERSONAL_SCENARIOS,
    PHISHING_SCENARIOS,
    Template,
    templates_for,
)
from sv_env_phishing_detection.draft_fields import chance, draw_fields, draw_text
from sv_env_phishing_detection.draft_parts import free_mail
from sv_env_phishing_detection.legitimate_plans import (
    plan_calendar_invite,
    plan_colleague,
    plan_company,
    plan_internal_memo,
    plan_list,
    plan_newsletter,
    plan_partner,
    plan_password_reset,
    plan_personal,
    plan_receipt,
    plan_service,
    plan_shipping,
    plan_vendor,
)
from sv_env_phishing_detection.mime import RISKY_EXTENSIONS, Draft, Person, render
from sv_env_phishing_detection.phishing_plans import (
    plan_attachment_lure,
    plan_credential_harvest,
    plan_delivery_notice,
    plan_executive_lure,
    plan_invoice_fraud,
    plan_linked_lure,
    plan_mfa_reset,
    plan_person_lure,
    plan_tech_support,
    plan_text_lure,
    plan_thread_lure,
)
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING, EmailRecord

__all__ = [
    "GENERATOR_VERSION",
    "LANGUAGES",
    "LEGITIMATE_SCENARIOS",
    "PHISHING_SCENARIOS",
    "RISKY_EXTENSIONS",
    "generate_corpus",
]

GENERATOR_VERSION = "e4-synthetic-v2"
SOURCE = "synthetic"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_TZ_HOURS = {"en": (-8, -5, 0), "es": (1, 2), "de": (1, 2), "fr": (1, 2), "pt": (-3, 0, 1)}


# ---------------------------------------------------------------------------- planners
_DATA_PLANNERS = {
    "text_lure": plan_text_lure,
    "person_lure": plan_person_lure,
    "thread_lure": plan_thread_lure,
    "attachment_lure": plan_attachment_lure,
    "linked_lure": plan_linked_lure,
    "colleague": plan_colleague,
    "partner": plan_partner,
    "vendor": plan_vendor,
    "company": plan_company,
    "service": plan_service,
    "list": plan_list,
    "personal": plan_personal,
}


_PLANNERS = {
    "credential_harvest": plan_credential_harvest,
    "invoice_fraud": plan_invoice_fraud,
    "delivery_notice": plan_delivery_notice,
    "ceo_fraud_bec": plan_executive_lure,
    "mfa_reset_lure": plan_mfa_reset,
    "tech_support": plan_tech_support,
    "gift_card": plan_executive_lure,
    "receipt": plan_receipt,
    "password_reset": plan_password_reset,
    "shipping": plan_shipping,
    "newsletter": plan_newsletter,
    "calendar_invite": plan_calendar_invite,
    "internal_memo": plan_internal_memo,
} | {name: _DATA_PLANNERS[entry["plan"]] for name, entry in DATA_SCENARIOS.items()}


# ---------------------------------------------------------------------------- assembly
def _build(template: Template, round_: int, seed: int) -> EmailRecord:
    rng = Random(f"{GENERATOR_VERSION}|{seed}|{template.key}|{round_}")
    loc = LOCALES[template.language]
    offset = timedelta(hours=rng.choice(_TZ_HOURS[template.language]))
    sent = (_EPOCH + timedelta(seconds=rng.randrange(540 * 86_400))).astimezone(timezone(offset))
    people = [Person(rng.choice(loc.first_names), rng.choice(loc.last_names)) for _ in range(2)]
    if people[0] == people[1]:
        people[1] = Person(people[1].first, rng.choice(loc.last_names[:1] + loc.last_names[2:]))
    company, supplier = rng.sample(loc.companies, 2)
    fields = draw_fields(rng, template, loc, sent)
    fields |= {"company": company[0], "supplier": supplier[0], "sender_name": people[0].full}
    third = Person(rng.choice(loc.first_names), rng.choice(loc.last_names))
    fields |= {
        "first": people[1].first,
        "colleague": third.full,
        "sender_first": people[0].first,
        "supplier_short": "".join(ch for ch in supplier[0].split()[0] if ch.isalnum()),
    }
    style = ""
    if template.spec is not None:
        template, style = draw_text(rng, template, fields)
    recipient = people[1]
    workplace = template.scenario in PERSONAL_SCENARIOS or template.scenario in (
        "mfa_reset_lure", "invoice_fraud",
    )  # fmt: skip
    mailbox = company[1] if workplace or chance(rng, 0.5) else free_mail(rng)
    draft = Draft(
        template=template,
        locale=loc,
        rng=rng,
        sent=sent,
        person=people[0],
        recipient=recipient,
        recipient_address=f"{recipient.local_part(rng)}@{mailbox}",
        company=company,
        supplier=supplier,
        fields=fields,
    )
    _PLANNERS[template.scenario](draft)
    raw, planted = render(draft)
    phishing = template.scenario in PHISHING_SCENARIOS
    index = round_ * (3 if template.spec is None else 100) + template.variant
    if style:
        draft.use(f"style_{style}")
    meta: dict[str, Any] = {
        "planted": planted,
        "template": template.key,
        "techniques": list(draft.techniques),
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "brand": draft.brand,
    }
    return EmailRecord(
        id=f"synth-{template.scenario}-{template.language}-{index:04d}",
        raw=raw,
        label=PHISHING if phishing else LEGITIMATE,
        source=SOURCE,
        scenario=template.scenario,
        group=template.group,
        language=template.language,
        meta=meta,
    )


def generate_corpus(n: int = 2000, seed: int = 42) -> list[EmailRecord]:
    """`n` synthetic emails (n // 2 phishing, the rest legitimate), shuffled by `seed`.

    Deterministic: the same (n, seed) always gives the same records in the same order.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    records = []
    for scenarios, count in ((PHISHING_SCENARIOS, n // 2), (LEGITIMATE_SCENARIOS, n - n // 2)):
        order = templates_for(scenarios)
        for i in range(count):
            records.append(_build(order[i % len(order)], i // len(order), seed))
    Random(f"shuffle|{seed}").shuffle(records)
    return records
