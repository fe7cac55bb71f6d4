"""Static URL analysis: host, registered domain, brand look-alikes and risk flags.

Nothing here ever resolves or fetches anything; every verdict comes from the URL's text and
an optional reputation list (`load_reputation`).

Registered domain: the last two labels, or one more when the last labels form a multi-part
public suffix: one in `MULTI_PART_SUFFIXES` (a small built-in subset of the Public Suffix
List: country second-level domains such as `co.uk`, `com.au`, `co.jp`, `com.br`, and a few
free-hosting suffixes such as `github.io` or `web.app` whose subdomains belong to different
owners), or any generic second level (`com`, `co`, `org`, `net`, `gov`, `edu`, `ac`, `gob`,
`or`, `ne`, `go`) under a two-letter country TLD (`com.np`). Hosts under other multi-part
suffixes get a registered domain one label too short; that weakens, never invents, the brand
checks.

Brand ownership: a host is official when it or a parent domain (down to its registrable
domain) is listed in `brands.OFFICIAL_DOMAINS`; official hosts are never look-alikes, and
neither are domains under government/education registries or federated members of a brand
(`brands.FEDERATED_BRANDS`). Look-alike checks run on the other registrable domains only.

Flags use the indicator catalogue ids (`ip_url`, `punycode_domain`, `brand_lookalike`,
`url_shortener`, `risky_tld`, `at_sign_url`, `excessive_subdomains`) plus `known_bad` /
`known_good` from the reputation list.
"""

from __future__ import annotations

import codecs
import html
import ipaddress
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import idna
from pydantic import BaseModel

from .brands import BRAND_DOMAINS, FEDERATED_BRANDS, MAILBOX_DOMAINS, OFFICIAL_DOMAINS

Verdict = Literal["suspicious", "neutral", "known-good", "known-bad"]

