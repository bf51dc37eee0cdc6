"""One reader for a scope's history across the archive and the hot store.

Every read that may reach old messages (a base window being written again, rebuild's marking,
export) or old summaries (the inputs of a block above, the version of a window written again,
the `summaries` and `timeline` commands) goes through here. The manifest and the hot rows are read in the same session, so
they are one snapshot: a message is either hot or in a 'done' file, never both, never
neither (stores/archive_manifest.py). A read that touches no archived range costs one probe
of the manifest (a few rows a month per scope) and nothing else.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from sqlalchemy import select
from sqlmodel import Session

from stores.files import archive_files
from stores import summary_history
from stores.files.archive_files import COLUMNS
from stores.archive_manifest import DONE, files_overlapping
from stores.schema.archive import ArchiveFile
from stores.message_windows import (
    Arrival,
    arrivals_through,
    messages_in_time_window,
    messages_of_interaction,
    messages_of_interactions,
)
from stores.schema.log import Message
from stores.schema.ladders import Summary


_INTERACTION = COLUMNS.index("interaction")


def _naive(value: datetime) -> datetime:
    return value.astimezone(timezone.utc).replace(tzinfo=None)


def _message(row: tuple) -> Message:
    return Message(**dict(zip(COLUMNS, row)))


class History:
    """Reads of one state's history; `root` is the archive directory (archive.dir)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _cold(self, files: list[ArchiveFile], where: str, parameters: list) -> list[tuple]:
        done = [Path(f.path) for f in files if f.state == DONE]
        return archive_files.read_rows(self.root, done, where, parameters) if done else []

    def window(self, session: Session, scope: str, through_seq: int, start: datetime, end: datetime) -> list[Message]:
        """Messages with start <= at < end, up to arrival `through_seq`, in time order."""
        hot = messages_in_time_window(session, scope, through_seq, start, end)
        files = files_overlapping(session, scope, start=start, end=end, through_seq=through_seq)
        cold = self._cold(files, '"at" >= ? AND "at" < ? AND seq <= ?', [_naive(start), _naive(end), through_seq])
        return _merged(hot, cold)

    def interaction(self, session: Session, scope: str, through_seq: int, number: int) -> list[Message]:
        """The messages of interaction `number`, up to arrival `through_seq`, in time order."""
        hot = messages_of_interaction(session, scope, through_seq, number)
        files = files_overlapping(session, scope, interaction=number, through_seq=through_seq)
        cold = self._cold(files, "interaction = ? AND seq <= ?", [number, through_seq])
        return _merged(hot, cold)

    def interactions(self, session: Session, scope: str, through_seq: int, first: int, last: int) -> dict[int, list[Message]]:
        """The messages of interactions `first`..`last` (those that have any), each in time order."""
        hot = messages_of_interactions(session, scope, through_seq, first, last)
        files = files_overlapping(session, scope, interactions=(first, last), through_seq=through_seq)
        cold_by_number: dict[int, list[tuple]] = {}
        for row in self._cold(files, "interaction >= ? AND interaction <= ? AND seq <= ?", [first, last, through_seq]):
            cold_by_number.setdefault(row[_INTERACTION], []).append(row)
        return {n: _merged(hot.get(n, []), cold_by_number.get(n, [])) for n in hot.keys() | cold_by_number.keys()}

    def arrivals_through(self, session: Session, scope: str, through_seq: int, since: datetime | None = None) -> list[Arrival]:
        """(seq, at, interaction) of every message up to `through_seq` (at or after `since`), unordered."""
        hot = arrivals_through(session, scope, through_seq, since)
        files = files_overlapping(session, scope, start=since, through_seq=through_seq)
        where, parameters = "seq <= ?", [through_seq]
        if since is not None:
            where, parameters = where + ' AND "at" >= ?', parameters + [_naive(since)]
        cold = self._cold(files, where, parameters)
        return hot + [Arrival(row[2], row[3], row[9]) for row in cold]

    def rows(self, session: Session, scope: str, start: datetime | None = None,
             end: datetime | None = None) -> Iterator[tuple]:
        """The scope's whole log (or [start, end)) as COLUMNS tuples, archive then hot store, in
        arrival order (the hot rows stream: an export of years holds one archive file's worth). On PostgreSQL the
        session must hold a transaction: reading(engine, snapshot=True)."""
        files = files_overlapping(session, scope, start=start, end=end)
        where, parameters = "TRUE", []
        if start is not None:
            where, parameters = where + ' AND "at" >= ?', parameters + [_naive(start)]
        if end is not None:
            where, parameters = where + ' AND "at" < ?', parameters + [_naive(end)]
        cold = sorted(self._cold(files, where, parameters), key=lambda row: row[2])
        yield from cold
        stmt = select(*(getattr(Message, name) for name in COLUMNS)).where(Message.scope == scope).order_by(Message.seq)
        if start is not None:
            stmt = stmt.where(Message.at >= start)
        if end is not None:
            stmt = stmt.where(Message.at < end)
        yield from (tuple(row) for row in session.execute(stmt.execution_options(yield_per=2_000)))


    # Summaries (stores/summary_history.py): the reads of old windows, archived rows added.

    def latest_summaries(self, session: Session, scope: str, ladder: str,
                         windows: list[tuple[str, str]]) -> dict[tuple[str, str], Summary]:
        """The newest version of each (rung, key) window that exists, hot or archived."""
        return summary_history.latest(self.root, session, scope, ladder, windows)

    def keys_with_content(self, session: Session, scope: str, ladder: str, rung: str, start: datetime,
                          end: datetime) -> set[str]:
        """Keys of the rung's windows starting in [start, end) whose newest version says something."""
        return summary_history.keys_with_content(self.root, session, scope, ladder, rung, start, end)

    def newest_versions(self, session: Session, scope: str, ladder: str, rung: str) -> list[Summary]:
        """The newest version of every window of a rung, hot or archived, oldest window first."""
        return summary_history.all_newest(self.root, session, scope, ladder, rung)

    def written_windows(self, session: Session, scope: str) -> dict[tuple[str, str], int]:
        """(ladder, rung) -> windows with a summary that says something, hot or archived."""
        return summary_history.written_windows(self.root, session, scope)

    def summary_versions(self, session: Session, scope: str) -> list[Summary]:
        """Every summary row of the scope, hot and archived."""
        return summary_history.every_version(self.root, session, scope)


def _merged(hot: list[Message], cold: list[tuple]) -> list[Message]:
    if not cold:
        return hot
    return sorted(hot + [_message(row) for row in cold], key=lambda m: (m.at, m.seq))
