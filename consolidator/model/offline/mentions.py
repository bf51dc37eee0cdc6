"""People a line mentions besides its subjects: relatives named in passing, and groups; what a
clause names (a relative, a pet, a favourite: `named_in`); a short statement that names something
(`naming`).

A relative named where they are not the subject ("dinner with my partner Bruno") is still who
they are to the speaker, and the last person a she/he/they may mean next (`named_relations`).

A line names people in groups as often as one by one ("I took the kids to the museum" - "What
were they so stoked about?" - "They loved the dinosaur exhibit!"), and the group's "they" is
then as much a subject as a name's "she". A group named with "my" or "our" is the speaker's
("Ana's kids"); one named with "the" is kept as said, in the speaker's name ("Ana said: the kids
loved the dinosaur exhibit"), since "the kids" may be anyone's: the other person's, a class's.
The groups are the plurals of the relation words (words.RELATIONS) and the words English has
only for a group ("parents", "family").
"""

from __future__ import annotations

import re
from typing import Callable

from consolidator.model.offline.clauses import MIN_SAID, MIN_SUBSTANCE, MIN_TOLD, substance
from consolidator.model.offline.patterns import CONDITIONS
from consolidator.model.offline.rules import Claim, Polarity
from consolidator.model.offline.text import clean_general
from consolidator.model.offline.names import NameBook, agrees_with_singular, short_for, states
from consolidator.model.offline.restate import MOVED
from consolidator.model.offline.worth import MIN_WORTH_SAID, NAME_WEIGHT, worth
from consolidator.model.offline.words import (
    FULL_LIST, NAME_STOPWORDS, PARTNERS, PRONOUN_GENDER, RARE_ZIPF, KIN, RELATIONS, SPECIES, STOPWORDS, TITLES,
    gender_of, zipf,
)

FAVOURITE = re.compile(
    r"(?:(?P<my>[Mm]y)|(?P<pron>[Hh]er|[Hh]is|[Tt]heir)|(?P<own>[A-Z][a-z]+(?: [A-Z][a-z]+)?|[Tt]he user)'s) "
    r"favou?rite (?P<k>[a-z]+(?: (?!ever\b)[a-z]+)?)(?: (?:of all time|ever|right now|these days|at the moment|lately"
    r"|so far))? is (?P<v>.+)"  # "my favourite movie of all time is ...": a favourite movie
)
_NAMED_IS = re.compile(rf"(?:[Mm]y|[Oo]ur) (?P<rel>(?i:{KIN}|{SPECIES}))(?:'s name is| is (?:called|named)) "
                       rf"(?P<n>[A-Z][a-z]+(?: [A-Z][a-z]+)?)")
_IS_MY = re.compile(rf"(?P<n>[A-Z][a-z]+) is (?:my|our) (?P<rel>(?i:{SPECIES}))\b(?!')")  # "Pip is my dog"
# "My boss is Joana.", "My therapist is Dr. Costa.": a name said alone after the relation.
_REL_IS = re.compile(rf"(?:(?:[Mm]y|[Oo]ur) (?:new |current )?|(?:[Nn]ew|[Cc]urrent) )(?P<rel>(?i:{KIN})) (?:is|will be) "
                     rf"(?:(?P<t>{TITLES})\.? )?"
                     rf"(?P<n>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?: now)?(?: (?:at|from|of) [A-Z][\w'&-]*(?: [A-Z][\w'&-]*)*)?"
                     r"[.!]?$")  # "My dentist is Dr. Helena Sousa at Clinica Sorriso", "My new manager will be Jonas"
_ITS_NAME = re.compile(r"(?:[Hh]er|[Hh]is|[Ii]ts|[Tt]heir) name(?:'s| is) (?P<n>[A-Z][a-z]+)\b")
_A_SPECIES = re.compile(rf"(?:{SPECIES})$", re.I)
_GOT_PET = re.compile(rf"\b(?:adopted|got|rescued|bought|brought home) (?:a|an) (?:[a-z]+ )?(?P<s>{SPECIES})\b", re.I)


def pet_got(seg: str) -> str | None:
    """The species of a pet a clause says was got ("We adopted a rescue dog"), whom a "her name is
    Bela" after it names; else None."""
    return m.group("s").lower() if (m := _GOT_PET.search(seg)) else None


