"""The due-work queue and its claims: work found in proportion to work, shared by several daemons."""

from __future__ import annotations

import pytest

from datetime import timedelta

from sqlalchemy import text

from consolidator.runtime.tick import Consolidator
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from stores.messages import NewMessage, append_messages
from stores.ledger import rearm_failed
from stores.work_queue import claim_due, mark_due, renew, rows, settle
from stores.engine import transaction
from tests.support.plugins import FlakyStep, RecordingStep, effects
from tests.support.work_queue_kit import MIN, T0, any_app, count_statements, log  # noqa: F401  (any_app is a fixture)

TTL = timedelta(seconds=60)


def idle_tick_statements(tmp_path, scopes: int) -> int:
    """Statements of a tick with nothing due over `scopes` scopes whose work lies in the future."""
    app = open_app(Settings(state_dir=tmp_path / f"s{scopes}"))
    try:
        messages = [NewMessage(scope=f"scope-{i:05d}", at=T0, role="user", text="hello") for i in range(scopes)]
        append_messages(app.engine, messages, T0)
        with transaction(app.engine) as session:  # as a drain leaves them: each due at its next day close
            session.execute(text("UPDATE due_scope SET due_at = :at"), {"at": "2025-03-04 00:10:00.000000"})
        daemon = Consolidator(app, [RecordingStep("a")])
        daemon.tick(T0 + timedelta(hours=1))  # the first tick also marks scopes without a row
        return count_statements(app.engine, lambda: daemon.tick(T0 + timedelta(hours=2)))
    finally:
        app.close()


@pytest.mark.slow
def test_an_idle_tick_costs_the_same_few_statements_at_10_and_1000_scopes(tmp_path):
    """With nothing due, a tick sends the same small number of statements whatever the number of scopes."""
    small, large = idle_tick_statements(tmp_path, 10), idle_tick_statements(tmp_path, 1000)
    assert small == large
    assert large <= 20


@pytest.mark.slow
def test_a_drained_scope_is_not_worked_again_before_its_next_due_time(tmp_path):
    """After a drain, ticks before the next day close claim nothing: the idle tick is the one claim query."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    log(app, "maya", 50)
    log(app, "ana", 20)
    daemon = Consolidator(app, [RecordingStep("a")])
    daemon.drain(T0 + timedelta(hours=2))
    assert len(effects(app.engine)) == 2
    assert all(row.due_at > T0 + timedelta(hours=3) for row in rows(app.engine).values())
    assert count_statements(app.engine, lambda: daemon.tick(T0 + timedelta(hours=3))) == idle_tick_statements(tmp_path, 3)
    app.close()


def test_a_partial_batch_is_flushed_with_no_new_message(tmp_path):
    """The queue brings the daemon back when flush_idle has passed, though nothing was appended since."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    last = log(app, "maya", 10)
    daemon = Consolidator(app, [RecordingStep("a")])
    daemon.drain(last + MIN)
    assert effects(app.engine) == []  # a partial batch waits for flush_idle
    due = rows(app.engine)["maya"].due_at
    assert due == last + app.settings.flush_idle
    daemon.drain(due)
    assert [step for _, step in effects(app.engine)] == ["a"]
    app.close()


def test_a_scope_with_nothing_pending_leaves_the_queue(tmp_path):
    """Once a scope's batches are applied and its ladders' windows are long closed, its row goes."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    log(app, "maya", 50)
    Consolidator(app, [RecordingStep("a")]).drain(T0 + timedelta(weeks=60))
    assert "maya" not in rows(app.engine)
    assert len(effects(app.engine)) == 1
    app.close()


def test_a_database_without_queue_rows_is_worked_once_on_the_first_tick(tmp_path):
    """Scopes logged before the queue existed (no rows) are all looked at by a daemon's first tick."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    log(app, "maya", 50)
    log(app, "ana", 50)
    with transaction(app.engine) as session:
        session.execute(text("DELETE FROM due_scope"))
    Consolidator(app, [RecordingStep("a")]).drain(T0 + timedelta(hours=1))
    assert sorted(scope for scope in _scopes_of(app)) == ["ana", "maya"]
    app.close()


def _scopes_of(app):
    with app.engine.connect() as conn:
        return [row[0] for row in conn.execute(text("SELECT scope FROM test_effect"))]


def test_an_expired_claim_is_taken_over_and_the_old_holder_can_no_longer_settle(any_app):
    """A claim excludes other daemons until it expires; then another takes it, and the first one's renew and settle do nothing."""
    app = any_app
    log(app, "maya", 5)
    first = claim_due(app.engine, "dead", T0, TTL)
    assert [c.scope for c in first] == ["maya"]
    assert claim_due(app.engine, "alive", T0 + TTL - timedelta(seconds=1), TTL) == []
    taken = claim_due(app.engine, "alive", T0 + TTL, TTL)
    assert [c.scope for c in taken] == ["maya"]
    assert not renew(app.engine, "maya", "dead", T0 + TTL, TTL)
    settle(app.engine, first[0], "dead", None)  # the dead daemon's late settle must not drop the row
    assert rows(app.engine)["maya"].holder == "alive"
    settle(app.engine, taken[0], "alive", None)
    assert "maya" not in rows(app.engine)


