"""The offline summariser: extractive, a third of what it reads, choosing what carries facts.

Inputs are rendered lines, "YYYY-MM-DD HH:MM Speaker: text" (consolidator/ladders/inputs.py),
or lower rungs' summaries; any other text is read as plain sentences. Every rung uses this one
policy: a week re-selects from its days exactly as a day selects from its lines.

1. Turns (summaryform.parse_turns): who said it, the LOCAL date it was said on (relative dates
   are resolved against it, reldates.py), the time and the session. Who and when are never
   scored. An aside ("[laughs]", an attachment "(photo: ...)") is a sentence of its own. Each sentence
   is compacted (text_compact.compact: interjections, discourse markers, hedges,
   intensifiers, tag questions, trailing "too"/"though" and emoji go; the rest is the
   speaker's words in order), then its leading and trailing filler clauses are trimmed
   ("Hey Mari, ", ", Mari!"; text_cut.trim_edges). Exact repeats (the same words) are kept once.
2. Length (target_chars): a summary is at most a third of what it reads, measured in the
   summary form (so the dates a raw line repeats do not count as content read), and never
   more than the budget: min(budget characters, max(min_target, ceil(input / compression))).
   An offline summary of a 2,000-character day is ~650 characters even when the budget
   allows 1,600. (The ladder stage passes inputs that fit the budget through unsummarised;
   this floor applies to what it does send.)
3. Concepts: a sentence's content words by stem (no function words, interjections, reactions
   or speakers' names; lexicon.py), each worth its rarity in English, max(0, 7 - zipf) from
   wordfreq, x (1 + df_boost ln(sentences of the window using it)): what the window keeps
   returning to weighs more, once.
4. Phatic sentences are dropped: no number and no word rarer than zipf 5.5 ("Hey Mari!",
   "Wow, that's so cool!"), nor are closing formulas ("Let me know how it goes!", "Talk soon!");
   catching up ("since we last talked", "long time no see") is judged without its phrase.
   When every sentence is phatic they all compete.
5. Prior (fact_prior): how likely a sentence states something about someone rather than
   reacting to it. x first_boost for a speaker telling about themselves (first person),
   x second_only for one only addressing the listener ("You're so brave"), x question for a
   question, x answer_boost for a turn replying to another speaker's question (and x echo_boost
   more for its sentences that take up a word of the question: they are the answer; day
   single-hop answers 129 -> 131, among them "Find a trainer" as advice asked for), x dated_boost
   for a sentence with a relative date (an event placed in time), x key_boost for each of a
   number, a proper name and a quoted title; x agent_weight for the agent's own turns and
   tool or action lines (the memory is about the people; the agent's words weigh half);
   x shown_boost for the one photo of a turn whose words point at it ("Here's our latest
   work", "they made this!", "take a look"): what the speaker shows is what the turn tells,
   and the pointing sentence says nothing without it (bench/recall.py, development subset:
   single-hop answers in the day summary 124 -> 129, among them a painting's subject, a
   hiking photo, an accident told beside a dashboard photo).
6. Selection (budgeted coverage): the next sentence is the one adding the most prior x
   not-yet-covered concept worth per character it adds to the written summary (its text,
   and its "Speaker:" label or session header when it opens one); a sentence at cosine
   >= repeat_cosine (sentence embeddings, `default_embedder`) to a chosen one is a repeat,
   and one whose concepts are all covered adds nothing. Sentences are added until nothing
   more fits the target. One too long for the room left is cut (text_cut.shorten) when at
   least min_room characters are left and the cut keeps keep_share of its value.
7. Output (summaryform.render): the chosen sentences in input order, a "date time" header
   where a session starts, one "Speaker:" line per run of one speaker's sentences.

Deterministic (ties go to the earlier sentence) and fast: the embedder and the word list are
loaded once per process, word weights are cached, at most pool_targets targets' worth of the
best sentences are considered (a burst day's thousand lines are never all embedded). The factors
named in lower case above are fields of the settings passed in (tuning.OfflineSettings).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from datetime import date

from consolidator.model.attachments import is_rendered
from consolidator.domain import chars_within, estimate_tokens
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.text_cut import ELLIPSIS, TITLE, TOKEN, clause_value, shorten, trim_edges
from consolidator.model.offline.lexicon import Lexicon, base_form, has_name, names_in
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.summaryform import Turn, parse_turns, render, separator
from consolidator.model.offline.text import stem, truncate_words
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings
from consolidator.model.offline.words import AGENT_SPEAKERS, zipf

__all__ = ["ELLIPSIS", "extractive_summary", "fallback_days", "target_chars"]

COMMON_ZIPF = 5.5  # words at least this frequent in English are never content on their own

FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
SECOND_PERSON = frozenset("you your yours yourself yourselves".split())
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_PHOTO = re.compile(r"^\(photo:")  # a photo as model/attachments.render writes it (and compact_aside keeps it)
_POINTING = re.compile(r"\b(?:here['’]?s|here is|this|these|take a look|check (?:it|this) out|look at)\b", re.I)


@dataclass
class Candidate:
    position: int  # order of appearance
    turn: int  # index of the turn it belongs to
    text: str  # as it will be written (relative dates resolved)
    prior: float  # fact_prior and the turn's and date's boosts
    concepts: dict[str, float] = field(default_factory=dict)  # stem -> what covering it is worth
    phatic: bool = False

    @property
    def relevance(self) -> float:
        """Prior x concept worth over sqrt(length): the order in which sentences enter the pool."""
        return self.prior * sum(self.concepts.values()) / math.sqrt(len(self.text) / 5 + 1)


def target_chars(input_chars: int, budget_tokens: int, settings: OfflineSettings = DEFAULTS) -> int:
    """The most characters a summary of `input_chars` (in the summary form) may write."""
    return min(chars_within(budget_tokens), max(settings.min_target, -(-input_chars // settings.compression)))


def fact_prior(sentence: str, tokens: list[str], lexicon: Lexicon, settings: OfflineSettings = DEFAULTS) -> float:
    """How likely a sentence states something about someone rather than reacting to it (module
    docstring, step 5; the turn's and the date's boosts are applied by the caller)."""
    forms = {base_form(t) for t in tokens}
    first, second = bool(forms & FIRST_PERSON), bool(forms & SECOND_PERSON)
    prior = settings.first_boost if first else 1.0
    if second and not first:
        prior *= settings.second_only
    if sentence.rstrip().endswith("?"):
        prior *= settings.question
    for present in (any(c.isdigit() for c in sentence), has_name(tokens, lexicon), bool(TITLE.search(sentence))):
        prior *= settings.key_boost if present else 1.0
    return prior


def replies(turns: list[Turn]) -> list[bool]:
    """Turns that reply to a question: the turn before, in the same session, is another
    speaker's and asks something (asides aside)."""
    def asks(turn: Turn) -> bool:
        return any(s.rstrip().endswith("?") for s in turn.sentences if not s.startswith("[") and not is_rendered(s))

    return [n > 0 and t.speaker is not None and turns[n - 1].speaker not in (None, t.speaker)
            and turns[n - 1].session == t.session and asks(turns[n - 1])
            for n, t in enumerate(turns)]


