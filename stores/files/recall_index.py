"""The recall index: one SQLite file per scope, beside the scope's other snapshots.

`<snapshots>/<scope>/recall.sqlite` holds what `recall` ranks: every current fact (and
superseded ones as labelled history), contact, open and recent task, every summary of both
ladders and every raw message, each as one row of `item` with its text, its time, its
importance, its sources and its embedding, and the same text in an FTS5 table (porter stemmer)
that carries the lexical half of the ranking. `word` holds the static embedding of every word
the index has seen, so a query is embedded with no tokenizer to load (a word the scope never used
from the common-words table beside the scopes, common_words.py).

Why a SQLite file: the planner that reads it may run on any machine with the snapshots and no
database credentials (as context.md), Python's own sqlite3 has FTS5, and a transaction makes
each update atomic: a reader sees the index before a tick's update or after it, never half of
it, and a writer killed mid-update leaves the old index (WAL: the uncommitted frames are
ignored). The daemon holding the scope's claim is its only writer.

Readers cache the item vectors per process. `meta.generation` rises with every commit; items
are never changed in place: a changed item is deleted and inserted again under a new row number
(AUTOINCREMENT never reuses one), and each deletion is logged in `dropped` with its generation,
so a reader catches up with `rows_after` and `dropped_after` in time proportional to what
changed, not to the index.

Only this module speaks SQL to the file; times are stored as UTC epoch seconds.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

FILE = "recall.sqlite"
FORMAT = "1"
BUSY_MS = 5_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS item(
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT '',
    ladder TEXT, rung TEXT, label TEXT, speaker TEXT,
    text TEXT NOT NULL,
    at REAL, until REAL,
    importance REAL NOT NULL DEFAULT 0,
    sources TEXT NOT NULL DEFAULT '[]',
    vec BLOB
);
CREATE VIRTUAL TABLE IF NOT EXISTS item_text USING fts5(body, context, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS word(word TEXT PRIMARY KEY, vec BLOB NOT NULL, tokens INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dropped(generation INTEGER NOT NULL, n INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ix_dropped_generation ON dropped(generation);
CREATE INDEX IF NOT EXISTS ix_item_at ON item(at);
CREATE INDEX IF NOT EXISTS ix_item_label ON item(label COLLATE NOCASE);
"""

COLUMNS = ("n", "id", "kind", "status", "ladder", "rung", "label", "speaker", "text", "at", "until",
           "importance", "sources")


@dataclass(frozen=True)
class IndexItem:
    """One row of the index as the daemon writes it (`body` is what the lexical search reads)."""

    id: str
    kind: str  # fact | contact | task | summary | message
    text: str
    body: str
    status: str = ""  # fact: current | history; task: open | closed
    ladder: str | None = None
    rung: str | None = None
    label: str | None = None
    speaker: str | None = None
    at: float | None = None
    until: float | None = None
    importance: float = 0.0
    sources: tuple[str, ...] = ()
    vec: bytes | None = None
    context: str = ""  # searched at a lower weight, never shown: a reply's preceding turns, a fact's table


@dataclass(frozen=True)
class Row:
    """One item as a reader gets it back (no vector, no body). A row number always names the
    same content (a change is a new row), so readers may cache rows by number."""

    n: int
    id: str
    kind: str
    status: str
    ladder: str | None
    rung: str | None
    label: str | None
    speaker: str | None
    text: str
    at: float | None
    until: float | None
    importance: float
    sources_json: str = "[]"

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(json.loads(self.sources_json or "[]"))


class IndexUnreadable(OSError):
    """The index file exists but cannot be read as one (another format, a broken file)."""


def index_path(scope_dir: Path) -> Path:
    return scope_dir / FILE


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_MS / 1000,
                               isolation_level=None, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
    return conn


def open_for_write(path: Path) -> sqlite3.Connection:
    """The index at `path`, created when missing (WAL, so the daemon's writes never block a reader).
    A file or directory that cannot be written is an OSError naming the file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = _connect(path, readonly=False)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.executescript(_SCHEMA)
        if conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() is None:
            conn.execute("INSERT INTO meta VALUES ('format', ?), ('generation', '0')", (FORMAT,))
    except sqlite3.OperationalError as exc:
        raise OSError(None, f"recall index cannot be written ({exc})", str(path)) from None
    return conn


def open_for_read(path: Path) -> sqlite3.Connection | None:
    """A reading connection, or None when there is no index. A reader that may not write beside
    the file (no -shm yet) falls back to a read-only open."""
    if not path.is_file():
        return None
    try:
        conn = _connect(path, readonly=False)
    except sqlite3.OperationalError:
        conn = _connect(path, readonly=True)
    try:
        fmt = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IndexUnreadable(f"{path}: not a recall index ({exc})") from None
    if fmt is None or fmt[0] != FORMAT:
        conn.close()
        raise IndexUnreadable(f"{path}: recall index format {fmt[0] if fmt else '?'}, expected {FORMAT}")
    return conn


def checkpoint(conn: sqlite3.Connection) -> None:
    """Copy the write-ahead log into the file and empty it (readers keep their snapshots)."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


