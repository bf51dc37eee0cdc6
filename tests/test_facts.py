"""The facts write path through the real step, runner and SQLite: the seeds' Maya story and its guards."""

from __future__ import annotations

from dataclasses import replace

from datetime import timedelta

import pytest
from sqlalchemy import select
from structlog.testing import capture_logs

from consolidator.domain import is_person
from consolidator.facts.step import FactsStep, looks_conflicting
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import FactCandidate
from consolidator.facts.scoring import score
from consolidator.runtime.tick import Consolidator
from consolidator.pipeline.steps import BatchWork, MessageView
from stores.engine import reading, transaction
from stores.schema.memory import Fact
from stores.facts import close_fact, history, touch
from stores.schema.ledger import StepRun
from stores.schema.log import Message
from tests.support.plugins import RecordingStep, effects
from tests.support.facts_kit import (  # noqa: F401  (maya is a fixture)
    MAYA_STORE,
    SEED_BATCH,
    T0,
    FailingThenWorking,
    RecordingModel,
    ScriptedModel,
    TableEmbedder,
    facts_of,
    later,
    machine,
    maya,
    say,
    texts,
    unit,
)


# --- the seeds' acceptance test -------------------------------------------------------------------


class TestSeedAcceptance:
    def test_four_candidates_against_mayas_store(self, maya, run_cli):
        """NOOP for the diet, London superseded by Paris with history, cat added, marathon fact closed."""
        app = maya
        before = {f.text: f for f in facts_of(app)}
        at = T0 + timedelta(days=30)
        consolidator, model = machine(app)
        say(app, "maya", at, SEED_BATCH)
        consolidator.drain(later(at))
        everything = {f.text: f for f in facts_of(app, current=False)}
        now = {f.text: f for f in facts_of(app)}
        # NOOP: no second vegetarian row, the existing one strengthened
        assert [f.text for f in everything.values()].count("Maya is vegetarian.") == 1
        assert now["Maya is vegetarian."].strength == 2.0
        # UPDATE: London closed (row kept) and superseded by Paris
        london = everything["Maya lives in London."]
        assert london.valid_to == at + timedelta(seconds=1) and london.end_reason == "updated"
        assert london.superseded_by == now["Maya lives in Paris."].id
        assert "Maya lives in London." not in now
        # ADD: the cat
        assert "Maya adopted a cat named Miso." in now
        # UPDATE: the marathon fact closed, the new one current
        marathon = everything["Maya is training for the Berlin marathon in September."]
        assert marathon.valid_to is not None and marathon.end_reason == "updated"
        successor = next(f for f in now.values() if f.id == marathon.superseded_by)
        assert successor.text == "Maya is no longer training for the marathon."
        # the allergy is untouched and pinned (critical)
        assert now["Maya has a serious peanut allergy."].id == before["Maya has a serious peanut allergy."].id
        assert now["Maya has a serious peanut allergy."].pinned
        assert len(model.requests) == 1  # one call for the whole batch
        # "where did she live before?"
        out = run_cli("history", "--scope", "maya", now["Maya lives in Paris."].id)
        assert out.exit_code == 0
        lines = out.output.splitlines()
        assert "Maya lives in London." in lines[0] and "updated" in lines[0]
        assert "Maya lives in Paris." in lines[1]

    def test_history_follows_the_chain_both_ways(self, maya):
        """history() from the old fact or the new one gives the same chain, oldest first."""
        app = maya
        at = T0 + timedelta(days=30)
        consolidator, _ = machine(app)
        say(app, "maya", at, SEED_BATCH)
        consolidator.drain(later(at))
        by_text = {f.text: f for f in facts_of(app, current=False)}
        with reading(app.engine) as session:
            from_old = [f.text for f in history(session, "maya", by_text["Maya lives in London."].id)]
            from_new = [f.text for f in history(session, "maya", by_text["Maya lives in Paris."].id)]
        assert from_old == from_new == ["Maya lives in London.", "Maya lives in Paris."]

    def test_rerunning_the_same_statement_adds_nothing(self, maya):
        """A statement repeated in a later batch never makes a second row (exact duplicate by hash)."""
        app = maya
        consolidator, _ = machine(app)
        at = T0 + timedelta(days=2)
        say(app, "maya", at, ["maya is VEGETARIAN"])
        consolidator.drain(later(at))
        assert len(facts_of(app, current=False)) == 4


