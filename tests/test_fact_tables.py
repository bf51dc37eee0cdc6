"""Topic tables on small hand-written histories: placement, a move, a merge, a split, the record of each."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import numpy as np
import pytest

from consolidator.core.config import FactSettings, Settings, TableSpec
from consolidator.facts.sleep import SleepStage
from consolidator.facts.tables import Survivor, TablePlacer, TablePlanner, usable_parts
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import SplitTableReply, TablePart
from stores.engine import reading, transaction
from stores.fact_tables import moves_of, table_sizes, tables_of
from stores.facts import current_facts
from tests.support.facts_kit import NOW, TableEmbedder, put as put_fact, unit

LABELS = {"a: alpha": unit(1, 0, 0), "b: beta": unit(0, 1, 0), "c: gamma": unit(0, 0, 1), "d: delta": unit(0, 1, 0.3)}
TABLES = [TableSpec(name="a", description="alpha"), TableSpec(name="b", description="beta"),
          TableSpec(name="c", description="gamma")]
CFG = FactSettings(tables=TABLES, table_max=4, table_min=2, table_move_margin=0.1)


# fact text -> the topic vector the embedder answers for it in these tests (facts.tables.topic_vectors)
VECTORS: dict[str, np.ndarray] = {}


@pytest.fixture(autouse=True)
def _fresh_vectors():
    VECTORS.clear()


def embedder() -> TableEmbedder:
    return TableEmbedder({**LABELS, **VECTORS})


def fact(fid: str, vec: np.ndarray, table: str | None) -> Survivor:
    VECTORS[f"text of {fid}"] = vec
    return Survivor(fid, f"text of {fid}", table)


def put(app, text: str, vec: np.ndarray) -> str:
    VECTORS[text] = vec
    return put_fact(app, text, vec)


class Splitter(OfflineModel):
    """Answers split_table with `reply(request)` (default: the offline clustering), counting the calls."""

    def __init__(self, reply=None) -> None:
        super().__init__()
        self.calls, self.reply = [], reply

    def split_table(self, request):
        self.calls.append(request)
        return self.reply(request) if self.reply else super().split_table(request)


def planner(model=None, cfg=CFG) -> TablePlanner:
    return TablePlanner(embedder(), model or Splitter(), cfg)


REGISTRY = [("a", "alpha"), ("b", "beta"), ("c", "gamma")]


def test_facts_without_a_table_go_to_the_nearest_and_a_small_made_table_merges():
    """A pass places each fact by similarity; d (a table a split made) with one fact merges into its
    nearest; c, a default table, keeps its one fact: a topic a reader looks for, however small."""
    facts = [fact("x1", unit(1, 0.1, 0), None), fact("x2", unit(1, 0, 0.1), None), fact("y1", unit(0, 1, 0), None),
             fact("y2", unit(0.1, 1, 0), None), fact("z1", unit(0, 0.2, 1), None), fact("w1", unit(0, 1, 0.3), "d")]
    plan = planner().plan("maya", facts, REGISTRY + [("d", "delta")])
    assert plan.assigned == {"x1": "a", "x2": "a", "y1": "b", "y2": "b", "z1": "c", "w1": "b"}
    assert set(plan.tables) == {"a", "b", "c"} and plan.merged == 1 and plan.placed == 5
    assert [(m.fact_id, m.from_table, m.to_table, m.kind) for m in plan.moves] == [("w1", "d", "b", "merge")]
    assert plan.dropped == {"d"}


def test_an_empty_default_table_is_dropped_and_made_again_when_a_fact_fits_it():
    """None empty after a pass; a default table the scope lost is still there to be chosen."""
    first = planner().plan("maya", [fact("x1", unit(1, 0, 0), None), fact("x2", unit(1, 0.1, 0), None)], [])
    assert set(first.tables) == {"a"} and first.dropped == set()
    later = [fact("x1", unit(1, 0, 0), "a"), fact("x2", unit(1, 0.1, 0), "a"), fact("z1", unit(0, 0, 1), None)]
    plan = planner().plan("maya", later, [("a", "alpha")])
    assert plan.assigned == {"z1": "c"} and set(plan.tables) == {"a", "c"} and "c" in plan.touched


def test_a_default_table_is_not_offered_again_when_a_table_has_its_name_or_a_split_retired_it():
    """"C" holds the gamma facts: "c" (case folded, the same name) is not made beside it; "c" split
    into "c parts" earlier (retired): its facts live on in the parts, it is not made again."""
    alike = [fact("z1", unit(0, 0, 1), "C"), fact("z2", unit(0, 0.1, 1), None), fact("x1", unit(1, 0, 0), "a")]
    plan = planner().plan("maya", alike, [("a", "alpha"), ("C", "gamma facts")])
    assert plan.assigned == {"z2": "C"} and set(plan.tables) == {"a", "C"}
    split = [fact("z1", unit(0, 0, 1), "c parts"), fact("z2", unit(0, 0.1, 1), None), fact("x1", unit(1, 0, 0), "a")]
    plan = planner().plan("maya", split, [("a", "alpha"), ("c parts", "gamma facts")], retired={"c"})
    assert plan.assigned == {"z2": "c parts"} and set(plan.tables) == {"a", "c parts"}
    # control, not retired: c is made again for z2 and then draws z1 back out of the part
    plan = planner().plan("maya", split, [("a", "alpha"), ("c parts", "gamma facts")])
    assert plan.assigned == {"z1": "c", "z2": "c"}


def test_a_fact_moves_only_when_another_table_fits_better_by_the_margin():
    """x3 sits far nearer b than a: it moves (recorded with why); x2, barely nearer b, stays in a."""
    facts = [fact("x1", unit(1, 0, 0), "a"), fact("x2", unit(1, 1.05, 0), "a"), fact("x3", unit(0.1, 1, 0), "a"),
             fact("x4", unit(1, 0.1, 0), "a"), fact("y1", unit(0, 1, 0), "b"), fact("y2", unit(0, 1, 0.1), "b")]
    plan = planner().plan("maya", facts, REGISTRY[:2])
    assert plan.assigned == {"x3": "b"} and plan.moved == 1
    [move] = plan.moves
    assert (move.fact_id, move.from_table, move.to_table, move.kind) == ("x3", "a", "b", "move")
    assert "similarity" in move.why and plan.touched == {"a", "b"}


def test_a_table_over_table_max_is_split_with_one_call():
    """Nine facts in a (max 4): one split_table call; every fact in exactly one table, none over max, none empty."""
    directions = [unit(1, 0, 0, 1), unit(1, 0, 0, 0, 1), unit(1, 0, 0, 0, 0, 1)]
    facts = [fact(f"x{i}", directions[i % 3] + 0.01 * i * unit(0, 0, 0, 0, 0, 0, 1), "a") for i in range(9)]
    facts += [fact("y1", unit(0, 1, 0), "b"), fact("y2", unit(0, 1, 0.1), "b")]
    model = Splitter()
    plan = planner(model).plan("maya", facts, REGISTRY[:2])
    assert len(model.calls) == 1 and model.calls[0].parts == 3 and model.calls[0].max_facts == 4
    assert plan.splits == 1 and plan.calls == 1 and "a" not in plan.tables
    final = {f.id: plan.assigned.get(f.id, f.fact_table) for f in facts}
    sizes = {t: list(final.values()).count(t) for t in plan.tables}
    assert all(2 <= n <= 4 for n in sizes.values()), sizes
    assert sorted(final) == sorted(f.id for f in facts)
    assert {m.kind for m in plan.moves} == {"split"} and len(plan.moves) == 9


def test_a_reflection_counts_in_the_table_most_of_its_sources_are_in():
    """Four facts in a (max 4) is full, not over: no split. A reflection resting on three of them
    will live in a (reflect.home): a then holds five, so the pass splits it, and after the pass no
    table holds more than four, the reflection counted where most of its sources landed."""
    directions = [unit(1, 0, 0, 1), unit(1, 0, 0, 0, 1)]
    facts = [fact(f"x{i}", directions[i % 2] + 0.01 * i * unit(0, 0, 0, 0, 0, 1), "a") for i in range(4)]
    facts += [fact("y1", unit(0, 1, 0), "b"), fact("y2", unit(0, 1, 0.1), "b")]
    assert planner().plan("maya", facts, REGISTRY[:2]).splits == 0
    riders = [["x0", "x2", "x1"]]
    model = Splitter()
    plan = planner(model).plan("maya", facts, REGISTRY[:2], riders=riders)
    assert plan.splits == 1 and len(model.calls) == 1 and "a" not in plan.tables
    final = {f.id: plan.assigned.get(f.id, f.fact_table) for f in facts}
    sizes = {t: list(final.values()).count(t) for t in plan.tables}
    home = Counter(final[i] for i in riders[0]).most_common(1)[0][0]
    sizes[home] += 1
    assert all(2 <= n <= 4 for n in sizes.values()), sizes


def test_a_reply_that_repeats_or_forgets_facts_still_leaves_each_in_one_table():
    """A fact listed twice stays in its first part, a forgotten one joins its nearest part, an unknown id is ignored."""
    vectors = np.stack([unit(1, 0), unit(1, 0.1), unit(0, 1), unit(0.1, 1), unit(0.05, 1)])
    reply = SplitTableReply(tables=[TablePart(name="left", facts=["f0", "f1", "f2", "nope"]),
                                    TablePart(name="right", facts=["f2", "f3"])])
    parts = usable_parts(reply, [f"f{i}" for i in range(5)], vectors, 2)
    assert parts == [("left", "", [0, 1, 2]), ("right", "", [3, 4])]
    one = SplitTableReply(tables=[TablePart(name="all", facts=[f"f{i}" for i in range(5)])])
    assert usable_parts(one, [f"f{i}" for i in range(5)], vectors, 2) is None


def test_a_useless_reply_falls_back_to_the_offline_clustering_without_a_second_call():
    """One part back: the offline clustering splits the table, still one call."""
    facts = [fact(f"x{i}", unit(1, i % 2, 0, 0.01 * i), "a") for i in range(6)]
    model = Splitter(lambda r: SplitTableReply(tables=[TablePart(name="same", facts=[f.id for f in r.facts])]))
    plan = planner(model, FactSettings(tables=TABLES, table_max=5, table_min=2)).plan("maya", facts, REGISTRY[:1])
    assert len(model.calls) == 1 and len(plan.tables) >= 2


# --- through the offline pass, on a database ------------------------------------------------


@pytest.fixture
def settings(state_dir) -> Settings:
    return Settings(state_dir=state_dir, facts=CFG)


@pytest.fixture
def tabled(app):
    return app


def stage(app, model=None) -> SleepStage:
    return SleepStage(app, model or Splitter(), embedder())


def tables_now(app) -> dict[str, str]:
    with reading(app.engine) as session:
        return {f.text: f.fact_table for f in current_facts(session, "maya")}


def test_the_pass_writes_tables_and_records_and_a_second_pass_changes_nothing(tabled):
    """Placed and split facts are written with their registry and moves; the next pass is a no-op."""
    for i in range(6):
        put(tabled, f"Maya paints {i}", unit(1, 0.05 * i, 0, 0.3 * (i % 2)))
    put(tabled, "Maya runs", unit(0, 1, 0))
    put(tabled, "Maya swims", unit(0, 1, 0.1))
    put(tabled, "Maya sleeps", unit(0, 0.8, 1))
    report = stage(tabled).run_scope("maya", NOW)
    assert report.changed and report.tables.splits == 1
    placed = tables_now(tabled)
    assert None not in placed.values()
    with reading(tabled.engine) as session:
        sizes = table_sizes(session, "maya")
        registry = {t.name for t in tables_of(session, "maya")}
        kinds = {m.kind for m in moves_of(session, "maya")}
    assert set(sizes) == registry and all(2 <= n <= 4 for name, n in sizes.items() if name != "c"), sizes
    assert {placed["Maya runs"], placed["Maya swims"]} == {"b"}
    assert placed["Maya sleeps"] == "c" and sizes["c"] == 1  # a default table keeps its one fact
    assert kinds == {"split"}
    put(tabled, "Maya jogs", unit(0, 1, 0.05))
    again = stage(tabled).run_scope("maya", NOW + timedelta(hours=1))
    assert not again.tables.moves and tables_now(tabled)["Maya jogs"] == "b"


def test_a_new_fact_is_placed_when_the_step_adds_it(tabled):
    """The facts step's placer seeds the default tables and files each new row under its nearest table."""
    put(tabled, "Maya runs", unit(0, 1, 0))
    with transaction(tabled.engine) as session:
        rows = current_facts(session, "maya")
        TablePlacer(embedder(), CFG).place(session, "maya", rows, NOW)
    assert tables_now(tabled) == {"Maya runs": "b"}
    with reading(tabled.engine) as session:
        assert [t.name for t in tables_of(session, "maya")] == ["a", "b", "c"]


