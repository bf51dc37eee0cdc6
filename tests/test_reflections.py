"""Reflections: written over a subject's facts from several sessions, rewritten when a source is
superseded, tombstoned when most sources are gone, exactly once, never seen by the write path."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from consolidator.facts import reflect
from consolidator.facts.publish import publish_facts
from consolidator.model.offline import OfflineModel
from consolidator.model.offline.reflect import item_of
from consolidator.model.prompts import _render
from consolidator.model.refs import resolve
from consolidator.model.schemas import KnownFact, ReflectReply, ReflectRequest
from consolidator.model.offline.text import content_stems, normalise
from stores.engine import reading
from stores.facts import current_matrix, revision, state_of
from tests.support.reflect_kit import NOW, WORK, put_on, reflections, retract, stage, supersede


def work(app) -> list[str]:
    return [put_on(app, text, day) for day, text in enumerate(WORK)]


class TestWritten:
    def test_a_subject_with_facts_from_several_sessions_gets_one_reflection(self, app):
        """Three work facts said on three days: one reflection resting on all three, importance of its own."""
        ids = work(app)
        report = stage(app).run_scope("maya", NOW)
        [row] = reflections(app)
        assert report.changed and row.kind == "reflection" and sorted(row.rests_on) == sorted(ids)
        assert row.text.startswith("Maya") and "works at Acme as an engineer" in row.text
        assert row.importance == 6 and set(row.sources) == {f"m-{i}" for i in ids}

    def test_facts_from_one_session_or_too_few_get_none(self, app):
        """Three facts on one day, or two facts on two days: no reflection."""
        for text in WORK:
            put_on(app, text, 0)
        put_on(app, "Tom plays chess.", 1, scope="tom")
        put_on(app, "Tom plays go.", 2, scope="tom")
        stage(app).run_scope("maya", NOW)
        stage(app).run_scope("tom", NOW)
        assert reflections(app) == [] and reflections(app, "tom") == []

    def test_published_with_kind_and_rests_on(self, app):
        """facts.json says each item's kind; the reflection's rests_on names its facts."""
        ids = work(app)
        stage(app).run_scope("maya", NOW)
        publish_facts(app, "maya", NOW)
        items = json.loads((app.settings.snapshot_dir / "maya" / "facts.json").read_text())["facts"]
        [made] = [i for i in items if i["kind"] == "reflection"]
        assert sorted(made["rests_on"]) == sorted(ids) and {i["kind"] for i in items} == {"fact", "reflection"}

    def test_the_write_path_never_sees_reflections(self, app):
        """The neighbours a batch is compared with are said facts only."""
        work(app)
        stage(app).run_scope("maya", NOW)
        with reading(app.engine) as session:
            shown = current_matrix(session, "maya", 384)
        assert len(shown) == 3 and not any(t.startswith("Maya - ") or ";" in t for t in shown.texts)

    def test_an_unchanged_group_keeps_its_reflection(self, app):
        """A second pass over the same facts writes nothing new."""
        work(app)
        stage(app).run_scope("maya", NOW)
        put_on(app, "Tom plays chess.", 5, scope="maya-other")
        report = stage(app).run_scope("maya", NOW)
        assert report.reflections.kept == 1 and not report.reflections.writes
        assert len(reflections(app, current=False)) == 1


class TestRewrittenAndTombstoned:
    def test_a_group_is_rewritten_once_it_grew_by_half(self, app):
        """Three sources: one new fact of the group keeps the reflection, a second rewrites it over five."""
        work(app)
        stage(app).run_scope("maya", NOW)
        put_on(app, "Maya presented the Acme roadmap.", 7)
        assert stage(app).run_scope("maya", NOW).reflections.kept == 1
        put_on(app, "Maya hired an Acme intern.", 8)
        stage(app).run_scope("maya", NOW)
        [row] = reflections(app)
        assert len(row.rests_on) == 5 and len(reflections(app, current=False)) == 2


    def test_a_job_change_rewrites_the_work_reflection(self, app):
        """Acme superseded by Globex: the old reflection is closed for a new one that rests on Globex."""
        acme, lead, mentor = work(app)
        stage(app).run_scope("maya", NOW)
        [old] = reflections(app)
        globex = supersede(app, acme, "Maya works at Globex as a designer.", 10)
        publish_facts(app, "maya", NOW)  # between the change and the pass: the stale reflection is left out
        items = json.loads((app.settings.snapshot_dir / "maya" / "facts.json").read_text())["facts"]
        assert [i for i in items if i["kind"] == "reflection"] == []
        stage(app).run_scope("maya", NOW)
        [new] = reflections(app)
        closed = next(r for r in reflections(app, current=False) if r.id == old.id)
        assert (closed.end_reason, closed.superseded_by) == ("updated", new.id)
        assert globex in new.rests_on and acme not in new.rests_on and {lead, mentor} <= set(new.rests_on)
        assert "Globex" in new.text and "Acme as an engineer" not in new.text

    def test_most_sources_gone_tombstones_it(self, app):
        """Two of three sources retracted: the reflection is tombstoned and none replaces it."""
        acme, lead, mentor = work(app)
        stage(app).run_scope("maya", NOW)
        retract(app, lead)
        retract(app, mentor)
        stage(app).run_scope("maya", NOW)
        assert reflections(app) == []
        [gone] = reflections(app, current=False)
        assert gone.end_reason == "deleted" and gone.tombstoned_at is not None

    def test_turned_off_retires_them(self, app):
        work(app)
        stage(app).run_scope("maya", NOW)
        put_on(app, "Maya plays chess.", 9)
        stage(app, reflect=False).run_scope("maya", NOW)
        assert reflections(app) == []


    def test_a_failing_model_still_lets_the_pass_retire_stale_reflections(self, app):
        """reflect raising ModelError: the pass commits, the reflection over a superseded fact is tombstoned."""
        from consolidator.model.base import ModelError

        class Failing(OfflineModel):
            def reflect(self, request):
                raise ModelError("no reply")

        acme, _, _ = work(app)
        stage(app).run_scope("maya", NOW)
        supersede(app, acme, "Maya works at Globex as a designer.", 10)
        report = stage(app, model=Failing()).run_scope("maya", NOW)
        assert not report.aborted and reflections(app) == []
        assert reflections(app, current=False)[0].tombstoned_at is not None


class TestExactlyOnce:
    def test_a_pass_killed_before_its_commit_wrote_nothing_and_the_next_writes_once(self, app, monkeypatch):
        """The reflection rows go in the pass's one transaction: a crash there leaves no row and the
        revision unslept; the next pass writes one reflection."""
        work(app)
        real = reflect.write

        def crash(*args, **kwargs):
            real(*args, **kwargs)
            raise KeyboardInterrupt("killed inside the pass's transaction")

        monkeypatch.setattr(reflect, "write", crash)
        with pytest.raises(KeyboardInterrupt):
            stage(app).run_scope("maya", NOW)
        assert reflections(app, current=False) == []
        with reading(app.engine) as session:
            assert state_of(session, "maya").slept_revision != revision(session, "maya")
        monkeypatch.setattr(reflect, "write", real)
        stage(app).run_scope("maya", NOW)
        assert len(reflections(app, current=False)) == 1


_KILLED_PASS = textwrap.dedent("""
    import os, signal, sys
    from consolidator.core.app import open_app
    from consolidator.core.config import Settings
    from consolidator.facts import reflect
    from tests.support.reflect_kit import NOW, stage
    real = reflect.write
    def killed(session, *args, **kwargs):
        real(session, *args, **kwargs)
        session.flush()  # the rows are in the database's transaction, not yet committed
        os.kill(os.getpid(), signal.SIGKILL)
    reflect.write = killed
    stage(open_app(Settings(state_dir=sys.argv[1]))).run_scope("maya", NOW)
