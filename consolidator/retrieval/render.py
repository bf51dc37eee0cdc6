"""The recall block: ranked candidates as dated, tagged lines, filled best-first within a token budget.

Lines, one per item (times in the scope's zone; the tag is what a planner passes back, e.g. a
fact id to `mark_used`):

    - 2024-05-07 fact: Maya works at Acme. [f_1a2b…]
    - 2023-01-02..2024-05-07 no longer current: Maya works at Initech. [f_9c8d…]
    - 2024-05-07 14:03 Maya: I start at Acme on Monday! [chat-17:0003]
    - 2024-05-07 (Tue) day summary: … [time/day/2024-05-07]
    - person Maya (aka May): … [contact:3]
    - task (open): Book the dentist [#12]

An item longer than `long_item_tokens` shows only its sentences that carry the most query words
and, room allowing, the sentence after each (in their order, joined by " … "). Each line is costed with its newline, rounded up per line, so
the sum of the lines bounds the block: it never exceeds the budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable
from datetime import datetime, timezone, tzinfo

from consolidator.domain import chars_within, estimate_tokens
from consolidator.retrieval.rank import (
    Candidate, RankSettings, coverage_gain, item_tokens, missing_weights, redundant, subject_of, term_weights,
)
from consolidator.retrieval.terms import content_stems
from stores.files.recall_index import Row

MIN_LINE = 8  # tokens: a line with less room than this is not tried
MAX_MISFITS = 25  # candidates in a row that do not fit the room left: the fill stops
LOOK_AHEAD = 40  # candidates the coverage rule may move ahead of the next one
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
_RUNG_NAMES = {"day": "day summary", "week": "week summary"}


def cost(line: str) -> int:
    return estimate_tokens(line + "\n")


@dataclass
class Shown:
    """One chosen item: its candidate, the text shown and the line."""

    candidate: Candidate
    shown: str
    line: str
    brought_by: str | None = None  # the item whose source turn this is


def local(ts: float | None, zone: tzinfo) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc).astimezone(zone)


def tag_of(row: Row, scope: str) -> str:
    kind, _, ref = row.id.partition(":")
    if kind == "msg":
        return ref[len(scope) + 1:] if ref.startswith(f"{scope}:") else ref
    if kind == "task":
        return f"#{ref}"
    if kind == "contact":
        return row.id
    return ref


def head_of(row: Row, zone: tzinfo) -> str:
    """What precedes the text: its date (or window) and kind."""
    at, until = local(row.at, zone), local(row.until, zone)
    if row.kind == "message":
        return f"{at:%Y-%m-%d %H:%M}" if at else ""
    if row.kind == "fact":
        if row.status == "history":
            span = f"{at:%Y-%m-%d}..{until:%Y-%m-%d}" if at and until else ""
            return f"{span} no longer current:".strip()
        return f"{at:%Y-%m-%d} fact:" if at else "fact:"
    if row.kind == "summary":
        name = _RUNG_NAMES.get(row.rung or "", f"{row.ladder}/{row.rung} summary")
        return f"{row.label} {name}:" if row.label else f"{name}:"
    if row.kind == "contact":
        return "person"
    if row.kind == "task":
        return f"task ({row.status}{', due ' + row.label if row.label else ''}):"
    return ""


def sentences_of(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """A text's sentences (lines first), each flattened, with its content stems."""
    out = []
    for piece in _SENTENCE.split(text):
        flat = " ".join(piece.split())
        if flat:
            out.append((flat, content_stems(flat)))
    return tuple(out)


def excerpt(sentences: tuple[tuple[str, frozenset[str]], ...], query: frozenset[str], max_tokens: int,
            whole: bool = False) -> str:
    """The sentences with the most query words, then the sentence after each as room allows, in
    their order, within `max_tokens` (the best one cut at a word when even it does not fit).
    `whole`: then as many of the others as fit (a contact card: each of its sentences is a detail
    of the person asked about)."""
    scored = sorted(range(len(sentences)), key=lambda i: (-len(sentences[i][1] & query), i))
    room = chars_within(max_tokens)
    chosen: list[int] = []
    used = 0
    for i in scored:
        piece, stems = sentences[i]
        if chosen and not stems & query and not whole:
            break
        extra = len(piece) + (3 if chosen else 0)
        if used + extra <= room:
            chosen.append(i)
            used += extra
        elif not chosen:
            cut = piece[: max(0, room - 1)]
            cut = cut[: cut.rfind(" ")] if " " in cut else cut
            return f"{cut}…" if cut else ""
    # The sentence after each one chosen, best first, as room allows: a turn often sets the scene in
    # the words a question repeats and says what happened in the next ("I went to a council
    # meeting. So many people wanted to adopt.").
    for i in list(chosen):
        if i + 1 < len(sentences) and i + 1 not in chosen:
            extra = len(sentences[i + 1][0]) + 3
            if used + extra <= room:
                chosen.append(i + 1)
                used += extra
    return " … ".join(sentences[i][0] for i in sorted(chosen))


