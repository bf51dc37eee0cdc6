"""Contract: a message at exactly a window's start belongs to that window, on every database.

Both write paths are covered: `append_messages` (an agent's append) and `insert_new` inside the
caller's transaction (how `consolidator import` writes a file). Windows are half-open
[start, end) in aware datetimes; the start here is local midnight in Europe/Paris.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from stores.engine import reading, transaction
from stores.message_windows import messages_in_time_window
from stores.messages import NewMessage, append_messages, insert_new

PARIS = ZoneInfo("Europe/Paris")
MIDNIGHT = datetime(2025, 3, 4, tzinfo=PARIS)  # 2025-03-03 23:00 UTC
RECEIVED = datetime(2025, 3, 5, tzinfo=timezone.utc)


def _append(engine, messages) -> None:
    append_messages(engine, messages, RECEIVED)


def _import(engine, messages) -> None:
    with transaction(engine) as session:
        insert_new(session.connection(), messages, RECEIVED)


@pytest.mark.parametrize("write", [_append, _import], ids=["append", "import"])
def test_a_message_at_local_midnight_opens_the_new_day(engine, write) -> None:
    """At exactly the day's start: in [midnight, next midnight), not in the day before; a microsecond earlier: the day before."""
    write(engine, [NewMessage("s", MIDNIGHT - timedelta(microseconds=1), "user", "just before", id="a"),
                   NewMessage("s", MIDNIGHT, "user", "exactly midnight", id="b"),
                   NewMessage("s", MIDNIGHT.astimezone(timezone.utc), "user", "same instant in UTC", id="c")])
    with reading(engine) as session:
        day = [m.text for m in messages_in_time_window(session, "s", 10, MIDNIGHT, MIDNIGHT + timedelta(days=1))]
        before = [m.text for m in messages_in_time_window(session, "s", 10, MIDNIGHT - timedelta(days=1), MIDNIGHT)]
    assert sorted(day) == ["exactly midnight", "same instant in UTC"]
    assert before == ["just before"]
