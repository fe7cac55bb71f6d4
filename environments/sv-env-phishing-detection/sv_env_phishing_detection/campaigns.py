"""Template text for the synthetic email campaigns: a `Template` per scenario, language, variant.

The text itself lives in data files read through `scenario_data`: the classic scenarios'
templates in `data/classic_templates.json`, the newer scenarios (link-less lures, BEC, advance
fee, thread hijack, business threads, mailing lists, ...) in `data/scenarios.json`, where each
template holds alternatives drawn per email. This module builds `Template`s from both and
keeps the locales (names, organisations, formats) and brand pools.

Bodies use `str.format` placeholders filled by the generator (see `PLACEHOLDERS`); paragraphs
are separated by blank lines. Greetings, sign-offs and links are added by the generator, so a
body holds only the message itself. `content` lists the content indicators the wording carries
on purpose (`credential_request`, `urgency_language`, `payment_request`); legitimate templates
carry some too (an overdue-invoice reminder, "if this wasn't you, act now"), so wording alone
never decides the label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sv_env_phishing_detection.scenario_data import (
    alternatives,
    load_classic_templates,
    load_scenario_data,
)

CLASSIC_PHISHING_SCENARIOS: tuple[str, ...] = (
    "credential_harvest",
    "invoice_fraud",
    "delivery_notice",
    "ceo_fraud_bec",
    "mfa_reset_lure",
    "tech_support",
    "gift_card",
)
CLASSIC_LEGITIMATE_SCENARIOS: tuple[str, ...] = (
    "receipt",
    "password_reset",
    "shipping",
    "newsletter",
    "calendar_invite",
    "internal_memo",
)
"""Scenarios whose template text is written in this module (3 variants x 5 languages each)."""
_DATA = load_scenario_data()["scenarios"]
DATA_SCENARIOS: dict[str, dict[str, Any]] = dict(_DATA)
"""Scenarios whose template text lives in `data/scenarios.json` (see `scenario_data`)."""
PHISHING_SCENARIOS: tuple[str, ...] = CLASSIC_PHISHING_SCENARIOS + tuple(
    name for name, entry in _DATA.items() if entry["label"] == "Phishing"
)
LEGITIMATE_SCENARIOS: tuple[str, ...] = CLASSIC_LEGITIMATE_SCENARIOS + tuple(
    name for name, entry in _DATA.items() if entry["label"] == "Legitimate"
)
LANGUAGES: tuple[str, ...] = ("en", "es", "de", "fr", "pt")
PERSONAL_SCENARIOS = frozenset(
    {"ceo_fraud_bec", "gift_card", "internal_memo", "calendar_invite"}
    | {name for name, entry in _DATA.items() if entry.get("workplace")}
)
"""Scenarios written by a person (signed with a name) rather than by an organisation."""

PLACEHOLDERS = frozenset(
    {
        "brand", "city", "date", "time", "sender_name", "doc_title", "supplier", "invoice",
        "amount", "tracking", "order", "company", "product", "phone", "gift_brand", "count",
        "card_last4", "code", "carrier", "percent", "event_title", "location", "topic",
        "first", "colleague", "sender_first", "weekday", "ticket", "list_name", "date_compact",
        "supplier_short",
    }
)  # fmt: skip

C, U, P = "credential_request", "urgency_language", "payment_request"


@dataclass(frozen=True)
class Template:
    """One campaign template; `group` keeps all its emails in one split."""

    scenario: str
    language: str
    variant: int
    subject: str
    body: str
    cta: str
    content: tuple[str, ...]
    spec: dict[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)
    """Data-file templates: the alternatives to draw from (`scenario_data`); None otherwise."""

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.language}/v{self.variant}"

    @property
    def group(self) -> str:
        return f"synth:{self.scenario}:{self.language}:v{self.variant}"


# (subject, body, call-to-action text or "" for no link, content indicators)
_Text = tuple[str, str, str, tuple[str, ...]]


def _classic_text(kind: str) -> dict[str, dict[str, tuple[_Text, ...]]]:
    """The classic templates of one label ("phishing" / "legitimate") from
    `data/classic_templates.json`."""
    return {
        scenario: {
            language: tuple(
                (t["subject"], t["body"], t["cta"], tuple(t["content"])) for t in templates
            )
            for language, templates in by_language.items()
        }
        for scenario, by_language in load_classic_templates()[kind].items()
    }


_PHISHING_TEXT = _classic_text("phishing")
_LEGITIMATE_TEXT = _classic_text("legitimate")


def _build_templates() -> tuple[Template, ...]:
    out = []
    for table in (_PHISHING_TEXT, _LEGITIMATE_TEXT):
        for scenario, by_language in table.items():
            for language, variants in by_language.items():
                for variant, (subject, body, cta, content) in enumerate(variants):
                    out.append(Template(scenario, language, variant, subject, body, cta, content))
    for scenario, entry in _DATA.items():
        for language, variants in entry["templates"].items():
            for variant, spec in enumerate(variants):
                subject = alternatives(spec["subject"])[0]
                body = "\n\n".join(alternatives(p)[0] for p in spec["body"])
                out.append(
                    Template(scenario, language, variant, subject, body, spec.get("cta", ""), (),
                             spec={**spec, "plan": entry["plan"]})
                )  # fmt: skip
    return tuple(out)


TEMPLATES: tuple[Template, ...] = _build_templates()


def templates_for(scenarios: tuple[str, ...]) -> list[Template]:
    """Templates of `scenarios`, variant-major (all scenario x language pairs of variant 0 first).

    Taking the first k of this list therefore covers every scenario and language as soon as
    k >= len(scenarios) * len(LANGUAGES).
    """
    chosen = [t for t in TEMPLATES if t.scenario in scenarios]
    return sorted(
        chosen,
        key=lambda t: (t.variant, LANGUAGES.index(t.language), scenarios.index(t.scenario)),
    )


# ---------------------------------------------------------------------------- locales
@dataclass(frozen=True)
class Locale:
    """Names, organisations and formats used to fill templates in one language."""

    first_names: tuple[str, ...]
    last_names: tuple[str, ...]
    companies: tuple[tuple[str, str], ...]  # (name, domain): employers and suppliers
    shops: tuple[tuple[str, str], ...]  # (name, domain): small senders of receipts/newsletters
    cities: tuple[str, ...]
    products: tuple[str, ...]
    event_titles: tuple[str, ...]
    locations: tuple[str, ...]
    doc_titles: tuple[str, ...]
    executive_titles: tuple[str, ...]
    service_senders: tuple[str, ...]  # generic display names ("Customer Support")
    personal_greetings: tuple[str, ...]  # with {first} / {full}
    generic_greetings: tuple[str, ...]
    signoffs: tuple[str, ...]
    team_signature: str  # with {brand}
    mobile_signature: str
    months: tuple[str, ...]
    date_pattern: str  # with {day} {month} {year}
    clock_24h: bool
    currency: tuple[str, str]  # (prefix, suffix)
    separators: tuple[str, str]  # (thousands, decimal)
    phone_pattern: str  # "#" = a random digit
    invoice_prefix: str


LOCALES: dict[str, Locale] = {
    "en": Locale(
        first_names=("James", "Emily", "Michael", "Sarah", "David", "Laura", "Daniel", "Rachel",
                     "Thomas", "Olivia", "Robert", "Megan", "Andrew", "Hannah", "Peter", "Grace"),
        last_names=("Smith", "Johnson", "Walker", "Turner", "Bennett", "Collins", "Hughes",
                    "Foster", "Reed", "Morgan", "Parker", "Hayes", "Carter", "Brooks"),
        companies=(("Northwind Traders", "northwindtraders.com"),
                   ("Bluepeak Analytics", "bluepeak-analytics.com"),
                   ("Harbor & Finch Legal", "harborfinch.com"),
                   ("Cedar Valley Clinic", "cedarvalleyclinic.org"),
                   ("Brightline Logistics", "brightlinelogistics.com"),
                   ("Oakridge Accounting", "oakridgeaccounting.co.uk")),
        shops=(("Maple Street Bakery", "maplestreetbakery.com"),
               ("Trailhead Outfitters", "trailheadoutfitters.com"),
               ("Lumen Home Goods", "lumenhomegoods.com"),
               ("Copperleaf Books", "copperleafbooks.com")),
        cities=("Lagos", "Moscow", "Jakarta", "Dallas", "Manila", "Bucharest"),
        products=("Wireless Headphones X2", "Trail Running Shoes", "Burr Coffee Grinder",
                  "LED Desk Lamp", "Waterproof Backpack 30L"),
        event_titles=("Quarterly planning", "Budget review", "Project kickoff",
                      "Weekly check-in", "Design review"),
        locations=("Room 4.12", "Main office, 2nd floor", "Video call", "Board room"),
        doc_titles=("Q3 bonus plan", "Signed contract", "Updated salary review",
                    "Remittance advice"),
        executive_titles=("CEO", "Managing Director", "CFO"),
        service_senders=("Account Services", "Security Team",
                         "Customer Support", "Billing Department"),
        personal_greetings=("Hi {first},", "Hello {first},", "Dear {full},"),
        generic_greetings=("Hello,", "Dear customer,", "Hi there,"),
        signoffs=("Best regards,", "Thanks,", "Kind regards,", "Sincerely,"),
        team_signature="The {brand} Team",
        mobile_signature="Sent from my iPhone",
        months=("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"),
        date_pattern="{month} {day}, {year}",
        clock_24h=False,
        currency=("$", ""),
        separators=(",", "."),
        phone_pattern="+1 (8##) 555-01##",
        invoice_prefix="INV",
    ),
    "es": Locale(
        first_names=("Carlos", "Lucía", "Javier", "María", "Pablo", "Elena", "Sergio", "Carmen",
                     "Diego", "Laura", "Andrés", "Marta", "Raúl", "Sofía"),
        last_names=("García", "Martínez", "López", "Sánchez", "Romero", "Navarro", "Torres",
                    "Ruiz", "Moreno", "Ortega", "Castillo", "Delgado"),
        companies=(("Grupo Solano", "gruposolano.es"),
                   ("Talleres Medina", "talleresmedina.es"),
                   ("Clínica Alameda", "clinicaalameda.es"),
                   ("Distribuciones Vega", "distribucionesvega.com"),
                   ("Estudio Robles Arquitectos", "estudiorobles.es"),
                   ("Asesoría Herrera", "asesoriaherrera.es")),
        shops=(("Calzados Rivera", "calzadosrivera.es"),
               ("La Tienda Verde", "latiendaverde.es"),
               ("Ópticas Luna", "opticasluna.es"),
               ("Librería Cervantes", "libreriacervantes.es")),
        cities=("Lagos", "Moscú", "Yakarta", "Bogotá", "Manila", "Bucarest"),
        products=("Auriculares inalámbricos X2", "Zapatillas de trail", "Molinillo de café",
                  "Lámpara LED de escritorio", "Mochila impermeable 30L"),
        event_titles=("Planificación trimestral", "Revisión del presupuesto",
                      "Arranque del proyecto", "Reunión de seguimiento", "Revisión de diseño"),
        locations=("Sala 4.12", "Oficina central, 2.ª planta", "Videollamada",
                   "Sala de juntas"),
        doc_titles=("Plan de incentivos T3", "Contrato firmado", "Revisión salarial",
                    "Justificante de pago"),
        executive_titles=("Director General", "Consejero Delegado", "Director Financiero"),
        service_senders=("Atención al Cliente", "Equipo de Seguridad",
                         "Servicio de Cuentas", "Facturación"),
        personal_greetings=("Hola, {first}:", "Hola {first},", "Estimado/a {full}:"),
        generic_greetings=("Hola:", "Estimado cliente:", "Buenos días:"),
        signoffs=("Saludos,", "Un saludo,", "Atentamente,", "Gracias,"),
        team_signature="El equipo de {brand}",
        mobile_signature="Enviado desde mi iPhone",
        months=("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                "septiembre", "octubre", "noviembre", "diciembre"),
        date_pattern="{day} de {month} de {year}",
        clock_24h=True,
        currency=("", " €"),
        separators=(".", ","),
        phone_pattern="+34 9## ### ###",
        invoice_prefix="FAC",
    ),
    "de": Locale(
        first_names=("Lukas", "Anna", "Jonas", "Lena", "Felix", "Sophie", "Tobias", "Julia",
                     "Matthias", "Katrin", "Stefan", "Laura", "Jan", "Miriam"),
        last_names=("Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann",
                    "Wagner", "Koch", "Richter", "Neumann", "Wolf"),
        companies=(("Becker Maschinenbau GmbH", "becker-maschinenbau.de"),
                   ("Lindner Steuerberatung", "lindner-steuerberatung.de"),
                   ("Hotel Hafenblick", "hotel-hafenblick.de"),
                   ("Nordlicht Software GmbH", "nordlicht-software.de"),
                   ("Praxis am Marktplatz", "praxis-marktplatz.de"),
                   ("Elektro Vogel KG", "elektro-vogel.de")),
        shops=(("Buchhandlung Lesezeit", "lesezeit-buchhandlung.de"),
               ("Gartenwelt Krause", "gartenwelt-krause.de"),
               ("Kaffeerösterei Hansen", "kaffeeroesterei-hansen.de"),
               ("Radhaus Lehmann", "radhaus-lehmann.de")),
        cities=("Lagos", "Moskau", "Jakarta", "Minsk", "Manila", "Bukarest"),
        products=("Kabellose Kopfhörer X2", "Trailrunning-Schuhe", "Kaffeemühle Aroma",
                  "LED-Schreibtischlampe", "Rucksack Outdoor 30L"),
        event_titles=("Quartalsplanung", "Budgetbesprechung", "Projekt-Kickoff",
                      "Wöchentliche Abstimmung", "Design-Review"),
        locations=("Raum 4.12", "Hauptsitz, 2. OG", "Videokonferenz", "Konferenzraum"),
        doc_titles=("Bonusplan Q3", "Unterschriebener Vertrag", "Gehaltsanpassung",
                    "Zahlungsavis"),
        executive_titles=("Geschäftsführer", "Vorstandsvorsitzender", "Finanzvorstand"),
        service_senders=("Kundenservice", "Sicherheitsteam", "Kontoservice", "Buchhaltung"),
        personal_greetings=("Hallo {first},", "Guten Tag {full},", "Hi {first},"),
        generic_greetings=("Hallo,", "Sehr geehrte Kundin, sehr geehrter Kunde,",
                           "Guten Tag,"),
        signoffs=("Viele Grüße", "Mit freundlichen Grüßen", "Beste Grüße", "Danke und Gruß"),
        team_signature="Ihr {brand}-Team",
        mobile_signature="Von meinem iPhone gesendet",
        months=("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                "September", "Oktober", "November", "Dezember"),
        date_pattern="{day}. {month} {year}",
        clock_24h=True,
        currency=("", " €"),
        separators=(".", ","),
        phone_pattern="+49 30 ########",
        invoice_prefix="RE",
    ),
    "fr": Locale(
        first_names=("Julien", "Camille", "Nicolas", "Chloé", "Antoine", "Manon", "Thomas",
                     "Léa", "Mathieu", "Sophie", "Hugo", "Claire", "Élodie", "Pierre"),
        last_names=("Martin", "Bernard", "Dubois", "Durand", "Lefebvre", "Moreau", "Laurent",
                    "Girard", "Roux", "Fournier", "Mercier", "Blanc"),
        companies=(("Atelier Durand", "atelier-durand.fr"),
                   ("Cabinet Moreau Avocats", "moreau-avocats.fr"),
                   ("Transports Girard", "transports-girard.fr"),
                   ("Clinique Saint-Honoré", "clinique-sainthonore.fr"),
                   ("Menuiserie Fabre", "menuiserie-fabre.fr"),
                   ("Bureau d'études Caron", "be-caron.fr")),
        shops=(("La Maison du Thé", "maisonduthe-lyon.fr"),
               ("Vélos Lambert", "velos-lambert.fr"),
               ("Fromagerie Roussel", "fromagerie-roussel.fr"),
               ("Librairie des Quais", "librairiedesquais.fr")),
        cities=("Lagos", "Moscou", "Jakarta", "Abidjan", "Manille", "Bucarest"),
        products=("Casque sans fil X2", "Chaussures de trail", "Moulin à café",
                  "Lampe de bureau LED", "Sac à dos étanche 30L"),
        event_titles=("Planification trimestrielle", "Revue budgétaire",
                      "Lancement du projet", "Point hebdomadaire", "Revue de conception"),
        locations=("Salle 4.12", "Siège, 2e étage", "Visioconférence", "Salle du conseil"),
        doc_titles=("Plan de primes T3", "Contrat signé", "Révision salariale",
                    "Avis de virement"),
        executive_titles=("Directeur général", "PDG", "Directeur financier"),
        service_senders=("Service client", "Équipe sécurité",
                         "Service des comptes", "Service facturation"),
        personal_greetings=("Bonjour {first},", "Bonjour {full},"),
        generic_greetings=("Bonjour,", "Chère cliente, cher client,", "Madame, Monsieur,"),
        signoffs=("Cordialement,", "Bien à vous,", "Merci,", "Bonne journée,"),
        team_signature="L'équipe {brand}",
        mobile_signature="Envoyé de mon iPhone",
        months=("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                "septembre", "octobre", "novembre", "décembre"),
        date_pattern="{day} {month} {year}",
        clock_24h=True,
        currency=("", " €"),
        separators=("\u202f", ","),
        phone_pattern="+33 1 ## ## ## ##",
        invoice_prefix="FA",
    ),
    "pt": Locale(
        first_names=("João", "Ana", "Pedro", "Mariana", "Tiago", "Beatriz", "Rafael", "Inês",
                     "Lucas", "Camila", "Gabriel", "Juliana", "Rui", "Sofia"),
        last_names=("Silva", "Santos", "Oliveira", "Souza", "Pereira", "Costa", "Rodrigues",
                    "Almeida", "Ferreira", "Carvalho", "Gomes", "Ribeiro"),
        companies=(("Construtora Almeida", "construtoraalmeida.com.br"),
                   ("Contabilidade Ribeiro", "ribeirocontabil.com.br"),
                   ("Clínica Boa Vista", "clinicaboavista.pt"),
                   ("Tecelagem Nogueira", "tecelagemnogueira.com.br"),
                   ("Transportes Mendes", "transportesmendes.pt"),
                   ("Agência Farol Digital", "farol-digital.com.br")),
        shops=(("Loja Girassol", "lojagirassol.com.br"),
               ("Café Aurora", "cafeaurora.pt"),
               ("Livraria Atlântico", "livrariaatlantico.pt"),
               ("Ótica Horizonte", "oticahorizonte.com.br")),
        cities=("Lagos", "Moscou", "Jacarta", "Luanda", "Manila", "Bucareste"),
        products=("Fones sem fio X2", "Tênis de trilha", "Moedor de café",
                  "Luminária LED de mesa", "Mochila impermeável 30L"),
        event_titles=("Planejamento trimestral", "Revisão do orçamento",
                      "Kickoff do projeto", "Reunião semanal", "Revisão de design"),
        locations=("Sala 4.12", "Sede, 2º andar", "Videochamada", "Sala de reuniões"),
        doc_titles=("Plano de bônus T3", "Contrato assinado", "Revisão salarial",
                    "Comprovante de pagamento"),
        executive_titles=("Diretor-Presidente", "CEO", "Diretor Financeiro"),
        service_senders=("Atendimento ao Cliente", "Equipe de Segurança",
                         "Central de Contas", "Cobrança"),
        personal_greetings=("Olá, {first},", "Oi {first},", "Prezado(a) {full},"),
        generic_greetings=("Olá,", "Prezado cliente,", "Bom dia,"),
        signoffs=("Atenciosamente,", "Abraços,", "Obrigado,", "Att.,"),
        team_signature="Equipe {brand}",
        mobile_signature="Enviado do meu iPhone",
        months=("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
                "setembro", "outubro", "novembro", "dezembro"),
        date_pattern="{day} de {month} de {year}",
        clock_24h=True,
        currency=("R$ ", ""),
        separators=(".", ","),
        phone_pattern="+55 11 9####-####",
        invoice_prefix="NF",
    ),
}  # fmt: skip

BRAND_NAMES: dict[str, str] = {
    "paypal": "PayPal", "microsoft": "Microsoft", "apple": "Apple", "google": "Google",
    "amazon": "Amazon", "netflix": "Netflix", "dhl": "DHL", "fedex": "FedEx", "ups": "UPS",
    "usps": "USPS", "docusign": "DocuSign", "dropbox": "Dropbox", "linkedin": "LinkedIn",
    "facebook": "Facebook", "instagram": "Instagram", "chase": "Chase",
    "wellsfargo": "Wells Fargo", "bankofamerica": "Bank of America", "irs": "IRS",
    "coinbase": "Coinbase", "adobe": "Adobe", "zoom": "Zoom", "slack": "Slack",
    "github": "GitHub", "ebay": "eBay", "santander": "Santander", "sparkasse": "Sparkasse",
    "laposte": "La Poste", "correos": "Correos",
}  # fmt: skip
"""brand key (as in `brands.BRAND_DOMAINS`) -> how the brand writes its name."""

_COMMON_ACCOUNT_BRANDS = ("paypal", "microsoft", "apple", "google", "amazon", "netflix",
                          "dropbox", "docusign", "linkedin", "facebook", "instagram",
                          "coinbase", "adobe", "github", "ebay")  # fmt: skip
ACCOUNT_BRANDS: dict[str, tuple[str, ...]] = {
    "en": (*_COMMON_ACCOUNT_BRANDS, "chase", "wellsfargo", "bankofamerica"),
    "es": (*_COMMON_ACCOUNT_BRANDS, "santander"),
    "de": (*_COMMON_ACCOUNT_BRANDS, "sparkasse"),
    "fr": _COMMON_ACCOUNT_BRANDS,
    "pt": (*_COMMON_ACCOUNT_BRANDS, "santander"),
}
"""Brands whose accounts credential lures (and real password mails) are about."""

CARRIERS: dict[str, tuple[str, ...]] = {
    "en": ("dhl", "fedex", "ups", "usps"),
    "es": ("correos", "dhl", "ups"),
    "de": ("dhl", "ups"),
    "fr": ("laposte", "dhl", "ups"),
    "pt": ("dhl", "ups", "fedex"),
}
WORKPLACE_BRANDS = ("microsoft", "google", "slack", "zoom", "github", "dropbox")
SHOP_BRANDS = ("amazon", "apple", "ebay", "paypal", "netflix")
NEWSLETTER_BRANDS = ("linkedin", "github", "adobe", "netflix", "zoom", "slack", "dropbox")
GIFT_BRANDS = ("Apple", "Google Play", "Amazon", "Steam")
SECURITY_PRODUCTS = ("Norton 360 Deluxe", "McAfee Total Protection", "Geek Squad Protection",
                     "Avast Premium Security", "PC Shield Pro")  # fmt: skip
PROJECT_NAMES = ("Atlas", "Phoenix", "Horizon", "Nova", "Orion", "Meridian")
