"""Analytics with DuckDB over the hot tables and the archive: what `consolidator stats` answers.

DuckDB here has no sqlite or postgres scanner (offline: core, icu, json, parquet only), so
the few hot tables it needs are read with SQLAlchemy -- only the columns used, only rows of
the scope and period asked -- and handed to an in-memory DuckDB as numpy columns (no pyarrow,
no temporary files). Archived messages and summaries are read by DuckDB straight from their
Parquet files.
Days and weeks are UTC; weeks start on Monday.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import duckdb
import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from stores.archive_manifest import DONE
from stores.schema.archive import ArchiveFile
from stores.schema.ledger import Batch, StepRun
from stores.schema.log import Message
from stores.schema.model import ModelCall
from stores.schema.ladders import Summary
from stores.schema.archive import SummaryArchiveFile


def _naive(values: Sequence[datetime | None]) -> np.ndarray:
    return np.array([None if v is None else v.astimezone(timezone.utc).replace(tzinfo=None) for v in values],
                    dtype="datetime64[us]")


def _register(connection: duckdb.DuckDBPyConnection, name: str, columns: dict[str, str], rows: list[tuple]) -> None:
    """A DuckDB table `name` (column -> DuckDB type) filled from rows fetched by SQLAlchemy."""
    values = list(zip(*rows)) if rows else [()] * len(columns)
    frame = {}
    for (column, kind), data in zip(columns.items(), values):
        if kind == "TIMESTAMP":
            frame[column] = _naive(data)
        elif kind in ("BIGINT", "DOUBLE"):
            frame[column] = np.array(data, dtype=np.int64 if kind == "BIGINT" else np.float64)
        else:
            frame[column] = np.array(data, dtype=object)
    connection.execute(f"CREATE TABLE {name} (" + ", ".join(f'"{c}" {k}' for c, k in columns.items()) + ")")
    if rows:
        connection.register(f"{name}_rows", frame)
        connection.execute(f"INSERT INTO {name} SELECT * FROM {name}_rows")
        connection.unregister(f"{name}_rows")


def _scoped(stmt, column, scope: str | None):
    return stmt if scope is None else stmt.where(column == scope)


def load(session: Session, archive_root: Path, scope: str | None, since: datetime | None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB holding messages (hot and archived), batches, step runs, model calls
    and summaries of `scope` (or all) from `since` on (messages, calls and summaries)."""
    connection = duckdb.connect()
    messages = _scoped(select(Message.scope, Message.seq, Message.at, Message.received_at), Message.scope, scope)
    if since is not None:
        messages = messages.where(Message.at >= since)
    _register(connection, "hot", {"scope": "VARCHAR", "seq": "BIGINT", "at": "TIMESTAMP", "received_at": "TIMESTAMP"},
              [tuple(r) for r in session.execute(messages)])
    files = _scoped(select(ArchiveFile.path, ArchiveFile.rows, ArchiveFile.bytes, ArchiveFile.scope)
                    .where(ArchiveFile.state == DONE), ArchiveFile.scope, scope)
    archived = [tuple(r) for r in session.execute(files)]
    summary_files = [tuple(r) for r in session.execute(_scoped(  # beside the messages: bytes and files, no messages
        select(SummaryArchiveFile.path, 0, SummaryArchiveFile.bytes, SummaryArchiveFile.scope)
        .where(SummaryArchiveFile.state == DONE), SummaryArchiveFile.scope, scope))]
    _register(connection, "archive_files", {"path": "VARCHAR", "rows": "BIGINT", "bytes": "BIGINT", "scope": "VARCHAR"},
              archived + summary_files)
    paths = [str(archive_root / p) for p, *_ in archived if (archive_root / p).is_file()]
    cold = ("SELECT scope, seq, \"at\", received_at FROM read_parquet(?)" if paths
            else "SELECT * FROM hot WHERE FALSE")
    connection.execute(f"CREATE TABLE cold AS {cold}", [paths] if paths else [])
    if since is not None:
        connection.execute('DELETE FROM cold WHERE "at" < ?', [since.astimezone(timezone.utc).replace(tzinfo=None)])
    connection.execute("CREATE VIEW messages AS SELECT *, FALSE AS archived FROM hot UNION ALL SELECT *, TRUE FROM cold")
    _register(connection, "batches", {"id": "BIGINT", "scope": "VARCHAR", "first_seq": "BIGINT", "last_seq": "BIGINT"},
              [tuple(r) for r in session.execute(_scoped(select(Batch.id, Batch.scope, Batch.first_seq, Batch.last_seq),
                                                         Batch.scope, scope))])
    _register(connection, "step_runs", {"batch_id": "BIGINT", "status": "VARCHAR", "finished_at": "TIMESTAMP"},
              [tuple(r) for r in session.execute(_scoped(select(StepRun.batch_id, StepRun.status, StepRun.finished_at),
                                                         StepRun.scope, scope))])
    calls = _scoped(select(ModelCall.scope, ModelCall.at, ModelCall.operation, ModelCall.input_tokens,
                           ModelCall.output_tokens, ModelCall.cost_usd), ModelCall.scope, scope)
    if since is not None:
        calls = calls.where(ModelCall.at >= since)
    _register(connection, "calls", {"scope": "VARCHAR", "at": "TIMESTAMP", "operation": "VARCHAR", "input_tokens": "BIGINT",
                                    "output_tokens": "BIGINT", "cost_usd": "DOUBLE"},
              [tuple(r) for r in session.execute(calls)])
    summaries = _scoped(select(Summary.scope, Summary.ladder, Summary.rung, Summary.kind, Summary.created_at),
                        Summary.scope, scope)
    if since is not None:
        summaries = summaries.where(Summary.created_at >= since)
    _register(connection, "summaries", {"scope": "VARCHAR", "ladder": "VARCHAR", "rung": "VARCHAR", "kind": "VARCHAR",
                                        "created_at": "TIMESTAMP"}, [tuple(r) for r in session.execute(summaries)])
    cold = [str(archive_root / p) for p, *_ in summary_files if (archive_root / p).is_file()]
    if cold:  # archived summaries count where they were written
        connection.execute('INSERT INTO summaries SELECT scope, ladder, rung, kind, created_at FROM read_parquet(?)'
                           + (" WHERE created_at >= ?" if since is not None else ""),
                           [cold] + ([since.astimezone(timezone.utc).replace(tzinfo=None)] if since is not None else []))
    return connection