def named_in(seg: str, me: str, last: str | None, pet: str | None, names: NameBook | None = None) -> list[Claim]:
    """What a clause names: a relative or a pet ("my sister's name is Ana", "my dog is called Rex",
    "Pip is my dog", "my boss is Joana"; "her name is Mochi" after the line got a `pet`, "her name
    is Ines" after "I met my new neighbour", `last`), or a favourite ("my favourite band is Muse";
    "her favourite ..." is `last`'s)."""
    kin = last.split("'s ", 1)[1] if last and is_kin(last) and last.startswith(f"{me}'s ") else None
    named = _ITS_NAME.match(seg) if pet or kin else None
    if named and not pet and gender_of(kin) not in (None, PRONOUN_GENDER.get(seg.split()[0].lower())):
        named = None  # "my brother ... her name is": not his
    m = _NAMED_IS.match(seg) or _IS_MY.match(seg) or named or _rel_is(seg, names)
    if m:
        rel, name = (m.groupdict().get("rel") or pet or kin or "").lower(), m.group("n")
        if _A_SPECIES.match(rel):
            return [Claim(me, "pet", f"{rel} {name}", f"{me} has a {rel} named {name}.", detail=f"{name} ({rel})")]
        return [Claim(name, "relation", f"{me}'s {rel}", f"{name} is {me}'s {rel}.")]
    if reach := _reach(seg, me, last, names):
        return [reach]
    if (m := _PRONOUNS.match(seg)) and (owner := _owner(m, me, last, names)):
        return [Claim(owner, "pronouns", m.group("v"), f"{owner}'s pronouns are {m.group('v')}.")]
    if m := GONE.match(seg):
        ended = m.group("v")
        return [Claim(me, "condition", ended, f"{me} no longer has {ended}.", Polarity.ENDED, detail=ended)]
    m = FAVOURITE.match(seg)
    owner = _owner(m, me, last, names) if m else None
    value = clean_general(m.group("v")) if m else ""
    if not owner or not value:
        return []
    thing = m.group("k").lower()
    return [Claim(owner, f"favourite {thing}", value, f"{owner}'s favourite {thing} is {value}.")]


def _owner(m: re.Match, me: str, last: str | None, names: NameBook | None = None) -> str | None:
    """Whose a thing is, by the `_WHOSE` groups: "my" the speaker's, "his/her/their" the last person
    named's (no one where the batch says a "his" cannot mean them), "Rui's" Rui's."""
    if m.group("pron"):
        return last if last and (names is None or names.agrees(last, m.group("pron"))) else None
    return me if m.group("my") else m.group("own")


def _rel_is(seg: str, names: NameBook | None) -> re.Match | None:
    """'my boss is Joana': a name, if it cannot be a word that says what someone is ("my husband is
    French"): it has a title, a surname, person evidence in the batch, or is rarer than any such word."""
    m = _REL_IS.match(seg)
    if not m:
        return None
    name = m.group("n")
    vetted = (m.group("t") or " " in name or (names is not None and names.is_person(name))
              or zipf(name.lower(), FULL_LIST) < RARE_ZIPF)
    return m if vetted and name.lower() not in STOPWORDS else None


# Whose (`_owner`): "my", "his/her/their" (the last person named), "Rui's".
_WHOSE = r"(?:(?P<my>[Mm]y)|(?P<pron>[Hh]is|[Hh]er|[Tt]heir)|(?P<own>[A-Z][a-z]+)'s) "
# "Rui's new number is 912 345 678", "my email changed to ana@example.org": how to reach someone, a
# detail that replaces the one before.
_REACH = re.compile(_WHOSE + r"(?:new |current |work |home )?"
                    r"(?P<k>(?:phone |mobile |cell )?number|phone|mobile|e-?mail(?: address)?|(?:home )?address) "
                    r"(?:is now|is|changed to|has changed to) (?P<v>.+)")
# "She has a new phone number: +49 151 ...", "I got a new email, ana@example.org": the same, said as had
_HAS_REACH = re.compile(r"(?:(?P<my>I)|(?P<pron>[Ss]he|[Hh]e|[Tt]hey)|(?P<own>[A-Z][a-z]+)) (?:has|have|got|has got) "
                        r"an? (?:new |different |work |home )?(?P<k>(?:phone |mobile |cell )?number|phone|mobile|"
                        r"e-?mail(?: address)?)(?:\s*[:,-]\s*|,? (?:which |it )?is (?:now )?)(?P<v>.+)")  # not an address: any phrase
