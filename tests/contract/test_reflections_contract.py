"""Contract: reflections (kind, rests_on) written, rewritten and tombstoned by the offline pass, whatever the database."""

from __future__ import annotations

from consolidator.core.app import App
from consolidator.core.config import Settings
from tests.support.reflect_kit import NOW, WORK, put_on, reflections, retract, stage, supersede


def test_written_rewritten_and_tombstoned(engine, tmp_path) -> None:
    """The added columns round-trip; a superseded source rewrites the reflection; most sources gone tombstone it."""
    app = App(settings=Settings(state_dir=tmp_path), engine=engine)
    acme, lead, mentor = [put_on(app, text, day) for day, text in enumerate(WORK)]
    stage(app).run_scope("maya", NOW)
    [first] = reflections(app)
    assert first.kind == "reflection" and sorted(first.rests_on) == sorted([acme, lead, mentor])
    globex = supersede(app, acme, "Maya works at Globex as a designer.", 10)
    stage(app).run_scope("maya", NOW)
    [second] = reflections(app)
    assert globex in second.rests_on and acme not in second.rests_on
    retract(app, lead)
    retract(app, mentor)
    stage(app).run_scope("maya", NOW)
    assert reflections(app) == [] and len(reflections(app, current=False)) == 2
