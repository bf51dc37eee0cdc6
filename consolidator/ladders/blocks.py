"""The values the ladder stage passes around: a block to write, its draft, and the write itself.

`Target` names one block of one ladder of one scope (with the scope's time zone, which a
day's bounds and its rendered lines need). `Draft` is what the block will say and what it
cost. `BlockWrite` is a whole summary about to be stored; `write_block` stores it with its
announcement in the caller's transaction.
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
from stores.schema.ladders import Announcement, Summary
from stores.summaries import summary_id, write_summary
from stores.view_versions import bump_once

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


class Stored(NamedTuple):
    """What `write_block` stored: the row, and its announcement (whose id is set at the flush)."""

    summary: Summary
    announcement: Announcement


def write_block(session: Session, write: BlockWrite, now: datetime, flush: bool = True) -> Stored:
    """Store the summary and its announcement (one transaction: the caller's); with `flush` False
    the announcement's id is assigned when the caller's session flushes."""
    target, draft = write.target, write.draft
    summary = Summary(
        id=summary_id(target.scope, target.ladder, target.rung, target.key, write.version), scope=target.scope,
        ladder=target.ladder, rung=target.rung, key=target.key, version=write.version, kind=draft.kind,
        label=target.label, text=draft.text, tokens=estimate_tokens(draft.text), sources=list(write.sources),
        input_hash=draft.input_hash, input_tokens=draft.input_tokens, calls=draft.calls,
        watermark_seq=write.watermark.seq, watermark_at=write.watermark.at, created_at=now,
    )
    if target.ladder == "time":
        summary.window_start, summary.window_end = time_window(target.spec, target.block, target.tz)
    else:
        summary.first_number, summary.last_number = count_window(target.spec, target.block)
    bump_once(session, target.scope, ladder_view(target.ladder, target.rung))  # the rung's snapshot is stale until published
    log.debug("ladder.rung_written", scope=target.scope, ladder=target.ladder, rung=target.rung, window=target.key,
              version=write.version, kind=draft.kind)
    return Stored(summary, write_summary(session, summary, flush))
