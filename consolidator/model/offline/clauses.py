"""Events, experiences and other statements that no attribute rule covers, as dated facts.

"I went to a choir rehearsal last Friday" matches no attribute rule (home, job, diet...),
yet it is what a later question asks about. Such a clause becomes one fact: its subject (the
speaker for I/we, the addressee for you, a vetted name, "<Speaker>'s X" for "my X"), then
the whole rest of the clause rewritten in the third person, then the local day it was said:
"Ana went to a choir rehearsal (2023-05-05)." (see Dating). Nothing is summarised away:
titles, numbers, places and objects stay as they were said.

Dating (`event_date`): a clause that says when it happened by one relative date ("yesterday",
"last Friday", "two weekends ago", "next month") is dated by that date, resolved against the
local day the line was said on (reldates.py), and the words go: the note says it, and "yesterday"
would be wrong the day after. "I went to a choir rehearsal yesterday", said on 2023-05-08,
is "Ana went to a choir rehearsal (2023-05-07)."; "I'm having an art show next month"
is "Ana is having an art show (June 2023)." A clause with no relative date, or with two
that disagree, is dated by the day it was said, and any relative date in it is resolved beside
its words as a summary writes it.

Rewriting: "I/we" as subject -> the speaker, and the first verb agrees ("am"/"are" -> "is",
"were" -> "was", "love" -> "loves"); "my/our/me/us" -> "their/them" when the speaker is the
subject, else "<Speaker>'s"/"<Speaker>"; "you/your" -> the addressee (the nearest other person
speaking in the batch) and "you use" -> "<Addressee> uses", "the class you're taking" -> "the
class <Addressee> is taking". A double-quoted quotation keeps its own pronouns ('"I'm the king
of the world"' is the film's line, not the speaker's claim). A clause that says "you" with no
person to address it to is dropped: it would not stand alone.

A clause is kept only when it has substance (`substance`: content words that are not VAGUE, i.e.
feelings, intensifiers, light verbs, time words, "thing"/"stuff"; names and numbers count twice):
MIN_SUBSTANCE for a clause about a person, MIN_SAID for one kept in the speaker's name because no
person is its subject ("It stands for freedom" -> "Ana said: It stands for freedom"), MIN_TOLD told
to the agent ("The funeral is on Thursday"). So "I'm so happy for you", "I know, right" and "I love
that" give nothing. Questions give nothing, nor does advice said to the other person ("Let's ...",
"Keep it up": `is_advice`). Asides ("[laughs]", an attachment "(photo: ...)") are annotations, not
speech, and are left out. A sentence that drops its "I" ("Took a trip to Rome", "Been painting a
lot") is read as the speaker's (`dropped_i`) when it opens with a past form. How rare and how new a
clause's content is, and so whether it is stored at all, is worth.py's measure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

from consolidator.model.attachments import ATTACHMENT_FORM
from consolidator.model.offline.text_cut import TITLE
from consolidator.model.offline.reldates import DATE_NOTE, absolute_dates, relative_dates, resolve_absolute_dates
from consolidator.model.offline.reldates import WEEKDAY_BEFORE, resolve_relative_dates
from consolidator.model.offline.text import life_events, specifics, stem, third_person
from consolidator.model.offline.words import FULL_LIST, IRREGULAR_PAST, MONTHS, RARE_ZIPF, STOPWORDS, WEEKDAYS, zipf

MIN_SUBSTANCE = 2  # a clause about a person keeps at least this much substance (see substance)
MIN_SAID = 5  # a clause with no person for subject, kept in the speaker's name, needs more
MIN_TOLD = 3  # ...less when one person tells the agent: their lines are about their life, not talk
MAX_WORDS = 45  # a longer clause is cut at its last comma (or word) within this many words
VAGUE = frozenset(
    """happy glad sad sorry excited thrilled proud grateful thankful lucky blessed great good nice cool
    awesome amazing wonderful fantastic incredible beautiful lovely cute sweet fun funny hard tough easy
    bad terrible awful interesting important special true sure right wrong okay fine crazy perfect
    super best better worse worst stoked pumped bummed jealous impressive inspiring inspired
    touched moved meaningful rewarding powerful exciting appreciate appreciated agree agreed wish hope
    hoping hoped think thought thinking guess believe mean meant know knew knowing understand feel
    felt feeling feels see saw seen seeing look looking looks seem seems sound sounds say said tell
    told glad love loved loving like liked enjoy enjoyed want wanted need needed try trying tried
    got get getting go going gone went come came coming make made making take took taking keep kept
    let lets put give gave thing things stuff something anything everything nothing lot lots bit
    kind sort way ways time times day days moment moments week weeks weekend month months year years
    today tonight yesterday tomorrow morning evening night ever even always never often sometimes
    definitely absolutely totally honestly literally actually basically seriously truly pretty
    idea ideas one ones guys people person everyone someone anyone everywhere somewhere anywhere happen
    happened happens wow yeah yes yep haha omg lol thanks thank congrats congratulations hey hi hello
    bye cheers ah oh ooh aww hmm wait last next ago
    soon later lately recently early late""".split()
) | frozenset(WEEKDAYS) | frozenset(MONTHS)
_ADVERB = frozenset(
    """no longer never not also still now just really actually always often usually finally recently
    already even totally definitely absolutely honestly literally truly so too then once sometimes
    currently officially both all last first ever""".split()
)
_THIRD = {"am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "'m": "is", "'re": "is", "'ve": "has",
          "wanna": "wants to", "gotta": "has to", "gonna": "is gonna"}
# Never a verb to inflect ("my new car broke down" said after "I": not "mys new car").
_NOT_VERBS = frozenset("my our your his her their its the a an this that these those it they he she we you i".split())
_BRACKETS = re.compile(rf"\s*(?:\[[^\]]*\]?|{ATTACHMENT_FORM})")  # "[laughs]", "(photo: ...)" (model/attachments.py)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['-][A-Za-z0-9]+)*")
_PUNCT = re.compile(r"^(\W*)(.*?)(\W*)$")
_SUBORDINATORS = frozenset(
    "how that what when whenever if because as since where why and but so while which who whether though "
    "although before after until once".split()
)
_YOU_AUX = frozenset("are were have 're 've".split())  # after "you" always its own verb, wherever it stands
# ...what may follow "you" and is no verb to inflect ("you guys", "you all"); "get" is a stopword
# that is a verb ("as you get stronger" -> "as Ana gets stronger")
_AFTER_YOU_SKIP = frozenset((STOPWORDS - {"get"}) | {"guys", "all", "both", "two", "soon", "later", "again", "there"})
_UNRESOLVED = object()  # "you" with no one to address it to
# Verbs that take a person as subject: a named subject doing one of these is a person.
PERSON_VERBS = frozenset(stem(w) for w in (
    """said told asked called texted emailed met visited went came moved lives works married divorced dated
    adopted painted drew wrote recorded sang played studied graduated joined started finished quit left
    bought sold gave took made cooked baked ran hiked travelled traveled flew drove decided loves likes
    hates thinks feels wants knows believes hopes plans learned learnt taught volunteered attended won lost
    got became hugged laughed cried smiled shared sent paid""".split()
))


# Advice and requests ("Let's ...", "Keep it up", "Check this out"): said to someone, about no one.
_ADVICE = re.compile(
    r"(?:let's|lets|let us|do not|don't|never|always|please|remember|keep|check|try|make sure|stay|enjoy|imagine|"
    r"hang in|believe|follow|go for|take care|have fun|be|remind|(?:tell|help|find|show|send|give|get) me|book|order|"
    r"cancel|schedule|add|put)\b",
    re.I,
)
_JUDGES_IT = re.compile(r"(?:it|this|that) (?:is|was|has been) (?:(?:so|really|such|a|an|just|pretty|very) )*(?P<w>[\w-]+)",
                        re.I)
# A sentence that drops its "I" ("Took a trip to Rome", "Started a new job", "Been busy painting").
_DROPPED_ADVERBS = frozenset("just finally recently also actually".split())
# "Starting at Acme next month", "Heading to Porto tomorrow": an "I'm" dropped before a plan under way.
_DROPPED_ING = frozenset("starting heading moving going flying leaving driving working planning visiting staying".split())
_FINITE = frozenset("""is was are were has makes keeps helps gives feels sounds seems takes requires needs means costs
    brings matters works hurts can could will would should""".split())  # a gerund subject's verb: "Starting a business takes ..."
_PAST_FORMS = frozenset(
    """went came saw took gave got made met ran bought brought found kept began wrote sang drew won lost sent
    spent paid built became grew knew heard taught caught sold wore ate drank drove flew rode swam spoke broke
    chose woke slept had did tried""".split()
)
_CATENATIVE = frozenset("started decided tried managed wanted needed planned used learned continued began".split())
# A past verb of going whose "to" names where ("Just moved to Lisbon", "Headed to the coast").
_WENT_TO = frozenset("moved relocated travelled traveled returned headed walked hiked biked cycled sailed".split())
# A standing rule told to the agent ("Please never book flights before 8am", "Please keep your answers short")
_STANDING = re.compile(r"(?:please )?(?:do not|never|always)\b(?! forget\b| let (?:me|us) forget\b| mind\b| worry\b)"
                       r"(?! (?:after|before|on|at|in|during|until|by|for|with|the|a|an|again|ever)\b)|please \w+ (?:\w+ )?"
                       r"your (?:answers?|repl(?:y|ies)|responses?|messages?|summar(?:y|ies)|suggestions?|tone)\b", re.I)
# Chat's contractions opening a clause that drops its "I" ("Gonna try the tapas").
_DROPPED_MODALS = {"gonna": "is going to", "gotta": "has to", "wanna": "wants to"}
_NOT_AFTER_PAST = frozenset("to of about by that with at in".split())


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo | timezone:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError):
        return timezone.utc


def local_time(at: datetime, zone: str = "UTC") -> datetime:
    """`at` in `zone` (a naive `at` is UTC; an unknown zone is UTC)."""
    aware = at if at.tzinfo else at.replace(tzinfo=timezone.utc)
    return aware.astimezone(_zone(zone))


def local_day(at: datetime, zone: str = "UTC") -> str:
    return local_time(at, zone).date().isoformat()  # the ISO day `at` falls on in `zone`


def strip_asides(text: str) -> str:
    """Drop square-bracketed annotations, rendered attachments and date notes ('(YYYY-MM-DD)', '(June 2023)', ...)."""
    return DATE_NOTE.sub("", _BRACKETS.sub("", text)).strip()


# "since last year", "until next week", "moved to Friday": a span's bound or a target, not when it happened
_SPAN_WORDS = frozenset(
    "since until till by before after from for through during over within than around about to starting beginning"
    " is was are were".split())  # "our anniversary is next Saturday": the date is what is said, it stays in place
_LOOSE_PUNCT = re.compile(r"\s+(?=[,.;:!?])|(?<=[,;:])(?=[,;:])")


@dataclass(frozen=True)
class Dated:
    """A clause's time phrase and words once dated, and the date its fact carries."""

    when: str  # the leading time phrase left ("" once it is the date)
    said: str  # the clause's words, less the relative date that dates it
    day: str | None  # the date note's text: the event's date, else the day it was said
    resolved: bool  # `day` is the event's own date, not the day it was said
    held: str = ""  # the event's own date kept in place ("the wedding was last Saturday (2025-11-29)")