MULTI_PART_SUFFIXES: frozenset[str] = frozenset(
    {
        # country second-level domains
        *("co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "nhs.uk"),
        *("com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "govt.nz"),
        *("co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr", "go.kr"),
        *("com.br", "net.br", "org.br", "gov.br", "com.mx", "org.mx", "gob.mx", "com.ar"),
        *("gob.ar", "com.co", "com.pe", "com.ve", "com.uy", "com.ec", "gob.cl", "gob.pe"),
        *("com.cn", "net.cn", "org.cn", "gov.cn", "com.hk", "com.tw", "com.sg", "com.my"),
        *("co.in", "net.in", "org.in", "gov.in", "ac.in", "co.id", "or.id", "go.id"),
        *("co.za", "org.za", "gov.za", "com.ng", "com.eg", "com.sa", "com.pk", "com.ph"),
        *("com.vn", "co.th", "ac.th", "com.tr", "gov.tr", "co.il", "org.il", "com.ua"),
        *("com.pl", "com.es", "gob.es", "org.es", "com.pt", "gov.pt", "gouv.fr", "co.at"),
        *("or.at", "com.ru", "com.de"),
        # free hosting: every subdomain has its own owner
        *("github.io", "gitlab.io", "blogspot.com", "herokuapp.com", "appspot.com", "web.app"),
        *("firebaseapp.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev", "r2.dev"),
        *("azurewebsites.net", "cloudfront.net", "000webhostapp.com", "weebly.com", "glitch.me"),
        *("wixsite.com", "repl.co", "ngrok.io", "ngrok-free.app", "s3.amazonaws.com"),
        *("duckdns.org", "ddns.net", "trycloudflare.com", "godaddysites.com", "onmicrosoft.com"),
    }
)
"""Public suffixes of more than one label known to `registered_domain` (see module doc)."""

COUNTRY_SECOND_LEVELS = frozenset(
    {"com", "co", "org", "net", "gov", "edu", "ac", "gob", "or", "ne", "go"}
)
"""Second-level labels that are public suffixes under any two-letter country TLD."""

USER_CONTENT_HOSTS: frozenset[str] = frozenset(
    {
        *("sites.google.com", "docs.google.com", "drive.google.com", "forms.gle"),
        *("storage.googleapis.com", "firebasestorage.googleapis.com", "script.google.com"),
        *("blob.core.windows.net", "web.core.windows.net", "onedrive.live.com", "1drv.ms"),
        *("forms.office.com", "sway.office.com", "dl.dropboxusercontent.com", "gist.github.com"),
        *("raw.githubusercontent.com", "s3.amazonaws.com", "feedproxy.google.com"),
        *("sharepoint.com", "dropboxusercontent.com", "googleusercontent.com", "blogger.com"),
    }
)
"""Brand hosts that serve anyone's uploads: the brand vouches for the host, not the content."""

URL_SHORTENERS: frozenset[str] = frozenset(
    {
        *("bit.ly", "bitly.com", "tinyurl.com", "t.co", "goo.gl", "is.gd", "ow.ly", "cutt.ly"),
        *("rb.gy", "tiny.cc", "shorturl.at", "buff.ly", "rebrand.ly", "t.ly", "s.id", "v.gd"),
        *("bl.ink", "lnkd.in", "shorte.st", "adf.ly", "tr.im", "x.co", "bit.do", "soo.gd"),
        *("clck.ru", "u.to", "surl.li", "qrco.de", "shrtco.de", "t2m.io", "short.gy", "tiny.one"),
        *("urlz.fr", "chilp.it", "s.yam.com", "ln.run", "y2u.be", "1url.com", "snip.ly"),
    }
)
"""Link shorteners: the real destination is hidden behind a redirect."""

RISKY_TLDS: frozenset[str] = frozenset(
    {
        *("zip", "mov", "xyz", "top", "tk", "ml", "ga", "cf", "gq", "click", "country", "kim"),
        *("work", "support", "rest", "cam", "icu", "buzz", "fit", "gdn", "loan", "men"),
        *("review", "stream", "download", "racing", "win", "bid", "date", "party", "science"),
        *("trade", "accountant", "cricket", "faith", "quest", "sbs", "cfd", "monster", "cyou"),
    }
)
"""TLDs with a high share of abuse in public phishing/spam reports (cheap or free domains)."""

BRAND_INFRASTRUCTURE: dict[str, tuple[str, ...]] = {
    "amazon": ("amazonaws.com", "amazonses.com", "media-amazon.com", "ssl-images-amazon.com"),
    "google": ("googleapis.com", "googleusercontent.com", "gstatic.com", "googlemail.com"),
    "microsoft": ("office365.com", "microsoft365.com", "azure.com", "windows.net", "msn.com"),
    "github": ("githubusercontent.com",),
    "paypal": ("paypalobjects.com", "paypal-communication.com"),
    "facebook": ("fb.com", "fbcdn.net", "facebookmail.com"),
    "apple": ("me.com", "mzstatic.com"),
    "linkedin": ("licdn.com",),
    "ebay": ("ebayimg.com", "ebaystatic.com"),
    "netflix": ("nflxext.com", "nflximg.net"),
    "santander": ("bancosantander.es",),
}
"""Other domains the brands really use (CDNs, mail infrastructure), never look-alikes."""

AFFIXES: frozenset[str] = frozenset(
    {
        *("id", "login", "signin", "secure", "security", "support", "account", "accounts"),
        *("verify", "verification", "update", "service", "services", "help", "online", "billing"),
        *("auth", "pay", "mail", "team", "customer", "center", "my", "bank", "delivery"),
        *("tracking", "track", "parcel", "express", "package", "gov", "tax", "refund", "web"),
    }
)
"""Words glued to a brand name in phishing domains (`appleid`, `dhlexpress`, `mypaypal`)."""

SELF_HOSTED_BRANDS = frozenset({"github", "zoom", "slack"})
"""Brands whose name is an ordinary subdomain of company hosts (github.example.com)."""

SKELETON_MAP = str.maketrans(
    {
        **dict.fromkeys("аɑα4@", "a"),
        **dict.fromkeys("еёєεе3", "e"),
        **dict.fromkeys("оοσο0", "o"),
        **dict.fromkeys("іıιїi1|ӏⅼℓ", "l"),
        **dict.fromkeys("рρ", "p"),
        **dict.fromkeys("сϲ", "c"),
        **dict.fromkeys("уүγ", "y"),
        **dict.fromkeys("хχ", "x"),
        **dict.fromkeys("ѕ5", "s"),
        **dict.fromkeys("ԁ", "d"),
        **dict.fromkeys("ј", "j"),
        **dict.fromkeys("һ", "h"),
        **dict.fromkeys("ԛ", "q"),
        **dict.fromkeys("ԝѡ", "w"),
        **dict.fromkeys("νѵ", "v"),
        **dict.fromkeys("κк", "k"),
        **dict.fromkeys("τт7", "t"),
        **dict.fromkeys("υ", "u"),
        **dict.fromkeys("ɡ", "g"),
        **dict.fromkeys("ո", "n"),
        **dict.fromkeys("м", "m"),
    }
)
"""Confusable characters -> the Latin letter they imitate (`i` and `1` both read as `l`)."""
REPEATS = re.compile(r"(.)\1+")

NUMERIC_HOST_PART = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$", re.IGNORECASE)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


class ReputationError(ValueError):
    """A malformed reputation file; the message names the file and line."""


class UrlReport(BaseModel):
    """What `analyze_url` found out about one URL."""

    url: str
    host: str
    registered_domain: str
    flags: list[str]
    brand: str | None = None
    reasons: list[str]
    verdict: Verdict


@dataclass(frozen=True)
class UrlParts:
    """A URL split the way browsers read it (`rest` is the path, query and fragment)."""

    scheme: str
    userinfo: str
    host: str
    port: str = ""
    rest: str = ""


# --------------------------------------------------------------------------------- parsing
def split_url(url: str) -> UrlParts:
    """Scheme, user-info, host, port and the rest of a URL written the way browsers accept."""
    text = html.unescape(url.strip()).replace("\\", "/")
    scheme_match = SCHEME.match(text)
    if scheme_match and text[scheme_match.end() :].startswith("//"):
        scheme, rest = scheme_match.group(0)[:-1].lower(), text[scheme_match.end() + 2 :]
    elif scheme_match and not text[scheme_match.end() :][:1].isdigit():
        scheme, rest = scheme_match.group(0)[:-1].lower(), ""  # mailto:, data:, javascript:
    else:
        scheme, rest = "", text.lstrip("/")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    userinfo, _, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        host = hostport[: hostport.find("]") + 1] if "]" in hostport else hostport
    else:
        host = hostport.split(":", 1)[0]
    port = hostport[len(host) :].removeprefix(":")
    host = re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), host)
    host = host.strip().rstrip(".").lower()
    return UrlParts(scheme, userinfo, host, port, rest[len(authority) :])


