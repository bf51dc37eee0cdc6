"""One model call per batch shared by the facts, contacts and tasks steps (consolidator.pipeline.batch_extraction)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import select

from consolidator.core.app import App, open_app
from consolidator.pipeline.batch_extraction import BatchParts, SharedExtraction, share_one_call
from consolidator.core.config import Settings
from consolidator.contacts.step import ContactsStep
from consolidator.facts.step import FactsStep
from consolidator.model.base import BatchOperations, ModelError
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import BatchReply
from consolidator.pipeline.steps import BatchWork, MessageView
from consolidator.tasks.step import TasksStep
from consolidator.runtime.tick import Consolidator
from consolidator.runtime.wiring import build_consolidator
from stores.schema.memory import Contact, ContactDetail
from stores.engine import reading
from stores.facts import all_facts
from stores.schema.ledger import StepRun
from stores.messages import NewMessage, append_messages
from stores.schema.memory import Task
from tests.support.fakes import CountingModel
from tests.support.facts_kit import MAYA_STORE, SEED_BATCH, T0, facts_of, later, say

UTC = timezone.utc
BATCH_OPS = {"extract_facts", "update_contacts", "update_tasks", "consolidate_batch"}
# Three batches whose later ones depend on what the earlier ones stored (neighbours, contacts, open tasks).
STORY = [
    ["user/Maya: I live in London.", "user/Maya: My sister Ana is a nurse.",
     "user/Maya: Remind me to call the dentist on Friday.", "tool: Search result: Maya lives in Rome."],
    ["user/Maya: I moved from London to Paris last month.", "user/Maya: Ana now works as a teacher.",
     "user/Maya: todo: buy milk", "user/Maya: I adopted a cat named Miso."],
    ["user/Maya: I called the dentist.", "user/Maya: Cancel the reminder to buy milk.",
     "user/Maya: I am vegetarian.", "user/Maya: Ana lives in Madrid."],
]


class CountingBatchModel(BatchOperations):
    """OfflineModel's answers; counts calls by operation; consolidate_batch is slow and can fail on demand."""

    name = "counting-batch"
    reflect = None  # no reflect capability: the offline pass writes no reflections here

    def __init__(self, delay_s: float = 0.05, failures: int = 0) -> None:
        self.inner = OfflineModel()
        self.calls: Counter[str] = Counter()
        self.delay_s = delay_s
        self.failures = failures
        self._lock = threading.Lock()

    def batch_calls(self) -> dict[str, int]:
        return {op: n for op, n in self.calls.items() if op in BATCH_OPS}

    def call(self, operation: str, request: Any) -> Any:
        with self._lock:
            self.calls[operation] += 1
        if operation == "consolidate_batch":
            time.sleep(self.delay_s)  # the three steps' prepares overlap while the call is out
            with self._lock:
                failing, self.failures = self.failures > 0, max(0, self.failures - 1)
            if failing:
                raise ModelError("model down")
        return getattr(self.inner, operation)(request)


def open_story_app(tmp_path, name: str, combine: bool = True) -> App:
    return open_app(Settings(state_dir=tmp_path / name, model={"provider": "offline", "combine_batch_steps": combine}))


def log_batch(app: App, at: datetime, lines: list[str], scope: str = "maya") -> datetime:
    """Log one batch's lines a minute apart from `at`; returns a time by which it has flushed."""
    messages = []
    for i, line in enumerate(lines):
        who, _, text = line.partition(": ")
        role, _, speaker = who.partition("/")
        messages.append(NewMessage(scope, at + timedelta(minutes=i), role, text, speaker=speaker or None))
    append_messages(app.engine, messages, at)
    return at + timedelta(minutes=len(lines) + 45)


def tell(app: App, consolidator: Consolidator, batches: list[list[str]] = STORY) -> datetime:
    at = T0
    for lines in batches:
        at = log_batch(app, at, lines)
        consolidator.drain(at)
    return at


