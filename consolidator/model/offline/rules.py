"""Rule-based claim extraction for the offline backend.

A *claim* is (subject, attribute, value, polarity) plus a rendered third-person sentence. The
same parser reads people's messages ("I moved from London to Paris") and stored facts
("Maya lives in London."), so a new claim can be compared with its neighbours attribute by
attribute. A sentence is cut into segments at conjunctions and commas; each segment is an
optional subject (I, a name, "my sister Ana", she/he/they) and a predicate matched against the
rules below. A segment with no subject inherits the previous one ("Maya injured her knee and
is no longer training"). Values are copied from the text; only the connecting verbs of the
templates ("lives in", "works at") are the backend's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum

from consolidator.model.offline.text import (
    NAME_STOPWORDS,
    RELATIONS,
    SPECIES,
    clean_general,
    clean_org,
    clean_place,
    content_stems,
    normalise,
    sentences,
    swap_first_person,
    third_person,
    third_person_predicate,
)


class Polarity(str, Enum):
    ASSERTED = "asserted"  # "Maya lives in Paris"
    ENDED = "ended"  # "no longer", "stopped", "quit", "... any more": true before, not now
    DENIED = "denied"  # "is not", "does not", "never": the stored statement is wrong


@dataclass(frozen=True)
class AttrSpec:
    topic: str
    importance: int
    single: bool  # one current value per subject (a new value replaces the old)
    critical: bool = False


ATTRS: dict[str, AttrSpec] = {
    "home": AttrSpec("home", 7, True),
    "origin": AttrSpec("home", 5, True),
    "employer": AttrSpec("work", 7, True),
    "job": AttrSpec("work", 7, True),
    "diet": AttrSpec("diet", 8, True),
    "avoids": AttrSpec("diet", 7, False),
    "eats": AttrSpec("diet", 4, False),
    "allergy": AttrSpec("health", 10, False, critical=True),
    "condition": AttrSpec("health", 9, False, critical=True),
    "injury": AttrSpec("health", 6, False),
    "pet": AttrSpec("pets", 6, False),
    "relation": AttrSpec("relations", 6, False),
    "training": AttrSpec("plans", 6, True),
    "learning": AttrSpec("plans", 5, False),
    "plan": AttrSpec("plans", 5, False),
    "goal": AttrSpec("plans", 5, False),
    "likes": AttrSpec("preferences", 4, False),
    "dislikes": AttrSpec("preferences", 4, False),
    "favourite": AttrSpec("preferences", 4, True),
    "age": AttrSpec("personal", 5, True),
    "habit": AttrSpec("general", 5, False),
}


def spec_of(attribute: str) -> AttrSpec:
    return ATTRS[attribute.split(" ", 1)[0]]


@dataclass(frozen=True)
class Claim:
    subject: str
    attribute: str  # a key of ATTRS, or "favourite <thing>"
    value: str
    text: str
    polarity: Polarity = Polarity.ASSERTED
    detail: str = ""  # how a contact's details show the value; defaults to `value`
    person: bool = True  # False for pets and unnamed relatives ("Maya's sister")
    sentence: str = ""
    source_ids: tuple[str, ...] = field(default=())

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(content_stems(self.value))


def same_subject(a: str, b: str) -> bool:
    """Equal, or one is the other's first name ('Ana' ~ 'Ana Lopez')."""
    x, y = a.lower().split(), b.lower().split()
    if not x or not y:
        return False
    return x == y or (min(len(x), len(y)) == 1 and x[0] == y[0])


def values_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """One value's content words contain the other's (an empty value matches anything)."""
    sa, sb = set(a), set(b)
    return not sa or not sb or sa <= sb or sb <= sa


# --- predicate rules -----------------------------------------------------------------------