# "the migraines are gone", "my insomnia is over": the speaker's condition ended
GONE = re.compile(rf"(?:the|my) (?P<v>{CONDITIONS}) (?:(?:are|is|have|has) )?(?:gone|over|went away|cleared up)\b", re.I)
# "My pronouns are she/her": how to speak of someone, a detail that replaces the one before
_PRONOUNS = re.compile(_WHOSE + r"pronouns are (?P<v>(?:she|he|they|xe|ze)/[a-z]+(?:/[a-z]+)?)\b", re.I)
_REACHED_BY = {"phone": re.compile(r"\+?\d[\d ()-]{5,}\d"), "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
               "address": re.compile(r"\S.{4,}")}


def _reach(seg: str, me: str, last: str | None, names: NameBook | None = None) -> Claim | None:
    """How to reach someone, a clause says ("his number is ..." is `last`'s), if its value has the
    shape of one (digits for a phone, an @ for an email); else None."""
    m = _REACH.match(seg) or _HAS_REACH.match(seg)
    owner = _owner(m, me, last, names) if m else None
    if not owner:
        return None
    kind = m.group("k").lower()
    key = "email" if "mail" in kind else "address" if "address" in kind else "phone"
    value = m.group("v").strip(" .!")
    if not _REACHED_BY[key].fullmatch(value):
        return None
    label = {"phone": "phone number", "email": "email", "address": "address"}[key]
    return Claim(owner, key, value, f"{owner}'s {label} is {value}.")


# "my therapist, Dr. Costa, says ...", "Rui, my boss, wants ...": a name and a relation set off by commas
# (or by the sentence's end: "lunch with my accountant, Sofia Reis."; "my sister, Ana and Rui" is a list)
_APPOSED = re.compile(rf"(?P<rel>\b(?:[Mm]y|[Oo]ur|[A-Z][a-z]+'s) (?i:{KIN})), (?P<n>(?:(?:{TITLES})\.? )?[A-Z][a-z]+"
                      r"(?: [A-Z][a-z]+)?)(?:,|(?=[.!?;]*\s*$))")
_NAME_FIRST = re.compile(rf"^(?P<n>(?:(?:{TITLES})\.? )?[A-Z][a-z]+(?: [A-Z][a-z]+)?), (?P<rel>(?:[Mm]y|[Oo]ur) (?i:{KIN})),"
                         rf" (?=(?P<v>[a-z]+))")


def unapposed(said: str) -> str:
    """A relation and a name set off by commas, as the parser reads them: "my therapist, Dr. Costa,
    says" and "Rui, my boss, wants" (a verb next: "Ana, my friend, you're the best" only calls her
    so) are "my therapist Dr. Costa says", "my boss Rui wants"."""
    said = _APPOSED.sub(r"\g<rel> \g<n>", said)
    m = _NAME_FIRST.match(said)
    return f"{m.group('rel')} {m.group('n')} {said[m.end():]}" if m and agrees_with_singular(m.group("v")) else said


_OF_MINE = re.compile(rf"^(?:[Aa]n?|[Oo]ne) (?P<rel>(?i:{KIN})) of (?:mine|ours)\b\s*")


def of_mine(seg: str) -> str:
    """'a friend of mine gave me ...' -> 'my friend gave me ...': the same relative, said the usual way."""
    return _OF_MINE.sub(r"my \g<rel> ", seg)


_MY_NAMED = re.compile(rf"\b(?:(?P<my>[Mm]y|[Oo]ur)|[Hh]is|[Hh]er) (?P<rel>(?i:{RELATIONS})) (?:(?:{TITLES})\.? )?"
                       rf"(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)\b")


