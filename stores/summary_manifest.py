"""The manifest of archived summaries: which Parquet file holds which summary rows, and how far
each move got. The same protocol as the message archive (stores/archive_manifest.py):
  1. the file is written under a temporary name, fsynced and renamed (stores/files/summary_files.py);
  2. `record_written`: a row in state 'written' -- the hot summary rows are all still there;
  3. `finish`: one transaction deletes the hot rows (and the announcements of theirs that every
     reader has seen), and sets the row to 'done'.
A summary is hot, or in exactly one 'done' file; a kill between the steps is completed or rolled
back by the next run as for message files.

A file's `first_position`/`last_position` bound the positions of the windows it holds (the
ordinal of a time window's first day, the first interaction of a count window): a read for
windows outside every file's range (any read of recent windows) costs one probe of this table.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Sequence

from sqlalchemy import bindparam, delete, func, select
from sqlmodel import Session

from stores.archive_manifest import DONE, WRITTEN
from stores.engine import core
from stores.schema.ladders import LadderState
from stores.schema.ladders import Announcement, Summary
from stores.schema.archive import SummaryArchiveFile

_CHUNK = 2_000


def position(ladder: str, key: str) -> int:
    """Where a window sits in its ladder, from its key alone: the ordinal of a time window's
    first day (keys are ISO dates), or a count window's first interaction (keys are 'first-last')."""
    if ladder == "time":
        return date.fromisoformat(key).toordinal()
    return int(key.split("-", 1)[0])


def record_written(session: Session, scope: str, ladder: str, path: str, rows: Sequence[Summary], checksum: str,
                   size: int, now: datetime) -> int:
    """Step 2: the file is on disk and verified; its hot rows are still there. Returns its id."""
    positions = [position(ladder, r.key) for r in rows]
    row = SummaryArchiveFile(scope=scope, ladder=ladder, path=path, state=WRITTEN, rows=len(rows), checksum=checksum,
                             bytes=size, first_position=min(positions), last_position=max(positions), created_at=now)
    session.add(row)
    session.flush()
    return row.id


def finish(session: Session, file_id: int, ids: Sequence[str]) -> int:
    """Step 3, one transaction: delete the file's hot summary rows and their seen announcements,
    mark the file done. Returns the hot rows deleted.

    An announcement only wakes the ladder stage (its cursor, `seen_announcement`, moves past it);
    one below the cursor is never read again. The scope's newest announcement of the ladder stays,
    so the next id is still above every id a cursor holds (SQLite reuses only the largest rowid)."""
    row = session.get(SummaryArchiveFile, file_id)
    state = session.get(LadderState, (row.scope, row.ladder))
    seen = state.seen_announcement if state else 0
    newest = session.execute(select(func.max(Announcement.id)).where(
        Announcement.scope == row.scope, Announcement.ladder == row.ladder)).scalar_one() or 0
    deleted = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        deleted += session.execute(delete(Summary).where(Summary.id.in_(chunk))).rowcount or 0
        session.execute(delete(Announcement).where(Announcement.summary_id.in_(chunk), Announcement.id <= seen,
                                                   Announcement.id < newest))
    row.state = DONE
    return deleted


def drop(session: Session, file_id: int) -> None:
    """Forget a 'written' row whose file did not verify (its hot rows are intact)."""
    session.execute(delete(SummaryArchiveFile).where(SummaryArchiveFile.id == file_id,
                                                     SummaryArchiveFile.state == WRITTEN))


def pending(session: Session) -> list[SummaryArchiveFile]:
    """Rows left in 'written' by an interrupted run."""
    return list(session.execute(select(SummaryArchiveFile).where(SummaryArchiveFile.state == WRITTEN)).scalars())


def recorded_paths(session: Session, scope: str) -> set[str]:
    return set(session.execute(select(SummaryArchiveFile.path).where(SummaryArchiveFile.scope == scope)).scalars())


_BETWEEN = (select(SummaryArchiveFile.path)
            .where(SummaryArchiveFile.scope == bindparam("scope"), SummaryArchiveFile.ladder == bindparam("ladder"),
                   SummaryArchiveFile.state == DONE, SummaryArchiveFile.last_position >= bindparam("first"),
                   SummaryArchiveFile.first_position <= bindparam("last"))
            .order_by(SummaryArchiveFile.id))


def files_between(session: Session, scope: str, ladder: str, first: int | None = None,
                  last: int | None = None) -> list[str]:
    """The paths of the scope's done files of the ladder that may hold windows positioned in
    [first, last] (paths only: the ladders probe this for every block they decide)."""
    if first is not None and last is not None:  # the ladders' probe: a statement built once
        parameters = {"scope": scope, "ladder": ladder, "first": first, "last": last}
        return list(core(session, _BETWEEN, parameters).scalars())
    stmt = select(SummaryArchiveFile.path).where(SummaryArchiveFile.scope == scope,
                                                 SummaryArchiveFile.ladder == ladder, SummaryArchiveFile.state == DONE)
    if first is not None:
        stmt = stmt.where(SummaryArchiveFile.last_position >= first)
    if last is not None:
        stmt = stmt.where(SummaryArchiveFile.first_position <= last)
    return list(session.execute(stmt.order_by(SummaryArchiveFile.id)).scalars())


def tallies(session: Session, scope: str | None = None) -> dict[str, tuple[int, int, int]]:
    """Per scope: (done files, summary rows, bytes) archived."""
    stmt = (select(SummaryArchiveFile.scope, func.count(), func.sum(SummaryArchiveFile.rows),
                   func.sum(SummaryArchiveFile.bytes))
            .where(SummaryArchiveFile.state == DONE).group_by(SummaryArchiveFile.scope))
    if scope is not None:
        stmt = stmt.where(SummaryArchiveFile.scope == scope)
    return {name: (files, int(rows or 0), int(size or 0)) for name, files, rows, size in session.execute(stmt)}
