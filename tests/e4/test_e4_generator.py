"""E4 synthetic campaign generator: determinism, coverage, valid MIME, planted = present."""

from __future__ import annotations

import email
import ipaddress
import re
import time
from collections import Counter
from email import policy
from email.message import EmailMessage
from email.utils import parseaddr
from random import Random
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from sv_env_phishing_detection.brands import BRAND_DOMAINS, LEGITIMATE_DOMAINS
from sv_env_phishing_detection.campaigns import (
    BRAND_NAMES,
    DATA_SCENARIOS,
    LOCALES,
    PLACEHOLDERS,
    TEMPLATES,
    templates_for,
)
from sv_env_phishing_detection.generator import (
    GENERATOR_VERSION,
    LANGUAGES,
    LEGITIMATE_SCENARIOS,
    PHISHING_SCENARIOS,
    RISKY_EXTENSIONS,
    generate_corpus,
)
from sv_env_phishing_detection.indicators import extract_indicators
from sv_env_phishing_detection.message import parse_message
from sv_env_phishing_detection.obfuscation import (
    CYRILLIC_HOMOGLYPHS,
    DIGIT_SWAPS,
    ESP_DOMAINS,
    FREE_MAIL,
    LURE_WORDS,
    RISKY_TLDS,
    SHORTENERS,
    ZERO_WIDTH,
    can_homoglyph,
    digit_swap_domain,
    embedded_brand_host,
    homoglyph_domain,
    insert_zero_width,
    ip_host,
    registered_domain,
    split_domain,
    subdomain_chain,
    to_ascii,
    typo_domain,
    userinfo_url,
)
from sv_env_phishing_detection.records import LEGITIMATE, PHISHING, EmailRecord
from sv_env_phishing_detection.urls import brand_lookalike

CATALOGUE_IDS = frozenset(
    {
        "link_text_mismatch", "ip_url", "brand_lookalike", "punycode_domain", "url_shortener",
        "risky_tld", "at_sign_url", "excessive_subdomains", "reply_to_mismatch",
        "return_path_mismatch", "display_name_spoof", "spf_fail", "dkim_fail", "dmarc_fail",
        "credential_request", "urgency_language", "payment_request", "risky_attachment",
        "zero_width_chars", "html_form", "off_channel_contact", "money_offer", "secrecy_request",
        "personal_info_request", "crypto_extortion",
    }
)  # fmt: skip
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
URL = re.compile(r"https?://[^\s\"'<>]+")
LOOKALIKE_TECHNIQUES = {
    "digit_swap",
    "typo",
    "brand_embedded",
    "homoglyph_domain",
    "punycode_domain",
}
FOLD = {v: k for k, v in CYRILLIC_HOMOGLYPHS.items()} | {v: k for k, v in DIGIT_SWAPS.items()}


class Parsed:
    """A record plus what a reader of its raw message sees."""

    def __init__(self, record: EmailRecord) -> None:
        self.record = record
        self.msg: EmailMessage = email.message_from_string(record.raw, policy=policy.default)
        self.planted = set(record.meta["planted"])
        self.parts = list(self.msg.walk())
        texts = [p for p in self.parts if p.get_content_type() in ("text/plain", "text/html")]
        bodies = [p for p in texts if p.get_content_disposition() != "attachment"]
        self.plain = "".join(p.get_content() for p in bodies if p.get_content_subtype() == "plain")
        self.html = "".join(p.get_content() for p in bodies if p.get_content_subtype() == "html")
        self.urls = URL.findall(self.plain) + [
            a["href"] for a in BeautifulSoup(self.html, "html.parser").find_all("a", href=True)
        ]
        self.hosts = [urlsplit(u).hostname or "" for u in self.urls]
        self.attachments = [p.get_filename() or "" for p in self.msg.iter_attachments()]

    def address(self, header: str) -> str:
        return parseaddr(str(self.msg[header] or ""))[1].lower()

    def domain(self, header: str) -> str:
        return registered_domain(self.address(header).rpartition("@")[2])


def _levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


@pytest.fixture(scope="module")
def corpus() -> list[EmailRecord]:
    return generate_corpus()