def state(app: App, scope: str = "maya") -> dict[str, Any]:
    """Everything the three steps wrote, free of row ids and random fact ids."""
    with reading(app.engine) as session:
        facts = all_facts(session, scope)
        text_of = {f.id: f.text for f in facts}
        contacts = list(session.execute(select(Contact).where(Contact.scope == scope)).scalars())
        name_of = {c.id: c.name for c in contacts}
        details = session.execute(select(ContactDetail).where(ContactDetail.scope == scope)).scalars()
        tasks = session.execute(select(Task).where(Task.scope == scope)).scalars()
        runs = session.execute(select(StepRun.step, StepRun.status).where(StepRun.scope == scope)).all()
        return {
            "facts": sorted((f.text, f.valid_to is None, f.end_reason, text_of.get(f.superseded_by), tuple(f.sources),
                             f.importance, f.pinned, f.strength) for f in facts),
            "contacts": sorted((c.name, tuple(c.aliases), c.biography, c.summary, tuple(c.sources)) for c in contacts),
            "details": sorted((name_of[d.contact_id], d.key, d.value, d.valid_to is None, tuple(d.source_ids))
                              for d in details),
            "tasks": sorted((t.title, t.status, t.due, tuple(t.opened_by), tuple(t.closed_by)) for t in tasks),
            "runs": sorted(tuple(r) for r in runs),
        }


def batch_steps(consolidator: Consolidator) -> dict[str, Any]:
    return {s.name: s for s in consolidator.steps}


@pytest.fixture
def separate_state(tmp_path) -> dict[str, Any]:
    """The story told with one call per step (combine_batch_steps = false)."""
    app = open_story_app(tmp_path, "separate", combine=False)
    try:
        model = CountingBatchModel()
        tell(app, build_consolidator(app, model=model))
        assert model.batch_calls() == {"extract_facts": 3, "update_contacts": 3, "update_tasks": 3}
        return state(app)
    finally:
        app.close()


# --- one call, same results ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_batch_costs_one_call_for_all_three_steps_with_the_same_results(tmp_path, separate_state) -> None:
    """Combined: exactly one consolidate_batch per batch, and facts, contacts and tasks equal the per-step run's."""
    app = open_story_app(tmp_path, "combined")
    try:
        model = CountingBatchModel()
        consolidator = build_consolidator(app, model=model)
        steps = batch_steps(consolidator)
        shared = steps["facts"].shared
        assert shared is not None and steps["contacts"].shared is shared is steps["tasks"].shared
        at = T0
        for n, lines in enumerate(STORY, start=1):
            at = log_batch(app, at, lines)
            consolidator.drain(at)
            assert model.batch_calls() == {"consolidate_batch": n}
            assert shared.pending() == 0  # all three took the reply: nothing left in the memo
        result = state(app)
    finally:
        app.close()
    assert result == separate_state
    assert result["facts"] and result["details"] and {t[1] for t in result["tasks"]} == {"done", "cancelled"}


def test_without_the_capability_or_with_config_off_each_step_calls_its_own_operation(app: App) -> None:
    """No consolidate_batch on the model, or combine_batch_steps false: no sharing, three calls as before."""
    parts = {"facts": FactsStep(app, OfflineModel()), "contacts": ContactsStep(app, OfflineModel()),
             "tasks": TasksStep(app, OfflineModel())}
    assert share_one_call(CountingModel(), **parts) is None
    assert share_one_call(OfflineModel(), **parts, enabled=False) is None
    assert all(step.shared is None for step in parts.values())
    assert share_one_call(OfflineModel(), **parts) is not None
    assert all(step.shared is not None for step in parts.values())


class ZoneRecordingModel(CountingBatchModel):
    """CountingBatchModel that also keeps (operation, timezone) of every batch request."""

    def __init__(self) -> None:
        super().__init__(delay_s=0)
        self.zones: list[tuple[str, str]] = []

    def call(self, operation: str, request: Any) -> Any:
        if operation in BATCH_OPS:
            self.zones.append((operation, request.timezone))
        if operation == "consolidate_batch":
            parts = (request.facts_request(), request.contacts_request(), request.tasks_request())
            self.zones += [("part", p.timezone) for p in parts]
        return super().call(operation, request)


