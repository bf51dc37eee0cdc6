"""The reflections tests' harness: Maya's work facts said on different days, and an offline pass
whose grouping threshold lets every fact of a subject meet (the grouping is tested apart)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from consolidator.facts.sleep import SleepStage
from consolidator.model.offline import OfflineModel
from stores.engine import reading, transaction
from stores.facts import all_facts, close_fact, get_fact, new_fact_id, norm_hash, touch
from stores.schema.memory import Fact

UTC = timezone.utc
DAY0 = datetime(2025, 4, 1, 9, 0, tzinfo=UTC)
NOW = DAY0 + timedelta(days=30)
WORK = ["Maya works at Acme as an engineer.", "Maya leads the Acme data team.", "Maya mentors two junior engineers."]


def put_on(app, text: str, day: int, scope: str = "maya", importance: int = 5) -> str:
    """One current fact said on day `day` (its own session: its messages are not in the log, so
    the pass counts it by its day)."""
    fid, at = new_fact_id(), DAY0 + timedelta(days=day)
    vec = np.zeros(384, dtype=np.float32)
    vec[day % 384] = 1.0
    with transaction(app.engine) as session:
        session.add(Fact(id=fid, scope=scope, text=text, norm_hash=norm_hash(text), embedding=vec.tobytes(),
                         importance=importance, strength=1.0, last_used=NOW, created_at=at, updated_at=at,
                         valid_from=at, sources=[f"m-{fid}"], source_roles=["user"]))
        touch(session, scope, importance)
    return fid


def supersede(app, fid: str, text: str, day: int, scope: str = "maya") -> str:
    """`fid` replaced by a new fact (an UPDATE of the write path: a job change)."""
    new = put_on(app, text, day, scope)
    with transaction(app.engine) as session:
        close_fact(get_fact(session, scope, fid), DAY0 + timedelta(days=day), "updated", NOW, superseded_by=new)
        touch(session, scope)
    return new


def retract(app, fid: str, scope: str = "maya") -> None:
    with transaction(app.engine) as session:
        close_fact(get_fact(session, scope, fid), NOW, "deleted", NOW)
        touch(session, scope)


def stage(app, model=None, **settings) -> SleepStage:
    made = SleepStage(app, model or OfflineModel())
    made.settings = made.settings.model_copy(update={"reflect_threshold": -1.0, "keep_top": 10_000,
                                                     "score_floor": 0.0, **settings})
    return made


def reflections(app, scope: str = "maya", current: bool = True) -> list[Fact]:
    with reading(app.engine) as session:
        rows = [f for f in all_facts(session, scope) if f.kind == "reflection"]
    return [f for f in rows if f.valid_to is None] if current else rows
