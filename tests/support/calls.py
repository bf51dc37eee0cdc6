"""Model-call records for the ledger's tests: the real CallRecord with plain defaults."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from consolidator.model.recording import CallRecord


def call(operation: str, at: datetime, **fields: Any) -> CallRecord:
    """One answered call of `operation` at `at`; any field may be given."""
    defaults: dict[str, Any] = dict(scope="s", ref="batch 1", model="m", input_tokens=100, output_tokens=10,
                                    cache_read_tokens=0, cache_write_tokens=0, latency_s=1.2, outcome="ok",
                                    cost_usd=0.5)
    return CallRecord(operation=operation, at=at, **{**defaults, **fields})