_QUERIES = {
    "per_day": 'SELECT scope, CAST(date_trunc(\'day\', "at") AS DATE) AS day, count(*) FROM messages GROUP BY ALL ORDER BY ALL',
    "per_week": 'SELECT scope, CAST(date_trunc(\'week\', "at") AS DATE) AS week, count(*) FROM messages GROUP BY ALL ORDER BY ALL',
    "totals": "SELECT scope, count(*), count(*) FILTER (WHERE archived) FROM messages GROUP BY ALL ORDER BY ALL",
    # A batch is applied when every one of its step runs is done (or retired): at the last finish.
    "lag": """
        WITH applied AS (
            SELECT batch_id, max(finished_at) AS at FROM step_runs GROUP BY batch_id
            HAVING bool_and(status IN ('done', 'retired')) AND max(finished_at) IS NOT NULL)
        SELECT m.scope, count(*),
               quantile_cont(epoch(a.at - m.received_at), 0.5), quantile_cont(epoch(a.at - m.received_at), 0.99)
        FROM messages m JOIN batches b ON b.scope = m.scope AND m.seq BETWEEN b.first_seq AND b.last_seq
        JOIN applied a ON a.batch_id = b.id GROUP BY ALL ORDER BY ALL""",
    "calls_per_day": """
        SELECT scope, CAST(date_trunc('day', "at") AS DATE), operation, count(*), sum(input_tokens), sum(output_tokens),
               sum(cost_usd) FROM calls GROUP BY ALL ORDER BY ALL""",
    "calls_per_operation": """
        SELECT scope, operation, count(*), sum(input_tokens), sum(output_tokens), sum(cost_usd)
        FROM calls GROUP BY ALL ORDER BY ALL""",
    "summaries": "SELECT scope, ladder, rung, kind, count(*) FROM summaries GROUP BY ALL ORDER BY ALL",
    "archive": "SELECT scope, count(*), sum(rows), sum(bytes) FROM archive_files GROUP BY ALL ORDER BY ALL",
}


def figures(connection: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    """Every query's rows (plain Python values)."""
    return {name: connection.execute(sql).fetchall() for name, sql in _QUERIES.items()}
