"""Engines and transactions: the one module that knows SQLite's quirks.

SQLite (the embedded default) runs in WAL mode so readers never block the writer, with
`BEGIN IMMEDIATE` for every transaction so that two processes that read then write never
fail with SQLITE_BUSY_SNAPSHOT (a deferred transaction cannot be upgraded once another
writer committed; busy_timeout cannot help). Everything else in the project talks plain
SQLAlchemy, so PostgreSQL only needs a URL.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, SQLModel, create_engine

__all__ = ["Engine", "Session", "create_schema", "default_url", "drop_schema", "is_embedded", "make_engine",
           "printable_url", "reading", "transaction"]  # Engine and Session: opaque handles for the layers above

BUSY_TIMEOUT_MS = 30_000
READONLY = "consolidator_readonly"


SCHEMA_VERSION = 1  # PRAGMA user_version on SQLite: 1 = every stored time has one fixed-width form


def default_url(state_dir: Path) -> str:
    """The embedded database of a state directory."""
    return f"sqlite:///{state_dir / 'consolidator.db'}"


def is_embedded(url: str) -> bool:
    """The URL names a file database on this machine (SQLite), not a server."""
    return url.startswith("sqlite")


def printable_url(url: str) -> str:
    """A database URL safe to log: no password, no query parameters (they may hold one)."""
    try:
        parsed = make_url(url)
    except Exception:  # not a URL SQLAlchemy understands: log nothing of it
        return "<unparsable database url>"
    if is_embedded(url):
        return f"{parsed.drivername}:///{parsed.database or ''}"
    host = (parsed.host or "").rsplit("@", 1)[-1]  # an unescaped '@' in a password ends up in host
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.drivername}://{host}{port}/{parsed.database or ''}"


def make_engine(url: str) -> Engine:
    """Create an engine for `url`, configuring SQLite for several processes at once."""
    if is_embedded(url):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False})
        _configure_sqlite(engine)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        readonly = connection.get_execution_options().get(READONLY, False)
        connection.exec_driver_sql("BEGIN" if readonly else "BEGIN IMMEDIATE")


def create_schema(engine: Engine) -> None:
    """Create every table that is not there yet (idempotent, safe from several processes)."""
    import stores.tables  # noqa: F401  (registers all tables on SQLModel.metadata)

    SQLModel.metadata.create_all(engine)
    if engine.dialect.name == "sqlite":
        _upgrade_sqlite_times(engine)


def _upgrade_sqlite_times(engine: Engine) -> None:
    """Databases written before schema version 1 hold bulk-imported times without the
    microseconds ('2025-05-28 22:00:00'), which compare wrongly as text against bound
    parameters ('2025-05-28 22:00:00.000000'): rewrite them once in the fixed-width form."""
    with engine.connect() as connection:
        if connection.exec_driver_sql("PRAGMA user_version").scalar_one() >= SCHEMA_VERSION:
            return
    with engine.begin() as connection:
        if connection.exec_driver_sql("PRAGMA user_version").scalar_one() >= SCHEMA_VERSION:
            return
        for column in ("at", "received_at"):
            connection.exec_driver_sql(f"UPDATE message SET {column} = {column} || '.000000' WHERE length({column}) = 19")
        connection.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def drop_schema(engine: Engine) -> None:
    """Drop every table of the schema (test databases on a server; never called by the daemon)."""
    import stores.tables  # noqa: F401

    SQLModel.metadata.drop_all(engine)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One write transaction: commit on success, roll back on any exception."""
    with Session(engine, expire_on_commit=False) as session:
        with session.begin():
            yield session


@contextmanager
def reading(engine: Engine) -> Iterator[Session]:
    """A session for reads: a deferred transaction that never takes the write lock."""
    with Session(engine.execution_options(**{READONLY: True}), expire_on_commit=False) as session:
        yield session