def ip_host(host: str) -> str | None:
    """The canonical IP address a host denotes (incl. decimal, hex, octal forms), else None."""
    bare = host.strip("[]")
    if ":" in bare:
        try:
            return ipaddress.IPv6Address(bare.split("%", 1)[0]).compressed
        except ValueError:
            return None
    parts = bare.split(".")
    if not parts or len(parts) > 4 or not all(NUMERIC_HOST_PART.match(p) for p in parts):
        return None
    numbers = []
    for part in parts:
        low = part.lower()
        if low.startswith("0x"):
            numbers.append(int(low[2:] or "0", 16))
        elif len(low) > 1 and low.startswith("0"):
            if any(ch in "89" for ch in low):
                return None
            numbers.append(int(low, 8))
        else:
            numbers.append(int(low))
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(numbers[:-1]))
    return str(ipaddress.IPv4Address(value))


def _decode_label(label: str) -> str:
    if not label.startswith("xn--"):
        return label
    try:
        return idna.decode(label)
    except (idna.IDNAError, UnicodeError):
        pass
    try:
        return codecs.decode(label[4:].encode("ascii"), "punycode")
    except (UnicodeError, ValueError):
        return label


def unicode_host(host: str) -> str:
    """The host with punycode (`xn--`) labels decoded; undecodable labels are kept."""
    return ".".join(_decode_label(label) for label in host.split("."))


def registered_domain(host: str) -> str:
    """The registrable domain of a host (see `MULTI_PART_SUFFIXES`); an IP stays as is."""
    host = host.strip().rstrip(".").lower()
    if ip_host(host):
        return host
    labels = [label for label in host.split(".") if label]
    if len(labels) <= 2:
        return ".".join(labels)
    two_part = ".".join(labels[-2:]) in MULTI_PART_SUFFIXES
    country_sld = len(labels[-1]) == 2 and labels[-2] in COUNTRY_SECOND_LEVELS
    size = 3 if two_part or country_sld else 2
    if size == 2 and ".".join(labels[-3:]) in MULTI_PART_SUFFIXES:
        size = 4
    return ".".join(labels[-size:])