@pytest.fixture(scope="module")
def parsed(corpus: list[EmailRecord]) -> list[Parsed]:
    return [Parsed(r) for r in corpus]


# ---------------------------------------------------------------------------- corpus shape
def test_default_corpus_is_fast() -> None:
    start = time.process_time()  # CPU time: robust to other processes on a busy runner
    records = generate_corpus()
    # v1 allowed 3.0 s for 840 emails; v2 reads content indicators back from each message
    assert time.process_time() - start < 4.5 * len(records) / 840


def test_determinism_and_seed_sensitivity() -> None:
    first, again = generate_corpus(60, seed=5), generate_corpus(60, seed=5)
    assert [r.to_dict() for r in first] == [r.to_dict() for r in again]
    other = generate_corpus(60, seed=6)
    assert [r.raw for r in first] != [r.raw for r in other]


def test_ids_are_unique_and_stable_across_sizes(corpus: list[EmailRecord]) -> None:
    by_id = {r.id: r for r in corpus}
    assert len(by_id) == len(corpus)
    for record in generate_corpus(140):
        assert by_id[record.id].raw == record.raw


def test_labels_balanced_and_every_scenario_language_covered(
    corpus: list[EmailRecord],
) -> None:
    labels = Counter(r.label for r in corpus)
    assert 0.45 <= labels[PHISHING] / len(corpus) <= 0.55
    assert set(labels) == {PHISHING, LEGITIMATE}
    pairs = {(r.scenario, r.language) for r in corpus}
    scenarios = PHISHING_SCENARIOS + LEGITIMATE_SCENARIOS
    # classic scenarios: every language; data-file scenarios: the languages they have text in
    expected = {(t.scenario, t.language) for t in TEMPLATES}
    assert pairs == expected and {s for s, _ in pairs} == set(scenarios)
    classic = [s for s in scenarios if s not in DATA_SCENARIOS]
    assert {(s, lang) for s in classic for lang in LANGUAGES} <= pairs
    assert {r.source for r in corpus} == {"synthetic"}
    assert all(r.label == PHISHING for r in corpus if r.scenario in PHISHING_SCENARIOS)
    assert all(r.label == LEGITIMATE for r in corpus if r.scenario in LEGITIMATE_SCENARIOS)


def test_small_and_invalid_sizes() -> None:
    assert generate_corpus(0) == []
    odd = generate_corpus(71, seed=1)
    assert len(odd) == 71
    assert {r.scenario for r in odd} >= set(PHISHING_SCENARIOS)
    with pytest.raises(ValueError, match="non-negative integer"):
        generate_corpus(-1)


def test_groups_are_templates_and_meta_is_complete(corpus: list[EmailRecord]) -> None:
    for record in corpus:
        meta = record.meta
        scenario, language, variant = meta["template"].split("/")
        assert record.group == f"synth:{scenario}:{language}:{variant}"
        assert (scenario, language) == (record.scenario, record.language)
        assert record.id.startswith(f"synth-{scenario}-{language}-")
        assert meta["generator_version"] == GENERATOR_VERSION and meta["seed"] == 42
        assert meta["planted"] == sorted(set(meta["planted"]))
        assert set(meta["planted"]) <= CATALOGUE_IDS
        assert isinstance(meta["techniques"], list)
    assert len({r.group for r in corpus}) == len(TEMPLATES)


# ---------------------------------------------------------------------------- MIME
def test_every_message_reparses_with_the_required_headers(parsed: list[Parsed]) -> None:
    for p in parsed:
        msg = p.msg
        for name in ("From", "To", "Subject", "Date", "Message-ID", "Return-Path"):
            assert msg[name], (p.record.id, name)
        assert msg["From"].addresses[0].display_name, p.record.id
        auth = str(msg["Authentication-Results"])
        assert all(f"{check}=" in auth for check in ("spf", "dkim", "dmarc")), p.record.id
        assert all(not part.defects for part in p.parts), p.record.id
        assert p.plain or p.html, p.record.id
        assert "{" not in msg["Subject"] and "{" not in p.plain, p.record.id
    reply_to = sum(bool(p.msg["Reply-To"]) for p in parsed)
    assert reply_to / len(parsed) > 0.1  # "often Reply-To"