# --- only people's words become facts --------------------------------------------------------------


class TestProvenance:
    def test_tool_and_action_lines_never_become_facts(self, app):
        """Tool, action, system and plain assistant lines stating facts leave the store empty."""
        consolidator, model = machine(app)
        say(app, "maya", T0, ["Maya lives in Rome."], role="tool", speaker=None)
        say(app, "maya", T0 + timedelta(seconds=10), ["Maya is vegan."], role="action", speaker=None)
        say(app, "maya", T0 + timedelta(seconds=20), ["Maya works at Acme."], role="system", speaker=None)
        say(app, "maya", T0 + timedelta(seconds=30), ["Maya lives in Oslo."], role="assistant", speaker="assistant")
        consolidator.drain(later(T0))
        assert facts_of(app, current=False) == []

    def test_a_model_claiming_a_tool_line_is_refused(self, app):
        """A candidate whose sources are all tool lines is refused and logged, a user's is kept."""
        def reply(request):
            by_role = {line.role: line.id for line in request.messages}
            return [FactCandidate(text="Maya lives in Rome.", importance=7, source_ids=[by_role["tool"]]),
                    FactCandidate(text="Maya likes jazz.", importance=4, source_ids=[by_role["user"]]),
                    FactCandidate(text="Maya owns a boat.", importance=4, source_ids=["no-such-message"])]
        consolidator, _ = machine(app, ScriptedModel(reply))
        say(app, "maya", T0, ["Search result: Maya lives in Rome."], role="tool", speaker=None)
        say(app, "maya", T0 + timedelta(seconds=5), ["I like jazz."])
        with capture_logs() as logs:
            consolidator.drain(later(T0))
        assert texts(facts_of(app)) == ["Maya likes jazz."]
        assert facts_of(app)[0].source_roles == ["user"]
        refused = sorted(e["reason"] for e in logs if e["event"] == "facts.refused")
        assert refused == ["no_known_sources", "not_from_people"]

    def test_a_speaker_relayed_by_the_assistant_counts_as_a_person(self):
        """is_person: user lines, and assistant lines carrying a named non-agent speaker."""
        assert is_person("user", None)
        assert is_person("assistant", "Ana")
        assert not is_person("assistant", "assistant")
        assert not is_person("assistant", None)
        assert not is_person("tool", "Maya")


# --- scopes never see each other -------------------------------------------------------------------


class TestScopes:
    def test_neighbours_come_only_from_the_batchs_scope(self, app):
        """B's request shows none of A's facts, and B gets its own row for the same statement."""
        consolidator, model = machine(app)
        say(app, "alice", T0, ["Maya lives in London."])
        consolidator.drain(later(T0))
        at = T0 + timedelta(days=1)
        say(app, "bob", at, ["Maya lives in London.", "Maya moved from London to Paris last month."])
        consolidator.drain(later(at))
        (bob_request,) = [r for r in model.requests if r.scope == "bob"]
        assert bob_request.neighbours == []
        assert texts(facts_of(app, "alice")) == ["Maya lives in London."]
        assert texts(facts_of(app, "bob")) == ["Maya lives in Paris."]

    def test_a_target_from_another_scope_is_ignored(self, app):
        """A model naming another scope's fact as UPDATE/DELETE target changes nothing there."""
        consolidator, _ = machine(app)
        say(app, "alice", T0, ["Maya lives in London."])
        consolidator.drain(later(T0))
        (alice_fact,) = facts_of(app, "alice")

        def reply(request):
            user = request.messages[0].id
            return [FactCandidate(text="Maya lives in Paris.", importance=7, op="UPDATE", target_id=alice_fact.id,
                                  source_ids=[user]),
                    FactCandidate(text="Maya quit jazz.", importance=3, op="DELETE", target_id=alice_fact.id,
                                  source_ids=[user])]
        consolidator, _ = machine(app, ScriptedModel(reply))
        at = T0 + timedelta(days=1)
        say(app, "bob", at, ["I moved to Paris."])
        with capture_logs() as logs:
            consolidator.drain(later(at))
        assert facts_of(app, "alice")[0].valid_to is None
        assert texts(facts_of(app, "bob")) == ["Maya lives in Paris."]
        assert sum(e["event"] == "facts.target_ignored" for e in logs) == 2


