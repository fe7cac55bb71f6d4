"""The indicator catalogue and its deterministic extractor.

`extract_indicators(view)` returns, for every catalogue id that fires on an email, a few short
human-readable details (the offending URL, header or phrase). The same function confirms
indicator ids a model cites as evidence, so it must stay deterministic and cheap.

Keyword indicators (`credential_request`, `urgency_language`, `payment_request`) match the
subject and body after removing zero-width characters, dropping accents and case-folding, with
phrase tables in English, Spanish, German, French and Portuguese below. They look for
requests ("verify your account", "pay the outstanding invoice"), not for topics: "payment
received" or "your password was changed" do not fire, and neither do negated requests ("if
you did not authorize this payment"). Web addresses are blanked out before matching, so a host
such as `validate-login.com` or a line `Confirm address: https://login...` is not wording.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from .brands import BRAND_DOMAINS
from .urls import (
    RISKY_TLDS,
    analyze_url,
    domain_flags,
    domain_owner,
    registered_domain,
    unicode_host,
)
from .view import EmailView

CATALOGUE: dict[str, str] = {
    "link_text_mismatch": "an HTML link whose visible text shows another domain than its target",
    "ip_url": "a link whose host is an IP address (v4 or v6, incl. decimal/hex forms)",
    "brand_lookalike": "a sender or link domain imitating a known brand without being its domain",
    "punycode_domain": "a sender or link domain with xn-- labels or non-ASCII characters",
    "url_shortener": "a link on a known URL shortener (bit.ly, tinyurl.com, t.co, ...)",
    "risky_tld": "a link or sender domain on a risky top-level domain (.zip, .xyz, .top, ...)",
    "at_sign_url": "a URL with user-info (@) in its authority, hiding the real host",
    "excessive_subdomains": "a link host with 4 or more labels before its registered domain",
    "reply_to_mismatch": "the Reply-To domain differs from the From domain",
    "return_path_mismatch": "the Return-Path domain differs from the From domain",
    "display_name_spoof": "the From display name names a brand or address the sender is not",
    "spf_fail": "Authentication-Results (or Received-SPF) reports spf=fail or softfail",
    "dkim_fail": "Authentication-Results reports dkim=fail",
    "dmarc_fail": "Authentication-Results reports dmarc=fail",
    "credential_request": "the body asks to enter/confirm a password, login, card or security code",
    "urgency_language": "deadline, threat or suspension language",
    "payment_request": "asks to pay, wire money, buy gift cards or change bank details",
    "risky_attachment": "an attachment with a risky or double extension (.exe, .html, .pdf.exe)",
    "zero_width_chars": "zero-width or bidi-control characters in the subject or body",
    "html_form": "the HTML body contains a form or a password field",
    "off_channel_contact": "asks to call a phone number, text, or reply with a phone number or "
    "on a private channel instead of using the service itself",
    "money_offer": "promises money: a prize, inheritance, dormant funds, a share of a transfer, "
    "guaranteed returns or a refund to claim",
    "secrecy_request": "asks to keep the matter confidential or between sender and reader",
    "personal_info_request": "asks for personal details (full name, address, phone, date of "
    "birth, ID copy) by reply",
    "crypto_extortion": "demands payment in cryptocurrency or threatens to expose recordings",
}
"""Indicator id -> one-line description (the ids are fixed across E4)."""

URL_FLAGS = (
    "ip_url",
    "brand_lookalike",
    "punycode_domain",
    "url_shortener",
    "risky_tld",
    "at_sign_url",
    "excessive_subdomains",
)
SENDER_FLAGS = ("brand_lookalike", "punycode_domain", "risky_tld")
MAX_DETAILS = 3
MAX_SCAN_CHARS = 100_000
"""Keyword indicators read the first 100k characters of the body (bounded time per email)."""

ZERO_WIDTH = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
ZERO_WIDTH_ENTITY = re.compile(
    r"&#(?:x0*(?:200[b-f]|202[a-e]|206[0-4]|feff)|0*(?:820[3-7]|823[4-8]|828[89]|829[0-2]|65279));"
    r"|&(?:zwj|zwnj|lrm|rlm);",
    re.IGNORECASE,
)
COMBINING = re.compile("[\u0300-\u036f]")
RISKY_EXTENSIONS = frozenset(
    {
        *("exe", "scr", "js", "jse", "vbs", "vbe", "wsf", "bat", "cmd", "ps1", "hta", "html"),
        *("htm", "iso", "img", "lnk", "docm", "xlsm", "pptm", "jar", "msi"),
    }
)
DECOY_EXTENSIONS = frozenset(
    {
        *("pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "txt", "rtf", "jpg", "jpeg", "png"),
        *("gif", "csv"),
    }
)
"""Document/image extensions that a double extension puts before the real one."""
SHOWN_DOMAIN = re.compile(r"(?:https?://)?(?:[\w-]+\.)+([a-z]{2,24}|xn--[a-z0-9-]+)\b", re.I)
COMMON_TLDS = frozenset(
    {"com", "net", "org", "edu", "gov", "mil", "int", "info", "biz", "io", "co", "app", "dev"}
)
AUTH_RESULT = {
    "spf_fail": re.compile(r"\bspf\s*=\s*(?:fail|softfail)\b", re.I),
    "dkim_fail": re.compile(r"\bdkim\s*=\s*fail\b", re.I),
    "dmarc_fail": re.compile(r"\bdmarc\s*=\s*fail\b", re.I),
}
RECEIVED_SPF_FAIL = re.compile(r"^\s*(?:fail|softfail)\b", re.I)
FORM = re.compile(r"<form\b|<input\b[^>]*\btype\s*=\s*[\"']?password", re.I)
GAP = r"[^.!?\n]{0,60}?"
"""Up to 60 characters inside one sentence between a request verb and its object."""
NOT_A_NOUN = r"(?<!\ban )(?<!\bthe )(?<!\ba )(?<!\bour )"
"""`an update to your account` is news, `update your account` is a request."""
NOT_NEGATED = r"(?<!not )(?<!n't )(?<!never )"
"""`if you did not make this payment` reports, `make this payment` asks."""
WEB_ADDRESS = re.compile(r"(?:https?://|www\.)\S+")
"""A web address in folded text: blanked out before keyword matching."""
GIFT_CARD_BRANDS = r"google play|itunes|app store|steam|razer gold"
"""Gift cards scammers ask for by name ("buy 5 Google Play cards")."""
MONTHS_ES = (
    r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre"
    r"|noviembre|diciembre"
)
MONTHS_PT = (
    r"janeiro|fevereiro|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro"
)


def _phrases(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")\b")


def _requests(verbs: str, objects: str, *, either_order: bool = False) -> str:
    """Verb ... object in one sentence (either order for German's verb-final clauses)."""
    forward = rf"{NOT_A_NOUN}(?:{verbs})\b{GAP}\b(?:{objects})"
    return f"{forward}|(?:{objects})\\b{GAP}\\b(?:{verbs})" if either_order else forward


CREDENTIAL = _phrases(
    # en
    _requests(
        r"verify|confirm|validate|re-?enter|enter|provide|submit|update|re-?activate|unlock"
        r"|restore|re-?validate|authenticate|(?:sign|log) ?in (?:with|using)",
        r"password|passcode|log-?in(?: details| information)?|credentials?"
        r"|account(?! (?:settings|preferences))|card (?:number|details)|cvv|cvc|pin"
        r"|(?:security|verification|confirmation) code|ssn|social security number|username"
        r"|bank(?:ing)? details|billing (?:information|details)|identity|mailbox|e-?mail account",
    ),
    _requests(
        r"verify|confirm|update|validate|provide|re-?confirm",
        r"your (?:personal |billing |payment |account |contact )?(?:information|info|details"
        r"|records|data)",
    ),
    r"click (?:here|below|the link|the button|on the link) to (?:update|log ?in|sign ?in"
    r"|access|reactivate|complete)|(?:log|sign) ?(?:in|on) to your (?:online )?(?:account|banking)",
    r"(?:keep|retain) (?:your |the )?(?:current |same )?password",
    r"click (?:here|below|the link|the button) to (?:verify|confirm|validate|unlock|restore)",
    r"(?:sign|log)[- ]?in (?:here |below |now )?to (?:verify|confirm|validate|restore|retrieve"
    r"|unlock|keep|avoid)|(?:validate|re-?validate|upgrade) (?:your )?e-?mail",
    # es
    _requests(
        r"verifique|verificar|verifica|confirme|confirmar|confirma|actualice|actualizar"
        r"|introduzca|introducir|ingrese|ingresar|valide|validar|proporcione|reactive|reactivar"
        r"|desbloquear|desbloquee|(?:inicie|iniciar|inicia) sesion (?:con|usando)",
        r"contrasena|clave|usuario|credenciales|cuenta|datos (?:bancarios|de (?:la )?tarjeta)"
        r"|numero de (?:la )?tarjeta|codigo de (?:seguridad|verificacion)|cvv|pin|identidad",
    ),
    # de
    _requests(
        r"bestatigen|verifizieren|aktualisieren|eingeben|geben sie|uberprufen|validieren"
        r"|entsperren|reaktivieren|authentifizieren|melden sie sich|anmelden",
        r"passwort|kennwort|zugangsdaten|anmeldedaten|konto|kontodaten|kreditkarten?(?:daten)?"
        r"|kartennummer|(?:sicherheits|bestatigungs|verifizierungs)code|pin|identitat|bankdaten"
        r"|benutzername",
        either_order=True,
    ),
    # fr
    _requests(
        r"verifier|verifiez|confirmer|confirmez|mettre a jour|mettez a jour|saisir|saisissez"
        r"|entrer|entrez|renseigner|renseignez|valider|validez|debloquer|reactiver|fournir"
        r"|fournissez|connectez-vous|vous connecter",
        r"mot de passe|identifiants|compte|coordonnees bancaires|carte (?:bancaire|de credit)"
        r"|numero de carte|code de (?:securite|verification)|cryptogramme|identite"
        r"|informations bancaires",
    ),
    # pt
    _requests(
        r"verifique|verificar|confirme|confirmar|atualize|atualizar|insira|inserir|informe"
        r"|informar|digite|digitar|valide|validar|desbloquear|reative|reativar|forneca|fornecer"
        r"|entre com|entrar com|faca login",
        r"senha|credenciais|conta|dados (?:bancarios|do cartao)|numero do cartao|cartao"
        r"|codigo de (?:seguranca|verificacao)|cvv|identidade|usuario",
    ),
)

URGENCY = _phrases(
    # en
    r"within (?:\d+|twenty-four|forty-eight) ?(?:hours|hrs|h|days)",
    r"urgent(?:ly)?|immediate action|act now|as soon as possible|final (?:notice|warning|reminder)",
    r"last (?:chance|warning|notice)|legal action|permanently (?:deleted|closed|disabled|lost)",
    r"(?:account|mailbox|service|access|card|subscription)s?(?: will be| has been| is| was)?"
    r" (?:temporarily |permanently )?(?:suspended|locked|closed|terminated|disabled"
    r"|deactivated|restricted|blocked|on hold)",
    r"suspension|(?:avoid|prevent) (?:the |any )?(?:suspension|closure|termination|deactivation"
    r"|interruption)",
    r"failure to (?:comply|verify|respond|update|confirm|pay)"
    r"|expires? (?:today|tonight|soon|in a few hours)|ends? (?:today|tonight|at midnight)",
    r"unauthori[sz]ed (?:access|activity|login|sign-?in|transaction)|suspicious activity",
    r"action required|unusual (?:activity|activities|sign-?in)|(?:access|account)"
    r"(?: access)? (?:has been|will be|is) limited|(?:is|are) at risk",
    r"you will (?:not be able to|be unable to|lose access)|no later than|hurry"
    r"|by the end of (?:the )?day|(?:by|before) (?:january|february|march|april|may|june|july"
    r"|august|september|october|november|december) \d{1,2}\b",
    _requests(
        r"pay|wire|transfer|send|verify|confirm|update|call|act|respond|reply|contact|get|buy",
        r"immediately|urgently|right away|today|tonight|this afternoon",
    ),
    _requests(
        r"accounts?|mailbox(?:es)?|services?|access|cards?|subscriptions?",
        r"(?:will|would) be (?:temporarily |permanently )?(?:suspended|locked|closed|terminated"
        r"|disabled|deactivated|restricted|blocked|limited)",
    ),
    # es
    r"(?:dentro de|en|en un plazo de) (?:las )?\d{1,3} horas|urgente|inmediatamente"
    r"|de inmediato|hoy mismo|date prisa|accion requerida|en riesgo|antes del? \d{1,2} de",
    rf"(?:vence|vencen|caduca|expira|finaliza) (?:el )?\d{{1,2}} de (?:{MONTHS_ES})",
    _requests(
        r"pague|transfiera|gestiones|gestione|confirme|verifique|conseguir|consiga|compre|compra"
        r"|llame|haga|envie",
        r"hoy|esta tarde|esta noche|de inmediato|inmediatamente",
    ),
    _requests(r"cuentas?|servicios?|accesos?", r"seran? (?:suspendid|bloquead|cerrad|desactivad)"),
    r"(?:cuenta|servicio|acceso)s?(?: sera| seran| ha sido| esta)?"
    r" (?:suspendid|bloquead|cerrad|cancelad|desactivad|restringid)[ao]s?",
    r"suspension|(?:ultimo|unico) aviso|aviso final|ultima oportunidad|evitar (?:la )?"
    r"(?:suspension|cancelacion|cierre|bloqueo)|acciones? legal(?:es)?"
    r"|(?:caduca|expira|vence) (?:hoy|en pocas horas)|actividad sospechosa|acceso no autorizado",
    # de
    r"innerhalb (?:von )?\d{1,3} stunden|dringend|umgehend|unverzuglich|sofort handeln"
    r"|handlung erforderlich|letzte chance|(?:nur|noch) heute|(?<!ab )sofort|in gefahr"
    r"|bis (?:zum )?\d{1,2}\. ?(?:januar|februar|marz|april|mai|juni|juli|august|september"
    r"|oktober|november|dezember)",
    _requests(r"konto|konten|zugang|dienst|karte", r"(?:wird|werden) (?:\w+ )?gesperrt"),
    r"(?:konto|konten|zugang|dienst|karte)(?: wird| werden| wurde| ist)?"
    r" (?:vorubergehend |dauerhaft )?(?:gesperrt|eingeschrankt|deaktiviert|geschlossen"
    r"|gekundigt|geloscht)",
    r"sperrung|letzte (?:mahnung|warnung|erinnerung)|rechtliche schritte|verdachtige aktivitat"
    r"|unbefugte[rn]? zugriff|lauft heute ab",
    # fr
    r"(?:sous|dans les) \d{1,3} ?(?:heures|h)|urgente?|immediatement|sans delai|faites vite"
    r"|action requise|derniere chance|des aujourd'hui|avant ce soir|en danger"
    r"|avant le \d{1,2}(?:er)? (?:janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre"
    r"|octobre|novembre|decembre)",
    _requests(r"comptes?|acces|services?", r"seront? (?:\w+ )?(?:suspendu|bloque|ferme|desactive)"),
    r"(?:compte|acces|service|carte)s?(?: sera| seront| a ete| est)?"
    r" (?:definitivement |temporairement )?(?:suspendu|bloque|ferme|desactive|restreint"
    r"|supprime|limite)e?s?",
    r"suspension|dernier (?:avis|avertissement|rappel)|eviter (?:la |le )?(?:suspension"
    r"|fermeture|resiliation|blocage)|poursuites judiciaires|action en justice"
    r"|expire (?:aujourd'hui|dans quelques heures)|activite suspecte|acces non autorise",
    # pt
    r"(?:dentro de|em|em ate) \d{1,3} horas|urgente|imediatamente|acao necessaria"
    r"|ultima chance|em risco|antes de \d{1,2} de",
    rf"(?:ate|vence em|vencem em|expira em) (?:o dia )?\d{{1,2}} de (?:{MONTHS_PT})",
    _requests(
        r"pague|transfira|compre|comprar|confirme|verifique|ligue|faca|envie",
        r"hoje|esta tarde|esta noite|imediatamente",
    ),
    _requests(r"contas?|servicos?|acessos?", r"serao? (?:suspens|bloquead|encerrad|desativad)"),
    r"(?:conta|acesso|servico|cartao)s?(?: sera| serao| foi| esta)?"
    r" (?:suspens|bloquead|encerrad|desativad|cancelad|restrit)[ao]s?",
    r"suspensao|ultimo aviso|aviso final|evitar (?:a |o )?(?:suspensao|bloqueio|cancelamento"
    r"|encerramento)|acao judicial|medidas legais|expira (?:hoje|em poucas horas)"
    r"|atividade suspeita|acesso nao autorizado",
)

PAYMENT = _phrases(
    # en
    _requests(
        rf"{NOT_NEGATED}(?:wire|transfer|send|remit|make|arrange|initiate|handle|execute"
        r"|take care of|pay|settle|process)",
        r"money|funds|payment|wire transfer|bank transfer|transfer|invoice|balance|amount|fee"
        r"|fees|bill|fine|charges?|dut(?:y|ies)|customs|debt|shipping cost|costs?",
    ),
    # not "authorize this charge": receipts say "if you did not authorize this charge"
    _requests(
        rf"{NOT_NEGATED}authori[sz]e",
        r"payment|wire transfer|bank transfer|transfer|wire|funds",
    ),
    r"pay now|payment (?:that )?needs to|needs? to (?:pay|be paid)"
    r"|(?:outstanding|overdue|unpaid) (?:invoice|balance|payment)",
    _requests(r"buy|purchase|get|pick up", rf"gift ?cards?|(?:{GIFT_CARD_BRANDS}) cards?"),
    r"gift ?card (?:codes?|numbers?)|scratch (?:off )?the (?:back|card)",
    r"(?:change|update|new|updated) (?:of |to )?(?:our |the |my )?"
    r"(?:bank(?:ing)? (?:details|account|information)|account details|payment details"
    r"|remittance details|iban)|bank(?:ing)? details have (?:changed|been updated)",
    # es
    _requests(
        r"realice|realizar|efectue|efectuar|haga|hacer|envie|enviar|transfiera|transferir"
        r"|pague|pagar|abone|abonar|gestionar|gestiones|gestione|ordenar|encargues|encargue",
        r"pago|transferencia|deposito|importe|factura|saldo|deuda|gastos|tasas|tarifa",
    ),
    _requests(
        r"compre|comprar|compra|adquiera|adquirir|consiga|conseguir",
        rf"tarjetas? regalo|tarjetas? (?:de )?(?:{GIFT_CARD_BRANDS})",
    ),
    r"tarjetas? de regalo|rasca el reverso|pago que tiene que|nuevos datos bancarios"
    r"|nueva cuenta bancaria|cambio de (?:cuenta bancaria|datos bancarios|iban)"
    r"|factura (?:pendiente|vencida|impagada)",
    # de
    _requests(
        r"uberweisen sie|bezahlen sie|begleichen sie|zahlen sie|veranlassen|tatigen|brauche sie",
        r"rechnung|betrag|gebuhr|gebuhren|zahlung|uberweisung|summe|zollgebuhr|versandkosten"
        r"|kosten",
        either_order=True,
    ),
    _requests(r"mussen|muss", r"(?:be)?zahlen|uberweisen|begleichen"),
    r"(?:uberweisen|bezahlen|begleichen) sie|transfiera|transfira|virez",
    r"uberweisung (?:tatigen|veranlassen|durchfuhren)|zahlung (?:leisten|veranlassen"
    r"|durchfuhren)|(?:bezahlt|uberwiesen|beglichen) werden",
    r"(?:offene|ausstehende|uberfallige) (?:rechnung|zahlung|betrag|forderung)",
    _requests(
        r"kaufen sie|besorgen sie|kaufen|besorgen",
        rf"(?:geschenk|gutschein)karten?|(?:{GIFT_CARD_BRANDS}|google-play)[- ]?karten?",
        either_order=True,
    ),
    r"gutscheincodes?|rubbeln sie"
    r"|(?:neue|geanderte) (?:bankverbindung|kontodaten|iban)|bankverbindung hat sich geandert",
    # fr
    _requests(
        r"effectuer|effectuez|proceder au|procedez au|regler|reglez|payer|payez|acquitter"
        r"|acquittez|virer|virez|faire|occupiez|occuper",
        r"paiement|virement|facture|montant|solde|frais|droits",
    ),
    r"virement (?:bancaire )?(?:urgent|immediat)|grattez|paiement doit"
    r"|(?:devons|devez|doit|dois) (?:la |le |les )?(?:payer|regler|virer)",
    _requests(
        r"acheter|achetez|procurez-vous|procurer",
        rf"cartes? cadeaux?|cartes? (?:{GIFT_CARD_BRANDS})",
    ),
    r"codes? (?:des |de la |de )?cartes? cadeaux?|(?:nouvelles? |changement de )"
    r"(?:coordonnees bancaires|rib|iban)|facture (?:impayee|en souffrance|en attente)",
    # pt
    _requests(
        r"efetue|efetuar|realize|realizar|faca|fazer|pague|pagar|transfira|transferir"
        r"|cuide|cuidasse|cuidar",
        r"pagamento|transferencia|deposito|fatura|boleto|valor|saldo|divida|custo|taxas?|frete",
    ),
    r"precis(?:o|a|amos) (?:\w+ )?paga(?:r|-la|-lo)|pagamento que precisa",
    _requests(
        r"compre|comprar|adquira|adquirir",
        rf"cart(?:ao|oes)[- ](?:de )?presente|cart(?:ao|oes) (?:{GIFT_CARD_BRANDS})",
    ),
    r"codigos? (?:do |dos )?cart(?:ao|oes)[- ](?:de )?presente|raspe o verso"
    r"|novos dados bancarios|nova conta bancaria|alteracao (?:dos|de) dados bancarios"
    r"|(?:fatura|boleto) (?:pendente|vencid[ao]|em atraso)",
)


PHONE = r"\+?\(?\d[\d ().-]{6,}\d"
"""A phone number as written in mail (+49 30 1234 5678, (555) 123-4567)."""
OFF_CHANNEL = _phrases(
    # en
    rf"(?:call|phone|ring|text|whatsapp|contact)(?: us| me| our [\w ]{{1,25}}?)?"
    rf"(?: by phone)?(?: at| on| via)? {PHONE}",
    r"(?:reply|respond|send|text)(?: me| us)?(?: to this email)? with your (?:mobile|cell|phone)"
    r"(?: phone)? number|send me your (?:mobile|cell|phone|whatsapp) number"
    r"|(?:reply|write|contact me)(?: to me)? (?:on|at|via|to) my (?:private|personal)"
    r" (?:email|e-mail)"
    r"|(?:on|via) whatsapp|can't talk on the phone|i can(?:no|')t talk (?:right )?now",
    # es / de / fr / pt
    rf"llame(?: inmediatamente| hoy mismo)? al {PHONE}"
    rf"|contacte? [^.\n]{{0,40}}? (?:en )?el {PHONE}",
    rf"rufen sie (?:uns )?[^.\n]{{0,20}}?unter {PHONE}|hotline unter {PHONE}",
    rf"appelez(?: immediatement)?(?: le)? {PHONE}|contactez [^.\n]{{0,30}}?au {PHONE}",
    rf"ligue(?: imediatamente)? para {PHONE}|central pelo {PHONE}",
)
MONEY_OFFER = _phrases(
    r"you (?:have )?won|has won|winning number|claim (?:your |the )?(?:prize|winnings|refund|bonus)"
    r"|next of kin|dormant account|inheritance|as the beneficiary|unclaimed (?:funds?|prize)"
    r"|share it \d+ ?/ ?\d+|\d+% of the (?:total )?(?:sum|fund)|guarantee[sd]? (?:daily )?returns?"
    r"|double (?:your )?(?:bitcoin|money|investment)|receive double|(?:eligible|approved)"
    r" (?:to receive )?(?:a |for a )?refund|recover (?:your )?(?:lost )?(?:money|funds)"
    r"|keeping \d+% as commission",
    r"ha ganado|sin herederos|sie haben [^.\n]{0,20}gewonnen|ohne erben|vous avez gagne"
    r"|sans heritier|voce ganhou|sem herdeiros",
)
SECRECY = _phrases(
    r"keep (?:this|it)(?: matter)?(?: strictly)? (?:confidential|between us|private|quiet)"
    r"|strictly confidential|(?:handle|do) [^.\n]{0,30}discreetly|must stay confidential"
    r"|i will know if you tell|(?:don't|do not) (?:tell|discuss this with|mention this to) anyone",
    r"estricta confidencialidad|streng vertraulich|strictement confidentielle|sigilo absoluto",
)
PERSONAL_INFO = _phrases(
    r"(?:reply|respond|send|write back)(?: me| us| to me)?(?: to my private email)? with"
    r" your (?:full name|name|details|address)|your full name,? (?:age|address|phone|occupation)"
    r"|copy of your (?:id|passport|driver'?s licen[cs]e)|send (?:us|me) your details"
    r"|card number and date of birth",
    r"su nombre completo|ihrem vollstandigen namen|votre nom complet|seu nome completo",
)
CRYPTO_EXTORTION = _phrases(
    r"(?:bitcoin|btc|crypto)(?: wallet| address)?|webcam|recorded you|send the video"
    r"|your files go public|all your contacts",
    r"todos sus contactos|alle ihre kontakte|tous vos contacts|todos os seus contatos",
)
CONTENT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("credential_request", CREDENTIAL),
    ("urgency_language", URGENCY),
    ("payment_request", PAYMENT),
    ("off_channel_contact", OFF_CHANNEL),
    ("money_offer", MONEY_OFFER),
    ("secrecy_request", SECRECY),
    ("personal_info_request", PERSONAL_INFO),
    ("crypto_extortion", CRYPTO_EXTORTION),
)
"""Keyword indicators and their phrase tables, in catalogue order."""
TEXT_INDICATORS = tuple(name for name, _ in CONTENT_PATTERNS)
LURE_TEXT_INDICATORS = TEXT_INDICATORS[3:]
"""The text indicators added for link-less lures (advance fee, call-back, extortion)."""