class Writer:
    """One update of the index: everything between `begin` and `commit` is one transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.generation = 0

    def __enter__(self) -> "Writer":
        self.conn.execute("BEGIN IMMEDIATE")
        self.generation = int(read_meta(self.conn).get("generation", "0")) + 1
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'generation'", (str(self.generation),))
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")

    def set_meta(self, values: dict[str, str]) -> None:
        self.conn.executemany("INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                              [(k, str(v)) for k, v in values.items()])

    def remove(self, ids: Iterable[str]) -> int:
        """Delete these items (and their text); each deletion is logged for the readers' caches."""
        removed = 0
        for item_id in ids:
            row = self.conn.execute("SELECT n FROM item WHERE id = ?", (item_id,)).fetchone()
            if row is None:
                continue
            self.conn.execute("DELETE FROM item WHERE n = ?", row)
            self.conn.execute("DELETE FROM item_text WHERE rowid = ?", row)
            self.conn.execute("INSERT INTO dropped VALUES (?, ?)", (self.generation, row[0]))
            removed += 1
        return removed

    def put(self, items: list[IndexItem]) -> int:
        """Insert these items, replacing any of the same id; returns how many rows were written."""
        if not items:
            return 0
        self.remove(item.id for item in items)
        for item in items:
            cursor = self.conn.execute(
                "INSERT INTO item (id, kind, status, ladder, rung, label, speaker, text, at, until, importance,"
                " sources, vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (item.id, item.kind, item.status, item.ladder, item.rung, item.label, item.speaker, item.text,
                 item.at, item.until, item.importance, json.dumps(list(item.sources)), item.vec))
            self.conn.execute("INSERT INTO item_text (rowid, body, context) VALUES (?, ?, ?)",
                              (cursor.lastrowid, item.body, item.context))
        return len(items)

    def ids_of_kind(self, kind: str) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT id FROM item WHERE kind = ?", (kind,))}

    def add_words(self, vectors: dict[str, tuple[bytes, int]]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO word VALUES (?, ?, ?)",
                              [(w, vec, tokens) for w, (vec, tokens) in vectors.items()])


def known_words(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, tuple[bytes, int]]:
    """The stored (vector, token count) of each of these words that the index has."""
    found = _where_in(conn, "SELECT word, vec, tokens FROM word WHERE word IN ({})", words)
    return {word: (vec, tokens) for word, vec, tokens in found}


def _row(values: tuple) -> Row:
    return Row(*values)


def lexical(conn: sqlite3.Connection, match: str, limit: int, from_row: int = 0, context_weight: float = 0.5
            ) -> list[tuple[int, float]]:
    """(row number, bm25 relevance >= 0) of the best `limit` items for an FTS5 MATCH expression,
    among rows numbered `from_row` or above (FTS5 seeks to a rowid bound); a word found in an
    item's context weighs `context_weight` of one in its body."""
    if not match:
        return []
    rows = conn.execute("SELECT rowid, -bm25(item_text, 1.0, ?) AS s FROM item_text WHERE item_text MATCH ?"
                        " AND rowid >= ? ORDER BY s DESC LIMIT ?", (context_weight, match, from_row, limit)).fetchall()
    return [(int(n), float(s)) for n, s in rows]


def lexical_between(conn: sqlite3.Connection, match: str, limit: int, start: float, end: float,
                    context_weight: float = 0.5) -> list[tuple[int, float]]:
    """`lexical` among the items whose time falls in [start, end) (a window's items: from its start)."""
    if not match:
        return []
    rows = conn.execute("SELECT t.rowid, -bm25(item_text, 1.0, ?) AS s FROM item_text AS t JOIN item AS i"
                        " ON i.n = t.rowid WHERE item_text MATCH ? AND i.at >= ? AND i.at < ? ORDER BY s DESC LIMIT ?",
                        (context_weight, match, start, end, limit)).fetchall()
    return [(int(n), float(s)) for n, s in rows]


def between(conn: sqlite3.Connection, start: float, end: float, limit: int) -> list[int]:
    """Row numbers of items whose time falls in [start, end): summaries first, then the newest. Not
    the contact cards: a card's time is when it was last written, of no period (a birthday is)."""
    rows = conn.execute("SELECT n FROM item WHERE at >= ? AND at < ? AND kind != 'contact'"
                        " ORDER BY kind = 'summary' DESC, at DESC"
                        " LIMIT ?", (start, end, limit)).fetchall()
    return [int(n) for (n,) in rows]


