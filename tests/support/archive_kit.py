"""A consolidated scope for the archive tests: months of daily talk, summarised by the offline model."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

from consolidator.ladders.stage import LadderStage
from consolidator.model.offline import OfflineModel
from consolidator.runtime.tick import Consolidator
from consolidator.core.app import App
from stores.files.archive_files import COLUMNS
from stores import archive_manifest
from stores.archive_manifest import FileRanges
from stores.engine import reading, transaction
from stores.history import History
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary

START = datetime(2025, 1, 6, tzinfo=timezone.utc)  # a Monday
TOPICS = ("the garden", "Ana's new job", "the trip to Lisbon", "marathon training", "the kids' school")


def talk(scope: str, days: int, per_talk: int = 4, first_day: int = 0) -> list[NewMessage]:
    """Two conversations a day (09:00 and 15:00 UTC), alternating speakers, caller ids."""
    out = []
    for day in range(first_day, first_day + days):
        for k in range(2):
            at = START + timedelta(days=day, hours=9 + 6 * k)
            for i in range(per_talk):
                user = i % 2 == 0
                text = f"Day {day}: {'I' if user else 'You'} mentioned {TOPICS[(day + k + i) % len(TOPICS)]} again."
                out.append(NewMessage(scope, at + timedelta(minutes=i), "user" if user else "assistant", text,
                                      speaker="Maya" if user else None, session=f"{scope}-{day}-{k}",
                                      id=f"{day}-{k}-{i}"))
    return out


def consolidated(app: App, scope: str = "maya", days: int = 130) -> datetime:
    """Log `days` days of talk and drain the ladders; returns the time the daemon last ran."""
    append_messages(app.engine, talk(scope, days), START, archive_root=app.settings.archive_dir)
    now = START + timedelta(days=days + 1)
    Consolidator(app, [], [LadderStage(app, OfflineModel())]).drain(now)
    return now


def all_rows(app: App, scope: str = "maya") -> list[tuple]:
    """The scope's log through the one history reader (archive then hot store)."""
    with reading(app.engine) as session:
        return list(History(app.settings.archive_dir).rows(session, scope))


def hot_ids(app: App, scope: str = "maya") -> list[str]:
    from stores.schema.log import Message
    from sqlalchemy import select

    with reading(app.engine) as session:
        return list(session.execute(select(Message.id).where(Message.scope == scope)).scalars())


def summaries(app: App) -> set[tuple]:
    """Every summary version written, hot or archived: (scope, ladder, rung, key, version, kind, text, sources)."""
    from sqlalchemy import select

    from pathlib import Path

    from stores.archive_manifest import DONE
    from stores.files.summary_files import read_summaries
    from stores.schema.archive import SummaryArchiveFile

    with reading(app.engine) as session:
        rows = list(session.execute(select(Summary)).scalars())
        files = [Path(p) for p in session.execute(select(SummaryArchiveFile.path).where(SummaryArchiveFile.state == DONE)).scalars()]
    rows += read_summaries(app.settings.archive_dir, files)
    found = [(s.scope, s.ladder, s.rung, s.key, s.version, s.kind, s.text, tuple(s.sources or ())) for s in rows]
    assert len(found) == len(set(found)), "a summary both hot and archived, or archived twice"
    return set(found)



def archive_by_hand(engine, scope: str, ids: list[str], last_at: datetime) -> None:
    """Mark `ids` archived as the archiver's last step does (manifest row written then finished),
    without a file: their hot rows go, their hashes stay, the scope's reach moves."""
    ranges = FileRanges(first_seq=0, last_seq=0, first_at=last_at, last_at=last_at, first_interaction=0,
                        last_interaction=0)
    with transaction(engine) as session:
        made = archive_manifest.record_written(session, scope, f"{last_at:%Y-%m}", f"{scope}/{uuid.uuid4().hex}.parquet",
                                               rows=len(ids), checksum="-", size=0, ranges=ranges, now=last_at)
        archive_manifest.finish(session, made, ids)
