"""A scope's recall index written by hand, and recall asked of it (the ranking tests)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from consolidator.core.config import Settings
from consolidator.retrieval.rank import RankSettings
from consolidator.retrieval.read import recall
from stores.files.recall_index import IndexItem, Row, Writer, index_path, open_for_write


def day(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


def message(key: str, text: str, at: str) -> IndexItem:
    speaker = text.split(":", 1)[0]
    return IndexItem(id=f"msg:maya:{key}", kind="message", text=text, body=text, speaker=speaker, at=day(at))


def fact(key: str, text: str, at: str, sources: tuple[str, ...] = ()) -> IndexItem:
    return IndexItem(id=f"fact:{key}", kind="fact", text=text, body=text, status="current", at=day(at),
                     importance=5, sources=sources)


def week(key: str, text: str, start: str) -> IndexItem:
    return IndexItem(id=f"sum:time/week/{key}", kind="summary", text=text, body=text, ladder="time", rung="week",
                     label=f"week of {start}", at=day(start), until=day(start) + 7 * 86400)


def row(n: int, item_id: str, kind: str, text: str, at: str, sources: str = "[]") -> Row:
    return Row(n=n, id=item_id, kind=kind, status="current" if kind == "fact" else "", ladder=None, rung=None,
               label=None, speaker="Maya" if kind == "message" else None, text=text, at=day(at), until=None,
               importance=5.0, sources_json=sources)


def index_memory(tmp_path: Path, now: datetime):
    """write(items) makes scope maya's index under tmp_path; ask(query, budget, **rank settings)
    recalls from it at `now`."""
    settings = Settings(state_dir=tmp_path / "state")

    def write(*items: IndexItem) -> None:
        conn = open_for_write(index_path(settings.snapshot_dir / "maya"))
        with Writer(conn) as writer:
            writer.put(list(items))
            writer.set_meta({"timezone": "UTC", "scope": "maya", "messages_seq": "0"})
        conn.close()

    def ask(query: str, budget: int = 1000, **rules):
        return recall("maya", query, budget_tokens=budget, config=settings, now=now, settings=RankSettings(**rules))
    return write, ask


def order(result) -> list[str]:
    return [item.tag for item in result.items]
