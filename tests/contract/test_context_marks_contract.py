"""Contract: what context.md's "Not yet consolidated" section reads (the newest messages above a
seq, their count and oldest time) and the marks it is composed with, whatever the database."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from stores.engine import reading, transaction
from stores.messages import NewMessage, append_messages, newest_after, span_after
from stores.view_versions import bump, context_marks, mark_context, stale

T0 = datetime(2025, 8, 1, 6, 0, tzinfo=timezone.utc)


def test_newest_after_and_span_after_read_only_the_range_above_the_seq(engine) -> None:
    """newest_after: the newest `limit` above a seq, newest last; span_after: their count and the oldest time."""
    times = [T0 + timedelta(minutes=m) for m in (5, 1, 9, 7, 8)]  # arrival order is not time order
    append_messages(engine, [NewMessage("s", at, "user", f"m{i}") for i, at in enumerate(times)], T0)
    append_messages(engine, [NewMessage("t", T0, "user", "other scope")], T0)
    with reading(engine) as session:
        assert [m.text for m in newest_after(session, "s", 1, 3)] == ["m2", "m3", "m4"]
        assert [m.text for m in newest_after(session, "s", 3, 10)] == ["m3", "m4"]
        assert newest_after(session, "s", 1, 0) == []
        assert span_after(session, "s", 0) == (5, T0 + timedelta(minutes=1))
        assert span_after(session, "s", 2) == (3, T0 + timedelta(minutes=7))
        assert span_after(session, "s", 5) == (0, None)


def test_context_marks_are_recorded_replaced_and_never_stale(engine) -> None:
    """mark_context stores (newest, consolidated) per scope, a later call replaces them, and stale never lists them."""
    with transaction(engine) as session:
        bump(session, "s", "facts")
    with reading(engine) as session:
        assert context_marks(session, "s") is None
    with transaction(engine) as session:
        mark_context(session, "s", 7, 3)
        mark_context(session, "t", 1, 0)
    with transaction(engine) as session:
        mark_context(session, "s", 9, 9)
    with reading(engine) as session:
        assert context_marks(session, "s") == (9, 9) and context_marks(session, "t") == (1, 0)
        assert stale(session) == [("s", "facts", 1)]
