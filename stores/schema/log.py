"""The message log's tables: every message, each scope's seq counter, interactions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


MAX_ID_CHARS = 128  # a caller's idempotency key
MAX_SPEAKER_CHARS = 256
MAX_SESSION_CHARS = 256
# The stored id is "<scope>:<caller's id>" (or "h:" and 40 hex digits): sized from both limits.
STORED_ID_CHARS = MAX_SCOPE_CHARS + 1 + MAX_ID_CHARS


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

    id: str = Field(sa_column=Column(String(STORED_ID_CHARS), primary_key=True))
    scope: str = scope_field()
    seq: int
    at: datetime = instant_field()
    role: str = Field(sa_column=Column(String(16), nullable=False))
    speaker: str | None = Field(default=None, sa_column=Column(String(MAX_SPEAKER_CHARS)))
    text: str
    session: str | None = Field(default=None, sa_column=Column(String(MAX_SESSION_CHARS)))
    received_at: datetime = instant_field()
    interaction: int | None = None  # assigned by the daemon, in arrival order
    # JSON text of the message's attachments ([{"kind", "caption", "uri"?}, ...]), NULL for none;
    # validated at import (consolidator/messages/ingest.py), read by consolidator/model/attachments.py.
    attachments: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class ScopeHead(SQLModel, table=True):
    __tablename__ = "scope_head"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    last_seq: int = Field(sa_column=Column(Integer, nullable=False))
    # The newest `at` of the scope's archived messages (None: nothing archived): an appended
    # message no newer than this may repeat an archived id; a newer one cannot (stores/messages.py).
    archived_through: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), nullable=True))


class Interaction(SQLModel, table=True):
    __tablename__ = "interaction"
    __table_args__ = (
        Index("ix_interaction_scope_number", "scope", "number", unique=True),
        Index("ix_interaction_scope_session", "scope", "session"),
        Index("ix_interaction_scope_last", "scope", "last_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    number: int
    session: str | None = Field(default=None, sa_column=Column(String(256)))
    first_at: datetime = instant_field()
    last_at: datetime = instant_field()
    message_count: int = 0
    max_seq: int = 0
