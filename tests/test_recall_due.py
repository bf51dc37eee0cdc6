"""Recall of what is to come: a month or weekday in a question of the future is the next one, and
an open task counts by its due day (in the period a question names; the nearer, the sooner)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from consolidator.retrieval.rank import birthday_within
from consolidator.retrieval.when import understand
from stores.files.recall_index import IndexItem
from tests.support.index_kit import day, index_memory, message, order

NOW = datetime(2024, 6, 20, 12, 0, tzinfo=timezone.utc)  # a Thursday


@pytest.fixture
def memory(tmp_path):
    return index_memory(tmp_path, NOW)


@pytest.mark.parametrize(("question", "first", "last"), [
    ("What did I do in January?", "2024-01-01", "2024-01-31"),  # the latest January
    ("Anything due in January?", "2025-01-01", "2025-01-31"),  # the next one
    ("What did I do on Monday?", "2024-06-17", "2024-06-17"),
    ("What am I doing on Monday?", "2024-06-24", "2024-06-24"),
    ("Do I have anything on May 7?", "2025-05-07", "2025-05-07"),
    ("What happened on May 7?", "2024-05-07", "2024-05-07"),
    ("What is due on Thursday?", "2024-06-20", "2024-06-20"),  # today is Thursday: today
    ("What had I planned last Monday?", "2024-06-17", "2024-06-17"),  # "last": the past, whatever the verb
])
def test_a_question_of_what_is_to_come_names_the_next_month_or_day(question, first, last):
    qt = understand(question, NOW, timezone.utc)
    assert (qt.start.date().isoformat(), (qt.end.date().toordinal() - 1)) == (first, datetime.fromisoformat(last).toordinal())


def _task(n: int, title: str, opened: str, due: str | None) -> IndexItem:
    return IndexItem(id=f"task:{n}", kind="task", text=title, body=title, status="open", at=day(opened), label=due)


def test_an_open_task_counts_by_its_due_day(memory) -> None:
    """"Anything due in July?" brings the task due in July first though it was opened first (its
    due day is in the period, not its opening); with period_boost off, the overdue one leads.
    "What do I need to do?" puts the overdue and the soonest due before the far one; undated,
    the same tasks come newest opened first."""
    write, ask = memory
    write(_task(1, "Send the tax forms", "2024-06-01", "2024-07-15"),
          _task(2, "Renew the car insurance", "2024-06-18", "2024-09-30"),
          _task(3, "Return the library books", "2024-06-10", "2024-06-14"),
          message("m1", "Maya: I cooked risotto for dinner.", "2024-06-19T19:00:00"))
    tags = [t for t in order(ask("Anything due in July?", budget=200)) if t.startswith("#")]
    assert tags[0] == "#1"
    assert [t for t in order(ask("Anything due in July?", budget=200, period_boost=1.0)) if t.startswith("#")][0] == "#3"
    assert [t for t in order(ask("What do I need to do?", budget=200)) if t.startswith("#")] == ["#3", "#1", "#2"]
    write(_task(1, "Send the tax forms", "2024-06-01", None), _task(2, "Renew the car insurance", "2024-06-18", None),
          _task(3, "Return the library books", "2024-06-10", None))
    assert [t for t in order(ask("What do I need to do?", budget=200)) if t.startswith("#")] == ["#2", "#3", "#1"]


@pytest.mark.parametrize(("card", "start", "end", "inside"), [
    ("birthday: June 14.", (2025, 6, 1), (2025, 7, 1), True),
    ("birthday: June 14.", (2025, 7, 1), (2025, 8, 1), False),
    ("birthday: January 3.", (2025, 12, 15), (2026, 1, 15), True),  # a window across the new year
    ("birthday: February 29.", (2025, 2, 1), (2025, 3, 1), True),  # on the 28th in a year without the 29th
    ("birthday: February 29.", (2024, 3, 1), (2024, 4, 1), False),
])
def test_a_birthday_falls_in_a_period_in_any_year_of_it(card, start, end, inside) -> None:
    window = tuple(datetime(*d, tzinfo=timezone.utc).timestamp() for d in (start, end))
    assert birthday_within(f"Ana: {card} relation: Maya's sister.", window) is inside
