"""Topic tables' settings and budget: bad table settings named by file and key, split_table is sleep-tier work."""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidator.core.config import ConfigError, load_settings
from consolidator.cost.budget import BudgetedModel, Tier
from consolidator.model.offline import OfflineModel


@pytest.mark.parametrize(("toml", "says"), [
    ("[facts]\ntable_max = 10\ntable_min = 6\n", "table_min (6) must be at most half of table_max (10)"),
    ('[facts]\ntables = [{ name = "work" }, { name = "Work" }]\n', "two tables share a name"),
    ("[facts]\ntables = []\n", "tables"),
    ('[facts]\ntables = [{ name = "work", colour = "red" }]\n', "colour"),
    ('[facts]\ntables = [{ name = "work\\nand play" }]\n', "tables"),  # a line break would split its heading
])
def test_bad_table_settings_are_one_line_naming_the_file_and_key(tmp_path: Path, toml: str, says: str) -> None:
    """Each bad table setting is a ConfigError naming the file, the [facts] key and what is wrong."""
    path = tmp_path / "config.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(path, env={}, cwd=tmp_path)
    message = str(caught.value)
    assert str(path) in message and "facts" in message and says in message and "\n" not in message.strip()


def test_replaced_tables_and_limits_are_read(tmp_path: Path) -> None:
    """Config replaces the default set and the limits."""
    path = tmp_path / "config.toml"
    path.write_text('[facts]\ntable_max = 12\ntable_min = 2\ntables = [{ name = "work", description = "jobs" }, '
                    '{ name = "play" }]\n', encoding="utf-8")
    facts = load_settings(path, env={}, cwd=tmp_path).facts
    assert [(t.name, t.description) for t in facts.tables] == [("work", "jobs"), ("play", "")]
    assert (facts.table_max, facts.table_min, facts.table_move_margin) == (12, 2, 0.1)


def test_split_table_is_sleep_tier_work() -> None:
    """Under the daily budget a split waits with the offline pass's other judgements, never with batch work."""
    model = BudgetedModel(OfflineModel(), gate=None, base_rungs={"time": "day"})
    assert model.tier_of("split_table", None) == Tier.SLEEP and model.tier_of("judge_cluster", None) == Tier.SLEEP
