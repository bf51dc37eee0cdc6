"""Topic tables of facts: the registry of a scope's tables and the record of every restructure.

A current fact names its table in `fact.fact_table` (the table's name); `fact_table` holds each
table's name, file slug, one-line description and the vector placement compares facts with;
`fact_table_move` records every fact a restructure moved (from, to, when, why).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, LargeBinary, String, Text
from sqlmodel import Field, SQLModel

from stores.bounds import Bounded
from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS


class FactTable(SQLModel, table=True):
    __tablename__ = "fact_table"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    name: str = Field(sa_column=Column(String(64), primary_key=True))
    slug: str = Field(sa_column=Column(String(64), nullable=False))
    description: str = Field(default="", sa_column=Column(Text, nullable=False))
    vector: bytes | None = Field(default=None, sa_column=Column(LargeBinary))  # None: embed "name: description"
    created_at: datetime = instant_field()
    updated_at: datetime = instant_field()


class FactTableMove(SQLModel, table=True):
    """One fact moved by a restructure: a move, a merge or a split."""

    __tablename__ = "fact_table_move"
    __table_args__ = (Index("ix_fact_table_move_scope", "scope", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    fact_id: str = Field(sa_column=Column(String(32), nullable=False))
    from_table: str | None = Field(default=None, sa_column=Column(String(64)))
    to_table: str = Field(sa_column=Column(String(64), nullable=False))
    at: datetime = instant_field()
    kind: str = Field(sa_column=Column(String(16), nullable=False))  # move, merge, split
    why: str = Field(default="", sa_column=Column(Bounded(512), nullable=False))
