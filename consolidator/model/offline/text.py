"""Plain-English text helpers for the offline backend: sentences, words, stems, agreement.

Everything here is a pure function of its input; sets are only used for membership, never
iterated, so results do not depend on Python's hash seed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from consolidator.model.offline.text_normal import QUOTES, normalise  # noqa: F401 (re-exported)
from consolidator.model.offline.words import IDIOM_ENDS, IRREGULAR_PAST, MONTHS, NAME_STOPWORDS  # noqa: F401 (words.py)
from consolidator.model.offline.words import NOT_ACTIVITIES, NP_ENDS, RELATIONS, ROUTINE_PLACES, SPECIES, STOPWORDS, TITLES, WEEKDAYS  # noqa: F401


# A sentence ends at final punctuation, or at an emoji, before a capital: chat ends a sentence
# with one ("Inspiring 💪 I emailed some wholesalers" is two sentences).
EMOJI_CHARS = "\u2600-\u27bf\U0001f000-\U0001faff\ufe0f"  # a character class's ranges (text_compact drops them)
# A title's full stop ends no sentence ("Dr. Costa", "St. Louis"; lookbehinds are of fixed width).
_TITLE_STOP = "".join(rf"(?<!\b{t}\.)" for t in (*TITLES.split("|"), "St", "Jr", "Sr"))
# Chat written in lower case ends one too: "it died this morning. dropping it off tomorrow", "wow! so
# happy" - after a word of three letters or more (no "e.g.", "a.m.", "etc."), never an ellipsis.
_ABBREVIATION_STOP = "".join(rf"(?<!\b{a}\.)" for a in ("etc", "approx", "incl", "esp", "vs", "min", "max", "est", "dept"))
_SENTENCE_END = re.compile(rf"(?<=[.!?]){_TITLE_STOP}\s+(?=[\"'(@A-Z0-9])|(?<=[{EMOJI_CHARS}])\s+(?=[A-Z])|\n+"
                           rf"|(?:(?<=[!?])|(?<=[a-z]{{3}}\.){_ABBREVIATION_STOP})\s+(?=[a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+(?:['-][A-Za-z0-9]+)*")

_IRREGULAR = {
    "sent": "send", "paid": "pay", "bought": "buy", "did": "do", "done": "do", "made": "make",
    "wrote": "write", "written": "write", "went": "go", "gone": "go", "gave": "give", "took": "take",
    "taken": "take", "got": "get", "met": "meet", "told": "tell", "said": "say", "left": "leave",
    "ran": "run", "brought": "bring", "thought": "think", "found": "find", "kept": "keep",
    "felt": "feel", "broke": "break", "broken": "break", "children": "child", "people": "person",
}
_THIRD_PERSON = {"am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "be": "is",
                 # a perfect said without its "have" ("I just been busy"): the participle keeps it
                 "been": "has been", "gone": "has gone", "seen": "has seen", "done": "has done"}
_NO_INFLECT = frozenset(
    """is was were has had does did will would can could shall should may might must cannot
    quit put set cut hurt let hit cost read""".split()
)
# Present stems that end as a past form or a plural does ("need", not "ne-ed"; "focus", not "focu-s").
_ED_STEMS = frozenset("need feed bleed breed speed succeed proceed exceed heed seed weed shred wed embed shed".split())
_US_STEMS = frozenset("focus refocus".split())
_PRONOUNS_3P = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs"}


# Tag questions: a statement asking to be agreed with (", right?", ", isn't it?") or answered in
# kind ("... - how about you?").
_TAG = re.compile(
    r"(?:,|\s+[-\u2013\u2014]+)\s*(?:right|huh|eh|yeah|no|ok|okay|you know|don't you think|wouldn't you say|"
    r"(?:so |and )?(?:how|what) about (?:you|yourself)|and you|did i (?:tell|mention|say)(?: (?:you|that|it))*|"
    r"(?:isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't|haven't|hasn't|shouldn't)"
    r"\s+(?:it|they|you|we|he|she|i|there|that))\s*\?+\s*$",
    re.I,
)


# A question put after a statement, to the listener: "My passport expires in April, is that a
# problem?", "... - should I check in online?", "..., any tips?"; the statement stands as said...
_FOLLOW_UP = re.compile(
    r"(?:,|\s+[-\u2013\u2014]+)\s*(?:(?:so |but )?(?:is|are|was|will|would|should|could|can|do|does|shall|may|might)\s+"
    r"(?:that|this|it|i|we|you|there)|what do you (?:think|reckon|suggest)|any (?:tips|ideas|advice|thoughts|suggestions))"
    r"\b[^,]*\?+\s*$", re.I)
# ...unless what comes before it is no statement ("When you're in Porto, will you visit Ana?").
_NO_STATEMENT = re.compile(r"^\W*(?:when|if|since|before|after|while|as|once|unless|until|do|does|did|is|are|was|were|"
                           r"can|could|would|will|should|what|how|why|where|who|which|whose|have|has)\b", re.I)


def untagged(sentence: str) -> str:
    """A statement asking to be agreed with ("Olive trees mean peace, right?") or followed by a
    question to the listener ("My passport expires in April, is that a problem?") as the statement
    it is ("Olive trees mean peace."); any other sentence as it is."""
    statement, tags = _TAG.subn("", sentence)
    if not tags and not _NO_STATEMENT.match(sentence):
        statement, tags = _FOLLOW_UP.subn("", sentence)
    return statement.rstrip() + "." if tags else sentence


def sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a capital/digit, and on newlines."""
    parts = _SENTENCE_END.split(text.translate(QUOTES))
    return [" ".join(p.split()) for p in parts if p and p.strip()]


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, inner apostrophes and hyphens)."""
    return [w.lower() for w in _WORD.findall(text)]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude, stable English stemmer: 'trained', 'training', 'trains' -> 'train'."""
    w = word.lower().replace("'", "")
    if w in _IRREGULAR:  # its base, stemmed as the base is: "left", "leaving" and "leave" -> "leav"
        w = _IRREGULAR[w]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not (suffix == "s" and w.endswith("ss")):
            w = w[: len(w) - len(suffix)] + repl
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w[-1:] == w[-2:-1] and w[-1] not in "aeious" and len(w) > (4 if w[-1] == "l" else 3):
        w = w[:-1]
    return w


