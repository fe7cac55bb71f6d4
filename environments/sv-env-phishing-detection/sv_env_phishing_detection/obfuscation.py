"""Deceptive domains, URLs and text tricks that phishing uses, plus the infrastructure pools.

Every function draws only from the `Random` it is given, so the generator stays deterministic.
The look-alike builders all produce domains that the `brand_lookalike` indicator covers: edit
distance <= 2 to a brand label (digit swaps, typos), a homoglyph skeleton equal to the brand
domain (Cyrillic letters, optionally written as punycode), or the brand embedded in another
registered domain. Short brand names (5 letters or fewer) get no edit-distance tolerance
there, so their typos are doubled letters only.
"""

from __future__ import annotations

import re
from random import Random

RISKY_TLDS: tuple[str, ...] = (
    "zip", "mov", "xyz", "top", "tk", "ml", "ga", "cf", "gq", "click", "country", "kim",
    "work", "support", "rest", "cam", "icu",
)  # fmt: skip
"""The documented risky TLDs (the `risky_tld` indicator)."""
SAFE_TLDS: tuple[str, ...] = ("com", "net", "org", "co", "io", "eu")
SHORTENERS: tuple[str, ...] = (
    "bit.ly", "tinyurl.com", "t.co", "goo.gl", "is.gd", "ow.ly", "cutt.ly", "rb.gy", "tiny.cc",
    "shorturl.at",
)  # fmt: skip
FREE_MAIL: tuple[str, ...] = (
    "gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "proton.me", "gmx.de", "web.de",
    "yahoo.es", "orange.fr", "sapo.pt", "terra.com.br", "icloud.com",
)  # fmt: skip
ESP_DOMAINS: tuple[str, ...] = (
    "sendgrid.net", "mcsv.net", "mailgun.org", "sparkpostmail.com", "rsgsv.net", "cmail20.com",
)  # fmt: skip
"""Bulk-mail providers: their bounce domains show up in Return-Path and click tracking."""
MULTI_PART_SUFFIXES = frozenset({"co.uk", "com.br", "com.au", "co.jp"})

LURE_WORDS: tuple[str, ...] = (
    "secure", "account", "verify", "login", "signin", "update", "service", "billing", "notice",
    "center", "portal", "online", "alert", "access", "review", "confirm", "recovery", "client",
    "member", "wallet", "payment", "delivery", "parcel", "tracking", "invoice", "docs",
    "share", "helpdesk", "webmail", "session", "customer", "validate", "unlock", "status",
    "notify", "resolve", "safety", "protect", "document", "files",
)  # fmt: skip
_SUBDOMAIN_WORDS = (
    "secure", "login", "account", "verify", "session", "auth", "update", "webapp", "portal",
    "client", "mobile", "validation", "service", "ssl", "access", "signin",
)  # fmt: skip

CYRILLIC_HOMOGLYPHS: dict[str, str] = {
    "a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445",
    "y": "\u0443", "i": "\u0456", "s": "\u0455",
}  # fmt: skip
"""Latin letter -> Cyrillic letter that renders identically."""
DIGIT_SWAPS: dict[str, str] = {"o": "0", "l": "1", "i": "1", "e": "3", "a": "4", "s": "5"}
ZERO_WIDTH: tuple[str, ...] = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
_DOC_NETS = ("192.0.2", "198.51.100", "203.0.113")
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_WORD = re.compile(r"[^\W\d_]{5,}")


def token(rng: Random, length: int = 8) -> str:
    """A random base-62 token (URL paths, ids)."""
    return "".join(rng.choice(_B62) for _ in range(length))


def registered_domain(host: str) -> str:
    """The registrable part of `host` (last two labels, three for suffixes like co.uk)."""
    labels = host.lower().rstrip(".").split(".")
    size = 3 if ".".join(labels[-2:]) in MULTI_PART_SUFFIXES else 2
    return ".".join(labels[-size:])


def split_domain(domain: str) -> tuple[str, str]:
    """("paypal", "com") for "paypal.com"; ("amazon", "co.uk") for "amazon.co.uk"."""
    label, _, suffix = registered_domain(domain).partition(".")
    return label, suffix


def to_ascii(domain: str) -> str:
    """The punycode (IDNA) form of a possibly non-ASCII domain."""
    return domain.encode("idna").decode("ascii")


def _registrable_suffix(suffix: str) -> str:
    return "com" if suffix == "gov" else suffix


def can_homoglyph(domain: str) -> bool:
    label, suffix = split_domain(domain)
    return suffix != "gov" and any(ch in CYRILLIC_HOMOGLYPHS for ch in label)


def homoglyph_domain(domain: str, rng: Random) -> str:
    """`domain` with one or two letters of its label replaced by Cyrillic look-alikes."""
    label, suffix = split_domain(domain)
    spots = [i for i, ch in enumerate(label) if ch in CYRILLIC_HOMOGLYPHS]
    if not spots or suffix == "gov":
        raise ValueError(f"no homoglyph substitution for {domain!r}")
    chosen = set(rng.sample(spots, 1 if len(spots) == 1 or rng.random() < 0.6 else 2))
    swapped = "".join(CYRILLIC_HOMOGLYPHS[ch] if i in chosen else ch for i, ch in enumerate(label))
    return f"{swapped}.{suffix}"


def digit_swap_domain(domain: str, rng: Random) -> str:
    """`domain` with one letter swapped for a similar digit (paypal.com -> paypa1.com)."""
    label, suffix = split_domain(domain)
    spots = [i for i, ch in enumerate(label) if ch in DIGIT_SWAPS]
    i = rng.choice(spots)
    return f"{label[:i]}{DIGIT_SWAPS[label[i]]}{label[i + 1 :]}.{_registrable_suffix(suffix)}"


