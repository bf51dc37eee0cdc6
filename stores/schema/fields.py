"""The columns most tables share, declared once: the scope a row belongs to and its instants.

Each call makes a new Column (SQLAlchemy binds a Column to one table)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, String
from sqlmodel import Field

from stores.scopes import MAX_SCOPE_CHARS
from stores.types import UTCDateTime


def scope_field() -> Any:
    """The owning scope: every query filters on it, so it is never null."""
    return Field(sa_column=Column(String(MAX_SCOPE_CHARS), nullable=False))


def instant_field() -> Any:
    """A required instant, stored in UTC (created_at, updated_at, decided_at...)."""
    return Field(sa_column=Column(UTCDateTime(), nullable=False))
