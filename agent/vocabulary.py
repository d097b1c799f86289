"""Words for the offline model: stemming and a small insurance vocabulary.

Customers rarely use a clause title's words ("loan car" for "hire car", "nicked" for
"stolen"), so both question and title words are mapped to shared concepts before they
are compared. Concepts in STRONG name a specific subject: if a question names one that no
title has, the wording has no clause for it and the question goes to staff.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
""".split()
)

# Words that appear everywhere and say little about which clause is meant.
GENERIC = frozenset(
    """
car vehicle home house contents policy insurance insure claim cover pay paid cost money
need want know tell happen happened new old thing things stuff item items place
""".split()
)

# concept -> words and phrases that mean it (matched after lower-casing, before stemming).
CONCEPTS: dict[str, tuple[str, ...]] = {
    "damage": (
        "damage",
        "damaged",
        "accident",
        "accidental",
        "crash",
        "crashed",
        "smashed",
        "smash",
        "cracked",
        "knocked",
        "broken",
        "ruined",
        "wrecked",
        "dent",
        "dented",
        "scratched",
        "keyed",
        "spilt",
        "spilled",
        "hail",
        "flood",
        "flooded",
        "storm",
        "water",
        "sitting in water",
        "vandal",
        "vandalism",
        "vandalised",
        "hit",
    ),
    "at_home": ("at home", "our place", "my place", "our house", "my flat", "our flat", "from home"),
    "weather": (
        "flood",
        "flooded",
        "flooding",
        "storm",
        "hail",
        "heavy rain",
        "cyclone",
        "high wind",
        "wind",
        "rain",
        "rained",
        "pouring in",
        "blown",
    ),
    "overview": (
        "schedule",
        "which car",
        "what does my policy cover",
        "what exactly does my policy cover",
        "what's covered",
        "what is covered",
        "sum insured",
        "what does it cover",
        "on my policy",
    ),
    "hire": (
        "rental",
        "hire car",
        "rental car",
        "rental",
        "rent a car",
        "loan car",
        "loaner",
        "courtesy car",
        "replacement car while",
        "alternative transport",
        "transport",
        "hire",
    ),
    "repair": (
        "panel beater",
        "panel beaters",
        "repairer",
        "repairs",
        "repaired",
        "fixed",
        "fix",
        "mechanic",
        "garage",
    ),
    "theft": (
        "break-ins",
        "broke into",
        "broken into",
        "snatched",
        "stolen",
        "stole",
        "steal",
        "nicked",
        "pinched",
        "burgled",
        "burglary",
        "burglars",
        "broke into",
        "broken into",
        "break-in",
        "break in",
        "thief",
        "thieves",
        "robbed",
        "taken",
        "took",
        "grabbed",
        "cleaned out",
        "stripped",
        "theft",
    ),
    "windscreen": ("windscreen", "windshield", "chip", "glass", "window"),
    "tow": ("tow truck", "towed", "towing", "tow"),
    "key": ("keys in", "keys", "key", "smart key", "fob", "locksmith", "locks", "lock"),
    "excess": ("excess", "excesses", "how much do i pay", "what do i pay"),
    "young": ("young", "under 25", "19", "18", "teenager", "learner", "restricted", "inexperienced"),
    "driver": (
        "borrow",
        "borrowing",
        "borrowed",
        "lend",
        "lent",
        "restricted licence",
        "learner licence",
        "driver",
        "drivers",
        "driving",
        "drove",
        "drive",
        "licence",
        "license",
    ),
    "alcohol": (
        "drunk",
        "drink",
        "drinks",
        "alcohol",
        "few too many",
        "over the limit",
        "drugs",
        "drug",
        "stoned",
    ),
    "breakdown": (
        "wrong fuel",
        "petrol in my diesel",
        "diesel in my petrol",
        "misfuel",
        "stopped heating",
        "not working",
        "doesn't work",
        "broke down",
        "packed up",
        "conked out",
        "stopped working",
        "breakdown",
        "broke down",
        "conked out",
        "died",
        "stopped working",
        "packed up",
        "gearbox",
        "engine",
        "compressor",
        "flat battery",
        "battery",
        "mechanical",
        "electrical",
        "black screen",
        "fried",
    ),
    "tyre": ("tyre", "tyres", "tire", "puncture", "nail"),
    "wear": (
        "stopped heating",
        "stopped working",
        "packed up",
        "broke down",
        "conked out",
        "mould",
        "mold",
        "mildew",
        "damp",
        "wear and tear",
        "worn",
        "rust",
        "rot",
        "rotten",
        "rotting",
        "deteriorat",
        "gradual",
        "old age",
        "wear",
    ),
    "rideshare": (
        "uber",
        "ola",
        "ride-share",
        "rideshare",
        "delivery",
        "deliveries",
        "doordash",
        "courier",
        "passenger for money",
    ),
    "racing": ("race", "racing", "track day", "raceway", "motorsport", "rally"),
    "belongings": ("belongings", "laptop bag", "gym bag", "tools", "possessions", "personal items"),
    "child_seat": (
        "car seat",
        "baby seat",
        "child car seat",
        "baby seat",
        "car seat",
        "child seat",
        "capsule",
        "booster",
    ),
    "write_off": (
        "write off",
        "total loss",
        "write-off",
        "written off",
        "total loss",
        "totalled",
        "write off",
        "writeoff",
        "never found",
        "not recovered",
    ),
    "liability": (
        "mate's car",
        "his car",
        "her car",
        "their car",
        "other car",
        "landlord's",
        "the landlord",
        "someone else",
        "liable",
        "liability",
        "sue",
        "suing",
        "sued",
        "neighbour's",
        "third party",
        "other driver",
        "someone else's",
        "cyclist",
        "injur",
        "hurt",
    ),
    "accommodation": (
        "rental",
        "rent somewhere",
        "a rental for",
        "motel",
        "hotel",
        "accommodation",
        "somewhere to stay",
        "where do we stay",
        "live somewhere",
        "stay",
        "flights home",
        "airbnb",
        "unliveable",
        "uninhabitable",
        "can't live",
    ),
    "travel": ("far from home", "away from home", "travel", "flights", "stranded"),
    "overseas": ("overseas", "australia", "aussie", "abroad", "uk", "bali", "interislander", "south island"),
    "cancel": ("cancel", "cancelling", "refund", "money back", "sold", "selling", "sell", "settlement is"),
    "no_claims": ("no claims", "no-claims", "ncb", "bonus"),
    "duty": (
        "tell you",
        "let you know",
        "notify",
        "modification",
        "modified",
        "lowered",
        "mags",
        "wof",
        "warrant of fitness",
        "roadworthy",
        "duties",
        "renovation",
        "reno",
        "extension",
        "alter",
    ),
    "settle": (
        "write off",
        "total loss",
        "take the money",
        "give me the money",
        "the money",
        "cash out",
        "instead of rebuilding",
        "instead of repairing",
        "supplier",
        "replacement",
        "new one",
        "new for old",
        "what it's worth",
        "depreciation",
        "how much you'll pay",
        "how much will i get",
        "how much do i get back",
        "settle",
        "settled",
        "settlement",
        "how much will you pay",
        "work out",
        "market value",
        "agreed value",
        "second-hand parts",
        "replace as new",
        "cash",
        "pair",
        "set",
        "matches",
        "match",
    ),
    "how_to_claim": (
        "how to claim",
        "lodge",
        "making a claim",
        "proof of ownership",
        "no receipts",
        "don't have receipts",
        "make a claim",
        "how do i claim",
        "police report",
        "report it",
        "what do i need to send",
        "photos",
        "receipts",
        "proof",
        "admit",
        "sorry",
        "cops",
        "police",
    ),
    "earthquake": (
        "earthquake",
        "quake",
        "shake",
        "eqc",
        "nhc",
        "natural hazard",
        "landslip",
        "slip",
        "tsunami",
        "volcanic",
        "eruption",
    ),
    "emergency": ("emergency", "urgent", "tarp", "stop the water", "make safe", "temporary repair"),
    "demolition": (
        "demolition",
        "demolish",
        "knock down",
        "debris",
        "cart it away",
        "cut up",
        "tree",
        "rubble",
    ),
    "code": ("council", "building code", "code", "consent", "permit", "regulations", "insulation rules"),
    "leak": ("leak", "leaking", "leaky", "drip", "dripping", "seeping", "concealed pipe", "hidden pipe"),
    "pipe": ("pipe", "pipes", "plumbing", "burst", "cylinder"),
    "vermin": ("rats", "mice", "rodents", "vermin", "insects", "moths", "borer", "termites", "pest"),
    "pet": ("dog", "cat", "puppy", "kitten", "pets", "pet", "vet"),
    "mould": ("mould", "mold", "damp", "mildew"),
    "unoccupied": (
        "overseas for",
        "off overseas",
        "going away",
        "travelling for",
        "three months away",
        "away for months",
        "empty",
        "unoccupied",
        "vacant",
        "away for",
        "bach",
        "holiday home",
        "nobody living",
    ),
    "workmanship": (
        "without a permit",
        "without consent",
        "unconsented",
        "himself",
        "herself",
        "myself",
        "built it",
        "shoddy",
        "workmanship",
        "builder",
        "defective",
        "faulty",
        "diy",
        "myself without",
    ),
    "tenant": ("tenant", "tenants", "landlord", "meth", "rent owing", "did a runner"),
    "fence": ("fence", "fences", "retaining wall", "pool", "driveway", "deck"),
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
        "jewellery box",
    ),
    "cash": ("cash", "money in", "notes"),
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
        "camera",
        "ipad",
        "tablet",
        "modem",
        "speakers",
    ),
    "collection": ("stamp", "stamps", "coins", "art", "painting", "collection", "albums"),
    "limit": (
        "limit",
        "limits",
        "how much will you give",
        "how much do i get",
        "maximum",
        "max",
        "fully covered",
        "full value",
        "worth",
        "listed separately",
        "specified",
    ),
    "portable": (
        "off my shoulder",
        "snatched",
        "in the street",
        "in town",
        "out and about",
        "handbag",
        "away from home",
        "on holiday",
        "on the bus",
        "lost my",
        "dropped",
        "left my",
        "outside the",
        "park bench",
        "sunnies",
        "sunglasses",
        "portable",
    ),
    "food": (
        "food",
        "freezer",
        "fridge",
        "meat",
        "fish",
        "lamb",
        "spoiled",
        "spoilage",
        "power cut",
        "power was out",
        "went off",
    ),
    "moving": (
        "moving",
        "shifting",
        "removal",
        "removals",
        "truck",
        "storage unit",
        "storage",
        "transit",
        "move house",
        "moved",
    ),
    "visitor": (
        "visitor",
        "visitors",
        "guest",
        "guests",
        "staying with us",
        "stayed",
        "mate",
        "sister",
        "brother",
    ),
    "card": ("credit card", "bank card", "card details", "eftpos", "fraud", "scam", "wallet"),
    "flatmate": (
        "flatmate",
        "flatmates",
        "household",
        "unlocked",
        "forgot to lock",
        "walked in",
        "left the door",
    ),
    "business": (
        "business",
        "work laptop",
        "stock",
        "sell",
        "instagram",
        "home office",
        "work from home",
        "data",
        "photos back",
        "software",
    ),
    "student": (
        "uni",
        "university",
        "student",
        "hall",
        "halls",
        "hearing aid",
        "hearing aids",
        "glasses",
        "spectacles",
        "rest home",
        "hospital",
    ),
    "appliance": ("appliance", "appliances", "fridge", "oven", "dishwasher", "washing machine"),
    "plan": ("premier", "standard plan", "plan", "plans"),
    # Service questions that no policy wording answers: claim progress, payment timing,
    # premiums and prices, other insurers, referrals. No title has these words, so the
    # subject gate routes such questions to staff instead of quoting a loose match.
    "claim_progress": (
        "claim up to",
        "where's my claim",
        "where is my claim",
        "status of my claim",
        "update on my claim",
        "heard nothing",
        "heard back",
        "assessor been",
        "how long will it take",
        "when will the money",
        "when will i get paid",
        "when will i be paid",
        "land in my account",
        "land in my bank",
        "paid into my account",
    ),
    "premium_price": (
        "premium go up",
        "premium going up",
        "premium increase",
        "premium be",
        "pay my premium",
        "fortnightly",
        "cheaper",
        "discount",
        "better value",
    ),
    "other_insurer": ("another insurer", "other insurer", "another company", "the banks offer"),
    "referral": (
        "recommend a",
        "recommend any",
        "good builder",
        "phone number",
        "direct number",
        "talk to the assessor",
        "assessor's name",
        "what was his name",
        "what was her name",
    ),
}

