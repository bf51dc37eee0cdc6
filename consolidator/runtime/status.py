"""What `consolidator status` reports, gathered with read-only transactions."""

from __future__ import annotations

import importlib
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from consolidator.core.app import App
from consolidator.cost.usage import usage_report
from stores import faults as fault_rows
from stores import lease
from stores.archive_manifest import tallies
from stores.engine import database_path, is_embedded, printable_url, reading
from stores.overview import scopes_at_a_glance


def gather(app: App, now: datetime) -> dict[str, Any]:
    if app.unreachable is not None:
        return unreachable_report(app)
    with reading(app.engine) as session:
        glance = scopes_at_a_glance(session)  # two statements, whatever the number of scopes
        archived = tallies(session)  # one grouped statement over the archive's manifest
    scopes: dict[str, Any] = {}
    for g in glance:
        pending = max(0, g.messages - g.batched_seq)  # seq is dense per scope
        open_batches = sum(g.unfinished.values())
        scopes[g.scope] = {
            "messages": g.messages,  # archived ones included (the newest seq)
            "archived": archived[g.scope].rows if g.scope in archived else 0,
            "interactions": g.interactions,
            "pending": pending,
            "batches": {"done": max(0, g.batches - open_batches), **g.unfinished},
            "last_message_at": g.last_at.isoformat() if g.last_at else None,
        }
    alive = lease.live_daemons(app.engine, now)
    info = alive[0] if alive else lease.current(app.engine)
    daemon = {
        "running": bool(alive),
        "holder": info.holder if info else None,
        "last_heartbeat": info.heartbeat_at.isoformat() if info else None,
    }
    if len(alive) > 1:  # several daemons sharing a server database
        daemon["holders"] = [d.holder for d in alive]
    model = {**usage_report(app.engine, app.settings.model, now), **backend(app)}
    return {"scopes": scopes, "daemon": daemon, "state_dir": str(app.settings.state_dir),
            "database": printable_url(app.settings.db_url), "model": model, "faults": active_faults(app)}


def backend(app: App) -> dict[str, Any]:
    """Which backend the daemon would use and where: provider and base_url (never a key)."""
    from consolidator.model.settings import OPENAI_URL, resolve_provider, shown_url

    settings = app.settings.model
    provider = resolve_provider(settings, os.environ)
    url = settings.base_url or (OPENAI_URL if provider == "openai" else None)
    if url:
        url = shown_url(url)  # credentials in a URL (user:key@host, ?api-key=) are never shown
    return {"provider": provider, "base_url": url}


def config_faults(app: App) -> list[str]:
    """What in the configuration `run` would refuse though `status` can read the state: a model key
    missing from this shell, the SDK not installed, a plugin that is not a step factory."""
    from consolidator.runtime.model_factory import config_fault

    found = [fault] if (fault := config_fault(app.settings)) else []
    for spec in app.settings.plugins:
        module_name, _, attr = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr) if module_name and attr else None
        except (Exception, SystemExit) as exc:  # not importable, no such name, raised or exited while loading
            found.append(f"{app.settings.source}: key 'plugins': plugin {spec!r}: {type(exc).__name__}: {exc}")
            continue
        if not callable(factory):
            found.append(f"{app.settings.source}: key 'plugins': plugin {spec!r}: not a factory of batch steps")
    return found


def unreachable_report(app: App) -> dict[str, Any]:
    """What `status` can say while the database server does not answer: that, and nothing else."""
    fault = {"where": "database", "scope": None, "cause": app.unreachable, "since": None, "last_at": None, "count": None}
    return {"scopes": {}, "daemon": {"running": None, "holder": None, "last_heartbeat": None},
            "state_dir": str(app.settings.state_dir), "database": printable_url(app.settings.db_url),
            "faults": [fault], "reachable": False}


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
    for cause in config_faults(app):
        found.append({**seen, "where": "config", "cause": cause})
    for f in fault_rows.active(app.engine):
        found.append({"where": f.where, "scope": f.scope or None, "cause": f.cause, "since": f.since.isoformat(),
                      "last_at": f.last_at.isoformat(), "count": f.count})
    return found

