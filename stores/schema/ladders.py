"""The ladders' tables: summaries and their announcements, each ladder's cursors and dirty base
windows, held windows."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


class Summary(SQLModel, table=True):
    __tablename__ = "summary"
    __table_args__ = (
        UniqueConstraint("scope", "ladder", "rung", "key", "version", name="uq_summary_version"),
        Index("ix_summary_window", "scope", "ladder", "rung", "key"),
        Index("ix_summary_hash", "scope", "input_hash"),
        Index("ix_summary_start", "scope", "ladder", "rung", "window_start"),  # newest window of a rung
        Index("ix_summary_first", "scope", "ladder", "rung", "first_number"),
    )

    id: str = Field(sa_column=Column(String(256), primary_key=True))
    scope: str = scope_field()
    ladder: str = Field(sa_column=Column(String(8), nullable=False))
    rung: str = Field(sa_column=Column(String(16), nullable=False))
    key: str = Field(sa_column=Column(String(32), nullable=False))
    version: int
    kind: str = Field(sa_column=Column(String(16), nullable=False))  # summarized|reused|passed|empty
    label: str = Field(sa_column=Column(String(64), nullable=False))
    text: str = Field(sa_column=Column(Text, nullable=False))
    tokens: int = 0
    sources: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    input_hash: str | None = Field(default=None, sa_column=Column(String(64)))
    input_tokens: int = 0  # size of what a model call would read (for the cost bench)
    calls: int = 0  # model calls spent on this row (0 or 1)
    window_start: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    window_end: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    first_number: int | None = None
    last_number: int | None = None
    watermark_seq: int = 0
    watermark_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    created_at: datetime = instant_field()


class Announcement(SQLModel, table=True):
    """A durable completion event: 'this window's summary, version N, exists'."""

    __tablename__ = "announcement"
    __table_args__ = (Index("ix_announcement_scope", "scope", "ladder", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    ladder: str = Field(sa_column=Column(String(8), nullable=False))
    rung: str = Field(sa_column=Column(String(16), nullable=False))
    key: str = Field(sa_column=Column(String(32), nullable=False))
    summary_id: str = Field(sa_column=Column(String(256), nullable=False))
    version: int
    announced_at: datetime = instant_field()


class LadderState(SQLModel, table=True):
    """How far one ladder of one scope has got."""

    __tablename__ = "ladder_state"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    ladder: str = Field(sa_column=Column(String(8), primary_key=True))
    seen_seq: int = 0  # messages up to here have marked their base windows dirty
    seen_announcement: int = 0  # announcements up to here have triggered their readers
    # Time ladder. through_unit: the newest closed day whose closing blocks the stage has woken
    # (a silent day writes nothing, so nothing else would wake the week it completes).
    # first_unit: the first day announced, written by databases from before silent days
    # stopped writing rows; no longer read or written by the stage.
    first_unit: int | None = None
    through_unit: int | None = None


class DirtyWindow(SQLModel, table=True):
    """A base window (day unit or interaction number) that received messages since its summary."""

    __tablename__ = "dirty_window"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    ladder: str = Field(sa_column=Column(String(8), primary_key=True))
    unit: int = Field(primary_key=True)
    last_at: datetime = instant_field()


class LadderHold(SQLModel, table=True):
    """A window whose summary call failed or was deferred: not tried again before `next_at`."""

    __tablename__ = "ladder_hold"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    ladder: str = Field(sa_column=Column(String(8), primary_key=True))
    rung: str = Field(sa_column=Column(String(16), primary_key=True))
    key: str = Field(sa_column=Column(String(32), primary_key=True))
    attempts: int = 0
    next_at: datetime = instant_field()
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
