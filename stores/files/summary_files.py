"""Archived summaries as Parquet: one file per scope, ladder and archive run, beside the messages.

Layout: `<archive dir>/<scope folder>/summaries/<ladder>/<first position>-<last position>-<n>.parquet`
(four levels deep, so a glob of the message files, `<scope>/<YYYY-MM>/*.parquet`, never sees
them). The summary table's columns unchanged; `sources` as its JSON text, times as naive UTC.
Written and verified exactly as message files are (stores/files/archive_files.py: temporary name,
fsync, rename, fsync the folder; read back the row count and a checksum of the ids).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import duckdb
import numpy as np

from stores.files.archive_files import Written, _query, _quoted, existing_paths, write_parquet
from stores.schema.ladders import Summary

_TYPES = {
    "id": "VARCHAR", "scope": "VARCHAR", "ladder": "VARCHAR", "rung": "VARCHAR", "key": "VARCHAR", "version": "BIGINT",
    "kind": "VARCHAR", "label": "VARCHAR", "text": "VARCHAR", "tokens": "BIGINT", "sources": "VARCHAR",
    "input_hash": "VARCHAR", "input_tokens": "BIGINT", "calls": "BIGINT", "window_start": "TIMESTAMP",
    "window_end": "TIMESTAMP", "first_number": "BIGINT", "last_number": "BIGINT", "watermark_seq": "BIGINT",
    "watermark_at": "TIMESTAMP", "created_at": "TIMESTAMP",
}
COLUMNS = tuple(_TYPES)
_TIMES = {name for name, kind in _TYPES.items() if kind == "TIMESTAMP"}
_QUOTED = ", ".join(f'"{name}"' for name in COLUMNS)


def _text(name: str, value) -> str | None:
    """One value as text for DuckDB to cast (no pyarrow here: every column goes in as VARCHAR)."""
    if value is None:
        return None
    if name in _TIMES:
        return value.astimezone(timezone.utc).replace(tzinfo=None).isoformat(sep=" ")
    if name == "sources":
        return json.dumps(list(value))
    return str(value)


def write_summaries(root: Path, relative: Path, rows: Sequence[Summary]) -> Written:
    """Write the summary rows to root/relative crash-safely; returns what verify must find."""
    def copy(connection: duckdb.DuckDBPyConnection, temp: Path) -> None:
        frame = {name: np.array([_text(name, getattr(r, name)) for r in rows], dtype=object) for name in COLUMNS}
        casts = ", ".join(f'CAST("{name}" AS {kind}) AS "{name}"' for name, kind in _TYPES.items())
        connection.register("frame_view", frame)
        connection.execute(f"COPY (SELECT {casts} FROM frame_view ORDER BY \"id\") TO '{_quoted(temp)}' "
                           "(FORMAT parquet, COMPRESSION zstd)")

    return write_parquet(root, relative, copy, len(rows), (r.id for r in rows))


def _summary(row: tuple) -> Summary:
    values = dict(zip(COLUMNS, row))
    for name in _TIMES:
        if values[name] is not None:
            values[name] = values[name].replace(tzinfo=timezone.utc)
    values["sources"] = json.loads(values["sources"])
    return Summary(**values)


def read_summaries(root: Path, files: Sequence[Path], where: str = "TRUE", parameters: Sequence = ()) -> list[Summary]:
    """The summary rows of the given files matching the DuckDB `where` (detached Summary objects)."""
    paths = existing_paths(root, files)
    if not paths:
        return []
    return [_summary(row) for row in _query(f"SELECT {_QUOTED} FROM read_parquet(?) WHERE {where}", [paths, *parameters])]


@lru_cache(maxsize=256)
def _file_rows(path: str, mtime_ns: int, size: int) -> tuple[tuple, ...]:
    """One file's raw rows, kept per process: a finished file never changes (one written again
    after `forget` under the same name has another mtime and size, so another cache key)."""
    connection = duckdb.connect()
    try:
        return tuple(connection.execute(f"SELECT {_QUOTED} FROM read_parquet(?)", [path]).fetchall())
    finally:
        connection.close()


def cached_summaries(root: Path, files: Sequence[Path], keep: Callable[[dict], bool] = lambda row: True) -> list[Summary]:
    """The summary rows of the given files for which `keep` (given the raw row as a dict) is true,
    read once per file and process: rebuild and the ladders read the same old files again and again."""
    out = []
    for relative in files:
        path = root / relative
        try:
            info = path.stat()
        except FileNotFoundError:
            continue
        for row in _file_rows(str(path), info.st_mtime_ns, info.st_size):
            if keep(dict(zip(COLUMNS, row))):
                out.append(_summary(row))
    return out


def naive(value: datetime) -> datetime:
    """A time as the raw rows hold it (naive UTC)."""
    return value.astimezone(timezone.utc).replace(tzinfo=None)
