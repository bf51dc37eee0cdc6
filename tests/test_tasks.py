"""Tasks: opened, closed and cancelled from what people say, due dates, one open copy, scopes."""

from __future__ import annotations

from datetime import date

import pytest

from consolidator.model.schemas import TaskChange, TasksReply
from stores.tasks import normalise_title
from tests.support.memory_kit import Memory, RecordingModel, ScriptedModel


@pytest.fixture
def memory(app) -> Memory:
    return Memory(app)


def summary(memory: Memory, scope: str = "maya") -> list[tuple[str, str, date | None]]:
    return [(t.title, t.status, t.due) for t in memory.tasks(scope)]


class TestOpening:
    @pytest.mark.parametrize(
        "said, title, due",
        [
            ("Remind me to call the dentist on Friday.", "Call the dentist", date(2025, 3, 7)),
            ("I need to renew my passport by March 20.", "Renew my passport", date(2025, 3, 20)),
            ("todo: buy milk", "Buy milk", None),
            ("Remind me to water the plants tomorrow.", "Water the plants", date(2025, 3, 4)),
        ],
    )
    def test_requests_and_commitments_open_a_task_with_its_due_date(self, memory, said, title, due) -> None:
        """'remind me to', 'I need to' and 'todo:' open a task; a plain date becomes its due date."""
        ids = memory.say("maya", f"user: {said}")
        [task] = memory.tasks("maya")
        assert (task.title, task.status, task.due) == (title, "open", due)
        assert task.opened_by == ids and task.closed_at is None

    def test_the_same_task_twice_stays_one_open_task(self, memory: Memory) -> None:
        """Saying a task again in a later batch adds no second open copy."""
        memory.say("maya", "user: Remind me to buy milk.")
        memory.say("maya", "user: todo: buy milk")
        assert summary(memory) == [("Buy milk", "open", None)]

    def test_a_model_repeating_an_open_task_never_makes_two(self, app) -> None:
        """Two 'open' changes with titles equal once normalised give one task; the due date is learned."""
        reply = TasksReply(changes=[
            TaskChange(op="open", title="Book the table at Luigi's"),
            TaskChange(op="open", title="book table at Luigi's!", due=date(2025, 3, 9)),
        ])
        memory = Memory(app, ScriptedModel(tasks=lambda r: reply))
        memory.say("maya", "user: book a table at Luigi's")
        memory.say("maya", "user: book a table at Luigi's")
        assert summary(memory) == [("Book the table at Luigi's", "open", date(2025, 3, 9))]

    def test_a_task_can_be_opened_again_once_closed(self, memory: Memory) -> None:
        """After 'buy milk' is done, a new 'buy milk' is a new open task."""
        memory.say("maya", "user: todo: buy milk")
        memory.say("maya", "user: I bought milk.")
        memory.say("maya", "user: todo: buy milk")
        assert summary(memory) == [("Buy milk", "done", None), ("Buy milk", "open", None)]

    @pytest.mark.parametrize("title, norm", [("Book  the table at Luigi's!", "book table at luigi s"),
                                             ("Call MOM", "call mom"), ("An", "")])
    def test_normalised_titles(self, title, norm) -> None:
        """Lower case, words only, articles dropped."""
        assert normalise_title(title) == norm


class TestClosing:
    def test_reported_done_closes_the_task_with_its_message(self, memory: Memory) -> None:
        """'I called the dentist' closes 'Call the dentist' as done, with the closing message id."""
        memory.say("maya", "user: Remind me to call the dentist on Friday.")
        closing = memory.say("maya", "user: I called the dentist.")
        [task] = memory.tasks("maya")
        assert task.status == "done" and task.closed_by == closing
        assert task.closed_at is not None and task.closed_at > task.opened_at

    def test_a_task_opened_and_done_in_one_batch_is_kept_as_done(self, memory: Memory) -> None:
        """Asked and done within one batch of 50 left no task at all, so nothing showed it was done."""
        memory.say("maya", "user: Remind me to call Rita on Sunday.", "assistant: Will do.", "user: Called Rita just now.")
        [task] = memory.tasks("maya")
        assert (task.title, task.status) == ("Call Rita", "done")
        assert task.opened_by and task.closed_by and task.opened_by != task.closed_by

    def test_cancelled_closes_the_task_as_cancelled(self, memory: Memory) -> None:
        """'Cancel the reminder to buy milk' cancels it; other tasks stay open."""
        memory.say("maya", "user: todo: buy milk", "user: I need to renew my passport.")
        memory.say("maya", "user: Cancel the reminder to buy milk.")
        assert summary(memory) == [("Buy milk", "cancelled", None), ("Renew my passport", "open", None)]

    def test_unknown_task_id_falls_back_to_the_title_and_else_is_ignored(self, app) -> None:
        """A close naming no open task of the scope matches by normalised title, or changes nothing."""
        replies = iter([
            TasksReply(changes=[TaskChange(op="open", title="Buy milk"), TaskChange(op="open", title="Pay rent")]),
            TasksReply(changes=[TaskChange(op="done", title="buy  the milk", task_id="999"),
                                TaskChange(op="cancelled", title="walk the dog", task_id="abc")]),
        ])
        memory = Memory(app, ScriptedModel(tasks=lambda r: next(replies)))
        memory.say("maya", "user: things")
        memory.say("maya", "user: more things")
        assert summary(memory) == [("Buy milk", "done", None), ("Pay rent", "open", None)]

    def test_tasks_json_lists_open_first_then_recently_closed(self, memory: Memory) -> None:
        """tasks.json: open tasks first, then closed ones, most recently closed first."""
        memory.say("maya", "user: todo: buy milk", "user: todo: pay rent", "user: todo: call mom")
        memory.say("maya", "user: I bought milk.")
        memory.say("maya", "user: I paid rent.")
        tasks = memory.snapshot("maya", "tasks.json")["tasks"]
        assert [(t["title"], t["status"]) for t in tasks] == [
            ("Call mom", "open"), ("Pay rent", "done"), ("Buy milk", "done")
        ]
        assert set(tasks[0]) == {"id", "title", "status", "due", "opened_at", "closed_at"}