def content_text(subject: str, body: str) -> str:
    """Subject and body as the keyword indicators read them (folded, web addresses blanked)."""
    return WEB_ADDRESS.sub("link", fold_text(f"{subject}\n{body[:MAX_SCAN_CHARS]}"))


def content_indicators(
    subject: str, body: str, only: tuple[str, ...] = TEXT_INDICATORS
) -> dict[str, list[str]]:
    """Keyword indicator id -> matched phrases, for a subject and a readable body (``only``:
    the ids to look for)."""
    text = content_text(subject, body)
    found: dict[str, list[str]] = {}
    for indicator, pattern in CONTENT_PATTERNS:
        if indicator not in only:
            continue
        for match in pattern.finditer(text):
            found.setdefault(indicator, []).append(f'"{match.group(0)}"')
    return found


# ------------------------------------------------------------------------------------ helpers
def fold_text(text: str) -> str:
    """Zero-width characters removed, accents dropped, case-folded, whitespace collapsed."""
    text = ZERO_WIDTH.sub("", text).replace("\u2019", "'").replace("\u00df", "ss")
    text = COMBINING.sub("", unicodedata.normalize("NFKD", text)).casefold()
    return " ".join(text.split())


def _domain_of(address: str) -> str:
    return address.rpartition("@")[2].strip().strip(">").lower()


