"""The schema in the database: created under a lock at every open, upgraded by version.

`create_schema` runs at every open. A complete schema costs reads only, so a read-only database
still opens. Anything missing is made in one transaction under a lock (PostgreSQL's advisory
lock, SQLite's BEGIN IMMEDIATE); a process that waited finds it done. The upgrades are
versioned and run under the same lock. The tables themselves are declared in stores/schema/.
"""

from __future__ import annotations

from sqlalchemy import inspect
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

import stores.schema  # noqa: F401  (every table on SQLModel.metadata)
from stores.schema.archive import DONE
from stores.schema.log import Message

SCHEMA_VERSION = 1  # PRAGMA user_version on SQLite: 1 = every stored time has one fixed-width form
SCHEMA_LOCK = 0x636F6E73  # PostgreSQL advisory lock key ("cons") held while the schema is made or upgraded


def create_schema(engine: Engine) -> None:
    """Create every table that is not there yet and run the upgrades that are due: safe when
    several processes open one empty database at once.

    A complete schema costs reads only (a read-only database opens). Otherwise the work runs in
    one transaction under a lock: PostgreSQL's transaction-level advisory lock (two processes
    creating one table at once collided on pg_type's unique index and one died), SQLite's write
    lock (BEGIN IMMEDIATE); the second process then finds the work done. The upgrades are
    versioned: `_upgrade_columns` adds the columns added to tables that already exist,
    `_upgrade_indexes` brings the message table's indexes to the declared set,
    `_upgrade_sqlite_times` runs once per file (PRAGMA user_version)."""
    if _schema_complete(engine):
        return
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})")
        SQLModel.metadata.create_all(connection)
        _upgrade_columns(connection)
        _upgrade_indexes(connection)
        if engine.dialect.name == "sqlite":
            _upgrade_sqlite_times(connection)


RETIRED_INDEXES = ("ix_message_scope_interaction",)  # replaced by ix_message_scope_interaction_seq
# Nullable columns added to tables that older databases already have: (table, column), and the
# statement that fills the new column from what the database holds (None: it starts NULL).
ADDED_COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("message", "attachments", None),
    ("scope_head", "archived_through",
     "UPDATE scope_head SET archived_through = (SELECT max(last_at) FROM archive_file"
     f" WHERE archive_file.scope = scope_head.scope AND archive_file.state = '{DONE}')"),
    # facts of older databases have no table: every scope owes an offline pass, which places them
    ("fact", "fact_table", "UPDATE fact_state SET slept_revision = -1"),
)


def _missing_columns(inspector) -> list[tuple[str, str]]:
    found: dict[str, set[str]] = {}
    for table, column, _ in ADDED_COLUMNS:
        if table not in found:
            found[table] = {c["name"] for c in inspector.get_columns(table)}
    return [(table, column) for table, column, _ in ADDED_COLUMNS if column not in found[table]]


def _schema_complete(engine: Engine) -> bool:
    """Every table, the message table's indexes as declared, SQLite's times upgraded: reads only."""
    with engine.connect() as connection:
        inspector = inspect(connection)
        if not set(SQLModel.metadata.tables) <= set(inspector.get_table_names()):
            return False
        existing = {ix["name"] for ix in inspector.get_indexes("message")}
        if any(ix.name not in existing for ix in Message.__table__.indexes) or existing & set(RETIRED_INDEXES):
            return False
        if _missing_columns(inspector):
            return False
        if engine.dialect.name == "sqlite":
            return connection.exec_driver_sql("PRAGMA user_version").scalar_one() >= SCHEMA_VERSION
    return True


def _upgrade_columns(connection) -> None:
    """Columns added to a table that already exists (create_all only makes new tables): each is
    nullable, so ADD COLUMN is instant on both engines and the old rows read as NULL (none)."""
    fills = {(table, column): fill for table, column, fill in ADDED_COLUMNS}
    for table, column in _missing_columns(inspect(connection)):
        declared = SQLModel.metadata.tables[table].c[column]
        kind = declared.type.compile(connection.dialect)
        connection.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        if fills[(table, column)]:
            connection.exec_driver_sql(fills[(table, column)])


def _upgrade_indexes(connection) -> None:
    """Indexes added to a table that already exists: create_all only indexes new tables.

    A retired index is dropped, so the planner of an older database cannot keep preferring it.
    """
    existing = {ix["name"] for ix in inspect(connection).get_indexes("message")}
    for index in Message.__table__.indexes:
        if index.name not in existing:
            index.create(connection, checkfirst=True)
    for name in RETIRED_INDEXES:
        if name in existing:
            connection.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def _upgrade_sqlite_times(connection) -> None:
    """Databases written before schema version 1 hold bulk-imported times without the
    microseconds ('2025-05-28 22:00:00'), which compare wrongly as text against bound
    parameters ('2025-05-28 22:00:00.000000'): rewrite them once in the fixed-width form."""
    if connection.exec_driver_sql("PRAGMA user_version").scalar_one() >= SCHEMA_VERSION:
        return
    for column in ("at", "received_at"):
        connection.exec_driver_sql(f"UPDATE message SET {column} = {column} || '.000000' WHERE length({column}) = 19")
    connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def drop_schema(engine: Engine) -> None:
    """Drop every table of the schema (test databases on a server; never called by the daemon)."""
    SQLModel.metadata.drop_all(engine)
