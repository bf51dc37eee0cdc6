"""Exporting a scope's whole log, archive and hot store, in the import format.

Each record is what `consolidator import` reads (consolidator/messages/ingest.py): the caller's
id comes back without the scope prefix the store adds, and a content-hashed id is left out
(the import hashes the same fields to the same id), so exporting and importing into a fresh
state gives the same ids, in the same arrival order, with the same times and fields (attachments
included, as the list of objects the import reads).
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import IO, Iterator

from consolidator.core.app import App
from consolidator.model.attachments import as_records
from stores.files import archive_files
from stores.engine import reading
from stores.history import History


def record(row: tuple) -> dict:
    """One stored message (COLUMNS tuple) as an import-format record."""
    values = dict(zip(archive_files.COLUMNS, row))
    scope, stored = values["scope"], values["id"]
    out = {"scope": scope, "at": values["at"].isoformat(), "role": values["role"], "text": values["text"]}
    if stored.startswith(scope + ":"):
        out = {"id": stored[len(scope) + 1:], **out}
    for name in ("session", "speaker"):
        if values[name] is not None:
            out[name] = values[name]
    if values["attachments"]:
        out["attachments"] = as_records(values["attachments"])
    return out


def window(app: App, scope: str, since: date | None, until: date | None) -> tuple[datetime | None, datetime | None]:
    """[since's local midnight, the midnight after `until`) in the scope's time zone (both optional)."""
    tz = app.settings.timezone_of(scope)
    start = datetime.combine(since, time(0), tz) if since else None
    end = datetime.combine(until, time(0), tz) + timedelta(days=1) if until else None
    return start, end


def records(app: App, scope: str, since: date | None = None, until: date | None = None) -> Iterator[dict]:
    """The scope's messages in arrival order, as import records."""
    start, end = window(app, scope, since, until)
    with reading(app.engine, snapshot=True) as session:  # History.rows streams
        for row in History(app.settings.archive_dir).rows(session, scope, start, end):
            yield record(row)


def write_jsonl(app: App, scope: str, out: IO[str], since: date | None = None, until: date | None = None) -> int:
    count = 0
    for item in records(app, scope, since, until):
        out.write(json.dumps(item, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_parquet(app: App, scope: str, path: Path, since: date | None = None, until: date | None = None) -> int:
    """The same records as one Parquet file (`at` a UTC timestamp), written atomically."""
    items = list(records(app, scope, since, until))
    return archive_files.write_records(path, items)
