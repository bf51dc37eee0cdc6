"""The rungs above the base read their inputs in batches within a run, not one read per block."""

from __future__ import annotations

import pytest

from datetime import timedelta

from sqlalchemy import event

from tests.support.ladders_kit import MONDAY, app, by_rung, machine, say  # noqa: F401  (app is a fixture)


@pytest.mark.slow
def test_a_run_reads_the_summaries_of_a_rung_once_not_once_per_block(app):
    """Eight weeks of daily messages drained at once write over a dozen higher blocks with one
    summary read per rung (a block's rung-mates are read with it, what the run wrote is kept);
    the summaries are the same as ever (every week passed through from its seven days)."""
    consolidator, _, stage = machine(app)
    for day in range(56):
        say(app, "maya", MONDAY + timedelta(days=day, hours=day % 5), f"day {day} the garden needs rain")
    inside, reads = [False], []
    real_run = stage.higher.run

    def counted_run(*args, **kwargs):
        inside[0] = True
        try:
            return real_run(*args, **kwargs)
        finally:
            inside[0] = False

    def before(conn, cursor, statement, parameters, context, executemany):
        if inside[0] and statement.lstrip().upper().startswith("SELECT") and " FROM summary " in " ".join(f"{statement} ".split()) + " ":
            reads.append(statement)

    stage.higher.run = counted_run
    event.listen(app.engine, "before_cursor_execute", before)
    consolidator.drain(MONDAY + timedelta(days=57))
    event.remove(app.engine, "before_cursor_execute", before)
    got = by_rung(app)
    higher = sum(sum(kinds.values()) for (ladder, rung), kinds in got.items() if rung not in ("day", "1"))
    assert got[("time", "week")] == {"passed": 8}
    assert higher >= 12, got
    ladders = app.settings.ladders
    rungs_above_base = len(ladders.time) - 1 + len(ladders.count) - 1
    # one batched read per rung and ladder, and the time ladder's content days (two reads)
    assert 0 < len(reads) <= rungs_above_base + 2 < higher, (len(reads), higher)