# A conversation's closing formula ("Let me know how it goes!", "Talk soon!"): a closed class of
# English, phatic even when a word in it is rarer than COMMON_ZIPF ("goes", "posted").
_CLOSING = re.compile(r"^(?:(?:and|so|just|please)\s+)?(?:let me know|keep me posted|keep me updated|keep me in the loop|"
                      r"talk (?:to you )?soon|take care|see you|catch you later|have fun|enjoy|good luck)\b"
                      r"(?:\s+(?:how (?:it|that|things|everything) (?:goes|go|went|turns out)|what happens|what you think|"
                      r"if you need (?:anything|help|me)))?[.!]*$", re.I)


# Catching up ("since we last talked", "long time no see"): the phrase itself says nothing, so a
# sentence is judged on the rest ("So much has happened since we last spoke" is phatic; "I went to
# a conference since we last spoke" is not).
_CATCHING_UP = re.compile(r"\b(?:(?:happened|happening|going on|up)\s+)?(?:ever )?since we (?:last )?"
                          r"(?:talked|spoke|chatted|caught up|met|talk|chat)\b|\blong time no (?:see|talk|chat)\b", re.I)


def is_phatic(sentence: str, words: list[str]) -> bool:
    """No number and no word rarer than COMMON_ZIPF: it says nothing a reader needs."""
    if _CLOSING.match(sentence.strip()):
        return True
    if spans := _CATCHING_UP.findall(sentence):
        said = {w.lower() for span in spans for w in TOKEN.findall(span)}
        words = [w for w in words if w not in said]
    return not any(c.isdigit() for c in sentence) and all(zipf(w) >= COMMON_ZIPF for w in words)


def speakers_of(turns: list[Turn]) -> set[str]:
    return {base_form(w) for t in turns if t.speaker for w in TOKEN.findall(t.speaker)}


