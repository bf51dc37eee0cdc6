"""The message log: every message and action an agent logged, append-only.

Appends are idempotent: a message's id is the caller's idempotency key, or a hash of
(scope, at, role, speaker, text and, when it has any, attachments), so importing the same history twice adds nothing. Each
new message gets the next per-scope arrival number (`seq`) inside the same write
transaction, which is what batches and interactions are cut from.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from functools import lru_cache

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from stores.archived_lookup import archived_in_files
from stores.engine import insert_or_skip
from stores.prepared import send
from stores.scope_head import Reserved, reserve, set_last
from stores.archived_ids import archived_among
from stores.types import bind_utc, utc
from stores.work_queue import mark_due
from stores.schema.log import Message

ROLES = ("user", "assistant", "action", "tool", "system")
PEOPLE_ROLES = ("user",)


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
    attachments: str | None = None  # canonical JSON text, None for none

    def key(self) -> str:
        """The stored id: the caller's key within its scope, or the content hash.

        A caller's id is prefixed with the scope, so two scopes that happen to use the same
        key never collide (the second would otherwise be dropped as a duplicate).
        """
        if self.id:
            return f"{self.scope}:{self.id}"
        return message_hash(self.scope, self.at, self.role, self.speaker, self.text, self.attachments)


def message_hash(scope: str, at: datetime, role: str, speaker: str | None, text: str,
                 attachments: str | None = None) -> str:
    """The default idempotency key: the same message logged twice hashes the same. Attachments
    count only when there are some, so a message without any keeps the id it always had."""
    parts = (scope, utc(at).isoformat(), role, speaker or "", text)
    joined = "\x1f".join((*parts, attachments) if attachments else parts)
    return "h:" + hashlib.sha256(joined.encode()).hexdigest()[:40]


@dataclass(frozen=True)
class AppendResult:
    added: int
    duplicates: int
    ids: list[str]


_EXISTING_CHUNK = 5_000  # bound parameters per query: under every supported database's limit
ROWS_PER_INSERT = 1_000  # rows per multi-row INSERT: one round trip each, 9,000 bound parameters


def append_messages(engine: Engine, messages: Sequence[NewMessage], received_at: datetime, *,
                    archive_root: Path | None = None) -> AppendResult:
    """Append messages in one transaction, skipping ids already logged (or repeated in the input,
    or archived: `archive_root` is the archive directory, see `insert_new`)."""
    with engine.begin() as connection:  # Core, not an ORM session: appends are the hot path
        return insert_new(connection, messages, received_at, archive_root=archive_root)


_COLUMNS = ("id", "scope", "seq", "at", "role", "speaker", "text", "session", "received_at", "attachments")


def insert_new(connection: Connection, messages: Sequence[NewMessage], received_at: datetime,
               progress: Callable[[int], None] | None = None, *, archive_root: Path | None = None) -> AppendResult:
    """Insert the messages whose ids are new, inside the caller's write transaction.

    Exact under concurrency on every engine. The new messages' seqs are reserved on each
    scope's counter (stores/scope_head.py), which holds off other appends to the scope until
    this one commits and says how far the scope's archive reaches; the rows go in with ON
    CONFLICT DO NOTHING, so an id already logged is skipped, not an error, and the seqs are
    closed up behind it (`_close_gaps`). One message (the agent's append) therefore costs three
    statements: the reservation, the insert, the due mark. Several (an import) are first looked
    up among the hot ids, so a re-imported file reserves nothing. Only a message no newer than
    its scope's newest archived message can repeat an archived id: only those are looked up in
    the archived ids' hashes and, under `archive_root` (settings' archive.dir; None: no file is
    read), in the scope's archive files (stores/archived_lookup.py). Rows go in statements of
    ROWS_PER_INSERT rows, values converted once per column type. `progress` is told how many
    messages each chunk settled.
    """
    keys = [m.key() for m in messages]
    existing = _existing_ids(connection, set(keys)) if len(messages) > 1 else set()
    fresh: list[tuple[NewMessage, str]] = []
    for message, key in zip(messages, keys):
        if key not in existing:
            existing.add(key)  # a key repeated in the input is a duplicate too
            fresh.append((message, key))
    counts = Counter(message.scope for message, _ in fresh)
    reserved = reserve(connection, counts)
    archived = _archived(connection, fresh, reserved, archive_root)
    if archived:  # give back the seqs reserved for them: the counter rows are still ours
        fresh = [(m, k) for m, k in fresh if k not in archived]
        kept = Counter(message.scope for message, _ in fresh)
        for scope, count in counts.items():
            if kept[scope] < count:
                set_last(connection, scope, reserved[scope].first + kept[scope] - 1)
        counts = kept
    firsts = {scope: reserved[scope].first for scope in counts}
    next_seq = dict(firsts)
    convert = _converter(connection.dialect)
    received = convert(utc(received_at))
    rows: list[tuple] = []
    inserted = 0
    for message, key in fresh:
        seq = next_seq[message.scope]
        next_seq[message.scope] = seq + 1
        rows.append((key, message.scope, seq, convert(message.at), message.role, message.speaker, message.text,
                     message.session, received, message.attachments))
        if len(rows) == ROWS_PER_INSERT:
            inserted += _insert_rows(connection, rows)
            _tell(progress, len(rows))
            rows = []
    if rows:
        inserted += _insert_rows(connection, rows)
        _tell(progress, len(rows))
    _tell(progress, len(messages) - len(fresh))
    if inserted < len(fresh):
        inserted = _close_gaps(connection, firsts, counts)
    if inserted:  # work_queue: the scopes have new work
        mark_due(connection, counts, min([received_at, *(m.at for m, _ in fresh)]))  # aware: compared as instants
    return AppendResult(added=inserted, duplicates=len(messages) - inserted, ids=keys)


def _archived(connection: Connection, fresh: list[tuple[NewMessage, str]], reserved: dict[str, Reserved],
              root: Path | None) -> set[str]:
    """Which of the fresh keys repeat an archived id: only a message no newer than its scope's
    newest archived message is looked up (in the hashes of recently archived ids, then in the
    scope's files): a live append, newer than anything archived, costs no statement here."""
    old = [(key, message.scope, utc(message.at)) for message, key in fresh
           if (reach := reserved[message.scope].archived_through) is not None and utc(message.at) <= reach]
    if not old:
        return set()
    found = archived_among(connection, {key for key, _, _ in old})
    return found | archived_in_files(connection, root, [c for c in old if c[0] not in found])


def _tell(progress: Callable[[int], None] | None, count: int) -> None:
    if progress is not None and count:
        progress(count)


def _close_gaps(connection: Connection, firsts: dict[str, int], counts: Counter) -> int:
    """Renumber this append's rows after skipped duplicates, so seq stays dense; the rows kept.

    Rare: another writer committed one of these ids after the check and before the
    reservation. The counters are still locked by this transaction and the reserved ranges
    hold only its own rows, so moving each row down to the next free seq, lowest first,
    never collides.
    """
    kept = 0
    for scope, first in firsts.items():
        last = first + counts[scope] - 1
        ids = connection.execute(select(Message.id).where(Message.scope == scope, Message.seq >= first,
                                                          Message.seq <= last).order_by(Message.seq)).scalars().all()
        table = Message.__table__
        for offset, message_id in enumerate(ids):
            connection.execute(update(table).where(table.c.id == message_id).values(seq=first + offset))
        set_last(connection, scope, first + len(ids) - 1)
        kept += len(ids)
    return kept


@lru_cache(maxsize=8)
def _converter(dialect):
    """The bind conversion of our UTC datetime columns for this dialect, looked up (and its probes
    run) once per dialect object, not once per append."""
    return bind_utc(Message.__table__.c.at.type, dialect)


def _insert_rows(connection: Connection, rows: list[tuple]) -> int:
    """One INSERT ... ON CONFLICT DO NOTHING of `rows` (tuples in _COLUMNS order): one round
    trip; the number of rows inserted.

    PostgreSQL gets one array per column, unnested server-side: a short statement the driver
    parses once, whatever the number of rows. Elsewhere (SQLite) a multi-row VALUES list.
    """
    dialect = connection.dialect
    if dialect.name == "postgresql":
        columns = {name: list(values) for name, values in zip(_COLUMNS, zip(*rows))}
        return connection.exec_driver_sql(_unnest_sql(dialect), columns).rowcount
    return send(connection, _values_sql(dialect, len(rows)), tuple(v for row in rows for v in row))[1]


@lru_cache(maxsize=4)
def _unnest_sql(dialect) -> str:
    """INSERT ... SELECT * FROM unnest(<one array parameter per column>) for PostgreSQL."""
    table = Message.__table__
    arrays = ", ".join(f"CAST(%({name})b AS {table.c[name].type.compile(dialect)}[])" for name in _COLUMNS)
    return f"INSERT INTO {table.name} ({', '.join(_COLUMNS)}) SELECT * FROM unnest({arrays}) ON CONFLICT (id) DO NOTHING"


@lru_cache(maxsize=16)
def _values_sql(dialect, count: int) -> str:
    """The one-row INSERT compiled for a positional dialect, its VALUES group repeated `count` times."""
    one = {name: bindparam(name) for name in _COLUMNS}
    compiled = insert_or_skip(Message.__table__, dialect).values(one).compile(dialect=dialect)
    if not compiled.positional or tuple(compiled.positiontup) != _COLUMNS:
        raise NotImplementedError(f"bulk insert for {dialect.name}")  # check_url admits no such database
    head, rest = str(compiled).split(" VALUES ", 1)
    group = rest[: rest.index(")") + 1]
    return f"{head} VALUES {', '.join([group] * count)}{rest[len(group):]}"


def logged_content(connection: Connection, keys: Sequence[str]) -> dict[str, NewMessage]:
    """The content of those of `keys` already logged (hot rows), as NewMessages: what an append
    repeating a caller's id is compared with (an id reused for other content is a conflict)."""
    found: dict[str, NewMessage] = {}
    ordered = sorted(_existing_ids(connection, set(keys)))  # a new id (most of an import) costs no row read
    for start in range(0, len(ordered), _EXISTING_CHUNK):
        chunk = ordered[start : start + _EXISTING_CHUNK]
        rows = connection.execute(select(Message.id, Message.scope, Message.at, Message.role, Message.text, Message.speaker,
                                         Message.session, Message.attachments).where(Message.id.in_(chunk)))
        for key, scope, at, role, text_, speaker, session, attachments in rows:
            found[key] = NewMessage(scope=scope, at=at, role=role, text=text_, speaker=speaker, session=session,
                                    attachments=attachments)
    return found


def _existing_ids(connection: Connection, keys: set[str]) -> set[str]:
    """Which of `keys` are logged already: a few queries of _EXISTING_CHUNK ids each (on
    PostgreSQL one binary array parameter per query instead of thousands of parameters)."""
    found: set[str] = set()
    ordered = list(keys)
    array = connection.dialect.name == "postgresql"
    for start in range(0, len(ordered), _EXISTING_CHUNK):
        chunk = ordered[start : start + _EXISTING_CHUNK]
        if array:
            found.update(connection.exec_driver_sql(_ANY_ID_SQL, {"ids": chunk}).scalars())
        elif connection.dialect.paramstyle == "qmark":  # the IN list written once, not compiled per id
            marks = ", ".join("?" * len(chunk))
            found.update(connection.exec_driver_sql(f"SELECT id FROM message WHERE id IN ({marks})", tuple(chunk)).scalars())
        else:
            found.update(connection.execute(select(Message.id).where(Message.id.in_(chunk))).scalars())
    return found


_ANY_ID_SQL = "SELECT id FROM message WHERE id = ANY(CAST(%(ids)b AS VARCHAR[]))"


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


def newest_after(session: Session, scope: str, after_seq: int, limit: int) -> list[Message]:
    """The scope's `limit` newest messages with seq > after_seq, in arrival order (newest last):
    one backward range read of the (scope, seq) index."""
    if limit <= 0:
        return []
    stmt = (select(Message).where(Message.scope == scope, Message.seq > after_seq)
            .order_by(Message.seq.desc()).limit(limit))
    return list(reversed(session.execute(stmt).scalars().all()))


def lines_before(session: Session, scope: str, interaction: int | None, before_seq: int, limit: int) -> list[Message]:
    """Up to `limit` of the scope's messages just before `before_seq` in the same interaction, in
    arrival order: a batch's context lines (one backward read of the (scope, interaction, seq)
    index). None for a message with no interaction, or with `limit` 0."""
    if limit <= 0 or interaction is None:
        return []
    stmt = (select(Message)
            .where(Message.scope == scope, Message.interaction == interaction, Message.seq < before_seq)
            .order_by(Message.seq.desc()).limit(limit))
    return list(reversed(session.execute(stmt).scalars().all()))


def span_after(session: Session, scope: str, after_seq: int) -> tuple[int, datetime | None]:
    """How many of the scope's messages have seq > after_seq, and the oldest time among them
    (None when there are none): one statement over that range of the (scope, seq) index, so
    its cost grows with the range (the messages not yet consolidated), not the scope."""
    row = session.execute(select(func.count(), func.min(Message.at))
                          .where(Message.scope == scope, Message.seq > after_seq)).one()
    return int(row[0]), row[1]


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


def newest_at(session: Session, scope: str) -> datetime | None:
    """The time of the scope's newest message (an index probe), None for an empty scope."""
    return session.execute(select(func.max(Message.at)).where(Message.scope == scope)).scalar_one()


def newest_seq(session: Session, scope: str) -> int:
    """The scope's newest seq, which is also its message count (0 for an empty scope)."""
    return _max_seq(session, scope)