@pytest.mark.parametrize("combine", [True, False], ids=["combined", "per-step"])
def test_every_batch_request_carries_the_scopes_time_zone(tmp_path, combine: bool) -> None:
    """A scope configured for Europe/Paris sends that zone with every batch request (and its parts)."""
    settings = Settings(state_dir=tmp_path / "zones", scopes={"maya": {"timezone": "Europe/Paris"}},
                        model={"provider": "offline", "combine_batch_steps": combine})
    app = open_app(settings)
    try:
        model = ZoneRecordingModel()
        tell(app, build_consolidator(app, model=model), STORY[:1])
    finally:
        app.close()
    expected = {"consolidate_batch", "part"} if combine else {"extract_facts", "update_contacts", "update_tasks"}
    assert {op for op, _ in model.zones} == expected
    assert {zone for _, zone in model.zones} == {"Europe/Paris"}


@pytest.mark.slow
def test_the_seeds_maya_candidates_through_the_combined_call(app: App) -> None:
    """The seeds' Maya batch through build_consolidator: NOOP, London superseded, cat added, marathon updated."""
    model = CountingBatchModel(delay_s=0)
    consolidator = build_consolidator(app, model=model)
    say(app, "maya", T0, MAYA_STORE)
    consolidator.drain(later(T0))
    at = T0 + timedelta(days=1)
    say(app, "maya", at, SEED_BATCH)
    consolidator.drain(later(at))
    assert model.batch_calls() == {"consolidate_batch": 2}
    now = {f.text: f for f in facts_of(app)}
    everything = {f.text: f for f in facts_of(app, current=False)}
    assert now["Maya is vegetarian."].strength == 2.0
    assert everything["Maya lives in London."].superseded_by == now["Maya lives in Paris."].id
    assert "Maya adopted a cat named Miso." in now
    marathon = everything["Maya is training for the Berlin marathon in September."]
    assert marathon.valid_to is not None and "Maya is no longer training for the marathon." in now
    assert now["Maya has a serious peanut allergy."].pinned


# --- failures: the steps still commit and retry on their own -------------------------------------