# -------------------------------------------------------------------------------- look-alikes
def skeleton(text: str) -> str:
    """A confusables skeleton: accents dropped, homoglyphs/digits mapped, rn->m, vv->w, and
    doubled letters squeezed (`uspps` and `usps` read alike)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    mapped = plain.translate(SKELETON_MAP).replace("rn", "m").replace("vv", "w")
    return REPEATS.sub(r"\1", mapped)


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Damerau (optimal string alignment) distance, capped at `limit + 1` for speed."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


def _allowed_distance(label: str) -> int:
    """Typos tolerated for a brand label: none for short ones (too many real words nearby)."""
    return 0 if len(label) <= 5 else 1 if len(label) <= 8 else 2


def _suffix(domain: str) -> str:
    return domain.split(".", 1)[1] if "." in domain else ""


def _owned_domains(mailboxes: bool) -> dict[str, str]:
    owned = {}
    for brand in BRAND_DOMAINS:
        official = OFFICIAL_DOMAINS.get(brand, ())
        for domain in (*BRAND_DOMAINS[brand], *official, *BRAND_INFRASTRUCTURE.get(brand, ())):
            if domain in MAILBOX_DOMAINS and not mailboxes:
                continue
            owned[domain.lower()] = brand
            owned.setdefault(registered_domain(domain), brand)
    return owned


def _owner(host: str, table: Mapping[str, str]) -> str | None:
    labels = host.strip().rstrip(".").lower().split(".")
    floor = len(registered_domain(host).split("."))
    for start in range(max(0, len(labels) - floor) + 1):
        owner = table.get(".".join(labels[start:]))
        if owner:
            return owner
    return None


def domain_owner(host: str) -> str | None:
    """The brand speaking for this host: it or a parent down to its registrable domain is an
    official domain (subdomains of official domains are official), mailbox services aside."""
    return _owner(host, OWNED_DOMAINS)


def official_brand(host: str) -> str | None:
    """The brand whose official domain (mailbox services included) this host is under."""
    return _owner(host, OFFICIAL_HOSTS)


RESTRICTED_LEVELS = frozenset({"gov", "gob", "gouv", "govt", "go", "mil", "edu", "ac", "nhs"})
"""Suffix labels open only to governments and schools: nobody registers a look-alike there."""


def _restricted_registry(suffix: str) -> bool:
    """Whether a public suffix (`gov`, `gob.mx`, `ac.uk`) only admits vetted registrants."""
    labels = suffix.split(".")
    return labels[-1] in {"gov", "mil", "edu", "int"} or (
        len(labels) >= 2 and len(labels[-1]) == 2 and labels[-2] in RESTRICTED_LEVELS
    )


def _federated_member(label: str, suffix: str) -> bool:
    """`<brand>-<region>` under the brand's national TLD (sparkasse-koelnbonn.de)."""
    for brand, tlds in FEDERATED_BRANDS.items():
        if suffix not in tlds or brand not in label:
            continue
        rest = [token for token in re.split(r"[-_]", label.replace(brand, "-")) if token]
        if rest and not any(token in AFFIXES for token in rest):
            return True
    return False


def _brand_label_pairs() -> list[tuple[str, str, str]]:
    """(brand, brand domain label, its skeleton) for every brand domain."""
    pairs = []
    for brand, domains in BRAND_DOMAINS.items():
        for domain in domains:
            label = registered_domain(domain).split(".")[0]
            pairs.append((brand, label, skeleton(label)))
    return pairs


BRAND_LABELS = _brand_label_pairs()
OWNED_DOMAINS = _owned_domains(mailboxes=False)
"""official domain -> brand (`BRAND_DOMAINS`, `OFFICIAL_DOMAINS`, `BRAND_INFRASTRUCTURE`),
without the public mailbox services (`MAILBOX_DOMAINS`)."""
OFFICIAL_HOSTS = _owned_domains(mailboxes=True)
"""official domain -> brand, mailbox services included: never brand look-alikes."""


BRAND_SKELETONS = {brand: skeleton(brand) for brand in BRAND_DOMAINS}


def _embedded_brand(token: str) -> str | None:
    """The brand named by one hyphen-separated token: exactly, glued to an affix
    (`appleid`, `mypaypal`), contained (names of 6+ letters), or as a homoglyph skeleton."""
    token_skeleton = skeleton(token)
    for brand, brand_skeleton in BRAND_SKELETONS.items():
        if brand in (token, token_skeleton) or token_skeleton == brand_skeleton:
            return brand
        if token.startswith(brand) and token[len(brand) :] in AFFIXES:
            return brand
        if token.endswith(brand) and token[: -len(brand)] in AFFIXES:
            return brand
        if len(brand) >= 6 and (brand in token or brand_skeleton in token_skeleton):
            return brand
    return None


