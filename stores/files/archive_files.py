"""The cold archive's files: Parquet written and read with DuckDB, one folder per scope.

Layout: `<archive dir>/<scope folder>/<YYYY-MM>/<first seq>-<last seq>.parquet`, one file per
scope, month and archive run, holding the message table's columns unchanged (times as naive
UTC timestamps; `attachments` the stored JSON text; files written before that column existed
read it as NULL). DuckDB runs in memory in the calling process: it opens no database file, so
the CLI and the daemon never lock each other out (a DuckDB file admits one process only).

A file is written under a temporary name, fsynced, renamed into place and its folder fsynced;
`verify` reads it back (row count and a checksum of its ids) before any hot row goes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Sequence

import duckdb
import numpy as np

from stores.files.snapshots import fsync_path


COLUMNS = ("id", "scope", "seq", "at", "role", "speaker", "text", "session", "received_at", "interaction",
           "attachments")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
TEMP_SUFFIX = ".parquet.tmp"


def scope_folder(root: Path, scope: str) -> Path:
    """A folder name that is safe for any scope string and distinct on a case-blind filesystem:
    the readable part (unsafe characters as '_') plus a short hash of the exact scope."""
    readable = _UNSAFE.sub("_", scope)[:64].lstrip(".") or "_"
    return root / f"{readable}-{hashlib.sha256(scope.encode()).hexdigest()[:10]}"


def ids_checksum(ids: Iterable[str]) -> str:
    """Order-free checksum of a set of ids (sha256 of the sorted ids)."""
    digest = hashlib.sha256()
    for message_id in sorted(ids):
        digest.update(message_id.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


@dataclass(frozen=True)
class Written:
    path: Path  # relative to the archive root
    rows: int
    checksum: str
    bytes: int


def _naive_utc(values: Sequence[datetime]) -> np.ndarray:
    return np.array([v.astimezone(timezone.utc).replace(tzinfo=None) for v in values], dtype="datetime64[us]")


def _frame(rows: Sequence[tuple]) -> dict[str, np.ndarray]:
    """The rows (tuples in COLUMNS order) as named numpy columns DuckDB scans directly (no pyarrow)."""
    columns = list(zip(*rows))
    columns += [(None,) * len(rows)] * (len(COLUMNS) - len(columns))  # rows of the columns before attachments
    frame = {}
    for name, values in zip(COLUMNS, columns):
        if name in ("at", "received_at"):
            frame[name] = _naive_utc(values)
        elif name == "seq":
            frame[name] = np.array(values, dtype=np.int64)
        else:  # text and the nullable interaction: object arrays, None becomes NULL
            frame[name] = np.array(values, dtype=object)
    return frame


_SCHEMA = ('"id" VARCHAR, "scope" VARCHAR, "seq" BIGINT, "at" TIMESTAMP, "role" VARCHAR, "speaker" VARCHAR, '
           '"text" VARCHAR, "session" VARCHAR, "received_at" TIMESTAMP, "interaction" BIGINT, "attachments" VARCHAR')
QUOTED = ", ".join(f'"{name}"' for name in COLUMNS)  # `at` is a keyword in DuckDB


def write_parquet(root: Path, relative: Path, copy: Callable[[duckdb.DuckDBPyConnection, Path], object],
                  rows: int, ids: Iterable[str]) -> Written:
    """Write root/relative crash-safely: `copy(connection, temp)` writes the file under its temporary
    name, which is fsynced, renamed into place and its folder fsynced. Returns what verify must find
    (`rows` rows whose ids are `ids`)."""
    final = root / relative
    final.parent.mkdir(parents=True, exist_ok=True)
    temp = final.with_name(final.name.removesuffix(".parquet") + TEMP_SUFFIX)
    connection = duckdb.connect()
    try:
        copy(connection, temp)
    finally:
        connection.close()
    fsync_path(temp)
    os.replace(temp, final)
    fsync_path(final.parent)
    return Written(relative, rows, ids_checksum(ids), final.stat().st_size)


def write_file(root: Path, relative: Path, rows: Sequence[tuple]) -> Written:
    """Write `rows` to root/relative crash-safely (temp name, fsync, rename, fsync folder)."""
    def copy(connection: duckdb.DuckDBPyConnection, temp: Path) -> None:
        connection.execute(f"CREATE TABLE t ({_SCHEMA})")
        connection.register("frame_view", _frame(rows))
        connection.execute(f"INSERT INTO t SELECT {QUOTED} FROM frame_view")
        connection.execute(f"COPY (SELECT * FROM t ORDER BY seq) TO '{_quoted(temp)}' (FORMAT parquet, COMPRESSION zstd)")

    return write_parquet(root, relative, copy, len(rows), (r[0] for r in rows))


EXPORT_FIELDS = ("id", "scope", "at", "role", "text", "session", "speaker", "attachments")  # the import format's fields


def _export_value(name: str, value):
    if name == "attachments" and value is not None:  # a list of objects: its JSON text
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


def write_records(path: Path, records: Sequence[dict]) -> int:
    """Import-format records (`at` an ISO 8601 string) as one Parquet file, `at` a UTC timestamp,
    `attachments` JSON text; written to a temporary name and renamed. Returns the rows written."""
    frame = {name: np.array([_export_value(name, r.get(name)) for r in records], dtype=object) for name in EXPORT_FIELDS}
    temp = path.with_name(path.name + ".tmp")
    connection = duckdb.connect()
    try:
        connection.execute("SET TimeZone = 'UTC'")
        connection.register("records", frame)
        connection.execute("CREATE TABLE t (\"id\" VARCHAR, \"scope\" VARCHAR, \"at\" TIMESTAMPTZ, \"role\" VARCHAR, "
                           "\"text\" VARCHAR, \"session\" VARCHAR, \"speaker\" VARCHAR, \"attachments\" VARCHAR)")
        if records:
            connection.execute('INSERT INTO t SELECT "id", "scope", CAST("at" AS TIMESTAMPTZ), "role", "text", "session", '
                               '"speaker", "attachments" FROM records')
        connection.execute(f"COPY t TO '{_quoted(temp)}' (FORMAT parquet, COMPRESSION zstd)")
    finally:
        connection.close()
    os.replace(temp, path)
    return len(records)


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")


def verify(root: Path, relative: Path, rows: int, checksum: str) -> bool:
    """Whether the file exists and holds exactly `rows` rows whose ids have `checksum`."""
    path = root / relative
    if not path.is_file():
        return False
    try:
        ids = [r[0] for r in _query(f"SELECT \"id\" FROM read_parquet('{_quoted(path)}')")]
    except duckdb.Error:
        return False
    return len(ids) == rows and ids_checksum(ids) == checksum


def file_ids(root: Path, relative: Path) -> list[str]:
    """The ids a finished file holds (a message file or a summary file)."""
    return [r[0] for r in _query(f"SELECT \"id\" FROM read_parquet('{_quoted(root / relative)}')")]


def _query(sql: str, parameters: Sequence | None = None) -> list[tuple]:
    connection = duckdb.connect()
    try:
        return connection.execute(sql, parameters or []).fetchall()
    finally:
        connection.close()


def existing_paths(root: Path, files: Sequence[Path]) -> list[str]:
    """The paths of those of `files` (relative to `root`) that exist, for DuckDB's read_parquet."""
    return [str(root / f) for f in files if (root / f).is_file()]


