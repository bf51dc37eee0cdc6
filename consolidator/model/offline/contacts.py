"""Contact rules for the offline backend.

People come from: the speakers of people's lines, the subjects of claims about people ("Ana
works at Google", "my sister Ana"; a name is a subject only on the batch's evidence, names.py,
and a plain clause's subject only when the name is known as a person or does a people verb),
"@name" mentions, names right after people verbs (met, called, emailed, texted, told, asked,
"lunch with"), and names addressed after a greeting ("Hey Ana", "Thanks, Ana!"). A name
addressed that starts another speaker's name ("Mari" to Marina) is that speaker's alias.
Capitalised words elsewhere are never taken for people, so sentence starts ("Sounds like...",
"Endless patience..."), days, months and places ("in Paris") do not become contacts.

Forms of one name merge: equal ignoring case, or one is the other's first name ("Ana" and "Ana
Lopez"), unless the speaker calls the short and the full form relations no one person is
(words.other_people: "my cousin Rui", "my landlord Rui Costa"; one name said twice stays one
person, as a name is all that tells two apart); a known contact's name and aliases win, else the
longest form is the name. Details come
from the claims about the person, keyed as in DETAIL_KEYS; only new or changed values are sent.
A detail ended or denied ("no longer training for the marathon") is sent as "" (cleared).
Multi-valued details (allergies, likes, pets, the pastimes and places a person's own clauses
name: "went sailing", "took the kids to the aquarium", and the roles they say they have: "my
journey as a new dad", "tough as a single mom") are kept as "a; b", the newest
LISTED_ITEMS of them; an item said more specifically replaces the vaguer one ("Alps" gives
way to "Swiss Alps"; "regatta" after "summer sailing regatta" adds nothing). The batch's summary of a
person is one line: their most telling claim of the batch (`_summary`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from consolidator.domain import is_negated
from consolidator.model.offline.mentions import ex_partner
from consolidator.model.offline.names import COMMON_ZIPF, common_plural
from consolidator.model.offline.parse import parse_text, take_name
from consolidator.model.offline.rules import Claim, Polarity, same_subject, spec_of
from consolidator.model.offline.text import (
    activities, content_stems, destinations, normalise, sentences, truncate_words,
)
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.words import (
    AGENT_SPEAKERS, CALLING_OPENERS, FULL_LIST, KIN, NAME_STOPWORDS, ROLE_NOUNS, alternation, other_people, zipf,
)
from consolidator.model.offline.worth import worth
from consolidator.model.schemas import ContactUpdate, KnownContact, Line

DETAIL_KEYS = {
    "home": "home", "origin": "origin", "birthplace": "birthplace", "employer": "employer", "job": "job",
    "diet": "diet", "avoids": "avoids", "allergy": "allergy", "condition": "condition", "injury": "health",
    "pet": "pets", "relation": "relation", "training": "training", "learning": "learning",
    "plan": "plans", "goal": "goals", "likes": "likes", "dislikes": "dislikes", "age": "age", "birthday": "birthday",
    "partner": "partner", "pastime": "pastimes", "place": "places", "role": "roles",
    "phone": "phone", "email": "email", "address": "address", "pronouns": "pronouns",
}
_SINGLE_KEYS = frozenset(key for attribute, key in DETAIL_KEYS.items() if spec_of(attribute).single)
BIOGRAPHY_WORDS = 60
LISTED_ITEMS = 12  # a listed detail keeps its newest items (the detail rows keep the former values)
SUMMARY_WORDS = 20
CHANGE_BONUS = 3.0  # a claim that changes a detail is news: it weighs as much as one more name
_ISO_DAY = re.compile(r" \(\d{4}-\d{2}-\d{2}\)(?=\.$)")
_KIN = re.compile(rf"\b(?:{KIN})\b", re.I)
_CALL_ME = re.compile(r"\b(?:[Cc]all me|I go by|[Ee]veryone calls me|my friends call me|my nickname is) (?P<n>[A-Z][a-z]+)\b")
_MENTION = re.compile(r"(?<![\w.])@([A-Za-z][\w.-]*[A-Za-z0-9])")
_NAMING = re.compile(r"\b(?:an?|the|this|that|some)(?: [\w'-]+){1,5} $", re.I)  # "a sushi place " before "called"
_PEOPLE_VERB = re.compile(
    r"\b(?:met|meet|meeting|called|call|calling|rang|emailed|email|texted|text|told|tell|asked|ask|"
    r"(?:lunch|dinner|coffee|drinks|breakfast|meeting|call|chat|date) with) ",
    re.I,
)


# "my own journey as a new dad", "it'll be tough as a single mom" (the speaker's);
# "your patience as a parent" (the other person's). At most two words before the person noun.
_ROLE = rf"(?P<role>(?:[a-z][\w-]* ){{0,2}}?(?:{ROLE_NOUNS}))\b(?![\w'-])"  # a job is the job rule's
_MY_ROLE = re.compile(rf"\b(?:(?P<own>my|our|your) (?:own )?[\w-]+(?: [\w-]+)?|(?:it will|it is|I am) (?:be )?[a-z]+)"
                      rf" as an? {_ROLE}", re.I)  # read after text.normalise: "it'll" is "it will"
_GREETING = alternation(CALLING_OPENERS)
_ADDRESSED = re.compile(rf"^(?:(?P<greet>(?i:{_GREETING}))(?:,\s*|\s+))?(?P<n>[A-Z][a-z]+)(?=\s*[,!.?]|$)")


class _Person:
    def __init__(self, name: str, known: KnownContact | None) -> None:
        self.name = known.name if known else name
        self.known = known
        self.forms: list[str] = [name]
        self.relations = _relations_of(known)
        self.source_ids: list[str] = []
        self.sentences: list[str] = []
        self.claims: list[Claim] = []
        self.line_of: dict[str, str] = {}  # a sentence or a lower-cased form -> the line it first came from

    def see(self, form: str, source_id: str, sentence: str | None) -> None:
        if form.lower() not in (f.lower() for f in self.forms):
            self.forms.append(form)
        self.line_of.setdefault(form.lower(), source_id)
        if source_id not in self.source_ids:
            self.source_ids.append(source_id)
        if sentence and sentence not in self.sentences:
            self.sentences.append(sentence)
            self.line_of.setdefault(sentence, source_id)


class _Registry:
    def __init__(self, known: list[KnownContact]) -> None:
        self.known = known
        self.people: list[_Person] = []

    def _known_for(self, form: str) -> KnownContact | None:
        low = form.lower()
        for k in self.known:
            if low == k.name.lower() or low in (a.lower() for a in k.aliases):
                return k
        for k in self.known:
            if any(same_subject(form, n) for n in [k.name, *k.aliases]):
                return k
        return None

    def see(self, form: str, source_id: str, sentence: str | None = None) -> _Person:
        """The person `form` names: one seen or known by that form, else by its short or full form
        ("Ana", "Ana Lopez"), unless the sentence calls them another relation of the speaker's ("my
        cousin Rui", "my landlord Rui Costa": two people)."""
        rel = _relation(form, sentence)
        known = self._known_for(form)
        if known and rel and (had := _relations_of(known)) and all(other_people(rel, r) for r in had) and (
                form.lower() not in (n.lower() for n in [known.name, *known.aliases])):
            known = None  # "my landlord Rui Costa" is not the known cousin Rui
        exact = [p for p in self.people if form.lower() in (f.lower() for f in p.forms)]
        person = next((p for p in exact or self.people if (p.known is known if known is not None else (
            p.known is None and any(same_subject(form, f) for f in p.forms))) and (
            p in exact or not (rel and p.relations and all(other_people(rel, r) for r in p.relations)))), None)
        if person is None:
            person = _Person(form, known)
            self.people.append(person)
        person.see(form, source_id, sentence)
        person.relations |= {rel} - {None}
        return person


