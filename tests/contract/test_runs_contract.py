"""Contract: the batch ledger's queries (cutting batches, heads, marking runs), whatever the database."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import event, select

from stores.engine import reading
from stores.schema.ledger import Batch, RunStatus, StepRun
from stores.ledger import batch_counts
from stores.messages import NewMessage, append_messages
from stores.ledger import consolidated_seq, ensure_step_runs, head_runs, open_run, rearm_failed, record_batches, scope_cursors

T0 = datetime(2025, 4, 1, 8, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Cut:
    first_seq: int
    last_seq: int
    size: int
    reason: str = "full"


def by(n: int):
    """A plan that cuts full batches of n messages and leaves the remainder unbatched."""
    def plan(pending: list[tuple[int, datetime]]) -> list[Cut]:
        seqs = [seq for seq, _ in pending]
        return [Cut(seqs[i], seqs[i + n - 1], n) for i in range(0, len(seqs) - n + 1, n)]
    return plan


def log(engine, count: int, scope: str = "s", start: int = 0) -> None:
    messages = [NewMessage(scope, T0 + timedelta(minutes=start + i), "user", f"m{start + i}", id=f"{scope}-{start + i}")
                for i in range(count)]
    append_messages(engine, messages, T0)


def mark(engine, run_id: int, status: RunStatus) -> None:
    with open_run(engine, run_id) as (_, run):
        run.status = status.value


def runs_by(engine, scope: str = "s") -> dict[tuple[int, str], object]:
    """(batch number, step) -> run, for one scope."""
    return {(batch.number, run.step): run for run, batch in all_runs(engine) if batch.scope == scope}


def all_runs(engine):
    with reading(engine) as session:
        return session.execute(select(StepRun, Batch).join(Batch, Batch.id == StepRun.batch_id)).all()


def test_batches_are_cut_from_unbatched_messages_with_a_pending_run_per_step(engine) -> None:
    """record_batches numbers batches 1, 2... per scope, adds one pending run per step and moves batched_seq."""
    log(engine, 5)
    seen: list[list[int]] = []

    def plan(pending):
        seen.append([seq for seq, _ in pending])
        return by(2)(pending)

    ids = record_batches(engine, "s", ["a", "b"], T0, plan)
    assert len(ids) == 2 and seen == [[1, 2, 3, 4, 5]]
    log(engine, 1, start=5)
    assert len(record_batches(engine, "s", ["a", "b"], T0, plan)) == 1
    assert seen[-1] == [5, 6]  # only what is not in a batch yet
    with reading(engine) as session:
        cursor = scope_cursors(session)["s"]
    assert (cursor.batched_seq, cursor.batches) == (6, 3)
    runs = runs_by(engine)
    assert set(runs) == {(n, step) for n in (1, 2, 3) for step in ("a", "b")}
    assert {run.status for run in runs.values()} == {RunStatus.PENDING.value}


def test_a_plan_that_cuts_nothing_records_nothing(engine) -> None:
    """record_batches with an empty plan adds no batch and leaves batched_seq at zero."""
    log(engine, 3)
    assert record_batches(engine, "s", ["a"], T0, lambda pending: []) == []
    with reading(engine) as session:
        assert scope_cursors(session)["s"].batched_seq == 0
    assert all_runs(engine) == []


def test_batches_of_two_scopes_are_numbered_independently(engine) -> None:
    """Each scope's batches start at number 1 and have their own cursor."""
    log(engine, 2, "s")
    log(engine, 4, "t")
    record_batches(engine, "s", ["a"], T0, by(2))
    record_batches(engine, "t", ["a"], T0, by(2))
    numbers = sorted((batch.scope, batch.number, batch.first_seq, batch.last_seq) for _, batch in all_runs(engine))
    assert numbers == [("s", 1, 1, 2), ("t", 1, 1, 2), ("t", 2, 3, 4)]
    with reading(engine) as session:
        assert {scope: c.batched_seq for scope, c in scope_cursors(session).items()} == {"s": 2, "t": 4}