def _country_variant(label: str, suffix: str) -> bool:
    """A brand's own label under a (non-risky) country TLD: amazon.fr, dhl.co.uk."""
    tld = suffix.rsplit(".", 1)[-1]
    known_label = any(label == brand_label for _, brand_label, _ in BRAND_LABELS)
    return known_label and len(tld) == 2 and tld not in RISKY_TLDS


def _label_lookalike(label: str, suffix: str) -> tuple[str, str] | None:
    """(brand, reason) when a registered-domain label imitates a brand domain label."""
    label_skeleton = skeleton(label)
    for brand, brand_label, brand_skeleton in BRAND_LABELS:
        if label == brand_label:
            own_country = (
                len(suffix.split(".")[-1]) == 2 and suffix.split(".")[-1] not in RISKY_TLDS
            )
            if own_country:
                continue  # brands own their name under country TLDs (amazon.fr, dhl.co.uk)
            return brand, f"brand name '{label}' on a domain {brand} does not use (.{suffix})"
        if label_skeleton == brand_skeleton:
            return brand, f"'{label}' is a homoglyph/digit-swap look-alike of '{brand_label}'"
        allowed = _allowed_distance(brand_label)
        if not allowed or abs(len(label_skeleton) - len(brand_skeleton)) > allowed:
            continue
        if len(set(label_skeleton) ^ set(brand_skeleton)) > 2 * allowed:
            continue  # each edit changes the set of letters used by at most two
        distance = edit_distance(label_skeleton, brand_skeleton, allowed)
        if distance <= allowed:
            return brand, f"'{label}' is {distance} edit(s) away from '{brand_label}'"
    return None


@lru_cache(maxsize=4096)
def brand_lookalike(host: str) -> tuple[str, str] | None:
    """(imitated brand, reason) when a host or mail domain imitates a brand, else None."""
    decoded = unicode_host(host.lower().rstrip("."))
    if not decoded or ip_host(decoded) or official_brand(decoded):
        return None
    domain = registered_domain(decoded)
    label, suffix = domain.split(".")[0], _suffix(domain)
    if _country_variant(label, suffix) or _restricted_registry(suffix):
        return None
    if _federated_member(label, suffix):
        return None
    found = _label_lookalike(label, suffix)
    if found:
        return found
    for token in re.split(r"[-_]", label):
        brand = _embedded_brand(token)
        if brand:
            return brand, f"brand '{brand}' embedded in the registered domain {domain}"
    sub_labels = decoded[: -len(domain)].rstrip(".").split(".") if decoded != domain else []
    return _subdomain_lookalike(sub_labels, domain)


def _subdomain_lookalike(labels: list[str], domain: str) -> tuple[str, str] | None:
    joined = ".".join(labels)
    for brand, domains in BRAND_DOMAINS.items():
        for brand_domain in domains:
            if f".{brand_domain}." in f".{joined}.":
                return brand, f"'{brand_domain}' used as a subdomain of {domain}"
    for label in labels:
        for token in re.split(r"[-_]", label):
            brand = _embedded_brand(token)
            if brand and not (token == brand and brand in SELF_HOSTED_BRANDS):
                return brand, f"brand '{brand}' in the subdomain '{label}' of {domain}"
    return None


# ------------------------------------------------------------------------------- reputation
VERDICT_WORDS = {
    "bad": "bad",
    "malicious": "bad",
    "phishing": "bad",
    "good": "good",
    "benign": "good",
    "legitimate": "good",
}


def reputation_key(entry: str) -> str:
    """How a reputation entry is stored: a bare host/domain, or a URL without its scheme."""
    text = html.unescape(entry.strip()).strip("\"'").lower()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text).rstrip("/")
    return text.removeprefix("www.") if "/" not in text else text


