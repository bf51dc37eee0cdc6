"""recall(table=...): the ids of one topic table's facts, read from its published snapshot
(facts/index.json names the table's file; consolidator/facts/publish.py writes both).

Only a file directly in the scope's facts/ folder is read, whatever the index says; a file of
another shape (hand-edited, damaged) holds no facts, never an error of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # missing, a folder, unreadable, not JSON
        return None


def table_fact_ids(scope_dir: Path, table: str) -> set[str]:
    """The ids of the facts in `table` (its name, case folded); ValueError naming the tables there are."""
    index = _read(scope_dir / "facts" / "index.json")
    listed = index.get("tables") if isinstance(index, dict) else None
    tables = [t for t in listed if isinstance(t, dict)] if isinstance(listed, list) else []
    entry = next((t for t in tables if str(t.get("name", "")).casefold() == table.strip().casefold()), None)
    if entry is None:
        known = ", ".join(sorted(str(t.get("name")) for t in tables)) or "none published yet"
        raise ValueError(f"recall: no table {table!r} in scope {scope_dir.name} (tables: {known})")
    name = Path(str(entry.get("file", ""))).name  # never outside the scope's facts/ folder
    payload = _read(scope_dir / "facts" / name) if name.endswith(".json") and name != "index.json" else None
    facts = payload.get("facts") if isinstance(payload, dict) else None
    return {str(f.get("id")) for f in facts if isinstance(f, dict)} if isinstance(facts, list) else set()
