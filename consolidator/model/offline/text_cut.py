"""Cutting sentences (a text tool; the summariser cuts with it, the fact parser reads its titles): what a part
carries, the best part that fits, edge filler.

A sentence too long for the room left in a summary is cut rather than dropped when what is
left keeps its numbers, names and quoted titles: the parts of a sentence are its clauses
(split at commas, semicolons, colons, dashes and before "but", "because", "which", ...);
a part's value is its words' rarity weights, doubled for each of a number, a name and a title.
A cut inside a clause is marked with "…" where words were left out, and never ends on a word
that needs what follows ("a", "to", "my"): "it has made a" would read as all that was said.
Before any choice, a sentence loses the filler clauses at its edges (trim_edges): "Yeah, ",
"Wow, by the way, ", ", Mari!" carry nothing and cost characters in a summary a third the size
of what it reads. An aside ("[...]") is never cut inside.
"""

from __future__ import annotations

import re

from consolidator.model.attachments import is_rendered
from consolidator.model.offline.lexicon import Lexicon, names_in
from consolidator.model.offline.text import truncate_words

ELLIPSIS = " … "

TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+|-[A-Za-z0-9]+)*")
TITLE = re.compile(r"\"[^\"]{2,80}\"|(?<!\w)'[^']{2,60}'(?!\w)")
_KEY = re.compile(r"(?<![\w:.,])\d|(?<=\s)[A-Z]")  # where a number or a name starts
_DANGLING = re.compile(r"(?:for|to|with|about|of|from|on|in|at|by|as|than)\b", re.I)  # a complement, not a clause
_NEEDS_MORE = frozenset(
    "a an the and or but so of to in on at for from by with about as into than that my your his her our their its "
    "is are was were be been has have had will would can could".split())
_LEADING_LINK = re.compile(r"^(?:but|and|so|because|which|while|although|though)\s+", re.I)
_CLAUSE_END = re.compile(r"[,;:]\s+|\s+[-–—]\s+|\s+(?=(?:but|because|which|while|although|though)\s)")


def clause_value(clause: str, lexicon: Lexicon, names: set[str]) -> float:
    """What a part of a sentence carries: its words' weights, doubled for each of a number, a
    name (of `names`, the sentence's) and a quoted title."""
    tokens = TOKEN.findall(clause)
    value = sum(lexicon.weight(w) for w in dict.fromkeys(lexicon.scored(tokens)))
    keys = any(c.isdigit() for c in clause) + any(t in names for t in tokens) + bool(TITLE.search(clause))
    return value * (1.0 + keys)


def clause_spans(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each non-blank clause of `sentence`."""
    bounds, start = [], 0
    for m in _CLAUSE_END.finditer(sentence):
        bounds.append((start, m.start()))
        start = m.end()
    bounds.append((start, len(sentence)))
    return [(a, b) for a, b in bounds if sentence[a:b].strip()]


def shorten(sentence: str, max_chars: int, lexicon: Lexicon) -> str:
    """The sentence cut to `max_chars` ("" if nothing fits): the most valuable of its best
    clauses that fit, in order, and its best clause cut at a word boundary, from its start or
    from any number or name in it."""
    if len(sentence) <= max_chars:
        return sentence
    if sentence.startswith("[") or is_rendered(sentence):
        return ""  # an aside (or an attachment) is kept whole or not at all
    clauses = clause_spans(sentence)
    names = names_in(TOKEN.findall(sentence), lexicon)
    ranked = sorted(range(len(clauses)), key=lambda i: (-clause_value(sentence[slice(*clauses[i])], lexicon, names), i))
    kept: list[int] = []
    for i in ranked:
        trial = sorted(kept + [i])
        if len(join_clauses(sentence, [clauses[j] for j in trial])) <= max_chars:
            kept = trial
    whole = join_clauses(sentence, [clauses[j] for j in kept]) if kept else ""
    best = sentence[slice(*clauses[ranked[0]])]
    starts = [0] + [m.start() for m in _KEY.finditer(best)]
    cuts = [ends_marked(c, sentence) for c in [whole] + [cut_marked(best, i, max_chars) for i in starts] if c]
    fitting = (c for c in cuts if len(c) <= max_chars)
    return max(fitting, key=lambda t: (clause_value(t, lexicon, names), -len(t)), default="")


def ends_marked(cut: str, sentence: str) -> str:
    """`cut` with "…" at an end where the sentence goes on ("It all started when a friend gave me
    this painting…"): a clause kept alone must not read as all that was said, nor run into the
    next sentence."""
    pieces = [p.strip(" ,;:-–—") for p in cut.split("…")]
    if pieces[0] and not sentence.lstrip().startswith(pieces[0]):
        cut = "…" + cut.lstrip()
    if pieces[-1] and not sentence.rstrip(" .!?").endswith(pieces[-1].rstrip(" .!?")):
        cut = cut.rstrip(" ,;:-–—") + "…"
    return cut


def cut_marked(clause: str, start: int, max_chars: int) -> str:
    """`clause` from `start`, cut at a word within `max_chars`, with an ellipsis where words were
    left out ("…swimming to stay active", "it made a big…"): a reader must see that the speaker
    said more. A cut never ends on a word that needs what follows ("a", "to", "my")."""
    lead = "…" if start > 0 else ""
    piece = clause[start:]
    if len(lead) + len(piece) <= max_chars:
        return lead + piece
    words = truncate_words(piece, max_chars - len(lead) - 1).split()
    while words and words[-1].lower() in _NEEDS_MORE:
        words.pop()
    return f"{lead}{' '.join(words)}…" if words else ""


def join_clauses(sentence: str, spans: list[tuple[int, int]]) -> str:
    """Adjacent clauses keep the text between them; a gap is marked with an ellipsis."""
    out = sentence[spans[0][0]:spans[0][1]]
    for (_, prev_end), (a, b) in zip(spans, spans[1:]):
        between = sentence[prev_end:a]
        out += between if not TOKEN.search(between) else ELLIPSIS
        out += sentence[a:b]
    return out


def trim_edges(sentence: str, is_filler) -> str:
    """The sentence without its leading and trailing filler clauses ("Yeah, ", "Wow, ",
    ", Mari!", " but I'm doing my best"): `is_filler(clause)` says which carry nothing. The
    sentence keeps its final punctuation and starts with a capital, without a linking word
    ("but I'm ..." -> "I'm ..."); a leading clause is kept when what follows it is its
    complement ("Thanks, for the lift to Leeds"), and a sentence that is all filler is left whole.
    `is_filler` must be pure: each clause is judged once."""
    spans = clause_spans(sentence)
    if len(spans) < 2:  # one clause: kept whole whether it is filler or not, so it is not judged
        return sentence
    judged: dict[int, bool] = {}

    def filler(i: int) -> bool:  # each clause judged once
        if i not in judged:
            judged[i] = is_filler(sentence[slice(*spans[i])])
        return judged[i]

    if all(filler(i) for i in range(len(spans))):
        return sentence
    first, last = 0, len(spans)
    while last - first > 1 and filler(first):
        first += 1
    if _DANGLING.match(sentence[spans[first][0]:]):
        first = 0
    while last - first > 1 and filler(last - 1):
        last -= 1
    if (first, last) == (0, len(spans)):
        return sentence
    out = sentence[spans[first][0]:spans[last - 1][1]].rstrip(" ,;:-–—")
    if first:
        out = _LEADING_LINK.sub("", out)
    end = sentence.rstrip()[-1:]
    if end in ".!?" and not out.endswith(end):
        out += end
    return out[:1].upper() + out[1:]