def named_relations(statement: str, me: str, you: str | None, said_of: dict[str, str],
                    last: str | None = None) -> tuple[list[Claim], str | None]:
    """Who each relative named in `statement` is to `me` ("I called my sister Ana": Ana is me's
    sister) or, after his/her, to `last`, the person the line spoke of ("My brother Tiago is coming"
    - "His wife Ines": Tiago's wife), unless a claim of the sentence said of them already says it
    (`said_of`: subject -> the texts of its claims); and the last one named, whom a she/he/they
    means next (None if none)."""
    out, named = [], None
    for m in _MY_NAMED.finditer(statement):
        name, rel = m.group("name"), m.group("rel").lower()
        owner = me if m.group("my") else last
        first = name.split()[0]
        if not owner or first.lower() in STOPWORDS or any(
                s.startswith(first) and re.search(rf"\b{re.escape(rel)}\b", text, re.I) for s, text in said_of.items()):
            continue  # "my friend Ana Lopez works at Google": her subject's claim says it already
        if name not in (me, you, owner):
            out.append(Claim(name, "relation", f"{owner}'s {rel}", f"{name} is {owner}'s {rel}."))
            said_of[name] = out[-1].text
        named = name
    return out, named


def with_relations(claims: list[Claim], statement: str, me: str, you: str | None,
                   last: str | None) -> tuple[list[Claim], str | None]:
    """`claims` and the relatives `statement` names in passing (`named_relations`), less a quoted
    fragment that only named one of them ("His wife Ines." said alone: "Ines is Tiago's wife" says it)."""
    said_of: dict[str, str] = {}
    for c in claims:
        said_of[c.subject] = f"{said_of.get(c.subject, '')} {c.text}"
    passing, named = named_relations(unapposed(statement), me, you, said_of, last)
    ended = [c.text for c in claims if c.polarity is Polarity.ENDED]  # "broke up with his girlfriend Ines": no more,
    passing = [ex_partner(c) if any(re.search(rf"\b{re.escape(c.subject)}\b", t) for t in ended) else c for c in passing]
    passing = [c for c in passing if c is not None]  # ... and his ex-girlfriend now
    relatives = {c.subject for c in passing}
    kept = [c for c in claims if not (c.kind == "said" and len(c.value.split()) <= 4
                                      and any(r in c.value for r in relatives))]
    return kept + passing, named


def ex_partner(relation: Claim) -> Claim | None:
    """A partner's relation once a breakup ended it ("Ines is Tiago's ex-girlfriend"); None for any
    other relation, which a breakup does not say."""
    owner, _, rel = relation.value.rpartition("'s ")
    if rel not in PARTNERS:
        return None
    return Claim(relation.subject, "relation", f"{owner}'s ex-{rel}", f"{relation.subject} is {owner}'s ex-{rel}.")


_IRREGULAR_PLURALS = {"child": "children", "wife": "wives"}
_GROUP_ONLY = ("parents", "grandparents", "grandkids", "grandchildren", "family", "folks", "twins", "siblings")


def _plural(noun: str) -> str:
    if noun in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[noun]
    if re.search(r"(?:s|sh|ch|x)$", noun):
        return noun + "es"
    return noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else noun + "s"


GROUPS = "|".join(sorted({*(_plural(r) for r in RELATIONS.split("|")), *_GROUP_ONLY}, key=len, reverse=True))
_SIZE = r"(?:(?:two|three|four|five|\d+|little|young|younger|older|eldest|oldest|youngest) ){0,2}"
# A group listed with others ("my friends, family and mentors") is not what a "they" after the list means.
_GROUP = rf"(?P<det>[Mm]y|[Oo]ur|[Tt]he) (?P<g>{_SIZE}(?:{GROUPS}))\b(?!'|,| and\b| or\b| &)"
_GROUP_ANYWHERE = re.compile(rf"\b{_GROUP}")
_GROUP_AT_START = re.compile(rf"{_GROUP}\s*")
_IS_GROUP = re.compile(rf"(?:.+'s|the) {_SIZE}(?:{GROUPS})")


def _said_as(m: re.Match, me: str) -> str:
    return f"{me}'s {m.group('g')}" if m.group("det").lower() in ("my", "our") else f"the {m.group('g')}"


_MY_KIN = re.compile(rf"\b(?:[Mm]y|[Oo]ur) (?P<rel>(?i:{KIN}))\b(?!-)(?! [A-Z])")


