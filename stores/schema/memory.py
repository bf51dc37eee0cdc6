"""The memory's tables: facts, their uses and revision, refused clusters, contacts with their
details, tasks."""

from __future__ import annotations

from datetime import date, datetime

import numpy as np
from sqlalchemy import JSON, Boolean, Column, Date, Float, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlmodel import Field, SQLModel

from stores.bounds import Bounded
from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


class Fact(SQLModel, table=True):
    __tablename__ = "fact"
    __table_args__ = (
        Index("ix_fact_scope_valid_to", "scope", "valid_to"),
        Index("ix_fact_scope_norm_hash", "scope", "norm_hash"),
    )

    id: str = Field(sa_column=Column(String(32), primary_key=True))
    scope: str = scope_field()
    text: str = Field(sa_column=Column(Text, nullable=False))
    norm_hash: str = Field(sa_column=Column(String(64), nullable=False))
    embedding: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    importance: int = Field(sa_column=Column(Integer, nullable=False))
    strength: float = Field(default=1.0, sa_column=Column(Float, nullable=False))
    last_used: datetime = instant_field()
    created_at: datetime = instant_field()
    updated_at: datetime = instant_field()
    valid_from: datetime = instant_field()
    valid_to: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    superseded_by: str | None = Field(default=None, sa_column=Column(String(32)))
    end_reason: str | None = Field(default=None, sa_column=Column(String(16)))
    tombstoned_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    sources: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    source_roles: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    topic: str = Field(default="general", sa_column=Column(Bounded(64), nullable=False))
    pinned: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))
    fact_table: str | None = Field(default=None, sa_column=Column(String(64)))  # its topic table (stores/fact_tables.py)
    # "reflection": a higher-level fact the offline pass wrote over the facts in `rests_on` (their
    # ids); None (older rows) or "fact": a fact said in the log (docs/reflections.md)
    kind: str | None = Field(default=None, sa_column=Column(String(16)))
    rests_on: list[str] | None = Field(default=None, sa_column=Column(JSON))

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def vector(self) -> np.ndarray:
        return np.frombuffer(self.embedding, dtype=np.float32)

    @property
    def is_reflection(self) -> bool:
        return self.kind == REFLECTION


REFLECTION = "reflection"


class FactUse(SQLModel, table=True):
    """One 'a planner used this fact' record, waiting for the daemon."""

    __tablename__ = "fact_use"
    __table_args__ = (Index("ix_fact_use_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    fact_id: str = Field(sa_column=Column(String(32), nullable=False))
    at: datetime = instant_field()


class FactState(SQLModel, table=True):
    """Per scope: the revision of its facts and what the offline pass last saw."""

    __tablename__ = "fact_state"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    revision: int = 0  # raised by every change to the scope's facts
    importance_since_sleep: int = 0  # summed importance of facts added since the last pass
    slept_revision: int = -1  # revision the last pass left behind
    last_sleep_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class RefusedCluster(SQLModel, table=True):
    __tablename__ = "refused_cluster"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    key: str = Field(sa_column=Column(String(64), primary_key=True))
    decided_at: datetime = instant_field()


class Contact(SQLModel, table=True):
    __tablename__ = "contact"
    __table_args__ = (Index("ix_contact_scope", "scope", "updated_at"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    name: str = Field(sa_column=Column(Bounded(256), nullable=False))
    aliases: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    biography: str = Field(default="", sa_column=Column(Text, nullable=False))
    summary: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = instant_field()
    updated_at: datetime = instant_field()
    sources: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))

    def names(self) -> list[str]:
        return [self.name, *self.aliases]


class ContactDetail(SQLModel, table=True):
    __tablename__ = "contact_detail"
    __table_args__ = (
        Index("ix_contact_detail_contact", "contact_id", "key"),
        Index("ix_contact_detail_scope", "scope"),
    )

    id: int | None = Field(default=None, primary_key=True)
    contact_id: int = Field(sa_column=Column(Integer, ForeignKey("contact.id"), nullable=False))
    scope: str = scope_field()
    key: str = Field(sa_column=Column(Bounded(64), nullable=False))
    value: str = Field(sa_column=Column(Text, nullable=False))
    valid_from: datetime = instant_field()
    valid_to: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    superseded_by: int | None = None
    source_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


OPEN, DONE, CANCELLED = "open", "done", "cancelled"


class Task(SQLModel, table=True):
    __tablename__ = "task"
    __table_args__ = (Index("ix_task_scope_status", "scope", "status", "norm_title"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    title: str = Field(sa_column=Column(Text, nullable=False))
    norm_title: str = Field(sa_column=Column(Bounded(512), nullable=False))
    status: str = Field(default=OPEN, sa_column=Column(String(16), nullable=False))
    due: date | None = Field(default=None, sa_column=Column(Date))
    opened_at: datetime = instant_field()
    closed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    opened_by: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    closed_by: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
