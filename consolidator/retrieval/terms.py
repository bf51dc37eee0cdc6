"""Search terms: the content words of a query or an item, lightly stemmed (the standard library only).

The lexical search itself runs in SQLite's FTS5 with its porter stemmer; these terms serve what
recall decides in Python: which sentences of a long item to show, which items repeat one
another, which query words an item covers. A light stemmer is enough there (plural -s/-es/
-ies, -ed, -ing, a doubled consonant, a final e), applied to both sides alike.
"""

from __future__ import annotations

import re
from functools import lru_cache

from consolidator.domain import IRREGULAR_VERBS, STOPWORDS

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
# Words of a question that ask rather than say.
_ASKING = frozenset("""did does do done doing ever kind kinds sort type types many much long often
    thing things something anything one ones way ways go goes going went like likes would
    happen happens happened happening""".split())  # "What happened last week?" asks of the week alone

# Irregular verbs: "made" and "make" are one stem, as "painted" and "paint" are ("bit" and "lay"
# stay themselves: "a bit", "lay" of "lie").
_BASE = {form: row[0] for row in IRREGULAR_VERBS for form in row[1:] if form != row[0] and form not in ("bit", "lay")}


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    w = _BASE.get(w, w)
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def words(text: str) -> list[str]:
    return _WORD.findall(text)


@lru_cache(maxsize=1 << 16)
def content_stems(text: str) -> frozenset[str]:
    """The stems of a text's words that are not function words (cached: items recur across calls)."""
    out = set()
    for word in _WORD.findall(text):
        low = word.lower().replace("\u2019", "'")
        base = low[:-2] if low.endswith("'s") else low
        if base in STOPWORDS or len(base) < 2 and not base.isdigit():
            continue
        out.add(stem(base))
    return frozenset(out)


def query_words(text: str) -> list[str]:
    """The words a query searches for: content words, not the asking ones, in order, once each."""
    out: list[str] = []
    for word in _WORD.findall(text):
        low = word.lower().replace("\u2019", "'")
        base = low[:-2] if low.endswith("'s") else low.replace("'", "")
        if base in STOPWORDS or base in _ASKING or (len(base) < 2 and not base.isdigit()):
            continue
        if base not in out:
            out.append(base)
    return out


def fts_query(search_words: list[str]) -> str:
    """An FTS5 MATCH expression: any of the words (each quoted, so no word is read as syntax)."""
    return " OR ".join(f'"{w}"' for w in search_words if w)


REACTION_WORDS = 6  # a sentence without a question shorter than this is a reaction ("Wow, that's awesome!")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CAPTION = re.compile(r"\s*\((?:photo|image|file)[^)]*\)\s*$", re.I)


@lru_cache(maxsize=1 << 16)
def only_asks(said: str) -> bool:
    """Whether a turn only asks: it has a question, and every sentence that is not one is a short
    reaction ("Wow, that's awesome!", under `REACTION_WORDS` words). Such a turn repeats the topic's
    words without saying anything about it ("What's your best camping memory?")."""
    text = _CAPTION.sub("", said).strip()
    if "?" not in text:
        return False
    return all(piece.endswith("?") or len(_WORD.findall(piece)) < REACTION_WORDS
               for piece in _SENTENCE_END.split(text) if piece)


# "What do I need to do this week?", "anything on my list?", "any reminders?", "what's coming up?": a query
# for what is to be done.
_TODO = re.compile(r"\b(?:to-?dos?|(?:need|needs|have|has|got) to do|tasks?|errands?|reminders?|remind|due(?! to\b)|"
                   r"deadlines?|agenda|chores?|(?:my|the|her|his|their|'s) (?:to-?do )?list|coming up|upcoming|"
                   r"(?:my|her|his|their|'s) (?:schedule|calendar|plate))\b", re.I)  # not "like to do"


def asks_todo(query: str) -> bool:
    """Whether the query asks what is to be done (the open tasks answer it whatever their words)."""
    return bool(_TODO.search(query))
