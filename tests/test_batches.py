"""Batches and the step ledger, driven by calling the tick with chosen times."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from consolidator.core.app import open_app
from consolidator.pipeline.batching import Cut, plan_batches
from consolidator.core.config import RetrySettings, Settings
from consolidator.pipeline.runner import backoff
from stores.ledger import rearm_failed
from consolidator.runtime.status import gather
from consolidator.runtime.tick import Consolidator
from hierarchy.interactions import InteractionPlacer, interaction_complete
from stores.engine import reading
from stores.schema.log import Interaction
from stores.schema.ledger import Batch, StepRun
from stores.schema.log import Message
from stores.messages import NewMessage, append_messages
from tests.support.plugins import FlakyStep, RecordingStep, effects

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
MIN = timedelta(minutes=1)


@pytest.fixture
def app(tmp_path):
    app = open_app(Settings(state_dir=tmp_path / "state"))
    yield app
    app.close()


def log(app, scope: str, count: int, start: datetime = T0, step: timedelta = MIN, session: str | None = None, prefix="m"):
    messages = [
        NewMessage(scope=scope, at=start + i * step, role="user", text=f"{prefix} {i}", session=session)
        for i in range(count)
    ]
    append_messages(app.engine, messages, start)
    return start + (count - 1) * step


# --- pure policy -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "count, idle_minutes, expected",
    [
        (0, 60, []),
        (49, 29, []),
        (49, 30, [Cut(1, 49, 49, "idle")]),
        (50, 0, [Cut(1, 50, 50, "full")]),
        (120, 10, [Cut(1, 50, 50, "full"), Cut(51, 100, 50, "full")]),
        (120, 31, [Cut(1, 50, 50, "full"), Cut(51, 100, 50, "full"), Cut(101, 120, 20, "idle")]),
    ],
)
def test_plan_batches(count, idle_minutes, expected):
    """Full runs of batch_size are cut at once; the tail only after flush_idle since its newest message."""
    pending = [(i + 1, T0 + i * MIN) for i in range(count)]
    newest = pending[-1][1] if pending else T0
    assert plan_batches(pending, 50, timedelta(minutes=30), newest + idle_minutes * MIN) == expected


def test_backoff_doubles_and_caps():
    """Retry delays double from base_delay and stop at max_delay."""
    retry = RetrySettings(base_delay=timedelta(seconds=30), max_delay=timedelta(minutes=5))
    assert [backoff(n, retry).total_seconds() for n in (1, 2, 3, 4, 5, 6)] == [30, 60, 120, 240, 300, 300]


@pytest.mark.parametrize(
    "messages, expected",
    [
        # (minutes offset, session) -> interaction numbers
        ([(0, None), (10, None), (39, None)], [1, 1, 1]),
        ([(0, None), (31, None)], [1, 2]),
        ([(0, "a"), (1, "b"), (2, "a"), (300, "a")], [1, 2, 1, 1]),
        ([(0, None), (100, None), (50, None)], [1, 2, 3]),  # late, far from both: newest number
        ([(0, None), (100, None), (20, None)], [1, 2, 1]),  # late, within the gap of the first
    ],
)
def test_interaction_placement(messages, expected):
    """Sessions group messages; sessionless ones split at the gap; late ones never renumber."""
    placer = InteractionPlacer([], 0, timedelta(minutes=30))
    got = [placer.place(T0 + m * MIN, session, seq) for seq, (m, session) in enumerate(messages, 1)]
    assert got == expected


@pytest.mark.parametrize(
    "number, newest, idle, complete",
    [(3, 3, 29, False), (3, 3, 30, True), (2, 3, 0, True), (1, 1, 0, False)],
)
def test_interaction_completion(number, newest, idle, complete):
    """An interaction completes when a newer one starts or the gap passed since its last message."""
    assert interaction_complete(number, T0, newest, timedelta(minutes=30), T0 + idle * MIN) is complete


# --- the tick --------------------------------------------------------------------------------


def test_tick_cuts_full_batches_then_idle_tail(app):
    """120 messages give two batches at once and the tail of 20 only after flush_idle."""
    last = log(app, "maya", 120)
    step = RecordingStep()
    consolidator = Consolidator(app, [step])
    consolidator.drain(last + 29 * MIN)
    assert gather(app, last)["scopes"]["maya"]["pending"] == 20
    assert len(effects(app.engine)) == 2
    consolidator.drain(last + 30 * MIN)
    status = gather(app, last)["scopes"]["maya"]
    assert status["pending"] == 0 and status["batches"]["done"] == 3
    with reading(app.engine) as s:
        sizes = [b.size for b in s.execute(select(Batch).order_by(Batch.id)).scalars()]
    assert sizes == [50, 50, 20]


def test_interactions_assigned_by_tick(app):
    """The tick numbers interactions per scope in arrival order; a gap splits them."""
    log(app, "maya", 5, start=T0)
    log(app, "maya", 5, start=T0 + timedelta(hours=2), prefix="later")
    log(app, "ana", 3, start=T0, session="s1")
    Consolidator(app, []).drain(T0 + timedelta(hours=3))
    with reading(app.engine) as s:
        rows = {(i.scope, i.number): i.message_count for i in s.execute(select(Interaction)).scalars()}
        unassigned = s.execute(select(Message).where(Message.interaction.is_(None))).first()
    assert rows == {("maya", 1): 5, ("maya", 2): 5, ("ana", 1): 3}
    assert unassigned is None


def test_each_step_applies_each_batch_once(app):
    """Draining twice applies every registered step to every batch exactly once."""
    last = log(app, "maya", 130)
    log(app, "ana", 60)
    consolidator = Consolidator(app, [RecordingStep("a"), RecordingStep("b")])
    consolidator.drain(last + timedelta(hours=1))
    consolidator.drain(last + timedelta(hours=2))
    got = effects(app.engine)
    assert len(got) == len(set(got)) == 2 * (3 + 2)


def test_failing_step_retries_with_backoff_without_blocking_others(app):
    """A failing step is retried after its backoff; other steps and scopes go on meanwhile."""
    last = log(app, "maya", 100)
    log(app, "ana", 50)
    flaky = FlakyStep("flaky", failures=2)
    consolidator = Consolidator(app, [RecordingStep("steady"), flaky])
    now = last + MIN
    consolidator.drain(now)
    done = effects(app.engine)
    assert sorted(s for _, s in done).count("steady") == 3  # all batches of the steady step
    status = gather(app, now)["scopes"]["maya"]["batches"]
    assert status["retrying"] == 1 and status["pending"] == 1  # batch 2 of flaky waits behind batch 1
    consolidator.drain(now + timedelta(seconds=29))
    assert flaky.calls == 2  # both first attempts failed; nothing is retried before its backoff
    consolidator.drain(now + timedelta(hours=2))
    got = effects(app.engine)
    assert sorted(got) == sorted(set(got)) and [s for _, s in got].count("flaky") == 3
    with reading(app.engine) as s:
        runs = list(s.execute(select(StepRun).where(StepRun.step == "flaky")).scalars())
    assert all(r.status == "done" for r in runs)


def test_exhausted_step_is_failed_and_can_be_rearmed(tmp_path):
    """After max_attempts a step is marked failed (shown in status); `retry` re-arms it."""
    app = open_app(Settings(state_dir=tmp_path / "s", retry=RetrySettings(max_attempts=2)))
    last = log(app, "maya", 50)
    flaky = FlakyStep("flaky", failures=2)
    consolidator = Consolidator(app, [flaky])
    consolidator.drain(last)
    consolidator.drain(last + timedelta(hours=1))
    assert gather(app, last)["scopes"]["maya"]["batches"]["failed"] == 1
    assert rearm_failed(app.engine, "maya", last) == 1
    consolidator.drain(last + timedelta(hours=2))
    assert gather(app, last)["scopes"]["maya"]["batches"] == {"done": 1, "pending": 0, "retrying": 0, "failed": 0}
    app.close()


def test_step_registered_later_backfills_old_batches(app):
    """A step added after batches were cut still runs once on each of them."""
    last = log(app, "maya", 100)
    Consolidator(app, [RecordingStep("a")]).drain(last)
    Consolidator(app, [RecordingStep("a"), RecordingStep("b")]).drain(last)
    assert sorted(s for _, s in effects(app.engine)) == ["a", "a", "b", "b"]
