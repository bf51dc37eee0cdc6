"""`MessageLog`: the Python API an agent uses to log what it says and does.

Safe from several processes at once (each append is one short write transaction) and
idempotent (pass `id=` as an idempotency key, or rely on the content hash). An id logged before
with other content is refused (IdConflict, a ValueError naming the field and what differs), on
every path: `log --id`, `import`, `append`, `extend` and the MCP server's `log_message`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from consolidator.core.clock import utcnow as _now
from consolidator.core.app import App, open_app
from consolidator.core.config import Settings
from consolidator.model.attachments import Attachment
from consolidator.messages.ingest import Conflict, InvalidMessage, id_conflicts, validate
from stores.engine import Engine
from stores.messages import AppendResult, NewMessage, insert_new


class IdConflict(InvalidMessage):
    """An idempotency key already logged in the scope with other content: nothing was changed."""

    def __init__(self, conflict: Conflict, record: int | None = None) -> None:
        where = f"record {record}: " if record is not None else ""
        super().__init__("id", f"{where}{conflict}; nothing was changed")
        self.scope, self.message_id, self.changed = conflict.message.scope, conflict.message.id, list(conflict.changed)


def append_checked(engine: Engine, messages: list[NewMessage], records: Sequence[Mapping[str, Any]],
                   archive_root: Path | None) -> AppendResult:
    """Append in one transaction, or nothing: IdConflict for the first message whose caller id is
    logged (or given before it) with other content; a record without `at` (now) is not compared by it."""
    timeless = frozenset(i for i, record in enumerate(records) if record.get("at") is None)
    with engine.begin() as connection:
        if conflicts := id_conflicts(connection, messages, timeless):
            i = min(conflicts)
            raise IdConflict(conflicts[i], i if len(messages) > 1 else None)
        return insert_new(connection, messages, _now(), archive_root=archive_root)


def append_one(app: App, record: Mapping[str, Any]) -> tuple[str, bool]:
    """`consolidator log`'s append: validate one record, append it, and return (stored id, was it
    already logged). A caller's `id` logged before with other content raises IdConflict (the
    first stays); the same content again is a no-op. InvalidMessage names the bad field."""
    message = validate(record, now=_now)
    result = append_checked(app.engine, [message], [record], app.settings.archive_dir)
    return result.ids[0], bool(result.duplicates)


class MessageLog:
    """Append messages to the log. `MessageLog()` uses the same config lookup as the CLI."""

    def __init__(self, config: str | Path | None = None, *, settings: Settings | None = None, app: App | None = None):
        self._app = app or open_app(settings=settings, config=Path(config) if config else None)

    @property
    def app(self) -> App:
        return self._app

    @property
    def _archive(self) -> Path:
        """The archive directory: an appended id archived long ago is looked for in its files."""
        return self._app.settings.archive_dir

    def append(
        self,
        *,
        scope: str,
        role: str,
        text: str,
        at: datetime | str | None = None,
        session: str | None = None,
        speaker: str | None = None,
        id: str | None = None,
        attachments: Sequence[Mapping[str, Any] | Attachment] | None = None,
    ) -> str:
        """Log one message and return its id (the same id if it was already logged; an `id`
        logged with other content raises IdConflict, a ValueError).

        `attachments`: what the message carries, in order, each `{"kind": "image" | "file" |
        "link", "caption": ..., "uri": optional}` or an `Attachment` (docs/attachments.md), e.g.
        `attachments=[{"kind": "image", "caption": "a cake shaped like a castle"}]`.
        """
        record = {"scope": scope, "role": role, "text": text, "at": at, "session": session, "speaker": speaker, "id": id,
                  "attachments": attachments}
        message = validate(record, now=_now)
        return append_checked(self._app.engine, [message], [record], self._archive).ids[0]

    def extend(self, records: Iterable[Mapping[str, Any]]) -> AppendResult:
        """Log many messages in one transaction; all or nothing. Each record has the import
        format's fields (consolidator/messages/ingest.py), `attachments` included.

        A bad record raises InvalidMessage whose message starts with its index (IdConflict for
        an `id` logged, or given before, with other content).
        """
        messages: list[NewMessage] = []
        records = list(records)
        for index, record in enumerate(records):
            try:
                messages.append(validate(record, now=_now))
            except InvalidMessage as exc:
                raise InvalidMessage(exc.field, f"record {index}: {exc.problem}") from None
        return append_checked(self._app.engine, messages, records, self._archive)

    def close(self) -> None:
        self._app.close()

    def __enter__(self) -> "MessageLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
