"""Brands that phishing imitates and the domains they really send from and link to."""

from __future__ import annotations

BRAND_DOMAINS: dict[str, tuple[str, ...]] = {
    "paypal": ("paypal.com",),
    "microsoft": ("microsoft.com", "office.com", "live.com", "outlook.com", "microsoftonline.com"),
    "apple": ("apple.com", "icloud.com"),
    "google": ("google.com", "gmail.com", "accounts.google.com"),
    "amazon": ("amazon.com", "amazon.de", "amazon.co.uk"),
    "netflix": ("netflix.com",),
    "dhl": ("dhl.com", "dhl.de"),
    "fedex": ("fedex.com",),
    "ups": ("ups.com",),
    "usps": ("usps.com",),
    "docusign": ("docusign.com", "docusign.net"),
    "dropbox": ("dropbox.com",),
    "linkedin": ("linkedin.com",),
    "facebook": ("facebook.com", "meta.com"),
    "instagram": ("instagram.com",),
    "chase": ("chase.com",),
    "wellsfargo": ("wellsfargo.com",),
    "bankofamerica": ("bankofamerica.com",),
    "irs": ("irs.gov",),
    "coinbase": ("coinbase.com",),
    "adobe": ("adobe.com",),
    "zoom": ("zoom.us",),
    "slack": ("slack.com",),
    "github": ("github.com",),
    "ebay": ("ebay.com",),
    "santander": ("santander.com", "santander.es"),
    "sparkasse": ("sparkasse.de",),
    "laposte": ("laposte.fr",),
    "correos": ("correos.es",),
}
"""brand -> its legitimate registered domains (the first is the main one)."""

LEGITIMATE_DOMAINS: frozenset[str] = frozenset(d for ds in BRAND_DOMAINS.values() for d in ds)

OFFICIAL_DOMAINS: dict[str, tuple[str, ...]] = {
    "paypal": ("paypal.com", "paypal.me", "paypalobjects.com", "paypal-community.com"),
    "microsoft": (
        *("microsoft.com", "office.com", "office.net", "office365.com", "microsoft365.com"),
        *("live.com", "outlook.com", "hotmail.com", "msn.com", "bing.com", "skype.com"),
        *("microsoftonline.com", "windows.com", "windows.net", "azure.com", "xbox.com"),
        *("sharepoint.com", "aka.ms", "msftauth.net", "live.net"),
    ),
    "apple": ("apple.com", "icloud.com", "me.com", "mac.com", "itunes.com", "mzstatic.com"),
    "google": (
        *("google.com", "gmail.com", "googlemail.com", "youtube.com", "googleapis.com"),
        *("gstatic.com", "googleusercontent.com", "withgoogle.com", "blogger.com", "g.co"),
    ),
    "amazon": (
        *("amazon.com", "amazon.de", "amazon.co.uk", "amazon.fr", "amazon.it", "amazon.es"),
        *("amazon.ca", "amazon.co.jp", "amazon.com.au", "amazon.in", "amazon.com.br"),
        *("amazon.com.mx", "amazon.nl", "amazon.se", "amazon.pl", "amazon.sg", "amazon.ae"),
        *("amazon.sa", "amazon.com.tr", "amazon.eg", "amazon.com.be", "amazonaws.com"),
        *("amazonses.com", "media-amazon.com", "ssl-images-amazon.com", "primevideo.com"),
    ),
    "netflix": ("netflix.com", "netflix.net", "nflxext.com", "nflximg.net", "nflxvideo.net"),
    "dhl": (
        *("dhl.com", "dhl.de", "dhl.fr", "dhl.co.uk", "dhl.nl", "dhl.es", "dhl.it", "dhl.at"),
        *("dhl.ch", "dhl.pl", "dhl.com.au", "dhl.com.mx", "dhl.com.br", "dhl.co.in"),
        *("dpdhl.com", "deutschepost.de", "dhlparcel.nl", "dhlparcel.co.uk", "dhlparcel.es"),
    ),
    "fedex": ("fedex.com", "fedex.ca", "fedex.co.uk", "fedex.de", "fedex.fr", "fedex.com.au"),
    "ups": ("ups.com", "ups.ca", "ups.de", "ups.fr", "ups.co.uk"),
    "usps": ("usps.com", "usps.gov", "uspis.gov", "uspsoig.gov"),
    "docusign": ("docusign.com", "docusign.net"),
    "dropbox": ("dropbox.com", "dropboxusercontent.com", "dropboxstatic.com", "db.tt"),
    "linkedin": ("linkedin.com", "licdn.com"),
    "facebook": (
        *("facebook.com", "facebook.net", "fb.com", "fb.me", "fbcdn.net", "facebookmail.com"),
        *("meta.com", "messenger.com", "whatsapp.com"),
    ),
    "instagram": ("instagram.com", "cdninstagram.com", "ig.me"),
    "chase": ("chase.com", "jpmorganchase.com", "jpmorgan.com"),
    "wellsfargo": ("wellsfargo.com", "wf.com", "wellsfargoadvisors.com"),
    "bankofamerica": ("bankofamerica.com", "bofa.com", "merrilledge.com"),
    "irs": ("irs.gov", "treasury.gov"),
    "coinbase": ("coinbase.com",),
    "adobe": ("adobe.com", "adobelogin.com", "adobesign.com", "echosign.com", "typekit.net"),
    "zoom": ("zoom.us", "zoom.com", "zoomgov.com"),
    "slack": ("slack.com", "slack-edge.com", "slack-redir.net"),
    "github": ("github.com", "githubusercontent.com", "githubassets.com"),
    "ebay": (
        *("ebay.com", "ebay.co.uk", "ebay.de", "ebay.fr", "ebay.it", "ebay.es", "ebay.ca"),
        *("ebay.com.au", "ebay.at", "ebay.ch", "ebay.ie", "ebay.nl", "ebayimg.com"),
        "ebaystatic.com",
    ),
    "santander": (
        *("santander.com", "santander.es", "santander.co.uk", "santander.de", "santander.pl"),
        *("santander.pt", "santander.cl", "santander.com.br", "santander.com.mx"),
        *("santander.com.ar", "santander.com.uy", "santanderbank.com", "bancosantander.es"),
        "santanderconsumer.com",
    ),
    "sparkasse": ("sparkasse.de", "sparkasse.at", "s-finanzgruppe.de", "dsgv.de"),
    "laposte": (
        *("laposte.fr", "laposte.net", "laposte.com", "lapostegroupe.com"),
        *("labanquepostale.fr", "colissimo.fr", "chronopost.fr"),
    ),
    "correos": (
        *("correos.es", "correos.com", "correosexpress.com", "correos.cl", "correos.go.cr"),
        *("correosdemexico.gob.mx", "correo.com.uy", "correoargentino.com.ar"),
    ),
}
"""brand -> every registrable domain the brand (or its national/regional arms) really uses:
`BRAND_DOMAINS` plus country variants, mail/CDN infrastructure and sister services. Hosts
under these domains are never brand look-alikes."""

FEDERATED_BRANDS: dict[str, tuple[str, ...]] = {"sparkasse": ("de", "at")}
"""Brands whose independent regional members register `<brand>-<region>.<tld>` domains under
these national TLDs (sparkasse-koelnbonn.de); a region token that is a phishing affix
(`sparkasse-login.de`) is still a look-alike."""

MAILBOX_DOMAINS: frozenset[str] = frozenset({"hotmail.com", "laposte.net"})
"""Official domains in `OFFICIAL_DOMAINS` (not `BRAND_DOMAINS`) that hand out mailboxes to the
public: never look-alikes, but a sender there is not the brand itself."""