def line_for(c: Candidate, scope: str, zone: tzinfo, query: frozenset[str], max_tokens: int,
             cache: dict | None = None) -> tuple[str, str]:
    """(shown text, line) of a candidate within `max_tokens` for the text part. `cache` keeps each
    row's head, tag, flattened text and sentences across calls (a row number always names the
    same row)."""
    row = c.row
    parts = cache.get(row.n) if cache is not None else None
    if parts is None:
        head = head_of(row, zone)
        flat = " ".join(row.text.split())
        parts = [f"- {head + ' ' if head else ''}", f" [{tag_of(row, scope)}]", flat, estimate_tokens(flat), None]
        if cache is not None:
            cache[row.n] = parts
    prefix, suffix, flat, tokens, sentences = parts
    if tokens <= max_tokens:
        return flat, f"{prefix}{flat}{suffix}"
    who = speaker_prefix(row)
    if sentences is None:
        sentences = parts[4] = sentences_of(row.text[len(who):])
    # The item's own subject (a contact's name, a turn's speaker) is in most of its sentences: a
    # query naming that person says nothing about which sentence answers.
    shown = excerpt(sentences, query - content_stems(subject_of(row)), max_tokens - estimate_tokens(who),
                    whole=row.kind == "contact")
    shown = f"{who}{shown}" if shown else ""
    return shown, f"{prefix}{shown}{suffix}"


def speaker_prefix(row: Row) -> str:
    """A message's "Speaker: " opening, a contact card's "Name (aka ...): ": kept on an excerpt,
    but not scored as one of its sentences (the person a query names would otherwise pick the
    first sentence of every turn they said, and a card cut to its later details would lose whose
    they are)."""
    if row.kind == "contact" and row.label and row.text.startswith(row.label):
        end = row.text.find(": ")
        return row.text[:end + 2] if end >= 0 else ""
    if row.kind != "message" or not row.speaker:
        return ""
    head = f"{row.speaker}: "
    return head if row.text.startswith(head) else ""


def fill(ranked: list[Candidate], budget: int, scope: str, zone: tzinfo, query: frozenset[str],
         turns: Callable[[list[str]], dict[str, Row]], settings: RankSettings, header: str = "",
         cache: dict | None = None, terms: frozenset[str] | None = None) -> tuple[list[str], list[Shown]]:
    """Lines within `budget` tokens (the header included), best first; see the module docstring.

    `turns` gives the message rows of item ids ("msg:…"), for the source turns a fact, contact or
    summary may bring. `terms` (default: `query`) are the query's search terms for the coverage
    rule: the next item is the one with the best score x (1 + coverage_boost x the share of the
    terms' weight it adds to what is shown), found lazily (a score only falls as coverage grows)."""
    terms = query if terms is None else terms
    weights = term_weights(ranked, terms, content_stems) if settings.coverage_boost > 0 and terms else {}
    covered: set[str] = set()
    lines = [header] if header else []
    left = budget - sum(cost(line) for line in lines)
    shown: list[Shown] = []
    shown_stems: list[frozenset[str]] = []
    shown_ids: set[str] = set()
    queue: list[tuple[Candidate, str | None]] = [(c, None) for c in ranked]
    i = misfits = 0
    while i < len(queue) and left >= MIN_LINE and misfits < MAX_MISFITS:
        if weights and queue[i][1] is None:
            _pick(queue, i, covered, weights, settings.coverage_boost)
        c, brought_by = queue[i]
        i += 1
        if c.row.id in shown_ids:
            continue
        limit = item_tokens(c.row.kind, budget, settings)
        if brought_by is not None:
            limit = min(limit, settings.source_tokens)
        text, line = line_for(c, scope, zone, query, limit, cache)
        if not text:
            continue
        stems = content_stems(text)
        if redundant(stems, shown_stems, settings.redundant_share):
            continue
        if cost(line) > left:
            overhead = cost(line) - estimate_tokens(text)
            if left - overhead < MIN_LINE:
                misfits += 1
                continue
            text, line = line_for(c, scope, zone, query, left - overhead - 1, cache)
            if not text or cost(line) > left:
                misfits += 1
                continue
            stems = content_stems(text)
            if redundant(stems, shown_stems, settings.redundant_share):  # the cut kept only what is shown
                misfits += 1
                continue
        misfits = 0
        lines.append(line)
        left -= cost(line)
        shown.append(Shown(c, text, line, brought_by))
        shown_stems.append(stems)
        shown_ids.add(c.row.id)
        covered |= stems
        turn = _best_source(c, turns, shown_ids, query - stems)
        if turn is not None:
            queue.insert(i, (turn, c.row.id))
    return lines, shown


def _pick(queue: list[tuple[Candidate, str | None]], i: int, covered: set[str], weights: dict[str, float],
          boost: float) -> None:
    """Move to position i the candidate (of the next LOOK_AHEAD) whose score x (1 + boost x
    coverage gain) is best; ties keep the ranked order. Stops once no later score could win."""
    missing = missing_weights(weights, covered)
    if not missing:
        return
    best, best_value = i, -1.0
    for j in range(i, min(len(queue), i + LOOK_AHEAD)):
        c, brought_by = queue[j]
        if brought_by is not None:
            continue
        if c.score * (1.0 + boost) <= best_value:
            break
        value = c.score * (1.0 + boost * coverage_gain(content_stems(c.row.text), missing))
        if value > best_value:
            best, best_value = j, value
    if best != i:
        queue.insert(i, queue.pop(best))


def _best_source(c: Candidate, turns: Callable[[list[str]], dict[str, Row]], shown_ids: set[str],
                 missing: frozenset[str]) -> Candidate | None:
    """The source turn of a fact, contact or summary that holds the most query words the shown
    text lacks (None when none adds any); it is scored as the item that brings it."""
    if c.row.kind == "message" or not missing or c.row.sources_json in ("", "[]"):
        return None
    best, best_gain = None, 0
    for row in turns([f"msg:{ref}" for ref in c.row.sources]).values():
        if row.id in shown_ids:
            continue
        gain = len(content_stems(row.text) & missing)
        if gain > best_gain:
            best, best_gain = row, gain
    return Candidate(best, score=c.score) if best is not None else None