_ADV = r"(?:(?:now|currently|still|also|just|recently|finally|actually|really|already|officially|both) )*"
_BE = r"(?:am|is|are|was) "
_HAVE = r"(?:(?:have|has) )?"
_START = r"(?:(?:started|began|begun|start|starting) )?"  # "started working as ...": the job itself
_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten-free|dairy-free|halal|kosher|flexitarian"
_CONDITIONS_N = (
    r"diabetes|type 1 diabetes|type 2 diabetes|asthma|epilepsy|celiac disease|coeliac disease|"
    r"a heart condition|high blood pressure|hypertension"
)
_SEVERITY = r"(?P<sev>(?:serious|severe|mild|bad|life-threatening|deadly|strong) )?"
_CONDITIONS_A = r"diabetic|epileptic|asthmatic|lactose intolerant|gluten intolerant|celiac|coeliac|pregnant"
_JOBS = (
    r"(?:[a-z]+ )?(?:nurse|doctor|teacher|engineer|developer|programmer|designer|lawyer|accountant|"
    r"architect|chef|cook|writer|journalist|student|manager|consultant|pilot|farmer|dentist|vet|"
    r"veterinarian|researcher|professor|lecturer|photographer|artist|musician|plumber|electrician|"
    r"carpenter|mechanic|firefighter|police officer|paramedic|surgeon|analyst|banker|cashier|waiter|"
    r"waitress|barista|driver|translator|editor|actor|actress|dancer|coach|nanny|receptionist|"
    r"secretary|entrepreneur|founder|freelancer|intern|[a-z]+(?:ist|ician|eer|ographer|ologist))"
)
_PET = rf"(?P<sp>{SPECIES})(?: (?:named|called) (?P<name>[A-Z][\w-]*))?\b.*"
_INJURY_ADJ = {"injured": "injured", "broke": "broken", "broken": "broken", "sprained": "sprained",
               "hurt": "hurt", "twisted": "twisted", "fractured": "fractured", "tore": "torn", "torn": "torn"}