# A time said in a phrase of its own ("last Friday", "this morning", "two weeks ago"): when, never what.
TIME_PHRASE = (
    r"(?:(?:last|this|next|on|early|late|earlier|later) )?(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|week|weekend|month|year|night|morning|afternoon|evening|"
    r"summer|winter|spring|fall|autumn)s?"
    r"(?: (?:morning|afternoon|evening|night))?|(?:yesterday|tomorrow)(?: (?:morning|afternoon|evening|night))?|"
    r"today|tonight|recently|lately|earlier|"
    r"(?:a|one|two|three|four|five|a few|a couple of|\d+) (?:days?|weeks?|months?|years?) ago|the day after tomorrow|"
    r"the day before yesterday|in (?:a|one|two|three|four|five|six|a few|a couple of|\d+) (?:days?|weeks?|months?|years?))"
)
TIME_ONLY = re.compile(TIME_PHRASE, re.I)


# "go fishing", "went sailing", "going bowling": English names a pastime by "go" and its -ing form.
_ACTIVITY = re.compile(r"\b(?:go|goes|going|went|gone)\s+([a-z]{2,}ing)\b", re.I)
# "took up running", "got into climbing", "started painting last year": a pastime taken up (a
# gerund after "started" only where nothing follows it but when or with whom: "started looking for")
_TAKEN_UP = re.compile(
    r"\b(?:(?:took|take|takes|taking|picked|pick|picks|picking|got|get|gets|getting) (?:up|into)|"
    r"(?:started|start|starts|starting|began|begin|begins|beginning)(?= [a-z]+ing(?:[.,!?;:]| *$| (?:again|"
    r"last|this|a (?:few|couple|year|month|week|while)|in|on|with|since|every|recently|lately|regularly|together|"
    r"when|after)\b)))\s+([a-z]{2,}ing)\b", re.I)


