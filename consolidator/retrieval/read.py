"""`recall(scope, query)`: what the planner needs now, within a token budget, with no model call.

Reads the scope's recall index (a snapshot file the daemon keeps, stores/files/recall_index.py) and
nothing else: no database, no network, no tokenizer. Per call: the query's words go to FTS5
(BM25; a word no item holds as two words items do, `_Handle.searchable`), its vector (from the
index's word table, and for a word the scope never used from the common-words table beside the
scopes) to one matrix product over the cached item vectors; the pool is ranked
(consolidator.retrieval.rank) and filled best first (consolidator.retrieval.render). A process
keeps one open connection and one vector matrix per index, and catches up with what the daemon
changed since (rows added, rows dropped).

A scope with no index yet (never drained) is answered from the message log itself, lexically,
and the result says so (`Recall.source == "log"`); that path opens the database.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo

import numpy as np

from consolidator.domain import STOPWORDS, estimate_tokens

from consolidator.retrieval.tables import table_fact_ids
from consolidator.retrieval import rank as ranking
from consolidator.retrieval.render import fill, local, tag_of
from consolidator.retrieval.terms import asks_todo, content_stems, fts_query, query_words, stem
from consolidator.retrieval.vectors import DIM, decode, lookup_forms, text_vector, words_of
from consolidator.retrieval.when import QueryTime, understand
from consolidator.snapshots.reader import snapshot_root
from stores.files import recall_index as index
from stores.files.common_words import common_words_path, open_common_words
from stores.scopes import validate_scope

MIN_BUDGET, MAX_BUDGET = 50, 100_000
MAX_QUERY_CHARS = 4_000
ROW_CACHE = 50_000  # rows a process keeps per index
MIN_PART = 4  # a compound is split into parts of at least this many letters ("mentorship" is no "mentors hip")
MAX_COMPOUND = 24  # a longer word is not split (each split tried costs a count of two words)
MATCHED_ROWS = 4_000  # items BM25 scores per query at most (about 5 ms on one core)
DENSE_ROWS = 32_768  # the newest items compared by vector (about 3 ms); older ones are found by their words


@dataclass(frozen=True)
class RecallItem:
    kind: str  # fact | contact | task | summary | message
    id: str  # the store's id: a fact id, a message's stored id, ladder/rung/key, a contact or task number
    tag: str  # as the block shows it
    text: str  # what the block shows (a long item cut to its matching sentences)
    time: str | None  # ISO, in the scope's zone: when it was said, or a window's start
    end: str | None  # a window's end, or when a fact stopped being current
    score: float
    sources: list[str] = field(default_factory=list)
    status: str = ""  # fact: current | history; task: open | done ...
    ladder: str | None = None
    rung: str | None = None
    label: str | None = None
    brought_by: str | None = None  # the item whose source turn this is


@dataclass(frozen=True)
class Recall:
    scope: str
    query: str
    text: str  # the block to paste, within budget_tokens
    items: list[RecallItem]
    budget_tokens: int
    tokens: int
    source: str  # "index", or "log" when the scope has no recall index yet
    note: str = ""
    indexed_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Handle:
    """One index file's open connection and cached vectors, refreshed by generation."""

    def __init__(self, path: Path, conn, inode: int) -> None:
        self.path, self.conn, self.inode = path, conn, inode
        self.lock = threading.Lock()
        self.generation = -1
        self.numbers = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, DIM), dtype=np.float32)
        self.position: dict[int, int] = {}
        self.meta: dict[str, str] = {}
        self.rows: dict[int, index.Row] = {}  # a row number always names the same content
        self.by_id: dict[str, index.Row | None] = {}  # cleared whenever the index changes
        self.lines: dict[int, list] = {}  # render.line_for's per-row parts
        self.df: dict[str, int] = {}  # items matching each search word (counted while the index grew < 5%)
        self.span = (0, 0)  # lowest and highest row number

    def rows_by_number(self, numbers: set[int]) -> dict[int, index.Row]:
        missing = [n for n in numbers if n not in self.rows]
        if missing:
            if len(self.rows) > ROW_CACHE:
                self.rows.clear()
                self.lines.clear()
            self.rows.update(index.rows_by_number(self.conn, missing))
        return {n: self.rows[n] for n in numbers if n in self.rows}

    def count(self, word: str) -> int:
        """How many items hold `word` (FTS5, the porter stem), counted once per index state."""
        if word not in self.df:
            self.df[word] = index.matching(self.conn, fts_query([word]))
        return self.df[word]

    def searchable(self, words: list[str]) -> list[str]:
        """`words`, a word no item holds split into two that items do ("roadtrips" -> "road",
        "trips"; "selfcare" -> "self", "care"): a compound written as one word in the question
        and as two in the memory. The split with the longer first part wins."""
        out: list[str] = []
        for word in words:
            if not 2 * MIN_PART <= len(word) <= MAX_COMPOUND or not word.isalpha() or self.count(word):
                out.append(word)
                continue
            parts = next(([a, b] for i in range(len(word) - MIN_PART, MIN_PART - 1, -1)
                          if (a := word[:i]) not in STOPWORDS and (b := word[i:]) not in STOPWORDS
                          and self.count(a) and self.count(b)), [word])
            out += [p for p in parts if p not in out]
        return out

    def lexical(self, words: list[str], limit: int, context_weight: float,
                window: tuple[float, float] | None = None) -> list[tuple[int, float]]:
        """BM25 over the words whose rows, together, stay within MATCHED_ROWS (rarest first): a
        word in most items weighs next to nothing in BM25 yet costs a score per item. When even
        the rarest is past that, only the newest items are ranked (a rowid bound FTS5 seeks to)."""
        if not words:
            return []
        for word in words:
            self.count(word)
        chosen, total = [], 0
        for word in sorted((w for w in words if self.df[w]), key=lambda w: self.df[w]):
            if chosen and total + self.df[word] > MATCHED_ROWS:
                break
            chosen.append(word)
            total += self.df[word]
        if not chosen:
            return []
        if window is not None:  # the period's best matches (the words chosen as for the whole index)
            return index.lexical_between(self.conn, fts_query(chosen), limit, *window, context_weight)
        from_row = 0
        if total > MATCHED_ROWS:
            low, high = self.span
            from_row = int(high - (high - low) * MATCHED_ROWS / total)
        return index.lexical(self.conn, fts_query(chosen), limit, from_row, context_weight)

    def turns(self, ids: list[str]) -> dict[str, index.Row]:
        """The message items with these ids ("msg:..."), for the source turns an item may bring."""
        missing = [i for i in ids if i not in self.by_id]
        if missing:
            if len(self.by_id) > ROW_CACHE:
                self.by_id.clear()
            self.by_id.update(index.rows_by_id(self.conn, missing))
            self.by_id.update({i: None for i in missing if i not in self.by_id})
        return {i: self.by_id[i] for i in ids if self.by_id.get(i) is not None}

    def refresh(self) -> None:
        gen = index.generation(self.conn)
        if gen == self.generation:
            return
        gone = index.dropped_after(self.conn, self.generation) if self.generation >= 0 else []
        if gone:
            keep = np.ones(len(self.numbers), dtype=bool)
            for n in gone:
                pos = self.position.get(n)
                if pos is not None:
                    keep[pos] = False
            self.numbers, self.matrix = self.numbers[keep], self.matrix[keep]
        # Only the newest DENSE_ROWS rows are compared by vector, so only they are loaded.
        top = int(self.numbers[-1]) if len(self.numbers) else index.nth_newest(self.conn, DENSE_ROWS) - 1
        new_numbers, new_rows = [], []
        for n, blob in index.vectors_after(self.conn, top):
            row = decode(blob)
            new_numbers.append(n)
            new_rows.append(row if row is not None else np.zeros(DIM, dtype=np.float32))
        if new_numbers:
            self.numbers = np.concatenate([self.numbers, np.asarray(new_numbers, dtype=np.int64)])
            self.matrix = np.vstack([self.matrix, np.asarray(new_rows, dtype=np.float32)])
        if len(self.numbers) > DENSE_ROWS:
            self.numbers, self.matrix = self.numbers[-DENSE_ROWS:], self.matrix[-DENSE_ROWS:]
        if gone or new_numbers:
            self.position = {int(n): i for i, n in enumerate(self.numbers)}
        meta = index.read_meta(self.conn)
        if meta.get("timezone") != self.meta.get("timezone"):
            self.lines.clear()
        self.meta = meta
        self.by_id.clear()
        span = index.row_span(self.conn)
        if span[1] - span[0] > 1.05 * (self.span[1] - self.span[0]) + 100:
            self.df.clear()  # word counts drift slowly: they only choose which words BM25 scores
        else:
            self.df = {word: count for word, count in self.df.items() if count}  # a word not seen may be now
        self.span = span
        self.generation = gen


