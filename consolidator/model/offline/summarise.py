"""The offline summariser: extractive, and choosing the sentences that carry something.

Inputs are rendered lines, "YYYY-MM-DD HH:MM Speaker: text" (consolidator/ladders/inputs.py),
or lower rungs' summaries made of such lines; any other text is read as plain sentences.
Every rung uses this one policy: a week re-selects from its days exactly as a day selects
from its lines.

1. Turns: each input is cut at every "date time speaker:" prefix. The prefix is kept for the
   output (a reader sees who said it and when) and never scored; its date is the line's
   LOCAL date, against which relative dates are resolved (reldates.py). Exact repeats (the
   same words) are kept once.
2. Words weigh by how rare they are in English: max(0, 7 - zipf) from wordfreq's English
   list, so "the" weighs nothing, "doctor" 2.1, "pottery" 3.3 and an unknown name 7. The
   speakers' own names and their short forms ("Mel" for "Melanie") are not scored: they are
   on every line, as speaker or as the person spoken to.
3. Phatic sentences are dropped: a sentence with no number and no content word (a word that
   is not a function word, not in the closed class of interjections and reactions - greetings,
   thanks, agreement, generic praise and feeling - and not among the commonest English words,
   zipf >= 5.5) says nothing a reader needs ("Hey Mel!", "Wow, that's so cool!", "Thanks,
   Caroline!"). When every sentence is phatic they all compete.
4. Relevance: the sum of the sentence's scored words' weights, each scaled by
   1 + 0.5 ln(how many sentences of the window use it) (what the window keeps returning to),
   over sqrt(words + 1); x 1.25 for each of a number, a proper name (a capitalised word that
   does not start the sentence) and a quoted title; x 0.5 under four words.
5. Redundancy: maximal marginal relevance over sentence embeddings (`default_embedder`,
   wordllama): the next sentence maximises 0.7 x relevance / best relevance - 0.3 x its
   highest cosine to a chosen sentence; one at cosine >= 0.9 to a chosen one is a repeat.
   Sentences are added until nothing more fits the budget.
6. A sentence too long for the room left is cut (when at least MIN_ROOM characters are left
   and the cut keeps KEEP_SHARE of its value): to its best clauses, numbers, names and titles
   counting double, elided parts marked " … ", or to a run of words of its best clause that
   starts at a number or a name, whichever keeps more.
7. Output: the chosen sentences in input order, each turn's sentences after its prefix, one
   line per turn; estimate_tokens(output) <= budget always.

Deterministic (ties go to the earlier sentence) and fast: the embedder and the word list are
loaded once per process, word weights are cached.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date

from consolidator.domain import chars_within, estimate_tokens
from consolidator.model.offline.lexicon import Lexicon, base_form, has_name, names_in, zipf
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.text import sentences, truncate_words

LAMBDA = 0.7  # MMR: share of relevance against redundancy
REPEAT_COSINE = 0.9  # a sentence this close to a chosen one says it again
COMMON_ZIPF = 5.5  # words at least this frequent in English are never content on their own
MIN_ROOM = 60  # characters: less room left than this is not worth cutting a sentence for
POOL_BUDGETS, POOL_MIN = 2, 16  # MMR chooses among the best 2 budgets' worth (at least 16)
KEEP_SHARE = 0.6  # a cut sentence must keep this share of its words' value (numbers, names)
ELLIPSIS = " … "

_PREFIX = re.compile(
    r"(?:^|(?<=\s))(?:(?P<date>\d{4}-\d{2}-\d{2}) )?(?P<time>\d{2}:\d{2}) (?P<who>[^\s:][^:\n]{0,39}?): "
)
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_LABEL_BEFORE_PREFIX = re.compile(r"(?:^|\n)[^\n]{1,40}:\s*$")  # "2023-05-09 (Tue): " ending a line
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+|-[A-Za-z0-9]+)*")
_TITLE = re.compile(r"\"[^\"]{2,80}\"|(?<!\w)'[^']{2,60}'(?!\w)")
_KEY = re.compile(r"(?<![\w:.,])\d|(?<=\s)[A-Z]")  # where a number or a name starts
_CLAUSE_END = re.compile(r"[,;:]\s+|\s+[-–—]\s+|\s+(?=(?:but|because|which|while|although|though)\s)")


@dataclass
class Candidate:
    position: int  # order of appearance
    turn: int  # index of the turn (prefix) it belongs to
    text: str  # as it will be written (relative dates resolved)
    relevance: float
    phatic: bool


@dataclass
class Turn:
    prefix: str | None  # "2023-05-08 13:56 Caroline", or None for plain text
    day: date | None
    sentences: list[str] = field(default_factory=list)


# --- parsing -------------------------------------------------------------------------------------


def parse_turns(text: str, fallback_day: date | None) -> list[Turn]:
    """The turns of one input: text between prefixes, each with its prefix and local date.

    A passed-through window joins its inputs as "label: text" lines; a label just before a
    prefix ("2023-05-09 (Tue): 2023-05-09 10:00 Ana: ...") is dropped, never read as a sentence.
    """
    turns: list[Turn] = []
    matches = list(_PREFIX.finditer(text))
    head = _LABEL_BEFORE_PREFIX.sub("", text[: matches[0].start()]) if matches else text
    if head.strip():
        turns.append(Turn(None, fallback_day, sentences(head)))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[m.end():end]
        if i + 1 < len(matches):
            body = _LABEL_BEFORE_PREFIX.sub("", body)
        day = date.fromisoformat(m.group("date")) if m.group("date") else fallback_day
        turns.append(Turn(m.group(0)[:-2], day, sentences(body)))
    return [t for t in turns if t.sentences]


def speakers_of(turns: list[Turn]) -> set[str]:
    names: set[str] = set()
    for turn in turns:
        if turn.prefix:
            who = _PREFIX.match(turn.prefix + ": ").group("who")
            names.update(base_form(w) for w in _TOKEN.findall(who))
    return names


# --- scoring -----------------------------------------------------------------------------------


def relevance(sentence: str, tokens: list[str], words: list[str], value: dict[str, float], lexicon: Lexicon) -> float:
    """See the module docstring, step 4; `value[w]` is w's weight scaled by how often the window uses it."""
    base = sum(value[w] for w in set(words)) / math.sqrt(len(tokens) + 1)
    for present in (any(c.isdigit() for c in sentence), has_name(tokens, lexicon), bool(_TITLE.search(sentence))):
        base *= 1.25 if present else 1.0
    return base * (0.5 if len(tokens) < 4 else 1.0)


