"""CLI commands over facts: facts, facts history / history, pin, mark-used, restore.

Unknown facts, closed facts and tombstones past their grace exit 2 with a message naming the id.
"""

from __future__ import annotations

import json

import click

from consolidator.cli.tables import tables_command
from consolidator.cli.common import UserError, app_of, existing_scope, plural, scope_argument, utcnow
from consolidator.facts.api import UnknownFacts, mark_used, pin, restore_fact
from consolidator.facts.publish import fact_item, ranked_facts
from stores.engine import reading
from stores.schema.memory import Fact
from stores.facts import all_facts, history




def _closed_item(fact: Fact, now, tau) -> dict:
    item = fact_item(fact, now, tau)
    item.update(valid_to=fact.valid_to.isoformat() if fact.valid_to else None, end_reason=fact.end_reason,
                superseded_by=fact.superseded_by,
                tombstoned_at=fact.tombstoned_at.isoformat() if fact.tombstoned_at else None)
    return item


def _echo_item(item: dict) -> None:
    flags = " pinned" if item["pinned"] else ""
    click.echo(f"{item['id']}  score {item['score']:.3f}  importance {item['importance']}  "
               f"strength {item['strength']:g}{flags}  {item['text']}")


def _echo_closed(item: dict) -> None:
    arrow = f" -> {item['superseded_by']}" if item["superseded_by"] else ""
    click.echo(f"{item['id']}  [{item['end_reason']}{arrow} at {item['valid_to']}]  {item['text']}")


@click.group("facts", invoke_without_command=True)
@click.option("--scope", default=None, help="The scope whose facts to list.")
@click.option("--all", "show_all", is_flag=True, help="Also closed facts (updated, deleted, merged, dropped).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_context
def facts_command(ctx, scope, show_all, as_json) -> None:
    """List a scope's current facts, best score first."""
    if ctx.invoked_subcommand is not None:
        return
    if scope is None:
        raise UserError("--scope is required")
    app = app_of(ctx)
    scope, now = scope_argument(scope), utcnow()
    items = ranked_facts(app, scope, now)
    closed: list[dict] = []
    if show_all:
        with reading(app.engine) as session:
            rows = [f for f in all_facts(session, scope) if not f.current]
        rows.sort(key=lambda f: (f.valid_to, f.id))
        closed = [_closed_item(f, now, app.settings.facts.tau) for f in rows]
    if not items and not closed:
        existing_scope(ctx, scope)  # nothing to show: exit 2 if the scope itself is unknown
    if as_json:
        click.echo(json.dumps(items + closed, ensure_ascii=False, indent=1))
        return
    for item in items:
        _echo_item(item)
    for item in closed:
        _echo_closed(item)
    if not items and not closed:
        click.echo(f"no facts for scope {scope}", err=True)


def _history(ctx, scope: str, fact_id: str, as_json: bool) -> None:
    app = app_of(ctx)
    scope, now = scope_argument(scope), utcnow()
    try:
        with reading(app.engine) as session:
            chain = history(session, scope, fact_id)
    except LookupError as exc:
        raise UserError(str(exc.args[0])) from None
    items = [_closed_item(f, now, app.settings.facts.tau) for f in chain]
    if as_json:
        click.echo(json.dumps(items, ensure_ascii=False, indent=1))
        return
    for item in items:
        until = item["valid_to"] or "now"
        end = f"  [{item['end_reason']}" + (f" -> {item['superseded_by']}]" if item["superseded_by"] else "]")
        click.echo(f"{item['valid_from']} .. {until}  {item['id']}  {item['text']}" + (end if item["end_reason"] else ""))


@click.command("history")
@click.option("--scope", required=True, help="The scope the fact belongs to.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.argument("fact_id")
@click.pass_context
def history_command(ctx, scope, as_json, fact_id) -> None:
    """The chain of facts through FACT_ID, oldest first (what it replaced and what replaced it)."""
    _history(ctx, scope, fact_id, as_json)


facts_command.add_command(history_command)  # `facts history` and `history`: one command, two places
facts_command.add_command(tables_command)  # `facts tables`: the topic tables (consolidator/cli/tables.py)


@click.command("pin")
@click.option("--scope", required=True, help="The scope the fact belongs to.")
@click.option("--unpin", is_flag=True, help="Remove the pin instead.")
@click.argument("fact_id")
@click.pass_context
def pin_command(ctx, scope, unpin, fact_id) -> None:
    """Pin a current fact (it never decays and is never dropped), or --unpin it."""
    try:
        pin(scope_argument(scope), fact_id, not unpin, app=app_of(ctx), now=utcnow())
    except LookupError as exc:
        raise UserError(str(exc.args[0])) from None
    click.echo(f"{'unpinned' if unpin else 'pinned'} {fact_id}")


@click.command("mark-used")
@click.option("--scope", required=True, help="The scope the facts belong to.")
@click.argument("fact_ids", nargs=-1, required=True)
@click.pass_context
def mark_used_command(ctx, scope, fact_ids) -> None:
    """Record that a planner used these facts (the daemon raises their strength and last_used).

    Every id must be a fact of the scope (exit 2 naming the unknown ones; nothing is queued).
    """
    app = app_of(ctx)
    scope = scope_argument(scope)
    try:
        count = mark_used(scope, list(fact_ids), app=app, at=utcnow(), strict=True)
    except UnknownFacts as exc:
        raise UserError(f"FACT_IDS: {exc}; nothing was queued") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"queued {plural(count, 'use')}")


@click.command("restore")
@click.option("--scope", required=True, help="The scope the fact belongs to.")
@click.argument("fact_id")
@click.pass_context
def restore_command(ctx, scope, fact_id) -> None:
    """Make a merged-away or dropped fact current again (within facts.restore_grace)."""
    try:
        restore_fact(scope_argument(scope), fact_id, app=app_of(ctx), now=utcnow())
    except LookupError as exc:
        raise UserError(str(exc.args[0])) from None
    click.echo(f"restored {fact_id}")

COMMANDS = [facts_command, history_command, pin_command, mark_used_command, restore_command]