_RULES: list[tuple[str, str, str, object]] = [
    # (attribute, predicate regex, asserted template, value cleaner)
    ("home", rf"{_ADV}(?:lives?|living) in (?P<v>.+)", "{s} lives in {v}.", clean_place),
    ("home", rf"{_BE}{_ADV}(?:living|based|settled) in (?P<v>.+)", "{s} lives in {v}.", clean_place),
    ("home", rf"{_HAVE}{_ADV}(?:moved|relocated)(?: back)?(?: from (?P<prev>[^,]+?))? (?:to|into) (?P<v>.+)",
     "{s} lives in {v}.", clean_place),
    ("origin", rf"{_BE}{_ADV}(?:originally )?from (?P<v>.+)", "{s} is from {v}.", clean_place),
    ("origin", rf"{_ADV}grew up in (?P<v>.+)", "{s} grew up in {v}.", clean_place),
    ("job", rf"(?:{_BE})?{_ADV}{_START}(?:works?|working) as (?P<v>.+)", "{s} works as {v}.", clean_org),
    ("job", rf"{_BE}{_ADV}(?P<v>an? {_JOBS})$", "{s} is {v}.", clean_general),
    ("employer", rf"(?:{_BE})?{_ADV}{_START}(?:works?|working|employed) (?:at|for|by) (?P<v>.+)", "{s} works at {v}.", clean_org),
    ("employer", rf"{_HAVE}{_ADV}(?:joined|started (?:a new job |working )?at|got a (?:new )?job (?:at|with)) (?P<v>.+)",
     "{s} works at {v}.", clean_org),
    ("employer", r"(?:my|her|his|their) (?:job|position|role)(?: (?:at|with) (?P<v>.+))?$", "{s} works at {v}.", clean_org),
    ("diet", rf"{_BE}{_ADV}(?:an? )?(?:strict |strictly |fully )?(?P<v>{_DIETS})\b.*", "{s} is {v}.", clean_general),
    ("diet", rf"{_HAVE}{_ADV}(?:went|gone|turned|become|became|going) (?P<v>{_DIETS})\b.*", "{s} is {v}.", clean_general),
    ("eats", rf"{_ADV}eats? (?P<v>.+)", "{s} eats {v}.", clean_general),
    ("avoids", rf"{_ADV}avoids? (?P<v>.+)", "{s} avoids {v}.", clean_general),
    ("allergy", rf"(?:{_BE})?{_ADV}(?P<sev>(?:very|severely|seriously|deathly|highly|mildly|extremely|badly) )?allergic to (?P<v>.+)",
     "{s} is {sev}allergic to {v}.", clean_general),
    ("allergy", rf"{_HAVE}{_ADV}(?P<art>an?) {_SEVERITY}allergy to (?P<v>.+)",
     "{s} has {art} {sev}allergy to {v}.", clean_general),
    ("allergy", rf"{_HAVE}{_ADV}(?P<art>an?) {_SEVERITY}(?P<v>[\w-]+(?: [\w-]+)?) allergy\b.*",
     "{s} has {art} {sev}{v} allergy.", clean_general),
    ("condition", rf"{_HAVE}{_ADV}(?P<v>{_CONDITIONS_N})\b.*", "{s} has {v}.", clean_general),
    ("condition", rf"{_BE}{_ADV}(?P<v>{_CONDITIONS_A})\b.*", "{s} is {v}.", clean_general),
    ("injury", rf"{_HAVE}{_ADV}(?P<verb>{'|'.join(_INJURY_ADJ)}) (?:my|her|his|their|a) (?P<v>[a-z]+)\b.*",
     "{s}'s {v} is {adj}.", clean_general),
    ("pet", rf"{_HAVE}{_ADV}(?P<verb>adopted|got|bought|rescued) (?P<art>an?) (?:new |little |young |baby )?{_PET}",
     "{s} {verb} {art} {sp}{named}.", clean_general),
    ("pet", rf"(?:have|has) {_ADV}(?P<art>an?) {_PET}",
     "{s} has {art} {sp}{named}.", clean_general),
    ("relation", rf"{_BE}(?:(?P<my>my|our)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|the user)'s) (?P<rel>{RELATIONS})\b.*",
     "{s} is {owner}'s {rel}.", clean_general),
    ("training", rf"(?:{_BE})?{_ADV}training for (?P<v>.+)", "{s} is training for {v}.", clean_general),
    ("learning", rf"(?:{_BE})?{_ADV}learning (?P<v>.+)", "{s} is learning {v}.", clean_general),
    ("learning", rf"{_HAVE}{_ADV}(?:started|began|begun) (?:learning|to learn) (?P<v>.+)", "{s} is learning {v}.", clean_general),
    ("plan", rf"{_BE}{_ADV}(?P<verb>planning|hoping) to (?P<v>.+)", "{s} is {verb} to {v}.", clean_general),
    ("plan", rf"{_ADV}(?:plans?|intends?) to (?P<v>.+)", "{s} plans to {v}.", clean_general),
    ("goal", r"(?:my|her|his|their) (?:goal|dream) is to (?P<v>.+)", "{s} wants to {v}.", clean_general),
    ("goal", rf"{_ADV}(?:hopes?|dreams? of) (?P<v>.+)", "{s} hopes to {v}.", clean_general),
    ("likes", rf"{_ADV}(?:absolutely |totally )?(?P<verb>loves?|likes?|enjoys?|adores?) (?P<v>.+)", "{s} {verb3} {v}.", clean_general),
    ("dislikes", rf"{_ADV}(?P<verb>hates?|dislikes?|detests?|cannot stand|can not stand) (?P<v>.+)", "{s} {verb3} {v}.", clean_general),
    ("age", rf"{_BE}(?P<v>\d{{1,3}})(?: years? old| yrs old)?$", "{s} is {v} years old.", clean_general),
    ("age", rf"{_HAVE}{_ADV}turned (?P<v>\d{{1,3}})\b.*", "{s} is {v} years old.", clean_general),
]
RULES = [(a, re.compile(p, re.I), t, c) for a, p, t, c in _RULES]

_FAVOURITE = re.compile(
    r"(?:(?P<my>[Mm]y)|(?P<pron>[Hh]er|[Hh]is|[Tt]heir)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|[Tt]he user)'s) "
    r"favou?rite (?P<k>[a-z]+(?: [a-z]+)?) is (?P<v>.+)"
)
_NEGATIONS = [
    (re.compile(r"^(am|is|are) no longer ", re.I), r"\1 ", Polarity.ENDED),
    (re.compile(r"^(am|is|are) not ", re.I), r"\1 ", Polarity.DENIED),
    (re.compile(r"^no longer ", re.I), "", Polarity.ENDED),
    (re.compile(r"^(?:do|does|did) not ", re.I), "", Polarity.DENIED),
    (re.compile(r"^never ", re.I), "", Polarity.DENIED),
    (re.compile(r"^(?:have |has )?(?:stopped|quit|given up|gave up)(?: on)? ", re.I), "", Polarity.ENDED),
]
_LEADING_ADV = re.compile(r"^(?:(?:also|still|now|really|actually|just|honestly) )+", re.I)
_ANYMORE = re.compile(r"\s+(?:any ?more|any longer)$", re.I)
# Flips: "does not like X" is a dislike, "does not eat X" an avoidance; both stated positively.
_DENIED_FLIP = {"likes": "dislikes", "eats": "avoids"}
_DEICTIC = re.compile(r"(?:this|that|these|those|it|them|you|him|her|there)\b", re.I)
_VAGUE_HABITS = frozenset("know think care remember understand mind want need feel see get".split())


