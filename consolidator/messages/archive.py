"""Moving old, fully consolidated messages from the hot database to the Parquet archive.

`Archiver.run` first finishes whatever an interrupted run left (stores/archive_manifest.py
says how each state is completed or rolled back), then, scope by scope, moves what
stores/archive_select.py allows, one file per month: write + fsync + rename, verify (row count
and id checksum read back), record 'written', then delete the hot rows and mark 'done' in one
transaction. Only one run at a time per archive directory (an flock on `.lock`): the daemon's
idle share and `consolidator archive` never write the same scope at once. With several daemons
on PostgreSQL the directory is shared storage and the lock is taken there too.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import defaultdict
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import structlog

from consolidator.messages.archive_summaries import ArchiveError, SummaryMover
from consolidator.core.app import App
from hierarchy.calendar import day_closes_at
from stores.files import archive_files
from stores import archive_manifest
from stores.files.archive_files import scope_folder
from stores.archive_select import archivable, first_dirty, safe_through, scopes_older_than
from stores.archived_lookup import expire_hashes
from stores.engine import reading, transaction
from stores.messages import scopes as all_scopes
from stores.summary_manifest import recorded_paths as summary_paths
from stores.summary_select import scopes_with_old_summaries

log = structlog.get_logger()
LADDERS = ("time", "count")
ROWS_PER_PASS = 50_000  # rows read per scope and pass (memory bound); a run repeats passes


class ArchiveBusy(RuntimeError):
    """Another archive run holds the archive directory's lock."""


@dataclass
class ScopeMove:
    files: int = 0
    messages: int = 0
    summaries: int = 0
    bytes: int = 0
    months: list[str] = field(default_factory=list)


@dataclass
class ArchiveReport:
    dry_run: bool
    recovered: int = 0  # interrupted files completed or rolled back
    scopes: dict[str, ScopeMove] = field(default_factory=dict)

    @property
    def messages(self) -> int:
        return sum(m.messages for m in self.scopes.values())

    @property
    def summaries(self) -> int:
        return sum(m.summaries for m in self.scopes.values())

    def as_dict(self) -> dict:
        return {"dry_run": self.dry_run, "recovered": self.recovered, "messages": self.messages,
                "summaries": self.summaries,
                "scopes": {s: m.__dict__ for s, m in sorted(self.scopes.items())}}


@contextmanager
def archive_lock(root: Path, wait: bool = False) -> Iterator[None]:
    """The archive directory to ourselves: ArchiveBusy if another run has it (unless `wait`)."""
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise ArchiveBusy(f"another archive run is using {root}") from None
        yield
    finally:
        os.close(fd)


