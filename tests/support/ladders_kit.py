"""The ladder tests' app (a Paris scope beside UTC ones), lines said at chosen times, the summary
rows by rung, and a consolidator with the ladder stage and a counting model."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import select

from consolidator.ladders.stage import LadderStage
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import ScopeSettings, Settings
from stores.engine import reading
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary
from tests.support.fakes import CountingModel

UTC = timezone.utc
MONDAY = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # ISO week 2025-W10


@pytest.fixture
def app(tmp_path):
    settings = Settings(state_dir=tmp_path / "state", scopes={"paris": ScopeSettings(timezone="Europe/Paris")})
    app = open_app(settings)
    yield app
    app.close()


def say(app, scope, at, text, session=None, role="user"):
    append_messages(app.engine, [NewMessage(scope, at, role, text, session=session)], at)


def rows(app, scope="maya"):
    with reading(app.engine) as session:
        return list(session.execute(select(Summary).where(Summary.scope == scope)).scalars())


def by_rung(app, scope="maya"):
    out: dict[tuple[str, str], dict[str, int]] = {}
    for s in rows(app, scope):
        out.setdefault((s.ladder, s.rung), {}).setdefault(s.kind, 0)
        out[(s.ladder, s.rung)][s.kind] += 1
    return out


def machine(app):
    model = CountingModel()
    stage = LadderStage(app, model)
    return Consolidator(app, [], [stage]), model, stage
