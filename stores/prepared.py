"""Fixed statements sent straight to the driver, compiled once per dialect (the append's hot path).

`Connection.execute` of a Core statement looks up its compiled form by cache key, builds an
execution context and sets up a result on every call: for the agent's append (a reservation
and a due mark, each a few microseconds in SQLite) that bookkeeping costs more than the
statements. `run` compiles a module-level statement once per dialect and passes the values,
converted by the same bind processors SQLAlchemy would apply, to `exec_driver_sql`; returned
rows are converted by the columns' own result processors. Only for positional dialects
(SQLite); any other dialect runs the statement as usual.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from sqlalchemy.engine import Connection


def run(connection: Connection, statement, parameters: Mapping[str, Any]) -> list[tuple] | None:
    """Execute `statement` (built once, at module level) with one set of `parameters`; its rows
    as tuples when it returns rows (RETURNING), else None."""
    plan = _plan(statement, connection.dialect)
    if plan is None:
        result = connection.execute(statement, dict(parameters))
        return [tuple(row) for row in result] if result.returns_rows else None
    sql, binds, results = plan
    result = connection.exec_driver_sql(sql, tuple(parameters[name] if convert is None else convert(parameters[name])
                                                   for name, convert in binds))
    if not result.returns_rows:
        return None
    return [tuple(value if convert is None else convert(value) for value, convert in zip(row, results))
            for row in result.cursor.fetchall()]


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