def is_phatic(sentence: str, words: list[str]) -> bool:
    return not any(c.isdigit() for c in sentence) and all(zipf(w) >= COMMON_ZIPF for w in words)


def clause_value(clause: str, lexicon: Lexicon, names: set[str]) -> float:
    """What a part of a sentence carries: its words' weights, doubled for each of a number, a
    name (of `names`, the sentence's) and a quoted title."""
    tokens = _TOKEN.findall(clause)
    value = sum(lexicon.weight(w) for w in dict.fromkeys(lexicon.scored(tokens)))
    keys = any(c.isdigit() for c in clause) + any(t in names for t in tokens) + bool(_TITLE.search(clause))
    return value * (1.0 + keys)


def shorten(sentence: str, max_chars: int, lexicon: Lexicon) -> str:
    """The sentence cut to `max_chars` ("" if nothing fits): the most valuable of its best
    clauses that fit, in order, and its best clause cut at a word boundary, from its start or
    from any number or name in it."""
    if len(sentence) <= max_chars:
        return sentence
    bounds, start = [], 0
    for m in _CLAUSE_END.finditer(sentence):
        bounds.append((start, m.start()))
        start = m.end()
    bounds.append((start, len(sentence)))
    clauses = [(a, b) for a, b in bounds if sentence[a:b].strip()]
    names = names_in(_TOKEN.findall(sentence), lexicon)
    ranked = sorted(range(len(clauses)), key=lambda i: (-clause_value(sentence[slice(*clauses[i])], lexicon, names), i))
    kept: list[int] = []
    for i in ranked:
        trial = sorted(kept + [i])
        if len(_join_clauses(sentence, [clauses[j] for j in trial])) <= max_chars:
            kept = trial
    whole = _join_clauses(sentence, [clauses[j] for j in kept]) if kept else ""
    best = sentence[slice(*clauses[ranked[0]])]
    starts = [0] + [m.start() for m in _KEY.finditer(best)]
    cuts = [whole] + [truncate_words(best[i:], max_chars) for i in starts]
    return max((c for c in cuts if c), key=lambda t: (clause_value(t, lexicon, names), -len(t)), default="")