def test_the_offline_split_names_parts_by_distinctive_words_and_is_deterministic():
    """Two topics in one table: two parts within the limits, each named by its rare shared words, the same every time."""
    from consolidator.model.offline.tables import split_table
    from consolidator.model.schemas import KnownFact, SplitTableRequest

    texts = ["Ana paints watercolour landscapes.", "Ana sells watercolour paintings.", "Ana teaches watercolour classes.",
             "Ana bakes sourdough bread.", "Ana sells sourdough loaves.", "Ana shares sourdough starter."]
    request = SplitTableRequest(scope="s", table="hobbies", description="pastimes", parts=2, min_facts=2, max_facts=4,
                                facts=[KnownFact(id=f"f{i}", text=t) for i, t in enumerate(texts)])
    reply = split_table(request)
    assert reply == split_table(request)
    assert sorted(sorted(p.facts) for p in reply.tables) == [["f0", "f1", "f2"], ["f3", "f4", "f5"]]
    names = {p.name.split(",")[0] for p in reply.tables}
    assert names == {"watercolour", "sourdough"}, [p.name for p in reply.tables]


def test_a_split_part_is_not_named_by_what_its_facts_did():
    """"shared" is in every fact of one part, as rare there as "sourdough": a verb's past form
    names no table (it says what was done, not what the part is about)."""
    from consolidator.model.offline.tables import split_table
    from consolidator.model.schemas import KnownFact, SplitTableRequest

    texts = ["Ana shared her watercolour landscapes.", "Ana shared watercolour paintings.",
             "Ana shared watercolour classes.", "Ana bakes sourdough bread.", "Ana sells sourdough loaves.",
             "Ana keeps sourdough starter."]
    request = SplitTableRequest(scope="s", table="hobbies", description="pastimes", parts=2, min_facts=2, max_facts=4,
                                facts=[KnownFact(id=f"f{i}", text=t) for i, t in enumerate(texts)])
    names = [p.name for p in split_table(request).tables]
    assert not any("shared" in n for n in names) and any(n.startswith("watercolour") for n in names), names


