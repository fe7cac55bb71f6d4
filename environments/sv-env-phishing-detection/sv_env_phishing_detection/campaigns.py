"""Template text for the synthetic email campaigns: a `Template` per scenario, language, variant.

Bodies use `str.format` placeholders filled by the generator (see `PLACEHOLDERS`); paragraphs
are separated by blank lines. Greetings, sign-offs and links are added by the generator, so a
body holds only the message itself. `content` lists the content indicators the wording carries
on purpose (`credential_request`, `urgency_language`, `payment_request`); legitimate templates
carry some too (an overdue-invoice reminder, "if this wasn't you, act now"), so wording alone
never decides the label.
"""

from __future__ import annotations

from dataclasses import dataclass

PHISHING_SCENARIOS: tuple[str, ...] = (
    "credential_harvest",
    "invoice_fraud",
    "delivery_notice",
    "ceo_fraud_bec",
    "mfa_reset_lure",
    "tech_support",
    "gift_card",
)
LEGITIMATE_SCENARIOS: tuple[str, ...] = (
    "receipt",
    "password_reset",
    "shipping",
    "newsletter",
    "calendar_invite",
    "internal_memo",
)
LANGUAGES: tuple[str, ...] = ("en", "es", "de", "fr", "pt")
PERSONAL_SCENARIOS = frozenset({"ceo_fraud_bec", "gift_card", "internal_memo", "calendar_invite"})
"""Scenarios written by a person (signed with a name) rather than by an organisation."""

