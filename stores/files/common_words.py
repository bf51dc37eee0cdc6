"""The common-words table: one file beside the scopes' folders (`<snapshots>/.common-words.sqlite`;
no scope name starts with a dot) with the recall index's `word` rows (a word's summed token
vectors and its token count) for English's commonest words, and no word of any scope.

A scope's recall index embeds a query from its own word table, which has only what the scope
said, so "family" asked of a scope that only ever said "my sister" had no vector and found
nothing, though the embeddings put the words close; a reader takes such a word from here. The
recall stage writes the file when it is missing or another embedder's (a temporary file renamed
over the old one: a reader sees one whole file or the other); readers open it read-only. Part of
the recall index's file format: only this module and recall_index.py speak SQL to these files.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

COMMON_FILE = ".common-words.sqlite"


def common_words_path(snapshot_root: Path) -> Path:
    return snapshot_root / COMMON_FILE


def open_common_words(path: Path) -> sqlite3.Connection | None:
    """A read-only connection to the table, or None when there is none (or it cannot be read)."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    except sqlite3.DatabaseError:
        return None
    try:
        conn.execute("SELECT 1 FROM word LIMIT 1").fetchall()
    except sqlite3.DatabaseError:
        conn.close()
        return None
    return conn


def embedder_of(path: Path) -> str | None:
    """The embedder that wrote the table (None: no table, or not a readable one)."""
    conn = open_common_words(path)
    if conn is None:
        return None
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()
    return row[0] if row else None


def write_common_words(path: Path, embedder: str, rows: dict[str, tuple[bytes, int]]) -> None:
    """Replace the table with `rows` (word -> (vector, token count)), written by `embedder`; an
    OSError naming the file when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(temporary)
    except sqlite3.Error as exc:
        raise OSError(None, f"common-words table cannot be written ({exc})", str(path)) from None
    try:
        conn.executescript("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                           "CREATE TABLE word(word TEXT PRIMARY KEY, vec BLOB NOT NULL, tokens INTEGER NOT NULL)"
                           " WITHOUT ROWID;")
        with conn:
            conn.execute("INSERT INTO meta VALUES ('embedder', ?), ('words', ?)", (embedder, str(len(rows))))
            conn.executemany("INSERT INTO word VALUES (?, ?, ?)", [(w, v, n) for w, (v, n) in rows.items()])
    except BaseException as exc:
        conn.close()
        temporary.unlink(missing_ok=True)
        if isinstance(exc, sqlite3.Error):
            raise OSError(None, f"common-words table cannot be written ({exc})", str(path)) from None
        raise
    conn.close()
    os.replace(temporary, path)