_HANDLES: dict[Path, _Handle] = {}
_HANDLES_LOCK = threading.Lock()


def _handle(path: Path) -> _Handle | None:
    try:
        inode = os.stat(path).st_ino
    except FileNotFoundError:
        with _HANDLES_LOCK:
            old = _HANDLES.pop(path, None)
        if old is not None:
            old.conn.close()
        return None
    with _HANDLES_LOCK:
        handle = _HANDLES.get(path)
        if handle is not None and handle.inode == inode:
            return handle
        if handle is not None:
            handle.conn.close()
        conn = index.open_for_read(path)
        if conn is None:
            return None
        handle = _HANDLES[path] = _Handle(path, conn, inode)
        return handle


_COMMON: dict[Path, tuple[int, Any]] = {}  # the common-words table's path -> (inode, read-only connection)
_COMMON_LOCK = threading.Lock()


def _common_words(path: Path) -> Any | None:
    """The common-words table's connection, kept per process, reopened when the file was replaced."""
    try:
        inode = os.stat(path).st_ino
    except FileNotFoundError:
        return None
    with _COMMON_LOCK:
        held = _COMMON.get(path)
        if held is not None and held[0] == inode:
            return held[1]
        if held is not None:
            held[1].close()
        conn = open_common_words(path)
        if conn is None:
            _COMMON.pop(path, None)
            return None
        _COMMON[path] = (inode, conn)
        return conn