def test_calendar_invites_carry_an_ics_part(parsed: list[Parsed]) -> None:
    invites = [p for p in parsed if p.record.scenario == "calendar_invite"]
    assert invites
    for p in invites:
        ics = [part for part in p.parts if part.get_content_type() == "text/calendar"]
        assert len(ics) == 1, p.record.id
        assert ics[0].get_filename() == "invite.ics"
        assert ics[0].get_param("method") == "REQUEST"
        text = ics[0].get_content()
        assert text.startswith("BEGIN:VCALENDAR") and "BEGIN:VEVENT" in text
        assert "DTSTART:" in text and "ORGANIZER" in text


# ---------------------------------------------------------------------------- planted
def _lookalike_hosts(p: Parsed) -> list[str]:
    hosts = [p.address("From").rpartition("@")[2], *p.hosts]
    return [h for h in hosts if h and registered_domain(to_ascii(h)) not in LEGITIMATE_DOMAINS]


def _imitates(host: str, brand: str) -> bool:
    decoded = host.encode("ascii").decode("idna") if host.isascii() else host
    folded = "".join(FOLD.get(ch, ch) for ch in decoded.lower())
    if brand in folded:
        return True
    labels = [split_domain(d)[0] for d in BRAND_DOMAINS[brand]]
    return any(_levenshtein(split_domain(folded)[0], label) <= 2 for label in labels)


def test_planted_indicators_are_really_in_the_message(parsed: list[Parsed]) -> None:
    for p in parsed:
        rid, planted, text = p.record.id, p.planted, f"{p.msg['Subject']}\n{p.plain}\n{p.html}"
        assert ("zero_width_chars" in planted) == bool(INVISIBLE.search(text)), rid
        risky = [
            a
            for a in p.attachments
            if a.count(".") > 1 or f".{a.rpartition('.')[2]}" in RISKY_EXTENSIONS
        ]
        assert ("risky_attachment" in planted) == bool(risky), rid
        if "reply_to_mismatch" in planted:
            assert p.msg["Reply-To"] and p.domain("Reply-To") != p.domain("From"), rid
        if "return_path_mismatch" in planted:
            assert p.domain("Return-Path") != p.domain("From"), rid
        auth = str(p.msg["Authentication-Results"])
        assert ("spf_fail" in planted) == bool(re.search(r"spf=(soft)?fail", auth)), rid
        assert ("dkim_fail" in planted) == ("dkim=fail" in auth), rid
        assert ("dmarc_fail" in planted) == ("dmarc=fail" in auth), rid
        assert ("html_form" in planted) == ("<form" in p.html), rid
        if "ip_url" in planted:
            assert any(re.fullmatch(r"[\d.]+|0x[0-9a-f]+|[0-9a-f:]+", h) for h in p.hosts), rid
        if "at_sign_url" in planted:
            assert any("@" in urlsplit(u).netloc for u in p.urls), rid
        if "url_shortener" in planted:
            assert any(h in SHORTENERS for h in p.hosts), rid
        if "excessive_subdomains" in planted:
            assert any(h.count(".") - registered_domain(h).count(".") >= 4 for h in p.hosts), rid
        if "punycode_domain" in planted:
            assert "xn--" in p.record.raw or not "".join(p.hosts).isascii(), rid
        if "risky_tld" in planted:
            domains = [p.address("From").rpartition("@")[2], *p.hosts]
            assert any(d.rpartition(".")[2] in RISKY_TLDS for d in domains), rid
        if "display_name_spoof" in planted:
            name = p.msg["From"].addresses[0].display_name.lower()
            brands = {BRAND_NAMES[b].lower() for b in BRAND_NAMES}
            assert "@" in name or any(b in name for b in brands), rid
        if "brand_lookalike" in planted:
            assert LOOKALIKE_TECHNIQUES & set(p.record.meta["techniques"]), rid
            brand = p.record.meta["brand"]
            assert any(_imitates(h, brand) for h in _lookalike_hosts(p)), rid


def test_planted_is_exactly_what_the_extractor_finds(corpus: list[EmailRecord]) -> None:
    """Every planted indicator fires on the raw message, and nothing else does."""
    for record in corpus:
        fired = set(extract_indicators(parse_message(record.raw)))
        assert fired == set(record.meta["planted"]), (
            record.id,
            fired ^ set(record.meta["planted"]),
        )


