"""Words for the offline model: stemming and a small insurance vocabulary.

Customers rarely use a clause title's words ("loan car" for "hire car", "nicked" for
"stolen"), so both question and title words are mapped to shared concepts before they
are compared. Concepts in STRONG name a specific subject: if a question names one that no
title has, the wording has no clause for it and the question goes to staff.
"""

from __future__ import annotations

import re

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
    "hire": (
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
    "key": ("keys", "key", "smart key", "fob", "locksmith", "locks", "lock"),
    "excess": ("excess", "excesses", "how much do i pay", "what do i pay"),
    "young": ("young", "under 25", "19", "18", "teenager", "learner", "restricted", "inexperienced"),
    "driver": ("driver", "drivers", "driving", "drove", "drive", "licence", "license"),
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
    "child_seat": ("baby seat", "car seat", "child seat", "capsule", "booster"),
    "write_off": (
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
        "lodge",
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
        "flood",
        "flooded",
        "storm",
        "tsunami",
        "volcanic",
        "eruption",
        "wind",
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
    "unoccupied": ("empty", "unoccupied", "vacant", "away for", "bach", "holiday home", "nobody living"),
    "workmanship": (
        "shoddy",
        "workmanship",
        "builder",
        "roofer",
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
        "away from home",
        "on holiday",
        "on the bus",
        "lost my",
        "dropped",
        "left my",
        "outside the",
        "park bench",
        "at work",
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
}

STRONG = frozenset(CONCEPTS) - {
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
_PHRASES = sorted(
    ((phrase, concept) for concept, phrases in CONCEPTS.items() for phrase in phrases),
    key=lambda pc: -len(pc[0]),
)


def stem(word: str) -> str:
    """A light suffix-stripper: enough that 'repaired', 'repairs' and 'repairing' meet."""
    word = word.removesuffix("'s")
    for suffix, keep in (
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("er", ""),
        ("s", ""),
        ("al", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + keep
    return word


def terms(text: str) -> set[str]:
    """Concepts and stemmed content words of a text."""
    lowered = " " + " ".join(_WORD.findall(text.lower().replace("-", " "))) + " "
    found: set[str] = set()
    for phrase, concept in _PHRASES:
        needle = " " + " ".join(_WORD.findall(phrase.replace("-", " "))) + " "
        if needle in lowered:
            found.add(concept)
            lowered = lowered.replace(needle, " ")
    for word in lowered.split():
        if word not in STOPWORDS and len(word) > 2:
            found.add(stem(word))
    return found
