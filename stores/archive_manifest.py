"""The archive's manifest: which Parquet file holds which messages, and how far each move got.

The move of one file is a small protocol whose state lives here, in the hot database:
  1. the file is written under a temporary name, fsynced and renamed (stores/files/archive_files.py);
  2. `record_written`: a row in state 'written' with the file's row count, id checksum and
     ranges (seq, time, interaction) -- the hot rows are all still there;
  3. `finish`: one transaction deletes the hot rows, remembers their ids' hashes (imports
     stay idempotent) and sets the row to 'done'.
A kill between any two steps leaves either a temporary or unrecorded file (the hot rows are
intact: the file is deleted and written again) or a 'written' row (verified, then finished,
or dropped with its file if it does not verify). Nothing is ever lost or held twice once a
rerun has completed: a message is hot, or in exactly one 'done' file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from functools import lru_cache
from typing import Sequence

from sqlalchemy import bindparam, delete, func, select
from sqlmodel import Session

from stores.engine import Engine, transaction
from stores.files.archive_files import file_ids, verify

from stores.schema.archive import ArchivedId
from stores.archived_ids import id_hash
from stores.schema.log import Message
from stores.schema.archive import DONE, WRITTEN, ArchiveFile
from stores.scope_head import raise_archived_through

_CHUNK = 5_000


@dataclass(frozen=True)
class FileRanges:
    first_seq: int
    last_seq: int
    first_at: datetime
    last_at: datetime
    first_interaction: int
    last_interaction: int


def record_written(session: Session, scope: str, month: str, path: str, rows: int, checksum: str, size: int,
                   ranges: FileRanges, now: datetime) -> int:
    """Step 2: the file is on disk and verified; its hot rows are still there. Returns its id."""
    row = ArchiveFile(scope=scope, month=month, path=path, state=WRITTEN, rows=rows, checksum=checksum, bytes=size,
                      created_at=now, **ranges.__dict__)
    session.add(row)
    session.flush()
    return row.id


def finish(session: Session, file_id: int, ids: Sequence[str]) -> int:
    """Step 3, one transaction: delete the file's hot rows, keep their ids' hashes, mark it done.
    Returns the hot rows deleted (fewer than the file's rows after an earlier partial finish: none)."""
    row = session.get(ArchiveFile, file_id)
    raise_archived_through(session, row.scope, row.last_at)  # first: the counter row before any message row
    deleted = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        deleted += session.execute(delete(Message).where(Message.id.in_(chunk))).rowcount or 0
        known = set(session.execute(select(ArchivedId.hash).where(ArchivedId.hash.in_([id_hash(i) for i in chunk]))).scalars())
        for message_id in chunk:
            value = id_hash(message_id)
            if value not in known:
                known.add(value)
                session.add(ArchivedId(hash=value, scope=row.scope))
    row.state = DONE
    return deleted


def drop(session: Session, file_id: int) -> None:
    """Forget a 'written' row whose file did not verify (its hot rows are intact)."""
    session.execute(delete(ArchiveFile).where(ArchiveFile.id == file_id, ArchiveFile.state == WRITTEN))


def pending(session: Session, scope: str | None = None) -> list[ArchiveFile]:
    """Rows left in 'written' by an interrupted run."""
    stmt = select(ArchiveFile).where(ArchiveFile.state == WRITTEN)
    if scope is not None:
        stmt = stmt.where(ArchiveFile.scope == scope)
    return list(session.execute(stmt).scalars())


def recorded_paths(session: Session, scope: str) -> set[str]:
    return set(session.execute(select(ArchiveFile.path).where(ArchiveFile.scope == scope)).scalars())


def files_overlapping(session: Session, scope: str, *, start: datetime | None = None, end: datetime | None = None,
                      interaction: int | None = None, through_seq: int | None = None,
                      interactions: tuple[int, int] | None = None) -> list[ArchiveFile]:
    """The scope's files (any state) that may hold messages in [start, end), of `interaction`,
    or of an interaction in the range `interactions` (first, last)."""
    parameters = {"scope": scope, "start": start, "end": end, "interaction": interaction, "through_seq": through_seq,
                  "first": interactions[0] if interactions else None, "last": interactions[1] if interactions else None}
    shape = (end is not None, start is not None, interaction is not None, interactions is not None, through_seq is not None)
    return list(session.execute(_overlapping(*shape), {k: v for k, v in parameters.items() if v is not None}).scalars())


@lru_cache(maxsize=32)
def _overlapping(end: bool, start: bool, interaction: bool, interactions: bool, through_seq: bool):
    """files_overlapping's statement for the bounds given, built once per shape."""
    stmt = select(ArchiveFile).where(ArchiveFile.scope == bindparam("scope"))
    if end:
        stmt = stmt.where(ArchiveFile.first_at < bindparam("end"))
    if start:
        stmt = stmt.where(ArchiveFile.last_at >= bindparam("start"))
    if interaction:
        stmt = stmt.where(ArchiveFile.first_interaction <= bindparam("interaction"),
                          ArchiveFile.last_interaction >= bindparam("interaction"))
    if interactions:
        stmt = stmt.where(ArchiveFile.first_interaction <= bindparam("last"), ArchiveFile.last_interaction >= bindparam("first"))
    if through_seq:
        stmt = stmt.where(ArchiveFile.first_seq <= bindparam("through_seq"))
    return stmt.order_by(ArchiveFile.first_seq)


@dataclass(frozen=True)
class ArchiveTally:
    files: int
    rows: int
    bytes: int
    first_at: datetime | None
    last_at: datetime | None


def tallies(session: Session, scope: str | None = None) -> dict[str, ArchiveTally]:
    """Per scope: the finished files, messages and bytes archived, and the time span they cover."""
    stmt = (select(ArchiveFile.scope, func.count(), func.sum(ArchiveFile.rows), func.sum(ArchiveFile.bytes),
                   func.min(ArchiveFile.first_at), func.max(ArchiveFile.last_at))
            .where(ArchiveFile.state == DONE).group_by(ArchiveFile.scope))
    if scope is not None:
        stmt = stmt.where(ArchiveFile.scope == scope)
    out = {}
    for name, files, rows, size, first, last in session.execute(stmt):
        out[name] = ArchiveTally(files, int(rows or 0), int(size or 0), first, last)
    return out


def done_files(session: Session, scope: str) -> list[ArchiveFile]:
    stmt = select(ArchiveFile).where(ArchiveFile.scope == scope, ArchiveFile.state == DONE).order_by(ArchiveFile.first_seq)
    return list(session.execute(stmt).scalars())


def scopes_with_files(session: Session) -> list[str]:
    return list(session.execute(select(ArchiveFile.scope).distinct()).scalars())


def settle_written(engine: Engine, root: Path, row, manifest) -> None:
    """A file a killed run left recorded as 'written' (a message or a summary manifest row):
    finished when it reads back as recorded, else forgotten and removed (its hot rows are
    intact, so a later run writes it again). `manifest` is the module of the row's table
    (stores.archive_manifest or stores.summary_manifest): both have finish and drop."""
    path = Path(row.path)
    if verify(root, path, row.rows, row.checksum):
        ids = file_ids(root, path)
        with transaction(engine) as session:
            manifest.finish(session, row.id, ids)
    else:
        with transaction(engine) as session:
            manifest.drop(session, row.id)
        (root / path).unlink(missing_ok=True)
