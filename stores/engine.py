"""Engines and transactions: the one module that knows SQLite's quirks.

SQLite (the embedded default) runs in WAL mode so readers never block the writer, with
`BEGIN IMMEDIATE` for every transaction so that two processes that read then write never
fail with SQLITE_BUSY_SNAPSHOT (a deferred transaction cannot be upgraded once another
writer committed; busy_timeout cannot help). Everything else in the project talks plain
SQLAlchemy, so PostgreSQL only needs a URL.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from sqlalchemy import BigInteger, Integer, Table, event
from sqlalchemy.engine import Dialect, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlmodel import Session, create_engine

from stores.errors import InvalidDatabaseUrl, StorageError, StorageFull, StorageReadOnly, StorageUnavailable

__all__ = ["Engine", "Session", "database_path", "default_url", "insert_or_skip",
           "is_embedded", "make_engine", "printable_url", "reading", "shares_work", "transaction"]  # Engine and Session: opaque handles above

# A 64-bit integer key that SQLite keeps as the rowid itself (INTEGER PRIMARY KEY): a table of
# keys only (archived_id) is then one b-tree instead of a table plus an index of the same keys.
ROWID_BIGINT = BigInteger().with_variant(Integer(), "sqlite")

BUSY_TIMEOUT_MS = 30_000
READONLY = "consolidator_readonly"


def default_url(state_dir: Path) -> str:
    """The embedded database of a state directory."""
    return f"sqlite:///{state_dir / 'consolidator.db'}"


def is_embedded(url: str) -> bool:
    """The URL names a file database on this machine (SQLite), not a server."""
    return url.startswith("sqlite")


def shares_work(engine: Engine) -> bool:
    """Several daemons may work this database at once (a server: PostgreSQL), sharing the scopes
    through the work queue's claims; the embedded SQLite file keeps one daemon (its lease)."""
    return engine.dialect.name != "sqlite"


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


def database_path(url: str) -> str:
    """What a message should name for this database: the file of an embedded one, else the URL
    without credentials."""
    if is_embedded(url):
        try:
            name = make_url(url).database
        except ArgumentError:
            name = None
        return str(Path(name).absolute()) if name else "<in-memory database>"
    return printable_url(url)


SUPPORTED = {"sqlite": "pysqlite", "postgresql": "psycopg"}  # database -> the driver the stores are written for
EXAMPLES = "sqlite:////var/lib/consolidator/consolidator.db or postgresql+psycopg://USER@HOST/DB"
POSTGRES_EXTRA = "pip install 'consolidator[postgres]'"


def check_url(url: str) -> str:
    """The URL's database kind, or InvalidDatabaseUrl saying what is wrong with it (one line)."""
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        raise InvalidDatabaseUrl(f"not a database URL (e.g. {EXAMPLES})") from None
    except (ValueError, TypeError) as exc:
        raise InvalidDatabaseUrl(f"not a usable database URL ({exc})") from None
    if backend not in SUPPORTED:
        raise InvalidDatabaseUrl(f"unsupported database {backend!r} (use {EXAMPLES})")
    return backend


def make_engine(url: str, readonly: bool = False) -> Engine:
    """Create an engine for `url`, configuring SQLite for several processes at once.

    `readonly` opens an embedded database for reading only (what `status` falls back to when
    the file or its directory cannot be written). Raises InvalidDatabaseUrl for a URL that is
    not one, names a database other than SQLite or PostgreSQL, or whose driver is missing;
    storage faults surface later as StorageError.
    """
    backend = check_url(url)
    try:
        if is_embedded(url) and readonly:
            engine = _readonly_sqlite(url)
        elif is_embedded(url):
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False})
        else:
            engine = create_engine(url)  # no pre-ping: a dropped connection shows in _classify
    except (NoSuchModuleError, ImportError) as exc:  # NoSuchModuleError is an ArgumentError: first
        hint = f"; PostgreSQL needs psycopg 3: {POSTGRES_EXTRA}, then postgresql+psycopg://USER@HOST/DB" \
            if backend == "postgresql" else ""
        raise InvalidDatabaseUrl(f"no driver for it is installed ({exc}){hint}") from None
    except ArgumentError:
        raise InvalidDatabaseUrl("not a database URL (e.g. sqlite:////var/lib/consolidator/consolidator.db "
                                 "or postgresql+psycopg://host/db)") from None
    except (ValueError, TypeError) as exc:
        raise InvalidDatabaseUrl(f"not a usable database URL ({exc})") from None
    if not readonly and engine.dialect.driver != SUPPORTED[backend]:
        engine.dispose()
        raise InvalidDatabaseUrl(f"unsupported driver {engine.dialect.driver!r} (use {EXAMPLES})")
    where = database_path(url)
    if is_embedded(url):
        _configure_sqlite(engine, readonly)
    event.listen(engine, "handle_error", lambda context: _classify(context, url, where))
    return engine