def test_on_sqlite_a_dead_daemon_s_claim_is_taken_at_once(tmp_path):
    """The SQLite lease already makes one daemon the only worker: a claim left behind by a killed one does not wait for its expiry."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    last = log(app, "maya", 50)  # one full batch, due at once
    claim_due(app.engine, "killed", last, TTL)
    Consolidator(app, [RecordingStep("a")], holder="restarted").drain(last + timedelta(seconds=1))  # claim not expired
    assert len(effects(app.engine)) == 1
    app.close()


def test_an_append_during_the_claim_keeps_the_scope_due(tmp_path):
    """A mark that comes in while a daemon works the scope survives its settle: the new work is not lost."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    log(app, "maya", 5)
    claim = claim_due(app.engine, "me", T0, TTL)[0]
    log(app, "maya", 1, start=T0 + timedelta(hours=1), received=T0 + timedelta(hours=1))
    settle(app.engine, claim, "me", None)
    row = rows(app.engine)["maya"]
    assert row.holder is None and row.due_at <= T0 + timedelta(hours=1)
    app.close()


def test_mark_due_keeps_the_earliest_time(tmp_path):
    """Marking an unclaimed scope due later than it already is changes nothing (not even its mark
    count: no page of the queue is written); an earlier time moves it and counts a mark."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    with transaction(app.engine) as session:
        mark_due(session, "maya", T0 + timedelta(minutes=5))
        mark_due(session, ["maya", "ana"], T0 + timedelta(hours=1))
    got = rows(app.engine)
    assert (got["maya"].due_at, got["maya"].marks) == (T0 + timedelta(minutes=5), 1)
    assert got["ana"].due_at == T0 + timedelta(hours=1)
    with transaction(app.engine) as session:
        mark_due(session, "maya", T0)
    assert (rows(app.engine)["maya"].due_at, rows(app.engine)["maya"].marks) == (T0, 2)
    app.close()


def test_a_mark_on_a_claimed_scope_is_counted_so_its_settle_keeps_it_due(tmp_path):
    """While a daemon holds the scope, every mark counts, even a later one: the holder's settle
    sees the count moved and leaves the row due instead of deleting it."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    with transaction(app.engine) as session:
        mark_due(session, "maya", T0)
    [claim] = claim_due(app.engine, "host:1", T0, timedelta(minutes=5))
    with transaction(app.engine) as session:
        mark_due(session, "maya", T0 + timedelta(hours=1))  # later than it is due: counted all the same
    assert rows(app.engine)["maya"].marks == claim.marks + 1
    settle(app.engine, claim, "host:1", None)
    assert "maya" in rows(app.engine)
    app.close()


def test_a_failed_run_holds_back_later_batches_of_its_step_until_rearmed(any_app):
    """A failed facts-like run keeps the step's later batches waiting; re-armed, it is applied before them (other steps go on)."""
    app = any_app
    last = log(app, "maya", 150)  # three full batches
    flaky, steady = FlakyStep("ordered", failures=2), RecordingStep("steady")
    daemon = Consolidator(app, [steady, flaky], holder="test")
    daemon.drain(last + MIN)
    daemon.drain(last + timedelta(hours=2))  # the second attempt fails too: the run is failed
    applied = [(batch, step) for batch, step in effects(app.engine)]
    assert [step for _, step in applied].count("steady") == 3  # the other step is not held
    assert "ordered" not in [step for _, step in applied]  # batches 2 and 3 wait behind the failed batch 1
    assert rearm_failed(app.engine, "maya", last + timedelta(hours=3)) == 1
    daemon.drain(last + timedelta(hours=3))
    ordered = [batch for batch, step in effects(app.engine) if step == "ordered"]
    assert len(ordered) == 3 and ordered == sorted(ordered)  # applied in batch order, each once


def status_statements(tmp_path, scopes: int) -> int:
    from consolidator.runtime.status import gather

    app = open_app(Settings(state_dir=tmp_path / f"st{scopes}"))
    try:
        messages = [NewMessage(scope=f"scope-{i:05d}", at=T0 + i * MIN, role="user", text="hello") for i in range(scopes)]
        append_messages(app.engine, messages, T0)
        Consolidator(app, [RecordingStep("a")]).tick(T0 + timedelta(hours=1))
        return count_statements(app.engine, lambda: gather(app, T0 + timedelta(hours=1)))
    finally:
        app.close()


@pytest.mark.slow
def test_status_costs_the_same_statements_whatever_the_number_of_scopes(tmp_path):
    """`status` aggregates in SQL: as many statements for 3 scopes as for 60, none per scope."""
    assert status_statements(tmp_path, 3) == status_statements(tmp_path, 60)


def test_a_restarted_daemon_does_not_look_again_at_scopes_with_nothing_pending(tmp_path):
    """Marking every scope is a one-time upgrade step: a second daemon's first tick works no settled scope."""
    app = open_app(Settings(state_dir=tmp_path / "s"))
    log(app, "maya", 50)
    later = T0 + timedelta(weeks=60)
    Consolidator(app, [RecordingStep("a")]).drain(later)
    assert rows(app.engine) == {}
    restarted = Consolidator(app, [RecordingStep("a")])
    assert count_statements(app.engine, lambda: restarted.tick(later)) <= 3  # the seeded check and one claim
    assert len(effects(app.engine)) == 1
    app.close()
