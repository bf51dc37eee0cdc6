"""CLI commands that move the log out of the database: `archive` (old messages to Parquet files)
and `export` (a scope's whole log, archive included, in the import format)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from consolidator.cli.common import RuntimeFault, UserError, app_of, existing_scope, plural, utcnow
from consolidator.messages import export as exporting
from consolidator.messages.archive import ArchiveBusy, ArchiveError, Archiver

DATE = click.DateTime(formats=["%Y-%m-%d"])  # a calendar date option


@click.command("archive")
@click.option("--scope", default=None, help="Only this scope (default: every scope).")
@click.option("--dry-run", is_flag=True, help="Say what would move; move nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def archive_command(ctx, scope: str | None, dry_run: bool, as_json: bool) -> None:
    """Move consolidated messages older than archive.after to Parquet files under archive.dir.

    Only messages every step has applied and both ladders have summarised, in interactions
    that ended before the cutoff, and the summaries of old windows the ladders have moved past;
    each file is verified before its rows leave the database, and a run that was killed is
    completed by the next one.
    """
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    archiver = Archiver(app)
    if not archiver.enabled:
        raise UserError(f"{app.settings.source}: archive.after is 0: the archive is off")
    try:
        report = archiver.run(utcnow(), scope=scope, dry_run=dry_run)
    except ArchiveBusy as exc:
        click.echo(str(exc), err=True)
        ctx.exit(3)
    except ArchiveError as exc:
        raise RuntimeFault(str(exc)) from None
    if as_json:
        click.echo(json.dumps({**report.as_dict(), "archive_dir": str(archiver.root)}, indent=1))
        return
    verb = "would move" if dry_run else "moved"
    if report.recovered:
        click.echo(f"completed {plural(report.recovered, 'interrupted file')}")
    click.echo(f"{verb} {plural(report.messages, 'message')} and {plural(report.summaries, 'summary row')} "
               f"to {archiver.root}")
    for name, moved in sorted(report.scopes.items()):
        size = "" if dry_run else f", {moved.bytes:,} bytes"
        click.echo(f"  {name}: {plural(moved.messages, 'message')}, {plural(moved.summaries, 'summary row')} in "
                   f"{plural(moved.files, 'file')} ({', '.join(moved.months)}){size}")


@click.command("export")
@click.option("--scope", required=True, help="The scope to export.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl", show_default=True,
              help="JSON lines (the import format) or one Parquet file.")
@click.option("--since", type=DATE, default=None, help="From this local date on (the scope's time zone).")
@click.option("--until", type=DATE, default=None, help="Through this local date.")
@click.option("--out", "out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="File to write (default: stdout for jsonl; required for parquet).")
@click.pass_context
def export_command(ctx, scope: str, fmt: str, since, until, out: Path | None) -> None:
    """Write a scope's whole log, archive and database, in the import format (`import` reads it back)."""
    app = app_of(ctx)
    scope = existing_scope(ctx, scope)
    since, until = (since.date() if since else None), (until.date() if until else None)
    if since and until and since > until:
        raise UserError(f"--since {since} is after --until {until}: no day is in between")
    if fmt == "parquet":
        if out is None:
            raise UserError("--out: a file is required for --format parquet")
        count = exporting.write_parquet(app, scope, out, since, until)
    elif out is None:
        count = exporting.write_jsonl(app, scope, sys.stdout, since, until)
    else:
        temp = out.with_name(out.name + ".tmp")
        with temp.open("w", encoding="utf-8") as handle:
            count = exporting.write_jsonl(app, scope, handle, since, until)
        temp.replace(out)
    click.echo(f"exported {plural(count, 'message')}", err=True)




COMMANDS = [archive_command, export_command]