def extractive_summary(texts: list[str], budget_tokens: int, days: list[date | None] | None = None,
                       settings: OfflineSettings = DEFAULTS) -> str:
    """The summary of `texts` within `budget_tokens` and a third of their size (module docstring).

    `days[i]` is the local date of `texts[i]` where its lines carry no date of their own (a
    day's label), for resolving relative dates; None leaves them as they are.
    """
    turns = parse_turns(texts, days)
    if not turns:
        return ""
    target = target_chars(len(render([(t, s) for t in turns for s in t.sentences])), budget_tokens, settings)
    lexicon = Lexicon(speakers_of(turns))
    candidates = _candidates(turns, lexicon, settings)
    if not all(c.phatic for c in candidates):
        candidates = [c for c in candidates if not c.phatic]
    candidates = _pool(candidates, target, settings)
    for c in candidates:
        dated = resolve_relative_dates(c.text, turns[c.turn].day)
        if dated != c.text:
            c.text, c.prior = dated, c.prior * settings.dated_boost
    chosen = _select(candidates, turns, target, lexicon, settings)
    if not chosen:  # not even one sentence with its header fits: the best one, cut, alone
        best = max(candidates, key=lambda c: (c.relevance, -c.position))
        return shorten(best.text, target, lexicon)
    out = _written(chosen, turns)
    return out if len(out) <= target and estimate_tokens(out) <= budget_tokens else truncate_words(out, target)


def not_a_person(speaker: str | None) -> bool:
    """The agent ("assistant", "agent") or a tool/action line ("[tool]", "[action]")."""
    name = (speaker or "").strip().lower()
    return name in AGENT_SPEAKERS or (name.startswith("[") and name.endswith("]"))


def _candidates(turns: list[Turn], lexicon: Lexicon, settings: OfflineSettings) -> list[Candidate]:
    """Every distinct sentence, trimmed, with its prior and its concepts' worth (steps 1, 3-5)."""
    def filler(clause: str) -> bool:
        return is_phatic(clause, lexicon.scored(TOKEN.findall(clause)))

    items: list[tuple[int, str, list[str], dict[str, float]]] = []  # (turn, sentence, tokens, concepts)
    seen: set[tuple[str, ...]] = set()
    df: dict[str, int] = {}
    for n, turn in enumerate(turns):
        for sentence in turn.sentences:
            s = trim_edges(compact(sentence) if settings.compact_sentences else sentence, filler)
            tokens = TOKEN.findall(s)
            key = tuple(base_form(t) for t in tokens) or (s.lower(),)
            if key in seen:
                continue
            seen.add(key)
            concepts: dict[str, float] = {}
            for w in lexicon.scored(tokens):
                concepts[stem(w)] = max(concepts.get(stem(w), 0.0), lexicon.weight(w))
            for k in concepts:
                df[k] = df.get(k, 0) + 1
            items.append((n, s, tokens, concepts))
    answering = replies(turns)
    shown = shown_photos(turns, items)
    echoes = answers_asked(items, answering)
    out = []
    for pos, (n, s, tokens, concepts) in enumerate(items):
        worth = {k: w * (1.0 + settings.df_boost * math.log(df[k])) for k, w in concepts.items()}
        prior = fact_prior(s, tokens, lexicon, settings) * (settings.answer_boost if answering[n] else 1.0)
        prior *= settings.echo_boost if pos in echoes else 1.0
        prior *= settings.shown_boost if pos in shown else 1.0
        prior *= settings.agent_weight if not_a_person(turns[n].speaker) else 1.0
        out.append(Candidate(pos, n, s, prior, worth, is_phatic(s, lexicon.scored(tokens))))
    return out


def answers_asked(items: list[tuple], answering: list[bool]) -> set[int]:
    """Positions in `items` ((turn, sentence, tokens, concepts)) of the sentences of a reply that
    share a concept with a question of the turn replied to: "Any tips for low-impact exercises?"
    is answered by "As for low-impact exercises, swimming and yoga are good", not by the "I got
    it from a nearby restaurant" said first."""
    asked: dict[int, set[str]] = {}
    for n, s, _, concepts in items:
        if s.rstrip().endswith("?"):
            asked.setdefault(n, set()).update(concepts)
    return {pos for pos, (n, _, _, concepts) in enumerate(items)
            if answering[n] and not asked.get(n - 1, set()).isdisjoint(concepts)}


