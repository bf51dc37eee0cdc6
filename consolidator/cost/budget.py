"""The daily model budget: which work may still call a model today, and `BudgetedModel`.

Policy. A budget B is `model.daily_budget_usd` and/or `model.daily_budget_tokens` (a token
budget counts every token the API reported: input, output, cache reads and writes). Today
is the UTC day containing the tick's `now`; today's spend is read from the model-call ledger
(`stores.model_calls`). Work falls into four tiers, lowest priority first:

    tier            what                                          may spend until
    ladder_higher   summaries of rungs above a ladder's base      0.8 B
    sleep           the offline pass's judge_cluster, split_table 0.9 B
    ladder_base     day and interaction summaries                 B
    batch           facts, contacts and tasks of each batch       B
                    (separately or as one consolidate_batch)

With both limits set, a tier closes when either share is reached. A closed tier is
DEFERRED until the next UTC midnight, never failed: `BudgetedModel` raises `BudgetExceeded`
(carrying the tier and `reopens_at`) before the call, and each caller keeps its work for later
(the step runner reschedules the run to `reopens_at` without using an attempt; the ladders
hold that one window until `reopens_at` with a hold row, and go on with the windows that
need no call; the offline pass skips the scope until `reopens_at`).

The check happens before a call whose cost is not known yet, so the call that crosses a
threshold is allowed; spend can pass B by the calls already in flight (at most one per step
worker). Spend is read once per tick (`refresh(now)`, one aggregate query) and kept current
between refreshes by `record` (the gate is also a `CallRecorder`), not queried per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import structlog
from stores.engine import Engine, reading

from consolidator.core.clock import utcnow
from consolidator.model.base import BudgetExceeded, Layer, Model
from consolidator.model.settings import Operation
from consolidator.model.recording import CallRecord
from consolidator.model.settings import ModelSettings
from stores.model_calls import totals, utc_day

log = structlog.get_logger()


class Tier(str, Enum):
    LADDER_HIGHER = "ladder_higher"
    SLEEP = "sleep"
    LADDER_BASE = "ladder_base"
    BATCH = "batch"


# Share of the daily budget each tier may spend, lowest priority first.
SHARES: dict[Tier, float] = {Tier.LADDER_HIGHER: 0.8, Tier.SLEEP: 0.9, Tier.LADDER_BASE: 1.0, Tier.BATCH: 1.0}


@dataclass(frozen=True)
class Spend:
    day: datetime  # UTC midnight starting the day
    usd: float = 0.0
    tokens: int = 0

    @property
    def reopens_at(self) -> datetime:
        return self.day + timedelta(days=1)


class BudgetGate:
    """Today's spend against the daily budget; thread-safe (step workers share one gate)."""

    def __init__(self, engine: Engine, settings: ModelSettings, clock: Callable[[], datetime] = utcnow) -> None:
        self._engine = engine
        self._limit_usd = settings.daily_budget_usd
        self._limit_tokens = settings.daily_budget_tokens
        self._clock = clock
        self._lock = threading.Lock()
        self._spend: Spend | None = None

    @property
    def limit_usd(self) -> float | None:
        return self._limit_usd

    @property
    def limit_tokens(self) -> int | None:
        return self._limit_tokens

    @property
    def enabled(self) -> bool:
        return self._limit_usd is not None or self._limit_tokens is not None

    def refresh(self, now: datetime | None = None) -> Spend:
        """Read today's spend (the UTC day of `now`, else of the clock) from the ledger: one query."""
        start, _ = utc_day(now or self._clock())
        with reading(self._engine) as session:
            spent = totals(session, start, start + timedelta(days=1))
        with self._lock:
            self._spend = Spend(start, spent.cost_usd, spent.tokens)
            return self._spend

    def spend(self) -> Spend:
        """Today's spend as last refreshed plus the calls recorded since (read once if never refreshed)."""
        with self._lock:
            current = self._spend
        return current if current is not None else self.refresh()

    def record(self, rec: CallRecord) -> None:
        """Count a call just made (the gate is a CallRecorder beside the ledger's) until the next refresh."""
        with self._lock:
            if self._spend is not None:
                self._spend = Spend(self._spend.day, self._spend.usd + rec.cost_usd, self._spend.tokens + rec.total_tokens)

    def is_open(self, tier: Tier, spend: Spend | None = None) -> bool:
        spend = spend or self.spend()
        share = SHARES[Tier(tier)]
        if self._limit_usd is not None and spend.usd >= share * self._limit_usd:
            return False
        if self._limit_tokens is not None and spend.tokens >= share * self._limit_tokens:
            return False
        return True

    def closed(self, spend: Spend | None = None) -> list[str]:
        """Tiers deferred now, lowest priority first."""
        spend = spend or self.spend()
        return [t.value for t in Tier if not self.is_open(t, spend)]

    def check(self, tier: Tier) -> None:
        """Raise BudgetExceeded when `tier` may not spend any more today."""
        spend = self.spend()
        if not self.is_open(tier, spend):
            raise BudgetExceeded(
                f"daily model budget: {Tier(tier).value} deferred until {spend.reopens_at.isoformat()}",
                tier=Tier(tier).value, reopens_at=spend.reopens_at,
            )


class BudgetedModel(Layer):
    """Any Model behind a BudgetGate: each request is mapped to a tier and checked before the call.

    `base_rungs` maps a ladder ("time", "count") to its first rung's name: a summary of that
    rung is ladder_base work, any other rung ladder_higher. Over a `BatchModel` it is one too.
    """

    def __init__(self, inner: Model, gate: BudgetGate, base_rungs: Mapping[str, str]) -> None:
        super().__init__(inner)
        self.gate = gate
        self.base_rungs = dict(base_rungs)

    def tier_of(self, operation: Operation, request: Any) -> Tier:
        if operation == "summarize":
            return Tier.LADDER_BASE if self.base_rungs.get(request.ladder) == request.rung else Tier.LADDER_HIGHER
        return Tier.SLEEP if operation in ("judge_cluster", "split_table") else Tier.BATCH

    def call(self, operation: Operation, request: Any) -> Any:
        self.gate.check(self.tier_of(operation, request))
        return super().call(operation, request)


def budgeted(inner: Model, gate: BudgetGate, base_rungs: Mapping[str, str]) -> BudgetedModel:
    """`inner` behind `gate`, with the batch capability exactly when `inner` has it."""
    return BudgetedModel(inner, gate, base_rungs)
