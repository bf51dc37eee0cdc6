"""facts.json and the fact commands: facts, facts history, pin, mark-used, restore."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from consolidator.facts.publish import publish_facts
from consolidator.model.offline import OfflineModel
from consolidator.snapshots.stage import SnapshotStage
from consolidator.facts.sleep import SleepStage
from stores.engine import reading
from stores.schema.memory import FactUse
from tests.support.facts_kit import NOW, SEED_BATCH, T0, angle, facts_of, later, machine, maya, put, say  # noqa: F401  (fixture)


def seeded(app):
    at = T0 + timedelta(days=30)
    consolidator, _ = machine(app)
    say(app, "maya", at, SEED_BATCH)
    consolidator.drain(later(at))
    return {f.text: f for f in facts_of(app, current=False)}


def test_facts_json_holds_current_facts_ranked_by_score(maya):
    """facts.json: current facts only, best score first, with the documented keys; London is gone."""
    app = maya
    seeded(app)
    now = T0 + timedelta(days=31)
    publish_facts(app, "maya", now)
    payload = json.loads((app.settings.snapshot_dir / "maya" / "facts.json").read_text())
    assert payload["scope"] == "maya" and payload["generated_at"] == now.isoformat()
    items = payload["facts"]
    assert "Maya lives in London." not in [f["text"] for f in items]
    assert "Maya lives in Paris." in [f["text"] for f in items]
    assert [f["score"] for f in items] == sorted((f["score"] for f in items), reverse=True)
    assert items[0]["text"] == "Maya has a serious peanut allergy."  # pinned, importance 10
    assert set(items[0]) == {"id", "text", "score", "importance", "strength", "pinned", "topic", "valid_from",
                             "last_used", "sources", "table", "kind", "rests_on"}
    assert all(isinstance(f["table"], str) and f["table"] for f in items)  # every fact in a topic table
    assert {f["kind"] for f in items} == {"fact"} and all(f["rests_on"] == [] for f in items)


def test_the_snapshot_stage_republishes_facts_after_a_step(maya):
    """A fact step bumps the facts view, so the snapshot stage writes facts.json on the same tick."""
    app = maya
    consolidator, _ = machine(app)
    consolidator.stages.append(SnapshotStage(app, {"facts": publish_facts}))
    at = T0 + timedelta(days=3)
    say(app, "maya", at, ["Maya adopted a cat named Miso."])
    consolidator.drain(later(at))
    payload = json.loads((app.settings.snapshot_dir / "maya" / "facts.json").read_text())
    assert "Maya adopted a cat named Miso." in [f["text"] for f in payload["facts"]]


def test_facts_command_lists_current_and_all(maya, run_cli):
    """`facts` ranks current facts; `--all` adds closed ones with their end reason; --json parses."""
    by_text = seeded(maya)
    out = run_cli("facts", "--scope", "maya")
    assert out.exit_code == 0 and "Maya lives in Paris." in out.output and "London" not in out.output
    out = run_cli("facts", "--scope", "maya", "--all")
    london = by_text["Maya lives in London."]
    assert f"{london.id}  [updated -> {london.superseded_by}" in out.output
    items = json.loads(run_cli("facts", "--scope", "maya", "--json").output)
    assert {i["text"] for i in items} == {f.text for f in facts_of(maya)}


def test_facts_history_subcommand_shows_the_chain(maya, run_cli):
    """`facts history` gives London then Paris, from either end of the chain; unknown ids exit 2."""
    by_text = seeded(maya)
    out = run_cli("facts", "history", "--scope", "maya", by_text["Maya lives in London."].id)
    assert out.exit_code == 0
    assert [line.split("  ")[2] for line in out.output.splitlines()] == ["Maya lives in London.",
                                                                         "Maya lives in Paris."]
    missing = run_cli("history", "--scope", "maya", "f_0000000000000000")
    assert missing.exit_code == 2 and "f_0000000000000000" in missing.stderr


def test_pin_and_mark_used_commands(app, run_cli):
    """`pin` then `pin --unpin` flip the flag; `mark-used` queues one use per id; a bad id exits 2."""
    fid = put(app, "Maya plays chess.", angle(0))
    assert run_cli("pin", "--scope", "maya", fid).exit_code == 0
    assert facts_of(app)[0].pinned
    assert run_cli("pin", "--scope", "maya", "--unpin", fid).exit_code == 0
    assert not facts_of(app)[0].pinned
    bad = run_cli("pin", "--scope", "maya", "f_missing")
    assert bad.exit_code == 2 and "f_missing" in bad.stderr
    out = run_cli("mark-used", "--scope", "maya", fid, fid)
    assert out.exit_code == 0 and "queued 1 use" in out.output  # one use per fact a call names
    with reading(app.engine) as session:
        assert len(session.execute(select(FactUse)).all()) == 1


def test_restore_command(app, run_cli):
    """`restore` brings back a fact dropped recently; past the grace, unknown or live ids exit 2 naming the id."""
    real_now = datetime.now(timezone.utc)
    old = put(app, "Maya had soup.", angle(90), importance=1, last_used=NOW - timedelta(days=365))
    SleepStage(app, OfflineModel()).run_scope("maya", NOW)  # dropped in 2025: long past the 30-day grace
    live = put(app, "Maya plays chess.", angle(0), last_used=real_now)
    recent = put(app, "Maya had tea.", angle(180), importance=1, last_used=real_now - timedelta(days=365))
    SleepStage(app, OfflineModel()).run_scope("maya", real_now)
    assert [f.text for f in facts_of(app)] == ["Maya plays chess."]
    out = run_cli("restore", "--scope", "maya", recent)
    assert out.exit_code == 0 and sorted(f.text for f in facts_of(app)) == ["Maya had tea.", "Maya plays chess."]
    out = run_cli("restore", "--scope", "maya", old)
    assert out.exit_code == 2 and old in out.stderr and "grace" in out.stderr
    for bad in (live, "f_nope"):
        out = run_cli("restore", "--scope", "maya", bad)
        assert out.exit_code == 2 and bad in out.stderr
