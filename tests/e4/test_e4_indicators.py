"""Every catalogue indicator fires on a textbook email and stays quiet on a near miss."""

from __future__ import annotations

import time

import pytest

from sv_env_phishing_detection.indicators import CATALOGUE, extract_indicators, fold_text
from sv_env_phishing_detection.message import parse_message

CATALOGUE_IDS = {
    "link_text_mismatch",
    "ip_url",
    "brand_lookalike",
    "punycode_domain",
    "url_shortener",
    "risky_tld",
    "at_sign_url",
    "excessive_subdomains",
    "reply_to_mismatch",
    "return_path_mismatch",
    "display_name_spoof",
    "spf_fail",
    "dkim_fail",
    "dmarc_fail",
    "credential_request",
    "urgency_language",
    "payment_request",
    "risky_attachment",
    "zero_width_chars",
    "html_form",
    "off_channel_contact",
    "money_offer",
    "secrecy_request",
    "personal_info_request",
    "crypto_extortion",
}


def mail(
    body: str = "Hello, see you soon.",
    *,
    sender: str = "Alice <alice@example.com>",
    subject: str = "Hello",
    html: bool = False,
    headers: str = "",
    attachment: str = "",
) -> str:
    """A small raw message: plain or HTML body, extra header lines, optional attachment."""
    head = f"From: {sender}\nTo: bob@example.org\nSubject: {subject}\n{headers}MIME-Version: 1.0\n"
    kind = "html" if html else "plain"
    if not attachment:
        return f"{head}Content-Type: text/{kind}; charset=utf-8\n\n{body}\n"
    return (
        f'{head}Content-Type: multipart/mixed; boundary="B"\n\n--B\n'
        f"Content-Type: text/{kind}; charset=utf-8\n\n{body}\n--B\n"
        f'Content-Type: application/octet-stream\nContent-Disposition: attachment; filename="'
        f'{attachment}"\nContent-Transfer-Encoding: base64\n\nQUJD\n--B--\n'
    )


def anchor(href: str, text: str = "here") -> str:
    return mail(f'<p>Please see <a href="{href}">{text}</a>.</p>', html=True)


