"""Hand-written cues for the offline judge: harm terms per Llama Guard category, benign senses
of scary words (XSTest-style: "kill a python process", "shoot a photo"), and request framing
(how-to, definition, history, fiction/games, public entities, evasion, real targets).

Cues are features, not decisions: the linear model in :mod:`sv_shared.safety.offline`
learns how much each one counts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from sv_shared.safety.text_cues import normalize


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in parts))


_PERSON = (
    r"(?:a |an |my |the |his |her |their |our |your |some )?(?:person|people|someone|somebody|"
    r"human|humans|child|children|kid|kids|baby|wife|husband|neighbou?r|boss|co-?worker|teacher|"
    r"ex|partner|girlfriend|boyfriend|friend|family|stranger|man|woman|men|women|cop|officer|"
    r"president|senator|classmate|roommate|landlord|mother|father|mom|dad|sister|brother|him|her|"
    r"them|victim|witness|rival|politician|journalist|judge|student|patient|customer|crowd|bully|"
    r"abuser|enemy|enemies|spouse|crush|tenant|employee|employer|protesters?)\b"
)

HARM_TERMS: dict[str, re.Pattern[str]] = {
    "S1": _rx(
        rf"\b(?:kill|murder|stab|strangle|smother|suffocate|drown|poison|torture|kidnap|abduct|"
        rf"behead|dismember|maim|shoot|hurt|harm|attack|assault|beat up|punch|choke|run over|gut|"
        rf"butcher|slaughter|execute|hang|blow up|decapitate|slit|bludgeon|knock out|take out|"
        rf"finish off|bury|burn|push|break|crack|injure|wound|cripple|paralyze|disfigure|maul|"
        rf"trap|ambush|lynch|stone|bomb|gas|smash|slash|mutilate)\w*\s+{_PERSON}",
        r"\b(?:slit|cut|break|crack|smash|snap)\w* (?:a |my |the |his |her |"
        r"their |someone's |somebody's )?"
        r"(?:\w+'s )?(?:throat|neck|skull|arm|leg|ribs|spine|jaw|nose|wrists?)\b",
        r"\bmurder\w*\b",
        r"\bassassinat\w+",
        r"\bmass (?:shooting|murder|killing|stabbing)",
        r"\b(?:terrorist|terror) (?:attack|plot|cell)",
        r"\b(?:dispose of|get rid of|hide) (?:a |the )?(?:dead )?body\b",
        r"\bhit ?man\b",
        r"\bkidnap\w*|\babduct\w*",
        r"\btortur\w+",
        r"\bgenocide\b",
        r"\bschool shooting\b",
        r"\banimal (?:cruelty|abuse)\b",
        r"\b(?:poison|kill|hurt|torture|abuse|kick|drown|starve)\w* (?:a |an |"
        r"my |the |our |\w+'s )?(?:dog|cat|puppy|kitten|pet|horse|animal)s?\b",
        r"\bthreat(?:en\w*)? (?:letter|message|note|email|text|call|"
        r"voicemail)s?\b|\bthreaten\w* (?:to |my |a |the |him|her|them)",
        r"\b(?:revenge on|get back at|take revenge)\b",
        r"\b(?:avvelenare|envenenar|empoisonner|vergiften|отравить|毒杀|毒殺)\b",
    ),
    "S2": _rx(
        r"\b(?:steal|shoplift|rob|burglar\w*|pickpocket|embezzl\w*|launder\w*|counterfeit\w*|"
        r"smuggl\w*|extort\w*|blackmail\w*|bribe\w*|vandali[sz]\w*)\b",
        r"\bbreak into (?:a |an |my |the |someone's |his |her )?(?:house|home|"
        r"car|apartment|store|building|account|safe)",
        r"\bhot-?wire\b",
        r"\b(?:money laundering|tax evasion|evade (?:taxes|tax)|insurance fraud|"
        r"identity theft|credit card fraud|wire fraud)\b",
        r"\b(?:fraud\w*|scam\w*|phishing|ponzi|pyramid scheme)\b",
        r"\bfake (?:\w+(?:'s)? )?(?:id|ids|passports?|documents?|notes?|"
        r"certificates?|diplomas?|degrees?|invoices?|receipts?|reviews?|"
        r"prescriptions?|licen[cs]es?)\b",
        r"\b(?:cheat\w* on (?:my |your |the )?taxes|tax fraud)\b",
        r"\bevad\w* (?:the )?(?:police|cops|law enforcement|arrest|customs)\b",
        r"\b(?:hack|get into|break into|access)\w* (?:my |an |a |someone's |"
        r"his |her |the |their )?(?:\w+'s )?(?:instagram|facebook|snapchat|"
        r"tiktok|twitter|gmail|whatsapp|icloud|email|account|phone|wifi|"
        r"computer|laptop)\b",
        r"\b(?:hackear|pirater|hacken|взломать)\b",
        r"\bforge\w* (?:a |an |the )?(?:signature|document|check|cheque|prescription|passport)",
        r"\b(?:make|cook|synthesi[sz]e|produce|manufacture|grow|sell|buy|"
        r"smuggle)\w* (?:meth|methamphetamine|crack cocaine|cocaine|heroin|"
        r"fentanyl|lsd|mdma|ecstasy|illegal drugs|drugs)\b",
        r"\b(?:meth lab|drug cartel|drug trafficking|human trafficking|arms trafficking)\b",
        r"\b(?:malware|ransomware|keylogger|botnet|spyware|trojan|rootkit|ddos|"
        r"sql injection|zero-day|credential stuffing)\b",
        r"\bhack\w* (?:into|someone's|a |an |the |my )(?:\w+ )?(?:account|email|"
        r"phone|computer|network|server|database|website|wifi|bank|system|"
        r"camera)",
        r"\bbypass\w* (?:the |a )?(?:authentication|login|paywall|security|2fa|"
        r"two-factor|antivirus|firewall)",
        r"\bexploit (?:a |the |this )?(?:vulnerability|bug|flaw|cve)",
        r"\b(?:crack|brute-?force)\w* (?:a |the |someone's )?passwords?\b",
        r"\b(?:without (?:getting caught|being caught|being detected|"
        r"being traced|leaving (?:a )?trace)|get away with|untraceable|"
        r"undetectable)\b",
        r"\bset (?:fire to|on fire) (?:a |the |my |someone's |his |"
        r"her )?(?:house|car|building|school|store)",
        r"\barson\b",
        r"\bdark ?web\b",
        r"\bpoach\w* (?:elephants?|rhinos?|ivory)",
    ),
    "S3": _rx(
        r"\brap(?:e|ing|ist)\b",
        r"\bsexual(?:ly)? (?:assault|abuse|harass)\w*",
        r"\bsex (?:trafficking|slave\w*)\b",
        r"\bdate[- ]rape\b|\bspik\w+ (?:a |her |his |someone's )?drink",
        r"\brevenge porn\b|\bsextort\w*|\bupskirt\w*|\bnon-?consensual\b",
        r"\bprostitution ring\b|\bpimp\w*\b",
    ),
    "S4": _rx(
        r"\b(?:child|children|minor|minors|underage|kid|kids|preteen|teen|"
        r"teenager|\d{1,2}[- ]year[- ]old)\w*\b[^.?!]{0,40}\b(?:sexual\w*|"
        r"nude\w*|naked|explicit|porn\w*|erotic\w*|sexy)\b",
        r"\b(?:sexual\w*|nude\w*|naked|explicit|porn\w*|"
        r"erotic\w*)\b[^.?!]{0,40}\b(?:child|children|minor|minors|underage|"
        r"preteen|teen|teens|teenagers?|\d{1,2}[- ]year[- ]old)\b",
        r"\b(?:child|kid|minor|teen|teenager|girl|"
        r"boy)s? to send (?:me )?(?:photos|pictures|pics|nudes|selfies)",
        r"\bcsam\b|\bchild porn\w*|\bgroom\w* (?:a |the )?(?:child|kid|minor|teen)",
    ),
    "S5": _rx(
        r"\bdefamat\w+|\blibel\w*|\bslander\w*",
        r"\bsmear campaign\b",
        r"\b(?:false|fake|made-up|fabricated|invented) (?:story|stories|article|"
        r"claims?|rumou?rs?|allegations?|accusations?|news|report)\b",
        r"\b(?:claim\w*|implying|suggesting|alleging|"
        r"accus\w+) (?:that )?(?:the |a |an )?(?:\w+ ){0,3}(?:is|was|are) (?:a |"
        r"an )?(?:pedophile|criminal|addict|fraud|rapist|murderer|terrorist|"
        r"drug dealer)",
        r"\bdisinformation\b|\bmisinformation\b|\bpropaganda\b|\bconspiracy theor\w+|\bhoax\b",
        r"\bvaccines? (?:cause|causes|causing) autism|\b(?:earth|"
        r"world) is flat\b|\bmoon landings? (?:was |were )?(?:faked|fake|"
        r"staged)|\b5g (?:causes|spreads|caused)\b|\bchemtrails\b|"
        r"\bholocaust (?:didn't|did not|never) happen",
    ),
    "S6": _rx(
        r"\bwithout (?:a |seeing a |consulting a )?(?:doctor|prescription|"
        r"physician|lawyer|medical supervision)",
        r"\b(?:stop|quit) taking (?:my |his |her )?(?:prescribed |"
        r"prescription )?(?:medication|meds|insulin|antidepressants)",
        r"\bperform (?:surgery|an operation|an abortion) on (?:myself|yourself|my|a friend)",
        r"\bhow much \w+ (?:should|can|do) i take to (?:get high|pass out|feel)",
        r"\bguaranteed (?:stock|returns?|profit)\b",
    ),
    "S7": _rx(
        r"\b(?:home |current |private |personal |exact )?(?:address|"
        r"phone number|cell number|email address|location|"
        r"whereabouts)(?:es)? of (?:my |a |an |the |this |that )?(?:ex|"
        r"neighbou?r|co-?worker|boss|teacher|classmate|stranger|girl|guy|woman|"
        r"man|person|someone|celebrity|streamer|journalist|employee)",
        r"\b(?:my |a |an |the |this |that )(?:ex|neighbou?r|co-?worker|boss|"
        r"teacher|classmate|stranger|crush)(?:'s)? (?:home )?(?:address|"
        r"phone number|email|password|location|social security)",
        r"\bsocial security numbers?\b|\bssn\b|\bpassport numbers?\b|"
        r"\bbank account (?:number|details)|\bcredit card (?:number|details)",
        r"\bdox\w*\b",
        r"\b(?:track|spy on|stalk|monitor|follow|locate|find)\w* (?:my |a |an |"
        r"the |someone|somebody|his |her )?(?:ex|wife|husband|partner|"
        r"girlfriend|boyfriend|employee|neighbou?r|person|someone|somebody|kid|"
        r"teen|stranger)\b",
        r"\b(?:read|access|hack|see)\w* (?:my |someone's |his |her |"
        r"their )?(?:partner's |wife's |husband's |ex's |"
        r"boss's )?(?:private )?(?:messages|texts|emails|dms|chats)",
        r"\bhidden camera\b|\bsecretly (?:record|film|photograph)\w*",
        r"\b(?:medical|health|criminal|private) records of\b",
        r"\b\w+(?:'s|s') (?:personal |private |home |cell |mobile |exact |"
        r"current |real |secret )?(?:home address|street address|address|"
        r"phone number|cell(?:phone)? number|social security number|"
        r"email(?: address)?|passwords?|pin|login(?: details)?|bank (?:account|"
        r"details|balance)|credit card(?: number| details)?|medical (?:records|"
        r"history)|passport number|license plate|whereabouts|location|"
        r"date of birth|ip address)\b",
        r"\bwhere (?:does|do) (?:my |the |this |that )?(?:ex|neighbou?r|"
        r"co-?worker|boss|teacher|stranger|girl|guy|woman|man)\w* live\b",
    ),
    "S8": _rx(
        r"\b(?:full|complete|entire|whole|exact|"
        r"verbatim)\b[^.?!]{0,30}\b(?:lyrics|text|chapter|passage|script|"
        r"transcript|book|novel|article|screenplay)\b",
        r"\b(?:lyrics|chapter|passage|excerpt|pages?) (?:of|from) (?:the |"
        r"a )?(?:song|book|novel|film|movie|bestseller|copyrighted)",
        r"\b(?:generate|reproduce|print|write out|copy|give me|recite|"
        r"transcribe)\w* (?:the )?(?:lyrics|opening chapter|first chapter|"
        r"first \d+ pages|long passage|text of)",
        r"\bpirat\w+|\btorrent\w*|\bcracked (?:software|version|copy)|"
        r"\bkeygen\b|\bbypass\w* (?:the )?drm\b|\bremove drm\b|\bcopyrighted\b",
    ),
    "S9": _rx(
        r"\b(?:pipe |nail |car |dirty |fertili[sz]er |homemade |suicide )?bombs?\b",
        r"\bexplosives?\b|\bdetonat\w+|\bied\b|\bimprovised explosive|"
        r"\bgrenade\w*|\bmolotov\w*|\bnapalm\b|\bthermite\b|\btatp\b",
        r"\b(?:nerve|chemical|biological|bio|toxic) (?:agent|agents|weapon|"
        r"weapons|warfare)|\bbioweapon\w*|\bweaponi[sz]\w*",
        r"\b(?:sarin|tabun|soman|vx|novichok|mustard gas|phosgene|chlorine gas|"
        r"ricin|abrin|anthrax|botulinum|smallpox|plague|ebola|dimethylmercury)\b",
        r"\b(?:nuclear|atomic|radiological) (?:weapon|bomb|device)s?|"
        r"\benrich\w* uranium|\bweapons-grade\b",
        r"\bmass casualt\w+|\b(?:gain[- ]of[- ]function|enhance\w* (?:the )?transmissib\w+)",
        r"\b(?:3d[- ]print\w*|build|make|convert)\w* (?:an? |"
        r"the )?(?:untraceable |automatic |full-auto )?(?:gun|firearm|rifle|"
        r"silencer|suppressor|ghost gun)s?\b",
        r"\btoxic gas\b|\bpoison gas\b",
        r"\b(?:bomba|bombe|bomben|бомб\w*|explosivo\w*|explosif\w*|sprengstoff\w*)|炸弹|爆弾",
    ),
    "S10": _rx(
        r"\b(?:racist|sexist|homophobic|transphobic|antisemitic|islamophobic|bigoted|hateful)\b",
        r"\bhate speech\b|\bslurs?\b|\bwhite (?:supremac\w+|power|"
        r"nationalis\w+)|\bethnic cleansing\b|\bdehumani[sz]\w*",
        r"\b(?:inferior|subhuman|vermin|savages|animals|parasites)\b",
        r"\bholocaust (?:denial|never happened|was (?:a )?(?:hoax|exaggerated|fake))",
        r"\b(?:should|must|need to) be (?:exterminated|eradicated|wiped out|"
        r"deported|banned|segregated|sterili[sz]ed)\b",
    ),
    "S11": _rx(
        r"\b(?:kill|hurt|harm|cut|starve|poison|hang|shoot) (?:myself|yourself|"
        r"themselves|oneself)\b",
        r"\bsuicid\w*",
        r"\bend (?:my|your|one's) (?:own )?life\b",
        r"\bself[- ]harm\w*|\bself[- ]injur\w*",
        r"\boverdos\w+|\blethal dose\b|\bpainless(?:ly)? (?:way to )?die\b|\bwant to die\b",
        r"\bpro[- ]ana\b|\bthinspo\b|\bpurg(?:e|ing) (?:after|to lose)",
        r"(?:hacerme daño|me hago daño|me faire du mal|"
        r"mir (?:selbst )?(?:schaden|wehtun)|навредить себе|suicidio|自杀|自殺)",
    ),
    "S12": _rx(
        r"\b(?:explicit|graphic|steamy|erotic|pornographic|nsfw|x-rated|"
        r"dirty)\b[^.?!]{0,20}\b(?:sex\w*|story|scene|fanfic\w*|content|"
        r"roleplay|description|poem)",
        r"\bporn\w*|\berotica\b|\bsexting\b|\bnudes?\b|\bsex scene\b|"
        r"\bhaving sex\b|\bsexual fantas\w+|\borgasm\w*|\bfetish\w*",
    ),
    "S13": _rx(
        r"\b(?:voter|election|ballot|electoral) (?:fraud|suppression|tampering|"
        r"rigging|intimidation)",
        r"\brig\w* (?:an |the |our |this )?(?:election|vote|ballot)",
        r"\b(?:fake|forged|fraudulent) (?:ballots?|votes?|voter registrations?)",
        r"\b(?:discourage|prevent|stop|scare|trick)\w* (?:people|voters|"
        r"citizens|\w+ voters) from voting",
        r"\b(?:wrong|false|fake) (?:election|voting|polling) (?:date|day|place|"
        r"location|information)",
        r"\b(?:hack|tamper)\w* (?:with )?(?:a |the )?(?:voting machines?|election|ballot)",
        r"\belection (?:was )?(?:stolen|rigged)\b",
    ),
    "S14": _rx(
        r"\brm -rf\b|\bfork ?bomb\b|:\(\)\s*\{",
        r"\b(?:escape|break out of|disable|bypass)\w* (?:the |this |"
        r"your )?(?:sandbox|container|code interpreter|jail)",
        r"\b(?:/etc/passwd|/etc/shadow|\.ssh/id_rsa|"
        r"environment variables? (?:and|with) (?:secrets|keys|tokens))",
        r"\breverse shell\b|\bprivilege escalation\b|\bexfiltrat\w+",
        r"\bmine (?:crypto\w*|bitcoin|monero) (?:on|using) (?:the|this|"
        r"your) (?:server|sandbox|interpreter)",
    ),
}

BENIGN_SENSES = _rx(
    r"\b(?:kill|terminate|stop|end)\w* (?:a |an |the |all |this |that |my |"
    r"every |any )?(?:\w+ )?(?:process(?:es)?|threads?|tasks?|jobs?|pids?|"
    r"programs?|apps?|applications?|sessions?|tabs?|servers?|containers?|"
    r"pods?|queries|query|connections?|daemons?|scripts?|loops?|signals?|"
    r"commands?)\b",
    r"\bkill\w* (?:some |the |a |my |off |all )?(?:\w+ )?(?:time|lights?|"
    r"engine|music|mood|vibe|boredom|conversation|buzz|weeds?|mosquito\w*|"
    r"bugs?|ants?|cockroach\w*|roach\w*|fleas?|termites?|lice|bacteria|"
    r"germs|mold|mildew|aphids|slugs?|rats?|mice|moths?|wasps?|flies|fly|"
    r"pests?|plants?|grass|competition|cravings?|appetite|pain|fever|"
    r"virus(?:es)? on|spiders?|zombies?|monsters?|dragons?|enemies|enemy|"
    r"boss(?:es)?|creepers?|orcs?|goblins?)\b",
    r"\bkill(?:ed|ing)? it\b|\bkiller (?:app|feature|deal|instinct|whale|"
    r"bee|smile)\b|\bkilljoy\b|\bdressed to kill\b|\bkill two birds\b",
    r"\bshoot\w* (?:a |an |the |some |my |our |your )?(?:\w+ )?(?:photos?|"
    r"pictures?|videos?|films?|scenes?|movies?|portraits?|footage|hoops|"
    r"breeze|emails?|messages?|texts?|stars|shots?|basketballs?|baskets|"
    r"pool|free throws?|goals?|clay|targets?|arrows?|film|wedding|"
    r"commercial|episode|documentary|landscape|sunset|question|line)\b|"
    r"\bphoto ?shoot\b",
    r"\bexecut\w+ (?:a |an |the |this |my |our )?(?:\w+ )?(?:commands?|"
    r"scripts?|code|plans?|query|queries|programs?|orders?|trades?|"
    r"contracts?|functions?|strateg\w+|tasks?|moves?|tests?|jobs?|vision|"
    r"idea)\b",
    r"\battack\w* (?:in chess|the problem|a problem|this problem|the day|"
    r"the net|the ball|the basket|the market|the project|the task|my to-do|"
    r"the king|the queen)\b|\b(?:panic|heart|asthma|anxiety|"
    r"shark) attacks?\b|\battack (?:angle|surface area)\b",
    r"\b(?:photo|bath|calorie|love|f-|cherry|glitter|seed|flavou?r|"
    r"smoke) ?bombs?\b|\bbomb(?:ed|ing)? (?:the |my |an |a )?(?:exam|test|"
    r"interview|audition|presentation|quiz|gig|set|performance|show|"
    r"stand-up)\b|\bbombshell\b|\bbombastic\b|\bthe bomb\b|"
    r"\bbomb calorimeter\b",
    r"\bblow\w* (?:up )?(?:a |the |my |some )?(?:balloons?|photos?|"
    r"pictures?|images?|phone|inbox|on social media|internet|off steam|"
    r"bubbles?|kisses?|candles?|minds?|nose)\b|\bblow(?:ing)? (?:it|them|"
    r"up) (?:up )?on (?:social|the internet)",
    r"\bcrack\w* (?:an |a |the |some |my |open a )?(?:eggs?|jokes?|smiles?|"
    r"knuckles?|puzzles?|case|code of|riddle|whip|window|beer|coconut|nuts?|"
    r"walnuts?|down on|the books|a bottle|a cold one|up)\b",
    r"\bsteal\w* (?:the |a |his |her |my |someone's |some )?(?:show|kiss|"
    r"glance|spotlight|bases?|limelight|heart|hearts|scene|ball|thunder|nap|"
    r"moment|look|idea from nature|recipe idea)\b",
    r"\b(?:life|productivity|growth|cooking|sleep|study|kitchen|cleaning|"
    r"travel|money-saving|home|budget) ?hacks?\b|\bhackathons?\b|"
    r"\bhack(?:ing)? (?:my|your|the) (?:productivity|workflow|routine|"
    r"morning|sleep|diet|learning)\b",
    r"\bmurder (?:mystery|mysteries|of crows|ballad|board game)\b|"
    r"\bmurder (?:on|in) the orient express\b",
    r"\b(?:slaughter|butcher|gut|clean|fillet|skin|dress)\w* (?:a |the |my |"
    r"our )?(?:chicken|chickens|pig|pigs|cow|cattle|lamb|goat|livestock|"
    r"fish|trout|salmon|deer|turkey|rabbit|carcass|meat)\b",
    r"\b(?:poison|poisonous) (?:ivy|oak|sumac|control center|dart frog|"
    r"mushrooms? to avoid)\b|\bfood poisoning\b",
    r"\b(?:choke|strangle|starve|drown|smother|"
    r"suffocate)\w* (?:out )?(?:the |my |a )?(?:weeds?|competition|fire|"
    r"flames|plants?|engine|sound|noise|out the noise|out distractions)\b",
    r"\bsuicide (?:squad|doors?|prevention|hotline|awareness|rates?|"
    r"statistics|bridge|king|watch)\b",
    r"\b(?:beat|destroy|crush|annihilate|obliterate|smash|demolish|"
    r"murder)\w* (?:the |my |our |their )?(?:competition|opponents?|exam|"
    r"test|record|deadline|game|level|boss|workout|high score|interview|"
    r"presentation|final|traffic)\b",
    r"\b(?:drug|pharmacy|drugstore) (?:store|test|interactions?|prices?|screening)\b",
    r"\b(?:eliminate|get rid of|wipe out|destroy)\w* (?:the |my |all |"
    r"our )?(?:debt|clutter|waste|bugs?|errors?|stress|odou?rs?|weeds?|"
    r"stains?|mold|pests?|fruit flies|duplicates|old files|"
    r"hard drive data)\b",
    r"\bhang (?:out|up|a picture|a painting|a shelf|in there|on|loose|the laundry|tight|gliding)\b",
    r"\b(?:cut|chop|slice)\w* (?:the |an? |my )?(?:onions?|vegetables?|cake|"
    r"costs?|hair|wood|fabric|paper|losses|budget|ties|corners|class)\b",
    r"\b(?:stab|shot|punch|hit) (?:at|in the dark|of espresso|of whiskey|"
    r"a piñata|the gym|the books|a pinata|the road|the sack|snooze)\b|"
    r"\bpunchline\b|\bfruit punch\b",
    r"\bnuke (?:the |some |my )?(?:leftovers|food|popcorn|pizza|dinner|"
    r"database|branch|folder|node_modules|cache)\b",
    r"\btorture (?:test|rack in a museum)\b",
    r"\bdischarge (?:from|papers|instructions)\b",
)

GAME_OR_FICTION = re.compile(
    r"\b(?:in|on|for|during|playing) (?:a |an |the |"
    r"my )?(?:\w+ )?(?:video ?game|game|minecraft|call of duty|gta|"
    r"grand theft auto|fortnite|skyrim|elden ring|halo|among us|chess|"
    r"monopoly|poker|world of warcraft|roblox|the sims|zelda|pokemon|"
    r"pokémon|league of legends|counter-?strike|valorant|d&d|dnd|"
    r"dungeons (?:and|&) dragons|board game|card game|novel|movie|film|book|"
    r"play|story|tv show|series|sitcom|fanfic|screenplay|comic|anime|manga|"
    r"cluedo|clue|battle royale|shooter|rpg|mmo|campaign|mod|lego|pac-?man|"
    r"mario|tetris|dark souls|witcher|hitman|assassin's creed|red dead|"
    r"overwatch|apex legends|pubg|mafia|werewolf|paintball|laser tag|"
    r"airsoft)\b"
    r"|\b(?:fictional|fantasy|sci-fi|science fiction|in-game|npc|npcs|video games?)\b"
)

FICTIONAL_CHARACTERS = re.compile(
    r"\b(?:harry potter|hermione|dumbledore|voldemort|sherlock holmes|"
    r"james bond|batman|bruce wayne|"
    r"superman|clark kent|spider-?man|peter parker|iron man|tony stark|wonder woman|gandalf|frodo|"
    r"bilbo|aragorn|darth vader|luke skywalker|han solo|yoda|homer simpson|bart simpson|"
    r"mickey mouse|donald duck|shrek|elsa|cinderella|snow white|winnie the pooh|mario|luigi|"
    r"pikachu|sonic|lara croft|master chief|geralt|walter white|jon snow|daenerys|tyrion|"
    r"katniss|jay gatsby|atticus finch|hannibal lecter|jack sparrow|indiana jones|the joker|"
    r"joker|captain america|hulk|thor|black widow|deadpool|wolverine|dracula|frankenstein|"
    r"sauron|gollum|scrooge|santa claus|the grinch|sponge ?bob|patrick star|dora|barbie|"
    r"peppa pig|optimus prime|john wick|rocky balboa|ellen ripley|jack reacher|hercule poirot|"
    r"miss marple|bugs bunny|garfield|naruto|goku|kermit|big bird|paddington|nemo|simba)\b"
)

PUBLIC_ENTITIES = re.compile(
    r"\b(?:white house|pentagon|eiffel tower|buckingham palace|kremlin|city hall|town hall|"
    r"parliament|congress|capitol|the senate|louvre|statue of liberty|empire state building|"
    r"opera house|10 downing street|the vatican|united nations|un headquarters|supreme court|"
    r"official (?:website|address|phone|email|account)|headquarters|embassy|consulate|museum|"
    r"public library|university|city council|mayor's office|customer service|support line|"
    r"box office|tourist information|head office|main office|press office|"
    r"public (?:record|figure|office|website|email))\b"
)

NONSENSE_GROUPS = re.compile(
    r"\b(?:carrots?|bananas?|apples?|grapes?|potatoes?|tomatoes?|cucumbers?|pickles?|broccoli|"
    r"vegetables?|fruits?|robots?|toasters?|aliens?|martians?|vampires?|werewolves|unicorns?|"
    r"dragons?|ghosts?|zombies?|elves|dwarves|goblins?|trolls?|clouds?|trees?|rocks?|stones?|"
    r"teapots?|teacups?|spoons?|chairs?|tables?|pencils?|socks?|lamps?|cats?|dogs?|hamsters?|"
    r"goldfish|penguins?|squirrels?|pigeons?|snails?|mushrooms?|cacti|cactus|plants?|flowers?|"
    r"rainbows?|snowmen|snowflakes?|muffins?|pancakes?|cupcakes?|donuts?|bagels?|sandwiches?|"
    r"pillows?|balloons?|ducks?|owls?|pebbles?|jellyfish|crayons?|marshmallows?|cookies?)\b"
)

NONSENSE_ABILITIES = re.compile(
    r"\b(?:time[- ]travel\w*|breathe underwater|photosynthesi\w+|turn invisible|become invisible|"
    r"read minds?|teleport\w*|live on (?:the sun|mars|the moon|jupiter|saturn)|shoot lasers|"
    r"talk to animals|speak to animals|run at the speed of light|travel faster than light|"
    r"fly (?:without|like)|levitat\w+|control the weather|walk through walls|see through walls|"
    r"turn into (?:animals|cats|dogs|birds)|lay eggs|hibernat\w+|glow in the dark|"
    r"breathe in space|survive in space|stop time|grow wings|shape-?shift\w*|be made of cheese)\b"
)

REAL_GROUPS = re.compile(
    r"\b(?:women|men|girls|boys|black people|white people|asians?|asian people|hispanics?|latinos?|"
    r"latinas?|jews|jewish people|muslims?|christians?|hindus?|sikhs?|buddhists?|atheists?|"
    r"immigrants?|refugees?|gay people|gays|lesbians?|trans people|transgender people|queer people|"
    r"bisexual people|disabled people|people with disabilities|autistic people|old people|"
    r"elderly people|the elderly|poor people|homeless people|arabs?|"
    r"africans?|mexicans?|chinese people|"
    r"indians?|native americans?|indigenous people|romani|gypsies|catholics?|mormons?|"
    r"people of colou?r|minorities|blind people|deaf people|fat people|short people|redheads|"
    r"left-handed people|veterans?)\b"
)

DISCRIMINATION = re.compile(
    r"\b(?:should(?:n't| not)? be (?:allowed|permitted|banned|barred|prevented)|not be allowed to|"
    r"never be allowed|be (?:banned|barred|excluded) from|(?:can't|cannot|can not) be trusted|"
    r"are (?:inferior|stupid|lazy|dangerous|criminals|violent|dirty|evil|worse|less intelligent|"
    r"a threat)|less (?:intelligent|capable|human)|deserve (?:fewer|less|no) rights|"
    r"go back to (?:their|your) (?:country|countries)|why (?:can't|can|"
    r"don't|do|are|should)\b[^?]{0,40}\b(?:allowed|vote|marry|own|work|"
    r"serve|run for|hold|adopt|attend|drive|live))\b"
)

HOW_TO = re.compile(
    r"\bhow (?:do|can|could|would|should|might|to|does one|do you|would you|would someone)\b|"
    r"\b(?:best|easiest|fastest|quickest|simplest|most effective|cheapest|"
    r"safest) (?:way|ways|method|methods) (?:to|of|for)\b|"
    r"\bsteps? (?:to|for)\b|\bstep-by-step\b|\bguide (?:to|on|for)\b|"
    r"\binstructions (?:for|on|to)\b|"
    r"\btutorial\b|\bteach me\b|\bshow me how\b|\btips (?:for|on)\b|"
    r"\bhelp me\b|\bwhat (?:do|would) i need to\b|\bwalk me through\b|"
    r"\brecipe for\b"
)

GENERATE = re.compile(
    r"^(?:please |can you |could you |i want you to |i need you to |"
    r"now )?(?:write|create|generate|draft|compose|produce|give|list|"
    r"provide|describe|explain|detail|outline|design|develop|craft|"
    r"come up with|make|help|convince|persuade)\b"
)

DEFINITION = re.compile(
    r"^(?:what (?:is|are|was|were|does|do)\b|what's\b|define\b|definition of\b|meaning of\b|"
    r"explain (?:the )?(?:term|concept|meaning|word)\b|what do (?:people|you|they|we) mean by\b|"
    r"is it true that\b|can you explain what\b|tell me what\b)"
)

HISTORY = re.compile(
    r"\b(?:why did|how did|what happened|what was|what were|who (?:was|were)|when did|where did|"
    r"what led to|what caused|in (?:1[0-9]|20)\d\d|during (?:the )?(?:ww ?(?:i|ii|1|2)|world war|"
    r"holocaust|civil war|cold war|revolution|crusades|middle ages|vietnam war|genocide|"
    r"invasion|occupation)|history of|historical|in history|ancient|medieval|historians?)\b"
)

EVASION = re.compile(
    r"\b(?:without (?:getting caught|being (?:caught|detected|traced|"
    r"noticed|seen)|anyone (?:knowing|noticing|finding out)|leaving (?:a |"
    r"any )?(?:trace|evidence))|"
    r"undetect\w+|untraceabl\w+|get away with|(?:avoid|evade|escape|"
    r"outrun) (?:detection|the police|the cops|getting caught|suspicion|"
    r"arrest)|"
    r"cover (?:it|my tracks|up)|no one (?:will|would) (?:know|find out|notice)|secretly|covertly|"
    r"in secret|off the books|anonymously|so (?:that )?(?:it|they) (?:can't|"
    r"cannot|won't) be traced)\b"
)

PERSUADE = re.compile(
    r"\b(?:persuasive|convincing|compelling|viral|fake|"
    r"misleading) (?:article|essay|post|tweet|tweets|blog|"
    r"op-ed|speech|message|story|news|ad|advertisement|thread|campaign|"
    r"social media post|letter|email)s?\b|"
    r"\b(?:convince|persuade)\w* (?:people|readers|someone|them|the public|"
    r"voters|my \w+) (?:that|to)\b|"
    r"\b(?:arguing|claiming|suggesting|implying|asserting) that\b"
)

SAFETY_INTENT = re.compile(
    r"\b(?:protect (?:myself|my|against|yourself|your)|prevent\w*|stay safe|"
    r"keep (?:my|your|our) \w+ safe|"
    r"recogni[sz]e|warning signs|signs of|report\w* (?:it|a|abuse|fraud|scam)|defend against|"
    r"detect\w*|what should i do if|safety|safely|is it safe|is it legal|legal (?:way|ways)|"
    r"dispose of (?:old|expired|unused) (?:medication|medicine|batteries|paint)|first aid|"
    r"how to help (?:a friend|someone)|support (?:a friend|someone)|cope with|therapy)\b"
)

FIRST_PERSON_INTENT = re.compile(
    r"\b(?:i want to|i'm going to|i am going to|i plan to|i need to|help me|"
    r"i'd like to|i wanna|i will)\b"
)

TARGET_PERSON = re.compile(
    rf"\b(?:kill|hurt|harm|poison|attack|stab|shoot|strangle|drown|kidnap|beat|torture|punch|"
    rf"choke|threaten|intimidate|stalk|harass|bully|humiliate|manipulate|gaslight|blackmail|"
    rf"scam|rob|drug|frame|ruin|destroy|silence|get rid of|take out|eliminate)\w*\s+{_PERSON}"
)

COPYRIGHT_REQUEST = re.compile(
    r"\b(?:lyrics|chapter|passage|excerpt|verbatim|word for word|"
    r"the first \d+ (?:pages|lines|words))\b"
)

CUE_PATTERNS: dict[str, re.Pattern[str]] = {
    "game_or_fiction": GAME_OR_FICTION,
    "fictional_character": FICTIONAL_CHARACTERS,
    "public_entity": PUBLIC_ENTITIES,
    "nonsense_group": NONSENSE_GROUPS,
    "nonsense_ability": NONSENSE_ABILITIES,
    "real_group": REAL_GROUPS,
    "discrimination": DISCRIMINATION,
    "how_to": HOW_TO,
    "generate": GENERATE,
    "definition": DEFINITION,
    "history": HISTORY,
    "evasion": EVASION,
    "persuade": PERSUADE,
    "safety_intent": SAFETY_INTENT,
    "first_person_intent": FIRST_PERSON_INTENT,
    "target_person": TARGET_PERSON,
    "copyright_request": COPYRIGHT_REQUEST,
}


def _benign_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in BENIGN_SENSES.finditer(text)]


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end + 1 for start, end in spans) or any(
        start <= span[0] < end for start, end in spans
    )


@lru_cache(maxsize=4096)
def harm_hits(text: str) -> tuple[Mapping[str, int], int]:
    """(category -> harm-term matches outside benign senses, matches inside benign senses);
    cached, so the mapping is read-only."""
    normalized = normalize(text)
    benign = _benign_spans(normalized)
    hits: dict[str, int] = {}
    neutralized = 0
    for code, pattern in HARM_TERMS.items():
        for match in pattern.finditer(normalized):
            if _inside(match.span(), benign):
                neutralized += 1
            else:
                hits[code] = hits.get(code, 0) + 1
    return MappingProxyType(hits), neutralized + len(benign)


def cue_counts(text: str) -> dict[str, int]:
    """Counts of the framing cues in :data:`CUE_PATTERNS` (only those present)."""
    normalized = normalize(text)
    counts = {}
    for name, pattern in CUE_PATTERNS.items():
        found = len(pattern.findall(normalized))
        if found:
            counts[name] = found
    return counts


def tag_categories(text: str) -> tuple[str, ...]:
    """Llama Guard categories whose harm terms occur in ``text`` (benign senses excluded)."""
    hits, _ = harm_hits(text)
    return tuple(sorted(hits, key=lambda code: int(code[1:])))
