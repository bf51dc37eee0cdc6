"""The model's tables: the spend ledger, Message Batches and their requests, interaction summaries
promised to the ladders."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Column, Float, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from stores.bounds import Bounded
from stores.schema.fields import instant_field, scope_field
from stores.types import UTCDateTime


# The scope of a forgotten scope's calls: not a valid scope name, so it never names a real one.
FORGOTTEN_SCOPE = "(forgotten)"


class ModelCall(SQLModel, table=True):
    __tablename__ = "model_call"
    # `forget` keeps the spend (the budget and the bill count it) but not whose it was.
    __table_args__ = (Index("ix_model_call_at", "at"), {"info": {"forget_keeps": {"scope": FORGOTTEN_SCOPE, "ref": ""}}})

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = instant_field()
    operation: str = Field(sa_column=Column(Bounded(32), nullable=False))
    scope: str = scope_field()
    ref: str = Field(sa_column=Column(Bounded(256), nullable=False))
    model: str = Field(sa_column=Column(Bounded(128), nullable=False))
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    latency_ms: int = 0
    outcome: str = Field(sa_column=Column(String(8), nullable=False))  # ok | invalid | error
    cost_usd: float = Field(default=0.0, sa_column=Column(Float, nullable=False))


class BatchRequest(SQLModel, table=True):
    __tablename__ = "model_batch_request"
    __table_args__ = (Index("ix_model_batch_request_state", "state"), Index("ix_model_batch_request_batch", "batch_key"))

    custom_id: str = Field(sa_column=Column(String(64), primary_key=True))
    scope: str = scope_field()
    operation: str = Field(sa_column=Column(String(32), nullable=False))
    ref: str = Field(sa_column=Column(String(256), nullable=False))
    model: str = Field(sa_column=Column(String(128), nullable=False))
    params: str = Field(sa_column=Column(Text, nullable=False))  # the Messages API body, JSON
    state: str = Field(sa_column=Column(String(16), nullable=False))
    alone: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))  # resubmit in a batch of its own
    tries: int = Field(default=0, sa_column=Column(Integer, nullable=False))  # batches it was sent in
    batch_key: int | None = Field(default=None, sa_column=Column(Integer))
    created_at: datetime = instant_field()
    answered_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    result: str | None = Field(default=None, sa_column=Column(Text))  # the answering Message, JSON


class MessageBatch(SQLModel, table=True):
    __tablename__ = "model_batch"

    key: int | None = Field(default=None, primary_key=True)
    batch_id: str | None = Field(default=None, sa_column=Column(String(128), unique=True))  # the API's
    state: str = Field(sa_column=Column(String(16), nullable=False))  # submitting | in_progress | ended
    requests: int = 0
    created_at: datetime = instant_field()
    ended_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class PromisedSummary(SQLModel, table=True):
    __tablename__ = "promised_summary"

    key: str = Field(sa_column=Column(String(64), primary_key=True))
    scope: str = scope_field()
    ref: str = Field(sa_column=Column(String(256), nullable=False))
    created_at: datetime = instant_field()
    text: str | None = Field(default=None, sa_column=Column(Text))