FIRES = [
    ("link_text_mismatch", anchor("http://evil.example/login", "https://www.paypal.com/signin")),
    ("link_text_mismatch", anchor("http://evil.example/", "Visit paypal.com now")),
    ("ip_url", mail("Open http://203.0.113.9/secure now")),
    ("ip_url", anchor("http://0xCB00710A/x")),
    ("ip_url", mail("Open http://[2001:db8::1]/x now")),  # bare IPv6 URL in plain text
    ("brand_lookalike", mail("Log in at https://paypa1.com/login")),
    ("brand_lookalike", mail("hi", sender="PayPal <service@paypal-secure-login.com>")),
    ("brand_lookalike", anchor("http://paypal.com.account-check.net/x")),
    ("brand_lookalike", mail('<form action="https://paypa1.com/login"></form>', html=True)),
    ("punycode_domain", anchor("http://xn--pypal-4ve.com/")),
    ("punycode_domain", mail("hi", sender="=?utf-8?q?x?= <a@b\u00fccher.example>")),
    ("url_shortener", mail("Details: https://bit.ly/3xYz")),
    ("risky_tld", mail("Go to https://secure-update.top/a")),
    ("risky_tld", mail("hi", sender="Info <info@deals.xyz>")),
    ("at_sign_url", anchor("http://paypal.com@evil.example/")),
    ("excessive_subdomains", mail("Open https://a.b.c.d.evil.example/x")),
    ("reply_to_mismatch", mail(headers="Reply-To: ceo.private@gmail.com\n")),
    ("return_path_mismatch", mail(headers="Return-Path: <bounce@mailer.example.net>\n")),
    ("display_name_spoof", mail(sender="PayPal Service <service@mailer.example>")),
    ("display_name_spoof", mail(sender='"Wells Fargo Online" <alerts@wf-alerts.example>')),
    ("display_name_spoof", mail(sender='"support@paypal.com" <x@evil.example>')),
    ("display_name_spoof", mail(sender="Ines Gomes (ines@corp.example) <ig@proton.example>")),
    ("spf_fail", mail(headers="Authentication-Results: mx.example.org; spf=softfail\n")),
    ("spf_fail", mail(headers="Received-SPF: Fail (domain does not designate)\n")),
    ("dkim_fail", mail(headers="Authentication-Results: mx; spf=pass; dkim=fail reason=x\n")),
    ("dmarc_fail", mail(headers="Authentication-Results: mx; dmarc=fail (p=reject)\n")),
    ("credential_request", mail("Please verify your account password by clicking below.")),
    ("credential_request", mail("Por favor, confirme su contraseña en el enlace.")),
    ("credential_request", mail("Bitte bestätigen Sie Ihr Konto innerhalb eines Tages.")),
    ("credential_request", mail("Bitte Ihre Zugangsdaten erneut eingeben.")),
    ("credential_request", mail("Veuillez vérifier votre compte dès aujourd'hui.")),
    ("credential_request", mail("Confirme os dados do cartão para continuar.")),
    ("credential_request", mail("Ple\u200base ver\u200bify your acc\u200bount")),
    ("urgency_language", mail("Your account will be suspended within 24 hours.")),
    ("urgency_language", mail("Su cuenta ha sido suspendida.")),
    ("urgency_language", mail("Ihr Konto wird gesperrt.")),
    ("urgency_language", mail("Dernier avertissement avant suspension.")),
    ("urgency_language", mail("Sua conta será bloqueada imediatamente.")),
    ("urgency_language", mail("El pago vence el 3 de mayo de 2024.")),
    ("urgency_language", mail("Precisamos pagar a fatura até 3 de maio de 2024.")),
    ("urgency_language", mail("O pagamento vence em 12 de março de 2025.")),
    ("urgency_language", mail("Hola", subject="Acción requerida: su cuenta")),
    ("urgency_language", mail("Bonjour", subject="Action requise : votre compte")),
    ("urgency_language", mail("Olá", subject="Ação necessária: sua conta")),
    (
        "urgency_language",
        mail("Hallo", subject="Zustellung fehlgeschlagen – Handlung erforderlich"),
    ),
    ("payment_request", mail("Please wire the funds to the account below today.")),
    ("payment_request", mail("I need you to buy 5 Apple gift cards and send me the codes.")),
    ("payment_request", mail("Please buy Google Play gift cards at the nearest store.")),
    ("payment_request", mail("Buy 5 Google Play cards and send me the codes.")),
    ("payment_request", mail("Bitte kaufen Sie 5 Google-Play-Karten.")),
    ("payment_request", mail("Compre 3 cartões Google Play de R$ 100,00.")),
    ("payment_request", mail("Please authorize the payment to our new supplier.")),
    ("payment_request", mail("Please note our bank details have changed; new IBAN below.")),
    ("payment_request", mail("Realice el pago de la factura pendiente.")),
    ("payment_request", mail("Bitte begleichen Sie die offene Rechnung.")),
    ("payment_request", mail("Bitte überweisen Sie heute 28.300,00 € an einen Lieferanten.")),
    ("payment_request", mail("Merci de régler la facture impayée.")),
    ("payment_request", mail("Efetue o pagamento do boleto vencido.")),
    ("risky_attachment", mail(attachment="invoice.pdf.exe")),
    ("risky_attachment", mail(attachment="Remittance.HTML")),
    ("risky_attachment", mail(attachment="scan.iso")),
    ("zero_width_chars", mail("pay\u200bpal account")),
    ("zero_width_chars", mail("hi", subject="Ur\u202egent")),
    ("zero_width_chars", mail("<p>pay&#8203;pal</p>", html=True)),
    ("html_form", mail('<form action="https://x.example/p"><input name="u"></form>', html=True)),
    ("html_form", mail('<input type="password" name="p">', html=True)),
]

