"""Summary ladders: summaries and their announcements.

A summary row is immutable: a late message produces a new version of the same window,
and older versions stay with their sources. Writing a summary and its announcement happen
in one transaction (`write_summary`), so an announcement always points at a committed
summary and a summary is never left unannounced. (Each ladder's cursors and dirty windows
are in stores.ladder_state; held windows in stores.holds.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy import bindparam, func, insert, select, union_all
from sqlmodel import Session

from stores.engine import core

from stores.schema.ladders import Summary, Announcement


def summary_id(scope: str, ladder: str, rung: str, key: str, version: int) -> str:
    return f"{scope}/{ladder}/{rung}/{key}@{version}"


# The ladder stage reads summaries as plain rows (attribute access by column name, as a Summary
# has): it reads many per tick and changes none, and ORM objects cost more to build than the read.
_ROW = select(Summary.__table__)
# The per-tick reads, built once with their values as parameters (building a statement costs more than running it).
_OF_LADDER = (Summary.scope == bindparam("scope"), Summary.ladder == bindparam("ladder"))
_LATEST = _ROW.where(*_OF_LADDER, Summary.rung.in_(bindparam("rungs", expanding=True)),
                     Summary.key.in_(bindparam("keys", expanding=True)))
_REUSABLE = _ROW.where(Summary.scope == bindparam("scope"), Summary.input_hash == bindparam("hash"),
                       Summary.kind == "summarized").limit(1)
_KINDS = select(Summary.key, Summary.version, Summary.kind).where(
    *_OF_LADDER, Summary.rung == bindparam("rung"), Summary.window_start >= bindparam("start"),
    Summary.window_start < bindparam("end"))
_CONTENT_START = (select(Summary.window_start).where(*_OF_LADDER, Summary.rung == bindparam("rung"), Summary.kind != "empty")
                  .order_by(Summary.window_start.desc()).limit(1))


def latest_rows(session: Session, scope: str, ladder: str, windows: list[tuple[str, str]]) -> dict[tuple[str, str], Summary]:
    """The newest version of each (rung, key) window that exists, in one query (as rows)."""
    wanted = set(windows)
    if not wanted:
        return {}
    parameters = {"scope": scope, "ladder": ladder, "rungs": sorted({r for r, _ in wanted}),
                  "keys": sorted({k for _, k in wanted})}
    best: dict[tuple[str, str], Summary] = {}
    for row in core(session, _LATEST, parameters).all():
        window = (row.rung, row.key)
        if window in wanted and (window not in best or row.version > best[window].version):
            best[window] = row
    return best


def newest_versions(session: Session, scope: str, ladder: str, rung: str) -> list[Summary]:
    """The newest version of every window of a rung, oldest window first."""
    newest = (
        select(Summary.key, func.max(Summary.version).label("v"))
        .where(Summary.scope == scope, Summary.ladder == ladder, Summary.rung == rung)
        .group_by(Summary.key)
        .subquery()
    )
    stmt = (
        select(Summary)
        .join(newest, (Summary.key == newest.c.key) & (Summary.version == newest.c.v))
        .where(Summary.scope == scope, Summary.ladder == ladder, Summary.rung == rung)
    )
    rows = list(session.execute(stmt).scalars())
    rows.sort(key=lambda s: (s.first_number or 0, s.window_start or s.created_at))
    return rows


def _newest_of_rung(ladder: str, n: int):
    """The id of the newest version of the rung's newest window that has something in it; the
    rung is the parameter `rung{n}`, the scope `scope`."""
    order = Summary.first_number.desc() if ladder == "count" else Summary.window_start.desc()
    return (
        select(Summary.id)
        .where(Summary.scope == bindparam("scope"), Summary.ladder == ladder, Summary.rung == bindparam(f"rung{n}"),
               Summary.kind != "empty")
        .order_by(order, Summary.version.desc())
        .limit(1)
    )


@lru_cache(maxsize=64)
def _newest_of_rungs(ladder: str, rungs: int):
    """newest_summaries' statement for `rungs` rungs of the ladder, built once per shape."""
    probes = [select(_newest_of_rung(ladder, n).subquery().c.id) for n in range(rungs)]
    return _ROW.where(Summary.id.in_(probes[0] if rungs == 1 else union_all(*probes)))


def newest_summary(session: Session, scope: str, ladder: str, rung: str) -> Summary | None:
    """The newest version of the rung's newest window that has something in it."""
    return newest_summaries(session, scope, ladder, [rung]).get(rung)


def newest_summaries(session: Session, scope: str, ladder: str, rungs: list[str]) -> dict[str, Summary]:
    """rung -> `newest_summary` of each rung that has one, in one statement: a UNION ALL of one
    indexed probe per rung (the snapshot stage publishes a scope's stale rungs together). A Core
    read (stores.engine.core): a summary pending in the session is not flushed first."""
    if not rungs:
        return {}
    wanted = sorted(set(rungs))
    parameters = {"scope": scope} | {f"rung{n}": rung for n, rung in enumerate(wanted)}
    return {row.rung: row for row in core(session, _newest_of_rungs(ladder, len(wanted)), parameters).all()}


def newest_content_start(session: Session, scope: str, ladder: str, rung: str) -> datetime | None:
    """The window start of the rung's newest window that has something in it (any version)."""
    return core(session, _CONTENT_START, {"scope": scope, "ladder": ladder, "rung": rung}).scalar()


