"""The snapshot stage: republishes every stale view after the steps and ladders of a tick.

Publishers are registered per view name (`contacts`, `facts`, `tasks`, ...); each writes
its own file(s) for one scope. Ladder rungs are views named `ladder:<ladder>/<rung>`, bumped
with each summary and published here too, so a crash between a summary's commit and its
file only delays the file to the next tick. `context` is recomposed whenever any view of
the scope changed, because context.md is made from all of them.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Callable

import structlog

from consolidator.runtime.app import App
from consolidator.ladders.publish import LADDER_VIEW, publish_ladder_views
from stores.engine import reading, transaction
from stores.views import mark_published, stale

log = structlog.get_logger()

Publisher = Callable[[App, str, datetime], None]


class SnapshotStage:
    name = "snapshots"

    def __init__(self, app: App, publishers: dict[str, Publisher], context: Publisher | None = None):
        self.app = app
        self.publishers = publishers
        self.context = context
        self.on_progress: Callable[[], None] = lambda: None  # ports.Stage: beat per view published

    def run(self, now: datetime, stop: threading.Event | None = None) -> int:
        with reading(self.app.engine) as session:
            todo = stale(session)
        done = 0
        scopes: set[str] = set()
        for scope, view, version in todo:
            if view.startswith(LADDER_VIEW):
                publish_ladder_views(self.app, scope)  # marks what it published itself
            publisher = self.publishers.get(view)
            if publisher is not None:
                publisher(self.app, scope, now)
            with transaction(self.app.engine) as session:
                mark_published(session, scope, view, version)
            scopes.add(scope)
            done += 1
            self.on_progress()
        if self.context is not None:
            for scope in sorted(scopes):
                self.context(self.app, scope, now)
        if done:
            log.info("snapshots.published", views=done, scopes=len(scopes))
        return done
