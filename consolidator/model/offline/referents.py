"""What an "it", "them", "him", "her" or "his" of an errand means (tasks.py): "renew it" after "My
passport expires in March" is "renew my passport"; "pay it" after "I got a parking ticket" is "pay
the parking ticket"; "send her a note" after "My manager Joana recommended me" is "send Joana a
note"; "buy his uniform" after "My son Leo starts school" is "buy Leo's uniform". A him or her
may also be a relative or a pet named by what they are ("my mother", "my cat Luna"), or one named
doing what people do ("Rui called", "remind Bruno"), never a place. `earlier` is what the speaker
said before the errand (their recent lines, and this line up to it) and who the agent's question
they answer names (`people_named`); what it names last wins, of the pronoun's number and, where a
relation word says it, gender."""

from __future__ import annotations

import re

from consolidator.model.offline.words import KIN, NAME_STOPWORDS, PRONOUN_GENDER, SPECIES, TITLES, gender_of

# "My passport expires in March, I need to renew it": what "it" means, the thing (or for her/him the
# relative) a clause before spoke of
_KIN = re.compile(KIN, re.I)
_IT = re.compile(r"(?P<v>[a-z]+) (?P<p>it|them|him|her(?! (?!(?:the|a|an|about|back|again|later|soon|today|tomorrow|"
                 r"tonight|on|at|in|by|this|next|before|after|and|to|up|now)\b)[a-z]+))\b", re.I)  # not "her doctor"
