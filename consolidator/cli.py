"""The `consolidator` command line: a thin layer that parses options, builds objects and runs.

Exit codes: 0 success; 1 a runtime failure; 2 bad input or bad configuration (the message
names the file, line and field or key); 3 another daemon holds the lease.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from consolidator import logsetup
from consolidator.app import App, open_app
from consolidator.clock import utcnow
from consolidator.config import ConfigError
from consolidator.ingest import ImportRejected, InvalidMessage, import_stream, validate
from consolidator.steps import PluginError
from stores.messages import append_messages


class UserError(click.ClickException):
    """Bad input or configuration: exit code 2."""

    exit_code = 2


def _app(ctx: click.Context) -> App:
    obj = ctx.ensure_object(dict)
    if "app" not in obj:
        try:
            obj["app"] = open_app(config=obj.get("config"))
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        ctx.call_on_close(obj["app"].close)
    return obj["app"]


@click.group()
@click.option("--config", "config", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="config.toml to use (else $CONSOLIDATOR_CONFIG, ./config.toml, /etc/consolidator/config.toml).")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]), help="Log level on stderr.")
@click.version_option(package_name="consolidator")
@click.pass_context
def cli(ctx: click.Context, config: Path | None, log_level: str) -> None:
    """Offline memory consolidation for LLM agents."""
    ctx.ensure_object(dict)["config"] = config
    ctx.obj["log_level"] = log_level
    logsetup.configure(log_level)


@cli.command("log")
@click.option("--scope", required=True, help="The user (scope) the message belongs to.")
@click.option("--role", required=True, help="user | assistant | action | tool | system")
@click.option("--at", "at", default=None, help="ISO 8601 time with a time zone (default: now).")
@click.option("--session", default=None, help="Interaction key: messages with the same session form one interaction.")
@click.option("--speaker", default=None, help="Who said it.")
@click.option("--id", "message_id", default=None, help="Idempotency key (default: a hash of the message).")
@click.argument("text")
@click.pass_context
def log_command(ctx, scope, role, at, session, speaker, message_id, text) -> None:
    """Append one message to the log and print its id."""
    record = {"scope": scope, "role": role, "text": text, "at": at, "session": session, "speaker": speaker, "id": message_id}
    try:
        message = validate(record, now=utcnow)
    except InvalidMessage as exc:
        raise UserError(f"--{exc.field}: {exc.problem}") from None
    result = append_messages(_app(ctx).engine, [message], utcnow())
    click.echo(result.ids[0])


@cli.command("import")
@click.argument("file", type=click.File("rb", lazy=False))
@click.option("--skip-invalid", is_flag=True, help="Keep the valid lines of a file with bad lines (default: reject it whole).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def import_command(ctx, file, skip_invalid: bool, as_json: bool) -> None:
    """Import a JSON-lines file of messages (FILE may be - for stdin).

    Importing the same file twice adds nothing. A file with a bad line is rejected whole
    unless --skip-invalid is given; every bad line is reported with its line number and field.
    """
    app = _app(ctx)
    name = getattr(file, "name", "-")
    source = "<stdin>" if name in ("<stdin>", "-") or not isinstance(name, str) else name
    show = sys.stderr.isatty() and not as_json
    try:
        with Progress("importing", show) as progress:
            report = import_stream(app.engine, file, source, utcnow(), skip_invalid=skip_invalid, progress=progress)
    except ImportRejected as exc:
        for error in exc.errors[:50]:
            click.echo(f"error: {error}", err=True)
        if len(exc.errors) > 50:
            click.echo(f"error: ... and {len(exc.errors) - 50} more", err=True)
        raise UserError(f"{source}: rejected ({len(exc.errors)} invalid lines); nothing from it was added") from None
    if as_json:
        click.echo(json.dumps({"added": report.added, "duplicates": report.duplicates,
                               "invalid": [str(e) for e in report.errors]}))
    else:
        click.echo(f"added {report.added}, duplicates {report.duplicates}, invalid {len(report.errors)}")
    if report.errors:
        for error in report.errors[:50]:
            click.echo(f"error: {error}", err=True)
        raise UserError(f"{source}: {len(report.errors)} invalid lines skipped; the {report.added} valid new ones were added")


class Progress:
    """A progress bar on a terminal; silent otherwise. Call it with the amount done."""

    def __init__(self, label: str, show: bool, length: int = 1) -> None:
        self._bar = click.progressbar(length=max(1, length), label=label, file=sys.stderr, show_pos=True) if show else None

    def __enter__(self) -> "Progress":
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __call__(self, n: int) -> None:
        if self._bar is not None:
            self._bar.length = max(self._bar.length, self._bar.pos + n)
            self._bar.update(n)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)


@cli.command("run")
@click.option("--once", is_flag=True, help="Do all work due now, then exit 0.")
@click.pass_context
def run_command(ctx, once: bool) -> None:
    """Run the daemon in the foreground (for systemd), or drain once with --once."""
    from consolidator.daemon import Daemon
    from consolidator.wiring import build_consolidator

    if ctx.obj["log_level"] == "warning":
        logsetup.configure("info")
    app = _app(ctx)
    try:
        consolidator = build_consolidator(app)
    except (PluginError, ConfigError) as exc:
        raise UserError(str(exc)) from None
    daemon = Daemon(consolidator)
    if once:
        if not daemon.run_once():
            click.echo("another daemon holds the lease on this database; try again later", err=True)
            ctx.exit(3)
        return
    ctx.exit(daemon.serve())


@cli.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def status_command(ctx, as_json: bool) -> None:
    """Per scope: messages, interactions, pending, batches; and whether a daemon runs."""
    from consolidator.status import gather

    report = gather(_app(ctx), utcnow())
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    _print_status(report)


def _print_status(report: dict[str, Any]) -> None:
    daemon = report["daemon"]
    state = "running" if daemon["running"] else "not running"
    beat = f", last heartbeat {daemon['last_heartbeat']}" if daemon["last_heartbeat"] else ""
    click.echo(f"daemon: {state}{beat}")
    if not report["scopes"]:
        click.echo("no messages logged yet")
    for scope, s in report["scopes"].items():
        b = s["batches"]
        click.echo(
            f"{scope}: {s['messages']} messages, {s['interactions']} interactions, {s['pending']} pending; "
            f"batches {b['done']} done, {b['pending']} pending, {b['retrying']} retrying, {b['failed']} failed; "
            f"last message {s['last_message_at']}"
        )
    if "model" in report:
        from consolidator.model_usage import format_usage

        for line in format_usage(report["model"]):
            click.echo(line)


@cli.command("retry")
@click.option("--scope", default=None, help="Only this scope.")
@click.pass_context
def retry_command(ctx, scope: str | None) -> None:
    """Re-arm batch steps that gave up after their last attempt."""
    from consolidator.runner import rearm_failed

    count = rearm_failed(_app(ctx).engine, scope, utcnow())
    click.echo(f"re-armed {count} failed steps")


@cli.command("sample")
@click.option("--scope", default="demo", show_default=True)
@click.option("--days", default=90, show_default=True, type=click.IntRange(1, 36500))
@click.option("--seed", default=1, show_default=True)
@click.option("--start", default="2025-01-06", show_default=True, help="First day (UTC).")
def sample_command(scope: str, days: int, seed: int, start: str) -> None:
    """Print a generated conversation history as JSON lines (pipe it into `import -`)."""
    from consolidator.sample import generate
    from stores.scopes import InvalidScope, validate_scope

    try:
        validate_scope(scope)
        first = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
    except (InvalidScope, ValueError) as exc:
        raise UserError(str(exc)) from None
    for record in generate(scope=scope, start=first, days=days, seed=seed):
        click.echo(json.dumps(record))


def main() -> None:
    cli(prog_name="consolidator")


from consolidator import cli_ladders  # noqa: E402,F401  (registers its commands on `cli`)
from consolidator import cli_memory  # noqa: E402,F401  (registers its commands on `cli`)
from consolidator import cli_facts  # noqa: E402,F401  (registers its commands on `cli`)