# seeds on which v1 once planted indicators the message did not show (typo look-alikes read as
# another word, outlook.com vs microsoft.com, IPv6 hosts in plain text): the whole corpus of
# each must agree with the extractor
OTHER_SEEDS = [4, 5, 8]


@pytest.mark.parametrize("seed", OTHER_SEEDS)
def test_planted_is_truthful_on_other_seeds(seed: int) -> None:
    for record in generate_corpus(300, seed):
        fired = set(extract_indicators(parse_message(record.raw)))
        assert fired == set(record.meta["planted"]), (
            record.id,
            fired ^ set(record.meta["planted"]),
        )


def test_link_text_mismatch_shows_another_domain(parsed: list[Parsed]) -> None:
    shown = re.compile(r"^(?:https?://)?([a-z0-9.-]+\.[a-z]{2,})(?:/.*)?$")
    for p in parsed:
        mismatched = False
        for anchor in BeautifulSoup(p.html, "html.parser").find_all("a", href=True):
            match = shown.match(anchor.get_text(strip=True).lower())
            target = urlsplit(anchor["href"]).hostname or ""
            if match and registered_domain(match.group(1)) != registered_domain(target):
                mismatched = True
        assert mismatched == ("link_text_mismatch" in p.planted), p.record.id


def test_content_indicators_come_from_the_template(corpus: list[EmailRecord]) -> None:
    """Classic templates declare their content indicators; data-file templates draw their
    wording per email, so theirs are read back (and checked against the extractor above)."""
    content = {"credential_request", "urgency_language", "payment_request"}
    by_key = {t.key: set(t.content) for t in TEMPLATES if t.spec is None}
    for record in corpus:
        if record.meta["template"] in by_key:
            assert set(record.meta["planted"]) & content == by_key[record.meta["template"]]


# ---------------------------------------------------------------------------- no shortcuts
def test_no_single_surface_feature_gives_the_label_away(parsed: list[Parsed]) -> None:
    features = {
        "html_only": lambda p: not p.plain,
        "plain_only": lambda p: not p.html,
        "has_link": lambda p: bool(p.urls),
        "attachment": lambda p: bool(p.attachments),
        "reply_to": lambda p: bool(p.msg["Reply-To"]),
        "auth_all_pass": lambda p: str(p.msg["Authentication-Results"]).count("=pass") == 3,
        "free_mail_sender": lambda p: p.domain("From") in FREE_MAIL,
        "return_path_differs": lambda p: p.domain("Return-Path") != p.domain("From"),
        "any_indicator": lambda p: bool(p.planted),
    }
    is_phishing = [p.record.label == PHISHING for p in parsed]
    for name, feature in features.items():
        hits = sum(feature(p) == y for p, y in zip(parsed, is_phishing, strict=True))
        accuracy = max(hits, len(parsed) - hits) / len(parsed)
        assert accuracy < 0.75, (name, accuracy)


def test_hard_cases_exist_on_both_sides(parsed: list[Parsed]) -> None:
    legit = [p for p in parsed if p.record.label == LEGITIMATE]
    phish = [p for p in parsed if p.record.label == PHISHING]
    assert sum(not p.plain for p in legit) >= 20  # HTML-only legitimate mail
    assert sum("urgency_language" in p.planted for p in legit) >= 20
    assert sum("spf_fail" in p.planted or "dkim=none" in p.record.raw for p in legit) >= 20
    memos = [p for p in legit if p.record.scenario == "internal_memo"]
    assert any(p.domain("From") in FREE_MAIL for p in memos)
    quiet = [
        p
        for p in phish
        if p.record.scenario in ("ceo_fraud_bec", "gift_card")
        and not p.urls
        and not p.html
        and str(p.msg["Authentication-Results"]).count("=pass") == 3
    ]
    assert len(quiet) >= 20  # passing auth, plain text, no links