_THING = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Tt]he) (?:[a-z]+ ){0,2}?(?P<n>[a-z]+)(?= (?:is|are|was|were|has|have|had|expires?|expired|"
                    r"broke|keeps?|needs?|wants?|asked|told|got|will|won't|does|did|stopped|started|renews?|ends?)\b)")
# ...else the last thing named, of its number ("I got a parking ticket, need to pay it"; "still have to
# write the product descriptions" - "need to finish them"), never a time, a person or a word of no thing
_WORD = r"(?!(?:yesterday|today|tomorrow|tonight|last|next|this|that|and|or|but|for|to|at|on|in|with|from)\b)[a-z][\w-]*"
_OBJECT = re.compile(rf"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bbe )(?<!'s )(?<!\bthat )(?<!\bthis )\b(?P<d>[Tt]he|[Mm]y|[Oo]ur|an?|[Tt]his) "
                     rf"(?P<np>(?:{_WORD} )?(?P<h>{_WORD}))\b(?! {_WORD})")  # not what something is: "is that a problem?"
_NO_THING = frozenset(
    "time times day days week weeks month months year years moment bit lot lots way ways thing things one ones end rest "
    "morning evening night weekend minute minutes hour hours while".split())


def _kin_named(text: str) -> list[re.Match[str]]:
    """Every relative named in `text`, overlaps too ("my sister Rosa's kid Bruno": Rosa, Bruno)."""
    found, at = [], 0
    while m := _KIN_NAMED.search(text, at):
        found.append(m)
        at = m.start() + 1
    return found


def _plural(noun: str) -> bool:
    return noun.endswith("s") and not noun.endswith(("ss", "us", "is"))


# "My son Leo starts school ... remind me to buy his uniform": whose thing a his/her means
_HIS = re.compile(r"(?P<v>[a-z]+(?: (?:up|off|out|back|in|on|over|down))?) (?P<p>his|her)(?= [a-z])", re.I)
_NAME = (rf"(?:(?:{TITLES})\.? )?[A-Z][a-z]+(?: (?!(?:On|In|At|And|But|So|The|No|Yes|Ok|Okay|Hey|Hi|Thanks)\b)"
         r"[A-Z][a-z]+)?")  # "Rui Alves", "Mr. Almeida" (never "Mr" alone)
_KIN_NAMED = re.compile(rf"\b(?:[Mm]y|[Oo]ur|[Tt]he|[A-Z][a-z]+'s) (?:new )?(?P<who>(?i:{KIN}))(?:(?: [a-z]+)?, (?:her|his|"
                        rf"their) name(?:'s| is)|,)? (?P<name>{_NAME})\b")  # "Rosa's kid Bruno", "the landlord, Tomas"


# ...or one named doing what people do, or having it done to them ("Rui called about the boiler",
# "Want me to remind Bruno?", "an email to Ana"), or a relative or pet named by what they are
_PEOPLE_VERBS = (r"remind|tell|told|call|called|ring|rang|email|emailed|text|texted|message|messaged|ask|asked|invite|"
                 r"invited|meet|met|thank|thanked|congratulate")  # not "visit", "pay", "help": Porto, a company
_PERSON = re.compile(rf"\b(?:(?:{_PEOPLE_VERBS}) |(?:email|message|note|letter|card|gift|present|text) (?:to|for) )"
                     rf"(?P<o>{_NAME})\b(?!')|\b(?P<s>{_NAME}) (?:called|texted|emailed|messaged|said|says|"
                     rf"told|asked|wants|wanted|needs|needed|promised|replied|wrote|invited|thinks|thought)\b")
_KIN_OR_PET = re.compile(rf"\b(?:[Mm]y|[Oo]ur) (?P<who>(?i:{KIN}))\b(?! [A-Z])|\b(?:[Mm]y|[Oo]ur) (?:{SPECIES}) (?P<pet>[A-Z][a-z]+)")


_TITLED = re.compile(rf"\b(?:{TITLES}|Miss)\.? [A-Z][a-z]+(?: [A-Z][a-z]+)?")  # a title says a person,
_TITLE_GENDER = {"mr": "m", "mrs": "f", "ms": "f", "miss": "f"}  # and whether a him or a her may mean them


def _people(earlier: str, gender: str | None) -> list[tuple[int, str]]:
    """Who a him, her or his may mean in `earlier`, with where: relatives named ("Joana") or not
    ("my mother"), pets named, people named by what they do; none of another gender."""
    found = [(k.start(), k.group("name")) for k in _kin_named(earlier) if gender_of(k.group("who")) in (None, gender)]
    found += [(k.start(), k.group("pet") or f"my {k.group('who').lower()}") for k in _KIN_OR_PET.finditer(earlier)
              if k.group("pet") or gender_of(k.group("who")) in (None, gender)]
    found += [(m.start(), m.group(0)) for m in _TITLED.finditer(earlier)]  # "Did Mr. Almeida send ...?": a person
    found += [(m.start(), m.group("o") or m.group("s")) for m in _PERSON.finditer(earlier)
              if (m.group("o") or m.group("s")).lower() not in NAME_STOPWORDS]
    return [(k, who) for k, who in found if _TITLE_GENDER.get(who.split()[0].rstrip(".").lower()) in (None, gender)]


def people_named(text: str) -> str:
    """The phrases of `text` that name people ("remind Bruno"), without its things: what an
    agent's question the person answers gives their "him" or "her" to mean, and nothing else."""
    return "".join(f"{m.group(0)}. " for m in [*_PERSON.finditer(text), *_KIN_NAMED.finditer(text)])


def resolved(action: str, earlier: str) -> str:
    """`action` with its leading pronoun object (or his/her) replaced by what `earlier` named last
    that it may mean; as it is when nothing named fits."""
    if it := _IT.match(action):  # "renew it": "renew my passport"; "call her": "call my mom"
        pronoun = it.group("p").lower()
        person, gender = pronoun in ("her", "him"), PRONOUN_GENDER.get(pronoun)
        found = [(t.start(), t.group(0)) for t in _THING.finditer(earlier) if bool(_KIN.fullmatch(t.group("n"))) == person
                 and gender_of(t.group("n")) in (None, gender)]  # no "her" dad
        if person:  # "My manager Joana recommended me. I should send her a note": Joana
            found += _people(earlier, gender)
        else:  # "I got a parking ticket, need to pay it": the thing named last, of its number
            found += [(t.start(), f"the {t.group('np')}" if t.group("d").lower() in ("a", "an", "this") else t.group(0))
                      for t in _OBJECT.finditer(earlier) if _plural(t.group("h")) == (pronoun == "them")
                      and t.group("h") not in _NO_THING and not _KIN.fullmatch(t.group("h"))]
        if found:  # a name as it is ("Joana"), a thing from its determiner on ("my passport")
            said = max(found)[1]
            meant = said[:1].lower() + said[1:] if said.split()[0] in ("My", "Our", "The", "A", "An", "This") else said
            action = f"{it.group('v')} {meant}{action[it.end():]}"
    elif (whose := _HIS.match(action)) and (named := _people(earlier, PRONOUN_GENDER[whose.group("p").lower()])):
        action = f"{whose.group('v')} {max(named)[1]}'s{action[whose.end():]}"  # "buy his uniform": "buy Leo's uniform"
    return action
