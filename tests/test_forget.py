"""forget: a scope erased from every table and its snapshots, another scope untouched; the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table, func, insert, select
from sqlmodel import SQLModel

from consolidator.core.app import App
from consolidator.runtime.forget import forget_scope
from consolidator.ladders.stage import LadderStage
from consolidator.model.offline import OfflineModel
from stores import lease
from stores.engine import reading
from stores.schema.ledger import Batch, StepRun
from tests.support.memory_kit import Memory


def scoped_tables() -> list[Table]:
    import stores.schema  # noqa: F401

    return [t for t in SQLModel.metadata.sorted_tables if "scope" in t.c]


def counts(app: App, scope: str) -> dict[str, int]:
    with reading(app.engine) as session:
        out = {t.name: session.execute(select(func.count()).select_from(t).where(t.c.scope == scope)).scalar_one()
               for t in scoped_tables()}
        out["step_run (via batch)"] = session.execute(
            select(func.count()).select_from(StepRun).join(Batch, Batch.id == StepRun.batch_id).where(Batch.scope == scope)
        ).scalar_one()
    return out


def snapshot_files(app: App, scope: str) -> dict[str, bytes]:
    root = app.settings.snapshot_dir / scope
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def two_scopes(app: App) -> Memory:
    """Two scopes with messages, batches, contacts, tasks, summaries and snapshots."""
    model = OfflineModel()
    memory = Memory(app, model, stages=[LadderStage(app, model)])
    for scope in ("maya", "omar"):
        memory.say(scope, "user: My friend Ana Lopez works at Google.", "user: Remind me to call Ana tomorrow.",
                   "tool: lookup done")
        memory.say(scope, "user: Ana now works at Meta.", "user: I called Ana.", "user: todo: buy milk")
    memory.clock += timedelta(days=3)
    memory.consolidator.drain(memory.clock)  # close the days: summaries and their snapshots
    path = app.settings.snapshot_dir / "maya" / "facts.json"
    path.write_text(json.dumps({"facts": [{"id": "f1", "text": "Maya is vegetarian."}]}))
    return memory


class TestForget:
    @pytest.mark.slow
    def test_erases_every_row_and_snapshot_of_the_scope_and_nothing_else(self, app: App, two_scopes) -> None:
        """Every table with a scope column loses the scope's rows, its snapshots go; the other scope is intact."""
        before_maya, before_omar = counts(app, "maya"), counts(app, "omar")
        omar_files = snapshot_files(app, "omar")
        populated = {name for name, n in before_maya.items() if n}
        assert {"message", "batch", "step_run", "contact", "contact_detail", "task", "summary", "view_version",
                "interaction", "scope_cursor"} <= populated
        assert {"contacts.json", "tasks.json", "context.md", "facts.json", "time/day.json"} <= set(snapshot_files(app, "maya"))

        result = forget_scope(app, "maya")

        assert all(n == 0 for n in counts(app, "maya").values())
        assert result.rows == {name: n for name, n in before_maya.items() if n and "via" not in name}
        assert result.snapshots and not (app.settings.snapshot_dir / "maya").exists()
        assert counts(app, "omar") == before_omar
        assert snapshot_files(app, "omar") == omar_files

    @pytest.mark.slow
    def test_a_forgotten_scope_starts_afresh(self, app: App, two_scopes) -> None:
        """After forget, the scope's next message is number 1 again and nothing old resurfaces."""
        forget_scope(app, "maya")
        forget_scope(app, "maya")  # a second time is harmless
        two_scopes.say("maya", "user: todo: water the plants")
        assert [t.title for t in two_scopes.tasks("maya")] == ["Water the plants"]
        assert two_scopes.contacts("maya") == []
        assert "Ana" not in two_scopes.snapshot("maya", "context.md")

    def test_tables_added_later_are_found_by_scope_column_or_foreign_key(self, app: App) -> None:
        """A new table with a scope column, and its child with only a foreign key, lose the scope's rows."""
        meta = MetaData()
        parent = Table("later_parent", meta, Column("id", Integer, primary_key=True), Column("scope", String(128)))
        child = Table("later_child", meta, Column("id", Integer, primary_key=True),
                      Column("parent_id", Integer, ForeignKey("later_parent.id")))
        meta.create_all(app.engine)
        with app.engine.begin() as conn:
            conn.execute(insert(parent), [{"id": 1, "scope": "maya"}, {"id": 2, "scope": "omar"}])
            conn.execute(insert(child), [{"id": 10, "parent_id": 1}, {"id": 11, "parent_id": 1}, {"id": 20, "parent_id": 2}])
        result = forget_scope(app, "maya", tables=list(meta.sorted_tables))
        assert result.rows == {"later_child": 2, "later_parent": 1}
        with reading(app.engine) as session:
            assert session.execute(select(child.c.id)).scalars().all() == [20]
            assert session.execute(select(parent.c.scope)).scalars().all() == ["omar"]


