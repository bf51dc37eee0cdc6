"""Corrections, and sentences said as what they mean before they are parsed.

A correction says what is so no longer (`correction`): a value said right ("the budget is 150,
not 120"), a day or an hour said right in a sentence of any verb ("I have dinner with Ana on
Saturday, not Friday"), a thing moved in time ("the funeral got moved to Friday"), an amount
changed ("my rent went up to 950"); extraction drops or supersedes what it replaces. A line that
corrects the speaker's line before ("Sorry, I meant Thursday", "Oops, I meant 4pm") is that
line's sentence said right (`meant`), for facts and for the task it opened; one that corrects
nothing said says nothing (`correcting`).

`restate` says a sentence as what it means: a relative called by their home name as the
speaker's ("Mom is visiting" -> "My mom is visiting"), a proposal and its yes as an engagement, a
thing someone moved as the thing moved ("The dentist moved my appointment to Thursday" -> "My
appointment was moved to Thursday by the dentist"; "Move the dentist to Thursday", moved or asked
moved by the speaker, -> "My dentist was moved to Thursday"), a changed phone number as the new number, a
hometown as where one is from ("My hometown is Braga" -> "I am from Braga").
"""

from __future__ import annotations

import re
from typing import Callable

from consolidator.model.offline.text import content_stems, normalise, sentences
from consolidator.model.offline.words import KIN, MONTHS, WEEKDAYS

# --- corrections: what a sentence says is so no longer --------------------------------------

# "the budget is 150, not 120", "my flight is at 9, not 8": a correction names the value it replaces
CORRECTION = re.compile(r"^(?P<about>.+?) (?:is|are|was|were) [^,]+?, not (?P<old>[^\s,.()]+(?: [^\s,.()]+)?)"
                        r"(?= \(|[,.;!]|$)")
# "the funeral got moved to Friday", "my dentist appointment was rescheduled": what was said of it is past
_WHEN = "|".join((*WEEKDAYS, *MONTHS, "tomorrow", "tonight", "today", r"\d", "later", "noon", "morning", "afternoon",
                  "evening", "week", "weekend", "month"))
MOVED = re.compile(rf"^(?P<about>.+?) (?:got |was |has been |had to be |is being )?(?:(?:rescheduled|postponed|"
                   rf"pushed back|brought forward)\b|moved (?:to|until) (?=(?:next |this |the )?(?:{_WHEN})))", re.I)


# "my rent went up to 950", "the fee was cut to 20": an amount changed, what was said of it is past
_CHANGED_TO = re.compile(r"^(?P<about>.+?) (?:has |have |had |will |is |are )?(?:(?:went|gone|go|goes|going) (?:up|down)|"
                         r"increased|decreased|dropped|rose|risen|fell|fallen|(?:was|were|been) (?:raised|cut|lowered)) "
                         r"to \S*\d", re.I)


# "I have dinner with Ana on Saturday, not Friday", "we land at 10, not 9": a day or an hour
# corrected in a sentence of any verb; what it is about is the rest of the sentence, less its times
_RETIMED = re.compile(rf"^(?P<about>.+?),? not (?:on |at |by |in |until )?(?P<old>(?:next |this |the )?(?:{_WHEN})"
                      r"[^\s,.()]*)(?= \(|[,.;!]|$)", re.I)
_TIME_WORDS = re.compile(rf"\([^)]*\)|\S*\d\S*|\b(?:{_WHEN})s?\b", re.I)


def _stems(text: str) -> frozenset[str]:
    return frozenset(content_stems(normalise(text))) - {"say"}


