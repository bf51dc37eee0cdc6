"""structlog configuration, done once at the entry point.

JSON lines when stderr is not a terminal (journald, pipes, tests), readable lines on a
terminal. Everything logs events with fields (`log.info("batch.step", scope=..., ...)`).

Libraries log through the standard `logging` module (apscheduler, SQLAlchemy, wordllama, the
model SDKs); the root logger gets one handler whose formatter is structlog's, with the same
renderer, so their lines are JSON too (`{"event": "...", "logger": "apscheduler.scheduler",
"level": "warning", ...}`) instead of plain text among the JSON. It replaces the plain handler a
library's `basicConfig` installed at import (wordllama calls `logging.basicConfig` when imported; a root
handler already there makes that a no-op). apscheduler's per-job INFO lines ("Running job",
"executed successfully", one pair per tick) are left out below WARNING: the daemon logs its
own `daemon.tick` event.
"""

from __future__ import annotations

import logging
import sys

import structlog

QUIET_BELOW_WARNING = ("apscheduler",)


def configure(level: str = "info", json: bool | None = None) -> None:
    if json is None:
        json = not sys.stderr.isatty()
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    shared = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, structlog.processors.format_exc_info,
                    renderer],
    ))
    handler._consolidator = True  # ours: replaced when configure runs again
    root = logging.getLogger()
    for old in list(root.handlers):  # basicConfig's plain handler, or ours from an earlier call
        if type(old) is logging.StreamHandler or getattr(old, "_consolidator", False):
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    for name in QUIET_BELOW_WARNING:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