def shown_photos(turns: list[Turn], items: list[tuple]) -> set[int]:
    """Positions in `items` ((turn, sentence, ...)) of the photos their turn points at: a turn's
    only photo, where another of its sentences says "here's", "this", "take a look", ... (as
    said: trimming may drop the pointing clause, "..., they made this!")."""
    photos: dict[int, list[int]] = {}
    for pos, (n, s, *_) in enumerate(items):
        if _PHOTO.match(s):
            photos.setdefault(n, []).append(pos)
    return {found[0] for n, found in photos.items() if len(found) == 1
            and any(_POINTING.search(s) for s in turns[n].sentences
                    if not s.lstrip().startswith("[") and not is_rendered(s.lstrip()))}


def _pool(candidates: list[Candidate], target: int, settings: OfflineSettings) -> list[Candidate]:
    """The most relevant candidates, settings.pool_targets targets' worth: the only ones the selection
    could reach before the target is met."""
    ranked = sorted(candidates, key=lambda c: (-c.relevance, c.position))
    pool, size = [], 0
    for c in ranked:
        if size >= settings.pool_targets * target and len(pool) >= settings.pool_min:
            break
        pool.append(c)
        size += len(c.text)
    return sorted(pool, key=lambda c: c.position)


def _select(candidates: list[Candidate], turns: list[Turn], target: int, lexicon: Lexicon,
            settings: OfflineSettings) -> list[Candidate]:
    """Budgeted coverage (module docstring, step 6)."""
    import numpy as np

    vectors = embed_sentences([c.text for c in candidates])
    closest = np.zeros(len(candidates))  # highest cosine to a chosen sentence
    covered: set[str] = set()
    chosen: list[Candidate] = []  # in input order
    used = 0  # characters of the written summary so far
    open_ = list(range(len(candidates)))
    while open_:
        best, best_score, best_pick, best_cost = None, 0.0, None, 0
        for i in open_:
            fit = _fitting(candidates[i], chosen, covered, turns, target - used, lexicon, settings)
            if fit is None:
                continue
            pick, cost = fit
            score = pick.prior * sum(w for k, w in pick.concepts.items() if k not in covered) / max(1, cost)
            if score > best_score:
                best, best_score, best_pick, best_cost = i, score, pick, cost
        if best is None:
            break
        chosen.insert(bisect.bisect([c.position for c in chosen], best_pick.position), best_pick)
        used += best_cost
        covered.update(best_pick.concepts)
        closest = np.maximum(closest, vectors @ vectors[best])
        open_ = [i for i in open_ if i != best and closest[i] < settings.repeat_cosine]
    return chosen


def _added(c: Candidate, text: str, chosen: list[Candidate], turns: list[Turn]) -> int:
    """Characters the written summary grows by when `c`, written as `text`, joins `chosen`."""
    at = bisect.bisect([x.position for x in chosen], c.position)
    prev = turns[chosen[at - 1].turn] if at else None
    turn = turns[c.turn]
    grow = len(separator(prev, turn)) + len(text)
    if at < len(chosen):
        after = turns[chosen[at].turn]
        grow += len(separator(turn, after)) - len(separator(prev, after))
    return grow


def _fitting(c: Candidate, chosen: list[Candidate], covered: set[str], turns: list[Turn], room: int,
             lexicon: Lexicon, settings: OfflineSettings) -> tuple[Candidate, int] | None:
    """`c` as it would be added, whole or cut to the room left, with what it costs; None when
    it adds no concept or no worthwhile cut fits."""
    if not any(k not in covered for k in c.concepts):
        return None
    cost = _added(c, c.text, chosen, turns)
    if cost <= room:
        return c, cost
    space = room - (cost - len(c.text))
    if space < settings.min_room and chosen:
        return None
    short = shorten(c.text, space, lexicon)
    names = names_in(TOKEN.findall(c.text), lexicon)
    if not short or (chosen and clause_value(short, lexicon, names) < settings.keep_share * clause_value(c.text, lexicon, names)):
        return None
    kept = {stem(base_form(t)) for t in TOKEN.findall(short)}
    cut = Candidate(c.position, c.turn, short, c.prior, {k: w for k, w in c.concepts.items() if k in kept}, c.phatic)
    cost = _added(cut, short, chosen, turns)
    if cost > room or not any(k not in covered for k in cut.concepts):
        return None
    return cut, cost


def _written(chosen: list[Candidate], turns: list[Turn]) -> str:
    return render([(turns[c.turn], c.text) for c in sorted(chosen, key=lambda c: c.position)])


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