def _readonly_sqlite(url: str) -> Engine:
    """An embedded database opened read-only. Without a write-ahead log beside it (nothing
    uncommitted to merge) it is opened as immutable, which needs no shared-memory file: the
    only way to read a WAL database in a directory that cannot be written."""
    path = Path(make_url(url).database or "").absolute()
    wal = path.with_name(path.name + "-wal")
    immutable = "&immutable=1" if not wal.exists() or wal.stat().st_size == 0 else ""
    uri = f"file:{quote(str(path))}?mode=ro{immutable}"
    return create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False,
                                                                      timeout=BUSY_TIMEOUT_MS / 1000))


# SQLite's primary result codes that mean the storage itself, not the statement, is at fault.
_FULL, _READONLY, _CANTOPEN, _IOERR, _CORRUPT, _NOTADB, _PERM = 13, 8, 14, 10, 11, 26, 3


def _classify(context, url: str, where: str) -> None:
    """handle_error hook: raise the project's StorageError for a full, read-only or unopenable
    database; leave every other error to SQLAlchemy."""
    error = storage_error(context.original_exception, url, where)
    if error is None and getattr(context, "is_disconnect", False) and not is_embedded(url):
        # The server closed the connection (a restart, a failover, an administrator): the pool
        # drops its connections and the caller's work fails as the database being away, which
        # the daemon backs off from and retries. Connections are not pinged on every checkout
        # (a round trip per transaction, a fifth of a drain's), so this is where it shows.
        error = StorageUnavailable(where, _first_line(context.original_exception))
    if error is not None:
        raise error from context.sqlalchemy_exception
    if context.connection is None and not is_embedded(url):  # refused while connecting: its options
        raise InvalidDatabaseUrl(f"the driver refused its options ({_first_line(context.original_exception)})") \
            from context.sqlalchemy_exception


def driver_error(connection, error: BaseException, statement: str, parameters) -> Exception:
    """What SQLAlchemy would raise for `error`, a driver exception of a statement sent on the
    driver's cursor (stores/prepared.py): the StorageError the handle_error hook makes of it
    (embedded databases: the only ones that path serves), else SQLAlchemy's wrapper of it."""
    url = connection.engine.url.render_as_string(hide_password=False)
    storage = storage_error(error, url, database_path(url))
    if storage is not None:
        return storage
    return DBAPIError.instance(statement, parameters, error, connection.dialect.loaded_dbapi.Error,
                               dialect=connection.dialect)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0]


def storage_error(original: BaseException, url: str, where: str) -> StorageError | None:
    """The StorageError a driver exception stands for, or None."""
    code = getattr(original, "sqlite_errorcode", None)
    if code is not None:
        return _sqlite_error(code & 0xFF, str(original), url, where)
    state = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None) or ""
    if state == "53100":
        return StorageFull(where, str(original).strip())
    if state == "25006":
        return StorageReadOnly(where, str(original).strip())
    if state.startswith("08") or (not state and type(original).__name__ == "OperationalError"):
        return StorageUnavailable(where, _first_line(original))
    return None