def event_date(when: str, said: str, day: str | None, about: str = "") -> Dated:
    """The clause dated by its own relative date where it has one (module docstring, Dating)."""
    today, held = _day(day), ""
    lead, inner = relative_dates(when, today), relative_dates(said, today) or absolute_dates(said, today)
    if len({r for _, r in lead + inner}) == 1:
        if lead:
            return Dated("", said, lead[0][1], True)
        m, resolved = inner[0]
        start = weekday.start() if (weekday := WEEKDAY_BEFORE.search(said, 0, m.start())) else m.start()
        before = said[:start].split()[-1:]  # "on Friday, May 5" goes with its date
        rest = _LOOSE_PUNCT.sub("", " ".join(f"{said[:start]} {said[m.end():]}".split())).strip(" ,;:-")
        copula = (before or rest.split()[:1] or [""])[0].lower() in ("is", "was", "are", "were")  # or "Tomorrow is ..."
        if rest and not (before and before[0].lower() in _SPAN_WORDS) and (before or not copula):
            return Dated(when, rest, resolved, True)
        held = resolved if copula else ""
    return Dated(resolve_relative_dates(when, today),  # `about`: the clause's subject ("Rui's birthday")
                 resolve_absolute_dates(resolve_relative_dates(said, today), today, about), day, False, held)


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def substance(predicate: str, names: tuple[str, ...] = ()) -> int:
    """How informative a predicate is: its distinct content words that are not VAGUE, a name,
    title, number, pastime ("went sailing"), destination ("went to the aquarium") or a word as
    rare as a name (RARE_ZIPF in wordfreq's full list: "tendinitis", "ceviche"; a typo unknown
    there is not, though a common misspelling, "definately", is: a known limit) counting twice
    ("went to Boston": 2; "went to a support group": 3). The words
    of a quoted title are never vague: "The Old Harbour" is a name, not a judgement."""
    skip = {n.lower() for name in names for n in name.split()}
    titled = {w.lower() for title in TITLE.findall(predicate) for w in _WORD.findall(title)}  # a title is a name
    pastimes = specifics(predicate)  # as specific as a name
    events = life_events(predicate)
    found: dict[str, int] = {}
    for i, w in enumerate(_WORD.findall(predicate)):
        low = w.lower()
        low = low[:-2] if low.endswith("'s") else low
        vague = (low in VAGUE or stem(low) in _VAGUE_STEMS) and low not in events  # "moved in with": an event
        if low in STOPWORDS or low in skip or (vague and low not in titled):
            continue
        specific = any(c.isdigit() for c in w) or (i > 0 and w[:1].isupper()) or low in pastimes or 0 < zipf(low, FULL_LIST) <= RARE_ZIPF
        found[stem(low)] = max(found.get(stem(low), 0), 2 if specific else 1)
    return sum(found.values())


