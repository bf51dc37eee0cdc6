"""Helpers for the recall tests: a hand-written conversation logged and drained by the real daemon
wiring (offline model, real SQLite), and facts written as the facts step leaves them."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from consolidator.core.app import App
from consolidator.runtime.wiring import build_consolidator
from stores.engine import transaction
from stores.schema.memory import Fact
from stores.facts import close_fact, new_fact_id, norm_hash, touch
from stores.messages import NewMessage, append_messages
from stores.view_versions import bump

T0 = datetime(2024, 5, 6, 9, 0, tzinfo=timezone.utc)  # a Monday


def log(app: App, scope: str, lines: list[str], start: datetime = T0, step: timedelta = timedelta(minutes=1),
        session: str | None = None) -> list[str]:
    """Append "Speaker: text" lines a `step` apart from `start`; their stored ids."""
    messages = []
    for i, line in enumerate(lines):
        speaker, _, text = line.partition(": ")
        role = "assistant" if speaker.lower() == "assistant" else "user"
        messages.append(NewMessage(scope, start + i * step, role, text, speaker=speaker, session=session))
    return append_messages(app.engine, messages, start + len(lines) * step).ids


def drain(app: App, now: datetime):
    """Everything due at `now`, as `run --once` does, through the daemon's own wiring."""
    consolidator = build_consolidator(app)
    return consolidator, consolidator.drain(now)


def put_fact(app: App, scope: str, text: str, at: datetime, importance: int = 5,
             sources: list[str] | None = None) -> str:
    """One current fact, written as the facts step writes one (its view bumped in the same transaction)."""
    fid = new_fact_id()
    with transaction(app.engine) as session:
        session.add(Fact(id=fid, scope=scope, text=text, norm_hash=norm_hash(text),
                         embedding=np.zeros(8, dtype=np.float32).tobytes(), importance=importance, strength=1.0,
                         last_used=at, created_at=at, updated_at=at, valid_from=at, sources=sources or [],
                         source_roles=["user"]))
        touch(session, scope, importance)
        bump(session, scope, "facts")
    return fid


def supersede(app: App, scope: str, old: str, text: str, at: datetime) -> str:
    """Close fact `old` as updated by a new fact `text` (a job change), as an UPDATE does."""
    new = put_fact(app, scope, text, at)
    with transaction(app.engine) as session:
        fact = session.get(Fact, old)
        close_fact(fact, at, "updated", at, superseded_by=new)
        touch(session, scope)
        bump(session, scope, "facts")
    return new
