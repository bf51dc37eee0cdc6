"""Erasing a scope from every table, for good (the `forget` command's database half).

The tables are discovered from `SQLModel.metadata`, so tables added later are erased too:
a table with a `scope` column loses the scope's rows; a table without one loses the rows
whose foreign key points at a row being erased (e.g. step runs through their batch, details
through their contact), to any depth. Children go before parents (the metadata's dependency
order, reversed), all in one transaction.

A table may keep its rows without the scope's name instead: `info={"forget_keeps": {column:
placeholder, ...}}` on the table (the model-call ledger: a forgotten scope's calls were paid,
so the day's spend, the budget and `report` must still count them; their scope and ref are
replaced by values that name nobody).
"""

from __future__ import annotations

from sqlalchemy import Table, delete, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel

import stores.schema  # noqa: F401  (every table on the metadata)
from stores.engine import transaction


def all_tables() -> list[Table]:
    """Every table of the schema, parents before children."""
    return list(SQLModel.metadata.sorted_tables)


def scope_conditions(scope: str, tables: list[Table] | None = None) -> dict[str, ColumnElement[bool]]:
    """table name -> the WHERE clause selecting the scope's rows, for every table that has any."""
    if tables is None:
        tables = all_tables()
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


def erase_scope(engine: Engine, scope: str, tables: list[Table] | None = None) -> dict[str, int]:
    """Delete the scope's rows from every table in one transaction; table -> rows deleted (non-zero only)."""
    tables = all_tables() if tables is None else tables
    conditions = scope_conditions(scope, tables)
    deleted: dict[str, int] = {}
    with transaction(engine) as session:
        for table in reversed(tables):  # children before parents
            where = conditions.get(table.name)
            if where is None:
                continue
            keeps = table.info.get("forget_keeps")
            if keeps:
                session.execute(update(table).where(where).values(**keeps))
                continue
            count = session.execute(delete(table).where(where)).rowcount or 0
            if count:
                deleted[table.name] = count
    return deleted
