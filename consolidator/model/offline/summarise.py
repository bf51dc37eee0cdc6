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
loaded once per process, word weights are cached, each distinct sentence is split, compacted,
trimmed and scored once (memos keyed by the sentence and the speakers, the only things those
results depend on: a day's lines are read again by its interactions' summaries), at most
pool_targets targets' worth of the best sentences are considered (a burst day's thousand lines
are never all embedded), of those only the ones about to be chosen are embedded (summaryselect,
_Repeats), and a candidate whose concepts are all covered leaves the selection. The factors
named in lower case above are fields of the settings passed in (tuning.OfflineSettings).

The steps run as SUMMARY_PASSES, named passes `(doc, settings) -> doc` over one SummaryDoc
(passes.py): read_turns (1, 2), compact_sentences (1), score_rarity (3-5, each sentence
alone), weigh_priors (3, 5; the sentence rules are summaryrules.py's), drop_phatic (4),
pool_best, date_relative, choose_within_budget (6, summaryselect.py) and write_form (7).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date

from consolidator.domain import chars_within, estimate_tokens
from consolidator.model.offline.lexicon import Lexicon, base_form
from consolidator.model.offline.passes import Pass, run_passes
from consolidator.model.offline.reldates import resolve_relative_dates
from consolidator.model.offline.summaryform import Turn, parse_turns, render
from consolidator.model.offline.summaryrules import (  # noqa: F401  (the rules' names, read here by tests)
    answers_asked, fact_prior, is_phatic, not_a_person, prior_features, prior_of, replies, shown_photos, speakers_of,
)
from consolidator.model.offline.summaryselect import Candidate, best_pool, select, written
from consolidator.model.offline.text import stem, truncate_words
from consolidator.model.offline.text_compact import compact
from consolidator.model.offline.text_cut import ELLIPSIS, TOKEN, shorten, trim_edges
from consolidator.model.offline.tuning import DEFAULTS, OfflineSettings

__all__ = ["ELLIPSIS", "SUMMARY_PASSES", "SummaryDoc", "extractive_summary", "fallback_days", "target_chars"]

_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass
class Sentence:
    """A distinct sentence of the inputs as the summary would write it (step 1), with its words
    and what scoring it found (score_rarity)."""

    turn: int  # index of its turn
    text: str  # compacted and trimmed
    tokens: list[str]
    concepts: dict[str, float] = field(default_factory=dict)  # stem -> its rarity (step 3, before df); read only
    phatic: bool = False  # step 4
    features: tuple[bool, ...] = ()  # what its prior weighs (summaryrules.prior_features)


class Memo(dict):
    """A cache of a pure function's results, cleared whole when full. Each sentence is compacted
    and scored once, not once per summary reading it: a day's lines are read by the day and by
    its interactions' summaries, a chosen sentence again by the rung above."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key, value):
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


# (sentence, speakers, compacting) -> (trimmed text, its dedupe key, its tokens); (text, speakers) -> scores. The reuse
# is mostly within a tick (a day and its interactions), so 4,096 sentences keep nearly every hit of a
# recorded ladder year (71,377 misses against 71,098 with 32,768) for 34 MB less peak memory.
_TRIMMED = Memo(1 << 12)
_SCORED = Memo(1 << 12)
_WORD = Memo(1 << 15)  # a scored word -> (its stem, its rarity): both depend on the word alone


@dataclass
class SummaryDoc:
    """What the summary passes share: the request, then what each pass found (SUMMARY_PASSES)."""

    texts: list[str]
    budget_tokens: int
    days: list[date | None] | None = None
    turns: list[Turn] = field(default_factory=list)  # read_turns
    target: int = 0  # read_turns: the most characters the summary may write
    lexicon: Lexicon = field(default_factory=lambda: Lexicon(set()))  # read_turns: the speakers' names unscored
    sentences: list[Sentence] = field(default_factory=list)  # compact_sentences, score_rarity
    candidates: list[Candidate] = field(default_factory=list)  # weigh_priors, then narrowed
    chosen: list[Candidate] = field(default_factory=list)  # choose_within_budget, in input order
    text: str = ""  # write_form: the summary


def target_chars(input_chars: int, budget_tokens: int, settings: OfflineSettings = DEFAULTS) -> int:
    """The most characters a summary of `input_chars` (in the summary form) may write."""
    return min(chars_within(budget_tokens), max(settings.min_target, -(-input_chars // settings.compression)))


# --- the passes, in their order ------------------------------------------------------------


def read_turns(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Steps 1-2: the inputs' turns, the target length, the lexicon without the speakers' names."""
    doc.turns = parse_turns(doc.texts, doc.days)
    if doc.turns:
        doc.target = target_chars(len(render([(t, s) for t in doc.turns for s in t.sentences])), doc.budget_tokens,
                                  settings)
        doc.lexicon = Lexicon(speakers_of(doc.turns))
    return doc


def compact_sentences(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Step 1: every sentence compacted and its edge filler trimmed; exact repeats kept once."""
    lexicon = doc.lexicon
    speakers = frozenset(lexicon.speakers)

    def filler(clause: str) -> bool:
        return is_phatic(clause, lexicon.scored(TOKEN.findall(clause)))

    seen: set[tuple[str, ...]] = set()
    for n, turn in enumerate(doc.turns):
        for sentence in turn.sentences:
            known = _TRIMMED.get(memo_key := (sentence, speakers, settings.compact_sentences))
            if known is None:
                s = trim_edges(compact(sentence) if settings.compact_sentences else sentence, filler)
                tokens = TOKEN.findall(s)  # shared by every Sentence of this text: read only
                known = _TRIMMED.keep(memo_key, (s, tuple(base_form(t) for t in tokens) or (s.lower(),), tokens))
            s, key, tokens = known
            if key not in seen:
                seen.add(key)
                doc.sentences.append(Sentence(n, s, tokens))
    return doc


def score_rarity(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Steps 3-5 for each sentence alone: its concepts by stem, worth their rarity (max over the
    stem's words); whether it is phatic; what its prior weighs."""
    lexicon = doc.lexicon
    speakers = frozenset(lexicon.speakers)
    for item in doc.sentences:
        known = _SCORED.get(memo_key := (item.text, speakers))
        if known is None:
            scored = lexicon.scored(item.tokens)
            concepts: dict[str, float] = {}
            for w in scored:
                known_word = _WORD.get(w)
                if known_word is None:
                    known_word = _WORD.keep(w, (stem(w), lexicon.weight(w)))
                k, weight = known_word
                concepts[k] = max(concepts.get(k, 0.0), weight)
            known = _SCORED.keep(memo_key, (concepts, is_phatic(item.text, scored),
                                            prior_features(item.text, item.tokens, lexicon)))
        item.concepts, item.phatic, item.features = known
    return doc


def weigh_priors(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Steps 3 and 5: candidates whose concepts weigh more the more sentences use them, and
    whose prior says how likely they state a fact (answers, photos shown, the agent's half)."""
    df: dict[str, int] = {}
    for item in doc.sentences:
        for k in item.concepts:
            df[k] = df.get(k, 0) + 1
    items = [(s.turn, s.text, s.tokens, s.concepts) for s in doc.sentences]
    sentences = doc.sentences
    answering = replies(doc.turns)
    shown = shown_photos(doc.turns, items)
    echoes = answers_asked(items, answering)
    boost = {k: 1.0 + settings.df_boost * math.log(used) for k, used in df.items()}
    for pos, (n, s, tokens, concepts) in enumerate(items):
        worth = {k: w * boost[k] for k, w in concepts.items()}
        prior = prior_of(sentences[pos].features, settings) * (settings.answer_boost if answering[n] else 1.0)
        prior *= settings.echo_boost if pos in echoes else 1.0
        prior *= settings.shown_boost if pos in shown else 1.0
        prior *= settings.agent_weight if not_a_person(doc.turns[n].speaker) else 1.0
        doc.candidates.append(Candidate(pos, n, s, prior, worth, sentences[pos].phatic))
    return doc


def drop_phatic(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Step 4: phatic sentences go, unless every sentence is phatic."""
    if not all(c.phatic for c in doc.candidates):
        doc.candidates = [c for c in doc.candidates if not c.phatic]
    return doc


def pool_best(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """The most relevant candidates, pool_targets targets' worth: all the selection could reach."""
    doc.candidates = best_pool(doc.candidates, doc.target, settings)
    return doc


def date_relative(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Relative dates written out against the day they were said on; such a sentence is placed
    in time, x dated_boost."""
    for c in doc.candidates:
        dated = resolve_relative_dates(c.text, doc.turns[c.turn].day)
        if dated != c.text:
            c.text, c.prior = dated, c.prior * settings.dated_boost
    return doc


def choose_within_budget(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Step 6: budgeted coverage (summaryselect.select)."""
    if doc.candidates:
        doc.chosen = select(doc.candidates, doc.turns, doc.target, doc.lexicon, settings)
    return doc


def write_form(doc: SummaryDoc, settings: OfflineSettings) -> SummaryDoc:
    """Step 7: the chosen sentences in the summary form; when not even one fits with its header,
    the best one, cut, alone; never more than the target or the budget."""
    if not doc.candidates:
        doc.text = ""
    elif not doc.chosen:
        best = max(doc.candidates, key=lambda c: (c.relevance, -c.position))
        doc.text = shorten(best.text, doc.target, doc.lexicon)
    else:
        out = written(doc.chosen, doc.turns)
        fits = len(out) <= doc.target and estimate_tokens(out) <= doc.budget_tokens
        doc.text = out if fits else truncate_words(out, doc.target)
    return doc


SUMMARY_PASSES: tuple[Pass, ...] = (
    read_turns, compact_sentences, score_rarity, weigh_priors, drop_phatic, pool_best, date_relative,
    choose_within_budget, write_form,
)


def extractive_summary(texts: list[str], budget_tokens: int, days: list[date | None] | None = None,
                       settings: OfflineSettings = DEFAULTS, passes: tuple[Pass, ...] = SUMMARY_PASSES) -> str:
    """The summary of `texts` within `budget_tokens` and a third of their size (module docstring).

    `days[i]` is the local date of `texts[i]` where its lines carry no date of their own (a
    day's label), for resolving relative dates; None leaves them as they are. `passes` are
    run in order over one SummaryDoc (SUMMARY_PASSES unless a caller swaps one).
    """
    return run_passes(SummaryDoc(texts, budget_tokens, days), settings, passes).text


def _candidates(turns: list[Turn], lexicon: Lexicon, settings: OfflineSettings) -> list[Candidate]:
    """Every distinct sentence of `turns` with its prior and concepts' worth (the passes that
    make the candidates, phatic ones included)."""
    doc = SummaryDoc([], 0, turns=turns, lexicon=lexicon)
    return run_passes(doc, settings, (compact_sentences, score_rarity, weigh_priors)).candidates


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