@pytest.mark.slow
def test_a_step_whose_apply_fails_is_retried_while_the_other_two_commit(
    tmp_path, separate_state, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Facts' apply raises once: contacts and tasks commit from the shared reply; facts retries, same end state."""
    app = open_story_app(tmp_path, "flaky")
    try:
        model = CountingBatchModel()
        consolidator = build_consolidator(app, model=model)
        facts = batch_steps(consolidator)["facts"]
        real_apply, failures = facts.apply, [1]

        def flaky_apply(session, work, plan):
            if failures[0]:
                failures[0] -= 1
                raise RuntimeError("disk full")
            return real_apply(session, work, plan)

        monkeypatch.setattr(facts, "apply", flaky_apply)
        at = log_batch(app, T0, STORY[0])
        consolidator.drain(at)
        with reading(app.engine) as session:
            runs = dict(session.execute(select(StepRun.step, StepRun.status)).all())
        assert runs == {"contacts": "done", "facts": "retrying", "tasks": "done"}
        assert state(app)["tasks"] and state(app)["details"] and not state(app)["facts"]
        assert model.batch_calls() == {"consolidate_batch": 1}
        consolidator.drain(at + timedelta(minutes=5))  # after the backoff: the retry asks again, once
        assert model.batch_calls() == {"consolidate_batch": 2}
        for lines in STORY[1:]:  # the rest of the story, at the same times as the clean run
            at = log_batch(app, at, lines)
            consolidator.drain(at)
        result = state(app)
    finally:
        app.close()
    assert result == separate_state


@pytest.mark.slow
def test_a_failed_shared_call_fails_all_three_and_their_retry_shares_one_call(tmp_path) -> None:
    """The one call raises: all three runs go back to the ledger; the retry makes one call for the three."""
    app = open_story_app(tmp_path, "down")
    try:
        model = CountingBatchModel(failures=1)
        consolidator = build_consolidator(app, model=model)
        at = log_batch(app, T0, STORY[0])
        consolidator.drain(at)
        with reading(app.engine) as session:
            runs = session.execute(select(StepRun.step, StepRun.status, StepRun.last_error)).all()
        assert sorted((step, status) for step, status, _ in runs) == [
            ("contacts", "retrying"), ("facts", "retrying"), ("tasks", "retrying")]
        assert all("model down" in error for _, _, error in runs)
        assert model.batch_calls() == {"consolidate_batch": 1}
        consolidator.drain(at + timedelta(minutes=5))
        assert model.batch_calls() == {"consolidate_batch": 2}
        assert {status for _, status in state(app)["runs"]} == {"done"}
        assert state(app)["facts"] and state(app)["tasks"] and state(app)["contacts"]
    finally:
        app.close()


# --- the memo -----------------------------------------------------------------------------------


class _Part:
    def __init__(self, value: Any) -> None:
        self.value, self.shared, self.asked = value, None, 0

    def context_for(self, work: BatchWork) -> Any:
        self.asked += 1
        return self.value


def _work(batch_id: int = 1) -> BatchWork:
    at = datetime(2025, 3, 1, 9, tzinfo=UTC)
    line = MessageView("m1", 1, at, "user", "Maya", "I adopted a cat named Miso.", None, 1)
    return BatchWork(batch_id, "maya", batch_id, 1, 1, (line,), at + timedelta(hours=1))


def _extractor(model: Any) -> SharedExtraction:
    facts = _Part(type("Ctx", (), {"neighbours": []})())
    return SharedExtraction(model, BatchParts(facts=facts, contacts=_Part([]), tasks=_Part([])))


@pytest.mark.slow
def test_concurrent_steps_of_one_round_share_one_call_and_a_new_round_calls_again() -> None:
    """Three threads with the same BatchWork: one call, one reply; an equal BatchWork of a later round calls again."""
    model = CountingBatchModel(delay_s=0.2)
    shared = _extractor(model)
    work = _work()
    with ThreadPoolExecutor(3) as pool:
        replies = list(pool.map(lambda part: shared.reply_for(work, part), ["facts", "contacts", "tasks"]))
    assert model.calls["consolidate_batch"] == 1
    assert replies[0] is replies[1] is replies[2] and replies[0].reply.facts
    assert shared.parts.facts.asked == 1 and shared.pending() == 0
    again = replace(work)  # equal, but another round's object (e.g. a later round of the same tick)
    assert again == work and again is not work
    shared.reply_for(again, "facts")
    assert model.calls["consolidate_batch"] == 2


@pytest.mark.slow
def test_a_failed_call_reaches_every_step_of_the_round() -> None:
    """A failed call raises in each of the round's three callers; the memo keeps at most MEMO_SIZE rounds."""
    model = CountingBatchModel(delay_s=0.2, failures=1)
    shared = _extractor(model)
    work = _work()
    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(shared.reply_for, work, part) for part in ["facts", "contacts", "tasks"]]
    for future in futures:
        with pytest.raises(ModelError, match="model down"):
            future.result()
    assert model.calls["consolidate_batch"] == 1
    for batch_id in range(2, 40):
        shared.reply_for(_work(batch_id), "contacts")  # rounds where only one step asks
    assert shared.pending() <= 16


def test_a_batch_without_a_persons_line_makes_no_call() -> None:
    """Only tool and action lines: an empty reply and no model call (none of the steps would accept anything)."""
    model = CountingBatchModel()
    shared = _extractor(model)
    work = _work()
    tool = replace(work.messages[0], role="tool", speaker=None)
    reply = shared.reply_for(replace(work, messages=(tool,)), "contacts").reply
    assert reply == BatchReply(facts=[], contacts=[], tasks=[])
    assert model.calls["consolidate_batch"] == 0