QUIET = [
    ("link_text_mismatch", anchor("https://www.paypal.com/signin", "www.paypal.com")),
    ("link_text_mismatch", anchor("https://www.amazon.co.uk/x", "amazon.com")),
    ("link_text_mismatch", anchor("https://click.example/x", "Read more")),
    ("ip_url", mail("Version 10.2.3.4 is out; see https://example.com/release")),
    ("brand_lookalike", anchor("https://www.paypal.com/signin")),
    ("brand_lookalike", mail("https://accounts.google.com/x", sender="G <no-reply@google.com>")),
    ("brand_lookalike", mail("Visit https://mail.com/ and https://startups.com/")),
    ("punycode_domain", mail("Plain ascii https://example.com/caf%C3%A9")),
    ("url_shortener", mail("See https://bitly.example.org/x")),
    ("risky_tld", mail("See https://topics.example.com/xyz")),
    ("at_sign_url", mail("Login at https://example.com/login?user=a@b.com")),
    ("excessive_subdomains", mail("Open https://b.c.d.example.com/x")),
    ("reply_to_mismatch", mail(headers="Reply-To: support@help.example.com\n")),
    ("return_path_mismatch", mail(headers="Return-Path: <bounces@mail.example.com>\n")),
    ("display_name_spoof", mail(sender="PayPal <service@paypal.com>")),
    ("display_name_spoof", mail(sender="Amazon.fr <confirmation@amazon.fr>")),
    ("display_name_spoof", mail(sender="Microsoft account team <account@microsoftonline.com>")),
    ("spf_fail", mail(headers="Authentication-Results: mx; spf=pass; dkim=none; dmarc=pass\n")),
    ("dkim_fail", mail(headers="Authentication-Results: mx; spf=fail; dkim=pass\n")),
    ("dmarc_fail", mail(headers="Authentication-Results: mx; dmarc=none\n")),
    ("credential_request", mail("Your password was changed. If this wasn't you, contact us.")),
    ("credential_request", mail("We've made an update to your account terms.")),
    ("credential_request", mail("Click the link below to reset your password.")),
    ("credential_request", mail("Ihr Passwort wurde geändert.")),
    ("credential_request", mail("Confirm address: https://login.example.com/track")),
    ("credential_request", mail("Open https://validate-login.example.com/invoice/view")),
    ("urgency_language", mail("Thanks for your order. It ships on Monday.")),
    ("urgency_language", mail("Segue a fatura 123, com vencimento em 5 de abril de 2024.")),
    ("urgency_language", mail("Details: https://example.com/urgent-notice")),
    ("payment_request", mail("Payment received - thank you! Your receipt is attached.")),
    ("payment_request", mail("We have received your payment of $20.00.")),
    ("payment_request", mail("Hemos recibido su pago. Gracias.")),
    ("payment_request", mail("If you did not authorize this charge, contact us.")),
    ("payment_request", mail("Please authorize this charge only if you recognise it.")),
    ("payment_request", mail("If you didn't make this payment, call your bank.")),
    ("risky_attachment", mail(attachment="invoice.pdf")),
    ("risky_attachment", mail(attachment="archive.tar.gz")),
    ("risky_attachment", mail(attachment="invite.ics")),
    ("zero_width_chars", mail("Plain text with\u00a0no-break space")),
    ("html_form", mail("<p>Fill in the form on our website</p>", html=True)),
]


def test_catalogue_ids_are_exactly_the_fixed_ones():
    assert set(CATALOGUE) == CATALOGUE_IDS
    assert all(description and "\n" not in description for description in CATALOGUE.values())


@pytest.mark.parametrize(("indicator", "raw"), FIRES)
def test_indicator_fires(indicator, raw):
    found = extract_indicators(parse_message(raw))
    assert indicator in found, found
    assert all(isinstance(detail, str) and detail for detail in found[indicator])


@pytest.mark.parametrize(("indicator", "raw"), QUIET)
def test_near_miss_does_not_fire(indicator, raw):
    found = extract_indicators(parse_message(raw))
    assert indicator not in found, found


def test_plain_legitimate_mail_fires_nothing():
    raw = mail(
        "Hi Bob,\nthe meeting notes are at https://wiki.example.com/notes. See you Monday.",
        headers="Authentication-Results: mx.example.org; spf=pass; dkim=pass; dmarc=pass\n",
    )
    assert extract_indicators(parse_message(raw)) == {}


def test_results_follow_catalogue_order_and_cap_details():
    body = " ".join(f"http://10.0.0.{i}/x" for i in range(10))
    found = extract_indicators(parse_message(mail(body, subject="URGENT: act now")))
    assert list(found) == [key for key in CATALOGUE if key in found]
    assert len(found["ip_url"]) == 3


def test_fold_text_drops_zero_width_accents_and_case():
    assert fold_text("Con\u200btraseña  VÉRIFIER\n") == "contrasena verifier"


def test_extraction_is_deterministic_and_fast():
    raws = [raw for _, raw in FIRES]
    views = [parse_message(raw) for raw in raws]
    first = [extract_indicators(view) for view in views]
    start = time.perf_counter()
    again = [extract_indicators(view) for view in views]
    elapsed = (time.perf_counter() - start) / len(views)
    assert first == again
    assert elapsed < 0.005
