"""facts.json: a scope's current facts ranked by score, for a planner to read every turn; and
the topic tables: facts/index.json (each table's name, description, size, when it last
changed, its file) and one facts/<slug>.json per table (its facts, ranked the same way).

Superseded, deleted and tombstoned facts are not in them; `consolidator history` reaches them.
A table merged or split away loses its file when the views are next published.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from consolidator.core.app import App
from consolidator.facts.scoring import score
from stores.engine import reading
from stores.fact_tables import tables_of
from stores.schema.memory import Fact
from stores.facts import current_facts
from stores.files.snapshots import publish_json, snapshot_path

TABLES_DIR = "facts"


def fact_item(fact: Fact, now: datetime, tau) -> dict[str, Any]:
    return {
        "id": fact.id,
        "text": fact.text,
        "score": round(score(fact.importance, fact.strength, fact.last_used, now, tau, fact.pinned), 4),
        "importance": fact.importance,
        "strength": fact.strength,
        "pinned": fact.pinned,
        "topic": fact.topic,
        "valid_from": fact.valid_from.isoformat(),
        "last_used": fact.last_used.isoformat(),
        "sources": list(fact.sources),
        "table": fact.fact_table,
    }


def _ranked(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best score first (ties: newer first, then by text, so the same facts are published in the
    same order whatever their random ids)."""
    items.sort(key=lambda item: item["text"])
    items.sort(key=lambda item: item["valid_from"], reverse=True)  # stable: each sort keeps the one before
    items.sort(key=lambda item: -item["score"])
    return items


def ranked_facts(app: App, scope: str, now: datetime) -> list[dict[str, Any]]:
    """Current facts of `scope` as facts.json items, best score first."""
    tau = app.settings.facts.tau
    with reading(app.engine) as session:
        facts = current_facts(session, scope)
    return _ranked([fact_item(f, now, tau) for f in facts])


def facts_payload(app: App, scope: str, now: datetime) -> dict[str, Any]:
    return {"scope": scope, "generated_at": now.isoformat(), "facts": ranked_facts(app, scope, now)}


def tables_payload(app: App, scope: str, now: datetime, items: list[dict[str, Any]] | None = None
                   ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """facts/index.json, and each table's file by slug: the tables with at least one current fact."""
    with reading(app.engine) as session:
        tables = tables_of(session, scope)
    items = ranked_facts(app, scope, now) if items is None else items
    index, files = [], {}
    for table in tables:
        facts = [item for item in items if item["table"] == table.name]
        if not facts:
            continue
        entry = {"name": table.name, "description": table.description, "size": len(facts),
                 "updated": table.updated_at.isoformat(), "file": f"{TABLES_DIR}/{table.slug}.json"}
        index.append(entry)
        files[table.slug] = {"scope": scope, "generated_at": now.isoformat(), **entry, "facts": facts}
    return {"scope": scope, "generated_at": now.isoformat(), "tables": index}, files


def publish_facts(app: App, scope: str, now: datetime) -> None:
    """Write facts.json, facts/index.json and the tables' files atomically (a SnapshotStage
    publisher); a table's file is written before the index names it, and a file no table
    names any more is removed after the index stops naming it."""
    root = app.settings.snapshot_dir
    payload = facts_payload(app, scope, now)
    index, files = tables_payload(app, scope, now, payload["facts"])
    for slug, table in files.items():
        publish_json(root, scope, f"{TABLES_DIR}/{slug}.json", table)
    publish_json(root, scope, f"{TABLES_DIR}/index.json", index)
    publish_json(root, scope, "facts.json", payload)
    folder = snapshot_path(root, scope, f"{TABLES_DIR}/index.json").parent
    for stale in folder.glob("*.json"):
        if stale.stem != "index" and stale.stem not in files:
            stale.unlink(missing_ok=True)