class TestCli:
    @pytest.mark.slow
    def test_asks_before_erasing(self, app: App, two_scopes, run_cli) -> None:
        """Without --yes a 'no' erases nothing (exit 1); a 'yes' erases and lists the tables."""
        before = counts(app, "maya")
        refused = run_cli("forget", "--scope", "maya", input="n\n")
        assert refused.exit_code == 1 and counts(app, "maya") == before
        agreed = run_cli("forget", "--scope", "maya", input="y\n")
        assert agreed.exit_code == 0, agreed.output
        assert f"forgot scope maya: {sum(n for k, n in before.items() if 'via' not in k)} rows" in agreed.stdout
        assert "  contact: 1" in agreed.stdout
        assert all(n == 0 for n in counts(app, "maya").values())

    @pytest.mark.slow
    def test_json_output_and_yes(self, app: App, two_scopes, run_cli) -> None:
        """--yes --json prints the rows removed per table and whether snapshots existed."""
        result = run_cli("forget", "--scope", "maya", "--yes", "--json")
        assert result.exit_code == 0
        payload = json.loads(result.stdout)
        assert payload["scope"] == "maya" and payload["snapshots"] is True
        assert payload["rows"]["task"] == 2 and payload["total"] == sum(payload["rows"].values())

    @pytest.mark.slow
    def test_an_unknown_scope_is_refused_and_nothing_is_erased(self, app: App, two_scopes, run_cli) -> None:
        """`forget --scope nobody` exits 2 naming the known scopes; the known scopes keep every row."""
        before = counts(app, "maya")
        result = run_cli("forget", "--scope", "nobody", "--yes")
        assert result.exit_code == 2 and "unknown scope 'nobody'" in result.stderr and "maya" in result.stderr
        assert counts(app, "maya") == before

    @pytest.mark.slow
    def test_refuses_while_a_daemon_holds_the_lease(self, app: App, two_scopes, run_cli) -> None:
        """Exit 3 and nothing erased while another live process holds the daemon lease."""
        other = lease.Holder(holder="elsewhere:1:daemon", host="elsewhere", pid=1)
        assert lease.acquire(app.engine, other, datetime.now(timezone.utc), timedelta(minutes=5))
        before = counts(app, "maya")
        result = run_cli("forget", "--scope", "maya", "--yes")
        assert result.exit_code == 3 and counts(app, "maya") == before
        assert lease.current(app.engine).holder == "elsewhere:1:daemon"

    @pytest.mark.slow
    def test_contacts_and_tasks_commands(self, app: App, two_scopes, run_cli) -> None:
        """`contacts` shows current details and history; `tasks` shows open tasks, --all the closed ones too."""
        text = run_cli("contacts", "--scope", "maya", "--history").stdout
        assert "== Ana Lopez (aka Ana)" in text and "  employer: Meta" in text
        assert "(was) employer: Google" in text
        data = json.loads(run_cli("contacts", "--scope", "maya", "--json").stdout)
        assert data["contacts"][0]["details"]["employer"] == "Meta"
        assert [t["title"] for t in json.loads(run_cli("tasks", "--scope", "maya", "--json").stdout)["tasks"]] == ["Buy milk"]
        every = run_cli("tasks", "--scope", "maya", "--all").stdout.splitlines()
        assert [line.split("] ", 1)[1] for line in every] == ["Buy milk", "Call Ana (due 2025-03-04)"]
        assert "[done 2025-03-03]" in every[1]
        unknown = run_cli("tasks", "--scope", "nobody")
        assert unknown.exit_code == 2 and "unknown scope 'nobody'" in unknown.stderr
        assert run_cli("contacts", "--scope", "../x").exit_code == 2
