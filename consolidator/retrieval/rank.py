"""Ranking for recall: pure functions of the candidates, the query and a frozen settings object.

The order of passes (each a small function):

1. relevance: lexical (FTS5's BM25, divided by the best candidate's) and dense (cosine of the
   static embeddings, above the candidates' median, divided by the best's), mixed
   `lexical_weight : 1 - lexical_weight`;
2. priors, multiplied in: importance (facts), recency (a mild boost that halves every
   `recency_half_life_days`), time (an item inside the period the query names, or any dated
   item of a fine rung when the query asks "when"), and history (a superseded fact counts less
   and is labelled, never shown as current);
3. the fill, best first (`fill`, in consolidator.retrieval.render): each item shown as a line,
   long ones cut to the sentences that carry the query's words; an item whose content words a
   shown item already holds is skipped; a fact or summary brings the source turn that adds the
   query's words it lacks, right after it, while the budget allows.
"""

from __future__ import annotations

import math
import re
from calendar import isleap
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from consolidator.domain import MONTHS
from consolidator.retrieval.terms import only_asks
from consolidator.retrieval.when import QueryTime
from stores.files.recall_index import Row

DAY_S = 86_400.0
FINE_RUNGS = frozenset({("time", "day"), ("count", "1")})


@dataclass(frozen=True)
class RankSettings:
    """Every weight of the ranking, in one place (tests build their own)."""

    lexical_weight: float = 0.7
    lexical_candidates: int = 30  # + one per `pool_tokens_per_candidate` tokens of budget
    dense_candidates: int = 15  # + half as many
    pool_tokens_per_candidate: int = 20
    importance_weight: float = 0.04  # x (1 + w (importance - 5)) for facts (importance 1-10)
    recency_boost: float = 0.15  # x (1 + b 2^(-age / half-life))
    recency_half_life_days: float = 30.0
    period_boost: float = 2.0  # inside the period the query names
    when_boost: float = 1.25  # a message, a fact or a day/interaction summary when the query asks "when"
    history_factor: float = 0.5  # a superseded fact
    asking_factor: float = 0.6  # a turn that only asks (terms.only_asks): it names the topic, says nothing of it
    speaker_boost: float = 1.15  # a message said by, or a fact or contact about, a person the query names
    period_only_relevance: float = 0.3  # an item of the period a query names when it names nothing else
    card_relevance: float = 0.3  # the card of a person the query names (the floor of an item a query names, as a period)
    task_relevance: float = 1.0  # an open task, when the query asks what is to be done (terms.asks_todo): the answer, first
    redundant_share: float = 0.8  # an item whose content words are this much in one shown item
    # The fill favours an item that brings query words no shown item has: x (1 + b gain), gain the
    # share of the query words' weight (rarer in the pool, heavier) still missing that it would add.
    coverage_boost: float = 0.5
    context_weight: float = 0.5  # a word found in a reply's preceding turn, against one in the reply
    # An item's text shows at most a share of the budget (within a floor and a ceiling); a longer
    # one is cut to its sentences with the most query words.
    item_share: float = 0.3
    item_tokens_floor: int = 40
    long_item_tokens: int = 70  # ceiling for summaries and contacts
    long_turn_tokens: int = 150  # ceiling for a message or a fact
    source_tokens: int = 60  # a brought source turn at most this long


@dataclass
class Candidate:
    row: Row
    lexical: float = 0.0
    dense: float = 0.0
    base: float = 0.0  # a relevance floor (an item of the period the query names, for a query of nothing else)
    relevance: float = 0.0
    score: float = 0.0


