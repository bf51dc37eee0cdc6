"""Contract: view versions, the daemon lease, the model-call ledger, faults and scope erasure, whatever the database."""

from __future__ import annotations

import pytest

import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select

from stores import faults
from tests.support.calls import call
from stores.schema.memory import Contact
from stores.contacts import current_details, set_detail
from stores.engine import reading, transaction
from stores.erase import erase_scope
from stores.lease import Holder, acquire, current, release
from stores.schema.ledger import StepRun
from stores.messages import NewMessage, append_messages, scope_heads
from stores.model_calls import DbRecorder, per_operation, totals, utc_day
from stores.ledger import record_batches, scope_cursors
from stores.view_versions import bump, mark_published, stale

T0 = datetime(2025, 8, 1, 6, 0, tzinfo=timezone.utc)
TTL = timedelta(seconds=60)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# --- views ---------------------------------------------------------------------------------


def test_a_bumped_view_is_stale_until_that_version_is_published(engine) -> None:
    """bump raises a (scope, view) version; stale lists it until mark_published records that version or later."""
    with transaction(engine) as session:
        bump(session, "s", "facts")
        bump(session, "s", "facts")
        bump(session, "s", "tasks")
        bump(session, "t", "facts")
    with reading(engine) as session:
        assert sorted(stale(session)) == [("s", "facts", 2), ("s", "tasks", 1), ("t", "facts", 1)]
        assert sorted(stale(session, "t")) == [("t", "facts", 1)]
    with transaction(engine) as session:
        mark_published(session, "s", "facts", 1)  # an older version: still stale
        mark_published(session, "s", "tasks", 1)
        mark_published(session, "s", "nothing", 5)  # never bumped: ignored
    with reading(engine) as session:
        assert sorted(stale(session, "s")) == [("s", "facts", 2)]
    with transaction(engine) as session:
        mark_published(session, "s", "facts", 2)
        mark_published(session, "s", "facts", 1)  # never goes back
        bump(session, "s", "tasks")
    with reading(engine) as session:
        assert sorted(stale(session, "s")) == [("s", "tasks", 2)]


def test_a_bump_in_a_failed_transaction_is_not_kept(engine) -> None:
    """bump runs in the caller's transaction: a rollback leaves the view as it was."""
    try:
        with transaction(engine) as session:
            bump(session, "s", "facts")
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    with reading(engine) as session:
        assert stale(session) == []


# --- lease ---------------------------------------------------------------------------------


ONE = Holder(holder="host-a:1", host="host-a", pid=1)
TWO = Holder(holder="host-b:2", host="host-b", pid=2)


def test_a_live_lease_refuses_a_second_holder_and_renews_for_its_own(engine) -> None:
    """acquire takes a free lease, renews it for the holder, and refuses another holder while it has not expired."""
    assert current(engine) is None
    assert acquire(engine, ONE, T0, TTL)
    assert not acquire(engine, TWO, at(30), TTL)
    assert acquire(engine, ONE, at(30), TTL)
    info = current(engine)
    assert (info.holder, info.heartbeat_at, info.expires_at) == ("host-a:1", at(30), at(90))
    assert info.alive(at(89)) and not info.alive(at(90))
    assert not acquire(engine, TWO, at(89), TTL)


def test_an_expired_lease_is_taken_over(engine) -> None:
    """Once expires_at has passed, another holder acquires the lease."""
    acquire(engine, ONE, T0, TTL)
    assert acquire(engine, TWO, at(60), TTL)
    assert current(engine).holder == "host-b:2"
    assert not acquire(engine, ONE, at(61), TTL)


def test_release_frees_the_lease_only_for_its_holder(engine) -> None:
    """release by another holder does nothing; by the holder it frees the lease at once."""
    acquire(engine, ONE, T0, TTL)
    release(engine, TWO)
    assert current(engine).holder == "host-a:1"
    release(engine, ONE)
    assert current(engine) is None
    assert acquire(engine, TWO, at(1), TTL)


@pytest.mark.subprocess
def test_a_dead_process_on_the_same_host_loses_the_lease_before_expiry(engine) -> None:
    """A holder on this host whose process is gone is replaced without waiting for the expiry."""
    me = Holder.this_process("contract")
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    dead = Holder(holder=f"{me.host}:{finished.pid}", host=me.host, pid=finished.pid)
    alive = Holder(holder=f"{me.host}:alive", host=me.host, pid=me.pid)
    acquire(engine, alive, T0, TTL)
    assert not acquire(engine, me, at(1), TTL)  # the holder's process is this one: alive
    release(engine, alive)
    acquire(engine, dead, T0, TTL)
    assert acquire(engine, me, at(1), TTL)
    assert current(engine).holder == me.holder


def test_leases_are_per_name(engine) -> None:
    """Two lease names are held independently."""
    assert acquire(engine, ONE, T0, TTL, name="daemon")
    assert acquire(engine, TWO, T0, TTL, name="other")
    assert (current(engine, "daemon").holder, current(engine, "other").holder) == ("host-a:1", "host-b:2")


# --- model calls ---------------------------------------------------------------------------


