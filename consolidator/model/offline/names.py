"""Which capitalised words name people or things: evidence from the batch, not a gazetteer.

A capital letter alone proves little: every sentence starts with one ("Sounds like fun",
"Endless patience is so important", "Wow"). And word frequency alone cannot tell names
from words either ("marina" and "unconditional" are about as rare in English; "mark" and
"will" are common words). So a capitalised word is taken for a name only on evidence:

- it is a known name: a speaker of the batch, a known contact, the subject of a known fact;
- it is capitalised somewhere not at the start of a sentence ("I met Ana", "Thanks, Mari!")
  and never seen in lower case in the batch (a proper noun, not a capitalised common word);
- it is introduced as a person: after a relation word ("my friend Ana"), before one ("Ana is
  my cousin"), addressed at a sentence start ("Hey Ana", "Thanks, Ana!"), or after a people
  verb ("I called Ana", "lunch with Ana"; not "visited", which places take too);
- it is said to be someone's something ("Nilo is my mother's cat"): a named thing;
- or, only at a sentence start, the next word agrees with a singular subject ("Ana works",
  "Ana called", "Ana is"; not "Endless patience", "Sounds like", "Thanks so much") and the
  word is not seen in lower case in the batch and is rare in English (wordfreq zipf below
  RARE_ZIPF), or, when what follows is said of people (an attribute rule such as "works at", or
  a people verb such as "called", "visited"), below COMMON_ZIPF ("Ana", "Tom"; not "Mark").

Two kinds of answer: `is_named` (a person or a named thing may be a fact's subject) and
`is_person` (may become a contact). Places and titles are named things, not people: only the
person evidence above, or a people verb in the claim itself (see clauses.py), makes a person.
Lookups are cached; the frequency list loads once per process, on first use.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from consolidator.model.offline.text import sentences
from consolidator.model.offline.words import (
    ADDRESS_OPENERS, EVERYDAY_ZIPF, FULL_LIST, IRREGULAR_PAST, NAME_STOPWORDS, NUMBER_WORDS, RARE_ZIPF, KIN,
    PRONOUN_GENDER, STOPWORDS, TITLES, alternation, gender_of, zipf,
)

# RARE_ZIPF (words.py): below it a lower-cased word is too rare to be common English ("xiomara": 0)
COMMON_ZIPF = 5.0  # at or above this a word is common English ("sounds" 4.97 is below: agreement rules it out)
_CAP_WORD = re.compile(r"(?<![\w'@-])[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?(?![\w-])")
_LOWER_WORD = re.compile(r"(?<![\w'-])[a-z]+(?![\w-])")
_NAME = r"[A-Z][a-z]+(?:[A-Z][a-z]+)?(?: [A-Z][a-z]+)?"
_PERSON_EVIDENCE = [
    re.compile(rf"\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[Yy]our) (?P<rel>(?i:{KIN})),? (?P<n>{_NAME})"),
    re.compile(rf"(?P<n>{_NAME}) (?:is|was) (?:my|our|his|her|their|your) (?P<rel>(?i:{KIN}))\b(?!')"),
    re.compile(rf"\b(?:[Mm]y|[Oo]ur|[Tt]he) (?P<rel>(?i:{KIN}))(?:'s name is| is (?:called|named)) (?P<n>{_NAME})"),
    re.compile(rf"^(?i:{alternation(ADDRESS_OPENERS)}),? (?P<n>{_NAME})\b"),
    re.compile(rf"\b(?P<rel>{TITLES})\.? (?P<n>{_NAME})"),  # "Dr. Costa", "Mrs. Silva"
    # "Ana from work", "Joana from accounting": one of a group one belongs to (a place is "in")
    re.compile(rf"\b(?P<n>{_NAME}) from (?:work|the office|school|college|uni|church|the gym|yoga|(?:my |the )?(?:team|"
               rf"book club|choir|class|department)|accounting|finance|marketing|sales|legal|HR|IT)\b"),
    re.compile(rf"\b(?P<n>{_NAME})'s (?:new )?(?:birthday|bday|b-day|wedding|funeral|graduation|(?:phone )?number|email|(?i:{KIN}))\b"),  # "Rui's mom"
    re.compile(
        rf"\b(?i:met|meet|meeting|rang|emailed|texted|told|asked|hugged|married|dating|surprise|surprised|invited|thanked|"
        rf"(?:I|we|she|he|they) (?:just |finally )?called|(?:lunch|dinner|coffee|drinks|breakfast|chat|talked|spoke|"
        rf"hung out|went out) with) (?P<n>{_NAME})"
    ),
]
# A name said to be someone's or something's: "Nilo is my mother's cat" (named, maybe not a person).
_NAMED_EVIDENCE = re.compile(rf"^(?P<n>{_NAME}) (?:is|was) (?:my|our|his|her|their|your) ")
_AUX = frozenset(
    """is was has had does did will would can could should may might must cannot just also still never
    always really finally recently""".split()
)
def common_plural(word: str) -> bool:
    """'doctors', 'parents', 'friends': the plural of a common noun, not a name ('James')."""
    low = word.lower()
    return low.endswith("s") and not low.endswith("ss") and zipf(low[:-1], FULL_LIST) >= 4.0


def agrees_with_singular(word: str) -> bool:
    """Whether `word` can follow a singular name as its verb: 'is', 'called', 'loves', 'went'."""
    low = word.lower()
    if low in _AUX or low in IRREGULAR_PAST:
        return True
    if low in STOPWORDS:
        return False
    return low.endswith("ed") or (low.endswith("s") and not low.endswith("ss") and len(low) > 3)


_DETERMINERS = frozenset("the this that these those my our your their his her its a an".split())
_PLURAL_AUX = frozenset("are were have".split())


def states(clause: str) -> bool:
    """Whether `clause` opens with a subject and its verb: "The funeral is ...", "Leo has a fever",
    "the old one died"; not a fragment ("Around 20", "Senior product manager") or a request ("Book it")."""
    words = clause.split()
    first = words[0].lower() if words else ""
    if first in _DETERMINERS or first.endswith("'s"):
        verbs = words[2:5]  # a noun phrase of one to three words ("Maya's flight to Lisbon"), then its verb
    elif first and words[0][:1].isupper() and first not in STOPWORDS and first not in NUMBER_WORDS:
        verbs = words[1:2]  # a name, then its verb
    else:
        return False
    return any(agrees_with_singular(w) or w.lower() in _PLURAL_AUX for w in verbs)


def _starts(text: str) -> set[int]:
    """Offsets where a sentence or quotation starts (a capital there proves nothing)."""
    out = {0}
    for m in re.finditer(r"(?:[.!?:;]\s+|[\"(\[]\s*|\n\s*|^\W+)", text):
        out.add(m.end())
    return out


class NameBook:
    """Name evidence of one batch (see the module docstring); `None` elsewhere means 'trust capitals'."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        self.people: set[str] = set()  # lower-cased full names and first names
        self.proper: set[str] = set()  # capitalised where a capital proves it
        self.lower: set[str] = set()  # words seen in lower case
        self.genders: dict[str, str] = {}  # lower-cased name -> "f" or "m" where a relation or title says it ("?": both)
        for name in known:
            self.add_person(name)

    def add_person(self, name: str) -> None:
        name = " ".join(name.split())
        if not name or name.split()[0].lower() in NAME_STOPWORDS:
            return
        self.people.add(name.lower())
        self.people.add(name.split()[0].lower())

    def read(self, text: str) -> None:
        """Collect the evidence of one person's line."""
        starts = _starts(text)
        for m in _CAP_WORD.finditer(text):
            if m.start() not in starts and m.group().lower() not in NAME_STOPWORDS:
                self.proper.add(m.group().lower())
        self.lower.update(m.group() for m in _LOWER_WORD.finditer(text))
        for sentence in sentences(text):
            if m := _NAMED_EVIDENCE.match(sentence):
                self.proper.update(m.group("n").lower().split())
            for pattern in _PERSON_EVIDENCE:
                for m in pattern.finditer(sentence):
                    self.add_person(m.group("n"))
                    if (rel := m.groupdict().get("rel")) and (gender := gender_of(rel)):
                        for key in {m.group("n").lower(), m.group("n").split()[0].lower()}:
                            self.genders[key] = gender if self.genders.get(key, gender) == gender else "?"

    def is_person(self, name: str) -> bool:
        low = name.lower()
        return low in self.people or low.split()[0] in self.people

    def agrees(self, name: str, pronoun: str) -> bool:
        """Whether a she/he/her/his may mean `name`: not where the batch says otherwise ("my sister
        Ana" is no "he"); a name alone says nothing."""
        said = self.genders.get(name.lower()) or self.genders.get(name.split()[0].lower() if name else "")
        meant = PRONOUN_GENDER.get(pronoun.lower().strip())
        return not (said in ("f", "m") and meant and said != meant)

    def meant(self, pronoun: str, speakers: tuple[str | None, ...], said_of: list[str], named: list[str],
              last: str | None, seen: list[str]) -> str | None:
        """Whom a she/he/his/her that starts a clause means, the first it may mean (`agrees`) of:
        the people its sentence's clauses were said of, latest first ("Ana called Rui, she was
        upset": Ana); the people the sentence named before it (`named`, its capitalised words: "I
        met Ana at the gym, she's a nurse"); `last`, whom the line or the one before spoke of; the
        people the line's sentences before named (`seen`: "My daughter Ana and my son Leo came.
        She ..." is Ana). Never one of the `speakers` ("Thanks, Rui! His ankle is better": not Rui's).
        None if none may be meant."""
        def people(words: list[str]) -> list[str]:
            return [w for w in reversed(words) if w not in speakers and self.is_person(w)]
        return next((w for w in [*reversed(said_of), *people(named), *([last] if last else []), *people(seen)]
                     if self.agrees(w, pronoun)), None)

    def vouches_for(self, word: str) -> bool:
        """`word` is a person's name, or capitalised where a capital proves it and never seen in
        lower case: a name, not a capitalised first word ("Remind")."""
        low = word.lower()
        return self.is_person(word) or (low in self.proper and low not in self.lower)

    def is_named(self, name: str, initial: bool, next_word: str = "", person_predicate: bool = False) -> bool:
        """May `name` (one or two capitalised words) be a subject at this position?

        `person_predicate`: what follows is said of people ("works at", "called", "moved to")."""
        words = name.lower().split()
        if not words or words[0] in NAME_STOPWORDS or words[0] in STOPWORDS:
            return False
        if self.is_person(name):
            return True
        if all(w in self.proper and w not in self.lower for w in words):
            return True
        if not initial:
            return words[0] not in self.lower
        if any(w in self.lower or common_plural(w) for w in words) or not agrees_with_singular(next_word):
            return False
        limit = COMMON_ZIPF if person_predicate else RARE_ZIPF
        return all(zipf(w, FULL_LIST) < limit for w in words)


