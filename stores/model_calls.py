"""The model-call ledger: one `ModelCall` row per request a model backend sent.

`DbRecorder` is the `CallRecorder` that writes them, one short write transaction per call.
Backends record from inside a step's `prepare` (or a stage), outside any step transaction,
so a call is in the ledger even when the step that made it later fails: the bill is real.

Aggregates (`totals`, `per_operation`) read a half-open time range `[start, end)`;
`utc_day(now)` is the range of "today": the UTC calendar day containing `now` (not the
scopes' local days: the budget and the bill are one per database, so one clock serves all).
"calls" counts the requests the API answered with a message (outcome ok or invalid);
"errors" counts the requests that got none (outcome error, zero tokens, zero cost).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from stores.engine import transaction
from stores.types import utc
from stores.schema.model import ModelCall


def call_row(rec: Any) -> ModelCall:
    """The ledger row of one call: `rec` has the fields of consolidator.model.recording.CallRecord
    (the model layer's record; stores/ cannot import it), cut to the columns' bounds."""
    return ModelCall(
        at=rec.at, operation=rec.operation, scope=rec.scope[:128], ref=rec.ref[:256], model=rec.model[:128],
        input_tokens=rec.input_tokens, output_tokens=rec.output_tokens,
        cache_read_tokens=rec.cache_read_tokens, cache_write_tokens=rec.cache_write_tokens,
        latency_ms=int(round(rec.latency_s * 1000)), outcome=rec.outcome, cost_usd=rec.cost_usd,
    )


class DbRecorder:
    """A `CallRecorder` writing each call to the `model_call` table in its own transaction."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def record(self, rec: Any) -> None:
        with transaction(self._engine) as session:
            session.add(call_row(rec))


@dataclass(frozen=True)
class CallTotals:
    calls: int = 0  # answered with a message (ok or invalid)
    errors: int = 0  # no message
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def tokens(self) -> int:
        """Every token the API reported (what a token budget counts)."""
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    def as_dict(self) -> dict[str, int | float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def utc_day(now: datetime) -> tuple[datetime, datetime]:
    """`[midnight, next midnight)` of the UTC day containing `now`."""
    start = utc(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def _columns():
    answered = case((ModelCall.outcome != "error", 1), else_=0)
    return (
        func.coalesce(func.sum(answered), 0),
        func.coalesce(func.sum(1 - answered), 0),
        func.coalesce(func.sum(ModelCall.input_tokens), 0),
        func.coalesce(func.sum(ModelCall.output_tokens), 0),
        func.coalesce(func.sum(ModelCall.cache_read_tokens), 0),
        func.coalesce(func.sum(ModelCall.cache_write_tokens), 0),
        func.coalesce(func.sum(ModelCall.cost_usd), 0.0),
    )


def _range(stmt, start: datetime | None, end: datetime | None):
    if start is not None:
        stmt = stmt.where(ModelCall.at >= utc(start))
    if end is not None:
        stmt = stmt.where(ModelCall.at < utc(end))
    return stmt


def _totals(row) -> CallTotals:
    calls, errors, inp, out, cread, cwrite, cost = row
    return CallTotals(int(calls), int(errors), int(inp), int(out), int(cread), int(cwrite), float(cost))


def totals(session: Session, start: datetime | None = None, end: datetime | None = None) -> CallTotals:
    """Everything recorded in `[start, end)` (open ends: no bound), in one aggregate query."""
    return _totals(session.execute(_range(select(*_columns()), start, end)).one())


def per_operation(session: Session, start: datetime | None = None, end: datetime | None = None) -> dict[str, CallTotals]:
    """Totals per operation in `[start, end)`; operations without a call are absent."""
    stmt = _range(select(ModelCall.operation, *_columns()).group_by(ModelCall.operation), start, end)
    return {row[0]: _totals(row[1:]) for row in session.execute(stmt)}