def test_totals_and_per_operation_over_a_half_open_range(engine) -> None:
    """totals/per_operation sum [start, end); calls count ok and invalid answers, errors count the rest."""
    recorder = DbRecorder(engine)
    day_start, day_end = utc_day(T0)
    for rec in (
        call("summarize", day_start), call("summarize", at(10), outcome="invalid", cache_read_tokens=7),
        call("facts", at(20), outcome="error", input_tokens=0, output_tokens=0, cost_usd=0.0),
        call("facts", day_end, cost_usd=3.0),  # the next day
        call("facts", day_start - timedelta(microseconds=1)),  # the day before
    ):
        recorder.record(rec)
    with reading(engine) as session:
        today = totals(session, day_start, day_end)
        ops = per_operation(session, day_start, day_end)
        everything = totals(session)
        later = totals(session, start=day_end)
        empty = totals(session, at(30), at(40))
    assert (today.calls, today.errors, today.input_tokens, today.output_tokens, today.cache_read_tokens) == (2, 1, 200, 20, 7)
    assert today.tokens == 227 and abs(today.cost_usd - 1.0) < 1e-9
    assert {op: (t.calls, t.errors) for op, t in ops.items()} == {"summarize": (2, 0), "facts": (0, 1)}
    assert (everything.calls, everything.errors) == (4, 1) and abs(everything.cost_usd - 4.5) < 1e-9
    assert (later.calls, later.cost_usd) == (1, 3.0)
    assert empty.as_dict() == {"calls": 0, "errors": 0, "input_tokens": 0, "output_tokens": 0,
                               "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.0}


def test_utc_day_is_the_utc_calendar_day_of_any_aware_time() -> None:
    """utc_day converts to UTC first: 01:30 at +03:00 is still the previous UTC day."""
    plus_three = timezone(timedelta(hours=3))
    start, end = utc_day(datetime(2025, 8, 2, 1, 30, tzinfo=plus_three))
    assert (start, end) == (datetime(2025, 8, 1, tzinfo=timezone.utc), datetime(2025, 8, 2, tzinfo=timezone.utc))


# --- faults --------------------------------------------------------------------------------


def test_faults_are_one_row_per_place_and_scope_until_cleared(engine) -> None:
    """record inserts or overwrites the (where, scope) row, truncating the cause; clear ends it; active is oldest first."""
    assert faults.active(engine) == []
    faults.record(engine, "snapshot", "s", "read-only", at(10), at(10), 1)
    faults.record(engine, "stage", "", "x" * 2000, at(0), at(5), 1)
    faults.record(engine, "snapshot", "s", "disk full", at(10), at(20), 3)
    found = faults.active(engine)
    assert [(f.where, f.scope) for f in found] == [("stage", ""), ("snapshot", "s")]
    assert len(found[0].cause) == faults.CAUSE_CHARS
    assert (found[1].cause, found[1].since, found[1].last_at, found[1].count) == ("disk full", at(10), at(20), 3)
    faults.clear(engine, "snapshot", "s")
    faults.clear(engine, "snapshot", "t")  # not active: nothing happens
    assert [(f.where, f.scope) for f in faults.active(engine)] == [("stage", "")]


# --- erasing a scope -----------------------------------------------------------------------


def fill(engine, scope: str) -> None:
    """Rows of `scope` in several tables, including ones reached only through a foreign key."""
    append_messages(engine, [NewMessage(scope, at(i), "user", f"m{i}", id=str(i)) for i in range(4)], T0)

    @dataclass
    class Cut:
        first_seq: int
        last_seq: int
        size: int
        reason: str = "full"

    record_batches(engine, scope, ["a", "b"], T0, lambda pending: [Cut(1, 4, 4)])
    with transaction(engine) as session:
        person = Contact(scope=scope, name="Ann", created_at=T0, updated_at=T0)
        session.add(person)
        session.flush()
        set_detail(session, person, "job", "nurse", T0, [])
        bump(session, scope, "facts")
    faults.record(engine, "snapshot", scope, "read-only", T0, T0, 1)


def test_erase_scope_removes_one_scope_s_rows_and_leaves_another_s(engine) -> None:
    """erase_scope deletes the scope from every table (children through foreign keys too) and nothing of other scopes."""
    fill(engine, "s")
    fill(engine, "t")
    acquire(engine, ONE, T0, TTL)
    deleted = erase_scope(engine, "s")
    assert deleted["message"] == 4 and deleted["step_run"] == 2 and deleted["batch"] == 1
    assert deleted["contact_detail"] == 1 and deleted["contact"] == 1 and deleted["view_version"] == 1
    assert all(count > 0 for count in deleted.values())
    with reading(engine) as session:
        assert scope_heads(session) == {"t": 4}
        assert set(scope_cursors(session)) == {"t"}
        assert [(s, v) for s, v, _ in stale(session)] == [("t", "facts")]
        assert list(current_details(session, "t").values()) == [{"job": "nurse"}]
        assert current_details(session, "s") == {}
        runs = session.execute(select(StepRun.scope, func.count()).group_by(StepRun.scope)).all()
    assert [tuple(r) for r in runs] == [("t", 2)]
    assert [(f.where, f.scope) for f in faults.active(engine)] == [("snapshot", "t")]
    assert current(engine).holder == "host-a:1"  # not a scope's row
    assert erase_scope(engine, "s") == {}
