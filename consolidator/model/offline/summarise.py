"""The offline summariser: extractive, and choosing the sentences that carry something.

Inputs are rendered lines, "YYYY-MM-DD HH:MM Speaker: text" (consolidator/ladders/inputs.py),
or lower rungs' summaries (summaryform.py reads every form); any other text is read as plain
sentences. Every rung uses this one policy: a week re-selects from its days exactly as a day
selects from its lines.

1. Turns (summaryform.parse_turns): who said it, the LOCAL date it was said on (against which
   relative dates are resolved, reldates.py), the time and the session. Who and when are
   never scored. Exact repeats (the same words) are kept once.
2. Words weigh by how rare they are in English: max(0, 7 - zipf) from wordfreq's English
   list, so "the" weighs nothing, "doctor" 2.1, "pottery" 3.3 and an unknown name 7. The
   speakers' own names and their short forms ("Mel" for "Melanie") are not scored.
3. Phatic sentences are dropped: a sentence with no number and no content word (a word that
   is not a function word, not in the closed class of interjections and reactions, and not
   among the commonest English words, zipf >= 5.5) says nothing a reader needs ("Hey Mel!",
   "Wow, that's so cool!"). When every sentence is phatic they all compete.
4. Relevance: the sum of the sentence's scored words' weights, each scaled by
   1 + 0.5 ln(how many sentences of the window use it), over sqrt(words + 1); x 1.25 for each
   of a number, a proper name and a quoted title; x 0.5 under four words.
5. Length: a summary is at most a third of what it reads (COMPRESSION), measured in this
   summary form, and never more than the budget: target = min(budget characters,
   max(MIN_TARGET, ceil(input / 3))). A short input is never cut below MIN_TARGET characters.
6. Redundancy: maximal marginal relevance over sentence embeddings (`default_embedder`,
   wordllama): the next sentence maximises 0.7 x relevance / best relevance - 0.3 x its
   highest cosine to a chosen sentence; one at cosine >= 0.9 to a chosen one is a repeat.
   Sentences are added, each costing exactly the characters it adds to the written summary,
   until nothing more fits the target.
7. A sentence too long for the room left is cut (clauses.shorten) when at least MIN_ROOM
   characters are left and the cut keeps KEEP_SHARE of its value.
8. Output (summaryform.render): the chosen sentences in input order, a "date time" header
   where a session starts, one "Speaker:" line per run of one speaker's sentences.

Deterministic (ties go to the earlier sentence) and fast: the embedder and the word list are
loaded once per process, word weights are cached.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date

from consolidator.domain import chars_within, estimate_tokens
from consolidator.model.offline.clauses import ELLIPSIS, TITLE, TOKEN, clause_value, shorten, trim_edges
from consolidator.model.offline.lexicon import Lexicon, base_form, has_name, names_in, zipf
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.summaryform import Turn, parse_turns, render
from consolidator.model.offline.text import stem, truncate_words

__all__ = ["ELLIPSIS", "extractive_summary", "fallback_days", "target_chars"]

LAMBDA = 0.7  # MMR: share of relevance against redundancy
REPEAT_COSINE = 0.9  # a sentence this close to a chosen one says it again
COMMON_ZIPF = 5.5  # words at least this frequent in English are never content on their own
MIN_ROOM = 60  # characters: less room left than this is not worth cutting a sentence for
POOL_BUDGETS, POOL_MIN = 2, 16  # MMR chooses among the best 2 targets' worth (at least 16)
DF_BOOST = 0.5  # a concept the window keeps returning to weighs 1 + 0.5 ln(sentences using it)
BETA = 1.0  # gain / cost**BETA
FIRST_BOOST, SECOND_ONLY, QUESTION = 2.0, 0.4, 0.4  # fact_prior
MODE = "coverage"
TRIM = True
LABEL_COST = True
ANSWER_BOOST = 2.0
ASK_MODE = "any"
DATED_BOOST = 1.0
KEEP_SHARE = 0.6  # a cut sentence must keep this share of its words' value (numbers, names)
COMPRESSION = 3  # a summary is at most 1/3 of what it reads...
MIN_TARGET = 200  # ...but may always use this many characters (within the budget)

_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass
class Candidate:
    position: int  # order of appearance
    turn: int  # index of the turn it belongs to
    text: str  # as it will be written (relative dates resolved)
    relevance: float
    phatic: bool
    prior: float = 1.0
    concepts: dict[str, float] = field(default_factory=dict)


def target_chars(input_chars: int, budget_tokens: int) -> int:
    """The most characters a summary of `input_chars` (in the summary form) may write."""
    return min(chars_within(budget_tokens), max(MIN_TARGET, -(-input_chars // COMPRESSION)))


def speakers_of(turns: list[Turn]) -> set[str]:
    return {base_form(w) for t in turns if t.speaker for w in TOKEN.findall(t.speaker)}


def relevance(sentence: str, tokens: list[str], words: list[str], value: dict[str, float], lexicon: Lexicon) -> float:
    """See the module docstring, step 4; `value[w]` is w's weight scaled by how often the window uses it."""
    base = sum(value[w] for w in set(words)) / math.sqrt(len(tokens) + 1)
    for present in (any(c.isdigit() for c in sentence), has_name(tokens, lexicon), bool(TITLE.search(sentence))):
        base *= 1.25 if present else 1.0
    return base * (0.5 if len(tokens) < 4 else 1.0)


FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
SECOND_PERSON = frozenset("you your yours yourself yourselves".split())


def fact_prior(sentence: str, tokens: list[str]) -> float:
    """How likely a sentence states something about someone rather than reacting: a speaker
    telling about themselves (first person) is likelier, one only addressing the listener
    (second person) or asking a question is less."""
    forms = {base_form(t) for t in tokens}
    first, second = bool(forms & FIRST_PERSON), bool(forms & SECOND_PERSON)
    prior = FIRST_BOOST if first else 1.0
    if second and not first:
        prior *= SECOND_ONLY
    if sentence.rstrip().endswith("?"):
        prior *= QUESTION
    return prior


def asks(turn: Turn) -> bool:
    sents = [s for s in turn.sentences if not s.startswith("[")]
    if ASK_MODE == "last":
        return bool(sents) and sents[-1].rstrip().endswith("?")
    return any(s.rstrip().endswith("?") for s in sents)


def _answers(turns: list[Turn]) -> list[bool]:
    """Turns that reply to a question: the turn before is another speaker's and asks something."""
    return [n > 0 and t.speaker is not None and turns[n - 1].speaker not in (None, t.speaker)
            and turns[n - 1].session == t.session and asks(turns[n - 1])
            for n, t in enumerate(turns)]


def is_phatic(sentence: str, words: list[str]) -> bool:
    return not any(c.isdigit() for c in sentence) and all(zipf(w) >= COMMON_ZIPF for w in words)


def extractive_summary(texts: list[str], budget_tokens: int, days: list[date | None] | None = None) -> str:
    """The summary of `texts` within `budget_tokens` and a third of their size (module docstring).

    `days[i]` is the local date of `texts[i]` where its lines carry no date of their own (a
    day's label), for resolving relative dates; None leaves them as they are.
    """
    turns = parse_turns(texts, days)
    lexicon = Lexicon(speakers_of(turns))
    items: list[tuple[int, str, list[str], list[str]]] = []  # (turn, sentence, tokens, scored words)
    seen: set[tuple[str, ...]] = set()
    filler = lambda clause: is_phatic(clause, lexicon.scored(TOKEN.findall(clause)))  # noqa: E731
    for n, turn in enumerate(turns):
        for s in turn.sentences:
            s = trim_edges(s, filler) if TRIM else s
            tokens = TOKEN.findall(s)
            key = tuple(base_form(t) for t in tokens) or (s.lower(),)
            if key not in seen:
                seen.add(key)
                items.append((n, s, tokens, lexicon.scored(tokens)))
    if not items:
        return ""
    target = target_chars(len(render([(t, s) for t in turns for s in t.sentences])), budget_tokens)
    df: dict[str, int] = {}
    for _, _, _, words in items:
        for w in set(words):
            df[w] = df.get(w, 0) + 1
    value = {w: lexicon.weight(w) * (1.0 + 0.5 * math.log(n)) for w, n in df.items()}
    concepts = _concepts(items, lexicon)
    answers = _answers(turns)
    candidates = []
    for pos, (n, s, tokens, words) in enumerate(items):
        prior = fact_prior(s, tokens) * (ANSWER_BOOST if answers[n] else 1.0)
        candidates.append(Candidate(pos, n, s, relevance(s, tokens, words, value, lexicon) * prior,
                                    is_phatic(s, words), prior, concepts[pos]))
    if not all(c.phatic for c in candidates):
        candidates = [c for c in candidates if not c.phatic]
    candidates = _pool(candidates, target)
    for c in candidates:
        dated = resolve_relative_dates(c.text, turns[c.turn].day)
        if dated != c.text:
            c.prior *= DATED_BOOST
            c.text = dated
    chosen = _select(candidates, turns, target, lexicon)
    if not chosen:  # not even one sentence with its header fits: the best one, cut, alone
        best = max(candidates, key=lambda c: (c.relevance, -c.position))
        return shorten(best.text, target, lexicon)
    out = _written(chosen, turns)
    return out if len(out) <= target and estimate_tokens(out) <= budget_tokens else truncate_words(out, target)


def _pool(candidates: list[Candidate], target: int) -> list[Candidate]:
    """The most relevant candidates, POOL_BUDGETS targets' worth: the only ones MMR could reach
    before the target is met (a burst day's thousand lines are never all embedded)."""
    ranked = sorted(candidates, key=lambda c: (-c.relevance, c.position))
    pool, size = [], 0
    for c in ranked:
        if size >= POOL_BUDGETS * target and len(pool) >= POOL_MIN:
            break
        pool.append(c)
        size += len(c.text)
    return sorted(pool, key=lambda c: c.position)


