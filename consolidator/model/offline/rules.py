"""Claims and the predicate rules of the offline backend.

A *claim* is (subject, attribute, value, polarity) plus a rendered third-person sentence. The
same parser reads people's messages ("I moved from London to Paris") and stored facts
("Maya lives in London."), so a new claim can be compared with its neighbours attribute by
attribute. `parse_predicate` reads one predicate (the words after a subject, see parse.py):
a negation or ending sets the polarity ("no longer", "quit", "split up"), then the first
attribute rule of patterns.py that matches gives the claim. Values are copied from the text;
only the connecting verbs of the templates ("lives in", "works at") are the backend's own.
A predicate no rule covers gives no claim here: parse.py then keeps it as a plain clause
("event", clauses.py) when it has substance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from consolidator.domain import is_negated

from consolidator.model.offline.clauses import substance
from consolidator.model.offline.patterns import ANY_RULE, ENDINGS, INJURY_ADJ, RULES
from consolidator.model.offline.words import WORKPLACES
from consolidator.model.offline.text import (
    TIME_ONLY,
    clean_general,
    content_stems,
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
    "birthplace": AttrSpec("home", 5, True),  # born in one place, grew up in another: both hold
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
    "birthday": AttrSpec("personal", 6, True),  # a day of the year (details.py)
    "phone": AttrSpec("contact", 6, True),  # how to reach someone (mentions.py)
    "email": AttrSpec("contact", 6, True),
    "address": AttrSpec("contact", 6, True),
    "pronouns": AttrSpec("personal", 6, True),  # how to speak of someone (mentions.py)
    "habit": AttrSpec("general", 5, False),
    "role": AttrSpec("personal", 5, False),  # who someone says they are: "as a single mom" (contacts.py)
    "pastime": AttrSpec("hobbies", 4, False),  # a contact's pastimes and the places they went,
    "place": AttrSpec("places", 4, False),  # read off plain clauses (contacts.py)
    "partner": AttrSpec("relations", 7, True),
    "event": AttrSpec("events", 5, False),  # a plain clause no rule covers (clauses.py)
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
    kind: str = ""  # a plain clause's kind (worth.kind_of): "event", "state", "attitude", or "said"
    happened: str = ""  # a plain clause dated by its own relative date: that date ("2023-05-07"), else ""

    @property
    def key(self) -> tuple[str, ...]:
        """The value's content stems; a plain clause that negates keeps that apart ("~not")."""
        stems = tuple(content_stems(self.value))
        return stems + ("~not",) if self.attribute == "event" and is_negated(self.value) else stems


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


