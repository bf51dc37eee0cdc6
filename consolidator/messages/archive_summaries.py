"""Moving the summaries of old windows to the archive, beside the messages (issue 12's flat hot store).

Called by `Archiver` for each scope after its messages: stores/summary_select.py says which rows
may go (old windows every normal-course reader is done with), stores/summary_manifest.py keeps
the move crash-safe with the message archive's protocol (write + fsync + rename, verify, record
'written', then delete the hot rows and mark 'done' in one transaction), and the one history
reader (stores/history.py) adds the archived rows wherever old windows are read.
"""

from __future__ import annotations

from datetime import datetime

from consolidator.core.app import App
from stores.files import archive_files
from stores import archive_manifest, summary_manifest
from stores.files.archive_files import scope_folder
from stores.archive_select import first_dirty
from stores.engine import reading, transaction
from stores.files.summary_files import write_summaries
from stores.summary_select import archivable_summaries, count_bound

FOLDER = "summaries"


class ArchiveError(RuntimeError):
    """A file did not verify after writing (nothing was deleted)."""


class SummaryMover:
    def __init__(self, app: App) -> None:
        self.app = app
        self.root = app.settings.archive_dir
        ladders = app.settings.ladders
        self.rungs = {"time": list(ladders.time), "count": [str(n) for n in ladders.count]}

    def due(self, scope: str, cutoff: datetime) -> dict[str, list]:
        """ladder -> the scope's summary rows that may move now (`cutoff`: the message archive's,
        already before the scope's first dirty day)."""
        out: dict[str, list] = {}
        with reading(self.app.engine) as session:
            below = count_bound(session, scope, cutoff, first_dirty(session, scope, "count"))
            for ladder, rungs in self.rungs.items():
                rows = []
                for rung, above in zip(rungs, rungs[1:]):  # never the top rung
                    rows += archivable_summaries(session, scope, ladder, rung, above, cutoff=cutoff, below_number=below)
                if rows:
                    out[ladder] = rows
        return out

    def move(self, scope: str, ladder: str, rows: list, now: datetime) -> int:
        """One file through the whole protocol; returns its size in bytes."""
        positions = sorted(summary_manifest.position(ladder, r.key) for r in rows)
        folder = scope_folder(self.root, scope).relative_to(self.root) / FOLDER / ladder
        with reading(self.app.engine) as session:
            taken = summary_manifest.recorded_paths(session, scope)
        serial = 1
        while str(relative := folder / f"{positions[0]}-{positions[-1]}-{serial}.parquet") in taken:
            serial += 1  # a window rewritten after it moved moves again, into a file of its own
        written = write_summaries(self.root, relative, rows)
        if not archive_files.verify(self.root, relative, written.rows, written.checksum):
            (self.root / relative).unlink(missing_ok=True)
            raise ArchiveError(f"{relative}: did not read back as written; nothing was deleted")
        with transaction(self.app.engine) as session:
            file_id = summary_manifest.record_written(session, scope, ladder, str(relative), rows, written.checksum,
                                                      written.bytes, now)
        with transaction(self.app.engine) as session:
            summary_manifest.finish(session, file_id, [r.id for r in rows])
        return written.bytes

    def recover(self) -> int:
        """Finish or roll back the 'written' rows a killed run left; returns how many."""
        with reading(self.app.engine) as session:
            pending = summary_manifest.pending(session)
        for row in pending:
            archive_manifest.settle_written(self.app.engine, self.root, row, summary_manifest)
        return len(pending)