_VAGUE_STEMS = frozenset(stem(w) for w in VAGUE)


@dataclass(frozen=True)
class Speakers:
    """Who the pronouns of one line point to: `me` (I/we/my), `you` (the addressee or None)."""

    me: str
    you: str | None


def rewrite(predicate: str, speakers: Speakers, subject_is_me: bool) -> str | None:
    """The predicate in the third person (see the module docstring); None if 'you' cannot be resolved.

    `subject_is_me`: the clause's subject was I/we, so its first verb must agree with a name.
    """
    out: list[str] = []
    agree = subject_is_me  # the next verb must agree with a singular name
    from_you = False  # ...and that name replaced "you" ("how you use" -> "how Ana uses")
    prev = ""
    quoted = False  # inside a double-quoted span: a quotation is kept as it was said
    for raw in predicate.split():
        was_quoted = quoted
        quoted ^= raw.count('"') % 2 == 1
        if was_quoted or (quoted and raw.startswith('"')):
            out.append(raw)
            continue
        lead, word, trail = _PUNCT.match(raw).groups()
        low = word.lower()
        if from_you and prev == "you" and low in _YOU_AUX:  # "the class you're taking": "Ana is taking"
            out.append(f"{lead}{_THIRD[low]}{trail}")
            agree, prev = False, low
            continue
        if agree and (low in _ADVERB or (low.endswith("ly") and len(low) > 5)):
            out.append(raw)
            continue
        if agree:
            agree = False
            if low in _THIRD:
                word = _THIRD[low]
            elif low.isalpha() and low not in _NOT_VERBS and not (
                    from_you and (low in _AFTER_YOU_SKIP or low.endswith(("ed", "ing")))):
                word = third_person(word)
            out.append(f"{lead}{word}{trail}")
            prev = low
            continue
        new = _pronoun(low, speakers, subject_is_me)
        if new is _UNRESOLVED:
            return None
        if new is not None:
            # a pronoun that became a name and starts a clause of its own: its verb must agree
            agree = (low in ("i", "we") or low == "you" and (not out or prev in _SUBORDINATORS)) and new != "they"
            from_you = low == "you"
            word = new
        out.append(f"{lead}{word}{trail}")
        prev = low
    return " ".join(out)



