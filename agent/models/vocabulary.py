"""Words for the offline model: stemming and a general insurance vocabulary.

Customers rarely use a clause title's words ("loaner" for "hire car", "nicked" for
"stolen"), so question and title words are both mapped to shared concepts before they are
compared. The vocabulary is what a person who knows insurance would write down without
looking at any customer question: everyday synonyms of the subjects a car, home or contents
wording deals with. A phrase of more than one word is used only when it occurs in a policy
wording (a test holds this); everything else is single words, stemmed by Snowball.

Concepts in STRONG name a specific subject: a question that names one that no title of the
claimant's wording has is not about this policy. The answerability cues at the end (other
products, service requests, claim progress, advice, complaints) are words for what no
policy wording answers.
"""

from __future__ import annotations

import re
import threading
from functools import cache, lru_cache

import snowballstemmer

STOPWORDS = frozenset(
    """
a about above after again all am an and any anything are as at be because been before being
below between both but by can could did do does doing don down during each else even ever
every few for from further get gets getting got had has have having he her here hers him
his how i if in into is it its itself just let me mine more most my myself no nor not now
of off on once only or other our ours out over own same she should so some such than that
the their theirs them then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours
yourself still also really heaps lot lots bit im ive id youre dont didnt cant wont isnt
whats thats theres hey hi thanks please one two three four five six seven eight nine ten
last next week weeks month months year years day days night tonight today yesterday morning
u ur pls plz ok okay yeah yep guys like just include includes included including
""".split()
)

# Words that appear everywhere and say little about which clause is meant.
GENERIC = frozenset(
    """
car vehicle home house contents policy insurance insure insured claim cover covered pay paid
cost money need want know tell happen happened new old thing things stuff item items place
""".split()
)

