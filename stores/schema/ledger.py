"""The batch ledger's tables: batches, one run per (batch, step), and how far each scope was placed and batched.

A step's outcome is written in the same transaction as the step's own writes, so after a
crash a step is either done (and its writes are there) or not done (and nothing of it is):
re-running the steps that are not done applies every step to every batch exactly once."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from sqlalchemy import Column, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


class RunStatus(str, Enum):
    PENDING = "pending"  # never tried
    RETRYING = "retrying"  # failed, waiting for next_at
    FAILED = "failed"  # gave up after max attempts; `consolidator retry` re-arms it
    DONE = "done"
    RETIRED = "retired"  # its step is no longer configured: not open work, blocks nothing


class Batch(SQLModel, table=True):
    __tablename__ = "batch"
    __table_args__ = (UniqueConstraint("scope", "number", name="uq_batch_scope_number"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    number: int
    first_seq: int
    last_seq: int
    size: int
    reason: str = Field(sa_column=Column(String(16), nullable=False))  # "full" | "idle"
    created_at: datetime = instant_field()


class StepRun(SQLModel, table=True):
    __tablename__ = "step_run"
    __table_args__ = (
        UniqueConstraint("batch_id", "step", name="uq_step_run_batch_step"),
        Index("ix_step_run_status", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    batch_id: int = Field(foreign_key="batch.id", nullable=False)
    scope: str = scope_field()
    step: str = Field(sa_column=Column(String(64), nullable=False))
    status: str = Field(default=RunStatus.PENDING.value, sa_column=Column(String(16), nullable=False))
    attempts: int = 0
    next_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    duration_ms: int | None = None


class ScopeCursor(SQLModel, table=True):
    """How far the daemon has processed each scope's log (arrival numbers)."""

    __tablename__ = "scope_cursor"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    assigned_seq: int = 0  # messages up to here have an interaction
    batched_seq: int = 0  # messages up to here are in a batch
    batches: int = 0  # number of the newest batch
