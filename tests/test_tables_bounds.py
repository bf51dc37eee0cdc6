"""Topic table names stay within their columns (VARCHAR(64): PostgreSQL refuses longer) on every path,
the last-resort split included."""

from __future__ import annotations

from consolidator.core.config import FactSettings, TableSpec
from consolidator.facts import tables as tables_module
from consolidator.facts.tables import Survivor, TablePlanner
from consolidator.model.offline import OfflineModel
from consolidator.model.schemas import SplitTableReply, TablePart
from stores.fact_tables import NAME_MAX
from tests.support.facts_kit import TableEmbedder

LONG = "n" * NAME_MAX  # the longest name config allows


class OnePart(OfflineModel):
    def split_table(self, request):
        return SplitTableReply(tables=[TablePart(name="all", facts=[f.id for f in request.facts])])


def test_the_last_resort_split_of_a_table_with_the_longest_name_names_its_parts_within_the_column(monkeypatch):
    """Neither the model nor the offline clustering gives two parts: the runs cut in order are named
    '<name> 1', '<name> 2' - cut to fit, so every fact's table is one the registry can hold."""
    monkeypatch.setattr(tables_module, "offline_split", lambda request: SplitTableReply(tables=[]))
    cfg = FactSettings(tables=[TableSpec(name=LONG, description="long")], table_max=4, table_min=2)
    facts = [Survivor(f"x{i}", f"text {i}", LONG) for i in range(8)]
    plan = TablePlanner(TableEmbedder({}), OnePart(), cfg).plan("maya", facts, [(LONG, "long")])
    assert len(plan.tables) >= 2
    assert all(len(name) <= NAME_MAX for name in plan.tables), [len(n) for n in plan.tables]
    assert set(plan.assigned.values()) <= set(plan.tables)
    assert all(len(m.to_table) <= NAME_MAX for m in plan.moves)
