"""Topic tables at size: 200 facts restructured through the Anthropic path (one call per split),
and exactly-once under kill -9 in the middle of the restructure's transaction."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from consolidator.core.config import FactSettings, Settings
from consolidator.facts.sleep import SleepStage
from consolidator.model.anthropic_backend import AnthropicModel
from consolidator.model.embeddings import HashingEmbedder
from consolidator.model.offline import OfflineModel
from consolidator.model.recording import MemoryRecorder
from consolidator.model.settings import ModelSettings
from stores.engine import reading
from stores.fact_tables import moves_of, table_sizes, tables_of
from stores.facts import current_facts
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.facts_kit import NOW, put
from tests.support.model_responder import OfflineResponder

KEY = "sk-ant-api03-TEST-tables-0000"
PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Eli"]
THINGS = ["paints landscapes", "plays chess", "runs marathons", "bakes bread", "studies law", "works as a nurse",
          "lives in Lisbon", "visited Kyoto", "has a dog named Rex", "is allergic to nuts", "plans a trip to Peru",
          "goes camping", "reads mystery novels", "sings in a choir", "grows tomatoes", "fixes old bikes",
          "learns Spanish", "teaches yoga", "collects vinyl records", "volunteers at a shelter",
          "writes poetry", "swims at dawn", "builds model trains", "sketches birds", "knits scarves",
          "brews coffee", "climbs rocks", "hikes in the hills", "watches old films", "cooks curry",
          "adopted a cat", "moved to Oslo", "started a new job", "broke a wrist", "joined a band",
          "sold a car", "bought a house", "ran for council", "won a prize", "met an old friend"]
EMBEDDER = HashingEmbedder()
# 200 facts on 40 topics spread over the seven default tables (about 29 each): a limit of 20 makes
# the pass split several of them
FACTS = FactSettings(table_max=20, table_min=3)


@pytest.fixture
def settings(state_dir: Path) -> Settings:
    return Settings(state_dir=state_dir, facts=FACTS)


def store_200(app) -> None:
    for n in range(200):
        text = f"{PEOPLE[n % 5]} {THINGS[n // 5]}."
        put(app, text, EMBEDDER.embed([text])[0])


def state(app):
    with reading(app.engine) as session:
        facts = current_facts(session, "maya")
        return facts, table_sizes(session, "maya"), {t.name for t in tables_of(session, "maya")}, moves_of(session, "maya")


def test_200_facts_cost_at_most_one_call_per_split_and_every_fact_is_in_one_table(app) -> None:
    """Through the real SDK and the fake server: no table over table_max, none empty, one split_table call per split."""
    store_200(app)
    responder = OfflineResponder()
    recorder = MemoryRecorder()
    with FakeAnthropic(api_key=KEY, responder=responder) as fake:
        model = AnthropicModel(ModelSettings(provider="anthropic", base_url=fake.url, timeout_s=10, max_call_s=30),
                               recorder, api_key=KEY)
        try:
            report = SleepStage(app, model, EMBEDDER).run_scope("maya", NOW)
        finally:
            model.close()
    facts, sizes, registry, moves = state(app)
    cfg = app.settings.facts
    calls = [r for r in recorder.records if r.operation == "split_table"]
    assert report.tables.splits >= 1 and len(calls) == report.tables.calls <= report.tables.splits
    assert responder.operations.get("split_table", 0) == len(calls)
    assert len(facts) == 200 and all(f.fact_table in registry for f in facts)
    assert set(sizes) == registry and all(cfg.table_min <= n <= cfg.table_max for n in sizes.values()), sizes
    assert {m.fact_id for m in moves if m.kind == "split"} <= {f.id for f in facts}
    print(f"200 facts: {report.tables.splits} splits, {len(calls)} calls, {len(sizes)} tables, sizes {sorted(sizes.values())}")


KILLED_MID_WRITE = """
import os, signal, sys
from datetime import datetime
from pathlib import Path
from consolidator.core.app import open_app
from consolidator.core.config import FactSettings, Settings
from consolidator.facts import sleep
from consolidator.model.embeddings import HashingEmbedder
from consolidator.model.offline import OfflineModel

write = sleep.write_plan
def write_then_die(session, scope, plan, now):
    write(session, scope, plan, now)
    session.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # tables and moves written, transaction open
sleep.write_plan = write_then_die
app = open_app(Settings(state_dir=Path(sys.argv[1]), facts=FactSettings(table_max=20, table_min=3)))
sleep.SleepStage(app, OfflineModel(), HashingEmbedder()).run_scope("maya", datetime.fromisoformat(sys.argv[2]))
"""


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_restructure_killed_mid_write_leaves_nothing_and_the_next_pass_does_it_once(app, settings) -> None:
    """SIGKILL inside the pass's transaction: no fact moved, no table, no move recorded; the next pass does it whole."""
    store_200(app)
    child = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(settings.state_dir), NOW.isoformat()],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -9, child.stderr[-2000:]
    facts, sizes, registry, moves = state(app)
    assert sizes == {None: 200} and registry == set() and moves == []
    report = SleepStage(app, OfflineModel(), EMBEDDER).run_scope("maya", NOW + timedelta(minutes=1))
    assert report.changed and report.tables.splits >= 1
    facts, sizes, registry, moves = state(app)
    assert set(sizes) == registry and None not in sizes and sum(sizes.values()) == 200
    assert len({(m.fact_id, m.kind) for m in moves}) == len(moves)  # each fact recorded once per kind
    again = SleepStage(app, OfflineModel(), EMBEDDER).run_scope("maya", NOW + timedelta(minutes=2))
    assert again.tables.splits == 0 and again.tables.moved <= 10  # a few facts settle as the new tables' centroids do
    assert len(state(app)[3]) == len(moves) + again.tables.moved