def noted_in(conn: sqlite3.Connection, noted: list[str], limit: int) -> list[tuple[int, str]]:
    """Row numbers and texts of the current facts whose text notes one of these days ("2025-12-05)"
    finds "(2025-12-05)", "2025-12-" any day of the month): a plan's day is in its text, not its time;
    of the open tasks due on one, their due day noted as a fact's is ("(2025-12-05)"); and of the
    contact cards whose birthday falls on one ("birthday: December 5.", "birthday: December ")."""
    if not noted:
        return []
    facts = " OR ".join("text LIKE ?" for _ in noted)
    dues = " OR ".join("label LIKE ?" for _ in noted)
    rows = conn.execute(f"SELECT n, CASE kind WHEN 'task' THEN '(' || label || ')' ELSE text END FROM item"
                        f" WHERE kind = 'fact' AND status = 'current' AND ({facts})"
                        f" OR kind = 'task' AND status = 'open' AND ({dues})"
                        f" OR kind = 'contact' AND ({facts}) ORDER BY at DESC LIMIT ?",
                        (*(f"%({d}%" for d in noted), *(f"{d.rstrip(')')}%" for d in noted),
                         *(f"%{_birthday_form(d)}%" for d in noted), limit)).fetchall()
    return [(int(n), str(text)) for n, text in rows]


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _birthday_form(noted: str) -> str:
    """A noted day as a card writes a birthday: "2025-12-05)" -> "birthday: December 5.", a month
    "2025-12-" -> "birthday: December "."""
    _, month, day = noted.rstrip(")").split("-")
    return f"birthday: {_MONTHS[int(month) - 1]} {f'{int(day)}.' if day else ''}"


def open_tasks(conn: sqlite3.Connection, limit: int) -> list[int]:
    """Row numbers of the open tasks, the soonest due first (a task's label is its due day), then the undated."""
    rows = conn.execute("SELECT n FROM item WHERE kind = 'task' AND status = 'open' ORDER BY label IS NULL, label, at DESC"
                        " LIMIT ?", (limit,)).fetchall()
    return [int(n) for (n,) in rows]


def cards_named(conn: sqlite3.Connection, names: Iterable[str]) -> list[int]:
    """Row numbers of the contact cards whose name is one of `names` (any case)."""
    return [int(n) for (n,) in _where_in(
        conn, "SELECT n FROM item WHERE kind = 'contact' AND label COLLATE NOCASE IN ({})", names)]


def matching(conn: sqlite3.Connection, match: str) -> int:
    """How many items an FTS5 MATCH expression matches (a walk of its posting lists, no ranking)."""
    return int(conn.execute("SELECT count(*) FROM item_text WHERE item_text MATCH ?", (match,)).fetchone()[0])


def row_span(conn: sqlite3.Connection) -> tuple[int, int]:
    low, high = conn.execute("SELECT coalesce(min(n), 0), coalesce(max(n), 0) FROM item").fetchone()
    return int(low), int(high)


def _where_in(conn: sqlite3.Connection, sql: str, keys: Iterable) -> Iterator[tuple]:
    """Rows of `sql` (a SELECT ending in "IN ({})") for these keys, 500 bound parameters at a time."""
    keys = list(dict.fromkeys(keys))
    for i in range(0, len(keys), 500):
        chunk = keys[i:i + 500]
        yield from conn.execute(sql.format(",".join("?" * len(chunk))), chunk)


def rows_by_number(conn: sqlite3.Connection, numbers: Iterable[int]) -> dict[int, Row]:
    rows = (_row(v) for v in _where_in(conn, f"SELECT {', '.join(COLUMNS)} FROM item WHERE n IN ({{}})", numbers))
    return {row.n: row for row in rows}


def rows_by_id(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, Row]:
    rows = (_row(v) for v in _where_in(conn, f"SELECT {', '.join(COLUMNS)} FROM item WHERE id IN ({{}})", ids))
    return {row.id: row for row in rows}


def vectors_after(conn: sqlite3.Connection, after: int) -> Iterator[tuple[int, bytes | None]]:
    """(row number, vector) of every item numbered above `after`, in order."""
    yield from conn.execute("SELECT n, vec FROM item WHERE n > ? ORDER BY n", (after,))


def nth_newest(conn: sqlite3.Connection, n: int) -> int:
    """The row number of the n-th newest item (1: the newest; the oldest when there are fewer)."""
    row = conn.execute("SELECT n FROM item ORDER BY n DESC LIMIT 1 OFFSET ?", (max(0, n - 1),)).fetchone()
    if row is None:
        row = conn.execute("SELECT coalesce(min(n), 1) FROM item").fetchone()
    return int(row[0])


def vectors_of(conn: sqlite3.Connection, numbers: list[int]) -> list[tuple[int, bytes | None]]:
    return list(_where_in(conn, "SELECT n, vec FROM item WHERE n IN ({})", numbers))


def dropped_after(conn: sqlite3.Connection, generation: int) -> list[int]:
    return [n for (n,) in conn.execute("SELECT n FROM dropped WHERE generation > ?", (generation,))]


def generation(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0

