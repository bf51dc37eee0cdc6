"""Compacting sentences (a text tool of the summariser and the fact parser): the speaker's own words, in order, less talk about the talk.

A day summary is a third of what it reads, so every character spent on how something was
said is one not spent on what was said. Chat wraps its content in closed classes of English
that carry no fact: interjections ("Oh, ", "Wow, ", "haha"), discourse markers ("you know",
"I mean", "by the way", "honestly"), hedges ("I think", "kind of"), intensifiers
("really", "super", "so" before a word of feeling), tag questions (", right?"), trailing
"too"/"though"/"as well", emoticons and emoji. `compact` removes them and nothing else: the
words kept are the speaker's, in their order (the summary stays extractive); negations,
numbers, names, titles and dates are never touched (an intensifier after a negation stays:
"not really into it" is not "not into it", the change would be small but it is a change), nor
are the modal adverbs "maybe", "perhaps" and "probably": "maybe we'll move" is a possibility,
and without them a memory would state it as a plan.
"just" before a quantity is "only" and stays: "just two biscuits a day" is a limit, and
"two biscuits a day" is not.
A sentence turned by a removed tag into a statement ends in a full stop, and a sentence whose
first word went starts with a capital.

Every list is a closed class of English grammar (interjections, discourse markers, degree
adverbs, hedging verbs of the first person), not words picked from any one conversation.
A photo as the product renders it ("(photo: a photo of a cup)", model/attachments.py) keeps its
caption whole, as a quoted title is kept: both are quotations. Only a caption that opens by
naming the medium again ("a photo of", "an image of") loses those words ("(photo: a cup)"):
the word "photo" says them already. Captions carry the things
a question asks about (what was painted, what is on the plate), and the shorter head lets
more of them into a third of the day (bench/recall.py: 3 more single-hop answers in the day
summary on the development subset, 121 to 124 of 187).
"""

from __future__ import annotations

import re
from functools import lru_cache

from consolidator.model.attachments import ATTACHMENT_FORM, is_rendered
from consolidator.model.offline.text_cut import TITLE
from consolidator.model.offline.text import EMOJI_CHARS, untagged
from consolidator.model.offline.words import GREETINGS, PHATIC

# Interjections: a word that is a whole utterance ("Oh", "Wow", "Haha"). Removed where it
# stands alone: at the start of a sentence or clause, or set off by punctuation.
INTERJECTIONS = (
    "oh|ohh|ooh|oooh|wow|whoa|woah|ah|ahh|aw|aww|awww|yay|yeah|yea|yep|yup|hmm|hm|um|umm|uh|"
    "haha|hahaha|hehe|lol|omg|gosh|geez|jeez|phew|ugh|welp|btw|oops|yikes|wowza|whew|yum|yummy|mmm"
)
# Words that are interjections only when punctuation sets them off ("Well, ..." not "Well done").
SET_OFF = "well|ok|okay|alright|anyway|anyways|man|dude|boy|hey|sure|er"
# Laughter and chat acronyms carry nothing wherever they stand.
_LAUGHTER = re.compile(r"(?:,\s*|\s+)?\b(?:ha(?:ha)+|he(?:he)+|lol|lmao|rofl)\b[!.]*", re.I)
_LEADING_INTERJECTION = re.compile(
    rf"^(?:(?:(?:{INTERJECTIONS})\b[\s,!.…-]*|(?:{SET_OFF})\s*[,!.…]+\s*))+(?=\S)", re.I)
_INNER_INTERJECTION = re.compile(rf"\s*,\s*(?:{INTERJECTIONS}|{SET_OFF})\s*,\s*", re.I)