# concept -> words (and phrases found in the wordings) that mean it; matched on stemmed words.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "damage": (
        "damage",
        "damaged",
        "accident",
        "accidental",
        "crash",
        "crashed",
        "collision",
        "smashed",
        "smash",
        "cracked",
        "broken",
        "ruined",
        "wrecked",
        "dent",
        "dented",
        "scratched",
        "keyed",
        "spilt",
        "spilled",
        "vandal",
        "vandalism",
        "vandalised",
        "hit",
        "prang",
        "pranged",
        "bumped",
        "fire",
        "burnt",
        "flood",
        "flooded",
        "storm",
        "hail",
        "water",
    ),
    "at_home": ("at home", "from home", "flat", "lounge", "bedroom", "kitchen"),
    "weather": ("flood", "flooded", "flooding", "storm", "hail", "cyclone", "wind", "rain", "blown", "gale"),
    "overview": ("schedule", "sum insured", "policyholder"),
    "hire": (
        "rental",
        "hire car",
        "rental car",
        "loan car",
        "loaner",
        "courtesy car",
        "alternative transport",
        "transport",
        "taxi",
        "taxis",
        "bus",
    ),
    "repair": (
        "repairer",
        "repairs",
        "repaired",
        "fixed",
        "fix",
        "mechanic",
        "garage",
        "beaters",
    ),
    "theft": (
        "break-in",
        "break in",
        "stolen",
        "stole",
        "steal",
        "nicked",
        "pinched",
        "burgled",
        "burglary",
        "burglar",
        "burglars",
        "thief",
        "thieves",
        "robbed",
        "robbery",
        "theft",
        "snatched",
        "swiped",
        "taken",
        "took",
    ),
    "windscreen": ("windscreen", "windshield", "chip", "chipped", "glass", "window"),
    "tow": ("towed", "towing", "tow", "storage"),
    "key": ("keys", "key", "smart key", "remote", "fob", "locksmith", "locks", "lock", "immobiliser"),
    "excess": ("excess", "excesses", "deductible"),
    "young": ("young", "under 25", "teenager", "teen", "learner", "restricted", "inexperienced"),
    "driver": (
        "borrow",
        "borrowed",
        "lend",
        "lent",
        "restricted licence",
        "driver",
        "drivers",
        "driving",
        "drove",
        "drive",
        "licence",
        "license",
        "unlicensed",
        "disqualified",
    ),
    "alcohol": (
        "drunk",
        "drink",
        "drinking",
        "drinks",
        "alcohol",
        "pub",
        "booze",
        "drugs",
        "drug",
        "stoned",
    ),
    "breakdown": (
        "wrong fuel",
        "broke down",
        "flat battery",
        "breakdown",
        "gearbox",
        "engine",
        "battery",
        "mechanical",
        "electrical",
        "electronic",
        "conked",
        "died",
        "faulty",
        "petrol",
        "diesel",
        "misfuel",
        "stopped",
        "fried",
        "surge",
    ),
    "tyre": ("tyre", "tyres", "tire", "tires", "puncture", "punctured"),
    "wear": (
        "broke down",
        "wear and tear",
        "mould",
        "mold",
        "mildew",
        "damp",
        "worn",
        "rust",
        "rusty",
        "rot",
        "rotten",
        "rotting",
        "deteriorated",
        "gradual",
        "gradually",
        "ageing",
        "wear",
        "stopped",
    ),
    "rideshare": ("uber", "ola", "ride-share", "rideshare", "delivery", "deliveries", "courier"),
    "racing": ("race", "racing", "raceway", "motorsport", "rally", "circuit"),
    "belongings": ("belongings", "bag", "tools", "possessions", "luggage", "sunglasses"),
    "child_seat": ("car seat", "child car seat", "child seat", "booster", "capsule", "baby"),
    "write_off": (
        "total loss",
        "written off",
        "write-off",
        "writeoff",
        "totalled",
        "totaled",
        "unrepairable",
    ),
    "liability": (
        "their car",
        "the landlord",
        "other driver",
        "liable",
        "liability",
        "sue",
        "suing",
        "sued",
        "neighbour",
        "neighbours",
        "injured",
        "injury",
        "hurt",
        "compensation",
        "fault",
    ),
    "accommodation": (
        "motel",
        "hotel",
        "accommodation",
        "stay",
        "staying",
        "airbnb",
        "unliveable",
        "uninhabitable",
        "unlivable",
        "rent",
        "rental",
    ),
    "travel": ("far from home", "away from home", "travel", "flights", "flight", "stranded"),
    "overseas": ("overseas", "australia", "aussie", "abroad", "ferry", "south island", "north island"),
    "cancel": ("cancel", "cancelling", "cancellation", "refund", "refunded", "sell", "selling", "sold"),
    "no_claims": ("no claims", "no-claims", "ncb", "bonus"),
    "duty": (
        "tell you",
        "notify",
        "modification",
        "modifications",
        "modified",
        "wof",
        "warrant of fitness",
        "roadworthy",
        "duties",
        "renovation",
        "renovations",
        "renovating",
        "reno",
        "alteration",
        "extension",
    ),
    "settle": (
        "total loss",
        "new one",
        "market value",
        "agreed value",
        "settle",
        "settled",
        "settlement",
        "valuation",
        "value",
        "worth",
        "depreciation",
        "cash",
        "payout",
        "replace",
        "replacement",
        "pair",
        "set",
        "match",
        "matching",
        "parts",
    ),
    "how_to_claim": (
        "how to claim",
        "making a claim",
        "proof of ownership",
        "make a claim",
        "police report",
        "report it",
        "lodge",
        "documents",
        "form",
        "forms",
        "proof",
        "receipt",
        "receipts",
        "photos",
        "evidence",
        "police",
        "cops",
        "admit",
        "sorry",
        "apologise",
        "send",
    ),
    "earthquake": (
        "earthquake",
        "quake",
        "natural hazard",
        "nhc",
        "eqc",
        "landslip",
        "landslide",
        "slip",
        "tsunami",
        "volcanic",
        "eruption",
    ),
    "emergency": ("emergency", "urgent", "urgently", "tarp", "tarpaulin", "temporary", "secure"),
    "demolition": (
        "demolition",
        "demolish",
        "knock",
        "debris",
        "cut up",
        "tree",
        "rubble",
        "asbestos",
        "clean-up",
    ),
    "code": ("council", "building code", "code", "consent", "permit", "regulations", "compliance"),
    "leak": ("leak", "leaking", "leaky", "drip", "dripping", "seeping", "seep"),
    "pipe": ("pipe", "pipes", "plumbing", "burst", "cylinder"),
    "vermin": ("rats", "mice", "rodents", "vermin", "insects", "moths", "borer", "possum", "possums", "pest"),
    "pet": ("dog", "cat", "kitten", "pets", "pet", "chewed"),
    "mould": ("mould", "mold", "damp", "mildew"),
    "unoccupied": ("holiday home", "empty", "unoccupied", "vacant", "bach", "crib", "away", "overseas"),
    "workmanship": (
        "unconsented",
        "shoddy",
        "workmanship",
        "builder",
        "defective",
        "faulty",
        "diy",
        "permit",
        "tradesperson",
        "tradie",
    ),
    "tenant": ("tenant", "tenants", "tenancy", "landlord", "meth", "methamphetamine"),
    "fence": ("fence", "fences", "retaining wall", "pool", "spa", "driveway", "gate"),
    "jewellery": (
        "jewellery",
        "jewelry",
        "ring",
        "rings",
        "necklace",
        "earring",
        "earrings",
        "watch",
        "watches",
        "pearl",
        "diamond",
        "bracelet",
        "pendant",
    ),
    "cash": ("cash", "notes"),
    "bicycle": ("bike", "bikes", "bicycle", "e-bike", "ebike", "cycle"),
    "electronics": (
        "laptop",
        "phone",
        "iphone",
        "tv",
        "telly",
        "television",
        "computer",
        "pc",
        "playstation",
        "xbox",
        "console",
        "camera",
        "ipad",
        "tablet",
        "speaker",
        "electronics",
    ),
    "collection": ("stamp", "stamps", "coins", "art", "painting", "collection"),
    "limit": ("limit", "limits", "maximum", "max", "most", "specified"),
    "portable": (
        "portable",
        "carry",
        "carrying",
        "handbag",
        "wallet",
        "sunglasses",
        "dropped",
        "lost",
        "outside",
        "public",
    ),
    "food": ("food", "freezer", "fridge", "meat", "spoiled", "spoilt", "spoilage", "power cut", "outage"),
    "moving": ("moving", "shifting", "removal", "removals", "movers", "storage unit", "storage", "transit"),
    "visitor": ("visitor", "visitors", "guest", "guests", "visiting"),
    "card": ("credit", "debit", "card", "cards", "eftpos", "fraud", "fraudulent", "scam"),
    "flatmate": ("flatmate", "flatmates", "household", "boarder", "unlocked"),
    "business": ("business", "work laptop", "stock", "office", "data", "software", "files"),
    "student": (
        "uni",
        "university",
        "student",
        "hall",
        "halls",
        "hearing aids",
        "glasses",
        "spectacles",
        "rest home",
        "hospital",
    ),
    "plan": ("plan", "plans"),
    "appliance": (
        "appliance",
        "appliances",
        "fridge",
        "oven",
        "dishwasher",
        "washing machine",
        "dryer",
        "heat pump",
    ),
}