def parse_predicate(subject: str, predicate: str, first_person: bool, me: str = "The user") -> list[Claim]:
    """Claims stated by one predicate about `subject` ('is no longer training for X').

    `me` is who "my" refers to ("Ana is my sister" said by Maya).
    """
    pred = _LEADING_ADV.sub("", predicate.strip(" \t.!?;:,\"'"))
    polarity, core = Polarity.ASSERTED, pred
    for pattern, repl, pol in _NEGATIONS:
        if pattern.match(core):
            polarity, core = pol, pattern.sub(repl, core, count=1)
            break
    if _ANYMORE.search(core):
        core = _ANYMORE.sub("", core)
        if polarity is Polarity.DENIED:
            polarity = Polarity.ENDED
    said = third_person_predicate(pred) if first_person else pred
    plain = f"{subject} {said}."
    for attribute, pattern, template, cleaner in RULES:
        m = pattern.match(core)
        if not m:
            continue
        g = {k: (v or "") for k, v in m.groupdict().items()}
        value = cleaner(g.get("v", "")) if "v" in g else ""
        if first_person:
            value = swap_first_person(value)
        if attribute == "eats" and polarity is Polarity.ASSERTED:
            return []
        if attribute in _DENIED_FLIP and polarity is not Polarity.ASSERTED:
            return [Claim(subject, _DENIED_FLIP[attribute], value, plain)]
        detail = value
        if attribute == "injury":
            detail = f"{_INJURY_ADJ.get(g['verb'].lower(), '')} {value}".strip()
        if attribute == "pet":
            value = f"{g['sp']} {g['name']}".strip()
            detail = f"{g['name']} ({g['sp']})" if g["name"] else g["sp"]
        if attribute == "relation":
            owner = g["own"] or (me if g["my"] else subject)
            owner = "The user" if owner.lower() == "the user" else owner
            value = detail = f"{owner}'s {g['rel'].lower()}"
            g["owner"] = owner
        if polarity is Polarity.ASSERTED and (not content_stems(value) or _DEICTIC.match(value)):
            return []  # "I love that", "I like it": nothing to store without the context
        if not (value or attribute == "employer" and polarity is not Polarity.ASSERTED):
            return []
        if polarity is not Polarity.ASSERTED:
            return [Claim(subject, attribute, value, plain, polarity, detail=detail)]
        fields = {**g, "s": subject, "v": value, "named": f" named {g['name']}" if g.get("name") else "",
                  "verb3": third_person(g.get("verb", "")), "adj": _INJURY_ADJ.get(g.get("verb", "").lower(), "")}
        return [Claim(subject, attribute, value, template.format(**fields), polarity, detail=detail)]
    if polarity is Polarity.ENDED:
        habit = content_stems(core)
        if habit and habit[0] not in _VAGUE_HABITS:
            return [Claim(subject, "habit", core, plain, polarity)]
    return []


# --- subjects and segments -----------------------------------------------------------------

_CAP = re.compile(r"([A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?)\b(?!')")
_POSSESSED = re.compile(
    rf"(?:(?P<my>[Mm]y|[Oo]ur)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|[Tt]he user)'s) (?P<rel>(?i:{RELATIONS}|{SPECIES}))\b\s*"
)
_SPECIES = re.compile(rf"(?:{SPECIES})$", re.I)
_SEP = re.compile(r"(\s*[;:]\s*|\s*,?\s+(?:and|but|while|whereas|although|though|because|since|so)\s+|\s*,\s+)")
_I = re.compile(r"[Ii]\b\s*")
_THE_USER = re.compile(r"[Tt]he user\b\s*")
_PRONOUN = re.compile(r"(?:[Ss]he|[Hh]e|[Tt]hey)\b\s*")


def take_name(text: str) -> tuple[str, str] | None:
    """A leading person name of one or two capitalised words, and the rest of the text."""
    m = _CAP.match(text)
    if not m or m.group(1).lower() in NAME_STOPWORDS:
        return None
    name, rest = m.group(1), text[m.end():]
    m2 = re.match(r" " + _CAP.pattern, rest)
    if m2 and m2.group(1).lower() not in NAME_STOPWORDS:
        name, rest = f"{name} {m2.group(1)}", rest[m2.end():]
    return name, rest.lstrip()