def check_request(scope: str, query: str, budget_tokens: int) -> str:
    """The query, stripped, or a ValueError naming the bad argument."""
    validate_scope(scope)
    if not isinstance(query, str) or not query.strip():
        raise ValueError("recall: the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"recall: the query is {len(query)} characters, at most {MAX_QUERY_CHARS}")
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or not (
            MIN_BUDGET <= budget_tokens <= MAX_BUDGET):
        raise ValueError(f"recall: budget_tokens must be an integer from {MIN_BUDGET} to {MAX_BUDGET}, "
                         f"got {budget_tokens!r}")
    return query.strip()


def recall(scope: str, query: str, *, budget_tokens: int = 1000, config: Any = None, now: datetime | None = None,
           settings: ranking.RankSettings | None = None, table: str | None = None) -> Recall:
    """What the scope's memory holds for `query`, within `budget_tokens` (see the module docstring);
    `table`: only the facts of that topic table (docs/tables.md), from a wider pool.

    Raises ValueError for an empty query, a budget outside 50-100,000 tokens, an invalid scope,
    a scope nothing is logged under, or a table the scope has not. Reads only; writes nothing."""
    query = check_request(scope, query, budget_tokens)
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        raise ValueError("recall: now must be timezone-aware")
    settings = settings or ranking.RankSettings()
    path = index.index_path(snapshot_root(config) / scope)
    only = table_fact_ids(snapshot_root(config) / scope, table) if table is not None else None
    handle = _handle(path)
    if handle is None and only is not None:
        raise ValueError(f"recall: no recall index for scope {scope} yet; a table can be asked once the daemon built it")
    if handle is None:
        from consolidator.retrieval.fromlog import recall_from_log

        return recall_from_log(scope, query, budget_tokens, config, now, settings)
    with handle.lock:
        handle.conn.execute("BEGIN")
        try:
            handle.refresh()
            qt = understand(query, now, ZoneInfo(handle.meta.get("timezone") or "UTC"))
            pool = _pool(handle, qt.search_text(query), budget_tokens if only is None else MAX_BUDGET, settings, qt.window,
                         cards=not qt.asks_when, common=common_words_path(snapshot_root(config)), todo=asks_todo(query))
            if only is not None:
                pool = [c for c in pool if c.row.kind == "fact" and c.row.id.partition(":")[2] in only]
            return answer(scope, query, budget_tokens, now, settings, pool, handle.turns, handle.meta,
                          source="index", cache=handle.lines, qt=qt)
        finally:
            handle.conn.execute("COMMIT")


def asked_about(query: str) -> frozenset[str]:
    """The query's capitalised words, lower-cased, less a possessive "'s": who it may name."""
    return frozenset(w.lower().removesuffix("'s").removesuffix("\u2019s") for w in words_of(query) if w[:1].isupper())


def _pool(handle: _Handle, query: str, budget: int, settings: ranking.RankSettings,
          window: tuple[float, float] | None = None, cards: bool = True,
          common: Path | None = None, todo: bool | None = None) -> list[ranking.Candidate]:
    """The candidates (lexical and dense), with their scores. A period the query names adds the
    best lexical matches inside it (they may rank below the pool's cut over all time) or, for a
    query that names only a period, the period's items (summaries first) at a base relevance.
    With `cards`, the card of each person the query names at the card floor. A query word the
    index never saw takes its vector from the `common` words table, when there is one."""
    conn = handle.conn
    n_lexical, n_dense = ranking.pool_sizes(budget, settings)
    asked = query_words(query)
    words = handle.searchable(asked)
    lexical = dict(handle.lexical(words, n_lexical, settings.context_weight))
    base: dict[int, float] = {}
    noted: list[int] = []
    if window is not None:
        if words:
            inside = handle.lexical(words, n_lexical, settings.context_weight, window)
            for n, s in inside:
                lexical[n] = max(lexical.get(n, 0.0), s)
        else:
            base = {n: settings.period_only_relevance for n in index.between(conn, *window, n_lexical)}
        # a fact that notes a day of the period ("Maya's flight is on Friday (2025-12-05)"): a plan
        noted = [n for n, t in index.noted_in(conn, ranking.noted_patterns(window), n_lexical) if ranking.noted_within(t, window)]
        base |= {n: max(base.get(n, 0.0), settings.period_only_relevance) for n in noted if not words}
    # "What is Ana's relationship status?": Ana's card, whatever its words; not for "when ...?",
    # which asks for a date a card's details do not hold (as the when boost favours dated items).
    if cards and settings.card_relevance > 0:
        for n in index.cards_named(conn, asked):  # any case: "what is ana's job?"
            base[n] = max(base.get(n, 0.0), settings.card_relevance)
    if settings.task_relevance > 0 and (asks_todo(query) if todo is None else todo):  # "what do I need to do?"
        for n in index.open_tasks(conn, n_lexical):
            base[n] = max(base.get(n, 0.0), settings.task_relevance)
    dense: dict[int, float] = {}
    qwords = words_of(query) if words or window is None else []  # "anything tomorrow?": the period's, or nothing
    table = index.known_words(conn, [f for w in qwords for f in lookup_forms(w)])
    unseen = [form for w in qwords if not table.keys() & set(lookup_forms(w)) for form in lookup_forms(w)]
    if unseen and common is not None and (words := _common_words(common)) is not None:
        with _COMMON_LOCK:
            table.update(index.known_words(words, unseen))  # "family", asked of a scope that said "my sister"
    qvec = text_vector(qwords, table) if table else None
    if qvec is not None and len(handle.numbers):
        scores = handle.matrix @ qvec  # the newest DENSE_ROWS rows
        k = min(n_dense, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        dense = {int(handle.numbers[i]): float(scores[i]) for i in top}
        older = []
        for n in [*lexical, *noted]:  # the lexical and noted candidates' cosines too, so both scales cover the pool
            pos = handle.position.get(n)
            if pos is not None:
                dense.setdefault(n, float(scores[pos]))
            else:
                older.append(n)
        for n, blob in index.vectors_of(conn, older):
            row = decode(blob)
            if row is not None:
                dense[n] = float(row @ qvec)
    rows = handle.rows_by_number(set(lexical) | set(dense) | set(base) | set(noted))
    return [ranking.Candidate(row, lexical.get(n, 0.0), dense.get(n, 0.0), base.get(n, 0.0))
            for n, row in rows.items()]


def answer(scope: str, query: str, budget: int, now: datetime, settings: ranking.RankSettings,
           pool: list[ranking.Candidate], turns: Callable[[list[str]], dict[str, index.Row]], meta: dict[str, str],
           source: str, note: str = "", cache: dict | None = None, qt: QueryTime | None = None) -> Recall:
    """Rank the pool and fill the budget: the part of `recall` that does not read the index."""
    zone = ZoneInfo(meta.get("timezone") or "UTC")
    qt = qt or understand(query, now, zone)
    ranked = ranking.score(pool, qt, now.timestamp(), settings, asked_about(query))
    header = f"## Memory recall ({scope}; times {zone.key})"
    terms = frozenset(stem(w) for w in query_words(qt.search_text(query)))
    lines, shown = fill(ranked, budget, scope, zone, content_stems(qt.search_text(query)), turns, settings, header=header,
                        cache=cache, terms=terms)
    if len(lines) == 1:
        lines.append("- nothing found")
    text = "".join(f"{line}\n" for line in lines)
    if len(text) > budget * 4:  # cannot happen: each line was costed, rounded up
        raise AssertionError(f"recall block of {len(text)} characters over a budget of {budget} tokens")
    items = []
    for s in shown:
        row = s.candidate.row
        start, end = local(row.at, zone), local(row.until, zone)
        kind, _, ref = row.id.partition(":")
        items.append(RecallItem(
            kind=row.kind, id=ref, tag=tag_of(row, scope), text=s.shown,
            time=start.isoformat() if start else None, end=end.isoformat() if end else None,
            score=round(s.candidate.score, 6), sources=list(row.sources), status=row.status,
            ladder=row.ladder, rung=row.rung, label=row.label,
            brought_by=s.brought_by.partition(":")[2] if s.brought_by else None))
    return Recall(scope=scope, query=query, text=text, items=items, budget_tokens=budget,
                  tokens=estimate_tokens(text), source=source, note=note, indexed_at=meta.get("updated_at"))