class TestRescheduling:
    def test_a_task_moved_to_another_day_is_due_then_and_stays_open(self, memory: Memory) -> None:
        """'Move the dentist call to Tuesday' in a later batch gives the open task its new day (it
        kept Friday); tasks.json shows it."""
        memory.say("maya", "user: Remind me to call the dentist on Friday.", "user: todo: buy milk")
        memory.say("maya", "user: Move the dentist call to Tuesday.")
        assert summary(memory) == [("Call the dentist", "open", date(2025, 3, 4)), ("Buy milk", "open", None)]
        due = {t["title"]: t["due"] for t in memory.snapshot("maya", "tasks.json")["tasks"]}
        assert due["Call the dentist"] == "2025-03-04"

    def test_a_reschedule_without_a_day_or_of_no_open_task_changes_nothing(self, app) -> None:
        """A model's "rescheduled" with no due date, or naming no open task of the scope, is ignored."""
        replies = iter([
            TasksReply(changes=[TaskChange(op="open", title="Pay rent", due=date(2025, 3, 5))]),
            TasksReply(changes=[TaskChange(op="rescheduled", title="Pay rent", task_id="1"),
                                TaskChange(op="rescheduled", title="walk the dog", task_id="999",
                                           due=date(2025, 3, 9))]),
            TasksReply(changes=[TaskChange(op="rescheduled", title="pay the rent", due=date(2025, 3, 8))]),
        ])
        memory = Memory(app, ScriptedModel(tasks=lambda r: next(replies)))
        memory.say("maya", "user: things")
        memory.say("maya", "user: more things")
        assert summary(memory) == [("Pay rent", "open", date(2025, 3, 5))]
        memory.say("maya", "user: and more")
        assert summary(memory) == [("Pay rent", "open", date(2025, 3, 8))]  # by its normalised title


class TestGrounding:
    def test_tool_and_action_lines_never_open_or_close_a_task(self, memory: Memory) -> None:
        """'Task done' in tool output closes nothing, 'todo:' in an action opens nothing."""
        memory.say("maya", "user: todo: buy milk")
        memory.say("maya", "tool: Task done: buy milk", "action: todo: call the bank")
        assert summary(memory) == [("Buy milk", "open", None)]

    def test_a_change_citing_only_a_tool_line_is_ignored(self, app) -> None:
        """A model's close that cites only a tool line, or cites nothing in a tool-only batch, is dropped."""
        def reply(request):
            if request.messages[0].role == "user":
                return TasksReply(changes=[TaskChange(op="open", title="Buy milk", source_ids=[request.messages[0].id])])
            tool = request.messages[0]
            return TasksReply(changes=[TaskChange(op="done", title="Buy milk", task_id="1", source_ids=[tool.id]),
                                       TaskChange(op="cancelled", title="Buy milk")])

        memory = Memory(app, ScriptedModel(tasks=reply))
        memory.say("maya", "user: todo: buy milk")
        memory.say("maya", "tool: done buy milk")
        assert summary(memory) == [("Buy milk", "open", None)]


class TestScopes:
    def test_two_scopes_never_see_each_others_tasks(self, app) -> None:
        """The model is shown only the scope's open tasks; a close naming another scope's task id does nothing."""
        model = RecordingModel()
        memory = Memory(app, model)
        memory.say("maya", "user: todo: buy milk")
        memory.say("omar", "user: todo: pay rent")
        [maya_task] = memory.tasks("maya")
        shown = {r.scope: [t.title for t in r.open_tasks] for r in model.tasks}
        assert shown == {"maya": [], "omar": []}
        memory.say("omar", "user: I bought milk.")
        assert [t.title for t in model.tasks[-1].open_tasks] == ["Pay rent"]
        assert memory.tasks("maya")[0].status == "open"

        hostile = Memory(app, ScriptedModel(tasks=lambda r: TasksReply(
            changes=[TaskChange(op="done", title="Buy milk", task_id=str(maya_task.id))])))
        hostile.clock = memory.clock
        hostile.say("omar", "user: done")
        assert [(t.title, t.status) for t in memory.tasks("maya")] == [("Buy milk", "open")]
        assert [(t.title, t.status) for t in memory.tasks("omar")] == [("Pay rent", "open")]
