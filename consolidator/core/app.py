"""Opening the embedded state: settings -> state directory, engine and schema.

Every entry point (CLI command, daemon, Python API) goes through `open_app`, so they all
agree on where the database and the snapshots are. What can go wrong on the way is said in
one line: an unusable state directory (under a file, under /proc, no permission) or a bad
`database_url` (not a URL, a missing driver, a file that cannot be opened) is a ConfigError
naming the key; a database that cannot be written (read-only, or a full disk that leaves no
room even to open it) is a StorageError, except for a reader (`status`), which then opens it
read-only and says why in `App.degraded`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from stores.engine import Engine, is_embedded, make_engine
from stores.migrations import create_schema
from stores.shared_state import share_database_file
from stores.errors import InvalidDatabaseUrl, StorageError, StorageFull, StorageReadOnly, StorageUnavailable

from consolidator.core.config import ConfigError, Settings, load_settings


class StateDirError(ConfigError):
    """The state directory cannot be created or written; the message names it."""


@dataclass
class App:
    settings: Settings
    engine: Engine
    readonly: bool = False  # opened for reading only: the database could not be written
    degraded: str | None = None  # why (the storage fault met when opening it for writing)
    unreachable: str | None = None  # the database server could not be reached (why); schema not checked yet

    def reach(self) -> None:
        """Create the schema now that the server answers (raises StorageError while it does not)."""
        create_schema(self.engine)
        self.unreachable = None

    def close(self) -> None:
        self.engine.dispose()


def open_app(settings: Settings | None = None, config: Path | None = None, reader: bool = False,
             patient: bool = False) -> App:
    """Open the state of `settings` (else of the config found from `config`).

    `reader`: the caller only reads (`status`): a database that cannot be written is opened
    read-only instead of refused, and `App.readonly` says so.
    A database server that cannot be reached is a fault of the moment, not of the
    configuration: a reader or a `patient` caller (the daemon, which retries with backoff)
    gets an App whose `unreachable` says why; anyone else a StorageUnavailable (exit 1)
    naming the key. A bad URL, an unsupported database or a missing driver is a ConfigError.
    """
    settings = settings or load_settings(config)
    embedded_default = not settings.database_url
    prepare_state_dir(settings.state_dir, settings.source, must_write=embedded_default and not reader)
    url = settings.db_url
    try:
        engine = make_engine(url)
    except InvalidDatabaseUrl as exc:
        raise ConfigError(f"{settings.source}: key 'database_url': {exc}") from None
    try:
        create_schema(engine)
    except InvalidDatabaseUrl as exc:  # options the driver refused while connecting
        engine.dispose()
        raise ConfigError(f"{settings.source}: key 'database_url': {exc}") from None
    except StorageUnavailable as exc:
        if embedded_default:
            engine.dispose()
            raise
        if is_embedded(url):  # a file that cannot be opened: the URL names the wrong place
            engine.dispose()
            raise ConfigError(f"{settings.source}: key 'database_url': {exc}") from None
        if reader or patient:
            return App(settings=settings, engine=engine, unreachable=str(exc))
        engine.dispose()
        raise StorageUnavailable(exc.where, f"{exc.detail}; key 'database_url' in {settings.source}") from None
    except (StorageReadOnly, StorageFull) as exc:
        engine.dispose()
        if not reader:
            raise
        return App(settings=settings, engine=make_engine(url, readonly=True), readonly=True, degraded=str(exc))
    except StorageError:
        engine.dispose()
        raise
    share_database_file(url)  # group-writable in a group-shared state directory
    return App(settings=settings, engine=engine)


def prepare_state_dir(state_dir: Path, source: str, must_write: bool = True) -> None:
    """Create the state directory (0700) and check it can be used, or raise StateDirError.

    A directory on a read-only mount passes here: the database then reports itself
    read-only, which a reader can live with.
    """
    where = f"state_dir {state_dir} (from {source} or $CONSOLIDATOR_STATE_DIR)"
    try:
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:
        raise StateDirError(f"{where}: exists and is not a directory") from None
    except OSError as exc:
        problem = exc.strerror or str(exc)
        at = f" at {exc.filename}" if exc.filename and exc.filename != str(state_dir) else ""
        raise StateDirError(f"{where}: cannot create it: {problem}{at}") from None
    except ValueError as exc:  # an embedded NUL byte
        raise StateDirError(f"{where}: not a usable path ({exc})") from None
    if not os.access(state_dir, os.R_OK | os.X_OK):
        raise StateDirError(f"{where}: no permission to read it")
    if must_write and not os.access(state_dir, os.W_OK) and not _read_only_mount(state_dir):
        raise StateDirError(f"{where}: no permission to write in it")


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False
