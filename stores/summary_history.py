"""Summaries across the archive and the hot store: the reads the ladders and the CLI make of
old windows, with the archived rows added (stores/summary_select.py says which rows move).

A window is wholly archived or has its newest version hot (all of a window's versions move
together, and a later version is written hot), so a window found hot needs no archive read,
and the archive is read only for windows missing from the hot store whose positions fall in
an archived file's range (stores/summary_manifest.py): one probe of the manifest for a read
of recent windows. A file is read whole once per process and kept (stores/files/summary_files.py:
a finished file never changes), so rebuild, which reads every old window, reads each file once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlmodel import Session

from stores.schema.ladders import Summary
from stores.summaries import latest_rows, newest_kinds, newest_versions
from stores.files.summary_files import cached_summaries, naive
from stores.summary_manifest import files_between, position

Window = tuple[str, str]  # (rung, key)


def _read(root: Path, files: list[str], keep=lambda row: True) -> list[Summary]:
    """The archived rows of `files` that `keep` (given the raw row as a dict) accepts."""
    return cached_summaries(root, [Path(f) for f in files], keep) if files else []


def _newest(rows: list[Summary]) -> dict[Window, Summary]:
    best: dict[Window, Summary] = {}
    for row in rows:
        window = (row.rung, row.key)
        if window not in best or row.version > best[window].version:
            best[window] = row
    return best


def latest(root: Path, session: Session, scope: str, ladder: str, windows: list[Window]) -> dict[Window, Summary]:
    """The newest version of each window that exists, hot or archived."""
    found = latest_rows(session, scope, ladder, windows)
    missing = {w for w in windows if w not in found}
    if not missing:
        return found
    positions = [position(ladder, key) for _, key in missing]
    files = files_between(session, scope, ladder, min(positions), max(positions))
    cold = _read(root, files, lambda row: (row["rung"], row["key"]) in missing)
    found.update({w: row for w, row in _newest(cold).items() if w in missing})
    return found


def keys_with_content(root: Path, session: Session, scope: str, ladder: str, rung: str, start: datetime,
                      end: datetime) -> set[str]:
    """Keys of the rung's windows starting in [start, end) whose newest version, hot or archived, says something."""
    newest = newest_kinds(session, scope, ladder, rung, start, end)
    day = timedelta(days=1)  # a key is a local date, a window start its UTC instant: a day either side
    files = files_between(session, scope, ladder, (start - day).date().toordinal(), (end + day).date().toordinal())
    low, high = naive(start), naive(end)
    cold = _read(root, files, lambda row: row["rung"] == rung and row["window_start"] is not None
                 and low <= row["window_start"] < high)
    for (_, key), row in _newest(cold).items():
        newest.setdefault(key, (row.version, row.kind))  # a hot version is newer than any archived one
    return {key for key, (_, kind) in newest.items() if kind != "empty"}


def written_windows(root: Path, session: Session, scope: str) -> dict[tuple[str, str], int]:
    """(ladder, rung) -> how many windows have a summary with something in it (any version, hot or archived)."""
    keys = set(session.execute(select(Summary.ladder, Summary.rung, Summary.key).distinct()
                               .where(Summary.scope == scope, Summary.kind != "empty")).all())
    for ladder in ("time", "count"):
        keys.update((r.ladder, r.rung, r.key) for r in _read(root, files_between(session, scope, ladder),
                                                             lambda row: row["kind"] != "empty"))
    counts: dict[tuple[str, str], int] = {}
    for ladder, rung, _ in keys:
        counts[(ladder, rung)] = counts.get((ladder, rung), 0) + 1
    return counts


def every_version(root: Path, session: Session, scope: str) -> list[Summary]:
    """Every summary row of the scope, hot and archived (a bench or an audit reads them all)."""
    rows = list(session.execute(select(Summary).where(Summary.scope == scope)).scalars())
    for ladder in ("time", "count"):
        rows += _read(root, files_between(session, scope, ladder))
    return rows


def all_newest(root: Path, session: Session, scope: str, ladder: str, rung: str) -> list[Summary]:
    """The newest version of every window of a rung, hot or archived, oldest window first."""
    rows = newest_versions(session, scope, ladder, rung)
    files = files_between(session, scope, ladder)
    if not files:
        return rows
    hot = {row.key for row in rows}
    cold = _read(root, files, lambda row: row["rung"] == rung)
    rows += [row for (_, key), row in _newest(cold).items() if key not in hot]
    rows.sort(key=lambda s: (s.first_number or 0, s.window_start or s.created_at))
    return rows