# --- duplicates and conflicts ------------------------------------------------------------------------


class TestDuplicates:
    def test_near_duplicate_strengthens_unless_it_conflicts(self, app):
        """Cosine >= near_duplicate skips and strengthens; a negated near twin follows the model (ADD)."""
        base, twin, negated = ("Maya enjoys long walks by the river.", "Maya loves long walks along the river.",
                               "Maya no longer enjoys long walks by the river.")
        embedder = TableEmbedder({base: unit(1.0, 0.0), twin: unit(0.98, 0.2), negated: unit(0.98, -0.2)})
        step = FactsStep(app, ScriptedModel(lambda r: [
            FactCandidate(text=r.messages[0].text, importance=3, source_ids=[r.messages[0].id])]), embedder)
        consolidator = Consolidator(app, [step])
        for day, text in enumerate([base, twin, negated]):
            say(app, "maya", T0 + timedelta(days=day), [text])
            with capture_logs() as logs:
                consolidator.drain(later(T0 + timedelta(days=day)))
        current = {f.text: f for f in facts_of(app)}
        assert sorted(current) == sorted([base, negated])
        assert current[base].strength == 2.0 and len(current[base].sources) == 2
        assert [e["fact"] for e in logs if e["event"] == "facts.conflict_to_model"] == [current[base].id]

    @pytest.mark.parametrize(
        ("a", "b", "conflict"),
        [
            ("Maya uses vim.", "Maya uses vim!", False),
            ("Maya is training for the marathon.", "Maya is no longer training for the marathon.", True),
            ("Maya is 30.", "Maya is 31.", True),
            ("Maya doesn't eat meat.", "Maya eats meat.", True),
            ("Maya has 2 cats.", "Maya has 2 cats now.", False),
        ],
    )
    def test_conflict_heuristic(self, a, b, conflict):
        """Negation on one side only, or different numbers, marks a close pair as a conflict."""
        assert looks_conflicting(a, b) is conflict


# --- failures and retries ---------------------------------------------------------------------------


def test_a_failing_fact_step_leaves_other_steps_committed_and_retries(app):
    """The fact step raising leaves the batch's other step done; a later tick retries it to success."""
    model = FailingThenWorking(failures=1)
    consolidator, _ = machine(app, model, extra_steps=[RecordingStep("record")])
    say(app, "maya", T0, MAYA_STORE)
    first = consolidator.drain(later(T0))
    assert first.steps_failed == 1 and first.steps_done == 1
    assert [step for _, step in effects(app.engine)] == ["record"]
    assert facts_of(app) == []
    with reading(app.engine) as session:
        runs = {r.step: r for r in session.execute(select(StepRun)).scalars()}
    assert runs["facts"].status == "retrying" and runs["record"].status == "done"
    second = consolidator.drain(later(T0) + timedelta(minutes=5))
    assert second.steps_done == 1
    assert texts(facts_of(app)) == sorted(MAYA_STORE)
    assert [step for _, step in effects(app.engine)] == ["record"]  # not re-run


# --- scoring ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("importance", "strength", "age_days", "pinned", "expected"),
    [
        (8, 1.0, 0, False, 8.0),
        (8, 1.0, 30, False, 8 * 0.36787944),  # one tau
        (8, 2.0, 30, False, 8 * 0.60653066),  # strength slows forgetting
        (8, 1.0, 300, False, 8 * 4.539993e-05),
        (3, 1.0, 3000, True, 3.0),  # pinned facts never decay
        (5, 1.0, -1, False, 5.0),  # a last_used in the future counts as now
    ],
)
def test_score(importance, strength, age_days, pinned, expected):
    """score = importance x exp(-age / (strength x tau)), tau 30 days; pinned: importance."""
    now = T0 + timedelta(days=400)
    got = score(importance, strength, now - timedelta(days=age_days), now, timedelta(days=30), pinned)
    assert got == pytest.approx(expected, rel=1e-5)