def _relations_of(known: KnownContact | None) -> set[str]:
    """The relations to the speaker a known contact's details name ("Maya's cousin": cousin)."""
    return {w.lower() for w in _KIN.findall(known.details.get("relation", ""))} if known else set()


def _relation(form: str, sentence: str | None) -> str | None:
    """The relation the sentence calls `form` the speaker's ("my cousin Rui", "Rui, my cousin"), or None."""
    name = re.escape(form)
    m = re.search(rf"\b(?:[Mm]y|[Oo]ur) (?P<r>(?i:{KIN})) {name}\b|\b{name}, (?:my|our) (?P<r2>(?i:{KIN}))\b",
                  sentence or "")
    return (m.group("r") or m.group("r2")).lower() if m else None


def _mentions(sentence: str) -> list[str]:
    """'@ana_lopez' -> 'Ana Lopez'; 'lunch with Leo Park' -> 'Leo Park'; in order of appearance."""
    found = [(m.start(), " ".join(w.capitalize() for w in re.split(r"[._-]+", m.group(1))))
             for m in _MENTION.finditer(sentence)]
    for m in _PEOPLE_VERB.finditer(sentence):
        if m.group().lower().startswith("called") and _NAMING.search(sentence[:m.start()]):
            continue  # "a sushi place called Saito": a name given, no one rung
        named = take_name(sentence[m.end():])
        if named:
            found.append((m.end(), named[0]))
    return [name for _, name in sorted(found) if name.split()[0].lower() not in NAME_STOPWORDS]


