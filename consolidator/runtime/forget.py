"""Forgetting a scope: every database row of it and its snapshot directory, for good.

The tables are discovered from `SQLModel.metadata`, so tables added later are erased too:
a table with a `scope` column loses the scope's rows; a table without one loses the rows
whose foreign key points at a row being erased (e.g. step runs through their batch, details
through their contact), to any depth. Children go before parents (the metadata's dependency
order, reversed), all in one transaction; the snapshot directory goes after the commit.
The caller holds the daemon lease (the CLI takes it), so no step writes the scope meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import structlog
from sqlalchemy import Table, delete, or_, select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel

from consolidator.runtime.app import App
from stores.engine import transaction
from stores.scopes import validate_scope
from stores.snapshots import remove_scope

log = structlog.get_logger()


@dataclass
class Forgotten:
    scope: str
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows deleted (only tables that had some)
    snapshots: bool = False  # whether a snapshot directory existed

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def scope_conditions(scope: str, tables: list[Table] | None = None) -> dict[str, ColumnElement[bool]]:
    """table name -> the WHERE clause selecting the scope's rows, for every table that has any."""
    if tables is None:
        import stores.tables  # noqa: F401  (every table on the metadata)

        tables = list(SQLModel.metadata.sorted_tables)
    conditions: dict[str, ColumnElement[bool]] = {}
    for table in tables:  # parents before children
        clauses = []
        if "scope" in table.c:
            clauses.append(table.c.scope == scope)
        for fk in table.foreign_keys:
            parent = fk.column.table
            if parent.name in conditions and parent is not table:
                clauses.append(fk.parent.in_(select(fk.column).where(conditions[parent.name])))
        if clauses:
            conditions[table.name] = or_(*clauses) if len(clauses) > 1 else clauses[0]
    return conditions


def forget_scope(app: App, scope: str, tables: list[Table] | None = None) -> Forgotten:
    """Erase `scope` from every table (default: all of SQLModel.metadata, parents before
    children) and its snapshots; returns what was removed."""
    validate_scope(scope)
    if tables is None:
        import stores.tables  # noqa: F401

        tables = list(SQLModel.metadata.sorted_tables)
    conditions = scope_conditions(scope, tables)
    result = Forgotten(scope=scope)
    with transaction(app.engine) as session:
        for table in reversed(tables):  # children before parents
            where = conditions.get(table.name)
            if where is None:
                continue
            deleted = session.execute(delete(table).where(where)).rowcount or 0
            if deleted:
                result.rows[table.name] = deleted
    root = app.settings.snapshot_dir
    result.snapshots = (root / scope).exists()
    remove_scope(root, scope)
    log.info("scope.forgotten", scope=scope, rows=result.total, tables=len(result.rows), snapshots=result.snapshots)
    return result