def read_rows(root: Path, files: Sequence[Path], where: str = "TRUE", parameters: Sequence = ()) -> list[tuple]:
    """Rows (COLUMNS order, times aware UTC) of the given files matching the DuckDB `where`."""
    paths = existing_paths(root, files)
    if not paths:
        return []
    connection = duckdb.connect()
    try:
        # Files written before a column was added lack it: union_by_name reads it as NULL where
        # some file has it, and a column no file has is selected as NULL.
        source = "read_parquet(?, union_by_name = true)"
        present = {r[0] for r in connection.execute(f"DESCRIBE SELECT * FROM {source}", [paths]).fetchall()}
        selected = ", ".join(f'"{name}"' if name in present else f'NULL AS "{name}"' for name in COLUMNS)
        rows = connection.execute(f"SELECT {selected} FROM {source} WHERE {where}", [paths, *parameters]).fetchall()
    finally:
        connection.close()
    return [(*r[:3], r[3].replace(tzinfo=timezone.utc), *r[4:8], r[8].replace(tzinfo=timezone.utc), *r[9:]) for r in rows]


def remove_temps(folder: Path) -> int:
    """Delete half-written temporary files left by a killed run; returns how many."""
    removed = 0
    if folder.is_dir():
        for temp in folder.rglob("*" + TEMP_SUFFIX):
            temp.unlink(missing_ok=True)
            removed += 1
    return removed


def files_on_disk(folder: Path, root: Path) -> set[Path]:
    """Every finished Parquet file under `folder`, relative to `root`."""
    return {p.relative_to(root) for p in folder.rglob("*.parquet")} if folder.is_dir() else set()


def remove_folder(folder: Path) -> int:
    """Delete a scope's archive folder; returns the number of files it held."""
    if not folder.exists():
        return 0
    count = sum(1 for p in folder.rglob("*") if p.is_file())
    shutil.rmtree(folder)
    return count


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.parquet")) if folder.is_dir() else 0


def ids_among(paths: Sequence[str], keys: Sequence[str]) -> list[str]:
    """Of `keys`, those held as message ids in the Parquet files `paths`."""
    with duckdb.connect() as duck:
        return [r[0] for r in duck.execute('SELECT "id" FROM read_parquet(?) WHERE list_contains(?, "id")',
                                           [list(paths), list(keys)]).fetchall()]
