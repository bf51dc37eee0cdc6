"""Import idempotency for archived messages: hot hashes for a while, the Parquet files after.

An appended id is a duplicate if it is hot, if its hash is in `archived_id`, or if it is in one
of its scope's archive files. The hashes of a file's ids stay hot for `archive.after` after the
file was archived (`expire_hashes`, run by each archive pass), so `archived_id` holds a bounded
few months of ids whatever the years archived. The files are read only for messages whose
time is at or before the newest archived message time of their scope (`archived_in_files`): a
live append (a recent time) never opens DuckDB; an import of old history reads the id column
of the scope's files once per append call.

Only a message no newer than its scope's newest archived message (`scope_head.archived_through`)
is looked up at all (stores/messages.py): an archived id re-sent with a newer time is taken as
new. A retry carries its message's time, and a content-hash id includes it. DESIGN.md says so.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterable

from sqlalchemy import delete, func, select
from sqlalchemy.engine import Connection
from sqlmodel import Session

from stores.files.archive_files import file_ids, ids_among
from stores.archive_manifest import DONE
from stores.archived_ids import id_hash
from stores.schema.archive import ArchiveFile, ArchivedId, ArchivedIdExpiry

_CHUNK = 5_000


def archived_in_files(connection: Connection, root: Path | None, candidates: Iterable[tuple[str, str, datetime]]) -> set[str]:
    """Of (key, scope, at) not found hot, the keys in their scope's archive files under `root`, the
    archive directory (gated by time); None: no archive directory is known, the files are not read."""
    by_scope: dict[str, list[tuple[str, datetime]]] = {}
    for key, scope, at in candidates:
        by_scope.setdefault(scope, []).append((key, at))
    if not by_scope:
        return set()
    stmt = (select(ArchiveFile.scope, func.max(ArchiveFile.last_at))
            .where(ArchiveFile.scope.in_(list(by_scope)), ArchiveFile.state == DONE).group_by(ArchiveFile.scope))
    reaches = dict(connection.execute(stmt).all())
    found: set[str] = set()
    for scope, reach in reaches.items():
        old = [key for key, at in by_scope[scope] if reach is not None and at <= reach]
        if not old or root is None:
            continue
        paths = [str(root / p) for p in connection.execute(
            select(ArchiveFile.path).where(ArchiveFile.scope == scope, ArchiveFile.state == DONE)).scalars()]
        paths = [p for p in paths if Path(p).is_file()]
        if paths:
            found.update(ids_among(paths, old))
    return found


def expire_hashes(session: Session, root: Path, scope: str, now: datetime, keep: timedelta) -> int:
    """Drop the hashes of the next file archived more than `keep` ago (in the caller's
    transaction, with the cursor); returns the hashes dropped, or -1 when no file is due."""
    cursor = session.get(ArchivedIdExpiry, scope)
    after = cursor.through_file if cursor else 0
    row = session.execute(select(ArchiveFile).where(
        ArchiveFile.scope == scope, ArchiveFile.state == DONE, ArchiveFile.id > after,
        ArchiveFile.created_at < now - keep).order_by(ArchiveFile.id).limit(1)).scalars().first()
    if row is None:
        return -1
    hashes = [id_hash(i) for i in file_ids(root, Path(row.path))]
    dropped = 0
    for start in range(0, len(hashes), _CHUNK):
        dropped += session.execute(delete(ArchivedId).where(ArchivedId.hash.in_(hashes[start : start + _CHUNK]))).rowcount or 0
    if cursor is None:
        session.add(ArchivedIdExpiry(scope=scope, through_file=row.id))
    else:
        cursor.through_file = row.id
    return dropped