# --- parsing: polarity, rule match, fallback to a plain clause ------------------------------

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
    # "I can't eat gluten": avoids it (a kind of food, said bare; "can't eat another bite" is no diet)
    (re.compile(r"^(?:cannot|can not) (?=(?:eat|drink) (?!(?:a|an|the|another|any|anything|more|much|that|this|it|one)\b))",
                re.I), "", Polarity.DENIED),
    # "quit Acme", "quit my job" end the employer (patterns.ENDINGS); "quit smoking" ends a habit
    (re.compile(r"^(?:have |has )?(?:stopped|quit(?! (?-i:[A-Z])| (?:my|her|his|their) (?:job|position|role|post)\b)|"
                r"given up|gave up)(?: on)? ", re.I), "", Polarity.ENDED),
]
_LEADING_ADV = re.compile(r"^(?:(?:also|still|now|really|actually|just|honestly) )+", re.I)
_ANYMORE = re.compile(r"\s+(?:any ?more|any longer)$", re.I)
# Flips: "does not like X" is a dislike, "does not eat X" an avoidance; both stated positively.
_DENIED_FLIP = {"likes": "dislikes", "eats": "avoids"}
_DEICTIC = re.compile(r"(?:this|that|these|those|it|them|you|him|her|there)\b", re.I)
_POINTER_END = re.compile(r"\b(?:this|these|those|it|them)$", re.I)  # "the taste of these": of what?
# "I'm learning a ton": an amount of nothing named
_AMOUNT_ONLY = re.compile(r"(?:a (?:ton|lot|bunch|heap|load)|tons|lots|loads|heaps|so much|plenty)$", re.I)
_CLAUSE_VALUE = re.compile(r"(?:how|that|when|what|where|why|whether|if|the way|seeing|being|having)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
_RECIPROCAL = re.compile(r"\b(?:each other|one another)\b", re.I)
TASTES = frozenset({"likes", "dislikes"})
_AS_ROLE = re.compile(r"\bas (an? [^,;.!?]+)", re.I)  # the job an employer's clause names after it
_FOR_JOB = re.compile(r"\bfor (?:a|an|her|his|my|their) (?:new )?(?:job|position|role) (?:at|with) ([A-Z].*)")
_AT_ORG = re.compile(rf" (?:at|for) ((?-i:[A-Z][\w&.'-]*(?: (?:of |for |and |& )?[A-Z][\w&.'-]*)*)(?: (?:{WORKPLACES}))?)\b")  # ...and the reverse
_ENDS_EMPTY = frozenset({"employer", "partner", "home"})  # "I quit my job", "we split up": no new value needed
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
    if polarity is not Polarity.ENDED and not ANY_RULE.match(core):
        return []
    said = third_person_predicate(pred) if first_person else pred
    plain = f"{subject} {said}."
    if polarity is Polarity.ASSERTED:
        for attribute, pattern in ENDINGS:
            if m := pattern.match(core):
                value = clean_general(m.groupdict().get("v") or "")
                return [Claim(subject, attribute, value, plain, Polarity.ENDED, detail=value)]
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
            detail = f"{INJURY_ADJ.get(g['verb'].lower(), '')} {value}".strip()
        if attribute == "pet":
            value = f"{g['sp']} {g['name']}".strip()
            detail = f"{g['name']} ({g['sp']})" if g["name"] else g["sp"]
        if attribute == "relation":
            owner = g["own"] or (me if g["my"] else subject)
            owner = "The user" if owner.lower() == "the user" else owner
            value = detail = f"{owner}'s {g['rel'].lower()}"
            g["owner"] = owner
        if polarity is Polarity.ASSERTED and (not content_stems(value) or _DEICTIC.match(value)
                                              or _POINTER_END.search(value) or _AMOUNT_ONLY.match(value)):
            return []  # "I love that", "I enjoy the taste of these", "I'm learning a ton": nothing without the context
        if _CLAUSE_VALUE.match(value) or _SECOND_PERSON.search(value):
            return []  # "love how you paint": a whole clause, kept as one (parse.py)
        if _RECIPROCAL.search(value):
            return []  # "we enjoy each other's company": no taste of one person
        if attribute in TASTES and substance(value) < 1:
            return []  # "I love everywhere", "I like it a lot": no taste worth a detail
        if not (value or attribute in _ENDS_EMPTY and polarity is not Polarity.ASSERTED):
            return []
        if polarity is not Polarity.ASSERTED:
            return [Claim(subject, attribute, value, plain, polarity, detail=detail)]
        fields = {**g, "s": subject, "v": value, "named": f" named {g['name']}" if g.get("name") else "",
                  "verb3": third_person(g.get("verb", "")), "adj": INJURY_ADJ.get(g.get("verb", "").lower(), "")}
        found = [Claim(subject, attribute, value, template.format(**fields), polarity, detail=detail)]
        if attribute == "home" and (job := _FOR_JOB.search(core)):  # "moved to Berlin for a new job at Siemens"
            found += [c for c in parse_predicate(subject, f"works at {job.group(1)}", False, me) if c.attribute == "employer"]
        if attribute == "employer" and (role := _AS_ROLE.search(f"{g['v']} {core[m.end('v'):]}")):  # "at Acme as a ..."
            found += [c for c in parse_predicate(subject, f"works as {role.group(1)}", False, me) if c.attribute == "job"]
        if attribute == "job" and polarity is Polarity.ASSERTED and (at := _AT_ORG.search(g["v"])):  # "as a ... at Acme"
            job = cleaner(g["v"][:at.start()])
            found = [Claim(subject, attribute, job, template.format(**{**fields, "v": job}), polarity, detail=job),
                     *(c for c in parse_predicate(subject, f"works at {at.group(1)}", False, me) if c.attribute == "employer")]
        return found
    if polarity is Polarity.ENDED and not TIME_ONLY.fullmatch(core.strip(" ,.!")):  # "I quit this morning": no habit
        habit = content_stems(core)
        if habit and habit[0] not in _VAGUE_HABITS:
            return [Claim(subject, "habit", core, plain, polarity)]
    return []
