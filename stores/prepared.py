"""Fixed statements sent straight to the driver, compiled once per dialect (the append's hot path).

`Connection.execute` of a Core statement looks up its compiled form by cache key, builds an
execution context and sets up a result on every call; `exec_driver_sql` still builds the context
and the result. For the agent's append (a reservation, one row, a due mark: each a few
microseconds in SQLite) that bookkeeping cost several times the statements. `run` compiles a
module-level statement once per dialect and passes the values, converted by the same bind
processors SQLAlchemy would apply, to `send`, which executes SQL text on the driver's own cursor
inside the transaction SQLAlchemy began; returned rows are converted by the columns' own result
processors. Only for positional dialects (SQLite); any other dialect runs the statement as usual.

What SQLAlchemy would have done around a statement still happens: a driver error becomes the
same exception (the project's StorageError where the storage is at fault, see
stores/engine.py:driver_error, else SQLAlchemy's wrapper of it), the caller's transaction is
SQLAlchemy's (begun by it, committed or rolled back by it), and whenever someone listens to
statements (`before_cursor_execute`, as the statement-counting tests and benches do) or the
connection has not begun its transaction, the statement goes through `exec_driver_sql` instead,
so nothing is sent unseen or outside a transaction.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Sequence

from sqlalchemy.engine import Connection

from stores.engine import driver_error


def run(connection: Connection, statement, parameters: Mapping[str, Any]) -> list[tuple] | None:
    """Execute `statement` (built once, at module level) with one set of `parameters`; its rows
    as tuples when it returns rows (RETURNING), else None."""
    plan = _plan(statement, connection.dialect)
    if plan is None:
        result = connection.execute(statement, dict(parameters))
        return [tuple(row) for row in result] if result.returns_rows else None
    sql, binds, results = plan
    rows, _ = send(connection, sql, tuple(parameters[name] if convert is None else convert(parameters[name])
                                          for name, convert in binds))
    if rows is None:
        return None
    return [tuple(value if convert is None else convert(value) for value, convert in zip(row, results))
            for row in rows]


def send(connection: Connection, sql: str, parameters: Sequence[Any]) -> tuple[list[tuple] | None, int]:
    """Execute SQL text with positional, already converted `parameters` in the caller's transaction:
    (the raw rows it returned or None, the driver's rowcount)."""
    if not connection.in_transaction() or _watched(connection):
        result = connection.exec_driver_sql(sql, tuple(parameters))
        return ([tuple(row) for row in result.cursor.fetchall()] if result.returns_rows else None), result.rowcount
    cursor = connection.connection.driver_connection.cursor()
    try:
        cursor.execute(sql, parameters)
        rows = cursor.fetchall() if cursor.description is not None else None
        return rows, cursor.rowcount
    except connection.dialect.loaded_dbapi.Error as error:
        raise driver_error(connection, error, sql, parameters) from error
    finally:
        cursor.close()


def _watched(connection: Connection) -> bool:
    """Someone listens to the statements this connection sends (SQLAlchemy's own events)."""
    dispatch = connection.dispatch
    return bool(dispatch.before_cursor_execute or dispatch.after_cursor_execute)


@lru_cache(maxsize=32)
def _plan(statement, dialect):
    """(SQL text, (parameter name, bind processor) in position order, result processors) or None."""
    compiled = statement.compile(dialect=dialect)
    if not compiled.positional:
        return None
    binds = tuple((name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                  for name in compiled.positiontup)
    columns = getattr(statement, "exported_columns", None) if getattr(statement, "_returning", ()) else None
    results = tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns) if columns else ()
    return str(compiled), binds, results