# Subject words that say little about which clause is meant on their own.
STRONG = frozenset(f"#{c}" for c in CONCEPTS) - {
    "#write_off",
    "#at_home",
    "#damage",
    "#weather",
    "#overview",
    "#repair",
    "#theft",
    "#limit",
    "#settle",
    "#duty",
    "#driver",
    "#pipe",
    "#how_to_claim",
    "#cash",
    "#emergency",
    "#portable",
    "#liability",
}

# Answerability cues: what no policy wording answers. Single words; the offline model
# combines them (a request to the insurer + a service verb, "insurance" + a product noun).
PRODUCTS = frozenset(
    "boat boats yacht jetski travel pet pets life health medical income funeral mortgage loan "
    "kiwisaver business landlord farm caravan motorbike motorcycle".split()
)
PRODUCT_NOUNS = frozenset("insurance insurances policy cover quote quotes".split())
SELLING = frozenset("sell sells offer offers quote quotes price prices buy".split())
FINANCE = frozenset("interest kiwisaver investment investments".split())
SERVICE_VERBS = frozenset(
    "send ring phone call email text book arrange organise organize chase contact track find "
    "post courier pick collect sort visit come".split()
)
SERVICE_PLACES = frozenset("branch branches".split())
PROGRESS = frozenset("update updates news status progress heard hearing waiting booked".split())
PROGRESS_PEOPLE = frozenset("assessor assessors loss adjuster adjusters handler".split())
ADVICE = frozenset("reckon recommend recommendation advise advice suggest opinion bother".split())
COMPLAINT = frozenset("complain complaint complaints rude unhappy disgusted ombudsman unacceptable".split())
PRICE = frozenset("premium premiums discount cheaper price quote".split())
# A decision on the claim itself: only staff make one.
DECISION = frozenset("approve approved approval decline declined decision decided accepted rejected".split())
OTHER_INSURER = frozenset("insurer insurers company companies".split())

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# A Snowball stemmer keeps its working state on the object, so two threads sharing one
# corrupt each other's words (IndexError, wrong stems): one stemmer per thread.
_PER_THREAD = threading.local()