TYPO_TOLERANT_LENGTH = 6
"""Brand labels this long or longer are matched within an edit distance (one edit up to
`ONE_TYPO_LENGTH` letters, two beyond); shorter ones (adobe, fedex, slack) only through their
skeleton, which squeezes doubled letters (`addobe` reads `adobe`) but sees a dropped letter
(`adoe`) as another word."""
ONE_TYPO_LENGTH = 8
_DOUBLED = re.compile(r"(.)\1")


def typo_domain(domain: str, rng: Random) -> str:
    """`domain` with one letter doubled or dropped, or (names of 7+ letters) two adjacent
    letters swapped, on a common TLD: one edit for short brand names, at most two otherwise.

    Names shorter than `TYPO_TOLERANT_LENGTH` only get a doubled letter, the one typo the
    `brand_lookalike` indicator still recognises on them; so does a drop or swap on a name of
    up to `ONE_TYPO_LENGTH` letters that would bring two equal letters together (`amazon` ->
    `aazon` squeezes to `azon`, two edits away). The draws are the same either way, so other
    domains do not change."""
    label, suffix = split_domain(domain)
    i = rng.randrange(1, len(label) - 1)
    swaps = [j for j in range(1, len(label) - 1) if label[j] != label[j + 1]]
    kinds = ["double"] + (["drop"] if len(label) > 4 else []) + (["swap"] if len(label) > 6 else [])
    kind = rng.choice(kinds)
    if kind == "double":
        typo = label[: i + 1] + label[i] + label[i + 1 :]
    elif kind == "drop":
        typo = label[:i] + label[i + 1 :]
    else:
        j = rng.choice(swaps)
        typo = label[:j] + label[j + 1] + label[j] + label[j + 2 :]
    squeezed = kind != "double" and len(_DOUBLED.findall(typo)) > len(_DOUBLED.findall(label))
    if len(label) < TYPO_TOLERANT_LENGTH or (squeezed and len(label) <= ONE_TYPO_LENGTH):
        typo = label[: i + 1] + label[i] + label[i + 1 :]
    return f"{typo}.{rng.choice(('com', 'net', _registrable_suffix(suffix)))}"


def embedded_brand_host(brand: str, brand_domain: str, rng: Random, tld: str) -> str:
    """A host that carries the brand inside another registered domain.

    e.g. paypal-secure-login.com, secure-paypal.net or paypal.com.account-check.net.
    """
    first, second = rng.sample(LURE_WORDS, 2)
    pattern = rng.randrange(4)
    if pattern == 0:
        return f"{brand}-{first}.{tld}"
    if pattern == 1:
        return f"{first}-{brand}.{tld}"
    if pattern == 2:
        return f"{brand}-{first}-{second}.{tld}"
    return f"{brand_domain}.{first}-{second}.{tld}"


def attacker_domain(rng: Random, tld: str) -> str:
    """A throw-away registered domain made of lure words (account-verify.com)."""
    words = rng.sample(LURE_WORDS, 3 if rng.random() < 0.25 else 2)
    joiner = "-" if rng.random() < 0.7 else ""
    return f"{joiner.join(words)}.{tld}"


def company_lookalike(domain: str, rng: Random) -> str:
    """A domain imitating a (non-brand) company domain: BEC's favourite sender."""
    label, suffix = split_domain(domain)
    kind = rng.randrange(4)
    if kind == 0:
        i = rng.randrange(1, len(label) - 1)
        label = label[: i + 1] + label[i] + label[i + 1 :]
    elif kind == 1:
        i = rng.randrange(1, len(label) - 2)
        label = label[:i] + label[i + 1] + label[i] + label[i + 2 :]
    elif kind == 2:
        label = f"{label}-{rng.choice(('group', 'corp', 'inc', 'mail', 'hq'))}"
    else:
        suffix = rng.choice([s for s in ("com", "net", "co", "org") if s != suffix])
    return f"{label}.{suffix}"


def subdomain_chain(domain: str, rng: Random) -> str:
    """`domain` under 4-6 extra labels (excessive_subdomains)."""
    labels = rng.sample(_SUBDOMAIN_WORDS, rng.randint(4, 6))
    return ".".join([*labels, domain])


def ip_host(rng: Random) -> str:
    """An IP literal host from documentation ranges: dotted, decimal, hex or IPv6."""
    octets = [int(part) for part in rng.choice(_DOC_NETS).split(".")] + [rng.randint(2, 254)]
    value = int.from_bytes(bytes(octets), "big")
    form = rng.random()
    if form < 0.65:
        return ".".join(map(str, octets))
    if form < 0.8:
        return str(value)
    if form < 0.92:
        return hex(value)
    return f"[2001:db8::{rng.randint(1, 0xFFFF):x}]"


def shortener_url(rng: Random) -> str:
    return f"https://{rng.choice(SHORTENERS)}/{token(rng, rng.randint(6, 8))}"


def userinfo_url(shown: str, host: str, path: str) -> str:
    """A URL whose user-info shows a trusted name: https://www.paypal.com@host/path."""
    return f"https://{shown}@{host}{path}"


def insert_zero_width(text: str, rng: Random, count: int) -> str:
    """Hide zero-width characters inside `count` words (5+ letters) of `text`."""
    words = list(_WORD.finditer(text))
    if not words:
        return text
    chosen = sorted(rng.sample(words, min(count, len(words))), key=lambda m: m.start())
    out, last = [], 0
    for match in chosen:
        cut = match.start() + rng.randint(1, len(match.group()) - 1)
        out += [text[last:cut], rng.choice(ZERO_WIDTH)]
        last = cut
    return "".join([*out, text[last:]])
