"""Recall for a scope with no index yet: its message log, searched lexically, in memory.

Opens the database (the one path of `recall` that does), reads the scope's messages through
the history reader (archive included), indexes them in an in-memory SQLite database with the
same schema and writer as the daemon's index (no vectors: the tokenizer is not loaded for a
one-off), and ranks them as `recall` does. Nothing is written anywhere.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from consolidator.retrieval import items as make
from consolidator.retrieval.rank import RankSettings
from consolidator.retrieval.terms import asks_todo
from consolidator.retrieval.when import understand
from consolidator.retrieval.read import Recall, _Handle, _pool, answer
from consolidator.core.app import open_app
from consolidator.core.config import load_settings
from stores.engine import database_path, is_embedded, reading
from stores.history import History
from stores.files.recall_index import Writer, open_for_write

NOTE = "no recall index for this scope yet (the daemon has not worked it): answered from the message log alone"


def recall_from_log(scope: str, query: str, budget: int, config: Any, now: datetime,
                    settings: RankSettings) -> Recall:
    loaded = config if hasattr(config, "snapshot_dir") else load_settings(Path(config) if config else None)
    url = loaded.db_url
    if is_embedded(url) and not Path(database_path(url)).exists():  # opening it would create it
        raise ValueError(f"recall: unknown scope {scope!r}: nothing is logged under it")
    app = open_app(loaded, reader=True)
    try:
        with reading(app.engine, snapshot=True) as session:
            messages = [make.LoggedRow(row) for row in History(loaded.archive_dir).rows(session, scope)]
    finally:
        app.close()
    if not messages:
        raise ValueError(f"recall: unknown scope {scope!r}: nothing is logged under it")
    conn = open_for_write(Path(":memory:"))
    try:
        with Writer(conn) as writer:
            gap = loaded.interaction_gap.total_seconds()
            turns = make.CONTEXT_TURNS
            found = [make.message_item(m, messages[max(0, i - turns):i], gap) for i, m in enumerate(messages)]
            writer.put([i for i in found if i is not None])
            writer.set_meta({"timezone": loaded.timezone_of(scope).key, "scope": scope})
        handle = _Handle(Path(":memory:"), conn, 0)
        handle.refresh()
        qt = understand(query, now, ZoneInfo(handle.meta.get("timezone") or "UTC"))
        pool = _pool(handle, qt.search_text(query), budget, settings, qt.window, todo=asks_todo(query))
        return answer(scope, query, budget, now, settings, pool, handle.turns, handle.meta, source="log", note=NOTE)
    finally:
        conn.close()
