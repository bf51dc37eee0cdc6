"""The tasks step: tasks opened, done or cancelled in a batch, applied to the scope's tasks.

`prepare` shows the model the batch and the scope's open tasks (never another scope's).
`apply`:
- "open" adds a task unless an open task of the scope has the same normalised title (then
  it only learns a due date it lacked): never two open copies;
- "done"/"cancelled" closes the task named by `task_id` if it is open in this scope, else an
  open task with the same normalised title, else nothing (logged), recording the closing
  message ids; "rescheduled" gives that task its new due date (none given: nothing).

A change must be grounded in what people said: its cited source ids must include a person's
line (user, or a named non-agent speaker); a change citing no line of the batch is accepted
only when the batch has a person's line at all. Tool and action lines alone never open or
close a task.

When the three batch steps share one model call (consolidator.pipeline.batch_extraction), `prepare`
takes the tasks part of its reply; the open tasks shown are the same (`context_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import structlog
from stores.engine import Session, reading

from consolidator.core.app import App
from consolidator.contacts.step import said_at
from consolidator.model.base import Model
from consolidator.domain import is_person_line
from consolidator.model.schemas import KnownTask, TaskChange, TasksReply, TasksRequest
from consolidator.pipeline.steps import BatchWork
from stores.files.snapshots import publish_json
from stores.schema.memory import CANCELLED, DONE, OPEN, Task
from stores.tasks import listed_tasks, normalise_title, open_tasks, task_payload
from stores.view_versions import bump

if TYPE_CHECKING:
    from consolidator.pipeline.batch_extraction import SharedExtraction

log = structlog.get_logger()

OPEN_CAP = 200  # open tasks shown to the model, oldest dropped first
RESCHEDULED = "rescheduled"  # a change's op (the task stays open), no status
CLOSED_KEPT = 50  # closed tasks in tasks.json, most recently closed first


@dataclass(frozen=True)
class TasksPrepared:
    reply: TasksReply
    shown: tuple[str, ...]  # ids of the open tasks shown to the model


class TasksStep:
    name = "tasks"

    def __init__(self, app: App, model: Model, open_cap: int = OPEN_CAP):
        self.app = app
        self.model = model
        self.open_cap = open_cap
        self.shared: SharedExtraction | None = None  # set by batch_extraction.share_one_call

    def prepare(self, work: BatchWork) -> TasksPrepared:
        if self.shared is not None:
            shared = self.shared.reply_for(work, self.name)
            known, reply = shared.tasks, TasksReply(changes=shared.reply.tasks)
        else:
            known = self.context_for(work)
            request = TasksRequest(**work.asked(self.app.settings.timezone_of(work.scope).key), open_tasks=known)
            reply = self.model.update_tasks(request)
        return TasksPrepared(reply=reply, shown=tuple(k.id for k in known))

    def context_for(self, work: BatchWork) -> list[KnownTask]:
        """The scope's open tasks, the newest `open_cap`."""
        with reading(self.app.engine) as session:
            tasks = open_tasks(session, work.scope)[-self.open_cap:]
            return [KnownTask(id=str(t.id), title=t.title, due=t.due) for t in tasks]

    def apply(self, session: Session, work: BatchWork, prepared: TasksPrepared) -> None:
        current = {t.id: t for t in open_tasks(session, work.scope)}
        by_title = {t.norm_title: t for t in current.values()}
        changed = False
        for change in prepared.reply.changes:
            if not grounded(change, work):
                log.info("tasks.ungrounded", scope=work.scope, batch=work.number, op=change.op, title=change.title)
                continue
            if change.op == OPEN:
                changed |= _open(session, work, change, current, by_title)
            elif change.op == RESCHEDULED:
                changed |= _reschedule(work, change, current, by_title)
            else:
                changed |= _close(work, change, current, by_title)
        if changed:
            bump(session, work.scope, "tasks")


def _open(session: Session, work: BatchWork, change: TaskChange, current: dict, by_title: dict) -> bool:
    title = " ".join(change.title.split())
    norm = normalise_title(title)
    if not norm:
        return False
    existing = by_title.get(norm)
    if existing is not None:
        if change.due and existing.due is None:
            existing.due = change.due
            return True
        return False
    ids = [s for s in change.source_ids if s]
    task = Task(scope=work.scope, title=title, norm_title=norm, status=OPEN, due=change.due,
                opened_at=said_at(ids, work), opened_by=ids)
    session.add(task)
    session.flush()
    current[task.id] = task
    by_title[norm] = task
    return True


def _named(work: BatchWork, change: TaskChange, current: dict, by_title: dict) -> Task | None:
    """The open task a change names: by `task_id` in this scope, else by normalised title (logged if none)."""
    task = None
    if change.task_id is not None and change.task_id.strip().isdigit():
        task = current.get(int(change.task_id))
    if task is None:
        task = by_title.get(normalise_title(change.title))
    if task is None:
        log.info("tasks.unmatched", scope=work.scope, batch=work.number, op=change.op,
                 task_id=change.task_id, title=change.title)
    return task


def _reschedule(work: BatchWork, change: TaskChange, current: dict, by_title: dict) -> bool:
    task = _named(work, change, current, by_title)
    if task is None or change.due is None or change.due == task.due:
        return False
    task.due = change.due
    return True


def _close(work: BatchWork, change: TaskChange, current: dict, by_title: dict) -> bool:
    task = _named(work, change, current, by_title)
    if task is None:
        return False
    ids = [s for s in change.source_ids if s]
    task.status = DONE if change.op == DONE else CANCELLED
    task.closed_at = max(said_at(ids, work), task.opened_at)
    task.closed_by = ids
    del current[task.id]
    by_title.pop(task.norm_title, None)
    return True


def grounded(change: TaskChange, work: BatchWork) -> bool:
    people = {m.id for m in work.messages if is_person_line(m)}
    batch_ids = {m.id for m in work.messages}
    cited = {s for s in change.source_ids if s in batch_ids}
    if cited:
        return bool(cited & people)
    return bool(people)


def tasks_payload(session: Session, scope: str, now: datetime, closed_limit: int | None = CLOSED_KEPT) -> dict:
    return {
        "scope": scope,
        "generated_at": now.isoformat(),
        "tasks": [task_payload(t) for t in listed_tasks(session, scope, closed_limit)],
    }


def publish_tasks(app: App, scope: str, now: datetime) -> None:
    """Write <snapshots>/<scope>/tasks.json: open tasks first, then the most recently closed."""
    with reading(app.engine) as session:
        payload = tasks_payload(session, scope, now)
    publish_json(app.settings.snapshot_dir, scope, "tasks.json", payload)