def activities(text: str) -> frozenset[str]:
    """The pastimes `text` names after a form of "go" or one taken up, lower-cased ("went sailing",
    "took up sailing" -> {"sailing"})."""
    found = (m.lower() for m in (*_ACTIVITY.findall(text), *_TAKEN_UP.findall(text)))
    return frozenset(a for a in found if a not in NOT_ACTIVITIES)


# "went to the aquarium", "took the kids to a street fair": where someone went, as a noun phrase.
_DESTINATION = re.compile(
    r"\b(?:go|goes|going|went|gone|been|headed|heading|came|coming|took|taking|brought)\b(?:\s+[\w'-]+){0,3}?"
    r"\s+to\s+(?:(?:the|a|an|my|our|their|his|her|this|that|some)\s+((?:[a-z][\w+'-]*\s*){1,3})"
    r"|(?-i:([A-Z][\w-]+(?:\s+[A-Z][\w-]+)*)))", re.I)
_PLACE_ENDS = NP_ENDS | frozenset(
    "it recently yesterday today tonight tomorrow last next again together too early late once twice there here this "
    "these those".split())
_NO_PLACE = ROUTINE_PLACES | IDIOM_ENDS | _PLACE_ENDS | frozenset(RELATIONS.split("|"))  # "my sister": a person


def destinations(text: str) -> frozenset[str]:
    """Where `text` says someone went, as written: the noun phrase after the determiner ("went
    to the street fair" -> {"street fair"}) or the name ("has been to Lisbon" -> {"Lisbon"});
    a day's routine ("went to bed"), an idiom ("came to the conclusion") and a relative ("went to
    my sister") are none. Its last word is the place's head noun."""
    found = set()
    for phrase, name in _DESTINATION.findall(text):
        words = name.split()
        for word in phrase.split():
            if word.lower() in _PLACE_ENDS:
                break
            words.append(word)
        if words and words[-1].lower() not in _NO_PLACE:
            found.add(" ".join(words))
    return frozenset(found)


# "got some new shoes", "bought a brand-new bike": a thing someone acquired, by "new" after a verb of getting;
# "got some new offers going" is the causative get (something made to happen), no thing acquired.
_ACQUIRED = re.compile(
    r"\b(?:got|get|gets|getting|bought|buy|buying|purchased|received|ordered)\s+(?:(?:a|an|some|my|our|myself|"
    r"herself|himself|themselves|a pair of|a couple of)\s+)*(?:brand[- ])?new\s+((?:[a-z][\w'-]*\s*){1,2})"
    r"(?![^.,;!?]*\b(?:going|started|done|fixed|sorted|ready|set up)\b)", re.I)


def acquisitions(text: str) -> frozenset[str]:
    """The head nouns of what `text` says someone got new, lower-cased ("just got some new shoes" ->
    {"shoes"}): the thing is the news, however common its word; "got some rest" names none."""
    found = set()
    for phrase in _ACQUIRED.findall(text):
        words = []
        for word in phrase.split():
            if word.lower() in _PLACE_ENDS:
                break
            words.append(word.lower())
        if words:
            found.add(words[-1])
    return frozenset(found)