def known_subjects(texts: Iterable[str]) -> list[str]:
    """The leading names of stored fact texts ('Ana works at Acme.' -> 'Ana'): already vetted."""
    out = []
    for text in texts:
        m = re.match(rf"({_NAME})(?:'s)?\b", text)
        if m and m.group(1).split()[0].lower() not in NAME_STOPWORDS:
            out.append(m.group(1))
    return out


_ANY_WORD = re.compile(r"(?<![\w@])[^\W\d_]+(?:[-'’][^\W\d_]+)*")  # any script: "Zoë", "Anne-Marie", "Ana's"


def topic_texts(texts: Sequence[str], context: Iterable[str] = ()) -> list[str]:
    """The texts without the names of people and things: what each says, not whom it is about.

    A topic vector (which table a fact belongs in) made from "Maya adopted a cat" is mostly
    Maya when the static embedding of a rare name outweighs "adopted a cat", and every fact
    about Maya then looks alike whatever it says. A capitalised word (with its possessive) is
    left out where the texts show it is a name: capitalised and never seen in lower case in
    `texts` or `context` (other texts of the same scope: more evidence), unless it opens a
    sentence and is one of English's commonest words ("The", "After"), or is one letter. A text
    left with no word keeps its own words."""
    lower = {m.group().casefold() for text in (*texts, *context) for m in _ANY_WORD.finditer(text)
             if m.group()[0].islower()}
    out = []
    for text in texts:
        starts = _starts(text)

        def drop(m: re.Match[str]) -> str:
            word = m.group()
            low = word.casefold()
            if (not word[0].isupper() or len(word) == 1 or low in lower
                    or (m.start() in starts and zipf(low) >= EVERYDAY_ZIPF)):
                return word
            return ""

        kept = _ANY_WORD.sub(drop, text)
        out.append(kept if any(m.group()[0].islower() for m in _ANY_WORD.finditer(kept)) else text)
    return out


def short_for(word: str, name: str) -> bool:
    """`word` is `name` or its short form ("Mari" for "Marina")."""
    word = word.strip().lower()
    return len(word) >= 2 and name.lower().startswith(word)


def calls(word: str, you: str | None) -> bool:
    """`word` is the first name of the person spoken to, or its short form."""
    return bool(you) and short_for(word, you.split()[0])
