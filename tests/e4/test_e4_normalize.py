"""normalize_text (idempotence, quote safety, what it erases) and the prompt rendering."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sv_env_phishing_detection.normalize import (
    INVISIBLE_CHARS,
    normalize_text,
    remove_invisible,
    unescape_entities,
)
from sv_env_phishing_detection.render import comparable_view, render_email
from sv_env_phishing_detection.view import Attachment, EmailView, Link

# Pieces that exercise every rule: tokenised punctuation, entities, invisible and typographic
# characters, separators, quote markers, URLs.
PIECES = [
    *"aAbZ09 ./:,;'\"@#$%-!?()[]{}&>*_=\n\t",
    *"\u200b\u202e\u00ad\u00a0é’“”–—©ﬁ𝖾ＡΣ",
    " ' s", " / ", " : / / ", " - ", "- - -", " , ", " . ", " : ", "_ _ _", " > > ", ' " ',
    "&amp;", "&amp;lt;", "&#39;", "&#x41;", "&param", "http://", "www . x . com", "*****",
    "16 , 495", "11 : 46", "5 %",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
FAST = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(texts)
def test_idempotent_on_rule_heavy_text(text):
    once = normalize_text(text)
    assert normalize_text(once) == once


@FAST
@given(st.text(max_size=60))
def test_idempotent_on_any_unicode(text):
    once = normalize_text(text)
    assert normalize_text(once) == once


@FAST
@given(st.one_of(texts, st.text(max_size=60)), st.data())
def test_any_span_of_a_normalised_text_is_found_again(text, data):
    normalized = normalize_text(text)
    start = data.draw(st.integers(0, len(normalized)))
    end = data.draw(st.integers(start, len(normalized)))
    assert normalize_text(normalized[start:end]) in normalized


WORDS = [
    "Your", "account", "has", "been", "SUSPENDED.", "Verify", "your", "password", "at",
    "https://paypal.com-secure.example/login?id=1&param=2", "within", "24", "hours,", "or",
    "(contact", "support@example.com).", "Don't", "wait!", "“Click”", "here—now:", "Hi,",
    "05/08/2000", "$100", "invoice.pdf", "café", "Straße", "e-mail", "\u200bhidden",
]  # fmt: skip


def test_word_spans_of_ordinary_email_text_are_found():
    """Raw quotes cut at spaces (not right next to a re-joined ``' / @``) are found."""
    rng = random.Random(7)
    for _ in range(300):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 30))]
        email = rng.choice([" ", "\n", "  "]).join(words)
        normalized = normalize_text(email)
        i = rng.randrange(len(words))
        j = rng.randint(i + 1, len(words))
        quote = " ".join(words[i:j])
        assert normalize_text(quote) in normalized, (quote, normalized)


def test_zero_width_and_bidi_characters_are_removed():
    text = "pa\u200byp\u200dal\u2060 ac\u202ecount\ufeff \u200e\u200f\u2066x\u2069"
    assert normalize_text(text) == "paypal account x"
    assert remove_invisible(text) == "paypal ac" + "count x"
    assert not any(ch in INVISIBLE_CHARS for ch in normalize_text("".join(INVISIBLE_CHARS)))


def test_case_entities_typography_and_whitespace():
    text = "  Dear&nbsp;Customer,\n\n“Verify” your &amp;lt;Account&gt; — NOW…\t©\u00a02024 "
    assert normalize_text(text) == 'dear customer, "verify" your <account> - now... (c) 2024'
    assert normalize_text("𝖾𝗇𝗍𝖾𝗋 ＰＡＳＳ") == "enter pass"  # NFKC folds styled letters


def test_entities_need_a_semicolon_so_url_queries_survive():
    url = "https://x.example/a?b=1&param=2&region=us&amp=3"
    assert normalize_text(url) == url
    assert unescape_entities("&amp;amp;lt;") == "<"
    assert unescape_entities("&bogus; &#65;&#x42;") == "&bogus; AB"