def _join_clauses(sentence: str, spans: list[tuple[int, int]]) -> str:
    """Adjacent clauses keep the text between them; a gap is marked with an ellipsis."""
    out = sentence[spans[0][0]:spans[0][1]]
    for (_, prev_end), (a, b) in zip(spans, spans[1:]):
        between = sentence[prev_end:a]
        out += between if not _skipped(sentence, prev_end, a) else ELLIPSIS
        out += sentence[a:b]
    return out


def _skipped(sentence: str, prev_end: int, start: int) -> bool:
    return bool(_TOKEN.search(sentence[prev_end:start]))


# --- selection ---------------------------------------------------------------------------------


def extractive_summary(texts: list[str], budget_tokens: int, days: list[date | None] | None = None) -> str:
    """The summary of `texts` within `budget_tokens` (see the module docstring).

    `days[i]` is the local date of `texts[i]` where its lines carry no dated prefix (a day's
    label), for resolving relative dates; None leaves them as they are.
    """
    turns = [t for i, text in enumerate(texts) for t in parse_turns(text, days[i] if days else None)]
    lexicon = Lexicon(speakers_of(turns))
    items: list[tuple[int, str, list[str], list[str]]] = []  # (turn, sentence, tokens, scored words)
    seen: set[tuple[str, ...]] = set()
    for n, turn in enumerate(turns):
        for s in turn.sentences:
            tokens = _TOKEN.findall(s)
            key = tuple(base_form(t) for t in tokens) or (s.lower(),)
            if key not in seen:
                seen.add(key)
                items.append((n, s, tokens, lexicon.scored(tokens)))
    if not items:
        return ""
    df: dict[str, int] = {}
    for _, _, _, words in items:
        for w in set(words):
            df[w] = df.get(w, 0) + 1
    value = {w: lexicon.weight(w) * (1.0 + 0.5 * math.log(n)) for w, n in df.items()}
    candidates = [
        Candidate(pos, n, s, relevance(s, tokens, words, value, lexicon), is_phatic(s, words))
        for pos, (n, s, tokens, words) in enumerate(items)
    ]
    if not all(c.phatic for c in candidates):
        candidates = [c for c in candidates if not c.phatic]
    budget_chars = chars_within(budget_tokens)
    candidates = _pool(candidates, budget_chars)
    for c in candidates:
        c.text = resolve_relative_dates(c.text, turns[c.turn].day)
    chosen = _select(candidates, turns, budget_chars, lexicon)
    if not chosen:  # not even one prefixed sentence fits: the best one, cut, without its prefix
        best = max(candidates, key=lambda c: (c.relevance, -c.position))
        return shorten(best.text, budget_chars, lexicon)
    out = _render(chosen, turns)
    return out if estimate_tokens(out) <= budget_tokens else truncate_words(out, chars_within(budget_tokens))


def _pool(candidates: list[Candidate], budget_chars: int) -> list[Candidate]:
    """The most relevant candidates, POOL_BUDGETS budgets' worth: the only ones MMR could reach
    before the budget is full (a burst day's thousand lines are never all embedded)."""
    ranked = sorted(candidates, key=lambda c: (-c.relevance, c.position))
    pool, size = [], 0
    for c in ranked:
        if size >= POOL_BUDGETS * budget_chars and len(pool) >= POOL_MIN:
            break
        pool.append(c)
        size += len(c.text)
    return sorted(pool, key=lambda c: c.position)