def _written(chosen: list[Candidate], turns: list[Turn]) -> str:
    return render([(turns[c.turn], c.text) for c in sorted(chosen, key=lambda c: c.position)])


def _concepts(items, lexicon: Lexicon) -> list[dict[str, float]]:
    """Each sentence's concepts (word stems) and what covering each is worth."""
    df: dict[str, int] = {}
    per: list[dict[str, float]] = []
    for _, s, tokens, words in items:
        c: dict[str, float] = {}
        for w in words:
            key = stem(w)
            c[key] = max(c.get(key, 0.0), lexicon.weight(w))
        per.append(c)
        for key in c:
            df[key] = df.get(key, 0) + 1
    return [{k: w * (1.0 + DF_BOOST * math.log(df[k])) for k, w in c.items()} for c in per]


def _select(candidates, turns, target, lexicon):
    return _select_cov(candidates, turns, target, lexicon) if MODE == "coverage" else _select_mmr(candidates, turns, target, lexicon)


def _select_mmr(candidates: list[Candidate], turns: list[Turn], target: int, lexicon: Lexicon) -> list[Candidate]:
    import numpy as np

    vectors = embed_sentences([c.text for c in candidates])
    rel = np.array([c.relevance for c in candidates], dtype=np.float64)
    rel = rel / rel.max() if rel.max() > 0 else np.ones_like(rel)
    closest = np.zeros(len(candidates))
    open_ = np.ones(len(candidates), dtype=bool)
    chosen: list[Candidate] = []
    used = 0
    while open_.any():
        mmr = np.where(open_, LAMBDA * rel - (1 - LAMBDA) * np.clip(closest, 0.0, None), -np.inf)
        order = [int(i) for i in np.argsort(-mmr, kind="stable") if open_[i]]
        best = order[0]
        pick = candidates[best]
        total = _added(chosen, pick, turns)
        if total > target:
            room = target - (total - len(pick.text))
            short = shorten(pick.text, room, lexicon) if room >= MIN_ROOM or not chosen else ""
            names = names_in(TOKEN.findall(pick.text), lexicon)
            if short and chosen and clause_value(short, lexicon, names) < KEEP_SHARE * clause_value(pick.text, lexicon, names):
                short = ""
            if short:
                pick = Candidate(pick.position, pick.turn, short, pick.relevance, pick.phatic)
                total = _added(chosen, pick, turns)
            if not short or total > target:
                fitting = [i for i in order[1:] if used + len(candidates[i].text) < target
                           and _added(chosen, candidates[i], turns) <= target]
                if not fitting:
                    break
                best = fitting[0]
                pick = candidates[best]
                total = _added(chosen, pick, turns)
        used = total
        chosen.append(pick)
        open_[best] = False
        closest = np.maximum(closest, vectors @ vectors[best])
        open_ &= closest < REPEAT_COSINE
    return sorted(chosen, key=lambda c: c.position)


def _select_cov(candidates: list[Candidate], turns: list[Turn], target: int, lexicon: Lexicon) -> list[Candidate]:
    """Budgeted coverage: the next sentence adds the most not-yet-covered concept weight per character."""
    covered: set[str] = set()
    chosen: list[Candidate] = []
    used = 0
    open_ = list(range(len(candidates)))
    while open_:
        best, best_score, best_pick = None, 0.0, None
        for i in open_:
            c = candidates[i]
            gain = sum(w for k, w in c.concepts.items() if k not in covered)
            if gain <= 0:
                continue
            total = _added(chosen, c, turns)
            pick = c
            if total > target:
                room = target - (total - len(c.text)) 
                if room < MIN_ROOM and chosen:
                    continue
                short = shorten(c.text, room, lexicon)
                if not short:
                    continue
                names = names_in(TOKEN.findall(c.text), lexicon)
                if chosen and clause_value(short, lexicon, names) < KEEP_SHARE * clause_value(c.text, lexicon, names):
                    continue
                pick = Candidate(c.position, c.turn, short, c.relevance, c.phatic, c.prior, _short_concepts(c, short))
                gain = sum(w for k, w in pick.concepts.items() if k not in covered)
                total = _added(chosen, pick, turns)
                if total > target or gain <= 0:
                    continue
            score = c.prior * gain / max(1, (total - used) if LABEL_COST else len(pick.text) + 1) ** BETA
            if score > best_score:
                best, best_score, best_pick = i, score, pick
        if best is None:
            break
        chosen.append(best_pick)
        used = _added(chosen[:-1], best_pick, turns)
        covered.update(best_pick.concepts)
        open_.remove(best)
    return sorted(chosen, key=lambda c: c.position)


def _short_concepts(c: Candidate, short: str) -> dict[str, float]:
    kept = {stem(base_form(t)) for t in TOKEN.findall(short)}
    return {k: w for k, w in c.concepts.items() if k in kept}


def _added(chosen: list[Candidate], pick: Candidate, turns: list[Turn]) -> int:
    """The length of the written summary with `pick` added to `chosen`."""
    return len(_written(chosen + [pick], turns))


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
