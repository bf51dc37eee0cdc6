"""recall(table=...): the ids of one topic table's facts, read from its published snapshot
(facts/index.json names the table's file; consolidator/facts/publish.py writes both)."""

from __future__ import annotations

import json
from pathlib import Path


def table_fact_ids(scope_dir: Path, table: str) -> set[str]:
    """The ids of the facts in `table` (its name, case folded); ValueError naming the tables there are."""
    try:
        index = json.loads((scope_dir / "facts" / "index.json").read_text(encoding="utf-8"))
        tables = [t for t in index.get("tables", []) if isinstance(t, dict)]
    except (FileNotFoundError, ValueError, AttributeError):
        tables = []
    entry = next((t for t in tables if str(t.get("name", "")).casefold() == table.strip().casefold()), None)
    if entry is None:
        known = ", ".join(sorted(str(t.get("name")) for t in tables)) or "none published yet"
        raise ValueError(f"recall: no table {table!r} in scope {scope_dir.name} (tables: {known})")
    try:
        payload = json.loads((scope_dir / str(entry.get("file", ""))).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, IsADirectoryError):
        return set()
    return {str(f.get("id")) for f in payload.get("facts", []) if isinstance(f, dict)}