def test_head_runs_are_the_first_open_run_per_scope_and_step(engine) -> None:
    """head_runs returns, per (scope, step), the open run of the lowest batch, in batch order."""
    log(engine, 6, "s")
    log(engine, 2, "t")
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    record_batches(engine, "t", ["a"], T0, by(2))
    runs = runs_by(engine)
    mark(engine, runs[(1, "a")].id, RunStatus.DONE)  # scope s's step a moves on to batch 2
    mark(engine, runs[(1, "b")].id, RunStatus.FAILED)  # failed is not open: b moves on too
    mark(engine, runs[(2, "b")].id, RunStatus.RETRYING)  # retrying is open
    heads = [(batch.scope, batch.number, run.step) for run, batch in head_runs(engine)]
    assert sorted(heads) == [("s", 2, "a"), ("s", 2, "b"), ("t", 1, "a")]
    batch_ids = [batch.id for _, batch in head_runs(engine)]
    assert batch_ids == sorted(batch_ids)


def test_open_run_yields_none_for_a_done_or_missing_run_and_commits_changes(engine) -> None:
    """open_run hands out the run to change in one transaction; a done run or an unknown id yields None."""
    log(engine, 2)
    record_batches(engine, "s", ["a"], T0, by(2))
    (run_id,) = [run.id for run, _ in all_runs(engine)]
    with open_run(engine, run_id) as (_, run):
        run.status, run.attempts, run.finished_at = RunStatus.DONE.value, 1, T0
    with open_run(engine, run_id) as (_, run):
        assert run is None
    with open_run(engine, run_id + 1000) as (_, run):
        assert run is None
    ((stored, _),) = all_runs(engine)
    assert (stored.status, stored.attempts, stored.finished_at) == (RunStatus.DONE.value, 1, T0)


def test_rearm_failed_gives_failed_runs_fresh_attempts_in_one_scope_or_all(engine) -> None:
    """rearm_failed turns failed runs pending with zero attempts and next_at now; other runs are untouched."""
    log(engine, 2, "s")
    log(engine, 2, "t")
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    record_batches(engine, "t", ["a"], T0, by(2))
    for run, batch in all_runs(engine):
        if run.step == "a":
            with open_run(engine, run.id) as (_, held):
                held.status, held.attempts = RunStatus.FAILED.value, 5
    later = T0 + timedelta(hours=1)
    assert rearm_failed(engine, "s", later) == 1
    state = {(batch.scope, run.step): (run.status, run.attempts, run.next_at) for run, batch in all_runs(engine)}
    assert state[("s", "a")] == (RunStatus.PENDING.value, 0, later)
    assert state[("s", "b")] == (RunStatus.PENDING.value, 0, None)
    assert state[("t", "a")][:2] == (RunStatus.FAILED.value, 5)
    assert rearm_failed(engine, None, later) == 1
    assert rearm_failed(engine, None, later) == 0


@pytest.mark.slow
def test_consolidated_seq_stops_at_the_first_unfinished_batch(engine) -> None:
    """consolidated_seq is the last seq of the leading batches whose runs are all done; a later done batch does not count."""
    log(engine, 6)
    with reading(engine) as session:
        assert consolidated_seq(session, "s") == 0
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    runs = runs_by(engine)
    for key in ((1, "a"), (1, "b"), (2, "a"), (3, "a"), (3, "b")):
        mark(engine, runs[key].id, RunStatus.DONE)
    with reading(engine) as session:
        assert consolidated_seq(session, "s") == 2
    mark(engine, runs[(2, "b")].id, RunStatus.DONE)
    with reading(engine) as session:
        assert consolidated_seq(session, "s") == 6
        assert consolidated_seq(session, "t") == 0


def test_ensure_step_runs_adds_runs_for_a_new_step_to_every_batch(engine) -> None:
    """A step registered after batches were cut gets a pending run on each; running it again adds nothing."""
    log(engine, 4)
    record_batches(engine, "s", ["a"], T0, by(2))
    assert ensure_step_runs(engine, ["a", "b"]) == 2
    assert ensure_step_runs(engine, ["a", "b"]) == 0
    runs = runs_by(engine)
    assert set(runs) == {(1, "a"), (2, "a"), (1, "b"), (2, "b")}
    assert runs[(1, "b")].status == RunStatus.PENDING.value


