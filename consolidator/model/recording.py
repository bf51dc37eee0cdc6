"""Accounting of model calls: one frozen `CallRecord` per request a backend sent.

A record with outcome "ok" or "invalid" stands for a message the API answered (and billed):
its token counts are the reply's `usage`. Outcome "error" stands for a request that got no
message (HTTP error after the SDK's retries, timeout, deadline): zero tokens, zero cost.
SDK-internal retries are not recorded separately; they are part of the one request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

Outcome = Literal["ok", "invalid", "error"]


@dataclass(frozen=True, slots=True)
class CallRecord:
    operation: str
    scope: str
    ref: str
    model: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    latency_s: float
    outcome: Outcome
    cost_usd: float
    at: datetime

    @property
    def answered(self) -> bool:
        """True when the API answered with a message (valid or not)."""
        return self.outcome != "error"

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens


@runtime_checkable
class CallRecorder(Protocol):
    def record(self, rec: CallRecord) -> None: ...


class MemoryRecorder:
    """Keeps records in a list. `calls` counts answered messages, not "error" records."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []

    def record(self, rec: CallRecord) -> None:
        self.records.append(rec)

    @property
    def answered(self) -> list[CallRecord]:
        return [r for r in self.records if r.answered]

    @property
    def calls(self) -> int:
        return len(self.answered)

    @property
    def input_tokens(self) -> int:
        return sum(r.input_tokens for r in self.records)

    @property
    def output_tokens(self) -> int:
        return sum(r.output_tokens for r in self.records)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.records)


class TeeRecorder:
    """Passes each record to several recorders in order (e.g. the ledger, then the budget gate)."""

    def __init__(self, *recorders: CallRecorder) -> None:
        self.recorders = recorders

    def record(self, rec: CallRecord) -> None:
        for recorder in self.recorders:
            recorder.record(rec)