def _stemmer() -> snowballstemmer.stemmer:
    stemmer = getattr(_PER_THREAD, "stemmer", None)
    if stemmer is None:
        stemmer = _PER_THREAD.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@cache
def stem(word: str) -> str:
    """Snowball's English stemmer, after dropping a possessive ('landlord's' → 'landlord').
    Safe from any thread: the cache only keeps results; the stemming is per thread."""
    return _stemmer().stemWord(word.removesuffix("'s").replace("'", ""))


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed words of a text (hyphens split words)."""
    return [stem(w) for w in _WORD.findall(text.lower().replace("-", " "))]


def stems(words: frozenset[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


def _phrase_table() -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Stemmed phrase -> every concept ('#name', never a word) it names, longest first."""
    table: dict[tuple[str, ...], set[str]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            table.setdefault(tuple(tokens(phrase)), set()).add(f"#{concept}")
    return sorted(((k, frozenset(v)) for k, v in table.items() if k), key=lambda kv: -len(kv[0]))


_PHRASES = _phrase_table()
# Phrases by their first word, with their rank in _PHRASES, so a text is scanned once.
_BY_FIRST: dict[str, list[tuple[int, tuple[str, ...], frozenset[str]]]] = {}
for _rank, (_phrase, _concepts) in enumerate(_PHRASES):
    _BY_FIRST.setdefault(_phrase[0], []).append((_rank, _phrase, _concepts))
STOP = STOPWORDS | stems(STOPWORDS)
GENERIC_STEMS = GENERIC | stems(GENERIC)


@lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    """Concepts ('#theft') and stemmed content words of a text.

    Phrases are matched on stemmed words ('child car seats' meets 'car seat'), longest
    first; the words of a matched phrase are used up, so 'rental car' is not also 'car'.
    Cached: titles and clause sentences recur on every turn.
    """
    words = tokens(text)
    matches = [
        (rank, i, phrase, concepts)
        for i, word in enumerate(words)
        for rank, phrase, concepts in _BY_FIRST.get(word, ())
        if tuple(words[i : i + len(phrase)]) == phrase
    ]
    used = [False] * len(words)
    found: set[str] = set()
    for _, i, phrase, concepts in sorted(matches, key=lambda m: (m[0], m[1])):
        n = len(phrase)
        if not any(used[i : i + n]):
            found |= concepts
            used[i : i + n] = [True] * n
    for word, taken in zip(words, used, strict=True):
        if not taken and word not in STOP and len(word) > 2:
            found.add(word)
    return frozenset(found)
