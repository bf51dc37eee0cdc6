"""Topic tables as the planner sees them: facts/index.json and a file per table, facts.json's
`table`, context.md grouped by table, `facts tables`, and recall asked for one table."""

from __future__ import annotations

import json
from datetime import timedelta

from consolidator import recall
from tests.support.recall_kit import T0, drain, log

CHAT = [
    "Maya: I took up pottery last month and I love the wheel.",
    "Omar: Nice! I started painting landscapes in watercolour.",
    "Maya: I work as a nurse at the city hospital, night shifts mostly.",
    "Omar: I'm a teacher at Hillside school, I teach maths.",
    "Maya: We moved to a flat in Lisbon near the river.",
    "Omar: I live in Porto with my sister Ana.",
    "Maya: My knee hurts since I sprained it running.",
    "Omar: I'm allergic to peanuts, so I avoid satay.",
    "Maya: Next summer I plan to hike the Camino with my brother.",
    "Omar: I'm going to run the Porto half-marathon in May.",
]
LATER = T0 + timedelta(days=1)


def published(settings, view: str):
    return json.loads((settings.snapshot_dir / "maya" / view).read_text(encoding="utf-8"))


def test_every_fact_is_in_one_published_table_and_context_groups_them(app, settings, run_cli) -> None:
    """index.json lists non-empty tables whose files hold exactly facts.json's facts; context.md heads each group."""
    log(app, "maya", CHAT)
    drain(app, LATER)
    facts = published(settings, "facts.json")["facts"]
    index = published(settings, "facts/index.json")["tables"]
    assert facts and index
    assert all(set(t) == {"name", "description", "size", "updated", "file"} and t["size"] >= 1 for t in index)
    names = {t["name"] for t in index}
    assert {f["table"] for f in facts} == names
    held = []
    for t in index:
        payload = published(settings, t["file"])
        assert payload["name"] == t["name"] and len(payload["facts"]) == t["size"]
        assert {f["table"] for f in payload["facts"]} == {t["name"]}
        held += [f["id"] for f in payload["facts"]]
    assert sorted(held) == sorted(f["id"] for f in facts)  # each fact in exactly one table
    context = (settings.snapshot_dir / "maya" / "context.md").read_text(encoding="utf-8")
    section = context.split("## Facts\n")[1].split("\n## ")[0].splitlines()
    heads = [line for line in section if line.startswith("- ") and line.endswith(":")]
    assert heads and {h[2:-1] for h in heads} <= names
    assert all(line.startswith("  - ") for line in section if line not in heads)
    cli = run_cli("facts", "tables", "--scope", "maya", "--json", "--moves", "5")
    assert cli.exit_code == 0, cli.output
    listed = json.loads(cli.stdout)
    assert [t["name"] for t in listed["tables"]] == [t["name"] for t in index] and "moves" in listed
    text = run_cli("facts", "tables", "--scope", "maya").stdout
    assert all(t["name"] in text for t in index)
    shown = run_cli("snapshot", "--scope", "maya", "facts/index")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["tables"] == index


def test_recall_asked_for_a_table_returns_only_that_tables_facts(app, settings, run_cli) -> None:
    """recall(table=...) keeps the facts of that table; an unknown table is a one-line error naming the tables."""
    log(app, "maya", CHAT)
    drain(app, LATER)
    facts = published(settings, "facts.json")["facts"]
    lisbon = next(f for f in facts if "Lisbon" in f["text"])
    out = run_cli("recall", "--scope", "maya", "--table", lisbon["table"], "--json", "--budget", "400", "Lisbon river")
    assert out.exit_code == 0, out.output
    items = json.loads(out.stdout)["items"]
    assert lisbon["id"] in {i["id"] for i in items}
    assert {i["id"] for i in items} <= {f["id"] for f in facts if f["table"] == lisbon["table"]}
    assert {i["kind"] for i in items} == {"fact"}
    api = recall("maya", "Lisbon river", config=settings, now=LATER, table=lisbon["table"].upper())  # case folded
    assert [i.id for i in api.items] == [i["id"] for i in items]
    bad = run_cli("recall", "--scope", "maya", "--table", "no such table", "Lisbon")
    assert bad.exit_code == 2 and "no table 'no such table'" in bad.stderr and lisbon["table"] in bad.stderr