def _addressed(reg: "_Registry", sentence: str, line: Line, speakers: list[str]) -> None:
    """'Hey Mari!' said to Marina: Mari is Marina's alias; 'Hi Ana,' to no speaker: Ana, a person."""
    m = _ADDRESSED.match(sentence)
    if not m or m.group("n").lower() in NAME_STOPWORDS:
        return
    name, low = m.group("n"), m.group("n").lower()
    me = (line.speaker or "").strip().lower()
    for speaker in speakers:
        first = speaker.split()[0].lower()
        if speaker.lower() != me and len(low) >= 2 and (first.startswith(low) or first[:3] == low[:3]):
            reg.see(speaker, line.id).see(name, line.id, None)  # a nickname: "Mari", "Marri", "Os"
            return
    if m.group("greet") and zipf(low, FULL_LIST) < COMMON_ZIPF and not common_plural(low) and low not in line.text.lower().split():
        reg.see(name, line.id, sentence)


def _items(value: str) -> list[str]:
    return [v.strip() for v in value.split(";") if v.strip()]


def _same(a: str, b: str) -> bool:
    return content_stems(a) == content_stems(b)


def _key(claim: Claim) -> str | None:
    if claim.attribute.startswith("favourite "):
        return claim.attribute
    return DETAIL_KEYS.get(claim.attribute)


def _apply(details: dict[str, str], claim: Claim) -> str | None:
    """Fold one claim into `details`; returns the details key it touched, if any."""
    key = _key(claim)
    if key is None:
        return None
    value = claim.detail or claim.value
    current = details.get(key, "")
    stems = set(content_stems(value))
    if spec_of(claim.attribute).single:
        held = set(content_stems(current))
        if claim.polarity is Polarity.ASSERTED:
            details[key] = value
        elif stems and not (current and (stems <= held or held <= stems)) and (other := next(
                (k for k, v in details.items() if k in _SINGLE_KEYS and v and set(content_stems(v)) == stems), None)):
            details[other] = ""  # "I left Acme" read as a partner left: the employer Acme is what ended
            return other
        elif not stems or not current or stems <= held or held <= stems:
            details[key] = ""
        return key
    items = _items(current)
    if claim.polarity is Polarity.ASSERTED:
        # an item already listed as specifically or more ("summer sailing regatta" holds "regatta")
        # adds nothing; one the new value says more specifically gives way to it ("dog" to "Rex (dog)")
        if not any(_same(i, value) or stems and stems <= set(content_stems(i)) for i in items):
            former = value.replace("'s ex-", "'s ", 1)  # "Maya's ex-boyfriend" ends "Maya's boyfriend"
            kept = [i for i in items if not (stems and set(content_stems(i)) < stems)
                    and (former == value or not _same(i, former))]
            details[key] = "; ".join([*kept, value][-LISTED_ITEMS:])
    else:
        details[key] = "; ".join(i for i in items if not (stems and stems <= set(content_stems(i))))
    return key


def _listed(claim: Claim, changed: dict[str, str], before: dict[str, str]) -> bool:
    """A claim whose item a listed detail gained ("likes: hiking; pottery" after "likes: hiking":
    pottery's claim, not hiking's again)."""
    key = _key(claim)
    item = claim.detail or claim.value
    return (key in changed and not spec_of(claim.attribute).single and claim.polarity is Polarity.ASSERTED
            and any(_same(i, item) for i in _items(changed[key]))
            and not any(_same(i, item) for i in _items(before.get(key, ""))))


def _biography(known: str, fresh: list[Claim], changed: dict[str, str]) -> str:
    """The known biography less what a change made stale, then the fresh claims, within
    BIOGRAPHY_WORDS (the oldest sentences go first). Stale: a sentence of a single-valued detail
    that changed (a new job), or of a listed detail's item that is no longer listed. A fresh
    claim the biography already holds moves to its end, never twice in it."""
    def stale(c: Claim) -> bool:
        key = _key(c)
        if key not in changed:
            return False
        if spec_of(c.attribute).single:
            return True
        return not any(_same(i, c.detail or c.value) for i in _items(changed[key]))

    stale = {c.sentence for c in parse_text(known) if stale(c)}
    new = list(dict.fromkeys(c.text for c in fresh))
    again = {_ISO_DAY.sub("", s) for s in new}  # said again (dated or not): once, as the newest
    kept = [s for s in sentences(known) if s not in stale and _ISO_DAY.sub("", s) not in again]
    while kept and len(" ".join(kept + new).split()) > BIOGRAPHY_WORDS:
        kept.pop(0)
    text = " ".join(kept + new)
    words = text.split()
    return text if len(words) <= BIOGRAPHY_WORDS else truncate_words(text, len(" ".join(words[:BIOGRAPHY_WORDS])))


