"""The message log: every message and action an agent logged, append-only.

Appends are idempotent: a message's id is the caller's idempotency key, or a hash of
(scope, at, role, speaker, text), so importing the same history twice adds nothing. Each
new message gets the next per-scope arrival number (`seq`) inside the same write
transaction, which is what batches and interactions are cut from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Sequence

from functools import lru_cache

from sqlalchemy import Column, Index, String, bindparam, func, insert, select, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Field, Session, SQLModel

from stores.archived_ids import archived_among
from stores.types import UTCDateTime, bind_utc, utc

ROLES = ("user", "assistant", "action", "tool", "system")
PEOPLE_ROLES = ("user",)


class Message(SQLModel, table=True):
    __tablename__ = "message"
    __table_args__ = (
        Index("ix_message_scope_seq", "scope", "seq", unique=True),
        Index("ix_message_scope_at", "scope", "at"),
        # An interaction's messages up to a seq: both equalities and the range in one index.
        # With only (scope, interaction) SQLite preferred (scope, seq) and read the scope's
        # whole history for every interaction summary (tests/test_message_plans.py).
        Index("ix_message_scope_interaction_seq", "scope", "interaction", "seq"),
    )

    id: str = Field(sa_column=Column(String(128), primary_key=True))
    scope: str = Field(sa_column=Column(String(128), nullable=False))
    seq: int
    at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    role: str = Field(sa_column=Column(String(16), nullable=False))
    speaker: str | None = Field(default=None, sa_column=Column(String(256)))
    text: str
    session: str | None = Field(default=None, sa_column=Column(String(256)))
    received_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    interaction: int | None = None  # assigned by the daemon, in arrival order


class NewMessage(NamedTuple):
    """A validated message on its way into the log (times are aware).

    A NamedTuple rather than a frozen dataclass: large imports build one per line.
    """

    scope: str
    at: datetime
    role: str
    text: str
    speaker: str | None = None
    session: str | None = None
    id: str | None = None

    def key(self) -> str:
        """The stored id: the caller's key within its scope, or the content hash.

        A caller's id is prefixed with the scope, so two scopes that happen to use the same
        key never collide (the second would otherwise be dropped as a duplicate).
        """
        if self.id:
            return f"{self.scope}:{self.id}"
        return message_hash(self.scope, self.at, self.role, self.speaker, self.text)


def message_hash(scope: str, at: datetime, role: str, speaker: str | None, text: str) -> str:
    """The default idempotency key: the same message logged twice hashes the same."""
    joined = "\x1f".join((scope, utc(at).isoformat(), role, speaker or "", text))
    return "h:" + hashlib.sha256(joined.encode()).hexdigest()[:40]


@dataclass(frozen=True)
class AppendResult:
    added: int
    duplicates: int
    ids: list[str]


_EXISTING_CHUNK = 5_000  # bound parameters per query: under every supported database's limit


def append_messages(engine: Engine, messages: Sequence[NewMessage], received_at: datetime) -> AppendResult:
    """Append messages in one transaction, skipping ids already logged (or repeated in the input)."""
    with engine.begin() as connection:  # Core, not an ORM session: appends are the hot path
        return insert_new(connection, messages, received_at)


_COLUMNS = ("id", "scope", "seq", "at", "role", "speaker", "text", "session", "received_at", "interaction")


def insert_new(connection: Connection, messages: Sequence[NewMessage], received_at: datetime) -> AppendResult:
    """Insert the messages whose ids are new, inside the caller's write transaction.

    The rows go to the driver's executemany with values converted once per column type
    (the hot path of large imports); the SQL is plain INSERT, so any dialect runs it.
    """
    keys = [m.key() for m in messages]
    existing = _existing_ids(connection, set(keys))
    convert = _converter(connection.dialect)
    received = convert(utc(received_at))
    next_seq: dict[str, int] = {}
    rows: list[tuple] = []
    for message, key in zip(messages, keys):
        if key in existing:
            continue
        existing.add(key)
        scope = message.scope
        if scope not in next_seq:
            next_seq[scope] = _max_seq(connection, scope)
        next_seq[scope] += 1
        rows.append(
            (key, scope, next_seq[scope], convert(message.at), message.role, message.speaker, message.text,
             message.session, received, None)
        )
    if rows:
        sql, positional = _insert_sql(connection.dialect)
        if not positional:
            rows = [dict(zip(_COLUMNS, row)) for row in rows]
        connection.exec_driver_sql(sql, rows)
    return AppendResult(added=len(rows), duplicates=len(messages) - len(rows), ids=keys)


def _converter(dialect):
    """The bind conversion of our UTC datetime columns for this dialect, looked up once."""
    return bind_utc(Message.__table__.c.at.type, dialect)


@lru_cache(maxsize=8)
def _insert_sql(dialect) -> tuple[str, bool]:
    """The plain INSERT compiled for the dialect's own parameter style, and whether it is positional."""
    stmt = insert(Message.__table__).values({name: bindparam(name) for name in _COLUMNS})
    compiled = stmt.compile(dialect=dialect)
    return str(compiled), bool(compiled.positional)


