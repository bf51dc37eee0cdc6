"""The cold archive's tables: the manifests of message and summary files, the hashes of recently
archived ids and their expiry."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, Index, Integer, String
from sqlmodel import Field, SQLModel

from stores.engine import ROWID_BIGINT
from stores.schema.fields import instant_field, scope_field
from stores.scopes import MAX_SCOPE_CHARS


# archive_file.state: the file is written and verified; its rows are gone from the hot store.
WRITTEN, DONE = "written", "done"


class ArchiveFile(SQLModel, table=True):
    __tablename__ = "archive_file"
    __table_args__ = (Index("ix_archive_file_scope", "scope", "last_at"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    month: str = Field(sa_column=Column(String(7), nullable=False))  # YYYY-MM (UTC)
    path: str = Field(sa_column=Column(String(1024), nullable=False, unique=True))  # relative to archive.dir
    state: str = Field(sa_column=Column(String(8), nullable=False))
    rows: int
    checksum: str = Field(sa_column=Column(String(64), nullable=False))
    bytes: int = Field(sa_column=Column(BigInteger, nullable=False))
    first_seq: int
    last_seq: int
    first_at: datetime = instant_field()
    last_at: datetime = instant_field()
    first_interaction: int = Field(sa_column=Column(Integer, nullable=False))
    last_interaction: int = Field(sa_column=Column(Integer, nullable=False))
    created_at: datetime = instant_field()


class SummaryArchiveFile(SQLModel, table=True):
    __tablename__ = "summary_archive_file"
    __table_args__ = (Index("ix_summary_archive_file_scope", "scope", "ladder", "last_position"),)

    id: int | None = Field(default=None, primary_key=True)
    scope: str = scope_field()
    ladder: str = Field(sa_column=Column(String(8), nullable=False))
    path: str = Field(sa_column=Column(String(1024), nullable=False, unique=True))  # relative to archive.dir
    state: str = Field(sa_column=Column(String(8), nullable=False))
    rows: int
    checksum: str = Field(sa_column=Column(String(64), nullable=False))
    bytes: int = Field(sa_column=Column(BigInteger, nullable=False))
    first_position: int = Field(sa_column=Column(Integer, nullable=False))
    last_position: int = Field(sa_column=Column(Integer, nullable=False))
    created_at: datetime = instant_field()


class ArchivedId(SQLModel, table=True):
    """A 64-bit hash of every archived message id: an import of an archived id is a duplicate.
    About 17 bytes a message on SQLite (the hash is the rowid), against the hundreds a hot message
    row takes with its indexes."""

    __tablename__ = "archived_id"

    hash: int = Field(sa_column=Column(ROWID_BIGINT, primary_key=True, autoincrement=False))
    scope: str = scope_field()


class ArchivedIdExpiry(SQLModel, table=True):
    """Per scope: the hashes of the ids of files numbered up to `through_file` were dropped."""

    __tablename__ = "archived_id_expiry"

    scope: str = Field(sa_column=Column(String(MAX_SCOPE_CHARS), primary_key=True))
    through_file: int = Field(sa_column=Column(Integer, nullable=False))
