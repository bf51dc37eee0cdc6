"""Each scope's newest arrival number (`seq`), kept in a counter row that appends lock.

Why a row: `max(seq) + 1` read inside the append transaction is only exact where the
database serialises writers (SQLite's BEGIN IMMEDIATE). Under PostgreSQL's READ COMMITTED
two concurrent appends to one scope read the same maximum and the second fails on the
unique (scope, seq) index. An append instead reserves its seqs by advancing the scope's
counter (UPDATE ... SET last_seq = last_seq + n RETURNING last_seq): the row stays locked
until the append commits, so a second append to the same scope waits there, then advances
the committed value. seq stays dense (1, 2, 3... no gap, no collision) whatever the number
of writers, and the lock is held for as few statements as possible (reserve, insert,
commit). On SQLite BEGIN IMMEDIATE serialises the writers and the same statements run.

A scope's row is created on its first append, from the scope's current maximum (so a
database written before this table existed keeps its numbering), with INSERT ... ON
CONFLICT DO NOTHING: two first appends racing to create it both end up advancing one row.
Counters are advanced in scope order, so two appends to overlapping scopes cannot deadlock.

The row also says how far the scope's archive reaches (`archived_through`, raised by the
archiver in the transaction that finishes a file): the reservation returns it, so an append
knows without another statement whether any of its messages could repeat an archived id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import Integer, bindparam, func, select, update
from sqlalchemy.engine import Connection
from sqlmodel import Session

from stores import prepared
from stores.engine import insert_or_skip
from stores.schema.archive import DONE, ArchiveFile
from stores.schema.log import Message, ScopeHead  # the counter and the log it numbers
from stores.types import utc

CHUNK = 1_000  # scopes per statement: bound parameters stay far under every database's limit


class Reserved(NamedTuple):
    first: int  # the first of the seqs reserved
    archived_through: datetime | None  # the newest archived message time of the scope, None: none


def reserve(connection: Connection, counts: Mapping[str, int]) -> dict[str, Reserved]:
    """scope -> the first of `counts[scope]` new seqs, reserved by advancing the scope's
    counter, and how far its archive reaches; each counter row stays locked (UPDATE) until the
    transaction ends."""
    table = ScopeHead.__table__
    if len(counts) > 1:  # an import: create the missing counters in a few statements, not one per scope
        wanted = sorted(counts)
        known = set()
        for chunk in _chunks(wanted):
            known.update(connection.execute(select(table.c.scope).where(table.c.scope.in_(chunk))).scalars())
        _create(connection, [scope for scope in wanted if scope not in known])
    reserved: dict[str, Reserved] = {}
    for scope in sorted(counts):  # always in scope order: two imports never wait on each other in a cycle
        values = {"head_scope": scope, "count": counts[scope]}
        rows = prepared.run(connection, _ADVANCE, values)  # the driver directly: once per append
        if not rows:
            _create(connection, [scope])
            rows = prepared.run(connection, _ADVANCE, values)
        row = rows[0]
        reserved[scope] = Reserved(row[0] - counts[scope] + 1, row[1])
    return reserved


# Built once: the statement every append sends (SQLAlchemy compiles it once per dialect).
_HEAD = ScopeHead.__table__
_ADVANCE = (update(_HEAD).where(_HEAD.c.scope == bindparam("head_scope"))
            .values(last_seq=_HEAD.c.last_seq + bindparam("count", type_=Integer))
            .returning(_HEAD.c.last_seq, _HEAD.c.archived_through))


def raise_archived_through(connection: Connection | Session, scope: str, at: datetime) -> None:
    """The scope's archive now reaches `at` (if that is newer): called in the transaction that
    finishes an archive file, before its rows go, so the counter row is locked first, as appends
    lock it (no cycle of waits with an append)."""
    table = ScopeHead.__table__
    column = table.c.archived_through
    at = utc(at)
    connection.execute(update(table).where(table.c.scope == scope, (column.is_(None)) | (column < at))
                       .values(archived_through=at))


def set_last(connection: Connection, scope: str, last_seq: int) -> None:
    """Correct a reserved counter (its row is locked by `reserve` in this transaction)."""
    table = ScopeHead.__table__
    connection.execute(update(table).where(table.c.scope == scope).values(last_seq=last_seq))


def _create(connection: Connection, scopes: list[str]) -> None:
    """Counter rows for scopes that have none, starting at each scope's current maximum.

    A row another writer creates meanwhile wins (ON CONFLICT DO NOTHING): it was made by an
    append that locked it, and the lock taken next reads its committed value.
    """
    table = ScopeHead.__table__
    for chunk in _chunks(scopes):
        newest = dict(connection.execute(
            select(Message.scope, func.max(Message.seq)).where(Message.scope.in_(chunk)).group_by(Message.scope)
        ).all())
        reach = dict(connection.execute(
            select(ArchiveFile.scope, func.max(ArchiveFile.last_at))
            .where(ArchiveFile.scope.in_(chunk), ArchiveFile.state == DONE).group_by(ArchiveFile.scope)
        ).all())
        rows = [{"scope": scope, "last_seq": newest.get(scope) or 0, "archived_through": reach.get(scope)}
                for scope in chunk]
        connection.execute(insert_or_skip(table, connection.dialect).values(rows))


def _chunks(items: list[str], size: int = CHUNK) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