def _summary(person: _Person, changed: set[str]) -> tuple[str, str | None]:
    """The batch's one most telling line about the person, within SUMMARY_WORDS words.

    A claim about them (third person, "Ana moved to Madrid.") beats a raw sentence that only
    names them, and one that says what they did or are beats one that reports their words
    ("Ana said: It is so peaceful ..."); among those, the one with the rarest content (worth.py)
    wins, a claim that changed one of their details counting CHANGE_BONUS more, the latest on a
    tie. The running summary is a dated line per batch that a planner reads at a glance: the
    batch's every clause is in the facts already. Returned with the id of the line it comes from."""
    if person.claims:
        ranked = [((" said: " not in c.text, worth(c.text, person.forms) + CHANGE_BONUS * (_key(c) in changed), i),
                   c.text if c.happened else _ISO_DAY.sub("", c.text),  # an event's own date stays
                   c.source_ids[0]) for i, c in enumerate(person.claims)]
    else:
        ranked = [((worth(s, person.forms), i), s, person.line_of.get(s)) for i, s in enumerate(person.sentences)]
    if not ranked:
        return "", None
    _, text, line_id = max(ranked)
    return truncate_words(text, len(" ".join(text.split()[:SUMMARY_WORDS]))), line_id


def contact_updates(lines: list[Line], claims: list[Claim], known: list[KnownContact]) -> list[ContactUpdate]:
    """One update per person the lines mention or who speaks in them (see the module docstring)."""
    by_sentence: dict[tuple[str, str], list[Claim]] = {}
    for claim in claims:
        if claim.person and claim.subject != "The user" and claim.source_ids:
            by_sentence.setdefault((claim.source_ids[0], claim.sentence), []).append(claim)
    reg = _Registry(known)
    people = {n.lower() for k in known for n in (k.name, *k.aliases)}
    people |= {(line.speaker or "").strip().lower() for line in lines}  # no one is a place gone to
    speakers = list(dict.fromkeys(s for s in ((line.speaker or "").strip() for line in lines) if s and s.lower() not in AGENT_SPEAKERS))
    for line in lines:
        speaker = (line.speaker or "").strip()
        if speaker and speaker.lower() not in AGENT_SPEAKERS:
            reg.see(speaker, line.id)
        for sentence in sentences(line.text):
            _addressed(reg, sentence, line, speakers)
            if speaker and (m := _CALL_ME.search(sentence)) and m.group("n").lower() not in NAME_STOPWORDS and not any(
                    s.split()[0].lower() == m.group("n").lower() for s in speakers):  # "call me Ana" said to Ana: a call
                reg.see(speaker, line.id).see(m.group("n"), line.id, None)  # "Call me Mia": the speaker's alias
            for form in _mentions(normalise(sentence)):
                reg.see(form, line.id, sentence)
            for role in _roles(sentence, speaker, speakers, line.id):
                reg.see(role.subject, line.id, sentence).claims.append(role)
            # a claim's sentence is the compacted one ("Oh, I've been ..." -> "I've been ...", lineclaims.py)
            for claim in by_sentence.pop((line.id, compact(sentence, hedges=False)), []):  # once: a sentence said twice
                reg.see(claim.subject, line.id, sentence).claims.extend([claim, *_pastimes_and_places(claim, people)])
    _breakups(reg)
    updates: list[ContactUpdate] = []
    for p in reg.people:
        before = dict(p.known.details) if p.known else {}
        after = dict(before)
        touched = [k for k in (_apply(after, c) for c in p.claims) if k]
        changed = {k: after[k] for k in dict.fromkeys(touched) if after[k] != before.get(k, "") or k not in before}
        changed = {k: v for k, v in changed.items() if v or k in before}
        names = [p.known.name, *p.known.aliases] if p.known else []
        if not p.known:
            p.name = max(p.forms, key=lambda f: (len(f.split()), len(f)))
        # New aliases only (the prompt's rule): the step keeps the known ones, and repeating them in
        # every update of a person was output paid per token that changed nothing.
        taken = {n.lower() for n in [*names, p.name]}
        aliases = list(dict.fromkeys(f for f in p.forms if f.lower() not in taken))
        new_alias = bool(aliases) and p.known is not None
        last = {_key(c): c for c in p.claims if _key(c) in changed}  # the batch's last word per key
        fresh = [c for c in p.claims if last.get(_key(c)) is c or _listed(c, changed, before)]
        biography = None
        if changed or new_alias:
            old = p.known.biography if p.known else ""
            bio = _biography(old, fresh, changed)
            biography = bio if bio and bio != old else None
        summary, summary_line = _summary(p, set(changed))
        if p.known and not (changed or new_alias or summary):
            continue
        updates.append(ContactUpdate(
            name=p.name, aliases=aliases, details=changed, biography=biography, summary=summary,
            source_ids=_evidence(p, fresh, names, aliases, summary_line),
        ))
    return updates