def newest_kinds(session: Session, scope: str, ladder: str, rung: str, start: datetime, end: datetime) -> dict[str, tuple[int, str]]:
    """key -> (version, kind) of the newest version of each of the rung's windows starting in [start, end)
    (a Core read, as newest_summaries)."""
    parameters = {"scope": scope, "ladder": ladder, "rung": rung, "start": start, "end": end}
    newest: dict[str, tuple[int, str]] = {}
    for key, version, kind in core(session, _KINDS, parameters).all():
        if key not in newest or version > newest[key][0]:
            newest[key] = (version, kind)
    return newest


def keys_with_content(session: Session, scope: str, ladder: str, rung: str, start: datetime, end: datetime) -> set[str]:
    """Keys of the rung's (hot) windows starting in [start, end) whose newest version has something in it."""
    return {key for key, (_, kind) in newest_kinds(session, scope, ladder, rung, start, end).items() if kind != "empty"}


def interactions_after(session: Session, scope: str, after: int, limit: int) -> list[Summary]:
    """The newest non-empty version of the count/1 summary of each interaction numbered above
    `after`, newest interaction first, at most `limit` (the interactions no bigger block holds)."""
    if limit <= 0:
        return []
    stmt = (
        select(Summary)
        .where(Summary.scope == scope, Summary.ladder == "count", Summary.rung == "1", Summary.first_number > after)
        .order_by(Summary.first_number.desc(), Summary.version.desc())
    )
    out: dict[int, Summary] = {}
    for row in session.execute(stmt).scalars():
        if row.first_number not in out:
            out[row.first_number] = row
            if len(out) > limit:
                break
    return [row for row in list(out.values())[:limit] if row.kind != "empty"]


def reusable(session: Session, scope: str, input_hash: str) -> Summary | None:
    """An earlier summary of this scope written by a model call from identical inputs."""
    return core(session, _REUSABLE, {"scope": scope, "hash": input_hash}).first()


def write_summary(session: Session, summary: Summary, flush: bool = True) -> Announcement:
    """Insert a summary and its announcement in the caller's transaction; the announcement's id is
    set (or, with `flush` False, set when the caller's session flushes: many summaries written in
    one transaction then go in one batched statement per table, announcements in the order added)."""
    session.add(summary)
    announcement = Announcement(
        scope=summary.scope,
        ladder=summary.ladder,
        rung=summary.rung,
        key=summary.key,
        summary_id=summary.id,
        version=summary.version,
        announced_at=summary.created_at,
    )
    session.add(announcement)
    if flush:
        session.flush()  # assigns the announcement's id: the stage's cursor moves up to it
    return announcement


def _announcement(row: dict) -> dict:
    return {"scope": row["scope"], "ladder": row["ladder"], "rung": row["rung"], "key": row["key"],
            "summary_id": row["id"], "version": row["version"], "announced_at": row["created_at"]}


_INSERT_SUMMARY = insert(Summary.__table__)
_INSERT_ANNOUNCEMENT = insert(Announcement.__table__)


def insert_summaries(session: Session, rows: list[dict]) -> int | None:
    """`write_summary` for summaries given as column values: each row and its announcement, in the
    caller's transaction, as one INSERT per table (announcements in the order given); returns the
    announcement's id when one row was given (the stage's cursor moves up to it), else None."""
    if not rows:
        return None
    core(session, _INSERT_SUMMARY, rows)
    announcements = [_announcement(row) for row in rows]
    if len(rows) > 1:
        core(session, _INSERT_ANNOUNCEMENT, announcements)
        return None
    return core(session, _INSERT_ANNOUNCEMENT, announcements[0]).inserted_primary_key[0]


_ANNOUNCED_AFTER = (select(Announcement.id, Announcement.rung, Announcement.key)
                    .where(Announcement.scope == bindparam("scope"), Announcement.ladder == bindparam("ladder"),
                           Announcement.id > bindparam("after")).order_by(Announcement.id))


def announcements_after(session: Session, scope: str, ladder: str, after_id: int) -> list[tuple[int, str, str]]:
    """(id, rung, key) of the ladder's announcements newer than `after_id`, oldest first."""
    parameters = {"scope": scope, "ladder": ladder, "after": after_id}
    return [tuple(row) for row in core(session, _ANNOUNCED_AFTER, parameters).all()]


LADDERS = ("time", "count")


def newest_announcements(session: Session, scope: str) -> dict[str, int]:
    """ladder -> the id of its newest announcement, for every ladder of `scope` that has one: one
    statement of one max() probe of the (scope, ladder, id) index per ladder (a GROUP BY read every
    announcement of the scope, so its cost grew with the scope's history)."""
    probes = [select(func.max(Announcement.id)).where(Announcement.scope == scope, Announcement.ladder == ladder)
              .scalar_subquery() for ladder in LADDERS]
    row = session.execute(select(*probes)).one()
    return {ladder: int(top) for ladder, top in zip(LADDERS, row) if top is not None}


@dataclass(frozen=True)
class RungTally:
    """Summary rows of one (ladder, rung, kind), and the largest input a model call read for them."""

    rows: int
    largest_input: int


def tally(
    session: Session, created_from: datetime | None = None, created_before: datetime | None = None
) -> dict[tuple[str, str, str], RungTally]:
    """(ladder, rung, kind) -> rows written with `created_from <= created_at < created_before`."""
    stmt = select(Summary.ladder, Summary.rung, Summary.kind, func.count(), func.coalesce(func.max(Summary.input_tokens), 0))
    if created_from is not None:
        stmt = stmt.where(Summary.created_at >= created_from)
    if created_before is not None:
        stmt = stmt.where(Summary.created_at < created_before)
    stmt = stmt.group_by(Summary.ladder, Summary.rung, Summary.kind)
    return {(ladder, rung, kind): RungTally(int(n), int(largest)) for ladder, rung, kind, n, largest in session.execute(stmt)}
