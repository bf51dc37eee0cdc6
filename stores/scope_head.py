"""Each scope's newest arrival number (`seq`), kept in a counter row that appends lock.

Why a row: `max(seq) + 1` read inside the append transaction is only exact where the
database serialises writers (SQLite's BEGIN IMMEDIATE). Under PostgreSQL's READ COMMITTED
two concurrent appends to one scope read the same maximum and the second fails on the
unique (scope, seq) index. An append therefore first takes its scopes' counter rows
FOR UPDATE: a second append to the same scope waits there until the first commits, then
reads the advanced counter, so seq stays dense (1, 2, 3... with no gap and no collision)
whatever the number of writers. Message ids are scope-bound (a caller's id is prefixed
with its scope, a content hash includes it), so the lock also makes the idempotency check
that follows it exact.

A scope's row is created on its first append, from the scope's current maximum (so a
database written before this table existed keeps its numbering), with INSERT ... ON
CONFLICT DO NOTHING: two first appends racing to create it both end up locking one row.
Rows are locked in scope order, so two appends to overlapping scopes cannot deadlock.
On SQLite FOR UPDATE is a no-op and BEGIN IMMEDIATE already serialises the writers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import Column, Integer, String, bindparam, func, select, update
from sqlalchemy.engine import Connection
from sqlmodel import Field, SQLModel

from stores.engine import insert_or_skip
from stores.scopes import MAX_SCOPE_CHARS

CHUNK = 1_000  # scopes per statement: bound parameters stay far under every database's limit


class ScopeHead(SQLModel, table=True):
    __tablename__ = "scope_head"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    last_seq: int = Field(sa_column=Column(Integer, nullable=False))


def lock_heads(connection: Connection, scopes: Iterable[str]) -> dict[str, int]:
    """scope -> its newest seq, each scope's counter row locked until the transaction ends."""
    wanted = sorted(set(scopes))
    heads = _locked(connection, wanted)
    missing = [scope for scope in wanted if scope not in heads]
    if missing:
        _create(connection, missing)
        heads.update(_locked(connection, missing))
    return heads


def advance_heads(connection: Connection, newest: Mapping[str, int]) -> None:
    """Record each scope's new newest seq (its row is locked by `lock_heads` in this transaction)."""
    if not newest:
        return
    table = ScopeHead.__table__
    stmt = update(table).where(table.c.scope == bindparam("head_scope")).values(last_seq=bindparam("head_seq"))
    connection.execute(stmt, [{"head_scope": scope, "head_seq": seq} for scope, seq in newest.items()])


def _locked(connection: Connection, scopes: list[str]) -> dict[str, int]:
    table = ScopeHead.__table__
    found: dict[str, int] = {}
    for chunk in _chunks(scopes):
        stmt = select(table.c.scope, table.c.last_seq).where(table.c.scope.in_(chunk)).order_by(table.c.scope)
        found.update(connection.execute(stmt.with_for_update()).all())
    return found


def _create(connection: Connection, scopes: list[str]) -> None:
    """Counter rows for scopes that have none, starting at each scope's current maximum.

    A row another writer creates meanwhile wins (ON CONFLICT DO NOTHING): it was made by an
    append that locked it, and the lock taken next reads its committed value.
    """
    from stores.messages import Message  # the log this counter numbers

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