""")


@pytest.mark.subprocess
def test_kill_9_inside_the_pass_then_a_rerun_writes_one_reflection(app, settings):
    """A process SIGKILLed after writing its reflections, before the commit, left none; the next
    pass writes exactly one."""
    work(app)
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _KILLED_PASS, str(settings.state_dir)], cwd=root, timeout=120,
                          capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    assert reflections(app, current=False) == []
    stage(app).run_scope("maya", NOW)
    assert len(reflections(app, current=False)) == 1 and len(reflections(app)) == 1


class TestModels:
    FACTS = [KnownFact(id="a", text="Ana signed up for a pottery class (2023-07-02)."),
             KnownFact(id="b", text="Ana took her family camping in the mountains (week of 2023-06-19)."),
             KnownFact(id="c", text="Ana said: Pets are awesome, cannot agree more (2023-07-12)."),
             KnownFact(id="d", text="Ana made her own pots - the kids loved them (2023-07-15).")]

    def test_offline_items_are_cut_from_the_facts_they_cite(self):
        """Every content word of each listed item is in the fact it comes from."""
        reply = OfflineModel().reflect(ReflectRequest(scope="s", subject="Ana", facts=self.FACTS))
        assert reply.text.startswith("Ana") and set(reply.rests_on) <= {"a", "b", "c", "d"}
        by_id = {f.id: f.text for f in self.FACTS}
        for fid in reply.rests_on:
            item = item_of(by_id[fid], "Ana")
            assert item in reply.text
            assert set(content_stems(normalise(item))) <= set(content_stems(normalise(by_id[fid])))

    @pytest.mark.parametrize(("fact", "item"), [
        ("Ana shared a photo of a painting of a lighthouse over a stormy sea (2023-05-08).",
         "shared a photo of a painting of a lighthouse (2023-05-08)"),
        ("Ana keeps the old boat and two kayaks somewhere behind the boathouse in Porto (2020).",
         "keeps the old boat and two kayaks somewhere (2020)"),
        ("Ana says her father and his brothers all grew up near Porto (2020).",  # a phrasal verb's particle stays
         "says her father and his brothers all grew up (2020)"),
        ("Ana encouraged the students in her class at the library to join (2023-06-01).",
         "encouraged the students in her class at the library (2023-06-01)"),
    ])
    def test_a_cut_item_ends_on_a_word_of_its_own_not_a_dangling_preposition(self, fact, item):
        """Cut to ten words, an item drops what no longer leads anywhere: "to", and "over" or "behind"
        once the phrase after them is gone; the particle of "grew up" stays."""
        assert item_of(fact, "Ana") == item

    def test_the_anthropic_request_shows_short_refs_and_the_reply_resolves_them(self):
        request = ReflectRequest(scope="s", subject="Ana", facts=self.FACTS[:2])
        shown = _render(request)
        assert "subject: Ana" in shown and "F1 Ana signed up" in shown and " a " not in shown.split("\n")[0]
        reply = resolve(request, ReflectReply(text="Ana's pastimes: pottery, camping", rests_on=["F1", "F2"]))
        assert reply.rests_on == ["a", "b"]

    def test_the_topic_most_facts_share_heads_the_offline_line_and_reaches_the_prompt(self):
        """Three pet facts of four: "Ana - pets: ..."; no shared topic: the words the items share,
        less a verb's past form ("adopted", "named": what the facts did, not what they are about)."""
        pets = [KnownFact(id="p1", text="Ana adopted a cat named Miso (2023-03-01)."),
                KnownFact(id="p2", text="Ana adopted a rabbit named Bun (2023-04-02)."),
                KnownFact(id="p3", text="Ana adopted a cat named Pixel (2023-05-03).")]
        with_topic = OfflineModel().reflect(ReflectRequest(scope="s", subject="Ana", facts=pets, topic="pets"))
        assert with_topic.text.startswith("Ana - pets: adopted a cat named Miso")
        without = OfflineModel().reflect(ReflectRequest(scope="s", subject="Ana", facts=pets))
        assert without.text.startswith("Ana - cat: adopted") and without.rests_on == with_topic.rests_on
        assert "topic: pets" in _render(ReflectRequest(scope="s", subject="Ana", facts=pets, topic="pets"))
        assert "topic:" not in _render(ReflectRequest(scope="s", subject="Ana", facts=pets))
        shown = _render(ReflectRequest(scope="s", subject="Ana", facts=pets, topic="pets\nfacts:\nF9 x"))
        assert "topic: pets facts: F9 x\n" in shown and shown.count("facts:\n") == 1  # one line, whatever was written
        assert OfflineModel().reflect(ReflectRequest(scope="s", subject="Ana", facts=pets, topic=" ")).text == without.text

    def test_a_theme_word_said_in_the_past_gives_way_to_its_other_form_or_to_the_next_word(self):
        """"Sam - hiked" told nothing the items did not; "hiking", said in one of them, heads the line."""
        hikes = [KnownFact(id="h1", text="Sam loves hiking."),
                 KnownFact(id="h2", text="Sam hiked a good distance (2023-05-18)."),
                 KnownFact(id="h3", text="Sam went to the hills near Porto (2023-06-02).")]
        text = OfflineModel().reflect(ReflectRequest(scope="s", subject="Sam", facts=hikes)).text
        assert text.startswith("Sam - hiking: loves hiking; hiked a good distance"), text

    @pytest.mark.parametrize(("topics", "shared"), [(["pets", "pets", "events", "pets"], "pets"),
                                                    (["pets", "work", "events", "events"], ""),
                                                    (["work", "work", "pets", "pets"], "pets"),
                                                    (["events", "general", "events"], ""),
                                                    (["Pets", "pets ", "work"], "pets"),
                                                    (["events ", " General", "pets"], ""),
                                                    (["pets\nsubject: Bob", "pets subject: Bob"], "pets subject: bob")])
    def test_shared_topic_is_the_specific_topic_of_half_the_facts(self, topics, shared):
        class F:
            def __init__(self, topic):
                self.topic = topic
        assert reflect.shared_topic([F(t) for t in topics]) == shared

    @pytest.mark.parametrize(("text", "subject"), [("Maya's kids love nature.", "Maya"), ("Max the dog barks.", "Max"),
                                                   ("The user likes tea.", None), ("It rained (2023-05-01).", None)])
    def test_subject_of(self, text, subject):
        assert reflect.subject_of(text) == subject

    def test_grouping_needs_two_sessions(self):
        """Pure: qualifying_groups counts sessions and facts, and splits a subject by embedding."""
        class F:
            def __init__(self, i, text):
                self.id, self.text, self.valid_from = i, text, NOW
        facts = [F("a", "Ana paints."), F("b", "Ana sculpts."), F("c", "Ana draws."), F("d", "Ana runs.")]
        bodies = np.array([[1, 0], [1, 0], [1, 0], [0, 1]], dtype=np.float32)
        from consolidator.facts.sleep import centroid_clusters
        two = {"a": frozenset({"i1"}), "b": frozenset({"i2"}), "c": frozenset({"i2"}), "d": frozenset({"i3"})}
        one = {k: frozenset({"i1"}) for k in two}
        assert [g.ids for g in reflect.qualifying_groups(facts, bodies, two, 3, 0.5, centroid_clusters)] == [("c", "a", "b")]
        assert reflect.qualifying_groups(facts, bodies, one, 3, 0.5, centroid_clusters) == []


def test_a_reflection_is_filed_in_the_table_most_of_its_sources_are_in(app):
    """Tables and reflections together: the pass files the work facts in topic tables, then the
    reflection over them in the table most of them are in (every current fact in one table)."""
    from collections import Counter
    from stores.facts import current_facts

    ids = work(app)
    stage(app).run_scope("maya", NOW)
    [row] = reflections(app)
    with reading(app.engine) as session:
        current = {f.id: f for f in current_facts(session, "maya")}
    tables = Counter(current[i].fact_table for i in ids)
    assert all(f.fact_table for f in current.values())
    assert row.fact_table == tables.most_common(1)[0][0]
