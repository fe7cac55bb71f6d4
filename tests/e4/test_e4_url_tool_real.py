"""`lookup_url` on brands' own domains, look-alikes, soft URL signals, and the AUC measurement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sv_env_phishing_detection.brands import BRAND_DOMAINS, OFFICIAL_DOMAINS
from sv_env_phishing_detection.url_agreement import main, measure, read_urls, url_score
from sv_env_phishing_detection.url_tool import lookup_url, tool_report
from sv_env_phishing_detection.urls import domain_owner, load_reputation, official_brand

REALDATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "realdata" / "E4_phishing"
URLS = REALDATA / "urls"

OFFICIAL = sorted({d for domains in OFFICIAL_DOMAINS.values() for d in domains})


def _answer(url: str) -> dict:
    return json.loads(lookup_url(url))


def test_every_brand_has_its_brand_domains_among_the_official_ones():
    for brand, domains in BRAND_DOMAINS.items():
        assert set(domains) <= set(OFFICIAL_DOMAINS[brand]) | {"accounts.google.com"}, brand


@pytest.mark.parametrize("domain", OFFICIAL)
def test_official_domains_and_subdomains_are_never_lookalikes(domain):
    for url in (f"https://{domain}/", f"https://www.{domain}/login", f"http://a.b.{domain}/x"):
        answer = _answer(url)
        assert "brand_lookalike" not in answer["flags"], (url, answer["reasons"])
    assert official_brand(f"secure.{domain}") is not None


@pytest.mark.parametrize(
    ("url", "brand"),
    [
        ("https://www.laposte.net/accueil", "laposte"),
        ("https://www.correosdemexico.gob.mx/", "correos"),
        ("https://tools.usps.gov/", "usps"),
        ("https://www.correos.cl/seguimiento", "correos"),
        ("https://www.dhl.com.mx/", "dhl"),
        ("https://www.santander.com.br/", "santander"),
        ("https://signin.ebay.co.uk/ws", "ebay"),
        ("https://outlook.live.com/mail", "microsoft"),
    ],
)
def test_national_and_regional_domains_are_official(url, brand):
    answer = _answer(url)
    assert answer["flags"] == [] and answer["brand"] == brand, answer["reasons"]
    assert answer["risk_score"] < 0.5


def test_mailbox_services_are_official_but_do_not_speak_for_the_brand():
    assert official_brand("laposte.net") == "laposte"
    assert domain_owner("laposte.net") is None
    assert domain_owner("mail.laposte.fr") == "laposte"


def test_government_registries_and_federated_members_are_not_lookalikes():
    for host in ("paypal.gov", "correos.gob.ar", "sparkasse-koelnbonn.de", "ksk-sparkasse.at"):
        assert "brand_lookalike" not in _answer(f"https://{host}/")["flags"], host
    for host in ("sparkasse-login.de", "sparkasse-online.com", "sparkasse.xyz"):
        assert "brand_lookalike" in _answer(f"https://{host}/")["flags"], host


@pytest.mark.parametrize(
    ("url", "brand"),
    [
        ("http://laposte-suivi-colis.com/", "laposte"),
        ("http://correos-envio.info/", "correos"),
        ("https://uspss.com/track", "usps"),
        ("http://dhl.com.parcel-hold.net/", "dhl"),
        ("https://secure-paypal.account-check.xyz/", "paypal"),
        ("https://www.paypal.com.evil.example/", "paypal"),
        ("https://amaz0n.co.uk/orders", "amazon"),
    ],
)
def test_lookalikes_of_official_domains_are_still_flagged(url, brand):
    answer = _answer(url)
    assert "brand_lookalike" in answer["flags"] and answer["brand"] == brand
    assert answer["verdict"] == "suspicious" and answer["risk_score"] >= 0.5


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://shop.example.org/wp-includes/paypal/login.php", "brand_in_path"),
        ("http://shop.example.org/account/verify", "credential_path"),
        ("http://shop.example.org/account/verify", "http_credentials"),
        ("https://shop.example.org/x?email=victim@example.com", "email_in_url"),
        ("https://shop.example.org/go?to=https://other.example/", "embedded_url"),
        ("https://my-secure-bank-login.example.org/", "many_hyphens"),
        ("https://shop73921.org/", "digits_in_host"),
        ("https://a.b.c.example.org/", "deep_subdomains"),
        ("https://login-page.github.io/", "free_hosting"),
        ("https://example.org:8081/", "nonstandard_port"),
        ("https://example.org/" + "a" * 120, "long_url"),
    ],
)
def test_each_soft_signal_fires(url, name):
    report = tool_report(url)
    assert name in report.signals, report.reasons
    assert 0.0 < report.risk_score <= 1.0


@pytest.mark.parametrize(
    "url",
    [
        "https://www.paypal.com/signin?returnUri=https://www.paypal.com/myaccount",
        "https://example.org/blog/2015/05/a-short-post",
        "https://news.example.org/wp-content/uploads/photo.jpg",
    ],
)
def test_ordinary_urls_carry_no_strong_signal(url):
    report = tool_report(url)
    assert report.risk_score < 0.5 and report.verdict != "suspicious", report.reasons


def test_strong_flags_outrank_a_plain_url_and_reputation_is_final(tmp_path):
    plain = tool_report("https://example.org/page").risk_score
    for url in ("http://192.168.1.9/login", "http://paypal.com@evil.example/", "https://bit.ly/x"):
        assert tool_report(url).risk_score > plain, url
    assert tool_report("https://www.paypal.com/").risk_score == 0.0
    rep = tmp_path / "rep.csv"
    rep.write_text("evil.example,bad\n")
    assert tool_report("https://evil.example/", load_reputation(rep)).risk_score == 1.0


def test_url_score_reads_answers_with_and_without_a_risk_score():
    assert url_score(json.dumps({"risk_score": 0.3})) == 0.3
    assert url_score(json.dumps({"verdict": "known-good"})) == 0.0
    assert url_score(json.dumps({"error": "x"})) == 0.5


def test_measurement_on_tiny_files(tmp_path, capsys):
    phish = tmp_path / "phish.csv"
    phish.write_text(
        "phish_id,url,target\n"
        "1,http://paypa1.com/login,PayPal\n"
        '2,"http://10.0.0.7/account/verify?email=a@b.example",Other\n'
        "3,https://secure-dhl.parcel-hold.xyz/track,DHL\n"
    )
    benign = tmp_path / "benign.txt"
    benign.write_text("https://www.paypal.com/\nhttp://example.org/news/2015/story\n\n")
    assert read_urls(benign) == ["https://www.paypal.com/", "http://example.org/news/2015/story"]
    assert read_urls(phish)[1] == "http://10.0.0.7/account/verify?email=a@b.example"
    result = measure(read_urls(phish), read_urls(benign), n_resamples=50)
    assert result.auc == 1.0 and result.ci_low <= result.auc <= result.ci_high
    assert (result.n_phish, result.n_benign) == (3, 2)
    assert main(["--phish", str(phish), "--benign", str(benign), "--resamples", "20"]) == 0
    assert "ROC AUC 1.000" in capsys.readouterr().out
    with pytest.raises(ValueError):
        measure([], ["https://example.org/"])


@pytest.mark.skipif(not URLS.is_dir(), reason="shared realdata samples not present")
def test_realdata_url_auc_is_above_a_loose_floor():
    phish = read_urls(URLS / "phishtank_online-valid_sample250.csv")
    benign = read_urls(URLS / "unb_url2016_benign_sample250.csv")
    assert len(phish) >= 50 and len(benign) >= 50
    result = measure(phish, benign, n_resamples=200)
    assert result.auc > 0.55, result