# A change in a life's status or health ("graduated", "is having a baby", "passed away", "has the flu"):
# what a memory of a person is for, however common its words. (Marriages, jobs, homes: rules of their own.)
_LIFE_EVENT = re.compile(
    r"\b(?:graduated|graduating|retired|retiring|pregnant|gave birth|"
    r"(?:had|having|expecting) (?:(?:a|our|their|her|his) (?:first |second |third )?"
    r"(?:baby|son|daughter|boy|girl)|twins|triplets)(?! over)|(?:is|are|am|'re|'m) getting married|(?:will|to) get married|"
    r"was born|were born|passed away|died|diagnosed|surgery|widowed|(?:got|was|been) promoted(?! to\b)|"
    r"(?:is|are|was|were|been|'s|'re) in (?:the )?hospital|hospitali[sz]ed|admitted to (?:the )?hospital|"
    r"(?:has|have|had|got|caught) (?:the flu|covid|food poisoning|pneumonia|bronchitis|tonsillitis|a (?:bad |high )?"
    r"(?:cold|fever|cough|stomach bug|chest infection|ear infection|concussion))|"
    r"start(?:ed|ing|s)? (?:a|my|her|his|their) new (?:job|position|role)|"
    r"start(?:ed|ing|s)? (?:school|college|university|kindergarten)|"
    r"bought (?:a|our|my|their) (?:first )?(?:house|home|flat|apartment)|moved (?:house|home|out)|"
    r"moved (?:(?:all )?(?:my|our|their|his|her) (?:stuff|things) )?into (?:a|the|our|my|their|his|her) "
    r"(?:(?:new|own|first) )*(?:house|home|flat|apartment|place|condo|studio)|"
    r"(?:go|goes|going|went|gone) back to (?:university|college|school)|enrolled|enrolling|moved (?:back )?in with|"
    r"first day (?:at|of) (?:my|the|a|her|his) new (?:job|school)|"
    r"(?:left|leaving|leaves|leave|quit|quitting) (?:the|my|our|her|his|their) (?:company|job|firm)|"
    r"(?:got|landed|accepted) (?:the|a|my|her|his|their) (?:new )?(?:job|position|offer|promotion)|"
    r"(?:parental|maternity|paternity|sick|medical|bereavement|compassionate) leave|sabbatical)\b", re.I)


def life_events(text: str) -> frozenset[str]:
    """The words of the life events `text` names, lower-cased, less function words ("had a baby" ->
    {"baby"}; "moved in with" -> {"moved"}, a light verb that here says something)."""
    return frozenset(w for m in _LIFE_EVENT.findall(text) for w in m.lower().split() if w not in STOPWORDS)


@lru_cache(maxsize=1 << 14)
def specifics(text: str) -> frozenset[str]:
    """The words that name what a person did, where they went, what they got new and how their life
    changed, lower-cased: the pastimes of `activities`, the head nouns of `destinations` and of
    `acquisitions`, the `life_events`, as specific as a name however common ("went fishing", "went
    to the fair", "got new shoes", "graduated")."""
    return (activities(text) | {p.split()[-1].lower() for p in destinations(text)} | acquisitions(text)
            | life_events(text))


def content_stems(text: str) -> list[str]:
    """Stems of the non-stopwords of `text`, first occurrence order, no repeats."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS:
            seen.setdefault(stem(w), None)
    return list(seen)


def past_form(word: str) -> bool:
    """A verb's past form ("went", "took", "shared", "hiked"): what was done, not what it is about
    (a reflection's or a table's name says the latter)."""
    low = word.lower()
    return low in IRREGULAR_PAST or len(low) > 4 and low.endswith("ed")


def third_person(verb: str) -> str:
    """'live' -> 'lives', 'watch' -> 'watches', 'study' -> 'studies', 'guess' -> 'guesses'; leaves
    inflected forms ('lives', 'moved'). A final "ss" is the stem's own, never an inflection, and
    so are the "-s" of "focus" and the "-ed" of a few stems ('need' -> 'needs')."""
    low = verb.lower()
    if low in _THIRD_PERSON:
        return _THIRD_PERSON[low]
    if low in _ED_STEMS:
        return verb + "s"
    if (low.endswith("ss") and low.isalpha()) or low in _US_STEMS:
        return verb + "es"
    if low in _NO_INFLECT or low in IRREGULAR_PAST or low.endswith(("ed", "s")) or not low.isalpha():
        return verb
    if low.endswith(("ch", "sh", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_SKIP_BEFORE_VERB = frozenset("no longer never not also still now just really actually always often usually".split())


def third_person_predicate(predicate: str) -> str:
    """Rewrite a first-person predicate for a third-person subject.

    'no longer live in my flat' -> 'no longer lives in their flat'. Only the first verb is
    inflected; later verbs in the same predicate are left as they are.
    """
    tokens = predicate.split()
    inflected = False
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if low in _PRONOUNS_3P:
            tokens[i] = _PRONOUNS_3P[low]
            continue
        if not inflected and low not in _SKIP_BEFORE_VERB and not (low.endswith("ly") and len(low) > 5):
            tokens[i] = third_person(tok)
            inflected = True
    return " ".join(tokens)


def swap_first_person(text: str) -> str:
    """'my' -> 'their', 'me' -> 'them' (for values said in the first person)."""
    return " ".join(_PRONOUNS_3P.get(t.lower(), t) for t in text.split())


def truncate_words(text: str, max_chars: int) -> str:
    """The longest prefix of `text` ending at a word boundary with at most `max_chars` chars."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars + 1]
    space = cut.rfind(" ")
    return cut[:space].rstrip(" ,;:-") if space > 0 else ""


