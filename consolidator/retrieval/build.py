"""The recall stage: keeps each worked scope's recall index up to date, in proportion to what changed.

Run by the daemon for every scope it claims, after the snapshot stage (so the index holds
what the tick wrote). One update is one transaction of the index file, its watermarks
included, so a crash anywhere leaves the previous index whole and the next tick redoes the
update. What it reads:

- messages: those above the index's seq (the first update reads the whole log, archive
  included); raw messages are indexed as soon as they are logged and a tick works the scope,
  before any batch consolidates them. Archived messages stay in the index: it never drops a
  message, so `recall` reaches old turns with no archive read;
- facts, contacts, tasks: only when their snapshot view's version moved, and then only the
  rows updated since the last update (tasks: the open ones and the 50 last closed);
- summaries: those announced since the newest announcement the index saw, per ladder.

Each item's vector is built from the word table (consolidator.retrieval.vectors); the stage
embeds only words the index has never seen. Once per embedder it also writes the common-words
table beside the scopes (stores/files/common_words.py): English's COMMON_WORDS commonest words,
whose vectors a query takes for a word its scope never used.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import structlog

from consolidator.retrieval import items as make
from consolidator.retrieval.vectors import DIM, WORD, decode, encode_sum, words_of
from consolidator.core.app import App
from consolidator.core.faults import FaultBook
from consolidator.snapshots.stage import FAULT as SNAPSHOTS_FAULT
from stores.errors import StorageError
from stores import recall_sources as src
from stores.engine import reading
from stores.history import History
from stores.messages import scopes as scopes_with_messages
from stores.files.common_words import common_words_path, embedder_of, write_common_words
from stores.files.recall_index import IndexItem, Writer, checkpoint, index_path, known_words, open_for_write, read_meta
from stores.tasks import listed_tasks

log = structlog.get_logger()

LADDERS = ("time", "count")
FAULT = "recall"
MESSAGES_PER_READ = 5_000
OPEN_INDEXES = 64  # index connections a daemon keeps open
BIG_UPDATE = 2_000  # items: an update this large is checkpointed at once
COMMON_WORDS = 20_000  # wordfreq's commonest English words, given vectors for the words a scope never used
COMMON_FAULT = "recall-words"


def _utc(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


class WordVectors:
    """Vectors for items from the index's word table, embedding the words it lacks."""

    def __init__(self, embedder: Any | None) -> None:
        self.embedder = embedder if embedder is not None and hasattr(embedder, "word_sums") else None

    @property
    def name(self) -> str:
        return f"wordllama-{DIM}" if self.embedder is not None else "none"

    def attach(self, writer: Writer, found: list[IndexItem]) -> list[IndexItem]:
        if self.embedder is None or not found:
            return found
        per_item = [words_of(item.body) for item in found]
        vocabulary = list(dict.fromkeys(w for ws in per_item for w in ws))
        table = known_words(writer.conn, vocabulary)
        missing = [w for w in vocabulary if w not in table]
        if missing:
            sums, counts = self.embedder.word_sums(missing, DIM)
            new = {w: (encode_sum(sums[i]), counts[i]) for i, w in enumerate(missing)}
            writer.add_words(new)
            table.update(new)
        out = []
        for item, ws in zip(found, per_item):
            total, tokens = np.zeros(DIM, dtype=np.float32), 0
            for w in ws:
                vec, n = table[w]
                row = decode(vec)
                if row is not None:
                    total += row
                    tokens += n
            norm = float(np.linalg.norm(total))
            vec = encode_sum(total / norm) if tokens and norm > 0 else None
            out.append(_with_vec(item, vec))
        return out


_COMMON_ROWS: dict[tuple[type, str], dict[str, tuple[bytes, int]]] = {}  # embedder -> its common-words rows


def _common_rows(vectors: WordVectors) -> dict[str, tuple[bytes, int]]:
    """The common-words table's rows for this embedder, computed once per process."""
    key = (type(vectors.embedder), vectors.name)
    rows = _COMMON_ROWS.get(key)
    if rows is None:
        from wordfreq import top_n_list

        words = [w for w in top_n_list("en", COMMON_WORDS, wordlist="best") if WORD.fullmatch(w)]
        sums, counts = vectors.embedder.word_sums(words, DIM)
        rows = _COMMON_ROWS[key] = {w: (encode_sum(sums[i]), counts[i]) for i, w in enumerate(words) if counts[i]}
    return rows


def _with_vec(item: IndexItem, vec: bytes | None) -> IndexItem:
    return replace(item, vec=vec)