# Discourse markers: comments on the talk itself, set off by commas or at a sentence's edge.
MARKERS = (
    "you know|you see|i mean|like i said|to be honest|to be fair|honestly|frankly|seriously|basically|"
    "actually|literally|by the way|anyway|anyways|of course|obviously|in fact|for real|tbh|fyi|"
    "no doubt|needless to say|believe me|trust me|mind you|let me tell you|i must say|i have to say|"
    "i gotta say|i've gotta say|i'll tell you|i tell you|so yeah|and yeah|i guess|i suppose|i think|"
    "i feel like|i'd say|i believe|if you ask me|in my opinion|personally|turns out|it turns out"
)
_LEADING_MARKER = re.compile(rf"^(?:(?:and|but|so|also|plus|well)\s+)?(?:{MARKERS})\s*,\s*", re.I)
_INNER_MARKER = re.compile(rf"\s*,\s*(?:{MARKERS})\s*,\s*", re.I)
_TRAILING_MARKER = re.compile(rf",\s*(?:{MARKERS})(?=\s*[.!?]*$)", re.I)
# A hedge opening a clause: "I think it's ..." -> "it's ...", "I guess we ..." -> "we ...".
_HEDGE_OPENING = re.compile(
    r"(?:^|(?<=[,;:]\s))(?:and\s+|but\s+|so\s+)?i\s+(?:really\s+)?(?:think|guess|suppose|feel like|believe|"
    r"reckon|bet)\s+(?:that\s+)?(?=(?:it|this|that|they|we|you|he|she|i|there|the|my|our|your|his|her|their)\b)",
    re.I,
)
# Leading conjunctions and links: "So I'm ..." -> "I'm ...", "And then we ..." -> "We ..."
# ("So much happened" keeps its quantity).
# A request to keep what follows: "Please remember that I'm allergic to shellfish", "can u remember that
# my landlord is ...", "Keep in mind I'm vegetarian", "Note: ...": what follows is said (never "remember
# to ...", an errand, nor "remember when ...", a question).
_KEEP_THIS = re.compile(
    r"^(?:(?:hey|hi|hello|oh|ok|okay|and|also|btw)[,!.]? )*(?:(?:can|could|would|will) (?:you|u) |please |pls |just )*"
    r"(?:remember|note|keep in mind|bear in mind|make a note|take note|don't forget|do not forget|never forget)"
    r"(?: of)?(?: that\b|\s*[:,])?\s+"
    r"(?=that\b|I\b|we\b|my\b|our\b|(?-i:[A-Z][a-z]))", re.I)
_LEADING_LINK = re.compile(
    r"^(?:and|but|so(?!\s+(?:much|many|far|long|few|little)\b)|also|plus|then|anyway)(?:\s+then)?\s*,?\s+(?=\w)", re.I)

# Degree adverbs inside a clause: they grade a statement, they never carry it. "just" before
# a quantity is "only", a limit ("just two biscuits a day"), and stays.
_QUANTITY = (r"(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|"
             r"hundred|a few|a couple|a handful|half|once|twice)\b)")
_DEGREE = re.compile(
    r"(?<!\bnot )(?<!n't )(?<!\bno )\b(?:really|(?-i:super)|totally|truly|definitely|absolutely|literally|basically|"
    rf"actually|honestly|seriously|kinda|sorta|just(?!\s+{_QUANTITY})|extremely|incredibly|certainly|simply|"
    r"surely)\s+(?=[\w'])",
    re.I,
)
# "so", "very", "pretty", "quite", "such" only grade a following word of feeling or degree
# ("so glad", "pretty proud"); "so I went", "a pretty dress" and "such a" (its article would
# be left behind) keep theirs.
_GRADING = re.compile(r"(?<!\bnot )(?<!n't )\b(?:so|very|pretty|quite|such)\s+(?=(?P<w>[A-Za-z]+)\b)", re.I)
# "kind of nervous" is a hedge; "what kind of music", "my kind of place" are not.
_KIND_OF = re.compile(r"(?P<before>\b[\w']+\s+)?\b(?:kind|sort) of\s+(?=\w)", re.I)
_DETERMINERS = frozenset(
    "a an the this that these those what which whatever some any every each no another same other one "
    "my your his her its our their".split()
)

# Trailing additives and concessives: "..., too.", "... though!", "... as well."
_TRAILING = re.compile(r",?\s+(?:too|though|as well|either|anyway|anyways)(?=\s*[.!?]*$)", re.I)
_EMOTICON = re.compile(r"(?<!\w)(?:<3+|[:;=]-?[()DPpO3/\\|]+|xD|XD|\^\^|\^_\^)(?!\w)")
_EMOJI = re.compile(f"[{EMOJI_CHARS}\u200d]+")


# The discourse markers that are hedges: they say the speaker is not sure.
_HEDGE_MARKER = re.compile(r"\b(?:i guess|i suppose|i think|i feel like|i'd say|i believe|if you ask me|in my opinion)\b",
                           re.I)


def _unless(kept, replacement):
    """For hedges=False: `replacement` (a string or a function of the match), except for the
    matches `kept` says are hedges, which stay as they are."""
    def sub(m: re.Match[str]) -> str:
        if kept(m):
            return m.group(0)
        return replacement(m) if callable(replacement) else replacement
    return sub


def _hedge_marker(m: re.Match[str]) -> bool:
    """A removed discourse marker that is a hedge ("..., I think, ...")."""
    return bool(_HEDGE_MARKER.search(m.group(0)))


