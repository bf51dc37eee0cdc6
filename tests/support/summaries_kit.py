"""Summary rows for the ladder store contract tests: `summary` builds one (its window placed by
`order`), `write` stores rows one transaction each, through stores/ only."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from stores.engine import transaction
from stores.schema.ladders import Summary
from stores.summaries import write_summary

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def summary(key: str, version: int = 1, *, ladder: str = "time", rung: str = "day", kind: str = "passed",
            scope: str = "s", text: str = "text", input_hash: str | None = None, input_tokens: int = 0,
            created_at: datetime = T0, order: int = 0) -> Summary:
    """A summary row; `order` places its window (a day start, or a first interaction number)."""
    row = Summary(id=f"{scope}/{ladder}/{rung}/{key}@{version}", scope=scope, ladder=ladder, rung=rung, key=key,
                  version=version, kind=kind, label=key, text=text, sources=[f"src-{key}"], input_hash=input_hash,
                  input_tokens=input_tokens, created_at=created_at)
    if ladder == "time":
        row.window_start, row.window_end = T0 + timedelta(days=order), T0 + timedelta(days=order + 1)
    else:
        row.first_number, row.last_number = order, order
    return row


def write(engine, *rows: Summary) -> list[int]:
    """Each row in its own transaction; the announcement ids."""
    ids = []
    for row in rows:
        with transaction(engine) as session:
            ids.append(write_summary(session, row).id)
    return ids