@dataclass
class Context:
    me: str  # who "I" is: the speaker, or "The user"
    last: str | None = None  # the last person named, for she/he/they


@dataclass(frozen=True)
class Subject:
    name: str
    first_person: bool = False
    person: bool = True


def _subject(seg: str, ctx: Context) -> tuple[Subject, str, list[Claim]] | None:
    if m := _I.match(seg):
        return Subject(ctx.me, first_person=True), seg[m.end():], []
    if m := _POSSESSED.match(seg):
        owner = ctx.me if m.group("my") else m.group("own")
        owner = "The user" if owner.lower() == "the user" else owner
        rel, rest = m.group("rel").lower(), seg[m.end():]
        named = take_name(rest)
        name, rest = named if named else (None, rest)
        if _SPECIES.match(rel):
            text = f"{owner} has a {rel}{f' named {name}' if name else ''}."
            pet = Claim(owner, "pet", f"{rel} {name or ''}".strip(), text, detail=f"{name} ({rel})" if name else rel)
            return Subject(name or f"{owner}'s {rel}", person=False), rest, [pet]
        if not name:
            return Subject(f"{owner}'s {rel}", person=False), rest, []
        relation = Claim(name, "relation", f"{owner}'s {rel}", f"{name} is {owner}'s {rel}.")
        return Subject(name), rest, [relation]
    if m := _THE_USER.match(seg):
        return Subject("The user"), seg[m.end():], []
    if named := take_name(seg):
        return Subject(named[0]), named[1], []
    if (m := _PRONOUN.match(seg)) and ctx.last:
        return Subject(ctx.last), seg[m.end():], []
    return None


def _favourite(seg: str, ctx: Context) -> list[Claim]:
    m = _FAVOURITE.match(seg)
    if not m:
        return []
    owner = ctx.me if m.group("my") else (ctx.last if m.group("pron") else m.group("own"))
    value = clean_general(m.group("v"))
    if not owner or not value:
        return []
    thing = m.group("k").lower()
    return [Claim(owner, f"favourite {thing}", value, f"{owner}'s favourite {thing} is {value}.")]


_LEAD = re.compile(r"^(?:(?:and|but|so|also|then|oh|well|anyway|btw|actually|plus)[, ]+)+", re.I)


def _segments(sentence: str, ctx: Context) -> list[str]:
    """Cut at conjunctions and commas; a piece that starts no new statement is glued back."""
    pieces = _SEP.split(normalise(sentence).rstrip(" .!?"))
    segs: list[str] = []
    for i in range(0, len(pieces), 2):
        seg = _LEAD.sub("", pieces[i])
        starts = bool(_FAVOURITE.match(seg) or _PRONOUN.match(seg) or _subject(seg, ctx) or parse_predicate("x", seg, False))
        if segs and not starts:
            segs[-1] += pieces[i - 1] + pieces[i]
        else:
            segs.append(seg)
    return segs


def parse_sentence(sentence: str, ctx: Context) -> list[Claim]:
    """Claims of one sentence; updates ctx.last with the last person something was said of."""
    claims: list[Claim] = []
    current: Subject | None = None
    for seg in _segments(sentence, ctx):
        found = _favourite(seg, ctx)
        if found:
            claims += found
            continue
        subj = _subject(seg, ctx)
        if subj:
            current, predicate, extra = subj
        elif current is not None:
            predicate, extra = seg, []
        else:
            continue
        said = parse_predicate(current.name, predicate, current.first_person, ctx.me)
        if not current.person:
            said = [replace(c, person=False) for c in said]
        if (said or extra) and current.person and not current.first_person and current.name != "The user":
            ctx.last = current.name
        claims += extra + said
    return [replace(c, person=c.person and _is_person(c.subject), sentence=sentence) for c in claims]


def _is_person(subject: str) -> bool:
    return "'s " not in subject


def parse_text(text: str, me: str = "The user") -> list[Claim]:
    """All claims of a text (a message or a stored fact), sentence by sentence."""
    ctx = Context(me=me)
    out: list[Claim] = []
    for s in sentences(text):
        out += parse_sentence(s, ctx)
    return out
