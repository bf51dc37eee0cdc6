"""The daemons' own tables: the lease, the due-work queue, the fault book, and the view versions
the snapshot stage republishes from."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, String, Text
from sqlmodel import Field, SQLModel

from stores.schema.fields import instant_field
from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


class Lease(SQLModel, table=True):
    __tablename__ = "lease"

    name: str = Field(sa_column=Column(String(64), primary_key=True))
    holder: str = Field(sa_column=Column(String(256), nullable=False))
    host: str = Field(sa_column=Column(String(256), nullable=False))
    pid: int
    acquired_at: datetime = instant_field()
    heartbeat_at: datetime = instant_field()
    expires_at: datetime = instant_field()


class DueScope(SQLModel, table=True):
    __tablename__ = "due_scope"
    __table_args__ = (Index("ix_due_scope_due_at", "due_at"),)

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    due_at: datetime = instant_field()
    marks: int = 0  # bumped by every mark_due: work that came in while a daemon held the claim
    holder: str | None = Field(default=None, sa_column=Column(String(256)))
    claimed_until: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class QueueState(SQLModel, table=True):
    """Once-per-database facts of the queue: `seeded` once every scope of an older database was marked."""

    __tablename__ = "work_queue_state"

    name: str = Field(sa_column=Column(String(32), primary_key=True))
    at: datetime = instant_field()


class Fault(SQLModel, table=True):
    __tablename__ = "fault"

    where: str = Field(sa_column=Column(String(64), primary_key=True))
    scope: str = Field(default="", sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    cause: str = Field(default="", sa_column=Column(Text, nullable=False))
    since: datetime = instant_field()
    last_at: datetime = instant_field()
    count: int = 1


class ViewVersion(SQLModel, table=True):
    __tablename__ = "view_version"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    view: str = Field(sa_column=Column(String(32), primary_key=True))
    version: int = 0
    published: int = 0