def kin_named(text: str, me: str) -> str | None:
    """The last relative `text` names without their name ("my mom's birthday" -> "Ana's mom"): whom
    a she/he next means, as a named one would be."""
    found = list(_MY_KIN.finditer(text))
    return f"{me}'s {found[-1].group('rel').lower()}" if found else None


def is_kin(who: str) -> bool:
    """Whether `who` is an unnamed relative ("Ana's mom"): a person, with a home and a job."""
    return bool(re.fullmatch(rf".+'s (?i:{KIN})", who))


def group_named(text: str, me: str) -> str | None:
    """The last group of people `text` names, as a fact says it ("I took my kids to the zoo" ->
    "Ana's kids"; "with the kids" -> "the kids"), else None."""
    found = list(_GROUP_ANYWHERE.finditer(text))
    return _said_as(found[-1], me) if found else None


# Whom a person deals with by their role ("the dentist moved my appointment", "the landlord called"):
# a person, though unnamed, and like "the kids" kept in the speaker's name.
_PROVIDERS = ("doctor|doc|dentist|vet|nurse|pharmacist|physio|landlord|landlady|boss|manager|mechanic|plumber|"
              "teacher|coach|trainer|lawyer|accountant|hairdresser|barber|babysitter|nanny|agent|realtor|"
              "[a-z]{3,}(?:ician|ologist|iatrist|therapist)")  # "pediatrician", "dermatologist", "physiotherapist"
_A_PROVIDER = re.compile(rf"the (?:{_PROVIDERS})")
_PROVIDER_AT_START = re.compile(rf"(?P<det>[Tt]he) (?P<g>{_PROVIDERS})\b(?!'|,| and\b| or\b| &)\s*")


def leading_group(seg: str, me: str) -> tuple[str, str] | None:
    """A group ("The kids loved it") or a person by their role ("The dentist moved ...") that opens
    `seg`, and the rest of it; else None."""
    m = _GROUP_AT_START.match(seg) or _PROVIDER_AT_START.match(seg)
    return (_said_as(m, me), seg[m.end():]) if m else None


def is_group(who: str) -> bool:
    """Whether `who` (as group_named gives it) is a group rather than a person."""
    return bool(_IS_GROUP.fullmatch(who))


def unnamed(who: str) -> bool:
    """Whether `who` is a group or a person by role ("the dentist"): no name the rules' templates may
    state a single person's detail of ("the dentist lives in Porto" says no one's home)."""
    return is_group(who) or bool(_A_PROVIDER.fullmatch(who))


NAMING_WORDS = 6  # "It was Rui Tavares", "They loved the Douro valley": a short answer that names something
_NAMING_OPENERS = frozenset("it it's this that these those the a an my our his her their".split())  # not "he": who?


def naming(said: str, speakers: tuple[str, ...], book: NameBook | None) -> bool:
    """A statement of at most NAMING_WORDS words with a name past its first word (not a
    speaker's) or a number: "It was Rui Tavares" answers who, though it has too few words for
    MIN_SAID. It opens with a pronoun, a determiner or a name the batch's `book` vouches for,
    never a verb ("Call Ana")."""
    words = said.split()
    if len(words) > NAMING_WORDS or not words:
        return False
    first = words[0].strip(".,!?;:")
    if first.lower() not in _NAMING_OPENERS and not (book is not None and book.vouches_for(first)):
        return False  # "Remind me to call Ana": a request (tasks.py), no statement
    for w in words[1:]:
        w = re.sub(r"'s$", "", w.strip(".,!?;:"))
        if any(c.isdigit() for c in w):
            return True
        if re.fullmatch(r"[A-Z][a-z]+", w) and w.lower() not in NAME_STOPWORDS and not any(
                short_for(w, n) for name in speakers for n in name.split()):
            return True  # a name, not a speaker's, nor its short form ("Mari")
    return False