PLACEHOLDERS = frozenset(
    {
        "brand", "city", "date", "time", "sender_name", "doc_title", "supplier", "invoice",
        "amount", "tracking", "order", "company", "product", "phone", "gift_brand", "count",
        "card_last4", "code", "carrier", "percent", "event_title", "location", "topic",
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

    @property
    def key(self) -> str:
        return f"{self.scenario}/{self.language}/v{self.variant}"

    @property
    def group(self) -> str:
        return f"synth:{self.scenario}:{self.language}:v{self.variant}"


# (subject, body, call-to-action text or "" for no link, content indicators)
_Text = tuple[str, str, str, tuple[str, ...]]

_PHISHING_TEXT: dict[str, dict[str, tuple[_Text, ...]]] = {
    "credential_harvest": {
        "en": (
            ("Unusual sign-in activity on your {brand} account",
             "We detected a sign-in attempt on your {brand} account from {city} on "
             "{date}.\n\nIf this was not you, verify your identity and confirm your password "
             "within 24 hours. Otherwise your account will be suspended.",
             "Verify account", (C, U)),
            ("Action required: your {brand} account has been limited",
             "We were unable to validate your billing information, so access to your {brand} "
             "account is temporarily limited.\n\nPlease log in and update your account details "
             "to restore full access. If we do not hear from you by {date}, your account will "
             "be permanently closed.",
             "Restore access", (C, U)),
            ("{sender_name} shared a document with you",
             "{sender_name} has shared \"{doc_title}\" with you via {brand}.\n\nTo view the "
             "document, sign in and enter your email password.",
             "Open document", (C,)),
        ),
        "es": (
            ("Actividad de inicio de sesión inusual en su cuenta de {brand}",
             "Hemos detectado un intento de inicio de sesión en su cuenta de {brand} desde "
             "{city} el {date}.\n\nSi no fue usted, verifique su identidad y confirme su "
             "contraseña en un plazo de 24 horas. De lo contrario, su cuenta será suspendida.",
             "Verificar cuenta", (C, U)),
            ("Acción requerida: su cuenta de {brand} ha sido limitada",
             "No hemos podido validar su información de facturación, por lo que el acceso a su "
             "cuenta de {brand} está limitado temporalmente.\n\nInicie sesión y actualice los "
             "datos de su cuenta para restablecer el acceso. Si no recibimos respuesta antes "
             "del {date}, su cuenta será cerrada definitivamente.",
             "Restablecer acceso", (C, U)),
            ("{sender_name} ha compartido un documento con usted",
             "{sender_name} ha compartido «{doc_title}» con usted a través de {brand}.\n\nPara "
             "ver el documento, inicie sesión e introduzca la contraseña de su correo.",
             "Abrir documento", (C,)),
        ),
        "de": (
            ("Ungewöhnliche Anmeldung bei Ihrem {brand}-Konto",
             "Wir haben am {date} einen Anmeldeversuch bei Ihrem {brand}-Konto aus {city} "
             "festgestellt.\n\nFalls Sie das nicht waren, bestätigen Sie bitte innerhalb von "
             "24 Stunden Ihre Identität und Ihr Passwort. Andernfalls wird Ihr Konto gesperrt.",
             "Konto bestätigen", (C, U)),
            ("Handlungsbedarf: Ihr {brand}-Konto wurde eingeschränkt",
             "Wir konnten Ihre Zahlungsinformationen nicht überprüfen. Der Zugriff auf Ihr "
             "{brand}-Konto ist daher vorübergehend eingeschränkt.\n\nBitte melden Sie sich an "
             "und aktualisieren Sie Ihre Kontodaten. Erhalten wir bis zum {date} keine "
             "Rückmeldung, wird Ihr Konto endgültig geschlossen.",
             "Zugang wiederherstellen", (C, U)),
            ("{sender_name} hat ein Dokument mit Ihnen geteilt",
             "{sender_name} hat „{doc_title}“ über {brand} mit Ihnen geteilt.\n\nUm das "
             "Dokument anzuzeigen, melden Sie sich an und geben Sie Ihr E-Mail-Passwort ein.",
             "Dokument öffnen", (C,)),
        ),
        "fr": (
            ("Activité de connexion inhabituelle sur votre compte {brand}",
             "Nous avons détecté une tentative de connexion à votre compte {brand} depuis "
             "{city} le {date}.\n\nSi ce n'était pas vous, vérifiez votre identité et "
             "confirmez votre mot de passe sous 24 heures. Sans action de votre part, votre "
             "compte sera suspendu.",
             "Vérifier le compte", (C, U)),
            ("Action requise : votre compte {brand} a été limité",
             "Nous n'avons pas pu valider vos informations de facturation ; l'accès à votre "
             "compte {brand} est donc temporairement limité.\n\nVeuillez vous connecter et "
             "mettre à jour les informations de votre compte pour rétablir l'accès. Sans "
             "réponse de votre part avant le {date}, votre compte sera fermé définitivement.",
             "Rétablir l'accès", (C, U)),
            ("{sender_name} a partagé un document avec vous",
             "{sender_name} a partagé « {doc_title} » avec vous via {brand}.\n\nPour consulter "
             "le document, connectez-vous et saisissez le mot de passe de votre messagerie.",
             "Ouvrir le document", (C,)),
        ),
        "pt": (
            ("Atividade de login incomum na sua conta {brand}",
             "Detectamos uma tentativa de acesso à sua conta {brand} a partir de {city} em "
             "{date}.\n\nSe não foi você, verifique sua identidade e confirme sua senha em até "
             "24 horas. Caso contrário, sua conta será suspensa.",
             "Verificar conta", (C, U)),
            ("Ação necessária: sua conta {brand} foi limitada",
             "Não conseguimos validar suas informações de cobrança, por isso o acesso à sua "
             "conta {brand} está temporariamente limitado.\n\nFaça login e atualize os dados "
             "da sua conta para restaurar o acesso. Se não recebermos resposta até {date}, sua "
             "conta será encerrada definitivamente.",
             "Restaurar acesso", (C, U)),
            ("{sender_name} compartilhou um documento com você",
             "{sender_name} compartilhou \"{doc_title}\" com você pelo {brand}.\n\nPara ver o "
             "documento, entre e digite a senha do seu e-mail.",
             "Abrir documento", (C,)),
        ),
    },
    "invoice_fraud": {
        "en": (
            ("Overdue invoice {invoice} - payment required",
             "Our records show that invoice {invoice} for {amount} is still unpaid.\n\nPlease "
             "pay the outstanding balance by {date} to avoid late fees and suspension of your "
             "service. The invoice is available below.",
             "View invoice", (P, U)),
            ("Updated bank details for future payments",
             "Please note that {supplier} has changed banks. From today, all payments must be "
             "sent to our new account; the details are in the attached letter.\n\nPlease treat "
             "this as urgent: update your records and wire the pending amount of {amount} for "
             "invoice {invoice} to the new account today.",
             "", (P, U)),
            ("Invoice {invoice} from {supplier}",
             "Please find attached invoice {invoice} for {amount}, due on {date}.\n\nPlease "
             "pay the amount by bank transfer to the account shown on the invoice.",
             "Open invoice", (P,)),
        ),
        "es": (
            ("Factura vencida {invoice}: pago requerido",
             "Según nuestros registros, la factura {invoice} por {amount} sigue pendiente de "
             "pago.\n\nLe rogamos que pague el saldo pendiente antes del {date} para evitar "
             "recargos y la suspensión del servicio. La factura está disponible a continuación.",
             "Ver factura", (P, U)),
            ("Nuevos datos bancarios para futuros pagos",
             "Le informamos de que {supplier} ha cambiado de banco. A partir de hoy, todos los "
             "pagos deben realizarse a nuestra nueva cuenta; encontrará los datos en la carta "
             "adjunta.\n\nEs urgente: actualice sus registros y transfiera hoy mismo el "
             "importe pendiente de {amount} de la factura {invoice} a la nueva cuenta.",
             "", (P, U)),
            ("Factura {invoice} de {supplier}",
             "Adjuntamos la factura {invoice} por importe de {amount}, con vencimiento el "
             "{date}.\n\nLe rogamos realice el pago mediante transferencia bancaria a la "
             "cuenta indicada en la factura.",
             "Abrir factura", (P,)),
        ),
        "de": (
            ("Überfällige Rechnung {invoice} – Zahlung erforderlich",
             "Laut unseren Unterlagen ist die Rechnung {invoice} über {amount} noch nicht "
             "bezahlt.\n\nBitte bezahlen Sie den offenen Betrag bis zum {date}, um "
             "Mahngebühren und eine Sperrung Ihres Dienstes zu vermeiden. Die Rechnung finden "
             "Sie unten.",
             "Rechnung ansehen", (P, U)),
            ("Neue Bankverbindung für zukünftige Zahlungen",
             "Bitte beachten Sie, dass {supplier} die Bank gewechselt hat. Ab sofort sind alle "
             "Zahlungen auf unser neues Konto zu überweisen; die Daten finden Sie im "
             "beigefügten Schreiben.\n\nBitte aktualisieren Sie umgehend Ihre Stammdaten und "
             "überweisen Sie den offenen Betrag von {amount} für Rechnung {invoice} noch heute "
             "auf das neue Konto.",
             "", (P, U)),
            ("Rechnung {invoice} von {supplier}",
             "Anbei erhalten Sie die Rechnung {invoice} über {amount}, fällig am "
             "{date}.\n\nBitte überweisen Sie den Betrag auf das in der Rechnung angegebene "
             "Konto.",
             "Rechnung öffnen", (P,)),
        ),
        "fr": (
            ("Facture impayée {invoice} – paiement requis",
             "Selon nos registres, la facture {invoice} d'un montant de {amount} reste "
             "impayée.\n\nMerci de payer le solde avant le {date} afin d'éviter des pénalités "
             "de retard et la suspension de votre service. La facture est disponible "
             "ci-dessous.",
             "Voir la facture", (P, U)),
            ("Nouvelles coordonnées bancaires pour vos paiements",
             "Nous vous informons que {supplier} a changé de banque. Dès aujourd'hui, tous les "
             "paiements doivent être effectués sur notre nouveau compte ; vous trouverez le "
             "RIB dans le courrier joint.\n\nMerci de mettre à jour immédiatement vos "
             "coordonnées et de virer dès aujourd'hui le montant de {amount} correspondant à "
             "la facture {invoice} sur le nouveau compte.",
             "", (P, U)),
            ("Facture {invoice} de {supplier}",
             "Veuillez trouver ci-joint la facture {invoice} d'un montant de {amount}, à "
             "échéance du {date}.\n\nMerci d'effectuer le paiement par virement bancaire sur "
             "le compte indiqué sur la facture.",
             "Ouvrir la facture", (P,)),
        ),
        "pt": (
            ("Fatura vencida {invoice}: pagamento necessário",
             "Nossos registros mostram que a fatura {invoice} no valor de {amount} ainda não "
             "foi paga.\n\nPor favor, pague o saldo em aberto até {date} para evitar multas e "
             "a suspensão do serviço. A fatura está disponível abaixo.",
             "Ver fatura", (P, U)),
            ("Novos dados bancários para pagamentos futuros",
             "Informamos que a {supplier} mudou de banco. A partir de hoje, todos os "
             "pagamentos devem ser feitos para a nossa nova conta; os dados estão na carta em "
             "anexo.\n\nAtualize imediatamente seus cadastros e transfira hoje mesmo o valor "
             "pendente de {amount} referente à fatura {invoice} para a nova conta.",
             "", (P, U)),
            ("Fatura {invoice} da {supplier}",
             "Segue em anexo a fatura {invoice} no valor de {amount}, com vencimento em "
             "{date}.\n\nPor favor, efetue o pagamento por transferência bancária para a conta "
             "indicada na fatura.",
             "Abrir fatura", (P,)),
        ),
    },
    "delivery_notice": {
        "en": (
            ("Your parcel {tracking} is on hold",
             "Your {brand} parcel {tracking} could not be delivered because of an unpaid "
             "customs fee of {amount}.\n\nPlease pay the fee within 48 hours to schedule a new "
             "delivery. Unclaimed parcels are returned to the sender.",
             "Pay and reschedule", (P, U)),
            ("Delivery attempt failed - action required",
             "Our courier was unable to deliver your package {tracking} on {date} because the "
             "address was incomplete.\n\nConfirm your address immediately and pay the fee of "
             "{amount} for redelivery to receive your package.",
             "Confirm address", (P, U)),
            ("{brand}: a package is waiting for you",
             "A package with tracking number {tracking} is waiting at our depot.\n\nTo release "
             "it, please confirm your details and pay the fee of {amount}.",
             "Track package", (P,)),
        ),
        "es": (
            ("Su paquete {tracking} está retenido",
             "Su paquete de {brand} {tracking} no se ha podido entregar porque tiene "
             "pendientes unas tasas de aduana de {amount}.\n\nPague el importe dentro de 48 "
             "horas para programar una nueva entrega. Los paquetes no reclamados se devuelven "
             "al remitente.",
             "Pagar y reprogramar", (P, U)),
            ("Intento de entrega fallido: acción requerida",
             "Nuestro repartidor no pudo entregar su paquete {tracking} el {date} porque la "
             "dirección estaba incompleta.\n\nConfirme su dirección de inmediato y pague el "
             "importe de {amount} del reenvío para recibir su paquete.",
             "Confirmar dirección", (P, U)),
            ("{brand}: tiene un paquete esperando",
             "Un paquete con número de seguimiento {tracking} le espera en nuestro centro de "
             "distribución.\n\nPara liberarlo, confirme sus datos y pague el importe de "
             "{amount} de los gastos de envío.",
             "Seguir envío", (P,)),
        ),
        "de": (
            ("Ihre Sendung {tracking} wird zurückgehalten",
             "Ihre {brand}-Sendung {tracking} konnte wegen einer offenen Zollgebühr von "
             "{amount} nicht zugestellt werden.\n\nBitte bezahlen Sie die Gebühr innerhalb von "
             "48 Stunden, um eine neue Zustellung zu vereinbaren. Nicht abgeholte Sendungen "
             "gehen an den Absender zurück.",
             "Bezahlen und neu zustellen", (P, U)),
            ("Zustellversuch fehlgeschlagen – Handlung erforderlich",
             "Unser Zusteller konnte Ihr Paket {tracking} am {date} nicht zustellen, da die "
             "Adresse unvollständig war.\n\nBestätigen Sie umgehend Ihre Adresse und bezahlen "
             "Sie die Gebühr für die erneute Zustellung von {amount}, um Ihr Paket zu erhalten.",
             "Adresse bestätigen", (P, U)),
            ("{brand}: Ein Paket wartet auf Sie",
             "Ein Paket mit der Sendungsnummer {tracking} liegt in unserem Depot für Sie "
             "bereit.\n\nBitte bestätigen Sie zur Freigabe Ihre Daten und bezahlen Sie die "
             "Versandkosten von {amount}.",
             "Sendung verfolgen", (P,)),
        ),
        "fr": (
            ("Votre colis {tracking} est en attente",
             "Votre colis {brand} {tracking} n'a pas pu être livré en raison de frais de "
             "douane impayés de {amount}.\n\nVeuillez payer le montant sous 48 heures pour "
             "programmer une nouvelle livraison. Les colis non réclamés sont renvoyés à "
             "l'expéditeur.",
             "Payer et reprogrammer", (P, U)),
            ("Échec de la livraison – action requise",
             "Notre livreur n'a pas pu livrer votre colis {tracking} le {date} car l'adresse "
             "était incomplète.\n\nConfirmez immédiatement votre adresse et payez le montant "
             "de {amount} pour la nouvelle livraison.",
             "Confirmer l'adresse", (P, U)),
            ("{brand} : un colis vous attend",
             "Un colis portant le numéro de suivi {tracking} vous attend dans notre "
             "dépôt.\n\nPour le débloquer, veuillez confirmer vos informations et payer le "
             "montant de {amount} des frais d'expédition.",
             "Suivre le colis", (P,)),
        ),
        "pt": (
            ("Sua encomenda {tracking} está retida",
             "Sua encomenda {brand} {tracking} não pôde ser entregue devido a uma taxa "
             "alfandegária de {amount} não paga.\n\nPague o valor dentro de 48 horas para "
             "agendar uma nova entrega. Encomendas não reclamadas são devolvidas ao remetente.",
             "Pagar e reagendar", (P, U)),
            ("Tentativa de entrega falhou: ação necessária",
             "Nosso entregador não conseguiu entregar seu pacote {tracking} em {date} porque o "
             "endereço estava incompleto.\n\nConfirme imediatamente seu endereço e pague o "
             "valor de {amount} do reenvio para receber seu pacote.",
             "Confirmar endereço", (P, U)),
            ("{brand}: há um pacote esperando por você",
             "Um pacote com o código de rastreamento {tracking} está aguardando em nosso "
             "centro de distribuição.\n\nPara liberá-lo, confirme seus dados e pague o valor "
             "de {amount} do frete.",
             "Rastrear pacote", (P,)),
        ),
    },
    "ceo_fraud_bec": {
        "en": (
            ("Quick request",
             "Are you at your desk? I need you to make a wire transfer of {amount} to a new "
             "supplier today. It is urgent and confidential, so please don't discuss it with "
             "anyone else until the deal is announced.\n\nReply to this email and I will send "
             "you the bank details.",
             "", (P, U)),
            ("Urgent payment - {supplier}",
             "I'm in meetings all day and can't take calls. We need to pay {supplier} {amount} "
             "before the end of the day or we lose the contract.\n\nCan you send the payment "
             "now? Let me know once it's done.",
             "", (P, U)),
            ("Are you available?",
             "I need a favour. Can you let me know when you're free? I have a payment that "
             "needs to go out this afternoon and I'd like you to make the transfer.",
             "", (P,)),
        ),
        "es": (
            ("Petición rápida",
             "¿Estás en tu mesa? Hay que hacer una transferencia de {amount} a un nuevo "
             "proveedor hoy mismo y necesito que te encargues tú. Es urgente y confidencial, "
             "así que no lo comentes con nadie hasta que se anuncie la operación.\n\nResponde "
             "a este correo y te envío los datos bancarios.",
             "", (P, U)),
            ("Pago urgente - {supplier}",
             "Estoy en reuniones todo el día y no puedo atender llamadas. Tenemos que pagar "
             "{amount} a {supplier} antes de que acabe el día o perderemos el "
             "contrato.\n\n¿Puedes hacer la transferencia ahora? Avísame cuando esté hecha.",
             "", (P, U)),
            ("¿Estás disponible?",
             "Necesito un favor. ¿Me avisas cuando estés libre? Hay un pago que tiene que "
             "salir esta tarde y quiero que te encargues de hacer la transferencia.",
             "", (P,)),
        ),
        "de": (
            ("Kurze Bitte",
             "Sind Sie am Platz? Bitte überweisen Sie heute {amount} an einen neuen "
             "Lieferanten. Die Sache ist dringend und vertraulich, bitte sprechen Sie mit "
             "niemandem darüber, bis der Abschluss bekannt gegeben wird.\n\nAntworten Sie auf "
             "diese E-Mail, dann schicke ich Ihnen die Bankdaten.",
             "", (P, U)),
            ("Dringende Zahlung – {supplier}",
             "Ich bin den ganzen Tag in Meetings und kann nicht telefonieren. Wir müssen "
             "{supplier} heute noch {amount} zahlen, sonst verlieren wir den Auftrag. Es ist "
             "dringend.\n\nKönnen Sie jetzt die Überweisung veranlassen? Geben Sie mir "
             "Bescheid, wenn sie erledigt ist.",
             "", (P, U)),
            ("Sind Sie erreichbar?",
             "Ich bräuchte einen Gefallen. Sagen Sie mir Bescheid, wann Sie Zeit haben? Heute "
             "Nachmittag muss eine Zahlung raus, und ich möchte, dass Sie die Zahlung "
             "veranlassen.",
             "", (P,)),
        ),
        "fr": (
            ("Demande rapide",
             "Êtes-vous à votre bureau ? Il faut effectuer un virement de {amount} à un "
             "nouveau fournisseur aujourd'hui, et j'ai besoin de vous. C'est urgent et "
             "confidentiel, merci de n'en parler à personne avant l'annonce de "
             "l'opération.\n\nRépondez à ce message et je vous enverrai les coordonnées "
             "bancaires.",
             "", (P, U)),
            ("Paiement urgent – {supplier}",
             "Je suis en réunion toute la journée et je ne peux pas prendre d'appels. Nous "
             "devons payer {amount} à {supplier} avant ce soir, sinon nous perdons le "
             "contrat.\n\nPouvez-vous effectuer le virement maintenant ? Prévenez-moi dès que "
             "c'est fait.",
             "", (P, U)),
            ("Êtes-vous disponible ?",
             "J'ai un service à vous demander. Pouvez-vous me dire quand vous êtes libre ? Un "
             "paiement doit partir cet après-midi et j'aimerais que vous vous chargiez "
             "d'effectuer le virement.",
             "", (P,)),
        ),
        "pt": (
            ("Pedido rápido",
             "Você está na sua mesa? Preciso que você faça uma transferência de {amount} para "
             "um novo fornecedor hoje. É urgente e confidencial, então não comente com ninguém "
             "até o anúncio do negócio.\n\nResponda este e-mail e eu envio os dados bancários.",
             "", (P, U)),
            ("Pagamento urgente - {supplier}",
             "Estou em reuniões o dia todo e não posso atender ligações. Precisamos pagar "
             "{amount} à {supplier} até o fim do dia ou perderemos o contrato.\n\nVocê pode "
             "fazer a transferência agora? Me avise quando estiver feito.",
             "", (P, U)),
            ("Está disponível?",
             "Preciso de um favor. Pode me avisar quando estiver livre? Tenho um pagamento que "
             "precisa sair hoje à tarde e gostaria que você pudesse fazer a transferência.",
             "", (P,)),
        ),
    },
    "mfa_reset_lure": {
        "en": (
            ("Your multi-factor authentication expires today",
             "The multi-factor authentication (MFA) method registered for your {company} "
             "account expires today.\n\nRe-register your authenticator app now to avoid losing "
             "access to email and Teams. You will need to confirm your current password.",
             "Re-register MFA", (C, U)),
            ("Security update: confirm your 2FA settings",
             "As part of a {brand} security update, all users must confirm their two-step "
             "verification settings by {date}.\n\nSign in and enter the security code sent to "
             "your phone. Otherwise your account will be suspended.",
             "Confirm settings", (C, U)),
            ("New sign-in method required",
             "Your IT department has enabled a new sign-in method for {company}.\n\nScan the "
             "QR code or use the link below and confirm your password to set it up. Otherwise "
             "your account will be locked.",
             "Set up sign-in", (C, U)),
        ),
        "es": (
            ("Su autenticación multifactor caduca hoy",
             "El método de autenticación multifactor (MFA) registrado para su cuenta de "
             "{company} caduca hoy.\n\nVuelva a registrar su aplicación de autenticación ahora "
             "para no perder el acceso al correo y a Teams. Deberá confirmar su contraseña "
             "actual.",
             "Registrar MFA de nuevo", (C, U)),
            ("Actualización de seguridad: confirme su configuración de 2FA",
             "Como parte de una actualización de seguridad de {brand}, todos los usuarios "
             "deben confirmar su verificación en dos pasos antes del {date}.\n\nInicie sesión "
             "e introduzca el código de seguridad enviado a su teléfono. De lo contrario, su "
             "cuenta será suspendida.",
             "Confirmar configuración", (C, U)),
            ("Se requiere un nuevo método de inicio de sesión",
             "Su departamento de TI ha activado un nuevo método de inicio de sesión para "
             "{company}.\n\nEscanee el código QR o utilice el enlace de abajo y confirme su "
             "contraseña para configurarlo. De lo contrario, su cuenta será bloqueada.",
             "Configurar acceso", (C, U)),
        ),
        "de": (
            ("Ihre Multi-Faktor-Authentifizierung läuft heute ab",
             "Die für Ihr {company}-Konto registrierte Methode der "
             "Multi-Faktor-Authentifizierung (MFA) läuft heute ab.\n\nRegistrieren Sie Ihre "
             "Authenticator-App jetzt neu, um den Zugriff auf E-Mail und Teams nicht zu "
             "verlieren. Dazu müssen Sie Ihr aktuelles Passwort bestätigen.",
             "MFA neu registrieren", (C, U)),
            ("Sicherheitsupdate: Bestätigen Sie Ihre 2FA-Einstellungen",
             "Im Rahmen eines {brand}-Sicherheitsupdates müssen alle Nutzer ihre Einstellungen "
             "zur Zwei-Faktor-Authentifizierung bis zum {date} bestätigen.\n\nMelden Sie sich "
             "an und geben Sie den an Ihr Telefon gesendeten Sicherheitscode ein. Andernfalls "
             "wird Ihr Konto gesperrt.",
             "Einstellungen bestätigen", (C, U)),
            ("Neue Anmeldemethode erforderlich",
             "Ihre IT-Abteilung hat für {company} eine neue Anmeldemethode "
             "aktiviert.\n\nScannen Sie den QR-Code oder bestätigen Sie über den folgenden "
             "Link Ihr Passwort, um sie einzurichten. Andernfalls wird Ihr Konto gesperrt.",
             "Anmeldung einrichten", (C, U)),
        ),
        "fr": (
            ("Votre authentification multifacteur expire aujourd'hui",
             "La méthode d'authentification multifacteur (MFA) enregistrée pour votre compte "
             "{company} expire aujourd'hui.\n\nEnregistrez à nouveau votre application "
             "d'authentification dès maintenant pour ne pas perdre l'accès à la messagerie et "
             "à Teams. Vous devrez confirmer votre mot de passe actuel.",
             "Réenregistrer la MFA", (C, U)),
            ("Mise à jour de sécurité : confirmez vos paramètres 2FA",
             "Dans le cadre d'une mise à jour de sécurité {brand}, tous les utilisateurs "
             "doivent confirmer leurs paramètres de validation en deux étapes avant le "
             "{date}.\n\nConnectez-vous et saisissez le code de sécurité envoyé sur votre "
             "téléphone. Sans cela, votre compte sera suspendu.",
             "Confirmer les paramètres", (C, U)),
            ("Nouvelle méthode de connexion requise",
             "Votre service informatique a activé une nouvelle méthode de connexion pour "
             "{company}.\n\nScannez le code QR ou utilisez le lien ci-dessous et confirmez "
             "votre mot de passe pour la configurer. Sinon, votre compte sera bloqué.",
             "Configurer la connexion", (C, U)),
        ),
        "pt": (
            ("Sua autenticação multifator expira hoje",
             "O método de autenticação multifator (MFA) registrado para sua conta {company} "
             "expira hoje.\n\nRegistre novamente seu aplicativo autenticador agora para não "
             "perder o acesso ao e-mail e ao Teams. Você precisará confirmar sua senha atual.",
             "Registrar MFA novamente", (C, U)),
            ("Atualização de segurança: confirme suas configurações de 2FA",
             "Como parte de uma atualização de segurança da {brand}, todos os usuários devem "
             "confirmar a verificação em duas etapas até {date}.\n\nFaça login e digite o "
             "código de segurança enviado ao seu telefone. Caso contrário, sua conta será "
             "suspensa.",
             "Confirmar configurações", (C, U)),
            ("Novo método de login obrigatório",
             "Seu departamento de TI ativou um novo método de login para a "
             "{company}.\n\nEscaneie o código QR ou use o link abaixo e confirme sua senha "
             "para configurá-lo. Caso contrário, sua conta será bloqueada.",
             "Configurar login", (C, U)),
        ),
    },
    "tech_support": {
        "en": (
            ("Your {product} subscription has been renewed",
             "Thank you for renewing {product}. Your account has been charged {amount} for a "
             "3-year plan (order {order}).\n\nIf you did not authorize this charge, call our "
             "billing department at {phone} within 24 hours to cancel and get a refund.",
             "", (U,)),
            ("Virus alert: your computer is infected",
             "Our scan found 5 viruses on your computer. Your personal data and banking "
             "details are at risk.\n\nPlease call immediately: {brand} support at {phone}, so "
             "a technician can remove the threats, or download the cleaning tool below.",
             "Download cleaner", (U,)),
            ("Refund of {amount} pending",
             "We are discontinuing our {product} service and you are entitled to a refund of "
             "{amount}.\n\nTo receive the refund, contact our support team at {phone}. A "
             "technician will connect to your computer to process the refund.",
             "", ()),
        ),
        "es": (
            ("Su suscripción a {product} se ha renovado",
             "Gracias por renovar {product}. Hemos cargado {amount} en su cuenta por un plan "
             "de 3 años (pedido {order}).\n\nSi no autorizó este cargo, llame a nuestro "
             "departamento de facturación al {phone} dentro de 24 horas para cancelarlo y "
             "recibir un reembolso.",
             "", (U,)),
            ("Alerta de virus: su ordenador está infectado",
             "Nuestro análisis ha encontrado 5 virus en su ordenador. Sus datos personales y "
             "bancarios están en riesgo.\n\nLlame inmediatamente al soporte de {brand} al "
             "{phone} para que un técnico elimine las amenazas, o descargue la herramienta de "
             "limpieza.",
             "Descargar limpiador", (U,)),
            ("Reembolso de {amount} pendiente",
             "Vamos a dejar de ofrecer el servicio {product} y usted tiene derecho a un "
             "reembolso de {amount}.\n\nPara recibirlo, contacte con nuestro equipo de soporte "
             "en el {phone}. Un técnico se conectará a su ordenador para tramitar el reembolso.",
             "", ()),
        ),
        "de": (
            ("Ihr {product}-Abonnement wurde verlängert",
             "Vielen Dank für die Verlängerung von {product}. Ihrem Konto wurden {amount} für "
             "einen 3-Jahres-Tarif belastet (Bestellung {order}).\n\nFalls Sie diese Abbuchung "
             "nicht veranlasst haben, rufen Sie innerhalb von 24 Stunden unsere "
             "Abrechnungsabteilung unter {phone} an, um zu stornieren und eine Erstattung zu "
             "erhalten.",
             "", (U,)),
            ("Virenwarnung: Ihr Computer ist infiziert",
             "Unser Scan hat 5 Viren auf Ihrem Computer gefunden. Ihre persönlichen Daten und "
             "Bankdaten sind in Gefahr.\n\nRufen Sie umgehend den {brand}-Support unter "
             "{phone} an, damit ein Techniker die Bedrohungen entfernt, oder laden Sie das "
             "Reinigungstool herunter.",
             "Reinigungstool herunterladen", (U,)),
            ("Erstattung von {amount} ausstehend",
             "Wir stellen den Dienst {product} ein, und Ihnen steht eine Erstattung von "
             "{amount} zu.\n\nUm die Erstattung zu erhalten, wenden Sie sich unter {phone} an "
             "unser Support-Team. Ein Techniker verbindet sich mit Ihrem Computer, um die "
             "Erstattung abzuwickeln.",
             "", ()),
        ),
        "fr": (
            ("Votre abonnement {product} a été renouvelé",
             "Merci d'avoir renouvelé {product}. Votre compte a été débité de {amount} pour "
             "une formule de 3 ans (commande {order}).\n\nSi vous n'avez pas autorisé ce "
             "prélèvement, appelez notre service facturation au {phone} sous 24 heures pour "
             "l'annuler et être remboursé.",
             "", (U,)),
            ("Alerte virus : votre ordinateur est infecté",
             "Notre analyse a détecté 5 virus sur votre ordinateur. Vos données personnelles "
             "et bancaires sont en danger.\n\nAppelez immédiatement le support {brand} au "
             "{phone} pour qu'un technicien supprime les menaces, ou téléchargez l'outil de "
             "nettoyage.",
             "Télécharger l'outil", (U,)),
            ("Remboursement de {amount} en attente",
             "Nous cessons notre service {product} et vous avez droit à un remboursement de "
             "{amount}.\n\nPour le recevoir, contactez notre équipe d'assistance au {phone}. "
             "Un technicien se connectera à votre ordinateur pour traiter le remboursement.",
             "", ()),
        ),
        "pt": (
            ("Sua assinatura {product} foi renovada",
             "Obrigado por renovar o {product}. Sua conta foi cobrada em {amount} por um plano "
             "de 3 anos (pedido {order}).\n\nSe você não autorizou esta cobrança, ligue para o "
             "nosso departamento de cobrança no {phone} dentro de 24 horas para cancelar e "
             "receber o reembolso.",
             "", (U,)),
            ("Alerta de vírus: seu computador está infectado",
             "Nossa verificação encontrou 5 vírus no seu computador. Seus dados pessoais e "
             "bancários estão em risco.\n\nLigue imediatamente para o suporte {brand} no "
             "{phone} para que um técnico remova as ameaças, ou baixe a ferramenta de limpeza.",
             "Baixar ferramenta", (U,)),
            ("Reembolso de {amount} pendente",
             "Estamos descontinuando o serviço {product} e você tem direito a um reembolso de "
             "{amount}.\n\nPara recebê-lo, entre em contato com nossa equipe de suporte pelo "
             "{phone}. Um técnico se conectará ao seu computador para processar o reembolso.",
             "", ()),
        ),
    },
    "gift_card": {
        "en": (
            ("Need a favour",
             "Can you help me get some {gift_brand} gift cards for a client today? I need "
             "{count} cards of {amount} each. I'm stuck in a meeting and can't do it myself. "
             "It's urgent.\n\nScratch off the back and send me photos of the codes as soon as "
             "you have them. I'll reimburse you later.",
             "", (P, U)),
            ("Staff appreciation surprise",
             "I want to surprise the team with gift cards this week, but keep it between us. "
             "Please buy {count} {gift_brand} gift cards worth {amount} each.\n\nEmail me the "
             "card numbers and PINs once you have them.",
             "", (P,)),
            ("Are you around?",
             "Are you around? I need you to run a quick errand for me - buy some {gift_brand} "
             "gift cards at the nearest store. It's urgent, I'll explain later.",
             "", (P, U)),
        ),
        "es": (
            ("Necesito un favor",
             "¿Puedes ayudarme a conseguir hoy unas tarjetas de regalo de {gift_brand} para un "
             "cliente? Necesito {count} tarjetas de {amount} cada una. Estoy atrapado en una "
             "reunión y no puedo hacerlo yo. Es urgente.\n\nRasca el reverso y mándame fotos "
             "de los códigos en cuanto los tengas. Te lo reembolso después.",
             "", (P, U)),
            ("Sorpresa para el equipo",
             "Quiero sorprender al equipo con tarjetas de regalo esta semana, pero que quede "
             "entre nosotros. ¿Puedes comprar {count} tarjetas de regalo de {gift_brand} de "
             "{amount} cada una?\n\nEnvíame por correo los números y los PIN de las tarjetas "
             "cuando los tengas.",
             "", (P,)),
            ("¿Estás por ahí?",
             "¿Estás por ahí? Necesito que me hagas un recado rápido: ¿puedes comprar unas "
             "tarjetas de regalo de {gift_brand} en la tienda más cercana? Es urgente, luego "
             "te explico.",
             "", (P, U)),
        ),
        "de": (
            ("Kleiner Gefallen",
             "Können Sie für einen Kunden heute Geschenkkarten besorgen? Ich brauche {count} "
             "{gift_brand}-Karten zu je {amount}. Ich sitze in einem Meeting fest und kann es "
             "nicht selbst erledigen. Es ist dringend.\n\nRubbeln Sie die Rückseite frei und "
             "schicken Sie mir Fotos der Codes, sobald Sie sie haben. Ich erstatte Ihnen das "
             "Geld später.",
             "", (P, U)),
            ("Überraschung für das Team",
             "Ich möchte das Team diese Woche mit Geschenkkarten überraschen, aber bitte "
             "behalten Sie es für sich. Bitte kaufen Sie {count} Geschenkkarten von "
             "{gift_brand} zu je {amount}.\n\nSchicken Sie mir die Kartennummern und PINs per "
             "E-Mail, sobald Sie sie haben.",
             "", (P,)),
            ("Sind Sie da?",
             "Sind Sie da? Ich brauche Sie für eine schnelle Besorgung – bitte kaufen Sie "
             "schnell Geschenkkarten von {gift_brand} im nächsten Geschäft. Es ist dringend, "
             "ich erkläre es später.",
             "", (P, U)),
        ),
        "fr": (
            ("Un petit service",
             "Pouvez-vous m'aider à acheter des cartes cadeaux {gift_brand} aujourd'hui pour "
             "un client ? Il me faut {count} cartes de {amount} chacune. Je suis bloqué en "
             "réunion et je ne peux pas m'en occuper. C'est urgent.\n\nGrattez le dos et "
             "envoyez-moi des photos des codes dès que vous les avez. Je vous rembourserai "
             "plus tard.",
             "", (P, U)),
            ("Surprise pour l'équipe",
             "Je veux faire une surprise à l'équipe avec des cartes cadeaux cette semaine, "
             "mais gardez ça entre nous. Merci d'acheter {count} cartes cadeaux {gift_brand} "
             "de {amount} chacune.\n\nEnvoyez-moi par e-mail les numéros et les codes PIN des "
             "cartes dès que vous les avez.",
             "", (P,)),
            ("Vous êtes là ?",
             "Vous êtes là ? J'ai besoin que vous fassiez une course rapide pour moi : achetez "
             "des cartes cadeaux {gift_brand} au magasin le plus proche. C'est urgent, je vous "
             "expliquerai plus tard.",
             "", (P, U)),
        ),
        "pt": (
            ("Preciso de um favor",
             "Você pode me ajudar a comprar alguns cartões de presente {gift_brand} hoje para "
             "um cliente? Preciso de {count} cartões de {amount} cada. Estou preso em uma "
             "reunião e não consigo fazer isso. É urgente.\n\nRaspe o verso e me envie fotos "
             "dos códigos assim que os tiver. Eu te reembolso depois.",
             "", (P, U)),
            ("Surpresa para a equipe",
             "Quero surpreender a equipe com cartões de presente esta semana, mas isso fica "
             "entre nós. Compre {count} cartões de presente {gift_brand} de {amount} "
             "cada.\n\nMe envie por e-mail os números e os PINs dos cartões assim que os tiver.",
             "", (P,)),
            ("Está por aí?",
             "Está por aí? Preciso que você faça uma tarefa rápida para mim: compre alguns "
             "cartões de presente {gift_brand} na loja mais próxima. É urgente, depois eu "
             "explico.",
             "", (P, U)),
        ),
    },
}  # fmt: skip

_LEGITIMATE_TEXT: dict[str, dict[str, tuple[_Text, ...]]] = {
    "receipt": {
        "en": (
            ("Your order {order} is confirmed",
             "Thanks for shopping with {brand}! We've received your order {order} and your "
             "payment of {amount} was successful.\n\nItem: {product}\nPaid with card ending in "
             "{card_last4}\n\nYou can view your order details at any time in your account.",
             "View order", ()),
            ("Receipt for your payment to {brand}",
             "This is a receipt for your payment of {amount} on {date}. No further action is "
             "required.\n\nReference: {order}\nPayment method: card ending in {card_last4}",
             "View receipt", ()),
            ("Invoice {invoice} from {brand} - due {date}",
             "Your invoice {invoice} for {amount} is now available. Payment is due by {date}; "
             "please pay the invoice by bank transfer or card using the link below.\n\nIf you "
             "have already paid, please ignore this message.",
             "Pay invoice", (P, U)),
        ),
        "es": (
            ("Tu pedido {order} está confirmado",
             "¡Gracias por comprar en {brand}! Hemos recibido tu pedido {order} y el pago de "
             "{amount} se ha realizado correctamente.\n\nArtículo: {product}\nPagado con la "
             "tarjeta terminada en {card_last4}\n\nPuedes consultar los detalles del pedido en "
             "tu cuenta en cualquier momento.",
             "Ver pedido", ()),
            ("Recibo de tu pago a {brand}",
             "Este es el recibo de tu pago de {amount} del {date}. No es necesario que hagas "
             "nada más.\n\nReferencia: {order}\nMétodo de pago: tarjeta terminada en "
             "{card_last4}",
             "Ver recibo", ()),
            ("Factura {invoice} de {brand}: vence el {date}",
             "Tu factura {invoice} por {amount} ya está disponible. El pago vence el {date}; "
             "puedes pagar la factura por transferencia o con tarjeta mediante el enlace de "
             "abajo.\n\nSi ya has pagado, ignora este mensaje.",
             "Pagar factura", (P, U)),
        ),
        "de": (
            ("Ihre Bestellung {order} ist bestätigt",
             "Vielen Dank für Ihren Einkauf bei {brand}! Wir haben Ihre Bestellung {order} "
             "erhalten, und Ihre Zahlung über {amount} war erfolgreich.\n\nArtikel: "
             "{product}\nBezahlt mit Karte mit Endziffern {card_last4}\n\nDie Bestelldetails "
             "können Sie jederzeit in Ihrem Kundenkonto einsehen.",
             "Bestellung ansehen", ()),
            ("Beleg für Ihre Zahlung an {brand}",
             "Dies ist der Beleg für Ihre Zahlung über {amount} vom {date}. Sie müssen nichts "
             "weiter tun.\n\nReferenz: {order}\nZahlungsart: Karte mit Endziffern {card_last4}",
             "Beleg ansehen", ()),
            ("Rechnung {invoice} von {brand} – fällig am {date}",
             "Ihre Rechnung {invoice} über {amount} ist jetzt verfügbar. Der Betrag ist bis "
             "zum {date} fällig; bitte bezahlen Sie per Überweisung oder Karte über den "
             "folgenden Link.\n\nFalls Sie bereits bezahlt haben, betrachten Sie diese "
             "Nachricht bitte als gegenstandslos.",
             "Rechnung bezahlen", (P, U)),
        ),
        "fr": (
            ("Votre commande {order} est confirmée",
             "Merci pour votre achat chez {brand} ! Nous avons bien reçu votre commande "
             "{order} et votre paiement de {amount} a été accepté.\n\nArticle : "
             "{product}\nPayé avec la carte se terminant par {card_last4}\n\nVous pouvez "
             "consulter le détail de votre commande à tout moment dans votre compte.",
             "Voir la commande", ()),
            ("Reçu de votre paiement à {brand}",
             "Voici le reçu de votre paiement de {amount} du {date}. Aucune action n'est "
             "requise de votre part.\n\nRéférence : {order}\nMoyen de paiement : carte se "
             "terminant par {card_last4}",
             "Voir le reçu", ()),
            ("Facture {invoice} de {brand} – échéance le {date}",
             "Votre facture {invoice} d'un montant de {amount} est disponible. Le règlement "
             "est attendu avant le {date} ; merci de régler la facture par virement ou par "
             "carte via le lien ci-dessous.\n\nSi vous avez déjà réglé, merci de ne pas tenir "
             "compte de ce message.",
             "Payer la facture", (P, U)),
        ),
        "pt": (
            ("Seu pedido {order} foi confirmado",
             "Obrigado por comprar na {brand}! Recebemos seu pedido {order} e o pagamento de "
             "{amount} foi aprovado.\n\nItem: {product}\nPago com o cartão final "
             "{card_last4}\n\nVocê pode ver os detalhes do pedido a qualquer momento na sua "
             "conta.",
             "Ver pedido", ()),
            ("Recibo do seu pagamento para {brand}",
             "Este é o recibo do seu pagamento de {amount} em {date}. Nenhuma ação é "
             "necessária.\n\nReferência: {order}\nForma de pagamento: cartão final {card_last4}",
             "Ver recibo", ()),
            ("Fatura {invoice} da {brand}: vencimento em {date}",
             "Sua fatura {invoice} no valor de {amount} já está disponível. O pagamento vence "
             "em {date}; por favor, pague a fatura por transferência ou cartão pelo link "
             "abaixo.\n\nSe você já pagou, desconsidere esta mensagem.",
             "Pagar fatura", (P, U)),
        ),
    },
    "password_reset": {
        "en": (
            ("Reset your {brand} password",
             "We received a request to reset the password for your {brand} account. Use the "
             "link below to choose a new password. The link expires in 60 minutes.\n\nIf you "
             "didn't request this, you can safely ignore this email.",
             "Reset password", ()),
            ("Your {brand} password was changed",
             "The password for your {brand} account was changed on {date} at {time} from "
             "{city}.\n\nIf this was you, no action is needed. If this wasn't you, act now: "
             "secure your account immediately and review your recent activity.",
             "Secure my account", (U,)),
            ("Your {brand} verification code",
             "Use the code {code} to finish signing in to {brand}. The code expires in 10 "
             "minutes.\n\nNever share this code with anyone. {brand} will never ask you for it "
             "by phone or email.",
             "", ()),
        ),
        "es": (
            ("Restablece tu contraseña de {brand}",
             "Hemos recibido una solicitud para restablecer la contraseña de tu cuenta de "
             "{brand}. Usa el enlace de abajo para elegir una nueva contraseña. El enlace "
             "caduca en 60 minutos.\n\nSi no lo has solicitado tú, puedes ignorar este correo.",
             "Restablecer contraseña", ()),
            ("Se ha cambiado tu contraseña de {brand}",
             "La contraseña de tu cuenta de {brand} se cambió el {date} a las {time} desde "
             "{city}.\n\nSi fuiste tú, no tienes que hacer nada. Si no fuiste tú, actúa ahora: "
             "protege tu cuenta inmediatamente y revisa la actividad reciente.",
             "Proteger mi cuenta", (U,)),
            ("Tu código de verificación de {brand}",
             "Usa el código {code} para terminar de iniciar sesión en {brand}. El código "
             "caduca en 10 minutos.\n\nNo compartas este código con nadie. {brand} nunca te lo "
             "pedirá por teléfono ni por correo.",
             "", ()),
        ),
        "de": (
            ("Setzen Sie Ihr {brand}-Passwort zurück",
             "Wir haben eine Anfrage zum Zurücksetzen des Passworts für Ihr {brand}-Konto "
             "erhalten. Über den folgenden Link können Sie ein neues Passwort wählen. Der Link "
             "ist 60 Minuten gültig.\n\nWenn Sie dies nicht angefordert haben, können Sie "
             "diese E-Mail ignorieren.",
             "Passwort zurücksetzen", ()),
            ("Ihr {brand}-Passwort wurde geändert",
             "Das Passwort für Ihr {brand}-Konto wurde am {date} um {time} aus {city} "
             "geändert.\n\nWenn Sie das waren, ist nichts zu tun. Wenn nicht, handeln Sie "
             "sofort: Sichern Sie Ihr Konto umgehend und prüfen Sie die letzten Aktivitäten.",
             "Konto sichern", (U,)),
            ("Ihr {brand}-Bestätigungscode",
             "Verwenden Sie den Code {code}, um die Anmeldung bei {brand} abzuschließen. Der "
             "Code ist 10 Minuten gültig.\n\nGeben Sie diesen Code niemals weiter. {brand} "
             "wird Sie nie telefonisch oder per E-Mail danach fragen.",
             "", ()),
        ),
        "fr": (
            ("Réinitialisez votre mot de passe {brand}",
             "Nous avons reçu une demande de réinitialisation du mot de passe de votre compte "
             "{brand}. Utilisez le lien ci-dessous pour choisir un nouveau mot de passe. Le "
             "lien expire dans 60 minutes.\n\nSi vous n'êtes pas à l'origine de cette demande, "
             "vous pouvez ignorer cet e-mail.",
             "Réinitialiser le mot de passe", ()),
            ("Votre mot de passe {brand} a été modifié",
             "Le mot de passe de votre compte {brand} a été modifié le {date} à {time} depuis "
             "{city}.\n\nSi c'était vous, aucune action n'est nécessaire. Sinon, agissez "
             "immédiatement : sécurisez votre compte et vérifiez l'activité récente.",
             "Sécuriser mon compte", (U,)),
            ("Votre code de vérification {brand}",
             "Utilisez le code {code} pour terminer votre connexion à {brand}. Le code expire "
             "dans 10 minutes.\n\nNe communiquez jamais ce code. {brand} ne vous le demandera "
             "jamais par téléphone ou par e-mail.",
             "", ()),
        ),
        "pt": (
            ("Redefina sua senha {brand}",
             "Recebemos uma solicitação para redefinir a senha da sua conta {brand}. Use o "
             "link abaixo para escolher uma nova senha. O link expira em 60 minutos.\n\nSe "
             "você não fez essa solicitação, pode ignorar este e-mail.",
             "Redefinir senha", ()),
            ("Sua senha {brand} foi alterada",
             "A senha da sua conta {brand} foi alterada em {date} às {time} a partir de "
             "{city}.\n\nSe foi você, nenhuma ação é necessária. Se não foi você, aja "
             "imediatamente: proteja sua conta e revise a atividade recente.",
             "Proteger minha conta", (U,)),
            ("Seu código de verificação {brand}",
             "Use o código {code} para concluir o login no {brand}. O código expira em 10 "
             "minutos.\n\nNunca compartilhe este código. A {brand} nunca pedirá esse código "
             "por telefone ou e-mail.",
             "", ()),
        ),
    },
    "shipping": {
        "en": (
            ("Your order {order} has shipped",
             "Good news! Your order {order} is on its way with {carrier}.\n\nTracking number: "
             "{tracking}\nEstimated delivery: {date}",
             "Track your package", ()),
            ("Your {carrier} parcel {tracking} arrives {date}",
             "Your parcel {tracking} from {brand} is scheduled for delivery on {date} between "
             "9:00 and 13:00.\n\nNot at home? You can choose a neighbour or a pickup point.",
             "Manage delivery", ()),
            ("Delivered: your package {tracking}",
             "Your package {tracking} was delivered on {date} and left at your front "
             "door.\n\nThank you for shopping with {brand}. We hope you enjoy your order.",
             "Rate your delivery", ()),
        ),
        "es": (
            ("Tu pedido {order} ha sido enviado",
             "¡Buenas noticias! Tu pedido {order} va de camino con {carrier}.\n\nNúmero de "
             "seguimiento: {tracking}\nEntrega estimada: {date}",
             "Seguir mi paquete", ()),
            ("Tu paquete {tracking} de {carrier} llega el {date}",
             "La entrega de tu paquete {tracking} de {brand} está prevista para el {date} "
             "entre las 9:00 y las 13:00.\n\n¿No estarás en casa? Puedes elegir un vecino o un "
             "punto de recogida.",
             "Gestionar entrega", ()),
            ("Entregado: tu paquete {tracking}",
             "Tu paquete {tracking} se entregó el {date} y se dejó en tu puerta.\n\nGracias "
             "por comprar en {brand}. Esperamos que disfrutes de tu pedido.",
             "Valorar la entrega", ()),
        ),
        "de": (
            ("Ihre Bestellung {order} wurde versandt",
             "Gute Nachrichten! Ihre Bestellung {order} ist mit {carrier} "
             "unterwegs.\n\nSendungsnummer: {tracking}\nVoraussichtliche Zustellung: {date}",
             "Sendung verfolgen", ()),
            ("Ihr {carrier}-Paket {tracking} kommt am {date}",
             "Ihr Paket {tracking} von {brand} wird voraussichtlich am {date} zwischen 9:00 "
             "und 13:00 Uhr zugestellt.\n\nNicht zu Hause? Sie können einen Nachbarn oder eine "
             "Packstation wählen.",
             "Zustellung verwalten", ()),
            ("Zugestellt: Ihr Paket {tracking}",
             "Ihr Paket {tracking} wurde am {date} zugestellt und vor Ihrer Haustür "
             "abgelegt.\n\nVielen Dank für Ihren Einkauf bei {brand}. Viel Freude mit Ihrer "
             "Bestellung.",
             "Zustellung bewerten", ()),
        ),
        "fr": (
            ("Votre commande {order} a été expédiée",
             "Bonne nouvelle ! Votre commande {order} est en route avec {carrier}.\n\nNuméro "
             "de suivi : {tracking}\nLivraison estimée : {date}",
             "Suivre mon colis", ()),
            ("Votre colis {carrier} {tracking} arrive le {date}",
             "La livraison de votre colis {tracking} de {brand} est prévue le {date} entre 9 h "
             "et 13 h.\n\nVous serez absent ? Vous pouvez choisir un voisin ou un point relais.",
             "Gérer la livraison", ()),
            ("Livré : votre colis {tracking}",
             "Votre colis {tracking} a été livré le {date} et déposé devant votre "
             "porte.\n\nMerci pour votre achat chez {brand}. Nous espérons que votre commande "
             "vous plaira.",
             "Évaluer la livraison", ()),
        ),
        "pt": (
            ("Seu pedido {order} foi enviado",
             "Boas notícias! Seu pedido {order} está a caminho com a {carrier}.\n\nCódigo de "
             "rastreamento: {tracking}\nEntrega prevista: {date}",
             "Rastrear pacote", ()),
            ("Sua encomenda {carrier} {tracking} chega em {date}",
             "A entrega da sua encomenda {tracking} da {brand} está prevista para {date} entre "
             "9h e 13h.\n\nNão vai estar em casa? Você pode escolher um vizinho ou um ponto de "
             "retirada.",
             "Gerenciar entrega", ()),
            ("Entregue: sua encomenda {tracking}",
             "Sua encomenda {tracking} foi entregue em {date} e deixada na sua "
             "porta.\n\nObrigado por comprar na {brand}. Esperamos que você aproveite seu "
             "pedido.",
             "Avaliar entrega", ()),
        ),
    },
    "newsletter": {
        "en": (
            ("{brand} news: what's new this month",
             "Here are this month's highlights from {brand}: new arrivals such as the "
             "{product}, customer stories and tips from our team.\n\nRead the full newsletter "
             "on our website.",
             "Read more", ()),
            ("Last chance: {percent}% off ends tonight!",
             "Hurry - our biggest sale of the season ends tonight at midnight. Get {percent}% "
             "off {product} and free shipping on every order.\n\nDon't miss out: this offer "
             "expires in a few hours.",
             "Shop the sale", (U,)),
            ("Your {brand} weekly digest",
             "Here is your weekly digest: the most read articles, upcoming events on {date} "
             "and new arrivals such as the {product}.\n\nYou are receiving this email because "
             "you subscribed to the {brand} newsletter.",
             "Open digest", ()),
        ),
        "es": (
            ("Novedades de {brand} de este mes",
             "Estas son las novedades de este mes en {brand}: nuevos productos como {product}, "
             "historias de clientes y consejos de nuestro equipo.\n\nLee el boletín completo "
             "en nuestra web.",
             "Leer más", ()),
            ("Última oportunidad: ¡{percent}% de descuento solo hasta esta noche!",
             "Date prisa: nuestras mayores rebajas de la temporada terminan esta noche a "
             "medianoche. Consigue un {percent}% de descuento en {product} y envío gratis en "
             "todos los pedidos.\n\nNo te lo pierdas: esta oferta caduca en pocas horas.",
             "Ver ofertas", (U,)),
            ("Tu resumen semanal de {brand}",
             "Aquí tienes tu resumen semanal: los artículos más leídos, los próximos eventos "
             "del {date} y novedades como {product}.\n\nRecibes este correo porque te "
             "suscribiste al boletín de {brand}.",
             "Abrir resumen", ()),
        ),
        "de": (
            ("{brand} Newsletter: Neuigkeiten des Monats",
             "Hier sind die Highlights des Monats bei {brand}: Neuheiten wie {product}, "
             "Kundengeschichten und Tipps von unserem Team.\n\nDen vollständigen Newsletter "
             "finden Sie auf unserer Website.",
             "Weiterlesen", ()),
            ("Letzte Chance: {percent} % Rabatt nur bis heute Nacht!",
             "Schnell sein lohnt sich: Unser größter Sale der Saison endet heute um "
             "Mitternacht. Sichern Sie sich {percent} % Rabatt auf {product} und kostenlosen "
             "Versand.\n\nNicht verpassen: Dieses Angebot läuft in wenigen Stunden ab.",
             "Zum Sale", (U,)),
            ("Ihr wöchentlicher {brand}-Überblick",
             "Hier ist Ihr Wochenüberblick: die meistgelesenen Artikel, Veranstaltungen am "
             "{date} und Neuheiten wie {product}.\n\nSie erhalten diese E-Mail, weil Sie den "
             "{brand}-Newsletter abonniert haben.",
             "Überblick öffnen", ()),
        ),
        "fr": (
            ("Les nouveautés {brand} du mois",
             "Voici les temps forts du mois chez {brand} : des nouveautés comme {product}, des "
             "témoignages de clients et les conseils de notre équipe.\n\nLisez la newsletter "
             "complète sur notre site.",
             "Lire la suite", ()),
            ("Dernière chance : -{percent} % jusqu'à ce soir !",
             "Faites vite : nos plus grandes soldes de la saison se terminent ce soir à "
             "minuit. Profitez de -{percent} % sur {product} et de la livraison "
             "gratuite.\n\nNe manquez pas cette offre : elle expire dans quelques heures.",
             "Voir les soldes", (U,)),
            ("Votre résumé hebdomadaire {brand}",
             "Voici votre résumé de la semaine : les articles les plus lus, les événements du "
             "{date} et des nouveautés comme {product}.\n\nVous recevez cet e-mail car vous "
             "êtes abonné à la newsletter {brand}.",
             "Ouvrir le résumé", ()),
        ),
        "pt": (
            ("Novidades da {brand} deste mês",
             "Confira os destaques do mês na {brand}: novidades como {product}, histórias de "
             "clientes e dicas da nossa equipe.\n\nLeia a newsletter completa no nosso site.",
             "Leia mais", ()),
            ("Última chance: {percent}% de desconto só até hoje à noite!",
             "Corra: a nossa maior liquidação da temporada termina hoje à meia-noite. Ganhe "
             "{percent}% de desconto em {product} e frete grátis em todos os pedidos.\n\nNão "
             "perca: esta oferta expira em poucas horas.",
             "Ver ofertas", (U,)),
            ("Seu resumo semanal da {brand}",
             "Aqui está o seu resumo semanal: os artigos mais lidos, os eventos de {date} e "
             "novidades como {product}.\n\nVocê está recebendo este e-mail porque assinou a "
             "newsletter da {brand}.",
             "Abrir resumo", ()),
        ),
    },
    "calendar_invite": {
        "en": (
            ("Invitation: {event_title} @ {date} {time}",
             "{sender_name} has invited you to the following event.\n\n{event_title}\nWhen: "
             "{date}, {time}\nWhere: {location}\n\nPlease accept or decline in your calendar.",
             "Join the meeting", ()),
            ("Meeting request: {event_title}",
             "I've set up a meeting to discuss {event_title}. Please find the invite attached; "
             "let me know if the time doesn't work for you.\n\nDate: {date}, {time}\nLocation: "
             "{location}",
             "", ()),
            ("Updated invitation: {event_title}",
             "This event has been updated: the meeting now takes place on {date} at "
             "{time}.\n\nLocation: {location}\nOrganizer: {sender_name}",
             "View event", ()),
        ),
        "es": (
            ("Invitación: {event_title} el {date} a las {time}",
             "{sender_name} te ha invitado al siguiente evento.\n\n{event_title}\nCuándo: "
             "{date}, {time}\nDónde: {location}\n\nAcepta o rechaza la invitación en tu "
             "calendario.",
             "Unirse a la reunión", ()),
            ("Convocatoria de reunión: {event_title}",
             "He organizado una reunión para hablar de {event_title}. Adjunto la invitación; "
             "avisadme si el horario no os viene bien.\n\nFecha: {date}, {time}\nLugar: "
             "{location}",
             "", ()),
            ("Invitación actualizada: {event_title}",
             "Este evento se ha actualizado: la reunión será ahora el {date} a las "
             "{time}.\n\nLugar: {location}\nOrganizador: {sender_name}",
             "Ver evento", ()),
        ),
        "de": (
            ("Einladung: {event_title} am {date} um {time}",
             "{sender_name} hat Sie zu folgendem Termin eingeladen.\n\n{event_title}\nWann: "
             "{date}, {time}\nWo: {location}\n\nBitte nehmen Sie die Einladung in Ihrem "
             "Kalender an oder lehnen Sie sie ab.",
             "An der Besprechung teilnehmen", ()),
            ("Besprechungsanfrage: {event_title}",
             "Ich habe eine Besprechung zum Thema {event_title} angesetzt. Die Einladung "
             "finden Sie im Anhang; sagen Sie mir bitte Bescheid, falls der Termin nicht "
             "passt.\n\nDatum: {date}, {time}\nOrt: {location}",
             "", ()),
            ("Aktualisierte Einladung: {event_title}",
             "Dieser Termin wurde geändert: Die Besprechung findet jetzt am {date} um {time} "
             "statt.\n\nOrt: {location}\nOrganisator: {sender_name}",
             "Termin ansehen", ()),
        ),
        "fr": (
            ("Invitation : {event_title} le {date} à {time}",
             "{sender_name} vous a invité à l'événement suivant.\n\n{event_title}\nQuand : "
             "{date}, {time}\nOù : {location}\n\nMerci d'accepter ou de refuser l'invitation "
             "dans votre agenda.",
             "Rejoindre la réunion", ()),
            ("Demande de réunion : {event_title}",
             "J'ai organisé une réunion pour discuter de {event_title}. Vous trouverez "
             "l'invitation en pièce jointe ; dites-moi si l'horaire ne vous convient "
             "pas.\n\nDate : {date}, {time}\nLieu : {location}",
             "", ()),
            ("Invitation mise à jour : {event_title}",
             "Cet événement a été modifié : la réunion aura désormais lieu le {date} à "
             "{time}.\n\nLieu : {location}\nOrganisateur : {sender_name}",
             "Voir l'événement", ()),
        ),
        "pt": (
            ("Convite: {event_title} em {date} às {time}",
             "{sender_name} convidou você para o seguinte evento.\n\n{event_title}\nQuando: "
             "{date}, {time}\nOnde: {location}\n\nAceite ou recuse o convite na sua agenda.",
             "Entrar na reunião", ()),
            ("Solicitação de reunião: {event_title}",
             "Marquei uma reunião para discutirmos {event_title}. O convite segue em anexo; me "
             "avise se o horário não funcionar para você.\n\nData: {date}, {time}\nLocal: "
             "{location}",
             "", ()),
            ("Convite atualizado: {event_title}",
             "Este evento foi atualizado: a reunião agora será em {date} às {time}.\n\nLocal: "
             "{location}\nOrganizador: {sender_name}",
             "Ver evento", ()),
        ),
    },
    "internal_memo": {
        "en": (
            ("Office closure on {date}",
             "Please note that the office will be closed on {date} for maintenance work. "
             "Remote work is possible as usual.\n\nIf you need access to the building that "
             "day, let facilities know by Friday.",
             "", ()),
            ("Notes from today's team meeting",
             "Thanks everyone for joining. Main points: the {topic} project is on track, the "
             "next review is on {date}, and we still need volunteers for the onboarding buddy "
             "programme.\n\nThe full notes are in the shared folder.",
             "", ()),
            ("Please approve: {supplier} invoice",
             "Could you approve the attached invoice from {supplier} for {amount}? It was "
             "budgeted in Q2, and we need to pay the invoice by {date} to keep our "
             "discount.\n\nI've checked the quantities against the delivery note.",
             "", (P, U)),
        ),
        "es": (
            ("Cierre de la oficina el {date}",
             "Os recordamos que la oficina estará cerrada el {date} por obras de "
             "mantenimiento. Se puede teletrabajar como de costumbre.\n\nSi necesitáis acceder "
             "al edificio ese día, avisad a servicios generales antes del viernes.",
             "", ()),
            ("Notas de la reunión de equipo de hoy",
             "Gracias a todos por asistir. Puntos principales: el proyecto {topic} va según lo "
             "previsto, la próxima revisión es el {date} y aún necesitamos voluntarios para el "
             "programa de acogida.\n\nLas notas completas están en la carpeta compartida.",
             "", ()),
            ("Aprobación pendiente: factura de {supplier}",
             "¿Puedes aprobar la factura adjunta de {supplier} por {amount}? Estaba "
             "presupuestada en el segundo trimestre y hay que pagar la factura antes del "
             "{date} para mantener el descuento.\n\nHe comprobado las cantidades con el "
             "albarán.",
             "", (P, U)),
        ),
        "de": (
            ("Büro am {date} geschlossen",
             "Bitte beachten Sie, dass das Büro am {date} wegen Wartungsarbeiten geschlossen "
             "bleibt. Homeoffice ist wie gewohnt möglich.\n\nWer an diesem Tag Zugang zum "
             "Gebäude braucht, meldet sich bitte bis Freitag beim Facility-Team.",
             "", ()),
            ("Protokoll der heutigen Teambesprechung",
             "Danke an alle fürs Dabeisein. Die wichtigsten Punkte: Das Projekt {topic} liegt "
             "im Plan, das nächste Review ist am {date}, und wir suchen noch Paten für neue "
             "Kolleginnen und Kollegen.\n\nDas vollständige Protokoll liegt im gemeinsamen "
             "Ordner.",
             "", ()),
            ("Bitte freigeben: Rechnung von {supplier}",
             "Kannst du die angehängte Rechnung von {supplier} über {amount} freigeben und bis "
             "zum {date} die Zahlung veranlassen? Sie war für Q2 budgetiert, und so bekommen "
             "wir den Skonto.\n\nDie Mengen habe ich mit dem Lieferschein abgeglichen.",
             "", (P, U)),
        ),
        "fr": (
            ("Fermeture des bureaux le {date}",
             "Pour rappel, les bureaux seront fermés le {date} pour des travaux de "
             "maintenance. Le télétravail reste possible comme d'habitude.\n\nSi vous avez "
             "besoin d'accéder au bâtiment ce jour-là, prévenez les services généraux avant "
             "vendredi.",
             "", ()),
            ("Compte rendu de la réunion d'équipe",
             "Merci à tous pour votre participation. Points principaux : le projet {topic} "
             "avance comme prévu, la prochaine revue a lieu le {date} et nous cherchons encore "
             "des parrains pour l'accueil des nouveaux arrivants.\n\nLe compte rendu complet "
             "est dans le dossier partagé.",
             "", ()),
            ("À valider : facture {supplier}",
             "Peux-tu valider la facture ci-jointe de {supplier} d'un montant de {amount} ? "
             "Elle était budgétée au T2 et nous devons régler la facture avant le {date} pour "
             "conserver la remise.\n\nJ'ai vérifié les quantités avec le bon de livraison.",
             "", (P, U)),
        ),
        "pt": (
            ("Escritório fechado em {date}",
             "Lembramos que o escritório estará fechado em {date} para obras de manutenção. O "
             "trabalho remoto continua possível normalmente.\n\nSe precisar de acesso ao "
             "prédio nesse dia, avise a equipe de facilities até sexta-feira.",
             "", ()),
            ("Notas da reunião de equipe de hoje",
             "Obrigado a todos pela presença. Pontos principais: o projeto {topic} está dentro "
             "do prazo, a próxima revisão é em {date} e ainda precisamos de voluntários para o "
             "programa de integração.\n\nAs notas completas estão na pasta compartilhada.",
             "", ()),
            ("Aprovação: fatura da {supplier}",
             "Você pode aprovar a fatura em anexo da {supplier} no valor de {amount}? Ela "
             "estava prevista no orçamento do segundo trimestre e precisamos pagar a fatura "
             "até {date} para mantermos o desconto.\n\nConferi as quantidades com a nota de "
             "entrega.",
             "", (P, U)),
        ),
    },
}  # fmt: skip


def _build_templates() -> tuple[Template, ...]:
    out = []
    for table in (_PHISHING_TEXT, _LEGITIMATE_TEXT):
        for scenario, by_language in table.items():
            for language, variants in by_language.items():
                for variant, (subject, body, cta, content) in enumerate(variants):
                    out.append(Template(scenario, language, variant, subject, body, cta, content))
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
