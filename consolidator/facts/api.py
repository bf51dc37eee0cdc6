"""The Python API over facts for planners: mark_used, pin, restore.

`mark_used` is on the planner's path, so it is one short transaction of one insert per id
into the FactUse queue (no read of the facts); the daemon applies the queue (strength + 1,
capped; last_used = time of use). Unknown ids are dropped by the daemon, not here.
Opened apps are kept per database URL, so repeated calls do not reopen the database.
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

from consolidator.core.clock import utcnow as _now
from consolidator.core.app import App, open_app
from consolidator.core.config import load_settings
from stores.engine import transaction
from stores.schema.memory import Fact
from stores.facts import enqueue_uses, facts_by_id, restore, set_pinned
from stores.scopes import validate_scope
from stores.types import utc
from stores.view_versions import bump
from stores.work_queue import AT_ONCE, mark_due

_apps: dict[str, App] = {}
_lock = threading.Lock()


def _open(config: str | Path | None, app: App | None) -> App:
    if app is not None:
        return app
    settings = load_settings(Path(config) if config else None)
    with _lock:
        cached = _apps.get(settings.db_url)
        if cached is None:
            cached = _apps[settings.db_url] = open_app(settings)
        return cached


def _ids(fact_ids) -> list[str]:
    if isinstance(fact_ids, str):
        fact_ids = [fact_ids]
    ids = list(fact_ids)
    for fid in ids:
        if not isinstance(fid, str) or not fid.strip() or len(fid) > 32:
            raise ValueError(f"invalid fact id {fid!r}")
    return ids


class UnknownFacts(ValueError):
    """Fact ids of no fact of the scope, given to mark_used with strict=True."""


def mark_used(scope: str, fact_ids, config: str | Path | None = None, *, at: datetime | None = None,
              app: App | None = None, strict: bool = False) -> int:
    """Record that a planner used these facts (applied by the daemon); returns how many were queued.

    Only the scope's facts are queued, each once however often it is given: an id of no fact of
    the scope (another scope's, or none) is skipped, or with `strict` raises ValueError naming
    it, and then nothing is queued."""
    validate_scope(scope)
    ids = list(dict.fromkeys(_ids(fact_ids)))
    when = utc(at) if at is not None else _now()
    if not ids:
        return 0
    with transaction(_open(config, app).engine) as session:
        known = facts_by_id(session, scope, set(ids))
        unknown = [fid for fid in ids if fid not in known]
        if unknown and strict:
            raise UnknownFacts(f"unknown {'fact id' if len(unknown) == 1 else 'fact ids'} in scope {scope!r}: "
                             f"{', '.join(unknown[:10])}{' ...' if len(unknown) > 10 else ''}")
        ids = [fid for fid in ids if fid in known]
        if ids:
            enqueue_uses(session, scope, ids, when)
    return len(ids)


def pin(scope: str, fact_id: str, pinned: bool = True, config: str | Path | None = None, *,
        app: App | None = None, now: datetime | None = None) -> Fact:
    """Pin (or unpin) a current fact: a pinned fact never decays and is never dropped.

    Raises FactNotFound (a LookupError) if it is not a current fact of the scope.
    """
    validate_scope(scope)
    with transaction(_open(config, app).engine) as session:
        fact = set_pinned(session, scope, fact_id, pinned, now or _now())
        bump(session, scope, "facts")
        mark_due(session, scope, AT_ONCE)  # the daemon republishes the view
    return fact


def restore_fact(scope: str, fact_id: str, config: str | Path | None = None, *, app: App | None = None,
                 now: datetime | None = None) -> Fact:
    """Un-tombstone a merged-away or dropped fact within facts.restore_grace.

    Raises FactNotFound or RestoreExpired (both LookupError).
    """
    validate_scope(scope)
    opened = _open(config, app)
    with transaction(opened.engine) as session:
        fact = restore(session, scope, fact_id, now or _now(), opened.settings.facts.restore_grace)
        bump(session, scope, "facts")
        mark_due(session, scope, AT_ONCE)  # the daemon republishes the view
    return fact
