"""Topic tables of facts: each scope's registry of tables and the record of restructures.

A current fact's table is `fact.fact_table` (a table name of its scope); the rows of
`fact_table` are the tables a scope has (name, file slug, description, placement vector), and
`fact_table_move` records every fact a restructure moved. Writes happen inside the caller's
transaction: the facts step places its new facts in the transaction that adds them, and the
offline pass restructures in the transaction that commits its pass (docs/tables.md).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable, NamedTuple

from sqlalchemy import delete, func, select
from sqlmodel import Session

from stores.schema.memory import Fact
from stores.schema.tables import FactTable, FactTableMove

NAME_MAX = 64
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


class Moved(NamedTuple):
    """One fact a restructure moves: from (None: it had no table), to, kind (move, merge, split), why."""

    fact_id: str
    from_table: str | None
    to_table: str
    kind: str
    why: str


def slugify(name: str) -> str:
    """A table's file name stem: lower-case letters and digits joined by '-' ('work and study' -> 'work-and-study')."""
    return _NOT_SLUG.sub("-", name.casefold()).strip("-")[:48] or "table"


def tables_of(session: Session, scope: str) -> list[FactTable]:
    """The scope's tables, oldest first (ties by name)."""
    stmt = select(FactTable).where(FactTable.scope == scope).order_by(FactTable.created_at, FactTable.name)
    return list(session.execute(stmt).scalars())


def add_table(session: Session, scope: str, name: str, description: str, now: datetime,
              vector: bytes | None = None, taken: set[str] | None = None) -> FactTable:
    """A new table of the scope, with a slug no other table of the scope has (`taken`: the slugs in use)."""
    if taken is None:
        taken = {t.slug for t in tables_of(session, scope)}
    base = slugify(name)
    slug, n = base, 1
    while slug in taken or slug == "index":
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    row = FactTable(scope=scope, name=name[:NAME_MAX], slug=slug, description=description, vector=vector,
                    created_at=now, updated_at=now)
    session.add(row)
    return row


def drop_tables(session: Session, scope: str, names: Iterable[str]) -> None:
    names = sorted(set(names))
    if names:
        session.execute(delete(FactTable).where(FactTable.scope == scope, FactTable.name.in_(names)))


def table_sizes(session: Session, scope: str) -> dict[str, int]:
    """Current facts per table name (facts without a table under None)."""
    stmt = (select(Fact.fact_table, func.count()).where(Fact.scope == scope, Fact.valid_to.is_(None))
            .group_by(Fact.fact_table))
    return {name: int(n) for name, n in session.execute(stmt)}


def record_moves(session: Session, scope: str, moves: Iterable[Moved], at: datetime) -> int:
    rows = [FactTableMove(scope=scope, fact_id=m.fact_id, from_table=m.from_table, to_table=m.to_table, at=at,
                          kind=m.kind, why=m.why[:512]) for m in moves]
    session.add_all(rows)
    return len(rows)


def split_names(session: Session, scope: str) -> set[str]:
    """The names of the scope's tables a restructure split (their facts live on in the parts)."""
    stmt = select(FactTableMove.from_table).where(FactTableMove.scope == scope, FactTableMove.kind == "split").distinct()
    return {name for name in session.execute(stmt).scalars() if name}


def moves_of(session: Session, scope: str, limit: int = 1000) -> list[FactTableMove]:
    """The scope's recorded moves, newest first."""
    stmt = select(FactTableMove).where(FactTableMove.scope == scope).order_by(FactTableMove.id.desc()).limit(limit)
    return list(session.execute(stmt).scalars())
