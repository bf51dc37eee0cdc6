"""CLI command `stats`: analytics over the database and the archive, computed with DuckDB."""

from __future__ import annotations

import json

import click

from consolidator.cli.common import app_of, existing_scope

DATE = click.DateTime(formats=["%Y-%m-%d"])  # a calendar date option


@click.command("stats")
@click.option("--scope", default=None, help="Only this scope (default: every scope).")
@click.option("--since", type=DATE, default=None, help="From this date on (the scope's time zone).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def stats_command(ctx, scope: str | None, since, as_json: bool) -> None:
    """Messages per day and week, consolidation lag, model calls, tokens and cost, summaries per
    rung and the archive's size, computed with DuckDB over the database and the archive."""
    from consolidator.runtime.stats import format_stats, gather_stats

    app = app_of(ctx, reader=True)
    scope = existing_scope(ctx, scope)
    report = gather_stats(app, scope, since.date() if since else None)
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    for line in format_stats(report):
        click.echo(line)


COMMANDS = [stats_command]
