"""Parsing raw mail into an EmailView, and building mail from bare fields."""

from __future__ import annotations

import email
from email import policy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sv_env_phishing_detection.message import build_message, html_to_text, parse_message
from sv_env_phishing_detection.view import Link

MULTIPART = b"""From: =?utf-8?q?Caf=C3=A9_Service?= <Service@Example.COM>
To: bob@example.org
Reply-To: "Doe, John" <j@reply.example>
Return-Path: <bounce@bounces.example>
Subject: =?utf-8?b?w5xiZXJ3ZWlzdW5n?= =?iso-8859-1?q?_f=E4llig?=
Received-SPF: pass
Received-SPF: fail
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="OUTER"

--OUTER
Content-Type: multipart/alternative; boundary="ALT"

--ALT
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Hello =C3=BCber, see https://example.com/a. And www.example.org/b, thanks.
--ALT
Content-Type: text/html; charset=utf-8

<p>Hello <a href="https://example.com/a">here</a></p>
--ALT--
--OUTER
Content-Type: application/octet-stream; name="invoice.pdf.exe"
Content-Disposition: attachment; filename="invoice.pdf.exe"
Content-Transfer-Encoding: base64

TVqQAAMAAAAEAAAA
--OUTER--
"""


def test_headers_addresses_and_rfc2047_subject():
    view = parse_message(MULTIPART)
    assert view.subject == "Überweisung fällig"
    assert view.from_name == "Café Service"
    assert view.from_address == "service@example.com"
    assert view.reply_to_address == "j@reply.example"
    assert view.return_path_address == "bounce@bounces.example"
    assert view.header("Received-SPF") == "pass\nfail"


def test_display_name_keeps_a_comment_as_mail_clients_show_it():
    view = parse_message(
        "From: =?utf-8?q?In=C3=AAs?= Gomes (ines@corp.example)\n <IG@proton.me>\n\nx"
    )
    assert view.from_name == "Inês Gomes (ines@corp.example)"
    assert view.from_address == "ig@proton.me"
    assert parse_message("From: bob@example.com (Bob)\n\nx").from_address == "bob@example.com"


def test_plain_part_preferred_and_links_collected():
    view = parse_message(MULTIPART)
    assert view.text.startswith("Hello über, see https://example.com/a.")
    assert view.html is not None and "<a href" in view.html
    assert view.links == (
        Link("https://example.com/a", "here"),
        Link("www.example.org/b", ""),
    )


def test_bare_ipv6_url_is_a_link():
    view = parse_message("From: a@b.example\nSubject: x\n\nOpen http://[2001:db8::1]/x. Or not.")
    assert view.links == (Link("http://[2001:db8::1]/x"),)
    broken = parse_message("From: a@b.example\nSubject: x\n\nsee http://[ and http://ok.example/")
    assert broken.links == (Link("http://ok.example/"),)


def test_form_targets_are_links():
    raw = (
        "From: a@b.example\nSubject: hi\nContent-Type: text/html; charset=utf-8\n\n"
        '<p><a href="https://evil.example/login">Sign in</a></p>'
        '<form action="https://evil.example/login"><input type="password"></form>'
        '<form method="post" action="https://collect.example/post"></form>'
        '<form action="javascript:void(0)"></form><form></form>'
    )
    assert parse_message(raw).links == (
        Link("https://evil.example/login", "Sign in"),
        Link("https://collect.example/post"),
    )


def test_attachment_name_type_and_size():
    (attachment,) = parse_message(MULTIPART).attachments
    assert attachment.filename == "invoice.pdf.exe"
    assert attachment.content_type == "application/octet-stream"
    assert attachment.size == 12


