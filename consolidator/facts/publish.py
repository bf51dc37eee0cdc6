"""facts.json: a scope's current facts ranked by score, for a planner to read every turn.

Superseded, deleted and tombstoned facts are not in it; `consolidator history` reaches them.
Each item says its `kind` ("fact" or "reflection") and, for a reflection, `rests_on` (the ids of
the facts it rests on); a reflection whose sources are not all current is left out until the
next offline pass rewrites it (docs/reflections.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from consolidator.core.app import App
from consolidator.facts.scoring import score
from stores.engine import reading
from stores.schema.memory import Fact
from stores.facts import current_facts
from stores.files.snapshots import publish_json


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
        "kind": fact.kind or "fact",
        "rests_on": list(fact.rests_on or []),
    }


def ranked_facts(app: App, scope: str, now: datetime) -> list[dict[str, Any]]:
    """Current facts of `scope` as facts.json items, best score first (ties: newer first, then by
    text, so the same facts are published in the same order whatever their random ids)."""
    tau = app.settings.facts.tau
    with reading(app.engine) as session:
        facts = current_facts(session, scope)
    ids = {f.id for f in facts}
    facts = [f for f in facts if not f.is_reflection or set(f.rests_on or []) <= ids]
    items = [fact_item(f, now, tau) for f in facts]
    items.sort(key=lambda item: item["text"])
    items.sort(key=lambda item: item["valid_from"], reverse=True)  # stable: each sort keeps the one before
    items.sort(key=lambda item: -item["score"])
    return items


def facts_payload(app: App, scope: str, now: datetime) -> dict[str, Any]:
    return {"scope": scope, "generated_at": now.isoformat(), "facts": ranked_facts(app, scope, now)}


def publish_facts(app: App, scope: str, now: datetime) -> None:
    """Write <state_dir>/snapshots/<scope>/facts.json atomically (a SnapshotStage publisher)."""
    publish_json(app.settings.snapshot_dir, scope, "facts.json", facts_payload(app, scope, now))