def _existing_ids(connection: Connection | Session, keys: set[str]) -> set[str]:
    found: set[str] = set()
    ordered = list(keys)
    for start in range(0, len(ordered), _EXISTING_CHUNK):
        chunk = ordered[start : start + _EXISTING_CHUNK]
        found.update(connection.execute(select(Message.id).where(Message.id.in_(chunk))).scalars())
    return found | archived_among(connection, keys - found)  # an archived id is still a duplicate


def _max_seq(session: Connection | Session, scope: str) -> int:
    return session.execute(select(func.coalesce(func.max(Message.seq), 0)).where(Message.scope == scope)).scalar_one()


def messages_between(session: Session, scope: str, first_seq: int, last_seq: int) -> list[Message]:
    """The scope's messages with first_seq <= seq <= last_seq, in arrival order."""
    stmt = (
        select(Message)
        .where(Message.scope == scope, Message.seq >= first_seq, Message.seq <= last_seq)
        .order_by(Message.seq)
    )
    return list(session.execute(stmt).scalars())


def messages_after(session: Session, scope: str, after_seq: int, limit: int) -> list[Message]:
    stmt = select(Message).where(Message.scope == scope, Message.seq > after_seq).order_by(Message.seq).limit(limit)
    return list(session.execute(stmt).scalars())


_SCOPES_SQL = text(
    # A loose index scan: one index probe per scope instead of reading every message.
    # Plain recursive SQL, so SQLite and PostgreSQL both run it.
    "WITH RECURSIVE s(scope) AS ("
    " SELECT min(scope) FROM message"
    " UNION ALL SELECT (SELECT min(m.scope) FROM message m WHERE m.scope > s.scope) FROM s WHERE s.scope IS NOT NULL"
    ") SELECT scope FROM s WHERE scope IS NOT NULL"
)


def scopes(session: Session) -> list[str]:
    """Every scope with messages, in order; cost grows with the number of scopes, not messages."""
    return list(session.execute(_SCOPES_SQL).scalars())


def scope_heads(session: Session) -> dict[str, int]:
    """scope -> newest seq (also its message count: seq is dense per scope)."""
    return {scope: _max_seq(session, scope) for scope in scopes(session)}



def stored_message(engine: Engine, message_id: str) -> Message | None:
    """The logged message with this stored id (to tell a retried append from a changed one)."""
    with Session(engine, expire_on_commit=False) as session:
        return session.get(Message, message_id)


def newest_at(session: Session, scope: str) -> datetime | None:
    """The time of the scope's newest message (an index probe), None for an empty scope."""
    return session.execute(select(func.max(Message.at)).where(Message.scope == scope)).scalar_one()


def newest_seq(session: Session, scope: str) -> int:
    """The scope's newest seq, which is also its message count (0 for an empty scope)."""
    return _max_seq(session, scope)