# ---------------------------------------------------------------------------- building blocks
def test_templates_cover_every_scenario_language_and_fill_cleanly() -> None:
    counts = Counter((t.scenario, t.language) for t in TEMPLATES if t.spec is None)
    assert set(counts.values()) == {3}
    classic = [s for s in PHISHING_SCENARIOS + LEGITIMATE_SCENARIOS if s not in DATA_SCENARIOS]
    assert len(counts) == len(classic) * len(LANGUAGES)
    fields = {name: f"<{name}>" for name in PLACEHOLDERS}
    for template in TEMPLATES:
        used = set(re.findall(r"{(\w+)}", template.subject + template.body))
        assert used <= PLACEHOLDERS, template.key
        template.body.format_map(fields)
        template.subject.format_map(fields)
        assert set(template.content) <= CATALOGUE_IDS
    order = templates_for(PHISHING_SCENARIOS)
    first = order[: sum(t.variant == 0 for t in order)]  # variant-major: every pair once first
    assert len({(t.scenario, t.language) for t in first}) == len(first)
    assert {(t.scenario, t.language) for t in first} == {(t.scenario, t.language) for t in order}


def test_every_lookalike_builder_is_recognised_by_the_indicator() -> None:
    rng = Random(11)
    for brand, domains in BRAND_DOMAINS.items():
        main = domains[0]
        for _ in range(40):
            built = [typo_domain(main, rng), digit_swap_domain(main, rng)]
            built.append(embedded_brand_host(brand, main, rng, rng.choice(("com", "top"))))
            if can_homoglyph(main):
                built.append(homoglyph_domain(main, rng))
            for domain in built:
                assert brand_lookalike(domain), (brand, domain)
    # short names only get a doubled letter (a dropped one, `adoe`, is just another word)
    for _ in range(40):
        assert split_domain(typo_domain("adobe.com", rng))[0] in {
            "aadobe", "addobe", "adoobe", "adobbe", "adobee",
        }  # fmt: skip


def test_pools_do_not_imitate_brands_by_accident() -> None:
    brand_labels = {split_domain(d)[0] for ds in BRAND_DOMAINS.values() for d in ds}
    pools = [d for loc in LOCALES.values() for _, d in loc.companies + loc.shops]
    pools += [d for d in FREE_MAIL + ESP_DOMAINS if d not in LEGITIMATE_DOMAINS]
    for domain in pools:
        label = split_domain(domain)[0]
        assert not any(brand in label for brand in BRAND_DOMAINS), domain
        assert all(_levenshtein(label, b) > 2 for b in brand_labels), domain
    for word in LURE_WORDS:
        assert not any(len(brand) > 3 and brand in word for brand in BRAND_DOMAINS), word


def test_obfuscation_transforms() -> None:
    rng = Random(3)
    fake = homoglyph_domain("paypal.com", rng)
    assert not fake.isascii() and fake.translate(str.maketrans(FOLD)) == "paypal.com"
    assert to_ascii(fake).startswith("xn--") and to_ascii(fake).endswith(".com")
    for _ in range(50):
        swapped = digit_swap_domain("paypal.com", rng)
        assert _levenshtein(split_domain(swapped)[0], "paypal") == 1
        for brand in ("facebook.com", "dhl.com", "zoom.us", "wellsfargo.com"):
            label = split_domain(typo_domain(brand, rng))[0]
            assert 1 <= _levenshtein(label, split_domain(brand)[0]) <= 2
        text = insert_zero_width("Please verify your account password now", rng, 2)
        assert sum(text.count(ch) for ch in ZERO_WIDTH) == 2
        assert "".join(ch for ch in text if ch not in ZERO_WIDTH) == (
            "Please verify your account password now"
        )
        host = ip_host(rng)
        if host.startswith("["):
            ipaddress.IPv6Address(host.strip("[]"))
        elif host.startswith("0x") or host.isdigit():
            assert int(host, 0) < 2**32
        else:
            ipaddress.IPv4Address(host)
        chain = subdomain_chain("evil-login.com", rng)
        assert chain.endswith(".evil-login.com") and chain.count(".") >= 5
    assert urlsplit(userinfo_url("www.paypal.com", "evil.top", "/x")).hostname == "evil.top"
    assert registered_domain("a.b.amazon.co.uk") == "amazon.co.uk"
    assert registered_domain("www.loja.com.br") == "loja.com.br"
