"""What `consolidator status` reports, gathered with read-only transactions."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from consolidator.runtime.app import App
from consolidator.cost.usage import usage_report
from stores import faults as fault_rows
from stores import lease
from stores.archive_manifest import tallies
from stores.engine import database_path, is_embedded, printable_url, reading
from stores.interactions import max_number
from stores.ledger import batch_counts
from stores.messages import newest_at, scope_heads
from stores.runs import scope_cursors


def gather(app: App, now: datetime) -> dict[str, Any]:
    with reading(app.engine) as session:
        # Index probes per scope (seq and interaction numbers are dense), never a scan of the log.
        per_scope = [
            (scope, newest, newest, newest_at(session, scope)) for scope, newest in scope_heads(session).items()
        ]
        interactions = {scope: max_number(session, scope) for scope, *_ in per_scope}
        cursors = scope_cursors(session)
        batches = batch_counts(session)
        archived = tallies(session)
    scopes: dict[str, Any] = {}
    for scope, count, newest_seq, last_at in per_scope:
        cursor = cursors.get(scope)
        batched = cursor.batched_seq if cursor else 0
        pending = max(0, newest_seq - batched)  # seq is dense per scope
        scopes[scope] = {
            "messages": count,  # archived ones included
            "archived": archived[scope].rows if scope in archived else 0,
            "interactions": interactions.get(scope, 0),
            "pending": pending,
            "batches": batches.get(scope, {"done": 0, "pending": 0, "retrying": 0, "failed": 0}),
            "last_message_at": last_at.isoformat() if last_at else None,
        }
    info = lease.current(app.engine)
    daemon = {
        "running": bool(info and info.alive(now)),
        "holder": info.holder if info else None,
        "last_heartbeat": info.heartbeat_at.isoformat() if info else None,
    }
    model = usage_report(app.engine, app.settings.model, now)
    return {"scopes": scopes, "daemon": daemon, "state_dir": str(app.settings.state_dir),
            "database": printable_url(app.settings.db_url), "model": model, "faults": active_faults(app)}


NEARLY_FULL = 1 << 20  # bytes free under which SQLite's log cannot grow and a snapshot may not fit


def active_faults(app: App) -> list[dict[str, Any]]:
    """Each fault the daemon recorded and has not seen cleared: where, scope, cause, since when,
    how often. First the faults `status` sees for itself, which a daemon could not record
    because they are the storage's own: a database opened read-only, a full disk."""
    found: list[dict[str, Any]] = []
    seen = {"where": None, "scope": None, "since": None, "last_at": None, "count": None}
    if app.readonly:
        found.append({**seen, "where": "database",
                      "cause": f"{app.degraded}; opened for reading only: nothing can be logged or consolidated"})
    places = {app.settings.state_dir}
    if is_embedded(app.settings.db_url):
        places.add(Path(database_path(app.settings.db_url)).parent)
    for place in sorted(places):
        try:
            free = shutil.disk_usage(place).free
        except OSError:
            continue
        if free < NEARLY_FULL:
            found.append({**seen, "where": "disk", "cause": f"disk full: {place} ({free} bytes free)"})
    for f in fault_rows.active(app.engine):
        found.append({"where": f.where, "scope": f.scope or None, "cause": f.cause, "since": f.since.isoformat(),
                      "last_at": f.last_at.isoformat(), "count": f.count})
    return found

