"""Static URL analysis, the reputation file, and the model-facing lookup_url tool."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sv_env_phishing_detection.url_tool import lookup_url, make_lookup_url
from sv_env_phishing_detection.urls import (
    ReputationError,
    analyze_url,
    edit_distance,
    ip_host,
    load_reputation,
    registered_domain,
    skeleton,
)

FLAGGED = [
    ("http://192.168.0.1/login", "ip_url"),
    ("http://3232235521/", "ip_url"),
    ("http://0xC0A80001/x", "ip_url"),
    ("http://0300.0250.0.1/", "ip_url"),
    ("http://[2001:db8::1]:8080/x", "ip_url"),
    ("http://xn--pypal-4ve.com/", "punycode_domain"),
    ("http://pаypal.com/", "punycode_domain"),
    ("http://xn--pypal-4ve.com/", "brand_lookalike"),
    ("http://pаypal.com/", "brand_lookalike"),
    ("http://paypa1.com/login", "brand_lookalike"),
    ("https://arnazon.com/", "brand_lookalike"),
    ("https://gooogle.com/", "brand_lookalike"),
    ("https://micros0ftt.com/", "brand_lookalike"),
    ("https://sl4ck.com/", "brand_lookalike"),
    ("http://uspps.net/track", "brand_lookalike"),
    ("http://paypal-secure-login.com/", "brand_lookalike"),
    ("http://paypal.com.account-check.net/x", "brand_lookalike"),
    ("http://appleid-verify.com/", "brand_lookalike"),
    ("https://secure.paypal.verify-account.com/", "brand_lookalike"),
    ("http://paypal.net/", "brand_lookalike"),
    ("https://bit.ly/abc", "url_shortener"),
    ("tinyurl.com/xyz", "url_shortener"),
    ("http://invoice.zip/x", "risky_tld"),
    ("https://login.example.xyz/", "risky_tld"),
    ("http://paypal.com@evil.example/", "at_sign_url"),
    ("https://user:pw@host.example/", "at_sign_url"),
    ("http://a.b.c.d.evil.com/", "excessive_subdomains"),
]

CLEAN = [
    "https://www.paypal.com/signin",
    "https://accounts.google.com/ServiceLogin",
    "https://www.amazon.co.uk/orders",
    "http://amazon.fr/",
    "https://b.c.d.evil.com/",
    "https://github.mycompany.com/repo",
    "https://mail.com/",
    "https://startups.com/",
    "https://www.officedepot.com/",
    "https://evil.com/login?next=http://paypal.com&user=a@b.com",
    "www.example.org/a",
    "https://example.com:8443/x",
]


@pytest.mark.parametrize(("url", "flag"), FLAGGED)
def test_each_flag_fires(url, flag):
    report = analyze_url(url)
    assert flag in report.flags, report.reasons
    assert report.verdict == "suspicious"
    assert len(report.reasons) >= len(report.flags)


@pytest.mark.parametrize("url", CLEAN)
def test_near_misses_raise_no_flag(url):
    assert analyze_url(url).flags == []


def test_brand_domains_are_known_good_but_user_content_is_not():
    assert analyze_url("https://accounts.google.com/x").verdict == "known-good"
    assert analyze_url("https://accounts.google.com/x").brand == "google"
    forms = analyze_url("https://docs.google.com/forms/d/e/abc")
    assert forms.verdict == "neutral" and any("uploads" in r for r in forms.reasons)
    assert analyze_url("https://bucket.s3.amazonaws.com/x").verdict == "neutral"
    hosted = analyze_url("https://paypal-login.s3.amazonaws.com/")
    assert hosted.flags == ["brand_lookalike"] and hosted.brand == "paypal"


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("www.paypal.com", "paypal.com"),
        ("a.b.example.co.uk", "example.co.uk"),
        ("shop.example.com.br", "example.com.br"),
        ("x.twostartraders.com.np", "twostartraders.com.np"),
        ("evil.github.io", "evil.github.io"),
        ("bucket.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
        ("localhost", "localhost"),
        ("10.0.0.1", "10.0.0.1"),
    ],
)
def test_registered_domain(host, expected):
    assert registered_domain(host) == expected


@pytest.mark.parametrize(
    ("host", "ip"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("[::ffff:7f00:1]", "::ffff:7f00:1"),
        ("example.com", None),
        ("256.1.1.1", None),
        ("08.1.1.1", None),
        ("1.2.3.4.5", None),
    ],
)
def test_ip_host_forms(host, ip):
    assert ip_host(host) == ip


def test_skeleton_and_edit_distance():
    assert skeleton("pаypa1") == skeleton("paypal")
    assert skeleton("rnicrosoft") == skeleton("microsoft")
    assert skeleton("vvellsfargo") == skeleton("wellsfargo")
    assert skeleton("g00gle") == skeleton("google")
    assert skeleton("uspps") == skeleton("usps") == "usps"
    assert edit_distance("paypal", "paypla") == 1
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("a", "abcdefgh", limit=2) == 3
    assert edit_distance("abc", "xyz", limit=1) == 2


def test_reputation_file_and_verdicts(tmp_path):
    path = tmp_path / "rep.csv"
    path.write_text(
        "domain_or_url,verdict\n# comment\n\nevil.example,bad\n"
        "https://www.shop.example/promo?a=1,b,good\nhttp://phish.example/login,bad\n"
    )
    reputation = load_reputation(path)
    assert reputation["evil.example"] == "bad"
    assert reputation["www.shop.example/promo?a=1,b"] == "good"
    bad = analyze_url("https://login.evil.example/x", reputation)
    assert bad.verdict == "known-bad" and "known_bad" in bad.flags
    good = analyze_url("https://www.shop.example/promo?a=1,b", reputation)
    assert good.verdict == "known-good" and good.flags == ["known_good"]
    assert analyze_url("http://phish.example/login", reputation).verdict == "known-bad"
    assert analyze_url("http://phish.example/other", reputation).verdict == "neutral"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("evil.example,bad\nno-comma-here\n", "line 2: expected 'domain_or_url,verdict'"),
        ("evil.example,bad\n\nother.example,maybe\n", "line 3: verdict must be 'bad' or 'good'"),
        ("evil.example,bad\n,good\n", "line 2"),
    ],
)
def test_reputation_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "rep.txt"
    path.write_text(content)
    with pytest.raises(ReputationError, match=message) as info:
        load_reputation(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_missing_reputation_file_is_a_clear_error(tmp_path):
    with pytest.raises(ReputationError, match="cannot read"):
        load_reputation(tmp_path / "absent.csv")


def test_lookup_url_returns_compact_json():
    report = json.loads(lookup_url("http://paypa1.com/login"))
    assert report["verdict"] == "suspicious"
    assert report["flags"] == ["brand_lookalike"] and report["brand"] == "paypal"
    assert "never visited" in (lookup_url.__doc__ or "")


@pytest.mark.parametrize("junk", ["", "   ", "::::", "mailto:x@y.example", None, 42, "x" * 5000])
def test_lookup_url_on_junk_returns_error_json(junk):
    assert "error" in json.loads(lookup_url(junk))


def test_make_lookup_url_binds_reputation(tmp_path):
    path = tmp_path / "rep.csv"
    path.write_text("evil.example,bad\n")
    tool = make_lookup_url(str(path))
    assert tool.__name__ == "lookup_url" and tool.__doc__ == lookup_url.__doc__
    assert json.loads(tool("http://evil.example/"))["verdict"] == "known-bad"
    assert make_lookup_url(None) is lookup_url
    with pytest.raises(ReputationError):
        make_lookup_url(str(tmp_path / "absent.csv"))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80) | st.from_regex(r"[a-z]{1,8}://[^\s]{0,40}", fullmatch=True))
def test_lookup_url_always_answers_json(text):
    answer = json.loads(lookup_url(text))
    assert "error" in answer or answer["verdict"] in (
        "suspicious",
        "neutral",
        "known-good",
        "known-bad",
    )
