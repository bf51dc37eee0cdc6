"""What can go wrong with the storage itself, said in the project's words.

The database driver reports a full disk, a read-only file or a missing directory as one
generic OperationalError with a driver-specific code; the engine (stores/engine.py) turns
those into the exceptions below, each naming the database file (or the URL without its
credentials), so the layers above can report one line and never import the database
libraries. Anything not recognised stays the driver's own exception.
"""

from __future__ import annotations

__all__ = ["InvalidDatabaseUrl", "StorageError", "StorageFull", "StorageReadOnly", "StorageUnavailable"]


class StorageError(Exception):
    """The database could not be used at all; `where` names the file or the URL."""

    problem = "the database cannot be used"

    def __init__(self, where: str, detail: str = "") -> None:
        self.where = where
        self.detail = detail
        super().__init__(str(self))

    def __str__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.problem}: {self.where}{detail}"


class StorageFull(StorageError):
    """The disk (or the database's own size limit) is full: nothing of the write was kept."""

    problem = "database or disk is full"


class StorageReadOnly(StorageError):
    """The database file or its directory cannot be written (read-only mount, permissions)."""

    problem = "database is read-only"


class StorageUnavailable(StorageError):
    """The database cannot be opened or reached (missing directory, not a database, server down)."""

    problem = "cannot open the database"


class InvalidDatabaseUrl(ValueError):
    """`database_url` is not a URL, or names a driver that is not installed."""
