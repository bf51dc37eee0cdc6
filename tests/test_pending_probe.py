"""What a scope still has pending (stores.pending): every field read in one probe, bounded by the scope."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from consolidator.runtime.tick import Consolidator
from stores.engine import reading, transaction
from stores.schema.memory import FactState, FactUse
from stores.schema.ladders import LadderHold
from stores.schema.ladders import DirtyWindow
from stores.pending import pending
from stores.view_versions import bump
from tests.support.work_queue_kit import any_app, count_statements, log  # noqa: F401  (any_app is a fixture)

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
MIN = timedelta(minutes=1)


def probe(app, scope: str):
    with reading(app.engine) as session:
        return pending(session, scope)


def test_an_unknown_scope_has_nothing_pending(any_app) -> None:
    """A scope with no rows at all: zeros and Nones, nothing stale, nothing held."""
    found = probe(any_app, "nobody")
    assert (found.newest_seq, found.assigned_seq, found.batched_seq) == (0, 0, 0)
    assert found.tail_newest_at is None and found.newest_at is None and found.hold_until is None
    assert not (found.unslept or found.uses or found.stale_views)
    assert found.dirty_day is None and found.dirty_interaction_at is None and found.run_heads == ()


def test_each_field_reads_its_own_table_and_only_this_scope(any_app) -> None:
    """Messages, cursor, holds, fact state and uses, dirty windows and stale views of the scope
    are each seen; another scope's rows are not."""
    last = log(any_app, "a", 5)
    log(any_app, "b", 9, start=T0 + 100 * MIN)  # later and longer: must not leak into "a"
    with transaction(any_app.engine) as session:
        session.add(LadderHold(scope="a", ladder="time", rung="day", key="2025-03-03", next_at=T0 + 7 * MIN))
        session.add(LadderHold(scope="a", ladder="time", rung="week", key="2025-03-03", next_at=T0 + 3 * MIN))
        session.add(LadderHold(scope="b", ladder="time", rung="day", key="2025-03-03", next_at=T0 - MIN))
        session.add(FactState(scope="a", revision=2, slept_revision=1))
        session.add(FactUse(scope="a", fact_id="f1", at=T0))
        session.add(DirtyWindow(scope="a", ladder="time", unit=40, last_at=T0))
        session.add(DirtyWindow(scope="a", ladder="time", unit=38, last_at=T0))
        session.add(DirtyWindow(scope="a", ladder="count", unit=2, last_at=T0 + 2 * MIN))
        session.add(DirtyWindow(scope="b", ladder="time", unit=1, last_at=T0))
        bump(session, "a", "facts")
    found = probe(any_app, "a")
    assert (found.newest_seq, found.assigned_seq, found.batched_seq) == (5, 0, 0)
    assert found.tail_newest_at == last and found.newest_at == last
    assert found.hold_until == T0 + 3 * MIN
    assert found.unslept and found.uses and found.stale_views
    assert (found.dirty_day, found.dirty_interaction_at) == (38, T0 + 2 * MIN)
    other = probe(any_app, "b")
    assert other.newest_seq == 9 and not (other.unslept or other.uses or other.stale_views)
    assert other.dirty_interaction_at is None and other.hold_until == T0 - MIN


def test_the_tail_is_what_no_batch_holds_yet(any_app) -> None:
    """After the daemon cut the scope's messages into batches, no unbatched tail is reported;
    a message logged later is the tail."""
    Consolidator(any_app, steps=[]).drain(T0 + 3 * 60 * MIN)
    found = probe(any_app, "a")
    assert found.newest_seq == 0
    log(any_app, "a", 3)
    Consolidator(any_app, steps=[]).drain(T0 + 3 * 60 * MIN)
    done = probe(any_app, "a")
    assert done.batched_seq == done.assigned_seq == 3 and done.tail_newest_at is None
    later = log(any_app, "a", 1, start=T0 + 10 * MIN)
    found = probe(any_app, "a")
    assert found.newest_seq == 4 and found.tail_newest_at == later == found.newest_at


def test_the_probe_is_two_statements_whatever_is_pending(any_app) -> None:
    """One SELECT of scalar subqueries and the step heads: the daemon asks it twice per scope."""
    log(any_app, "a", 5)
    with reading(any_app.engine) as session:
        assert count_statements(any_app.engine, lambda: pending(session, "a")) <= 2
