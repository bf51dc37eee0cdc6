"""Rows written per idle scope per day: what silence costs in storage.

    python bench/idle_rows.py [--scopes 10] [--days 30]

Each scope says a few things on day 0; then every scope stays silent for `--days` days while
the whole daemon (build_consolidator with the offline model) drains once per simulated day,
at noon UTC. Rows are counted in every table of the schema. The figure is the growth from
the end of day 1 to the end of the last day, per scope per day, minus what day 0's content
legitimately completes in that time: the week, the 4 weeks and so on that hold day 0, once
each of them closes (a summary, its announcement, and its rung's view row the first time
that rung says something). The target is 0.
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import event, func, select

from consolidator.runtime import logsetup
from consolidator.core.app import open_app
from consolidator.core.config import Settings
from consolidator.runtime.wiring import build_consolidator
from consolidator.model.offline import OfflineModel
from stores.engine import reading
from stores.erase import all_tables
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import Summary

START = datetime(2025, 3, 17, 9, 0, tzinfo=timezone.utc)  # a Monday, the first day of a 4-week block


def table_rows(app) -> dict[str, int]:
    """table -> rows, for every table of the schema."""
    with reading(app.engine) as session:
        return {t.name: session.execute(select(func.count()).select_from(t)).scalar_one() for t in all_tables()}


def content_rungs(app) -> tuple[int, set[tuple[str, str]]]:
    """Summaries with something in them (each comes with one announcement), and the (scope, view) they bump."""
    with reading(app.engine) as session:
        rows = session.execute(select(Summary.scope, Summary.ladder, Summary.rung).where(Summary.kind != "empty")).all()
    return len(rows), {(scope, f"ladder:{ladder}/{rung}") for scope, ladder, rung in rows}


def run(scopes: int, days: int, state_dir: Path) -> dict[str, float]:
    app = open_app(Settings(state_dir=state_dir))
    try:
        consolidator = build_consolidator(app, OfflineModel())
        names = [f"idle{i:02d}" for i in range(scopes)]
        for name in names:
            lines = [NewMessage(name, START + timedelta(minutes=m), "user", f"note {m}: I met Ana about the garden")
                     for m in range(3)]
            append_messages(app.engine, lines, START)
        noon = START.replace(hour=12)
        consolidator.drain(noon + timedelta(days=1))
        after_day1, (content1, views1) = table_rows(app), content_rungs(app)
        statements: list[str] = []
        event.listen(app.engine, "before_cursor_execute", lambda c, cur, sql, *a: statements.append(sql))
        for day in range(2, days + 2):
            consolidator.drain(noon + timedelta(days=day))
        writes = sum(1 for sql in statements if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")))
        after, (content, views) = table_rows(app), content_rungs(app)
    finally:
        app.close()
    grown = {t: after[t] - after_day1[t] for t in after if after[t] != after_day1[t]}
    legit = 2 * (content - content1) + len(views - views1)
    total = sum(grown.values())
    return {"grown": grown, "legit": legit, "per_scope_day": (total - legit) / (scopes * days),
            "writes": writes / (scopes * days), "statements": len(statements) / (scopes * days)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scopes", type=int, default=10)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    logsetup.configure("warning")
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.scopes, args.days, Path(tmp) / "state")
    print(f"{args.scopes} scopes x {args.days} idle days, whole daemon drained once a day")
    print(f"  rows grown per table: {result['grown']}")
    print(f"  of which the blocks holding day 0 (summary, announcement, first view row of a rung): {result['legit']}")
    print(f"  rows written per idle scope per day: {result['per_scope_day']:.2f}")
    print(f"  statements per idle scope per day (one drain): {result['statements']:.1f}, "
          f"of which INSERT/UPDATE/DELETE: {result['writes']:.2f} (the blocks holding day 0 included)")


if __name__ == "__main__":
    main()
