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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from stores.engine import insert_or_skip
from stores.schema.log import Message, ScopeHead  # the counter and the log it numbers

CHUNK = 1_000  # scopes per statement: bound parameters stay far under every database's limit


def reserve(connection: Connection, counts: Mapping[str, int]) -> dict[str, int]:
    """scope -> the first of `counts[scope]` new seqs, reserved by advancing the scope's
    counter; each counter row stays locked (UPDATE) until the transaction ends."""
    table = ScopeHead.__table__
    if len(counts) > 1:  # an import: create the missing counters in a few statements, not one per scope
        wanted = sorted(counts)
        known = set()
        for chunk in _chunks(wanted):
            known.update(connection.execute(select(table.c.scope).where(table.c.scope.in_(chunk))).scalars())
        _create(connection, [scope for scope in wanted if scope not in known])
    firsts: dict[str, int] = {}
    for scope in sorted(counts):  # always in scope order: two imports never wait on each other in a cycle
        advance = (update(table).where(table.c.scope == scope)
                   .values(last_seq=table.c.last_seq + counts[scope]).returning(table.c.last_seq))
        last = connection.execute(advance).scalar_one_or_none()
        if last is None:
            _create(connection, [scope])
            last = connection.execute(advance).scalar_one()
        firsts[scope] = last - counts[scope] + 1
    return firsts


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
        rows = [{"scope": scope, "last_seq": newest.get(scope) or 0} for scope in chunk]
        connection.execute(insert_or_skip(table, connection.dialect).values(rows))


def _chunks(items: list[str], size: int = CHUNK) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