# --- value cleaners: where a captured value ends ---------------------------------------------

_MONTHS = "|".join(MONTHS)
_DAYS = "|".join(WEEKDAYS)
_TIME_TAIL = (
    r"last|this|next|since|because|when|after|before|until|ago|yesterday|today|tonight|tomorrow|"
    r"recently|now|again|any ?more|already|soon|a few|a couple|about|around|right now|with|"
    rf"at the moment|for (?:work|a while|good|now|the time being)|in (?:(?:early|late|mid) )?(?:{_MONTHS}|\d{{4}})|"
    r"for (?:[\w-]+ ){0,3}?(?:years?|months?|weeks?|days?|decades?|ages|long)|"
    rf"in the (?:spring|summer|autumn|fall|winter)|on (?:{_DAYS})"
)
_PLACE_CUT = re.compile(rf"(?:\s*[,;(].*|\s+(?:{_TIME_TAIL}|for (?:a|an|my|her|his|their) (?:new )?(?:job|position|role))\b.*)$",
                        re.I)  # "moved to Porto for a job": why, not where
_ORG_CUT = re.compile(rf"(?:\s*[,;(].*|\s+(?:{_TIME_TAIL}|as|in|on|since|for|where)\b.*)$", re.I)
_GENERAL_CUT = re.compile(
    r"(?:\s*[,;(].*|\s+(?:because|'cause|cuz|since|but|although|though|so that|any ?more|at the moment|right now)\b.*)$", re.I
)
_TRAILING_FILLER = re.compile(r"\s+(?:too|as well|a lot|so much|very much|now|these days|lately)$", re.I)
# "hiking, swimming, and reading", "to ski, try the local food and see the views": a list's commas
# do not end the value; an item that starts a statement ("hiking, it's so relaxing") is no item
_ITEMS = re.compile(r",? (?:and|or) |, ")
_NOT_ITEM = re.compile(r"(?:i|it|it's|its|that|this|which|who|he|she|they|we|you|there|so|but|as|if|when|what|"
                       r"though|because|'cause|cuz|since|especially)\b", re.I)
_LIST_CUT = re.compile(_GENERAL_CUT.pattern.replace("[,;(]", "[;(]"), re.I)


def _tidy(value: str) -> str:
    return value.strip(" \t.!?;:,\"'")


def clean_place(value: str) -> str:
    return _tidy(_PLACE_CUT.sub("", _tidy(value)))


def clean_org(value: str) -> str:
    return _tidy(_ORG_CUT.sub("", _tidy(value)))


def _is_list(value: str) -> bool:
    items = _ITEMS.split(value)
    return (len(items) > 2 and ", " in value and bool(_ITEMS.search(value[value.rfind(", "):]))
            and not any(_NOT_ITEM.match(item) or len(item.split()) > 5 for item in items[1:]))


def clean_general(value: str) -> str:
    value = _tidy(value)
    listed = _LIST_CUT.sub("", value)
    value = listed if _is_list(listed) else _GENERAL_CUT.sub("", value)
    return _tidy(_TRAILING_FILLER.sub("", value))
