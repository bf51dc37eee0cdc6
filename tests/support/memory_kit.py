"""A harness for the contacts and tasks tests: say batches, drain a consolidator, read back.

`Memory.say(scope, lines)` logs one batch's lines ("user: text", "tool: text",
"assistant/Ana: text" for a named speaker) a minute apart, then drains the consolidator two
hours later so the batch flushes and every step and the snapshot stage run.
`RecordingModel` wraps a model and keeps every contacts and tasks request it received;
`ScriptedModel` answers contacts and tasks requests with replies a test chose.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Callable

from sqlalchemy import select

from consolidator.core.app import App
from consolidator.contacts.step import ContactsStep, publish_contacts
from consolidator.snapshots.context import publish_context
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import ContactsReply, ContactsRequest, TasksReply, TasksRequest
from consolidator.snapshots.stage import SnapshotStage
from consolidator.tasks.step import TasksStep, publish_tasks
from consolidator.runtime.tick import Consolidator
from stores.schema.memory import Contact, ContactDetail
from stores.engine import reading
from stores.schema.log import Message
from stores.messages import NewMessage, append_messages
from stores.schema.memory import Task

START = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)  # a Monday


class RecordingModel:
    """Delegates to `inner` (offline by default) and records the contacts and tasks requests."""

    def __init__(self, inner=None) -> None:
        self.inner = inner or OfflineModel()
        self.name = f"recording({self.inner.name})"
        self.contacts: list[ContactsRequest] = []
        self.tasks: list[TasksRequest] = []

    def summarize(self, request):
        return self.inner.summarize(request)

    def extract_facts(self, request):
        return self.inner.extract_facts(request)

    def judge_cluster(self, request):
        return self.inner.judge_cluster(request)

    def split_table(self, request):
        return self.inner.split_table(request)

    def update_contacts(self, request: ContactsRequest) -> ContactsReply:
        self.contacts.append(request)
        return self.inner.update_contacts(request)

    def update_tasks(self, request: TasksRequest) -> TasksReply:
        self.tasks.append(request)
        return self.inner.update_tasks(request)


class ScriptedModel(RecordingModel):
    """Replies built by the test from the request: `contacts(request)` / `tasks(request)`."""

    def __init__(self, contacts: Callable | None = None, tasks: Callable | None = None) -> None:
        super().__init__()
        self._contacts = contacts or (lambda r: ContactsReply(contacts=[]))
        self._tasks = tasks or (lambda r: TasksReply(changes=[]))

    def update_contacts(self, request: ContactsRequest) -> ContactsReply:
        self.contacts.append(request)
        return self._contacts(request)

    def update_tasks(self, request: TasksRequest) -> TasksReply:
        self.tasks.append(request)
        return self._tasks(request)


class Memory:
    def __init__(self, app: App, model=None, stages=None) -> None:
        self.app = app
        self.model = model or RecordingModel()
        self.clock = START
        stage = SnapshotStage(app, {"contacts": publish_contacts, "tasks": publish_tasks}, publish_context)
        self.consolidator = Consolidator(
            app, [ContactsStep(app, self.model), TasksStep(app, self.model)], [*(stages or []), stage]
        )

    def say(self, scope: str, *lines: str) -> list[str]:
        """Log one batch of lines and consolidate it; returns the message ids."""
        messages = []
        for line in lines:
            role, _, text = line.partition(": ")
            role, _, speaker = role.partition("/")
            self.clock += timedelta(minutes=1)
            messages.append(NewMessage(scope, self.clock, role, text, speaker=speaker or None))
        ids = append_messages(self.app.engine, messages, self.clock).ids
        self.clock += timedelta(hours=2)
        self.consolidator.drain(self.clock)
        return ids

    def contacts(self, scope: str) -> list[Contact]:
        with reading(self.app.engine) as session:
            return list(session.execute(select(Contact).where(Contact.scope == scope).order_by(Contact.id)).scalars())

    def details(self, scope: str) -> list[ContactDetail]:
        with reading(self.app.engine) as session:
            stmt = select(ContactDetail).where(ContactDetail.scope == scope).order_by(ContactDetail.id)
            return list(session.execute(stmt).scalars())

    def tasks(self, scope: str) -> list[Task]:
        with reading(self.app.engine) as session:
            return list(session.execute(select(Task).where(Task.scope == scope).order_by(Task.id)).scalars())

    def snapshot(self, scope: str, view: str):
        path = self.app.settings.snapshot_dir / scope / view
        return json.loads(path.read_text()) if view.endswith(".json") else path.read_text()

    def message_ids(self, scope: str) -> list[str]:
        with reading(self.app.engine) as session:
            return list(session.execute(select(Message.id).where(Message.scope == scope).order_by(Message.seq)).scalars())