# Questions about these go to staff whatever else they mention.
SERVICE = frozenset({"claim_progress", "premium_price", "other_insurer", "referral"})

STRONG = frozenset(CONCEPTS) - {
    "plan",
    "write_off",
    "at_home",
    "damage",
    "weather",
    "overview",
    "repair",
    "theft",
    "limit",
    "settle",
    "duty",
    "driver",
    "pipe",
    "how_to_claim",
    "cash",
}

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """A light suffix-stripper: enough that 'repaired', 'repairs' and 'repairing' meet."""
    word = word.removesuffix("'s").replace("'", "")
    for suffix, keep in (
        ("ies", "y"),
        ("ment", ""),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("er", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + keep
    return word


def _tokens(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("-", " "))]


def _phrase_table() -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Stemmed phrase -> every concept it names (a phrase may mean more than one), longest first."""
    table: dict[tuple[str, ...], set[str]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            table.setdefault(tuple(_tokens(phrase)), set()).add(concept)
    return sorted(((k, frozenset(v)) for k, v in table.items() if k), key=lambda kv: -len(kv[0]))


_PHRASES = _phrase_table()
# Phrases by their first word, with their rank in _PHRASES, so a text is scanned once.
_BY_FIRST: dict[str, list[tuple[int, tuple[str, ...], frozenset[str]]]] = {}
for _rank, (_phrase, _concepts) in enumerate(_PHRASES):
    _BY_FIRST.setdefault(_phrase[0], []).append((_rank, _phrase, _concepts))
_STOP = STOPWORDS | {stem(w) for w in STOPWORDS}


@lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    """Concepts and stemmed content words of a text.

    Phrases are matched on stemmed words ('child car seats' meets 'car seat'), longest
    first; the words of a matched phrase are used up, so 'rental car' is not also 'car'.
    Cached: titles and clause sentences recur on every turn.
    """
    words = _tokens(text)
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
        if not taken and word not in _STOP and len(word) > 2:
            found.add(word)
    return frozenset(found)