def _same_organisation(a: str, b: str) -> bool:
    """Same registered domain, or both owned by the same brand."""
    if registered_domain(a) == registered_domain(b):
        return True
    owner = domain_owner(a)
    return owner is not None and owner == domain_owner(b)


def _short(url: str, limit: int = 100) -> str:
    return url if len(url) <= limit else url[: limit - 1] + "…"


@lru_cache(maxsize=8192)
def _link_findings(href: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(host, ((flag, reason), ...)) of one link target."""
    report = analyze_url(href)
    reasons = dict(zip(report.flags, report.reasons, strict=False))
    flags = tuple((flag, reasons.get(flag, flag)) for flag in report.flags if flag in URL_FLAGS)
    return report.host, flags


def _shown_domains(text: str) -> list[str]:
    """Domains a link's visible text displays (explicit URLs, www. hosts, or name.tld)."""
    shown = []
    for match in SHOWN_DOMAIN.finditer(text):
        token = match.group(0)
        host = re.sub(r"^https?://", "", token, flags=re.I).lower()
        tld = match.group(1).lower()
        explicit = token.lower().startswith(("http", "www."))
        if explicit or tld in COMMON_TLDS or tld in RISKY_TLDS or len(tld) == 2:
            shown.append(host)
    return shown


# ------------------------------------------------------------------------------------- checks
Found = dict[str, list[str]]


def _add(found: Found, indicator: str, detail: str) -> None:
    details = found.setdefault(indicator, [])
    if detail not in details and len(details) < MAX_DETAILS:
        details.append(detail)


def _check_links(view: EmailView, found: Found) -> None:
    for link in view.links:
        target, flags = _link_findings(link.href)
        for flag, reason in flags:
            _add(found, flag, f"{_short(link.href)}: {reason}")
        if not link.text:
            continue
        for shown in _shown_domains(link.text):
            if target and not _same_organisation(unicode_host(shown), unicode_host(target)):
                _add(found, "link_text_mismatch", f"text shows {shown} but links to {target}")
                break


def _check_sender(view: EmailView, found: Found) -> None:
    domain = _domain_of(view.from_address)
    if not domain:
        return
    flags, reasons, _ = domain_flags(domain)
    for flag, reason in zip(flags, reasons, strict=False):
        if flag in SENDER_FLAGS:
            _add(found, flag, f"sender domain {domain}: {reason}")


def _check_headers(view: EmailView, found: Found) -> None:
    sender = _domain_of(view.from_address)
    if sender:
        for indicator, address, header in (
            ("reply_to_mismatch", view.reply_to_address, "Reply-To"),
            ("return_path_mismatch", view.return_path_address, "Return-Path"),
        ):
            other = _domain_of(address)
            if other and not _same_organisation(other, sender):
                _add(found, indicator, f"{header} {address} vs From {view.from_address}")
    for header in view.header("authentication-results").split("\n"):
        for indicator, pattern in AUTH_RESULT.items():
            match = pattern.search(header)
            if match:
                _add(found, indicator, f"Authentication-Results: {match.group(0)}")
    for header in view.header("received-spf").split("\n"):
        if RECEIVED_SPF_FAIL.match(header):
            _add(found, "spf_fail", f"Received-SPF: {header.split()[0]}")


def _check_display_name(view: EmailView, found: Found) -> None:
    name, sender = view.from_name, _domain_of(view.from_address)
    if not name or not sender:
        return
    for address in re.findall(r"[\w.+-]+@([\w-]+(?:\.[\w-]+)+)", name):
        if not _same_organisation(address.lower(), sender):
            _add(
                found, "display_name_spoof", f"display name '{name}' shows an address at {address}"
            )
            return
    brand = _brand_in_name(name)
    if brand and domain_owner(sender) != brand and not _country_domain(brand, sender):
        _add(found, "display_name_spoof", f"display name '{name}' but sent from {sender}")


def _brand_in_name(name: str) -> str | None:
    tokens = re.findall(r"[a-z0-9]+", fold_text(name))
    spans = {"".join(tokens[i:j]) for i in range(len(tokens)) for j in range(i + 1, i + 4)}
    for brand in BRAND_DOMAINS:
        if brand in spans:
            return brand
    return None


def _country_domain(brand: str, domain: str) -> bool:
    """amazon.fr / dhl.co.uk: the brand's own name under a country TLD."""
    registered = registered_domain(domain)
    return registered.split(".")[0] == brand and len(registered.rsplit(".", 1)[-1]) == 2


def _check_content(view: EmailView, found: Found) -> None:
    for indicator, details in content_indicators(view.subject, view.text).items():
        for detail in details:
            _add(found, indicator, detail)
    parts = (view.subject, view.text, view.from_name)
    count = sum(len(ZERO_WIDTH.findall(part)) for part in parts)
    if count == 0 and view.html:
        count = len(ZERO_WIDTH.findall(view.html)) + len(ZERO_WIDTH_ENTITY.findall(view.html))
    if count:
        _add(found, "zero_width_chars", f"{count} zero-width/bidi-control character(s)")
    if view.html and FORM.search(view.html):
        _add(found, "html_form", "HTML body contains a form or password field")


def risky_attachment_reason(filename: str) -> str | None:
    """Why an attachment name is risky (risky or double extension), else None."""
    parts = [part.strip().lower() for part in filename.strip().rstrip(".").split(".")]
    if len(parts) < 2:
        return None
    if parts[-1] in RISKY_EXTENSIONS:
        return f".{parts[-1]} can run code or open a local web page"
    if len(parts) >= 3 and parts[-2] in DECOY_EXTENSIONS and parts[-1] != parts[-2]:
        return f"double extension .{parts[-2]}.{parts[-1]} disguises the real file type"
    return None


def _check_attachments(view: EmailView, found: Found) -> None:
    for attachment in view.attachments:
        reason = risky_attachment_reason(attachment.filename)
        if reason:
            _add(found, "risky_attachment", f"{attachment.filename}: {reason}")


CHECKS: tuple[Callable[[EmailView, Found], None], ...] = (
    _check_links,
    _check_sender,
    _check_headers,
    _check_display_name,
    _check_content,
    _check_attachments,
)


def extract_indicators(view: EmailView) -> dict[str, list[str]]:
    """Catalogue id -> short details for each indicator that fires (in catalogue order)."""
    found: Found = {}
    for check in CHECKS:
        check(view, found)
    return {indicator: found[indicator] for indicator in CATALOGUE if indicator in found}