def _breakups(reg: _Registry) -> None:
    """"Bruno and I broke up": the partner named is an ex now ("Maya's ex-boyfriend"), when their
    relation, known or said in the batch, is a partner's."""
    for p in list(reg.people):
        for c in [c for c in p.claims if c.attribute == "partner" and c.polarity is Polarity.ENDED and c.value]:
            other = next((o for o in reg.people if o is not p and any(same_subject(c.value, f) for f in o.forms)), None)
            if other is None and reg._known_for(c.value) is not None:  # known from an earlier batch
                other = reg.see(c.value, c.source_ids[0] if c.source_ids else "", c.sentence or None)
            if other is None:
                continue  # "I left Acme": no one
            said = [r.value for r in other.claims if r.attribute == "relation"]
            held = said[-1] if said else (other.known.details.get("relation", "") if other.known else "")
            was = next((r for r in held.split("; ") if r.startswith(f"{p.name}'s ")), "")
            if was and (ended := ex_partner(Claim(other.name, "relation", was, ""))) is not None:
                other.claims.append(replace(ended, source_ids=c.source_ids, sentence=c.sentence))


def _roles(sentence: str, speaker: str, speakers: list[str], line_id: str) -> list[Claim]:
    """Who someone says they are, as their listed "roles": "my journey as a new dad", "it'll be
    tough as a single mom" (the speaker), "your patience as a parent" (the other speaker, when the
    batch has two). A question's says nothing ("your life as a parent?")."""
    if not speaker or speaker.lower() in AGENT_SPEAKERS or sentence.rstrip().endswith("?"):
        return []
    others = [s for s in speakers if s != speaker]
    out = []
    for m in _MY_ROLE.finditer(normalise(sentence)):
        whose = speaker if (m.group("own") or "").lower() != "your" else (others[0] if len(others) == 1 else "")
        role = m.group("role").lower()
        if whose:
            article = "an" if role[:1] in "aeiou" else "a"
            out.append(Claim(whose, "role", role, f"{whose} is {article} {role}.", detail=role, sentence=sentence,
                             source_ids=(line_id,)))
    return out


def _pastimes_and_places(claim: Claim, people: set[str]) -> list[Claim]:
    """A plain clause's pastimes and the places it says the person went ("went sailing",
    "took the kids to the aquarium") as claims of their listed "pastimes" and "places" details,
    each told by the clause itself; none when the clause is denied. A person gone to ("came
    to Ana") is no place: `people` are the lower-cased names of the batch's speakers and known
    contacts."""
    if claim.attribute != "event" or claim.polarity is not Polarity.ASSERTED or is_negated(claim.text):
        return []
    places = sorted(p for p in destinations(claim.value) if p.lower() not in people)
    return [*(replace(claim, attribute="pastime", value=a, detail=a) for a in sorted(activities(claim.value))),
            *(replace(claim, attribute="place", value=p, detail=p) for p in places)]


def _evidence(p: _Person, fresh: list[Claim], names: list[str], aliases: list[str],
              summary_line: str | None) -> list[str]:
    """The lines the update rests on: its changed details' claims, its new aliases, its summary;
    else the line that first names the person. Not every line they speak in: the citation dates
    the details (the newest cited line) and each cited id is model output paid per token."""
    known = {n.lower() for n in names}
    lines = [c.source_ids[0] for c in fresh if c.source_ids]
    lines += [p.line_of[a.lower()] for a in aliases if a.lower() not in known and a.lower() in p.line_of]
    lines += [summary_line] if summary_line else []
    lines = lines or p.source_ids[:1]
    return [s for s in dict.fromkeys(lines) if s]
