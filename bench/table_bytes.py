"""Bytes and rows per table of a SQLite database (each table with its indexes), from the `dbstat`
virtual table: what the archive bench prints at each year's end to show what still grows."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def table_bytes(db: Path) -> dict[str, tuple[int, int]]:
    """{table: (bytes of its pages and its indexes' pages, rows)} of a SQLite database file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        owner = dict(connection.execute("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')"))
        sizes: dict[str, int] = {}
        for name, used in connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            sizes[table] = sizes.get(table, 0) + used
        out = {}
        for table, used in sizes.items():
            if table.startswith("sqlite_"):
                continue
            rows = connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            out[table] = (used, rows)
    return out


def print_table_bytes(label: str, tables: dict[str, tuple[int, int]], top: int = 12) -> None:
    """The `top` largest tables, largest first: MB and rows."""
    print(f"  {label}: " + ", ".join(f"{t} {b / 1e6:.2f} MB/{r:,}" for t, (b, r) in
                                      sorted(tables.items(), key=lambda kv: -kv[1][0])[:top]), flush=True)