def _select(candidates: list[Candidate], turns: list[Turn], budget_chars: int, lexicon: Lexicon) -> list[Candidate]:
    import numpy as np

    vectors = embed_sentences([c.text for c in candidates])
    rel = np.array([c.relevance for c in candidates], dtype=np.float64)
    rel = rel / rel.max() if rel.max() > 0 else np.ones_like(rel)
    turn_of = np.array([c.turn for c in candidates])
    length = np.array([len(c.text) for c in candidates])
    prefix_cost = np.array([len(turns[c.turn].prefix) + 2 if turns[c.turn].prefix else 0 for c in candidates])
    closest = np.zeros(len(candidates))  # highest cosine to a chosen sentence
    open_ = np.ones(len(candidates), dtype=bool)
    opened = np.zeros(len(turns), dtype=bool)  # turns with a chosen sentence (their prefix is paid for)
    chosen: list[Candidate] = []
    used = 0
    while open_.any():
        # characters each sentence would add: its text and a separator, plus its prefix if new
        cost = np.where(opened[turn_of], length + 1, prefix_cost + length + (1 if chosen else 0))
        mmr = np.where(open_, LAMBDA * rel - (1 - LAMBDA) * np.clip(closest, 0.0, None), -np.inf)
        best = int(np.argmax(mmr))
        pick = candidates[best]
        if used + cost[best] > budget_chars:
            extra = int(cost[best]) - len(pick.text)
            room = budget_chars - used - extra
            short = shorten(pick.text, room, lexicon) if room >= MIN_ROOM or not chosen else ""
            names = names_in(_TOKEN.findall(pick.text), lexicon)
            if short and chosen and clause_value(short, lexicon, names) < KEEP_SHARE * clause_value(pick.text, lexicon, names):
                short = ""  # what is left of it is not worth its room
            if short:
                pick = Candidate(pick.position, pick.turn, short, pick.relevance, pick.phatic)
                used += extra + len(short)
            else:
                fits = open_ & (used + cost <= budget_chars)
                if not fits.any():
                    break
                best = int(np.argmax(np.where(fits, mmr, -np.inf)))
                pick = candidates[best]
                used += int(cost[best])
        else:
            used += int(cost[best])
        chosen.append(pick)
        opened[pick.turn] = True
        open_[best] = False
        closest = np.maximum(closest, vectors @ vectors[best])
        open_ &= closest < REPEAT_COSINE
    return sorted(chosen, key=lambda c: c.position)


_VECTORS: dict[str, object] = {}  # sentence -> its row, for the process's embedder (bounded)
_VECTORS_OF: list[object] = []  # the embedder the cache belongs to
VECTOR_CACHE = 4096  # rows (256 float32 each: about 4 MB at most)


def embed_sentences(texts: list[str]):
    """Unit rows of `texts` from the process's embedder; a sentence chosen at one rung is
    embedded again at the next, so rows are cached (cleared whole when full)."""
    import numpy as np

    from consolidator.model.embeddings import default_embedder

    embedder = default_embedder()
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    if not _VECTORS_OF or _VECTORS_OF[0] is not embedder:
        _VECTORS.clear()
        _VECTORS_OF[:] = [embedder]
    rows = {t: _VECTORS[t] for t in texts if t in _VECTORS}  # a snapshot: another thread may clear
    missing = [t for t in dict.fromkeys(texts) if t not in rows]
    if missing:
        rows.update(zip(missing, embedder.embed(missing)))
        if len(_VECTORS) + len(missing) > VECTOR_CACHE:
            _VECTORS.clear()
        _VECTORS.update((t, rows[t]) for t in missing)
    return np.stack([rows[t] for t in texts])


def _render(chosen: list[Candidate], turns: list[Turn]) -> str:
    out = ""
    for turn_index in dict.fromkeys(c.turn for c in chosen):
        prefix = turns[turn_index].prefix
        body = " ".join(c.text for c in chosen if c.turn == turn_index)
        piece = f"{prefix}: {body}" if prefix else body
        out += ("\n" if prefix else " ") + piece if out else piece
    return out


def fallback_days(labels: list[str], window_label: str) -> list[date | None]:
    """Each input's own date where its label is one (a day's summary), else the window's date
    for raw lines (label ""), else None."""
    window = _ISO_DATE.match(window_label or "")
    out: list[date | None] = []
    for label in labels:
        m = _ISO_DATE.match(label or "") or (window if not label else None)
        try:
            out.append(date.fromisoformat(m.group(1)) if m else None)
        except ValueError:
            out.append(None)
    return out
