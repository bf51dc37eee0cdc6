"""The matching rule of the recall bench: does a text hold every content word of an answer?

Both sides, the answer and the source text, go through the same normalisation, so a source
never wins or loses by a rule the others do not get:

1. lower case; curly quotes made straight; thousands separators between digits dropped
   ("1,000" -> "1000"); an ISO date "2023-05-08" also reads as "8 may 2023" (summary labels
   and snapshot fields carry ISO dates, answers carry "8 May 2023");
2. possessive "'s" dropped, other apostrophes removed ("don't" -> "dont"), then the word
   tokens are the runs of letters and digits (so "self-checkout" is "self" and "checkout",
   "10:30" is "10" and "30");
3. a number is its integer value ("08" -> "8"); ordinals lose their suffix ("7th" -> "7");
   number words zero to twenty become digits ("two" -> "2"); month abbreviations become the
   month ("sept" -> "september");
4. a light stemmer compares inflections loosely: plural -s/-es/-ies, -ed and -ing are
   stripped, then a doubled final consonant and a final "e", and a final "ie" reads "y"
   ("painting", "paints", "painted", "paint" all read "paint"; "loves", "loving", "love"
   read "lov"; "hoodie" and "hoodies" read "hoody").

The answer's CONTENT WORDS are its tokens minus a small stop-word list (articles,
prepositions, conjunctions, pronouns, auxiliaries; never month names, so "May" counts),
numbers included. A source covers an answer when every content word's stem is among the
source's stems. An answer with no content word at all (rare) is not scored.
"""

from __future__ import annotations

import re
from functools import lru_cache

STOP_WORDS = frozenset("""
a an the
about above across after against along among around as at before behind below beneath beside besides
between beyond by down during except for from in inside into like near of off on onto out outside over
per since than through throughout till to toward towards under until up upon via with within without
and or but nor so yet either neither both also
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its
itself we us our ours ourselves they them their theirs themselves this that these those who whom whose
which what there here one's
is are was were be been being am do does did doing done have has had having will would can could
shall should might must ought
""".split())

MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
    "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
    "dec": "december",
}
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")
NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_POSSESSIVE = re.compile(r"'s\b")
_TOKEN = re.compile(r"[a-z0-9]+")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_VOWELS = set("aeiou")


def _expand_iso(match: re.Match[str]) -> str:
    year, month, day = (int(g) for g in match.groups())
    if not 1 <= month <= 12:
        return match.group(0)
    return f"{match.group(0)} {day} {MONTH_NAMES[month - 1]} {year}"


def raw_tokens(text: str) -> list[str]:
    """Steps 1-3: normalised word tokens, before stemming and stop words."""
    text = str(text).lower().replace("\u2019", "'").replace("\u2018", "'")
    text = _ISO_DATE.sub(_expand_iso, _THOUSANDS.sub("", text))
    text = _POSSESSIVE.sub("", text).replace("'", "")
    out = []
    for token in _TOKEN.findall(text):
        ordinal = _ORDINAL.match(token)
        if ordinal:
            token = ordinal.group(1)
        if token.isdigit():
            token = str(int(token))
        out.append(NUMBER_WORDS.get(token) or MONTHS.get(token) or token)
    return out


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Step 4: strip a plural (-s/-es/-ies), then -ed/-ing, then a doubled final consonant and a final e."""
    if word.isdigit() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) >= 5:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) >= 5 and _VOWELS & set(word[:-3]):
        word = word[:-3]
    elif word.endswith("ied") and len(word) >= 5:
        word = word[:-3] + "y"
    elif word.endswith("ed") and not word.endswith("eed") and len(word) >= 5:
        word = word[:-2]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in _VOWELS and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) >= 4 and word.endswith("e") and word[-2] not in _VOWELS:
        word = word[:-1]
    if len(word) >= 4 and word.endswith("ie"):
        word = word[:-2] + "y"  # "hoodie" as "hoodies" -> "hoody"
    return word


def content_words(answer: object) -> list[str]:
    """The stems an answer must find in a source: its tokens minus stop words, in order, once each."""
    seen: dict[str, None] = {}
    for token in raw_tokens(str(answer)):
        if token not in STOP_WORDS:
            seen.setdefault(stem(token), None)
    return list(seen)


def vocabulary(text: str) -> frozenset[str]:
    """Every stem of a source text (stop words included: they are never asked for)."""
    return frozenset(stem(t) for t in raw_tokens(text))


def covers(words: list[str], vocab: frozenset[str]) -> bool:
    """True when the answer has content words and the source holds all of them."""
    return bool(words) and all(w in vocab for w in words)
