"""The snapshot stage: republishes the stale views of the scopes a tick worked, after their steps and ladders.

Publishers are registered per view name (`contacts`, `facts`, `tasks`, ...); each writes
its own file(s) for one scope. Ladder rungs are views named `ladder:<ladder>/<rung>`, bumped
with each summary and published here too, so a crash between a summary's commit and its
file only delays the file to the next tick. `context` is recomposed whenever any view of
the scope changed, because context.md is made from all of them, and also whenever the scope's
newest seq or consolidated seq differs from the marks it was last composed with (recorded
beside the view versions, `stores.view_versions.context_marks`): context.md lists the messages not yet
consolidated, and neither an append nor a batch that changed no view bumps anything. Those
marks are read before composing and recorded after, so a message logged meanwhile only causes
one more recomposition on the next run.

Scopes are published one by one, each on its own: a scope whose directory cannot be written
(read-only, full, gone) is recorded in the fault book as ("snapshots", scope) and the other
scopes go on. Its views stay stale, so they are published by the first tick after the
directory is writable again, and the fault is cleared then.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Callable, Sequence

import structlog

from consolidator.ports import Publisher
from consolidator.core.app import App
from consolidator.core.faults import FaultBook
from consolidator.ladders.publish import publish_stale_rungs
from stores.engine import reading, transaction
from stores.errors import StorageError
from stores.messages import newest_seq, scopes as message_scopes
from stores.ledger import consolidated_seq
from stores.view_versions import context_marks, mark_all_published, mark_context, stale

log = structlog.get_logger()

FAULT = "snapshots"


class SnapshotStage:
    name = "snapshots"

    def __init__(self, app: App, publishers: dict[str, Publisher], context: Publisher | None = None,
                 faults: FaultBook | None = None):
        self.app = app
        self.publishers = publishers
        self.context = context
        self.faults = faults if faults is not None else FaultBook(app.engine)
        self.on_progress: Callable[[], None] = lambda: None  # ports.Stage: beat per view published

    def run(self, now: datetime, stop: threading.Event | None = None, scopes: Sequence[str] | None = None) -> int:
        """Publish the stale views of these scopes (None: every scope), and context.md where its
        marks moved; returns views published."""
        marks: dict[str, tuple[int, int]] = {}  # scope -> (newest seq, consolidated seq) now
        moved: set[str] = set()  # scopes whose context.md was composed from other marks
        with reading(self.app.engine) as session:
            if scopes is None:
                todo = stale(session)
            else:
                todo = [row for scope in scopes for row in stale(session, scope)]
            if self.context is not None:
                candidates = set(message_scopes(session) if scopes is None else scopes) | {row[0] for row in todo}
                marks = {scope: (newest_seq(session, scope), consolidated_seq(session, scope))
                         for scope in sorted(candidates)}
                moved = {scope for scope, current in marks.items()
                         if current != (context_marks(session, scope) or (0, 0))}
        by_scope: dict[str, list[tuple[str, int]]] = {}
        for scope, view, version in todo:
            by_scope.setdefault(scope, []).append((view, version))
        for scope in moved:
            by_scope.setdefault(scope, [])
        done = published = 0
        for scope in sorted(by_scope):
            if stop is not None and stop.is_set():
                break
            try:
                done += self._publish_scope(scope, by_scope[scope], now, marks.get(scope))
            except StorageError:
                raise  # the database itself: the tick fails as a whole
            except Exception as exc:  # this scope's files; the other scopes go on
                self.faults.failed(FAULT, scope, exc, now)
                continue
            self.faults.succeeded(FAULT, scope, now)
            published += 1
        if done:
            log.info("snapshots.published", views=done, scopes=published)
        return done

    def _publish_scope(self, scope: str, views: list[tuple[str, int]], now: datetime,
                       marks: tuple[int, int] | None = None) -> int:
        """Write the scope's stale files, then mark them published (and context.md's `marks`):
        if any file fails, the views not yet marked stay stale and context.md is recomposed on
        the retry."""
        publish_stale_rungs(self.app, scope, views)  # marked published with the rest below
        for view, _ in views:
            publisher = self.publishers.get(view)
            if publisher is not None:
                publisher(self.app, scope, now)
            self.on_progress()
        if self.context is not None:
            self.context(self.app, scope, now)
        with transaction(self.app.engine) as session:
            mark_all_published(session, scope, views)
            if self.context is not None and marks is not None:
                mark_context(session, scope, *marks)
        return len(views)