def _with_evidence(session, writer: Writer, scope: str, facts: list[Any], keep: list[IndexItem]) -> list[IndexItem]:
    """`keep` less the reflections whose sources are not all current (a source superseded since the
    offline pass), plus those a change touched whose sources all are again: none outlives its evidence."""
    changed = {f.id for f in facts}
    touched = [r for r in src.current_reflections(session, scope) if r.id in changed or changed & set(r.rests_on or [])]
    if not touched:
        return keep
    live = src.current_ids(session, scope, {i for r in touched for i in r.rests_on or []})
    valid = {r.id: set(r.rests_on or []) <= live for r in touched}
    writer.remove(f"fact:{r.id}" for r in touched)
    keep = [i for i in keep if valid.get(i.id.removeprefix("fact:"), True)]
    return keep + [i for r in touched if valid[r.id] and r.id not in changed if (i := make.fact_item(r)) is not None]


class RecallStage:
    """ports.Stage: the recall index of each scope (see the module docstring)."""

    name = "recall"

    def __init__(self, app: App, embedder: Any | None = None,
                 embedder_factory: Callable[[], Any] | None = None, faults: FaultBook | None = None) -> None:
        self.app = app
        self.faults = faults if faults is not None else FaultBook(app.engine)
        self._embedder = embedder
        self._factory = embedder_factory
        self.on_progress: Callable[[], None] = lambda: None
        self._open: dict[Path, tuple[Any, int]] = {}
        self.updates = 0  # updates that wrote, and the seconds they took (benches read them)
        self.spent_s = 0.0
        self._common_written = False

    def _vectors(self) -> WordVectors:
        if self._embedder is None and self._factory is not None:
            self._embedder = self._factory()
        return WordVectors(self._embedder)

    def run(self, now: datetime, stop: threading.Event | None = None, scopes: Sequence[str] | None = None) -> int:
        """Bring these scopes' indexes up to date (None: every scope with messages); returns items written."""
        if scopes is None:
            with reading(self.app.engine) as session:
                scopes = scopes_with_messages(session)
        written = 0
        if not self._common_written:
            self._common_words(now)
        for scope in scopes:
            if stop is not None and stop.is_set():
                break
            if self.faults.is_open(SNAPSHOTS_FAULT, scope):
                continue  # its directory failed the snapshot stage already: one fault, said once
            try:
                written += self.update(scope, now)
            except StorageError:
                raise  # the database itself: the tick fails as a whole
            except Exception as exc:  # this scope's index; the other scopes go on, its watermarks stay
                self.faults.failed(FAULT, scope, exc, now)
                continue
            self.faults.succeeded(FAULT, scope, now)
            self.on_progress()
        return written

    def _common_words(self, now: datetime) -> None:
        """The common-words table, written when missing or another embedder's (none without vectors).
        A failure to write it is a fault of its own: every index is still updated."""
        vectors = self._vectors()
        path = common_words_path(self.app.settings.snapshot_dir)
        try:
            if vectors.embedder is not None and embedder_of(path) != vectors.name:
                rows = _common_rows(vectors)
                write_common_words(path, vectors.name, rows)
                log.info("recall.common_words", words=len(rows), path=str(path))
        except OSError as exc:
            self.faults.failed(COMMON_FAULT, "", exc, now)
            return
        self.faults.succeeded(COMMON_FAULT, "", now)
        self._common_written = True

    def _connection(self, path: Path):
        """The index's open connection, kept across ticks (a per-tick open and close would redo the
        schema script and checkpoint the write-ahead log each time); reopened when the file was
        removed or replaced (`forget`), at most OPEN_INDEXES kept."""
        try:
            inode = os.stat(path).st_ino
        except FileNotFoundError:
            inode = None
        held = self._open.pop(path, None)
        if held is not None and held[1] == inode:
            self._open[path] = held  # most recently used last
            return held[0]
        if held is not None:
            held[0].close()
        conn = open_for_write(path)
        self._open[path] = (conn, os.stat(path).st_ino)
        while len(self._open) > OPEN_INDEXES:
            oldest = next(iter(self._open))
            self._open.pop(oldest)[0].close()
        return conn

    def close(self) -> None:
        for conn, _ in self._open.values():
            conn.close()
        self._open.clear()

    def update(self, scope: str, now: datetime) -> int:
        """One transaction of the scope's index: what changed since its watermarks."""
        settings = self.app.settings
        path = index_path(settings.snapshot_dir / scope)
        started = time.perf_counter()
        conn = self._connection(path)
        try:
            meta = read_meta(conn)
            with reading(self.app.engine) as session:
                views = src.view_versions(session, scope)
                newest = src.newest_seq(session, scope)
            seen_views = json.loads(meta.get("views", "{}"))
            indexed_seq = int(meta.get("messages_seq", "0"))
            changed = {v for v, n in views.items() if seen_views.get(v) != n}
            if newest <= indexed_seq and not changed and meta.get("timezone"):
                return 0
            vectors = self._vectors()
            with Writer(conn) as writer:
                written, marks = self._write(writer, scope, meta, changed, indexed_seq, vectors)
                writer.set_meta({**marks, "views": json.dumps(views, sort_keys=True), "scope": scope,
                                 "timezone": settings.timezone_of(scope).key, "embedder": vectors.name,
                                 "updated_at": now.astimezone(timezone.utc).isoformat()})
            if written >= BIG_UPDATE:
                checkpoint(conn)  # a first build leaves a long write-ahead log: fold it in now, not tick by tick
            self.updates += 1
            self.spent_s += time.perf_counter() - started
        except BaseException:
            held = self._open.pop(path, None)
            if held is not None:
                held[0].close()
            raise
        if written:
            log.info("recall.indexed", scope=scope, items=written)
        return written

    def _write(self, writer: Writer, scope: str, meta: dict[str, str], changed: set[str], indexed_seq: int,
               vectors: WordVectors) -> tuple[int, dict[str, str]]:
        marks: dict[str, str] = {}
        written = 0
        first = "messages_seq" not in meta
        engine, history = self.app.engine, History(self.app.settings.archive_dir)
        # Messages: the whole log (archive included) the first time, then the new ones.
        if first:
            with reading(engine, snapshot=True) as session:
                batch, top, before = [], 0, []
                for row in history.rows(session, scope):
                    message = make.LoggedRow(row)
                    top = max(top, message.seq)
                    batch.append(message)
                    if len(batch) >= MESSAGES_PER_READ:
                        written += self._put_messages(writer, batch, vectors, before)
                        before, batch = batch[-make.CONTEXT_TURNS:], []
                written += self._put_messages(writer, batch, vectors, before)
            marks["messages_seq"] = str(top)
        else:
            top, turns = indexed_seq, make.CONTEXT_TURNS
            while True:
                with reading(engine) as session:  # the last turns indexed come too: the next ones' context
                    batch = src.messages_after(session, scope, max(0, top - turns), MESSAGES_PER_READ + turns)
                before = [m for m in batch if m.seq <= top]
                batch = [m for m in batch if m.seq > top]
                if not batch:
                    break
                written += self._put_messages(writer, batch, vectors, before)
                top = batch[-1].seq
                if len(batch) < MESSAGES_PER_READ:
                    break
            marks["messages_seq"] = str(top)
        with reading(engine) as session:
            if first or "facts" in changed:
                since = None if first else _utc(meta.get("facts_at"))
                facts = src.facts_changed_since(session, scope, since)
                keep = [i for i in (make.fact_item(f) for f in facts) if i is not None]
                writer.remove(f"fact:{f.id}" for f in facts)
                keep = _with_evidence(session, writer, scope, facts, keep)
                written += writer.put(vectors.attach(writer, keep))
                if facts:
                    marks["facts_at"] = max(f.updated_at for f in facts).isoformat()
            if first or "contacts" in changed:
                since = None if first else _utc(meta.get("contacts_at"))
                contacts, details = src.contacts_changed_since(session, scope, since)
                found = [make.contact_item(c, details.get(c.id, {})) for c in contacts]
                written += writer.put(vectors.attach(writer, found))
                if contacts:
                    marks["contacts_at"] = max(c.updated_at for c in contacts).isoformat()
            if first or "tasks" in changed:
                tasks = listed_tasks(session, scope)
                found = [make.task_item(t) for t in tasks]
                writer.remove(writer.ids_of_kind("task") - {i.id for i in found})
                written += writer.put(vectors.attach(writer, found))
            if first or any(v.startswith("ladder:") for v in changed):
                for ladder in LADDERS:
                    if first:  # the id first: a summary announced meanwhile is read again next tick
                        top_id = src.newest_announcement(session, scope, ladder)
                        rows = self._all_newest(session, scope, ladder)
                    else:
                        after = int(meta.get(f"announced_{ladder}", "0"))
                        rows, top_id = src.announced_summaries(session, scope, ladder, after)
                    found = [i for i in (make.summary_item(s) for s in rows) if i is not None]
                    writer.remove(f"sum:{s.ladder}/{s.rung}/{s.key}" for s in rows)
                    written += writer.put(vectors.attach(writer, found))
                    marks[f"announced_{ladder}"] = str(top_id)
        return written, marks

    def _all_newest(self, session, scope: str, ladder: str) -> list[Any]:
        """The newest version of every window of the ladder's rungs, archived ones included."""
        ladders = self.app.settings.ladders
        rungs = [str(r) for r in (ladders.time if ladder == "time" else ladders.count)]
        history = History(self.app.settings.archive_dir)
        return [row for rung in rungs for row in history.newest_versions(session, scope, ladder, rung)]

    def _put_messages(self, writer: Writer, batch: list[Any], vectors: WordVectors, before: list[Any]) -> int:
        """Index a run of consecutive messages; `before` are the ones logged just before the first."""
        gap = self.app.settings.interaction_gap.total_seconds()
        found = []
        window = list(before[-make.CONTEXT_TURNS:])
        for message in batch:
            item = make.message_item(message, window, gap)
            if item is not None:
                found.append(item)
            window = [*window[1 - make.CONTEXT_TURNS:], message] if make.CONTEXT_TURNS > 1 else [message]
        return writer.put(vectors.attach(writer, found))
