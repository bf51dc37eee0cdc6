"""The values the ladder stage passes around: a block to write, its draft, and the write itself.

`Target` names one block of one ladder of one scope (with the scope's time zone, which a
day's bounds and its rendered lines need). `Draft` is what the block will say and what it
cost. `BlockWrite` is a whole summary about to be stored; `write_blocks` stores summaries with
their announcements in the caller's transaction.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import NamedTuple
from zoneinfo import ZoneInfo

import structlog

from consolidator.domain import estimate_tokens
from consolidator.ladders.publish import ladder_view
from hierarchy.calendar import block_key, block_label, count_window, time_window
from hierarchy.tiling import Block, LadderSpec
from stores.engine import Session
from stores.summaries import insert_summaries, summary_id
from stores.view_versions import bump_all

log = structlog.get_logger()

Stop = threading.Event | None  # set: finish the window in hand, then return (shutdown, a lost lease)


def stopped(stop: Stop) -> bool:
    return stop is not None and stop.is_set()


@dataclass(frozen=True)
class Target:
    """One block of one ladder of one scope: where a summary goes."""

    scope: str
    spec: LadderSpec
    block: Block
    tz: ZoneInfo

    @property
    def ladder(self) -> str:
        return self.spec.kind

    @property
    def rung(self) -> str:
        return self.spec.rungs[self.block.rung].name

    @cached_property
    def key(self) -> str:
        return block_key(self.spec, self.block)

    @property
    def window(self) -> tuple[str, str]:
        """(rung, key): how summaries and holds name the window within a ladder."""
        return self.rung, self.key

    @property
    def label(self) -> str:
        return block_label(self.spec, self.block)

    @property
    def unit(self) -> int:
        """A base window's unit as dirty windows count it: the day unit, or the interaction number."""
        return self.block.index if self.ladder == "time" else self.block.index + 1

    def at(self, block: Block) -> Target:
        """Another block of the same ladder and scope."""
        return Target(self.scope, self.spec, block, self.tz)


@dataclass(frozen=True)
class Draft:
    """What a block will say: its kind (summarized|reused|passed|empty), its text, and its cost."""

    kind: str
    text: str
    input_hash: str | None = None  # the content hash of a model call's inputs (reuse looks it up)
    input_tokens: int = 0  # what the model call read
    calls: int = 0  # model calls spent (0 or 1)


EMPTY = Draft("empty", "")


class Watermark(NamedTuple):
    """The newest raw message a summary covers, through its inputs."""

    seq: int = 0
    at: datetime | None = None


@dataclass(frozen=True)
class BlockWrite:
    """One summary about to be stored: its block, its draft, what it read, and its version."""

    target: Target
    draft: Draft
    sources: tuple[str, ...]
    watermark: Watermark
    version: int


def summary_values(write: BlockWrite, now: datetime) -> dict:
    """The summary row `write` stores, as column values."""
    target, draft = write.target, write.draft
    row = {
        "id": summary_id(target.scope, target.ladder, target.rung, target.key, write.version), "scope": target.scope,
        "ladder": target.ladder, "rung": target.rung, "key": target.key, "version": write.version, "kind": draft.kind,
        "label": target.label, "text": draft.text, "tokens": estimate_tokens(draft.text), "sources": list(write.sources),
        "input_hash": draft.input_hash, "input_tokens": draft.input_tokens, "calls": draft.calls,
        "watermark_seq": write.watermark.seq, "watermark_at": write.watermark.at, "created_at": now,
        "window_start": None, "window_end": None, "first_number": None, "last_number": None,
    }
    if target.ladder == "time":
        row["window_start"], row["window_end"] = time_window(target.spec, target.block, target.tz)
    else:
        row["first_number"], row["last_number"] = count_window(target.spec, target.block)
    return row


def write_blocks(session: Session, writes: list[BlockWrite], now: datetime) -> int | None:
    """Store the summaries with their announcements in the caller's transaction (one INSERT per
    table), each rung's view and the scope's `ladders` view (context.md) bumped once; returns the
    announcement's id when one write was given."""
    # The rung's snapshot is stale until published, and context.md shows the newest summaries.
    bump_all(session, list(dict.fromkeys(view for w in writes for view in (
        (w.target.scope, "ladders"), (w.target.scope, ladder_view(w.target.ladder, w.target.rung))))))
    for w in writes:
        log.debug("ladder.rung_written", scope=w.target.scope, ladder=w.target.ladder, rung=w.target.rung,
                  window=w.target.key, version=w.version, kind=w.draft.kind)
    return insert_summaries(session, [summary_values(w, now) for w in writes])