# Words that open a clause of their own: after "Mari, you know," the name was addressed ("Mari,
# that sign ..."); before a verb it was the subject ("Ana, I think, is right").
_CLAUSE_OPENERS = frozenset("i i'm i've i'd i'll you you're we we're it it's this that that's these those the a an my "
                            "our your he he's she she's they they're there there's here here's what what's how let's"
                            .split())
_SUBJECTS = frozenset("i you we he she they".split())
_LINKS = frozenset("and but so or because since as that if when while though although".split())
_GREETINGS = frozenset(GREETINGS)  # "Hi Mari, you know, ...": still the name addressed


def _joined(m: re.Match[str]) -> str:
    """What an inner interjection or marker set off by commas leaves: a space ("and, yikes, the"
    -> "and the"), or the comma when a lone word is before it, a name addressed ("Mari, you know,
    that sign" -> "Mari, that sign", never "Mari that sign"), or when a new subject follows a
    clause ("the gym, by the way, I switched" -> "the gym, I switched", never "the gym I switched")."""
    before = re.split(r"[,;:.!?]", m.string[:m.start()])[-1].split()
    after = (m.string[m.end():].split() or [""])[0].lower().replace("\u2019", "'")
    named = bool(before) and before[-1][:1].isupper() and (len(before) == 1 or (
        len(before) == 2 and before[0].lower() in _GREETINGS))
    addressed = named and after in _CLAUSE_OPENERS
    # "the gym, by the way, I switched": a new subject after a clause keeps the comma between them
    joins_clauses = after.split("'")[0] in _SUBJECTS and bool(before) and before[-1].lower() not in _LINKS
    return ", " if addressed or joins_clauses else " "


def _kind_of(m: re.Match[str]) -> str:
    before = m.group("before") or ""
    return m.group(0) if before.strip().lower() in _DETERMINERS else before


_HEDGING_DEGREE = re.compile(r"(?:kinda|sorta)\s|(?:pretty|quite|fairly)\s+(?=sure\b)", re.I)  # hedges, too


def _hedging_degree(m: re.Match[str]) -> bool:
    """A degree word that hedges ("kinda nervous", "pretty sure")."""
    return bool(_HEDGING_DEGREE.match(m.string, m.start()))


def _grading(m: re.Match[str]) -> str:
    word = m.group("w").lower()
    return "" if word in PHATIC or word.endswith("ly") and word not in ("only", "early") else m.group(0)


# An aside of the text: "[laughs]", and an attachment as the product renders it ("(photo: a cup)", model/attachments.py)
_ASIDE = re.compile(rf"(\[[^\[\]\n]{{1,300}}\]|{ATTACHMENT_FORM})")


def split_asides(sentence: str) -> list[str]:
    """An aside ("(photo: ...)" as model/attachments.py renders it, "[laughs]") is a unit of its
    own: it is chosen or left apart from the words around it, and never cut inside."""
    return [p.strip() for p in _ASIDE.split(sentence) if p.strip()]


MEDIA = r"photo|photograph|photography|picture|pic|image|screenshot|video|clip|drawing|sketch"
# "(photo: a photo of a cup)" -> "(photo: a cup)": a caption that names its medium again says
# nothing the word "photo" does not. The head is what model/attachments.render writes for an image.
ASIDE_HEAD = re.compile(r"^\((photo):\s*")
_ASIDE_MEDIUM = re.compile(rf"^(?:a|an|the)\s+(?:{MEDIA})\s+of\s+", re.I)


def compact_aside(aside: str) -> str:
    """`aside` as "(photo: what it shows)" (the ASIDE_HEAD comment); any other aside as it is."""
    head = ASIDE_HEAD.match(aside)
    if not head:
        return aside
    body = _ASIDE_MEDIUM.sub("", aside[head.end():])
    return f"({head.group(1)}: {body}" if body.strip(" )") else aside


def _can_hold(s: str, *parts: str) -> bool:
    """Whether a case-insensitive match of a pattern needing one of `parts` (lower-case ASCII)
    can lie in `s`. An ASCII `s` is tested by substrings of its lower case; any other `s` is
    always passed to the pattern (re.I folds a few non-ASCII letters onto ASCII ones)."""
    if not s.isascii():
        return True
    return any(map(s.lower().__contains__, parts))


# What the costly patterns need before they can match (_can_hold): a pattern skipped on a sentence
# without them substitutes nothing, so the result is the same at a fraction of the regex scans.
_LAUGHTER_PARTS = ("haha", "hehe", "lol", "lmao", "rofl")
_HEDGE_PARTS = ("think", "guess", "suppose", "feel like", "believe", "reckon", "bet")
_TRAILING_PARTS = ("too", "though", "as well", "either", "anyway")
_DEGREE_PARTS = ("really", "super", "totally", "truly", "definitely", "absolutely", "literally", "basically",
                 "actually", "honestly", "seriously", "kinda", "sorta", "just", "extremely", "incredibly", "certainly",
                 "simply", "surely")