def correction(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """What a correction is about (its subject's content stems: "Maya", "budget"; for a day or an
    hour corrected, the stems of the rest of the sentence: "Maya", "dinner", "Ana") and the stems
    of the value it replaces ("120"; none when a thing is moved or an amount changed: all said of
    it); None if `text` corrects nothing, or no thing of someone's ("Maya is happy, not sad")."""
    m = CORRECTION.match(text) or MOVED.match(text) or _CHANGED_TO.match(text)
    about = _stems(m.group("about")) if m else frozenset()
    if len(about) < 2 and (retimed := _RETIMED.match(text)):
        m, about = retimed, _stems(_TIME_WORDS.sub(" ", retimed.group("about")))
    return (about, _stems(m.groupdict().get("old") or "")) if len(about) > 1 else None


def stated(text: str) -> str:
    """`text` less the value a correction in it says it replaces ("..., not Friday")."""
    m = CORRECTION.match(text) or _RETIMED.match(text)
    return re.sub(r",?\s*not\s*$", "", text[:m.start("old")]) if m else text


# --- restatements -----------------------------------------------------------------------------

# A parent or grandparent called by what they are called at home ("Mom is visiting", "I called Dad"):
# the speaker's own, as "my mom" is. Not after a possessive or an article, and only where a verb or
# a word of the sentence follows: "Thanks, Mom!" and "Mom, where are you?" address them.
_KIN_AS_NAME = re.compile(r"(?<![\w'])(?<!my )(?<!our )(?<!your )(?<!his )(?<!her )(?<!their )(?<!the )(?<!a )"
                          r"(?P<kin>Mom|Mum|Mommy|Mummy|Mama|Dad|Daddy|Papa|Grandma|Grandpa|Granny|Grandad|"
                          r"Granddad|Nana)\b(?=(?:'s\b| [a-z]))")
_HOME_NAMES = {"mommy": "mom", "mummy": "mum", "mama": "mom", "daddy": "dad", "papa": "dad", "granny": "grandma",
               "nana": "grandma", "grandad": "grandpa", "granddad": "grandpa"}


# "my new boss", "Rui's current girlfriend": the relation is the same (the fact carries its day)
_NEW_KIN = re.compile(rf"\b(?P<w>[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir|[A-Z][a-z]+'s) (?:new|current) (?=(?i:{KIN})\b)")


def kin_as_mine(sentence: str) -> str:
    """`sentence` with a relative called by their home name said as the speaker's ("Mom is
    visiting next week" -> "My mom is visiting next week"; "I called Dad" -> "I called my dad"),
    and a relation said new ("Ana is my new boss") said as it is."""
    def mine(m: re.Match) -> str:
        kin = m.group("kin").lower()
        return f"{'My' if m.start() == 0 else 'my'} {_HOME_NAMES.get(kin, kin)}"

    return _NEW_KIN.sub(r"\g<w> ", _KIN_AS_NAME.sub(mine, sentence))


# "Rui proposed last night and I said yes!": an engagement, told as the proposal and its answer
_ACCEPTED = re.compile(r"^(?P<n>[A-Z][a-z]+) proposed(?: to me)?(?P<when>(?: (?:last|yesterday|today|tonight|this|on|at|in|"
                       r"during)\b(?: [A-Za-z0-9]+){0,2})?)(?:,| and)+ (?:I|of course I) said yes\b")


def _engaged(m: re.Match) -> str:
    """"Rui proposed last night and I said yes!" -> "I got engaged to Rui last night!"."""
    return f"I got engaged to {m.group('n')}{m.group('when')}{m.string[m.end():]}"


# "The dentist moved my appointment to Thursday": the thing moved, said as "my dentist appointment
# got moved to Friday" is (MOVED), and who moved it after.
_THING_MOVED = r"(?P<x>(?:[Mm]y|[Oo]ur|[Tt]he) [a-z]+(?: [a-z]+)?(?: with [A-Z][a-z]+(?: [A-Z][a-z]+)?)?) (?P<to>(?:to|until|till) .+)$"
_MOVED_BY = re.compile(r"^(?P<who>I |We |(?:[Tt]he|[Mm]y|[Oo]ur|[A-Z][a-z]+) (?:[a-z]+ )?)(?:moved|rescheduled|postponed|"
                       r"pushed(?: back)?|shifted|bumped) " + _THING_MOVED)
# "Move the dentist to Thursday", "We have to postpone the move to March", "Can you push the call with
# Rui to Friday?": the speaker's own thing moved (the speaker moves it, or asks it moved)
_MOVE_ASKED = re.compile(r"^(?P<who>)(?:(?:please|pls|ok|okay|so|oh|and|also|can you|could you|would you|let's|let us|"
                         r"we (?:have|need|had|will have) to|I (?:have|need|had|want|will have) to|I would like to)[,]?\s+)*"
                         r"(?:move|reschedule|postpone|push(?: back)?|shift|bump) " + _THING_MOVED, re.I)


def _moved(m: re.Match) -> str | None:
    """A thing someone moved in time as the thing moved (None: not moved in time); the thing the
    speaker moves or asks moved is theirs ("the dentist": "my dentist")."""
    x, who = m.group("x"), m.group("who").strip() or "I"
    who = who[:1].lower() + who[1:] if who.split()[0] in ("The", "My", "Our") else who
    mine = who.lower() in ("i", "we")
    x = re.sub(r"^[Tt]he ", "my " if who == "I" else "our ", x) if mine else x
    by = "" if who.lower() in ("i", "we", "they", "he", "she", "you") else f" by {who}"  # a pronoun says no one new
    moved = f"{x[:1].upper()}{x[1:]} was moved {m.group('to').rstrip(' .!?')}{by}."
    return moved if MOVED.match(moved) else None  # moved in time: "moved the office to Porto" is no date moved


# "Ana changed her number, it is 555-0199 now": the new number, said as "Ana's new number is ..." is.
_NUMBER_CHANGED = re.compile(r"^(?P<who>I|[A-Z][a-z]+) (?:changed|got|has) (?:my|her|his|their|a) (?:new )?(?:phone )?number"
                             r"(?:,| -| and)? (?:it is|it's|the new one is|the new one's|which is) (?:now )?"
                             r"(?P<num>\+?\d[\d -]{4,}\d)(?: now\b)?(?P<rest>.*)$")


def _new_number(m: re.Match) -> str:
    """A changed phone number said as the new number."""
    who = m.group("who")
    whose = {"I": "My", "She": "Her", "He": "His", "They": "Their", "We": "Our"}.get(who, f"{who}'s")
    return f"{whose} new number is {m.group('num')}{m.group('rest')}"


# "Sorry, I meant Thursday, not Tuesday": a correction of the speaker's line before
_MEANT = re.compile(r"^(?:(?:sorry|oops|wait|no|actually|correction|my bad)[,:!.]*\s+)*(?:I meant|I mean|make that|"
                    r"(?:it|that) should be|should be)\s+(?P<new>[^,.;!?]+?)(?:,?\s+not\s+(?P<old>[^,.;!?]+?))?[.!]*$", re.I)


_AMOUNT = re.compile(r"(?<![\w:.,])\d+(?:[:.,]\d+)?(?: ?(?:am|pm|st|nd|rd|th)\b)?(?![\w:])", re.I)


def _form(amount: str) -> str:
    """'3pm' and '4 pm' -> '0pm', '9:30' -> '0:0', '12th' -> '0th', '950' -> '0'."""
    return re.sub(r"\d+", "0", amount.lower().replace(" ", ""))


def correcting(text: str) -> bool:
    """Whether `text` is a bare correction of the line before, placed or not: a value said right
    ("Oops, I meant 4pm", "I meant Friday", "make that 980, not 950"), not a clause that opens
    with "I meant" ("I meant to call Ana", "No, I mean my sister Ana is a nurse")."""
    if not (m := _MEANT.match(text.strip())):
        return False
    said = m.group("new").lower().split()
    return m.group("old") is not None and len(said) <= 3 or all(
        w in ("on", "at", "by", "the", "and", "or") or w in WEEKDAYS or w in MONTHS or _AMOUNT.fullmatch(w) for w in said)


def meant(text: str, before: str) -> str | None:
    """A correction of the speaker's line before ("Sorry, I meant Thursday, not Tuesday") as the
    sentence of it that it corrects, said right ("My dentist appointment is on Thursday at 4, not
    Tuesday."), which supersedes what that said (`correction`). Without its "not ...", a
    weekday or month replaces the one other weekday or month the line before named ("I meant
    Friday"); an hour, amount or day of the month the one other of its form ("I meant 4pm"). None
    if `text` is no such correction, or corrects nothing said before."""
    m = _MEANT.match(text.strip())
    if not m or not before:
        return None
    new, old = m.group("new"), m.group("old")
    if old is None:
        new = re.sub(r"^(?:on|at|by|the) ", "", new, flags=re.I)
        kind = next((k for k in (WEEKDAYS, MONTHS) if new.lower() in k), ())
        named = {w for w in re.findall(r"[A-Za-z]+", before) if w.lower() in kind and w.lower() != new.lower()}
        if _AMOUNT.fullmatch(new):  # "I meant 4pm": the one other hour (amount, day of the month) of its form
            named = {a.group() for a in _AMOUNT.finditer(before) if _form(a.group()) == _form(new) and a.group() != new}
        if len(named) != 1:
            return None
        old = named.pop()
    for sentence in reversed(sentences(before)):
        if re.search(rf"\b{re.escape(old)}\b", sentence, re.I):
            fixed = re.sub(rf"\b{re.escape(old)}\b", new, sentence, count=1, flags=re.I)
            return f"{fixed.rstrip(' .!')}, not {old}."
    return None


# "My hometown is Braga", "Rui's home country is Angola": where someone is from, said so.
_HOMETOWN_IS = re.compile(r"^(?P<who>My|Our|[A-Z][a-z]+'s) (?:home ?town|home country|home city|birthplace|native "
                          r"(?:country|land|town|city)) (?:is|was) (?P<v>[A-Z].*)$")


def _from(m: re.Match) -> str:
    """A hometown said as where someone is from."""
    who = m.group("who")
    subject = "I am" if who in ("My", "Our") else f"{who[:-2]} is"  # "Rui's": Rui
    return f"{subject} from {m.group('v')}"


# Each restatement: what a sentence opens with, and what it then means (None: as it is).
_RESTATEMENTS: tuple[tuple[re.Pattern, Callable[[re.Match], str | None]], ...] = (
    (_ACCEPTED, _engaged), (_MOVED_BY, _moved), (_MOVE_ASKED, _moved), (_NUMBER_CHANGED, _new_number),
    (_HOMETOWN_IS, _from))


def restate(sentence: str) -> str:
    """`sentence` said as what it means (see the module docstring); any other sentence as it is."""
    sentence = kin_as_mine(sentence)
    for pattern, meaning in _RESTATEMENTS:
        if (m := pattern.match(sentence)) and (said := meaning(m)) is not None:
            sentence = said
    return sentence
