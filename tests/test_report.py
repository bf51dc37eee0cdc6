"""`consolidator report`: what the main job made, per scope, read back from the stores."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from consolidator.core.app import open_app
from consolidator.core.config import Settings
from stores.contacts import contacts_of
from stores.engine import reading
from stores.facts import current_facts
from stores.history import History
from stores.tasks import open_tasks


@pytest.mark.slow
def test_report_matches_the_stores_after_the_main_job(run_cli, state_dir: Path) -> None:
    """After sample | import | run --once, the report's figures are the stores' and its text names context.md."""
    run_cli("import", "-", input=run_cli("sample", "--scope", "demo", "--days", "30").output)
    assert run_cli("run", "--once").exit_code == 0
    report = json.loads(run_cli("report", "--json").output)
    demo = report["scopes"]["demo"]
    app = open_app(Settings(state_dir=state_dir))
    with reading(app.engine) as session:
        facts, contacts, tasks = current_facts(session, "demo"), contacts_of(session, "demo"), open_tasks(session, "demo")
        history = History(app.settings.archive_dir)  # the sample's old windows may be archived by the run
        written = {(ladder, rung): len({s.key for s in history.newest_versions(session, "demo", ladder, rung)
                                        if s.kind != "empty"})
                   for ladder, rungs in (("time", app.settings.ladders.time), ("count", map(str, app.settings.ladders.count)))
                   for rung in rungs}
    app.close()
    assert demo["facts"]["current"] == len(facts) > 0
    best = [item["text"] for item in json.loads(run_cli("facts", "--scope", "demo", "--json").output)[:3]]
    assert demo["facts"]["best"] == best
    assert demo["contacts"]["count"] == len(contacts) > 0 and set(demo["contacts"]["names"]) <= {c.name for c in contacts}
    assert demo["tasks"]["open"] == len(tasks)
    assert {(ladder, rung): n for ladder, rungs in demo["summaries"].items() for rung, n in rungs.items()} == written
    context = Path(demo["context"]["path"])
    assert context == state_dir / "snapshots" / "demo" / "context.md" and context.is_file()
    assert 0 < demo["context"]["tokens"] <= 1500
    assert report["state_dir"] == str(state_dir) and report["database"].endswith("consolidator.db")

    text = run_cli("report").output
    assert f"context.md: {context}" in text
    assert all(f"- {fact}" in text for fact in best)
    assert "timeline: consolidator timeline --scope demo" in text


def test_report_of_an_unknown_scope_exits_2_and_an_empty_state_says_so(run_cli) -> None:
    """--scope naming no logged scope is refused (exit 2, naming it); with nothing logged, the report says so."""
    assert run_cli("report").output.splitlines()[-1] == "no messages logged yet"
    result = run_cli("report", "--scope", "nobody")
    assert result.exit_code == 2 and "'nobody'" in result.stderr