class Archiver:
    def __init__(self, app: App) -> None:
        self.app = app
        self.root = app.settings.archive_dir
        self.after = app.settings.archive.after
        self._recovered = False  # a process completes what an earlier one left once, then after any failure
        self.summaries = SummaryMover(app)
        self._summaries_checked: dict[str, datetime] = {}  # scope -> the cutoff its old rows were last handled at
        self._summary_month: datetime | None = None  # the month whose scopes with old summaries were listed

    @property
    def enabled(self) -> bool:
        return self.after > timedelta(0)

    def run(self, now: datetime, scope: str | None = None, dry_run: bool = False, max_files: int | None = None,
            stop: threading.Event | None = None) -> ArchiveReport:
        """Complete interrupted moves, then move what is due (at most `max_files` files)."""
        report = ArchiveReport(dry_run=dry_run)
        if not self.enabled:
            return report
        with archive_lock(self.root):
            with reading(self.app.engine) as session:  # one statement, not one per scope
                month = self._month_start(now)
                names = [scope] if scope else self._scopes(session, month)
            if not dry_run and not self._recovered:
                report.recovered = self.summaries.recover() + self.recover([scope] if scope else self._folders())
                self._recovered = True
            budget = max_files
            for name in names:
                if (stop is not None and stop.is_set()) or budget == 0:
                    break
                try:
                    moved = self._scope(name, now, dry_run, budget, stop)
                except BaseException:
                    self._recovered = False
                    raise
                if moved.messages or moved.summaries:
                    report.scopes[name] = moved
                if budget is not None:
                    budget -= moved.files
        if (report.messages or report.summaries) and not dry_run:
            log.info("archive.moved", messages=report.messages, summaries=report.summaries, scopes=len(report.scopes))
        return report

    def _scopes(self, session, month: datetime) -> list[str]:
        """The scopes with hot messages from before `month` (their move brings their old summaries
        along), and, once per process and month, those with old summaries only: a scope's summaries
        age when the month moves, and asking every pass would run the selection daily."""
        names = set(scopes_older_than(session, month))
        if self._summary_month != month:
            names |= set(scopes_with_old_summaries(session, month))
            self._summary_month = month
        return sorted(names)

    def _folders(self) -> list[str]:
        """Scopes to check for leftovers: those with a folder on disk (a temporary or unrecorded
        file can only be in one), and those with manifest rows."""
        with reading(self.app.engine) as session:
            names = set(all_scopes(session)) | set(archive_manifest.scopes_with_files(session))
        return sorted(n for n in names if scope_folder(self.root, n).exists())

    def _month_start(self, now: datetime) -> datetime:
        """The start of the UTC month holding `now - archive.after`: no message from after it goes."""
        aged = (now - self.after).astimezone(timezone.utc)
        return aged.replace(day=1, hour=0, minute=0, second=0, microsecond=0)

    def recover(self, names: list[str]) -> int:
        """Finish or roll back what a killed run left: 'written' rows, unrecorded and temp files."""
        fixed = 0
        with reading(self.app.engine) as session:
            pending = archive_manifest.pending(session)
        for row in pending:
            archive_manifest.settle_written(self.app.engine, self.root, row, archive_manifest)
            fixed += 1
        for name in names:
            folder = scope_folder(self.root, name)
            fixed += archive_files.remove_temps(folder)
            with reading(self.app.engine) as session:
                recorded = archive_manifest.recorded_paths(session, name) | summary_paths(session, name)
            for orphan in archive_files.files_on_disk(folder, self.root):
                if str(orphan) not in recorded:  # renamed but never recorded: its rows are still hot
                    (self.root / orphan).unlink()
                    fixed += 1
        return fixed

    def _cutoff(self, session, scope: str, now: datetime) -> tuple[datetime, int | None]:
        """The time before which messages may go, and the first dirty interaction. Whole UTC months
        go at once (one file per scope and month, written once a month rather than a small file a
        day): the cutoff is the start of the month holding `now - archive.after`, or earlier, the
        start of the first dirty day."""
        cutoff = self._month_start(now)
        day = first_dirty(session, scope, "time")
        if day is not None:
            cutoff = min(cutoff, day_closes_at(day - 1, self.app.settings.timezone_of(scope), timedelta(0)))
        return cutoff, first_dirty(session, scope, "count")

    def _scope(self, scope: str, now: datetime, dry_run: bool, budget: int | None,
               stop: threading.Event | None) -> ScopeMove:
        moved = ScopeMove()
        after_seq = 0
        cutoff = None
        while budget is None or moved.files < budget:
            if stop is not None and stop.is_set():
                break
            with reading(self.app.engine) as session:
                through = safe_through(session, scope, LADDERS)
                cutoff, dirty_interaction = self._cutoff(session, scope, now)
                rows = archivable(session, scope, through, cutoff, dirty_interaction, ROWS_PER_PASS, after_seq)
            if not rows:
                break
            by_month: dict[str, list[tuple]] = defaultdict(list)
            for row in rows:
                by_month[row[3].strftime("%Y-%m")].append(row)
            for month, month_rows in sorted(by_month.items()):
                if budget is not None and moved.files >= budget:
                    break
                moved.files += 1
                moved.messages += len(month_rows)
                if month not in moved.months:
                    moved.months.append(month)
                if not dry_run:
                    moved.bytes += self._move(scope, month, month_rows, now)
            if dry_run:
                after_seq = rows[-1][2]  # nothing was deleted: page on
            if len(rows) < ROWS_PER_PASS:
                break
        if (budget is None or moved.files < budget) and not (stop is not None and stop.is_set()):
            self._old_rows(scope, now, dry_run, moved, cutoff)
        return moved

    def _expire_hashes(self, scope: str, now: datetime) -> None:
        """Drop the hot hashes of ids archived more than archive.after ago, a file per transaction
        (stores/archived_lookup.py: older ids are found in the files)."""
        while True:
            with transaction(self.app.engine) as session:
                if expire_hashes(session, self.root, scope, now, self.after) < 0:
                    return

    def _old_rows(self, scope: str, now: datetime, dry_run: bool, moved: ScopeMove, cutoff: datetime | None) -> None:
        """After the scope's messages: its old summaries (one file per ladder, same cutoff), and the
        hot hashes of ids archived long ago. Only when something changed since the last look: the
        cutoff moved (once a month) or messages moved; the selection is not free, and the daemon's
        idle share runs daily or more."""
        if cutoff is None:
            with reading(self.app.engine) as session:
                cutoff, _ = self._cutoff(session, scope, now)
        if not moved.messages and self._summaries_checked.get(scope) == cutoff:
            return
        for ladder, rows in self.summaries.due(scope, cutoff).items():
            moved.files += 1
            moved.summaries += len(rows)
            if not dry_run:
                moved.bytes += self.summaries.move(scope, ladder, rows, now)
        if not dry_run:
            self._expire_hashes(scope, now)
            self._summaries_checked[scope] = cutoff

    def _move(self, scope: str, month: str, rows: list[tuple], now: datetime) -> int:
        """One file through the whole protocol; returns its size in bytes."""
        folder = scope_folder(self.root, scope).relative_to(self.root)
        relative = folder / month / f"{rows[0][2]}-{rows[-1][2]}.parquet"
        written = archive_files.write_file(self.root, relative, rows)
        if not archive_files.verify(self.root, relative, written.rows, written.checksum):
            (self.root / relative).unlink(missing_ok=True)
            raise ArchiveError(f"{relative}: did not read back as written; nothing was deleted")
        ranges = archive_manifest.FileRanges(
            first_seq=rows[0][2], last_seq=rows[-1][2], first_at=min(r[3] for r in rows), last_at=max(r[3] for r in rows),
            first_interaction=min(r[9] for r in rows), last_interaction=max(r[9] for r in rows))
        with transaction(self.app.engine) as session:
            file_id = archive_manifest.record_written(session, scope, month, str(relative), written.rows,
                                                      written.checksum, written.bytes, ranges, now)
        with transaction(self.app.engine) as session:
            archive_manifest.finish(session, file_id, [r[0] for r in rows])
        return written.bytes


class ArchiveStage:
    """The daemon's share: a few files per tick, only in ticks that found nothing else to do
    (pipeline/tick.py runs its idle stages then), so archiving never delays consolidation."""

    name = "archive"
    RECHECK = timedelta(minutes=10)  # after a pass that found nothing: the selection scans the hot tail

    def __init__(self, app: App) -> None:
        self.archiver = Archiver(app)
        self.files = app.settings.archive.files_per_tick
        self.on_progress = lambda: None
        self._next: datetime | None = None

    def run(self, now: datetime, stop: threading.Event | None, scopes: Sequence[str] | None = None) -> int:
        """Archive what is due in every scope (ports.Stage; `scopes` is ignored: the daemon runs
        this housekeeping once in a tick that found nothing else due)."""
        if not self.archiver.enabled or (self._next is not None and now < self._next):
            return 0
        try:
            report = self.archiver.run(now, max_files=self.files, stop=stop)
        except ArchiveBusy:  # `consolidator archive` is at it: nothing for us this tick
            return 0
        self.on_progress()
        done = sum(m.files for m in report.scopes.values()) + report.recovered
        self._next = None if done else now + self.RECHECK
        return done
