"""CLI commands that show what the main job made: `report` (the memory, per scope) and
`timeline` (both ladders of a scope as one self-contained HTML page)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from consolidator.cli.common import UserError, app_of, scope_argument, utcnow
from consolidator.snapshots.overview import format_report, gather_report
from consolidator.snapshots.timeline import render_timeline
from consolidator.snapshots.timeline_data import gather_timeline
from stores.engine import reading
from stores.messages import scopes as all_scopes
from stores.files.snapshots import publish_text, write_atomic

TIMELINE_VIEW = "timeline.html"


def _known_scope(app, scope: str) -> str:
    """A validated scope that has messages, or exit 2 naming it."""
    scope = scope_argument(scope)
    with reading(app.engine) as session:
        known = all_scopes(session)
    if scope not in known:
        raise UserError(f"--scope: no messages logged for scope {scope!r}" +
                        (f" (scopes: {', '.join(known[:10])})" if known else " (none logged yet)"))
    return scope


@click.command("report")
@click.option("--scope", default=None, help="Only this scope (default: every scope).")
@click.option("--top", default=3, show_default=True, type=click.IntRange(0, 100), help="Facts and tasks shown per scope.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def report_command(ctx, scope: str | None, top: int, as_json: bool) -> None:
    """Show the memory made, per scope: facts, contacts, open tasks, summaries, context.md."""
    app = app_of(ctx)
    if scope is not None:
        scopes = [_known_scope(app, scope)]
    else:
        with reading(app.engine) as session:
            scopes = all_scopes(session)
    report = gather_report(app, scopes, utcnow(), top=top)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=1))
        return
    for line in format_report(report):
        click.echo(line)


@click.command("timeline")
@click.option("--scope", required=True, help="The scope to draw.")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="HTML file to write (default: <state_dir>/snapshots/<scope>/timeline.html).")
@click.pass_context
def timeline_command(ctx, scope: str, out: Path | None) -> None:
    """Write both ladders of a scope as one self-contained HTML page; print its path.

    Rows of blocks: the time ladder by date, the count ladder by interaction number; click a
    block for its window, version, size and summary, and the blocks it was written from.
    Held and pending windows are marked. No network: open it from the file in any browser.
    """
    app = app_of(ctx)
    scope = _known_scope(app, scope)
    page = render_timeline(gather_timeline(app, scope, utcnow()))
    try:
        if out is None:
            path = publish_text(app.settings.snapshot_dir, scope, TIMELINE_VIEW, page)
        else:
            path = out.expanduser().absolute()
            write_atomic(path, page.encode())
    except OSError as exc:
        target = out if out is not None else app.settings.snapshot_dir / scope / TIMELINE_VIEW
        raise click.ClickException(f"{target}: cannot write the timeline: {exc.strerror or exc}") from None
    click.echo(str(path))


COMMANDS = [report_command, timeline_command]