_KIND_OF_PARTS = ("kind of", "sort of")
_GRADING_WORD = re.compile(r"\b(?:so|very|pretty|quite|such)\s", re.I)  # what _GRADING needs, without its lookbehinds
_EMOTICON_CHARS = frozenset("<:;=^")
_SPACE_BEFORE_STOP = re.compile(r"\s+([,.!?;:])")
_ADDRESS_FIRST = re.compile(r"\S*(?:@|://|www\.)")  # an email or web address opens the sentence
_STOPS_RUN = re.compile(r"([,;:])(?:\s*[,;:])+")
_HELD_TITLE = re.compile("\x00(\\d+)\x00")


@lru_cache(maxsize=1 << 12)
def compact(sentence: str, hedges: bool = True) -> str:
    """`sentence` without interjections, discourse markers, hedges, intensifiers, tag questions,
    trailing additives and emoji (module docstring); the sentence itself when nothing is left.
    An aside only has its head shortened (compact_aside).

    `hedges=False` keeps the hedges ("I think", "I guess", "I bet", "kind of", "kinda", "pretty
    sure"): the fact parser reads compacted sentences too, and a fact must not turn a guess into
    a statement. Pure, so its results are cached; a pattern is run only where what it needs is
    in the sentence (_can_hold)."""
    if sentence.startswith("[") or is_rendered(sentence):
        return compact_aside(sentence)
    if not sentence.strip():
        return sentence
    titles: list[str] = []

    def hold(m: re.Match[str]) -> str:  # quoted titles are the speaker's quotation: untouched
        titles.append(m.group(0))
        return f"\x00{len(titles) - 1}\x00"

    s = TITLE.sub(hold, sentence) if ('"' in sentence or "'" in sentence) else sentence
    if not s.isascii() or _EMOTICON_CHARS.intersection(s) or "xD" in s or "XD" in s:
        s = _EMOJI.sub(" ", _EMOTICON.sub(" ", s))
    end = s.rstrip()[-1:] if s.rstrip()[-1:] in ".!?" else ""
    if _can_hold(s, *_LAUGHTER_PARTS):
        s = _LAUGHTER.sub("", s)
    if (statement := untagged(s)) != s:
        s, end = statement[:-1], "."
    for _ in range(3):  # "Oh well, you know, I think ..." peels in turns
        before = s
        s = _LEADING_INTERJECTION.sub("", s)
        s = _LEADING_MARKER.sub("" if hedges else _unless(_hedge_marker, ""), s)
        s = _LEADING_LINK.sub("", s)
        s = _KEEP_THIS.sub("", s)
        if hedges and _can_hold(s, *_HEDGE_PARTS):
            s = _HEDGE_OPENING.sub("", s)
        if s == before:
            break
    if s.count(",") >= 2:
        s = _INNER_INTERJECTION.sub(_joined, s)  # "and, yikes, the" -> "and the"
        s = _INNER_MARKER.sub(_joined if hedges else _unless(_hedge_marker, _joined), s)
    if "," in s:
        s = _TRAILING_MARKER.sub("" if hedges else _unless(_hedge_marker, ""), s)
    if _can_hold(s, *_TRAILING_PARTS):
        s = _TRAILING.sub("", s)
    if _can_hold(s, *_DEGREE_PARTS):
        s = _DEGREE.sub("" if hedges else _unless(_hedging_degree, ""), s)
    if hedges and _can_hold(s, *_KIND_OF_PARTS):
        s = _KIND_OF.sub(_kind_of, s)
    if _GRADING_WORD.search(s):
        s = _GRADING.sub(_grading if hedges else _unless(_hedging_degree, _grading), s)
    s = " ".join(s.split())
    s = _SPACE_BEFORE_STOP.sub(r"\1", s)
    s = _STOPS_RUN.sub(r"\1", s).strip(" ,;:-–—")
    if not any(map(str.isalnum, s)):
        return sentence
    if end and not s.endswith(end) and s[-1:] not in ".!?":
        s += end
    if not _ADDRESS_FIRST.match(s):  # "maya.silva@example.com" keeps its case: "Maya.silva" reads as a name
        s = s[:1].upper() + s[1:]
    return _HELD_TITLE.sub(lambda m: titles[int(m.group(1))], s)
