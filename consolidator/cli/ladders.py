"""CLI commands over the ladders and snapshots: summaries, rebuild, snapshot."""

from __future__ import annotations

import json
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

import click

from consolidator.cli.common import ProgressBar, UserError, app_of, existing_scope, plural, utcnow
from consolidator.ladders.publish import ladder_specs, summary_payload
from consolidator.runtime.rebuild import LeaseHeld, LeaseLost, Rebuild
from stores.engine import reading
from stores.files.snapshots import read_snapshot
from stores.history import History

LIST_KEYS = ("id", "window", "label", "version", "kind", "sources", "text")


@click.command("summaries")
@click.option("--scope", required=True, help="The scope whose summaries to list.")
@click.option("--ladder", required=True, type=click.Choice(["time", "count"]), help="Which ladder.")
@click.option("--rung", required=True, help="time: day|week|4w|12w|52w; count: 1|10|40|120|520")
@click.option("--all", "show_all", is_flag=True, help="Include empty versions (a silent window has no summary at all).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_context
def summaries_command(ctx, scope, ladder, rung, show_all, as_json) -> None:
    """List a rung's summaries, oldest first (the newest version of each window)."""
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    spec = ladder_specs(app)[ladder]
    if rung not in [r.name for r in spec.rungs]:
        raise UserError(f"--rung: {rung!r} is not a rung of the {ladder} ladder ({', '.join(r.name for r in spec.rungs)})")
    with reading(app.engine) as session:
        rows = [s for s in History(app.settings.archive_dir).newest_versions(session, scope, ladder, rung)
                if show_all or s.kind != "empty"]
        items = [{k: summary_payload(s)[k] for k in LIST_KEYS} for s in rows]
    if as_json:
        click.echo(json.dumps(items, ensure_ascii=False, indent=1))
        return
    for item in items:
        window = item["window"]
        span = f"{window['start']} .. {window['end']}" if "start" in window else f"{window['first']}-{window['last']}"
        click.echo(f"== {item['label']} [{span}] v{item['version']} {item['kind']} ({len(item['sources'])} sources)")
        click.echo(item["text"] or "(empty)")


@click.command("rebuild")
@click.option("--scope", default=None, help="Only this scope (default: every scope).")
@click.option("--ladder", type=click.Choice(["time", "count"]), default=None, help="Only this ladder.")
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), default=None, help="From this local date on.")
@click.pass_context
def rebuild_command(ctx, scope, ladder, since) -> None:
    """Recompute the ladders from the message log.

    Base windows are written again from the raw log without reusing earlier results; a
    window whose new summary equals the current one keeps it, any change gets a new
    version and its ancestors are recomputed. Takes the daemon lease: stop the daemon first.
    """
    from consolidator.runtime.wiring import recorded_model

    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    now = utcnow()
    try:
        with Rebuild(app, utcnow) as rebuild, stop_on_signals(rebuild.stop):
            model, gate, _ = recorded_model(app)  # every call in the ledger and under the daily budget; direct
            if gate is not None:
                gate.refresh(now)
            total = rebuild.mark(model, scope, ladder, since.date() if since is not None else None)
            with ProgressBar("rebuilding", sys.stderr.isatty(), total) as progress:
                written = rebuild.run(now, progress)
    except LeaseHeld:
        click.echo("a daemon holds the lease on this database; stop it before rebuilding", err=True)
        ctx.exit(3)
    except LeaseLost as exc:
        raise click.ClickException(str(exc)) from None
    done = f"{plural(total, 'base window')} marked, {plural(written, 'summary', 'summaries')} written"
    if rebuild.stopped:
        click.echo(f"rebuild stopped by a signal: {done}; the lease is released and the daemon writes the rest", err=True)
        ctx.exit(1)
    click.echo(f"rebuilt {plural(len(rebuild.scopes), 'scope')}: {total} base windows recomputed, {written} summaries written")


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set `stop` (the work in flight finishes and the lease is released)
    instead of killing the process; the previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@click.command("snapshot")
@click.option("--scope", required=True, help="The scope whose snapshot to print.")
@click.argument("view")
@click.pass_context
def snapshot_command(ctx, scope, view) -> None:
    """Print one snapshot, e.g. `time/week`, `count/40`, `facts`, `context.md`.

    Exit 2 for an unknown scope or view (the message lists the valid views), 1 when the
    view is valid but not published yet.
    """
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    valid = snapshot_views(app)
    name = view if "." in view.rsplit("/", 1)[-1] else f"{view}.json"
    if name not in valid:
        shown = ", ".join(v.removesuffix(".json") for v in valid)
        raise UserError(f"VIEW: unknown view {view!r} (valid: {shown})")
    try:
        text = read_snapshot(app.settings.snapshot_dir, scope, name)
    except FileNotFoundError:
        click.echo(f"no snapshot {name} for scope {scope} yet: the daemon publishes it after its first work "
                   "on the scope", err=True)
        ctx.exit(1)
    click.echo(text, nl=not text.endswith("\n"))


def snapshot_views(app) -> list[str]:
    """Every snapshot file a scope can have, as `snapshot` names them (the ladders as configured)."""
    rungs = [f"{ladder}/{rung.name}.json" for ladder, spec in ladder_specs(app).items() for rung in spec.rungs]
    return ["context.md", "facts.json", "contacts.json", "tasks.json", *rungs, "facts/index.json"]

COMMANDS = [summaries_command, rebuild_command, snapshot_command]
