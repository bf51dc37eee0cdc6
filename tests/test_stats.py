"""`consolidator stats --json` against figures computed directly from the database and the archive."""

from __future__ import annotations

import pytest

import json
import random
from collections import Counter
from datetime import datetime, timedelta, timezone

import numpy as np
from sqlalchemy import func, select

from consolidator.model.recording import CallRecord
from stores.engine import reading
from stores.schema.ledger import Batch, StepRun
from stores.model_calls import DbRecorder
from tests.support.archive_kit import all_rows, hot_ids, summaries

T0 = datetime(2025, 1, 8, 12, tzinfo=timezone.utc)


def record_calls(app) -> list[CallRecord]:
    """A few dozen priced calls on several days and operations, as the recorder writes them."""
    rng = random.Random(3)
    calls = [CallRecord(operation=rng.choice(["facts", "summary", "contacts"]), scope="demo", ref="r", model="m",
                        input_tokens=rng.randint(100, 900), output_tokens=rng.randint(10, 90), cache_read_tokens=0,
                        cache_write_tokens=0, latency_s=0.5, outcome="ok", cost_usd=rng.randint(1, 50) / 10_000,
                        at=T0 + timedelta(hours=7 * i)) for i in range(30)]
    recorder = DbRecorder(app.engine)
    for call in calls:
        recorder.record(call)
    return calls


def direct_lag(app) -> list[float]:
    """Seconds from each message's arrival to the last step finishing its batch (batches fully done)."""
    with reading(app.engine) as session:
        runs = session.execute(select(Batch.first_seq, Batch.last_seq, func.max(StepRun.finished_at))
                               .join(StepRun, StepRun.batch_id == Batch.id).where(Batch.scope == "demo")
                               .group_by(Batch.id)).all()
    received = {row[2]: row[8] for row in all_rows(app, "demo")}
    return [(applied - received[seq]).total_seconds() for first, last, applied in runs for seq in range(first, last + 1)]


@pytest.mark.slow
def test_stats_json_matches_direct_counts(app, run_cli) -> None:
    """Per-day and per-week counts, archived counts, lag percentiles, calls per operation, summaries
    per rung and the archive's bytes agree with counts taken directly."""
    sample = run_cli("sample", "--scope", "demo", "--days", "20").output
    run_cli("import", "-", input=sample)
    run_cli("run", "--once")  # consolidates, then archives in its idle tick (the sample is from 2025)
    calls = record_calls(app)
    stats = json.loads(run_cli("stats", "--json").output)["scopes"]["demo"]

    rows = all_rows(app, "demo")
    days = Counter(row[3].date().isoformat() for row in rows)
    weeks = Counter((row[3].date() - timedelta(days=row[3].weekday())).isoformat() for row in rows)
    assert stats["per_day"] == dict(days) and stats["per_week"] == dict(weeks)
    assert stats["messages"] == {"total": len(rows), "archived": len(rows) - len(hot_ids(app, "demo"))}
    assert stats["messages"]["archived"] > 0

    lag = direct_lag(app)
    assert stats["lag_s"]["messages"] == len(lag) == len(rows)
    assert stats["lag_s"]["p50"] == round(float(np.percentile(lag, 50)), 3)
    assert stats["lag_s"]["p99"] == round(float(np.percentile(lag, 99)), 3)

    for operation in {c.operation for c in calls}:
        mine = [c for c in calls if c.operation == operation]
        assert stats["model"]["per_operation"][operation] == {
            "calls": len(mine), "input_tokens": sum(c.input_tokens for c in mine),
            "output_tokens": sum(c.output_tokens for c in mine), "cost_usd": round(sum(c.cost_usd for c in mine), 6)}
    reported = Counter()
    for entry in stats["model"]["per_day"]:
        reported[entry["day"]] += entry["calls"]
    assert reported == Counter(c.at.date().isoformat() for c in calls)

    expected: dict[str, dict[str, int]] = {}
    for _, ladder, rung, _, _, kind, _, _ in summaries(app):  # hot and archived (the kit reads both)
        expected.setdefault(f"{ladder}/{rung}", {})
        expected[f"{ladder}/{rung}"][kind] = expected[f"{ladder}/{rung}"].get(kind, 0) + 1
    assert stats["summaries"] == expected
    on_disk = sum(p.stat().st_size for p in app.settings.archive_dir.rglob("*.parquet"))
    assert stats["archive"]["bytes"] == on_disk > 0


def test_stats_since_and_scope_narrow_the_figures(app, run_cli) -> None:
    """--since drops earlier days; --scope of another scope shows only that one."""
    run_cli("import", "-", input=run_cli("sample", "--scope", "demo", "--days", "10").output)
    run_cli("import", "-", input=run_cli("sample", "--scope", "other", "--days", "3").output)
    everything = json.loads(run_cli("stats", "--json").output)["scopes"]
    assert set(everything) == {"demo", "other"}
    later = json.loads(run_cli("stats", "--scope", "demo", "--since", "2025-01-10", "--json").output)["scopes"]
    assert set(later) == {"demo"}
    assert later["demo"]["per_day"] == {d: n for d, n in everything["demo"]["per_day"].items() if d >= "2025-01-10"}
