"""Forgetting a scope: every database row of it, its snapshot directory and its archive folder, for good.

The rows go in one transaction (stores.erase: every table of the schema, found from the
metadata, so tables added later are erased too); the snapshot directory goes after the commit.
The caller holds the daemon lease (the CLI takes it), so no step writes the scope meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import structlog
from consolidator.core.app import App
from consolidator.messages.archive import archive_lock
from stores.files.archive_files import remove_folder, scope_folder
from stores.erase import erase_scope
from stores.scopes import validate_scope
from stores.files.snapshots import remove_scope

log = structlog.get_logger()


@dataclass
class Forgotten:
    scope: str
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows deleted (only tables that had some)
    snapshots: bool = False  # whether a snapshot directory existed
    archive_files: int = 0  # Parquet files removed with the scope's archive folder

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def forget_scope(app: App, scope: str, tables: list | None = None) -> Forgotten:
    """Erase `scope` from every table (default: the whole schema) and its snapshots; returns
    what was removed."""
    validate_scope(scope)
    with archive_lock(app.settings.archive_dir, wait=True):  # no archive run writes the scope meanwhile
        result = Forgotten(scope=scope, rows=erase_scope(app.engine, scope, tables))
        result.archive_files = remove_folder(scope_folder(app.settings.archive_dir, scope))  # manifest rows went above
    root = app.settings.snapshot_dir
    result.snapshots = (root / scope).exists()
    remove_scope(root, scope)
    log.info("scope.forgotten", scope=scope, rows=result.total, tables=len(result.rows), snapshots=result.snapshots,
             archive_files=result.archive_files)
    return result
