"""PostgreSQL, two daemons on one scope (a claim that expired): the facts step places a new fact
while an offline pass is committing a restructure that drops the table it would pick. The placer
reads the registry under the scope's fact lock (the one the pass commits under), so the new fact
lands in a table that exists after both commit, never in the one just dropped."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import numpy as np
import pytest
from sqlalchemy import text

from consolidator.core.config import FactSettings, TableSpec
from consolidator.facts.tables import TablePlacer
from stores.engine import make_engine, reading, transaction
from stores.fact_tables import add_table, drop_tables, tables_of
from stores.facts import current_facts, norm_hash, state_of, to_bytes
from stores.schema.memory import Fact
from tests.support.facts_kit import TableEmbedder, unit
from tests.support.postgres_kit import pg_url  # noqa: F401  (a fixture)

T0 = datetime(2025, 5, 1, 10, 0, tzinfo=timezone.utc)
SPECS = {"a": TableSpec(name="a", description="alpha"), "b": TableSpec(name="b", description="beta")}
LABELS = {"a: alpha": unit(1, 0, 0), "b: beta": unit(0.6, 1, 0), "fact new": unit(1, 0, 0)}


def row(fid: str, vec: np.ndarray) -> Fact:
    return Fact(id=fid, scope="s", text=f"fact {fid}", norm_hash=norm_hash(f"fact {fid}"), embedding=to_bytes(vec),
                importance=3, last_used=T0, created_at=T0, updated_at=T0, valid_from=T0, sources=[], source_roles=[])


def waiting_on_a_lock(engine) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                      "AND wait_event_type = 'Lock'")).scalar_one())


@pytest.mark.parametrize("defaults, lands", [("ab", "a"), ("b", "b")])
def test_a_fact_placed_while_a_pass_drops_its_table_lands_in_a_table_that_exists(pg_url, defaults, lands):  # noqa: F811
    """a dropped by the pass: made again for the fact when a is a default table (a new row, after
    the pass's commit), else the fact goes to the nearest table left, b."""
    cfg = FactSettings(tables=[SPECS[name] for name in defaults], table_max=4, table_min=2)
    engine = make_engine(pg_url)
    try:
        with transaction(engine) as session:
            add_table(session, "s", "a", "alpha", T0, vector=to_bytes(unit(1, 0, 0)))
            add_table(session, "s", "b", "beta", T0, vector=to_bytes(unit(0.6, 1, 0)))
            state_of(session, "s")
        placer, placed = TablePlacer(TableEmbedder(LABELS), cfg), threading.Event()

        def facts_step() -> None:
            with transaction(engine) as session:
                new = row("new", unit(1, 0, 0))  # nearest to a (the embedder answers its text so)
                session.add(new)
                placer.place(session, "s", [new], T0)
            placed.set()

        with transaction(engine) as session:  # the offline pass: its guarded transaction drops a
            state_of(session, "s", lock=True)
            drop_tables(session, "s", {"a"})
            step = threading.Thread(target=facts_step)
            step.start()
            for _ in range(500):  # until the step has placed, or waits on the pass's lock
                if placed.wait(0.01) or waiting_on_a_lock(engine):
                    break
        step.join(timeout=30)
        with reading(engine) as session:
            tables = {t.name for t in tables_of(session, "s")}
            [fact] = current_facts(session, "s")
        assert tables == {lands, "b"} and fact.fact_table == lands, (fact.fact_table, tables)
    finally:
        engine.dispose()
