"""`consolidator facts tables`: a scope's topic tables (name, size, last change, description) and,
with --moves N, the last N facts its restructures moved."""

from __future__ import annotations

import json

import click

from consolidator.cli.common import app_of, existing_scope, scope_argument, utcnow
from consolidator.facts.publish import tables_payload
from stores.engine import reading
from stores.fact_tables import moves_of


@click.command("tables")
@click.option("--scope", required=True, help="The scope whose tables to list.")
@click.option("--moves", default=0, show_default=True, type=click.IntRange(0, 100_000),
              help="Also the last N facts moved between tables (move, merge, split), newest first.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the tables as facts/index.json has them.")
@click.pass_context
def tables_command(ctx, scope, moves, as_json) -> None:
    """List a scope's topic tables, oldest first, each with its number of current facts."""
    app = app_of(ctx)
    scope, now = scope_argument(scope), utcnow()
    index, _ = tables_payload(app, scope, now)
    recent = []
    if moves:
        with reading(app.engine) as session:
            recent = [{"fact": m.fact_id, "from": m.from_table, "to": m.to_table, "kind": m.kind, "why": m.why,
                       "at": m.at.isoformat()} for m in moves_of(session, scope, moves)]
    if not index["tables"]:
        existing_scope(ctx, scope)  # nothing to show: exit 2 if the scope itself is unknown
    if as_json:
        click.echo(json.dumps({"scope": scope, "tables": index["tables"], **({"moves": recent} if moves else {})},
                              ensure_ascii=False, indent=1))
        return
    for table in index["tables"]:
        click.echo(f"{table['name']}  {table['size']} facts  updated {table['updated']}  {table['description']}")
    for m in recent:
        click.echo(f"{m['at']}  {m['fact']}  {m['from'] or '-'} -> {m['to']}  [{m['kind']}] {m['why']}")
    if not index["tables"]:
        click.echo(f"no tables for scope {scope}", err=True)