def _pronoun(low: str, speakers: Speakers, subject_is_me: bool):
    me, you = speakers.me, speakers.you
    if low in ("my", "our"):
        return "their" if subject_is_me else f"{me}'s"
    if low in ("me", "us"):
        return "them" if subject_is_me else me
    if low in ("myself", "ourselves"):
        return "themselves"
    if low in ("mine", "ours"):
        return "theirs" if subject_is_me else f"{me}'s"
    if low == "i":
        return me
    if low == "we":
        return "they" if subject_is_me else me
    if low in ("you", "your", "yours", "yourself", "yourselves", "ya", "u"):
        if you is None:
            return _UNRESOLVED
        return you if low in ("you", "yourself", "yourselves", "ya", "u") else f"{you}'s"
    return None


def clip(text: str, max_words: int = MAX_WORDS) -> str:
    """At most `max_words` words, cut at the last comma inside them when there is one."""
    words = text.split()
    if len(words) <= max_words:
        return text
    head = " ".join(words[:max_words])
    comma = head.rfind(",")
    return (head[:comma] if comma > len(head) // 2 else head).rstrip(" ,;:-")


_AUXILIARIES = frozenset("is was are were has have had been will would".split())


def first_verb(predicate: str) -> str:
    """The stem of the predicate's first word that is not an adverb ('just finished' -> 'finish'),
    past an auxiliary before a participle ('is leaving' -> 'leav', 'has moved' -> 'mov')."""
    words = [w.strip(".,!?;:\"'") for w in predicate.lower().split()]
    words = [w for w in words if w and w not in _ADVERB and not w.endswith("ly")]
    while len(words) > 1 and words[0] in _AUXILIARIES and (words[1].endswith(("ing", "ed")) or words[1] in IRREGULAR_PAST):
        words = words[1:]
    return stem(words[0]) if words else ""


# "It all started when ...", "that's when ...": a narrative frame; the clause after it is what happened.
_FRAME = re.compile(r"^(?:it(?: all)? (?:started|began) (?:back )?when|that(?:'s| is| was) when)\s+(?=\w)", re.I)


# "They're promoting me to team lead", "my boss fired me": what was done to the speaker, said as theirs.
_DONE_TO_ME = re.compile(
    r"^(?:they|he|she|we|my (?:boss|manager|company|employer)|the (?:company|firm|team|boss))\s*"
    r"(?:(?P<now>'re|'s|are|is) |(?:have |has |just |finally |officially )*)"
    r"(?P<verb>promot|hir|fir|transferr|appoint)(?:ed|ing) me\b", re.I)


def unframed(seg: str) -> str:
    """`seg` less a narrative frame ("It all started when a friend gave me ..." -> "a friend gave me
    ..."), and what someone did to the speaker said as the speaker's ("They're promoting me to team
    lead" -> "I am being promoted to team lead"), which the attribute rules read."""
    seg = _FRAME.sub("", seg)
    if m := _DONE_TO_ME.match(seg):
        verb = {"promot": "promoted", "hir": "hired", "fir": "fired", "transferr": "transferred", "appoint": "appointed"}
        seg = f"I {'am being' if m.group('now') else 'was'} {verb[m.group('verb').lower()]}{seg[m.end():]}"
    return seg


def dropped_i(seg: str) -> str | None:
    """The predicate of a clause that drops its "I", else None ("Took a trip to Rome" -> "took a
    trip to Rome"; "Been painting a lot" -> "has been painting a lot"; "Gonna try the tapas" ->
    "is going to try the tapas"; "Need to renew ..." -> "needs to renew ..."; "Starting at Acme" -> "is
    starting at Acme"). Only a past form or one of chat's contracted modals opens such
    a clause, or one of a few -ing words of a plan under way: a word of feeling ("Excited to ...",
    "Tired of ...") or a present form ("Dance is ...") never does."""
    words = seg.split()
    k = 0
    while k < len(words) - 1 and words[k].lower() in _DROPPED_ADVERBS:
        k += 1
    if k >= len(words) - 1:
        return None
    verb, nxt = words[k].lower().strip(",.!"), words[k + 1].lower()
    if not words[k].isalpha() and not words[k].rstrip(",.!").isalpha():
        return None
    if verb in _DROPPED_MODALS and words[k].isalpha() or verb == "need" and nxt == "to":  # "Need to renew ..."
        return " ".join([*(w.lower() for w in words[:k]), _DROPPED_MODALS.get(verb, "needs"), *words[k + 1:]])
    if verb in _DROPPED_ING and not _FINITE.intersection(w.lower() for w in words[k + 1:]):  # "Running is fun": a subject
        return " ".join([*(w.lower() for w in words[:k]), "is", verb, *words[k + 1:]])
    going = nxt == "to" and verb in _WENT_TO  # "moved to" is no feeling ("so moved")
    regular = verb.endswith("ed") and len(verb) >= 5 and (going or verb not in VAGUE and (
        nxt not in _NOT_AFTER_PAST or verb in _CATENATIVE and nxt == "to"))
    if not (verb == "been" or verb in _PAST_FORMS or regular):
        return None
    pred = " ".join([*words[:k], words[k][:1].lower() + words[k][1:], *words[k + 1:]])
    return pred[:1].lower() + pred[1:] if verb != "been" else "has " + pred[:1].lower() + pred[1:]


def is_advice(clause: str, told: bool = False) -> bool:
    """"Let's ...", "Keep it up", "Check this out": said to someone, about no one, so no fact. A
    standing rule `told` to the agent ("Please don't book anything on Fridays", "Always CC Ana") is
    the person's wish, kept: between people it is advice ("Don't forget to stretch")."""
    return bool(_ADVICE.match(clause)) and not is_rule(clause, told)


def is_rule(clause: str, told: bool) -> bool:
    """A standing rule told to the agent: a wish of the person's own, held to a person's clause's floor."""
    return told and bool(_STANDING.match(clause))


def judges_it(clause: str) -> str | None:
    """The word that says what "it" was, in a clause that opens "It was (so) ..." ("great"), else None."""
    m = _JUDGES_IT.match(clause)
    return m.group("w") if m else None