def _median(values: list[float]) -> float:
    """statistics.median without importing statistics (about 4 ms of a fresh process's first call)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0


def relevance(candidates: list[Candidate], settings: RankSettings) -> None:
    """Fuse the lexical and dense scores into `relevance` (both scaled to [0, 1] over the pool)."""
    if not candidates:
        return
    best_lex = max(c.lexical for c in candidates) or 1.0
    dense = [c.dense for c in candidates]
    floor = _median(dense) if dense else 0.0
    top = max(dense) - floor if dense else 0.0
    w = settings.lexical_weight
    for c in candidates:
        d = max(0.0, c.dense - floor) / top if top > 1e-9 else 0.0
        c.relevance = max(c.base, w * (c.lexical / best_lex) + (1.0 - w) * d)


_NOTED_DAY = re.compile(r"\((\d{4})-(\d{2})-(\d{2})\)")


def noted_within(text: str, window: tuple[float, float]) -> bool:
    """Whether `text` notes a day ("(2025-12-05)") inside the window: a fact's plan or event day,
    which its time (when it was said) is not. A day counts from its noon UTC, inside the scope's
    local day for any zone within twelve hours of UTC."""
    for y, m, d in _NOTED_DAY.findall(text):
        try:
            noon = datetime(int(y), int(m), int(d), 12, tzinfo=timezone.utc).timestamp()
        except ValueError:
            continue
        if window[0] <= noon < window[1]:
            return True
    return birthday_within(text, window)


_BIRTHDAY = re.compile(rf"\bbirthday: ({'|'.join(m.capitalize() for m in MONTHS)}) (\d{{1,2}})\.")


def birthday_within(text: str, window: tuple[float, float]) -> bool:
    """Whether a card's birthday ("birthday: December 5.") falls in the window, in any year of it
    (February 29 on the 28th in a year without it)."""
    first, last = (datetime.fromtimestamp(t, timezone.utc).year for t in window)
    for month, day in _BIRTHDAY.findall(text):
        number, day = MONTHS.index(month.lower()) + 1, int(day)
        for year in range(first, last + 1):
            try:
                on = date(year, number, 28 if (number, day) == (2, 29) and not isleap(year) else day)
            except ValueError:
                continue
            if window[0] <= datetime(on.year, on.month, on.day, 12, tzinfo=timezone.utc).timestamp() < window[1]:
                return True
    return False


def _due_noon(row: Row) -> float | None:
    """An open task's due day (its label) as its noon UTC, as `noted_within` counts a day; else None."""
    if row.kind != "task" or row.status != "open" or not row.label:
        return None
    try:
        return datetime.fromisoformat(row.label).replace(hour=12, tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None


def noted_patterns(window: tuple[float, float]) -> list[str]:
    """What a fact notes for a day of the window, as text to find ("2025-12-07)" for one day,
    "2025-12-" for a month the window holds whole): days where it covers part of a month, so a
    month's facts noting only the day they were said do not crowd out the plans of its later days."""
    def inside(d: date) -> bool:
        return window[0] <= datetime(d.year, d.month, d.day, 12, tzinfo=timezone.utc).timestamp() < window[1]

    day = datetime.fromtimestamp(window[0], timezone.utc).date() - timedelta(days=1)
    last = datetime.fromtimestamp(window[1], timezone.utc).date()
    out: list[str] = []
    while day <= last and len(out) < 64:
        month_end = (day.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        if day.day == 1 and inside(day) and inside(month_end):
            out.append(f"{day:%Y-%m}-")
            day = month_end + timedelta(days=1)
            continue
        if inside(day):
            out.append(f"{day:%Y-%m-%d})")
        day += timedelta(days=1)
    return out


def subject_of(row: Row) -> str:
    """Who an item is by or about, lower-cased: a message's speaker, a contact's name, a fact's
    first word (facts are written about their subject: "Maya works at ...")."""
    if row.kind == "message":
        return (row.speaker or "").lower()
    if row.kind == "contact":
        return (row.label or "").lower()
    if row.kind == "fact":
        head = row.text.split(" ", 1)[0]
        return head.rstrip(":,.").removesuffix("'s").lower() if head[:1].isupper() else ""
    return ""


def said_of(row: Row) -> str:
    """A message's words without its "Speaker: " opening."""
    head = f"{row.speaker}: " if row.speaker else ""
    return row.text[len(head):] if head and row.text.startswith(head) else row.text


def prior(row: Row, qt: QueryTime, now_s: float, settings: RankSettings, names: frozenset[str] = frozenset()
          ) -> float:
    """The multiplier of everything but relevance (see the module docstring); `names` are the
    query's words, lower-cased, to find the person it asks about."""
    factor = 1.0
    if names and subject_of(row) in names:
        factor *= settings.speaker_boost
    if row.kind == "message" and settings.asking_factor != 1.0 and only_asks(said_of(row)):
        factor *= settings.asking_factor
    if row.kind == "fact":
        factor *= 1.0 + settings.importance_weight * (min(10.0, max(1.0, row.importance)) - 5.0)
        if row.status == "history":
            factor *= settings.history_factor
    at = row.until if row.until is not None and row.kind == "summary" else row.at
    due = _due_noon(row)
    if at is not None and settings.recency_half_life_days > 0:
        # a task with a due day is as timely as its day is near: overdue or due today, the most
        age_days = max(0.0, (due - now_s) if due is not None else (now_s - at)) / DAY_S
        factor *= 1.0 + settings.recency_boost * math.pow(2.0, -age_days / settings.recency_half_life_days)
    window = qt.window
    if window is not None and row.at is not None:
        end = row.until if row.until is not None and row.kind == "summary" else row.at
        if due is not None:  # a task is of the period its due day is in, whenever it was opened
            inside = window[0] <= due < window[1]
        elif row.kind == "contact":  # a card's time is when the daemon last wrote it, which says nothing
            inside = birthday_within(row.text, window)  # of the person: only a birthday is of a period
        else:
            inside = row.at < window[1] and end >= window[0] or row.kind == "fact" and noted_within(row.text, window)
        if inside:
            factor *= settings.period_boost
    if qt.asks_when and (row.kind in ("message", "fact") or (row.ladder, row.rung) in FINE_RUNGS):
        factor *= settings.when_boost
    return factor


def score(candidates: list[Candidate], qt: QueryTime, now_s: float, settings: RankSettings,
          names: frozenset[str] = frozenset()) -> list[Candidate]:
    """Candidates with `score` set, best first (ties: the newer item, then the lower row number)."""
    relevance(candidates, settings)
    for c in candidates:
        c.score = c.relevance * prior(c.row, qt, now_s, settings, names)
    return sorted(candidates, key=lambda c: (-c.score, -(c.row.at or 0.0), c.row.n))


def redundant(stems: frozenset[str], shown: list[frozenset[str]], share: float) -> bool:
    """Whether `share` of these content words are already in one shown item."""
    if not stems:
        return True
    need = share * len(stems)
    return any(len(stems & other) >= need for other in shown if len(other) >= need)


def term_weights(candidates: list[Candidate], terms: frozenset[str], stems_of) -> dict[str, float]:
    """Each query term's weight, its inverse document frequency over the pool (BM25's form): a word
    in most of the pool (the person asked about) weighs next to nothing, a word few items hold
    weighs most. A term no candidate holds is left out: nothing can bring it."""
    counts = dict.fromkeys(terms, 0)
    for c in candidates:
        for term in stems_of(c.row.text) & terms:
            counts[term] += 1
    n = len(candidates)
    return {term: math.log(1.0 + (n - k + 0.5) / (k + 0.5)) for term, k in counts.items() if k}


def missing_weights(weights: dict[str, float], covered: set[str]) -> dict[str, float]:
    """The query terms no shown item holds yet, with their weights."""
    return {term: w for term, w in weights.items() if term not in covered}


def coverage_gain(stems: frozenset[str], missing: dict[str, float]) -> float:
    """The share of the missing terms' weight these stems would bring (0 to 1)."""
    total = sum(missing.values())
    if total <= 0:
        return 0.0
    return sum(missing[term] for term in stems & missing.keys()) / total


def item_tokens(kind: str, budget: int, settings: RankSettings) -> int:
    """The most tokens an item's text may show at this budget."""
    ceiling = settings.long_turn_tokens if kind in ("message", "fact") else settings.long_item_tokens
    return max(settings.item_tokens_floor, min(ceiling, int(budget * settings.item_share)))


def pool_sizes(budget: int, settings: RankSettings) -> tuple[int, int]:
    """How many lexical and dense candidates a budget warrants (a bigger budget shows more items)."""
    extra = budget // settings.pool_tokens_per_candidate
    return settings.lexical_candidates + extra, settings.dense_candidates + extra // 2