def test_a_removed_step_s_unfinished_runs_are_retired_and_come_back_pending(engine) -> None:
    """ensure_step_runs retires open and failed runs of an unconfigured step (done ones stay); they hold nothing back and return pending."""
    log(engine, 4)
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    runs = runs_by(engine)
    mark(engine, runs[(1, "a")].id, RunStatus.DONE)
    mark(engine, runs[(2, "a")].id, RunStatus.DONE)
    mark(engine, runs[(1, "b")].id, RunStatus.DONE)
    with open_run(engine, runs[(2, "b")].id) as (_, run):
        run.status, run.attempts, run.next_at = RunStatus.FAILED.value, 4, T0
    assert ensure_step_runs(engine, ["a"]) == 0
    runs = runs_by(engine)
    assert (runs[(1, "b")].status, runs[(2, "b")].status) == (RunStatus.DONE.value, RunStatus.RETIRED.value)
    assert runs[(2, "b")].next_at is None
    assert [run.step for run, _ in head_runs(engine)] == []
    with reading(engine) as session:
        assert consolidated_seq(session, "s") == 4
        assert batch_counts(session) == {"s": {"done": 2, "pending": 0, "retrying": 0, "failed": 0}}
    ensure_step_runs(engine, ["a", "b"])
    back = runs_by(engine)[(2, "b")]
    assert (back.status, back.attempts, back.next_at) == (RunStatus.PENDING.value, 0, None)
    with reading(engine) as session:
        assert consolidated_seq(session, "s") == 2


def test_open_run_does_not_hand_out_a_retired_run(engine) -> None:
    """A run retired after a worker picked it (its step left the config) is not handed out to be applied."""
    log(engine, 2)
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    picked = {run.step: run.id for run, _ in all_runs(engine)}
    ensure_step_runs(engine, ["a"])  # step b removed from the config: its open run is retired
    with open_run(engine, picked["b"]) as (_, run):
        assert run is None
    with open_run(engine, picked["a"]) as (_, run):
        assert run is not None


@contextmanager
def _meanwhile(engine, statement_word: str, act):
    """Within the block, `act` runs once, from a connection of its own, right after the first
    statement that mentions `statement_word`: another daemon committing meanwhile."""
    fired = []

    def after(conn, cursor, statement, parameters, context, executemany):
        if not fired and statement_word in statement:
            fired.append(True)
            act()

    event.listen(engine, "after_cursor_execute", after)
    try:
        yield
    finally:
        event.remove(engine, "after_cursor_execute", after)
    assert fired, f"no statement mentioned {statement_word!r}"


def test_a_batch_cut_by_another_daemon_mid_reconcile_gets_no_second_run(engine) -> None:
    """A daemon starting up reconciles the ledger while another cuts a batch (with its runs, in one
    transaction) right after its first read: the starting one neither adds a second run for it nor
    fails on the unique key (it did, and exited, when it read the runs before the batches)."""
    if engine.dialect.name == "sqlite":
        pytest.skip("SQLite has one writer at a time: no batch can be cut inside another's write")
    log(engine, 2)
    record_batches(engine, "s", ["a", "b"], T0, by(2))
    log(engine, 2, start=2)  # the other daemon's next batch
    with _meanwhile(engine, "SELECT", lambda: record_batches(engine, "s", ["a", "b"], T0, by(2))):
        assert ensure_step_runs(engine, ["a", "b"]) == 0
    assert sorted(runs_by(engine)) == [(1, "a"), (1, "b"), (2, "a"), (2, "b")]


def test_two_daemons_adding_the_same_missing_run_do_not_fail(engine) -> None:
    """A new step: two daemons starting together both add its runs; the one that loses the race
    reads the ledger again instead of failing."""
    if engine.dialect.name == "sqlite":
        pytest.skip("SQLite has one writer at a time: the two reconciliations cannot overlap")
    log(engine, 2)
    record_batches(engine, "s", ["a"], T0, by(2))
    with _meanwhile(engine, "FROM step_run", lambda: ensure_step_runs(engine, ["a", "b"])):
        assert ensure_step_runs(engine, ["a", "b"]) == 0  # the other added it first
    assert sorted(runs_by(engine)) == [(1, "a"), (1, "b")]