def test_html_only_body_gives_readable_text_and_anchors():
    raw = (
        "From: a@b.example\nSubject: hi\nContent-Type: text/html; charset=utf-8\n\n"
        "<html><head><title>T</title><style>p {color: red}</style></head><body>"
        "<p>Dear   <b>customer</b>,</p><script>alert('x')</script>"
        '<p><a href="http://evil.example/login">https://www.paypal.com/</a> &amp; more</p>'
        '<a href="mailto:x@y.example">mail us</a><br>Line two<!-- hidden comment -->'
        "<table><tr><td>a</td><td>b</td></tr></table></body></html>"
    )
    view = parse_message(raw)
    assert view.text.splitlines()[:2] == ["Dear customer,", "https://www.paypal.com/ & more"]
    assert "alert" not in view.text and "color" not in view.text and "hidden" not in view.text
    assert "mail us" in view.text and "Line two" in view.text and "a b" in view.text
    assert view.links == (Link("http://evil.example/login", "https://www.paypal.com/"),)


def test_html_to_text_keeps_inline_words_together():
    assert html_to_text("<p>pay<b>pal</b> <i>account</i></p><div>next</div>") == (
        "paypal account\nnext"
    )


def test_zero_width_characters_are_kept_for_the_extractor():
    raw = "Subject: ver\u200bify\nContent-Type: text/plain; charset=utf-8\n\nac\u200bcount"
    view = parse_message(raw.encode())
    assert "\u200b" in view.subject and "\u200b" in view.text


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"no headers at all, just text",
        b"\xff\xfe\x00garbage\x80\x81",
        b"From: <<<>>>@@@\nTo: ,,,\nSubject: =?bogus?q?x?= =?utf-8?b?!!!?=\n\nbody",
        b"Content-Type: multipart/mixed\n\nmultipart without a boundary",
        b'Content-Type: multipart/mixed; boundary="X"\n\n--X\nContent-Type: text/plain\n\nno end',
        b"Content-Type: text/plain; charset=no-such-charset\n\ncaf\xe9",
        b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!not base64!!!",
        b"Content-Type: text/html; charset=utf-8\n\n<a href=>x</a><p <<< unclosed <form",
        b"From: \xc3\xa9\xff <a@b.c>\nSubject: \xff\xfe\n\nx",
        b"Content-Type: message/rfc822\n\nFrom: inner@x.example\n\ninner body",
    ],
)
def test_malformed_mail_never_raises(raw):
    view = parse_message(raw)
    assert isinstance(view.text, str) and isinstance(view.headers, dict)


def test_bad_charset_degrades_to_replacement_text():
    view = parse_message(b"Content-Type: text/plain; charset=no-such-charset\n\ncaf\xe9 ok")
    assert view.text.startswith("caf") and view.text.endswith("ok")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_never_raise(data):
    parse_message(b"Content-Type: multipart/mixed; boundary=b\n\n--b\n" + data)
    parse_message(data)


def test_build_message_round_trips_fields():
    raw = build_message(
        subject="Factura pendiente — ¡urgente!",
        body="Hola,\npague la factura en https://pay.example/x\n" + "x" * 2000,
        sender="Email-Host Security <no-reply@emailsecurity.com>",
        recipient="jose@monkey.org",
        date="Sun, 29 Jan 2017 18:26:30 -0600",
    )
    parsed = email.message_from_string(raw, policy=policy.default)
    assert parsed["Date"] == "Sun, 29 Jan 2017 18:26:30 -0600"
    view = parse_message(raw)
    assert view.subject == "Factura pendiente — ¡urgente!"
    assert view.from_name == "Email-Host Security"
    assert view.from_address == "no-reply@emailsecurity.com"
    assert view.text.startswith("Hola,\npague la factura") and view.text.endswith("x" * 2000)
    assert view.links == (Link("https://pay.example/x"),)


def test_build_message_html_iso_date_and_unusable_fields():
    raw = build_message(
        subject="multi\nline",
        body="<p>Hi <a href='http://a.example/'>there</a></p>",
        sender="garbage @@ <<>",
        date="2020-05-09T14:09:25+00:00",
        html=True,
    )
    view = parse_message(raw)
    assert view.subject == "multi line"
    assert view.header("date") == "Sat, 09 May 2020 14:09:25 +0000"
    assert view.text == "Hi there" and view.links == (Link("http://a.example/", "there"),)
    assert "X-Original-Date: yesterday" in build_message(subject="s", body="b", date="yesterday")
    assert "From:" not in build_message(subject="s", body="b")