TOKENISED = [
    ("enron ' s k # 5095 - 037 .", "enron's k #5095-037."),
    ("stacey / hou / ect on 05 / 08 / 2000 11 : 46 am", "stacey/hou/ect on 05/08/2000 11:46 am"),
    ('from : " ibrom , lorraine " cc :', 'from: "ibrom, lorraine" cc:'),
    (
        "volume 16 , 495 on april 7 , 2001 ( see below )",
        "volume 16,495 on april 7, 2001 (see below)",
    ),
    ("- - - - - forwarded - - - - -", "forwarded"),
    ("> > e - mail : http : / / abc . go . com", "e - mail: http://abc. go. com"),
    ("i ' m sure , 5 % off $ 100 ! call 713 - 345", "i'm sure, 5% off $100! call 713-345"),
]


@pytest.mark.parametrize(("tokenised", "canonical"), TOKENISED)
def test_tokenised_text_gets_canonical_spacing(tokenised, canonical):
    assert normalize_text(tokenised) == canonical


def test_urls_and_addresses_are_never_split():
    text = "Go to HTTP://Login.Example.com/Verify?u=A-B_C&x=1 or mail Bob.Smith@Example.org."
    normalized = normalize_text(text)
    assert "http://login.example.com/verify?u=a-b_c&x=1" in normalized.split()
    assert "bob.smith@example.org." in normalized.split()


VIEW = EmailView(
    headers={
        "to": "Jose <jose@monkey.org>",
        "date": "Sun, 29 Jan 2017 18:26:30 -0600",
        "authentication-results": "mx.example; spf=fail smtp.mailfrom=evil.example",
        "x-mailer": "not shown",
    },
    from_name="PayPal  Service",
    from_address="service@paypa1.example",
    reply_to_address="collect@freemail.example",
    subject="Your Account is LIMITED",
    text="Dear Customer,\n\nPlease verify\u200b your account.",
    links=(
        Link(href="http://paypa1.example/Login?x=1", text="PayPal.com"),
        Link(href="https://bit.ly/Abc"),
    ),
    attachments=(Attachment("Invoice.PDF.exe", "application/octet-stream", 1234),),
)


def test_render_layout_and_what_stays_verbatim():
    assert render_email(VIEW) == "\n".join(
        [
            "From: paypal service <service@paypa1.example>",
            "Reply-To: collect@freemail.example",
            "To: jose <jose@monkey.org>",
            "Subject: your account is limited",
            "Date: sun, 29 jan 2017 18:26:30 -0600",
            "Authentication-Results: mx.example; spf=fail smtp.mailfrom=evil.example",
            "Links:",
            "[1] paypal.com -> http://paypa1.example/Login?x=1",
            "[2] https://bit.ly/Abc",
            "Attachments:",
            "- invoice.pdf.exe (application/octet-stream, 1234 bytes)",
            "",
            "dear customer, please verify your account.",
        ]
    )


def test_render_without_normalisation_and_link_cap():
    raw = render_email(VIEW, normalizer=str, max_links=1)
    assert "Subject: Your Account is LIMITED" in raw and raw.endswith("verify\u200b your account.")
    assert "[1] PayPal.com -> http://paypa1.example/Login?x=1\n(+1 more)" in raw
    assert render_email(EmailView(text="Just a body")) == "just a body"


def test_comparable_view_keeps_only_shared_fields():
    view = comparable_view(VIEW)
    assert (view.subject, view.text, view.links) == (VIEW.subject, VIEW.text, VIEW.links)
    assert view.from_address == view.reply_to_address == "" and view.attachments == ()
    rendered = render_email(view)
    assert rendered.startswith("Subject: your account is limited\nLinks:\n[1] paypal.com")
    assert "From:" not in rendered and "Date:" not in rendered and "Attachments:" not in rendered