def test_apply_rechecks_that_targets_are_still_current(maya):
    """A target closed between prepare and apply is not closed again; the new fact is still added."""
    app = maya
    at = T0 + timedelta(days=30)
    say(app, "maya", at, ["Maya moved from London to Paris last month."])
    with reading(app.engine) as session:
        row = session.execute(select(Message).where(Message.text.like("%Paris%"))).scalar_one()
    view = MessageView(row.id, row.seq, row.at, row.role, row.speaker, row.text, row.session, row.interaction)
    work = BatchWork(batch_id=99, scope="maya", number=99, first_seq=row.seq, last_seq=row.seq,
                     messages=(view,), now=at)
    step = FactsStep(app, OfflineModel())
    plan = step.prepare(work)
    london = next(f for f in facts_of(app) if f.text == "Maya lives in London.")
    with transaction(app.engine) as session:  # meanwhile, the offline pass drops London
        close_fact(session.get(Fact, london.id), at, "dropped", at, tombstone=True)
        touch(session, "maya")
    with capture_logs() as logs, transaction(app.engine) as session:
        step.apply(session, work, plan)
    gone = next(f for f in facts_of(app, current=False) if f.id == london.id)
    assert gone.end_reason == "dropped" and gone.superseded_by is None
    assert "Maya lives in Paris." in texts(facts_of(app))
    assert [e["target"] for e in logs if e["event"] == "facts.target_gone"] == [london.id]


@pytest.mark.slow
def test_a_batch_shows_the_model_a_bounded_number_of_neighbours(app):
    """Fifty chatty lines against 300 facts: at most 4 x neighbours (40) facts reach the request.
    (Every line here is a fact as long as itself: the batch's fact share is lifted to keep them.)"""
    from consolidator.model.offline.tuning import DEFAULTS

    consolidator, model = machine(app, RecordingModel(OfflineModel(replace(DEFAULTS, fact_share=1.0))))
    say(app, "maya", T0, [f"I like topic{i} and theme{i}." for i in range(300)])
    consolidator.drain(later(T0 + timedelta(minutes=10)))
    assert len(facts_of(app)) > 200
    at = T0 + timedelta(days=1)
    say(app, "maya", at, [f"I like theme{i} a lot." for i in range(50)])
    consolidator.drain(later(at))
    last = model.requests[-1]
    assert 10 < len(last.neighbours) <= 40
    assert len({n.id for n in last.neighbours}) == len(last.neighbours)


def test_batch_without_candidates_against_a_stored_fact_is_a_no_op(app):
    """A batch of small talk, with facts already stored, extracts nothing and changes nothing (no crash)."""
    from consolidator.facts.step import FactsStep
    from consolidator.model.offline import OfflineModel
    from consolidator.runtime.tick import Consolidator
    from stores.messages import NewMessage, append_messages
    from datetime import datetime, timedelta, timezone

    t = datetime(2025, 3, 3, 9, tzinfo=timezone.utc)
    step = FactsStep(app, OfflineModel())
    consolidator = Consolidator(app, [step])
    append_messages(app.engine, [NewMessage("maya", t, "user", "I am allergic to peanuts.", speaker="Maya")], t)
    consolidator.drain(t + timedelta(hours=1))
    append_messages(app.engine, [NewMessage("maya", t + timedelta(hours=2), "user", "The weather was lovely.", speaker="Maya")], t)
    report = consolidator.drain(t + timedelta(hours=3))
    assert report.steps_failed == 0 and report.steps_done == 1


def test_the_facts_of_one_transaction_are_read_in_content_order_not_id_order(app) -> None:
    """Facts written together share `created_at`; their ids are random. The write path and the
    offline pass read them by content (norm_hash) after time, so a batch's neighbours and a
    pass's clusters are the same numbers whatever ids the facts drew (a matrix product's last
    bits follow a row's position)."""
    from stores.facts import current_facts, current_matrix, norm_hash, to_bytes

    texts_ = ["Ana sails on Sundays.", "Ana lives in Lisbon.", "Ana keeps an aquarium.", "Ana reads sea novels."]
    ids = sorted((f"f_{n:016x}" for n in range(len(texts_))), reverse=True)  # ids against the hash order
    with transaction(app.engine) as session:
        for fid, text in zip(ids, texts_):
            session.add(Fact(id=fid, scope="s", text=text, norm_hash=norm_hash(text), embedding=to_bytes(unit(1, 0, 0)),
                             importance=5, last_used=T0, created_at=T0, updated_at=T0, valid_from=T0,
                             sources=[], source_roles=[]))
    by_hash = sorted(texts_, key=norm_hash)
    with reading(app.engine) as session:
        assert [f.text for f in current_facts(session, "s")] == by_hash
        assert current_matrix(session, "s", 3).texts == by_hash
