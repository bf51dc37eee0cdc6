"""Contract: the topic tables' store (registry, slugs, sizes, the move record), whatever the database."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from stores.engine import reading, transaction
from stores.fact_tables import Moved, add_table, drop_tables, moves_of, record_moves, slugify, table_sizes, tables_of
from stores.facts import norm_hash, to_bytes
from stores.schema.memory import Fact

T0 = datetime(2025, 5, 1, 10, 0, tzinfo=timezone.utc)


def fact(fid: str, table: str | None, scope: str = "s") -> Fact:
    return Fact(id=fid, scope=scope, text=f"fact {fid}", norm_hash=norm_hash(f"fact {fid}"),
                embedding=to_bytes(np.ones(3)), importance=3, last_used=T0, created_at=T0, updated_at=T0,
                valid_from=T0, sources=[], source_roles=[], fact_table=table)


def test_tables_round_trip_with_unique_slugs_per_scope(engine) -> None:
    """Tables come back oldest first with their description and vector; a clashing slug gets a number; scopes are apart."""
    with transaction(engine) as session:
        add_table(session, "s", "work and study", "jobs", T0, vector=to_bytes(np.array([1.0, 0.0])))
        add_table(session, "s", "Work & Study", "", T0 + timedelta(seconds=1))
        add_table(session, "s", "index", "", T0 + timedelta(seconds=2))
        add_table(session, "other", "work and study", "", T0)
    with reading(engine) as session:
        rows = tables_of(session, "s")
        assert [(t.name, t.slug) for t in rows] == [("work and study", "work-and-study"),
                                                      ("Work & Study", "work-study"), ("index", "index-2")]
        assert rows[0].description == "jobs" and np.frombuffer(rows[0].vector, np.float32).tolist() == [1.0, 0.0]
        assert rows[0].updated_at == T0
        assert [t.slug for t in tables_of(session, "other")] == ["work-and-study"]
    assert slugify("  Plans, commitments!! ") == "plans-commitments" and slugify("!!!") == "table"


def test_drop_sizes_and_moves(engine) -> None:
    """Dropped tables leave only their scope's registry; sizes count current facts; moves come back newest first."""
    with transaction(engine) as session:
        for name in ("a", "b", "c"):
            add_table(session, "s", name, "", T0)
        session.add_all([fact("f1", "a"), fact("f2", "a"), fact("f3", "b"), fact("f4", None), fact("g1", "a", "t")])
    with transaction(engine) as session:
        drop_tables(session, "s", ["c", "missing"])
        assert record_moves(session, "s", [Moved("f1", "a", "b", "move", "closer to b"),
                                           Moved("f2", None, "b", "split", "a had 41 facts")], T0) == 2
    with reading(engine) as session:
        assert [t.name for t in tables_of(session, "s")] == ["a", "b"]
        assert table_sizes(session, "s") == {"a": 2, "b": 1, None: 1}
        moves = moves_of(session, "s")
        assert [(m.fact_id, m.from_table, m.to_table, m.kind, m.why) for m in moves] == [
            ("f2", None, "b", "split", "a had 41 facts"), ("f1", "a", "b", "move", "closer to b")]
        assert moves[0].at == T0 and moves_of(session, "t") == []


def test_a_database_without_the_column_gains_it_and_owes_every_scope_a_pass(engine) -> None:
    """An older database (no fact.fact_table) gains the column on open; its facts read as unplaced, its scopes as unslept."""
    from stores.facts import state_of, touch, unslept_states
    from stores.migrations import create_schema

    with transaction(engine) as session:
        session.add(fact("f1", None))
        touch(session, "s")
        state = state_of(session, "s")
        state.slept_revision = state.revision
    with reading(engine) as session:
        assert unslept_states(session) == []
    with engine.begin() as connection:  # as an older version made it
        connection.exec_driver_sql("ALTER TABLE fact DROP COLUMN fact_table")
    create_schema(engine)
    create_schema(engine)  # a second open finds nothing to do
    with reading(engine) as session:
        assert table_sizes(session, "s") == {None: 1}
        assert [s.scope for s in unslept_states(session)] == ["s"]


def test_a_restructure_plan_is_written_whole(engine) -> None:
    """write_plan: facts refiled, a split table replaced by its parts (a part keeping its name), moves recorded."""
    from consolidator.facts.tables import TablePlan, write_plan

    with transaction(engine) as session:
        add_table(session, "s", "big", "", T0)
        add_table(session, "s", "small", "", T0)
        session.add_all([fact("f1", "big"), fact("f2", "big"), fact("f3", "small")])
    later = T0 + timedelta(hours=1)
    vec = np.array([1.0, 0.0], np.float32)
    plan = TablePlan(tables={"big": ("first half", vec), "big 2": ("second half", vec), "small": ("", vec)},
                     assigned={"f2": "big 2"}, moves=[Moved("f2", "big", "big 2", "split", "big had 2 facts")],
                     touched={"big", "big 2"})
    with transaction(engine) as session:
        write_plan(session, "s", plan, later)
    with reading(engine) as session:
        rows = {t.name: t for t in tables_of(session, "s")}
        assert table_sizes(session, "s") == {"big": 1, "big 2": 1, "small": 1}
        assert rows["big"].description == "first half" and rows["big"].updated_at == later
        assert rows["small"].updated_at == T0 and rows["big 2"].slug == "big-2"
        assert [(m.fact_id, m.to_table) for m in moves_of(session, "s")] == [("f2", "big 2")]
    with transaction(engine) as session:  # a later plan without "small": its row goes
        write_plan(session, "s", TablePlan(tables={"big": ("", vec), "big 2": ("", vec)}, assigned={"f3": "big"}), later)
    with reading(engine) as session:
        assert sorted(t.name for t in tables_of(session, "s")) == ["big", "big 2"]
        assert table_sizes(session, "s") == {"big": 2, "big 2": 1}