def load_reputation(path: str | Path) -> dict[str, str]:
    """Read `domain_or_url,verdict` lines (verdict bad|good; `#` comments, blank lines and a
    header line are skipped) into {reputation_key: "bad"|"good"}.

    Raises `ReputationError` naming the file and line for malformed rows or an unreadable file.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReputationError(f"{path}: cannot read reputation file ({exc})") from None
    table: dict[str, str] = {}
    data_lines = 0
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        data_lines += 1
        entry, comma, verdict = (part.strip().strip("\"'") for part in stripped.rpartition(","))
        word = verdict.lower()
        if data_lines == 1 and word not in VERDICT_WORDS and "." not in entry:
            continue  # a header such as "domain,verdict"
        if not comma or not entry:
            raise ReputationError(
                f"{path}: line {number}: expected 'domain_or_url,verdict', got {stripped!r}"
            )
        if word not in VERDICT_WORDS:
            raise ReputationError(
                f"{path}: line {number}: verdict must be 'bad' or 'good', got {verdict!r}"
            )
        table[reputation_key(entry)] = VERDICT_WORDS[word]
    return table


def _reputation_of(url: str, host: str, reputation: Mapping[str, str]) -> tuple[str, str] | None:
    """(verdict, matched entry) for the URL, its host or any parent domain of the host."""
    key = reputation_key(url)
    candidates = [key, key.split("?", 1)[0]] if "/" in key else []
    labels = host.removeprefix("www.").split(".")
    candidates += [".".join(labels[i:]) for i in range(len(labels) - 1)] or [host]
    for candidate in candidates:
        verdict = reputation.get(candidate)
        if verdict in ("bad", "good"):
            return verdict, candidate
    return None


# --------------------------------------------------------------------------------- analysis
def domain_flags(host: str) -> tuple[list[str], list[str], str | None]:
    """(flags, reasons, brand) of a host or mail domain: the checks that need no URL."""
    flags: list[str] = []
    reasons: list[str] = []
    host = host.lower().rstrip(".")
    decoded = unicode_host(host)
    if any(label.startswith("xn--") for label in host.split(".")) or not host.isascii():
        flags.append("punycode_domain")
        reasons.append(f"internationalised domain {host} (reads as {decoded})")
    if not ip_host(host) and host.rsplit(".", 1)[-1] in RISKY_TLDS:
        flags.append("risky_tld")
        reasons.append(f"risky top-level domain .{host.rsplit('.', 1)[-1]}")
    brand = domain_owner(decoded)
    lookalike = brand_lookalike(host)
    if lookalike:
        brand = lookalike[0]
        flags.append("brand_lookalike")
        reasons.append(lookalike[1])
    return flags, reasons, brand


def analyze_url(url: str, reputation: Mapping[str, str] | None = None) -> UrlReport:
    """Analyse one URL from its text alone (never fetched). Bare hosts like `www.x.com/a` work."""
    parts = split_url(url)
    host = parts.host
    domain = registered_domain(host) if host else ""
    flags: list[str] = []
    reasons: list[str] = []
    ip = ip_host(host) if host else None
    if ip:
        flags.append("ip_url")
        reasons.append(f"host is an IP address ({ip})")
    if parts.userinfo:
        flags.append("at_sign_url")
        reasons.append(f"'{parts.userinfo}@' before the real host {host} hides the destination")
    brand = None
    if host and not ip:
        host_flags, host_reasons, brand = domain_flags(host)
        brand = brand or official_brand(unicode_host(host))
        flags += host_flags
        reasons += host_reasons
        if host in URL_SHORTENERS or domain in URL_SHORTENERS:
            flags.append("url_shortener")
            reasons.append(f"{domain} is a link shortener that hides the destination")
        extra = len(host.split(".")) - len(domain.split("."))
        if extra >= 4:
            flags.append("excessive_subdomains")
            reasons.append(f"{extra} labels before the registered domain {domain}")
    if not host:
        reasons.append("no host could be read from this URL")
    known = _reputation_of(url, host, reputation) if reputation and host else None
    if known:
        flags.append(f"known_{known[0]}")
        reasons.append(f"reputation list marks {known[1]} as {known[0]}")
    user_content = _is_user_content(host)
    if user_content and brand:
        reasons.append(f"{host} hosts anyone's uploads on {brand} infrastructure")
    verdict = _verdict(flags, None if user_content else brand, host)
    if verdict == "known-good" and not known:
        reasons.append(f"{domain} belongs to {brand}")
    return UrlReport(
        url=url,
        host=host,
        registered_domain=domain,
        flags=flags,
        brand=brand,
        reasons=reasons,
        verdict=verdict,
    )


def _is_user_content(host: str) -> bool:
    return any(host == h or host.endswith("." + h) for h in USER_CONTENT_HOSTS)


def _verdict(flags: list[str], brand: str | None, host: str) -> Verdict:
    if "known_bad" in flags:
        return "known-bad"
    risky = [flag for flag in flags if flag not in ("known_good",)]
    if "known_good" in flags and not risky:
        return "known-good"
    if risky:
        return "suspicious"
    if brand and host and "brand_lookalike" not in flags:
        return "known-good"
    return "neutral"