def test_a_fact_whose_table_is_gone_is_placed_again_and_recorded():
    """A restored fact naming a dropped table goes to its nearest table; the move says why."""
    facts = [fact("x1", unit(1, 0, 0), "a"), fact("x2", unit(1, 0.1, 0), "a"), fact("x3", unit(1, 0, 0.1), "a"),
             fact("r1", unit(0.9, 0.1, 0), "dropped long ago")]
    plan = planner().plan("maya", facts, REGISTRY[:1])
    assert plan.assigned == {"r1": "a"} and plan.placed == 1
    assert [(m.fact_id, m.from_table, m.to_table, m.why) for m in plan.moves] == [
        ("r1", "dropped long ago", "a", "its table is gone")]


def test_a_model_that_cannot_split_falls_back_and_a_deferred_split_defers_the_pass():
    """A ModelError from split_table: the offline clustering splits instead; a Deferred propagates (nothing planned)."""
    from consolidator.model.base import BudgetExceeded, ModelError

    facts = [fact(f"x{i}", unit(1, i % 2, 0, 0.01 * i), "a") for i in range(6)]
    cfg = FactSettings(tables=TABLES, table_max=5, table_min=2)

    def broken(request):
        raise ModelError("invalid reply twice")

    plan = planner(Splitter(broken), cfg).plan("maya", facts, REGISTRY[:1])
    assert plan.splits == 1 and len(plan.tables) >= 2 and "a" not in plan.tables

    def closed(request):
        raise BudgetExceeded(tier="sleep")

    with pytest.raises(BudgetExceeded):
        planner(Splitter(closed), cfg).plan("maya", facts, REGISTRY[:1])
