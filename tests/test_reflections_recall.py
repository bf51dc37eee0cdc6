"""recall never answers with a reflection whose evidence is gone: between a source's supersession
(the write path) and the next offline pass, the index leaves the reflection out, as facts.json does;
a source restored brings it back."""

from __future__ import annotations

from datetime import timedelta

from consolidator import recall
from consolidator.retrieval.build import RecallStage
from stores.engine import transaction
from stores.facts import get_fact, touch
from stores.view_versions import bump
from tests.support.recall_kit import log
from tests.support.reflect_kit import DAY0, NOW, WORK, put_on, reflections, stage, supersede


def said(app) -> list[str]:
    log(app, "maya", ["Maya: hello"], start=DAY0)
    return [put_on(app, text, day) for day, text in enumerate(WORK)]


def indexed(app, settings, at) -> set[str]:
    RecallStage(app).update("maya", at)
    got = recall("maya", "Maya Acme engineer data team mentors", budget_tokens=4000, config=settings, now=at)
    return {i.id for i in got.items}


def test_a_reflection_whose_source_was_superseded_is_not_recalled_until_the_pass_rewrites_it(app, settings):
    ids = said(app)
    stage(app).run_scope("maya", NOW)
    [made] = reflections(app)
    assert made.id in indexed(app, settings, NOW)
    supersede(app, ids[0], "Maya works at Initech as an engineer.", 10)
    with transaction(app.engine) as session:
        bump(session, "maya", "facts")  # as the facts step does with its write
    later = NOW + timedelta(minutes=1)
    assert made.id not in indexed(app, settings, later)
    stage(app).run_scope("maya", later + timedelta(minutes=1))
    [rewritten] = reflections(app)
    assert rewritten.id != made.id and rewritten.id in indexed(app, settings, later + timedelta(minutes=2))


def test_a_restored_source_brings_its_reflection_back(app, settings):
    ids = said(app)
    stage(app).run_scope("maya", NOW)
    [made] = reflections(app)
    with transaction(app.engine) as session:
        get_fact(session, "maya", ids[1]).valid_to = NOW  # gone a while (as a retract would)
        get_fact(session, "maya", ids[1]).updated_at = NOW
        touch(session, "maya")
        bump(session, "maya", "facts")
    assert made.id not in indexed(app, settings, NOW + timedelta(minutes=1))
    with transaction(app.engine) as session:
        get_fact(session, "maya", ids[1]).valid_to = None  # back (as restore does)
        get_fact(session, "maya", ids[1]).updated_at = NOW + timedelta(minutes=2)
        touch(session, "maya")
        bump(session, "maya", "facts")
    assert made.id in indexed(app, settings, NOW + timedelta(minutes=3))
