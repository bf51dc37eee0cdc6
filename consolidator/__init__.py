"""consolidator: an offline memory-consolidation daemon for LLM agents.

Agents log messages with `MessageLog`; the daemon (`consolidator run`) cuts them into
batches, consolidates each batch into contacts, facts and tasks, keeps two summary ladders
per scope, and publishes everything as snapshot files a planner reads every turn.

A planner imports this package every time it starts, so importing it is light: the reader
is standard library only, `recall` loads numpy and its index reader on first use, and
`mark_used` and `MessageLog` load the database layer on first use (a test holds `from consolidator import read_context, mark_used` free of numpy,
SQLAlchemy, SQLModel and anthropic).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from consolidator.snapshots.reader import read_context

if TYPE_CHECKING:
    from consolidator.messages.log import MessageLog
    from consolidator.retrieval.read import Recall
    from consolidator.core.app import App

__all__ = ["MessageLog", "mark_used", "read_context", "recall"]


def recall(scope: str, query: str, *, budget_tokens: int = 1000, config: str | Path | None = None,
           now: datetime | None = None, table: str | None = None) -> "Recall":
    """What the scope's memory holds for `query`, as a block within `budget_tokens` and its items.

    No model call, no network: it reads the recall index the daemon keeps beside the snapshots
    (see `consolidator.retrieval.read.recall`). ValueError for an empty query, a budget outside
    50-100,000 tokens or an unknown scope. `table`: only the facts of that topic table.
    """
    from consolidator.retrieval.read import recall as search

    return search(scope, query, budget_tokens=budget_tokens, config=config, now=now, table=table)


def mark_used(scope: str, fact_ids: str | Iterable[str], config: str | Path | None = None, *,
              at: datetime | None = None, app: "App | None" = None, strict: bool = False) -> int:
    """Record that a planner used these facts (applied by the daemon); returns how many were queued.

    One short insert per fact of the scope into the use queue, each once per call; an id of no
    fact of the scope is skipped (`strict`: ValueError naming it, nothing queued); see
    `consolidator.facts.api.mark_used`.
    """
    from consolidator.facts.api import mark_used as queue_uses

    return queue_uses(scope, fact_ids, config, at=at, app=app, strict=strict)


def __getattr__(name: str) -> Any:
    if name == "MessageLog":
        from consolidator.messages.log import MessageLog

        return MessageLog
    raise AttributeError(f"module 'consolidator' has no attribute {name!r}")