def _sqlite_error(code: int, message: str, url: str, where: str) -> StorageError | None:
    path = Path(where)
    if code == _FULL or (code == _IOERR and _nearly_full(path.parent)):
        return StorageFull(where)
    if code in (_READONLY, _PERM):
        return StorageReadOnly(where, message)
    if code in (_NOTADB, _CORRUPT):
        return StorageUnavailable(where, message)
    if code == _IOERR:
        return StorageUnavailable(where, message)
    if code == _CANTOPEN and is_embedded(url):
        directory = path.parent
        if not directory.is_dir():
            return StorageUnavailable(where, f"directory {directory} does not exist")
        if _readonly_place(path):
            return StorageReadOnly(where, "the file or its directory cannot be written")
        return StorageUnavailable(where, message)
    return None


def _readonly_place(path: Path) -> bool:
    """The database file or its directory cannot be written (read-only mount or permissions)."""
    try:
        if os.statvfs(path.parent).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    if path.exists() and not os.access(path, os.W_OK):
        return True
    return not os.access(path.parent, os.W_OK | os.X_OK)


def _nearly_full(directory: Path) -> bool:
    try:
        return shutil.disk_usage(directory).free < 1 << 20
    except OSError:
        return False


def _enter_wal(cursor) -> None:
    """Switch the file to WAL. On a new file opened by several processes at once the switch
    can fail with "database is locked" at once: SQLite does not call the busy handler where
    waiting could deadlock. The mode is persistent, so a retry finds it set by the winner."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.002
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


def _configure_sqlite(engine: Engine, readonly: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        if readonly:
            return  # the journal mode is the writer's business; a read-only handle cannot set it
        cursor = dbapi_connection.cursor()
        _enter_wal(cursor)
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        reads_only = readonly or connection.get_execution_options().get(READONLY, False)
        connection.exec_driver_sql("BEGIN" if reads_only else "BEGIN IMMEDIATE")


def dialect_insert(table: Table, dialect: Dialect):
    """The dialect's own INSERT (the one with ON CONFLICT clauses) on `table`."""
    if dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:  # check_url admits no other database
        raise InvalidDatabaseUrl(f"unsupported database {dialect.name!r} (use {EXAMPLES})")
    return insert(table)


def insert_or_skip(table: Table, dialect: Dialect):
    """INSERT ... ON CONFLICT (primary key) DO NOTHING for this dialect: a row whose key is
    already stored, even by a transaction committed a moment ago, is skipped, not an error.
    Any other unique index still refuses a duplicate (a bug must not pass silently)."""
    return dialect_insert(table, dialect).on_conflict_do_nothing(index_elements=list(table.primary_key.columns))


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One write transaction: commit on success, roll back on any exception."""
    with Session(engine, expire_on_commit=False) as session:
        with session.begin():
            yield session


@contextmanager
def reading(engine: Engine, snapshot: bool = False) -> Iterator[Session]:
    """A session for reads that never takes the write lock.

    SQLite: a deferred transaction, so every read in it sees one snapshot. PostgreSQL: each
    statement is its own transaction (autocommit), as a READ COMMITTED transaction gives every
    statement its own snapshot anyway; it saves the BEGIN and the ROLLBACK, two round trips per
    read, which were a third of a drain's round trips. `snapshot` keeps a transaction there too:
    a server-side cursor (a streamed read, `yield_per`) lives only inside one.
    """
    options = {READONLY: True}
    if engine.dialect.name == "postgresql" and not snapshot:
        options["isolation_level"] = "AUTOCOMMIT"
    with Session(engine, expire_on_commit=False) as session:
        # the options set on the session's connection as it is taken, before it begins (the begin
        # hook reads them): `engine.execution_options` would make an engine object a read
        session.connection(execution_options=options)
        yield session


def core(session: Session, statement, parameters=None):
    """Run a Core statement on the session's connection, in its transaction, past the ORM's
    execution layer (half the Python cost of `session.execute` for a small read). For statements
    that touch no ORM object the session holds: nothing is flushed first."""
    return session.connection().execute(statement, parameters)
