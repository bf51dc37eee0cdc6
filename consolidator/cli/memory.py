"""CLI commands over a scope's memory: contacts, tasks, and forget."""

from __future__ import annotations

import json

import click

from consolidator.cli.common import app_of, existing_scope, scope_argument, utcnow
from consolidator.contacts.step import contacts_payload
from consolidator.runtime.forget import forget_scope
from consolidator.tasks.step import tasks_payload
from stores import lease
from consolidator.pipeline.claims import ScopeBusy, scope_claimed
from stores.contacts import contacts_of, detail_history
from stores.engine import reading




@click.command("contacts")
@click.option("--scope", required=True, help="The scope whose contacts to list.")
@click.option("--history", is_flag=True, help="Also show former detail values, with their validity.")
@click.option("--json", "as_json", is_flag=True, help="Print contacts.json's payload.")
@click.pass_context
def contacts_command(ctx, scope: str, history: bool, as_json: bool) -> None:
    """List a scope's contacts with their current details (most recently updated first)."""
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    with reading(app.engine) as session:
        payload = contacts_payload(session, scope, utcnow())
        rows = {c.name: detail_history(session, c.id) for c in contacts_of(session, scope)} if history else {}
    if as_json:
        if history:
            for contact in payload["contacts"]:
                contact["history"] = [
                    {"key": d.key, "value": d.value, "valid_from": d.valid_from.isoformat(),
                     "valid_to": d.valid_to.isoformat() if d.valid_to else None}
                    for d in rows.get(contact["name"], [])
                ]
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    if not payload["contacts"]:
        click.echo(f"no contacts in scope {scope}")
    zone = app.settings.timezone_of(scope)  # a former value's dates, as days where the scope lives
    for contact in payload["contacts"]:
        aka = f" (aka {', '.join(contact['aliases'])})" if contact["aliases"] else ""
        click.echo(f"== {contact['name']}{aka}")
        for key, value in sorted(contact["details"].items()):
            click.echo(f"  {key}: {value}")
        for d in rows.get(contact["name"], []):
            if d.valid_to is not None:
                since, until = (t.astimezone(zone).date() for t in (d.valid_from, d.valid_to))
                click.echo(f"  (was) {d.key}: {d.value} [{since} .. {until}]")
        if contact["biography"]:
            click.echo(f"  {contact['biography']}")


@click.command("tasks")
@click.option("--scope", required=True, help="The scope whose tasks to list.")
@click.option("--all", "show_all", is_flag=True, help="Include every done and cancelled task.")
@click.option("--json", "as_json", is_flag=True, help="Print a tasks.json-like payload.")
@click.pass_context
def tasks_command(ctx, scope: str, show_all: bool, as_json: bool) -> None:
    """List a scope's open tasks (with --all, closed ones too, most recently closed first)."""
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    with reading(app.engine) as session:
        payload = tasks_payload(session, scope, utcnow(), closed_limit=None if show_all else 0)
    if not show_all:
        payload["tasks"] = [t for t in payload["tasks"] if t["status"] == "open"]
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    if not payload["tasks"]:
        click.echo(f"no {'' if show_all else 'open '}tasks in scope {scope}")
    for task in payload["tasks"]:
        due = f" (due {task['due']})" if task["due"] else ""
        closed = f" {task['closed_at'][:10]}" if task["closed_at"] else ""
        click.echo(f"#{task['id']} [{task['status']}{closed}] {task['title']}{due}")


@click.command("forget")
@click.option("--scope", required=True, help="The scope to erase, with every message and memory of it.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="Print what was removed as JSON.")
@click.pass_context
def forget_command(ctx, scope: str, yes: bool, as_json: bool) -> None:
    """Erase a scope everywhere: every database row of it, its snapshots and its archive. Cannot be undone.

    Takes the daemon lease: stop the daemon first (exit 3 while one runs).
    """
    app = app_of(ctx)
    scope = scope_argument(scope)
    if not (app.settings.snapshot_dir / scope).exists():  # only snapshots left (a forget cut short) is still forgettable
        existing_scope(ctx, scope)
    if not yes and not click.confirm(f"Erase everything about scope {scope!r}? This cannot be undone", err=True):
        click.echo("nothing erased", err=True)
        ctx.exit(1)
    me = lease.Holder.this_process("forget")
    if not lease.acquire(app.engine, me, utcnow(), app.settings.daemon.lease_ttl):
        click.echo("a daemon holds the lease on this database; stop it before forgetting a scope", err=True)
        ctx.exit(3)
    try:
        with scope_claimed(app.engine, scope, me.holder, app.settings.daemon.lease_ttl, utcnow):  # several daemons
            result = forget_scope(app, scope)
    except ScopeBusy as exc:
        click.echo(str(exc), err=True)
        ctx.exit(3)
    finally:
        lease.release(app.engine, me)
    if as_json:
        click.echo(json.dumps({"scope": scope, "rows": result.rows, "total": result.total,
                               "snapshots": result.snapshots, "archive_files": result.archive_files}, indent=1))
        return
    click.echo(f"forgot scope {scope}: {result.total} rows"
               f"{', snapshots removed' if result.snapshots else ''}"
               f"{f', archive folder removed ({result.archive_files} files)' if result.archive_files else ''}")
    for table, count in sorted(result.rows.items()):
        click.echo(f"  {table}: {count}")

COMMANDS = [contacts_command, tasks_command, forget_command]