# Two who did something together, one subject: "Ana and I", "me and Rui", "my wife and I", "Rui and
# his wife", "Tiago and Ines". What two do with each other ("broke up", "got engaged") takes the
# other as its object: "Ana and I broke up" is whom the speaker broke up with.
_ONE = r"(?:[Mm]y|[Oo]ur) [a-z][\w'-]*(?: [a-z][\w'-]*)?|[A-Z][a-z]+"
MY = re.compile(r"(?:[Mm]y|[Oo]ur) ")  # what makes a thing or a person the speaker's
_WITH_ME = re.compile(rf"(?:(?P<who>{_ONE}) and I|[Mm]e and (?P<who2>{_ONE}))\b\s*")
_PAIR = re.compile(r"(?P<a>[A-Z][a-z]+) and (?P<b>[A-Z][a-z]+|(?:his|her|their) [a-z]+(?: [A-Z][a-z]+)?)\b\s*(?=[a-z'])")
_SECOND = re.compile(r"(?:[Ii]\b(?!')|(?:[A-Z][a-z]+|(?:his|her|their) [a-z]+(?: [A-Z][a-z]+)?) (?=[a-z']))")
_MY_NAMED_ONE = re.compile(r"(?:[Mm]y|[Oo]ur) [a-z][\w'-]* [A-Z][a-z]+")  # "my brother Tiago" + "his wife ..."
_RECIPROCAL = re.compile(r"(?:just |finally |recently )?(?:(?:got|are|were|have been|had been|'re)(?: getting)? (?:engaged|separated|"
                         r"married|divorced)|broke up|split up|separated|(?:are|were|'re|started) dating|met)\b")
_RECIPROCAL_PREP = ((("engaged", "married"), "to "), (("divorced", "separated"), "from "), (("broke", "split"), "with "))
_SINGULAR = {"are": "is", "'re": "is", "were": "was", "have": "has"}  # the verb of one of the two


def pairs_with(first: str, second: str) -> bool:
    """Whether a sentence cut at its "and" into `first` and `second` had one subject of two: "Ana" +
    "I went ...", "Me" + "Rui got engaged", "Rui" + "his wife split up", "Tiago" + "Ines are ..."."""
    if first in ("Me", "me"):
        return True
    if _MY_NAMED_ONE.fullmatch(first):
        return bool(re.match(r"(?:his|her|their) ", second) and _SECOND.match(second))
    if not re.fullmatch(_ONE, first):
        return False
    return bool(re.match(r"[Ii]\b(?!')", second) or first[0].isupper() and not MY.match(first) and _SECOND.match(second))


def paired(seg: str, me: str, named: Callable[[str], bool]) -> tuple[str, str, str] | None:
    """(subject, display, rest) of a clause whose subject is two (module comment above): the
    speaker or the first one `named` vouches for, "<subject> and <other>" as a plain clause says
    them, and the predicate; a reciprocal verb's other is its object instead ("", the predicate)."""
    if m := _WITH_ME.match(seg):
        subject, other = me, MY.sub("their ", m.group("who") or m.group("who2"), count=1)  # "Maya and their wife"
    elif (m := _PAIR.match(seg)) and named(m.group("a")):
        subject, other = m.group("a"), m.group("b")  # "Rui and his wife": his, the subject's
    else:
        return None
    rest = seg[m.end():]
    if r := _RECIPROCAL.match(rest):
        verb, *tail = r.group(0).split(" ", 1)
        verb = " ".join([_SINGULAR.get(verb, verb), *tail])
        prep = next((p for words, p in _RECIPROCAL_PREP if any(w in verb for w in words)), "")
        return subject, "", f"{verb} {prep}{other}{rest[r.end():]}"
    return subject, f"{subject} and {other}", rest


def said_enough(said: str, names: tuple[str, ...], rule: bool, told: bool, book: NameBook | None,
                ahead: bool = False) -> bool:
    """Whether a clause kept in the speaker's name says enough to be a fact (clauses.py): MIN_WORTH_SAID
    and MIN_SAID, a standing rule MIN_SUBSTANCE, a thing's news told to the agent MIN_TOLD, a name
    given (`naming`); a thing moved in time ("the funeral got moved to Friday") needs only its thing.
    A day `ahead` of a clause told that states ("the funeral is on Thursday", not a request's "call
    the plumber tomorrow") counts as a name does: the plan's day, that the agent plans around."""
    if MOVED.match(said):
        return substance(said, names) > 0
    ahead = ahead and told and states(said)
    least = MIN_SUBSTANCE if rule else MIN_TOLD if told and states(said) else MIN_SAID
    return (rule or worth(said, names) + NAME_WEIGHT * ahead >= MIN_WORTH_SAID) and (
        substance(said, names) + 2 * ahead >= least or naming(said, names, book))
