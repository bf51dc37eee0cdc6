"""The `consolidator` command line: a thin layer that parses options, builds objects and runs.

Exit codes: 0 success; 1 a runtime failure (a full disk, a read-only database, `run --once`
with a step failed, a window held or a fault met); 2 bad input or bad configuration (the
message names the file, line and field or key); 3 another daemon holds the lease. Faults are
one line each, never a traceback (cli/common.py, FaultGroup).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from consolidator.runtime import logsetup
from consolidator.runtime.collector import tune_collector
from consolidator.cli import facts as facts_commands
from consolidator.cli import archive as archive_commands
from consolidator.cli import stats as stats_commands
from consolidator.cli import ladders as ladder_commands
from consolidator.cli import mcp as mcp_commands
from consolidator.cli import memory as memory_commands
from consolidator.cli import recall as recall_commands
from consolidator.cli import report as report_commands
from consolidator.cli.common import (FaultGroup, ProgressBar, RuntimeFault, UserError, app_of, existing_scope, plural,
                                     scope_argument, utcnow)
from consolidator.messages.ingest import ImportRejected, InvalidMessage, import_stream
from consolidator.messages.log import IdConflict, append_one
from stores.errors import StorageError


@click.group(cls=FaultGroup)
@click.option("--config", "config", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="config.toml to use (else $CONSOLIDATOR_CONFIG, ./config.toml, /etc/consolidator/config.toml).")
@click.option("--log-level", default=None, type=click.Choice(["debug", "info", "warning", "error"]),
              help="Log level on stderr.  [default: info for `run`, warning otherwise]")
@click.version_option(package_name="consolidator")
@click.pass_context
def cli(ctx: click.Context, config: Path | None, log_level: str | None) -> None:
    """Offline memory consolidation for LLM agents."""
    ctx.ensure_object(dict)["config"] = config
    ctx.obj["log_level"] = log_level
    logsetup.configure(log_level or ("info" if ctx.invoked_subcommand == "run" else "warning"))
    tune_collector()  # this process is ours: its start-up objects frozen, young garbage collected in bulk


@cli.command("log")
@click.option("--scope", required=True, help="The user (scope) the message belongs to.")
@click.option("--role", required=True, help="user | assistant | action | tool | system")
@click.option("--at", "at", default=None, help="ISO 8601 time with a time zone (default: now).")
@click.option("--session", default=None, help="Interaction key: messages with the same session form one interaction.")
@click.option("--speaker", default=None, help="Who said it.")
@click.option("--id", "message_id", default=None, help="Idempotency key (default: a hash of the message).")
@click.option("--attach", "attach", multiple=True, metavar="KIND:CAPTION|JSON",
              help="An attachment (repeatable, in order): image|file|link, a colon and its caption "
                   "('image:a cake shaped like a castle'), or a JSON object with kind, caption and uri.")
@click.argument("text")
@click.pass_context
def log_command(ctx, scope, role, at, session, speaker, message_id, attach, text) -> None:
    """Append one message to the log and print its id."""
    record = {"scope": scope, "role": role, "text": text, "at": at, "session": session, "speaker": speaker, "id": message_id}
    if attach:
        record["attachments"] = [_attachment_option(n, value) for n, value in enumerate(attach)]
    try:
        message_id, _ = append_one(app_of(ctx), record)
    except IdConflict as exc:
        raise UserError(f"--id: {exc.problem} (use a new --id)") from None
    except InvalidMessage as exc:
        field = exc.field.replace("attachments", "attach", 1) if exc.field.startswith("attachments") else exc.field
        raise UserError(f"--{field}: {exc.problem}") from None
    except StorageError as exc:
        raise RuntimeFault(f"{exc}; the message was not logged") from None
    click.echo(message_id)


def _attachment_option(n: int, value: str) -> dict:
    """One --attach value: a JSON object, or KIND:CAPTION."""
    if value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise UserError(f"--attach[{n}]: invalid JSON: {exc.msg} at column {exc.colno}") from None
    kind, colon, caption = value.partition(":")
    if not colon:
        raise UserError(f"--attach[{n}]: expected KIND:CAPTION (image, file or link) or a JSON object, got {value!r}")
    return {"kind": kind.strip(), "caption": caption.strip()}


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
    name = getattr(file, "name", "-")
    source = "<stdin>" if name in ("<stdin>", "-") or not isinstance(name, str) else name
    show = sys.stderr.isatty() and not as_json
    try:
        app = app_of(ctx)
        with ProgressBar("importing", show) as progress:
            report = import_stream(app.engine, file, source, utcnow(), skip_invalid=skip_invalid, progress=progress,
                                   archive_root=app.settings.archive_dir)
    except ImportRejected as exc:
        if as_json:
            click.echo(json.dumps({"added": 0, "duplicates": 0, "invalid": [str(e) for e in exc.errors],
                                   "rejected": True}))
        for error in exc.errors[:50]:
            click.echo(f"error: {error}", err=True)
        if len(exc.errors) > 50:
            click.echo(f"error: ... and {len(exc.errors) - 50} more", err=True)
        raise UserError(f"{source}: rejected ({plural(len(exc.errors), 'invalid line')}); nothing from it was added") from None
    except StorageError as exc:
        raise RuntimeFault(f"{exc}; nothing from {source} was added") from None
    if as_json:
        click.echo(json.dumps({"added": report.added, "duplicates": report.duplicates,
                               "invalid": [str(e) for e in report.errors]}))
    else:
        click.echo(f"added {report.added}, duplicates {report.duplicates}, invalid {len(report.errors)}")
    if report.errors:
        for error in report.errors[:50]:
            click.echo(f"error: {error}", err=True)
        raise UserError(f"{source}: {plural(len(report.errors), 'invalid line')} skipped; "
                        f"the valid new ones were added ({report.added})")


@cli.command("run")
@click.option("--once", is_flag=True,
              help="Do all work due now, then exit: 0 when all of it was done, 1 when a step failed, "
                   "a ladder window is held or a fault was met (each said in one line).")
@click.pass_context
def run_command(ctx, once: bool) -> None:
    """Run the daemon in the foreground (for systemd), or drain once with --once."""
    from consolidator.runtime.daemon import Daemon
    from consolidator.runtime.outcome import unfinished
    from consolidator.runtime.wiring import build_consolidator

    app = app_of(ctx, patient=not once)  # the service waits for a database server that does not answer yet
    if app.unreachable is not None:
        from consolidator.runtime.backoff import wait_for_database

        if not wait_for_database(app):
            return  # stopped while waiting
    consolidator = build_consolidator(app)
    daemon = Daemon(consolidator)
    if once:
        if not daemon.run_once():
            click.echo("another daemon holds the lease on this database; try again later", err=True)
            ctx.exit(3)
        problems = unfinished(app, consolidator.faults.met())
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        if problems:
            ctx.exit(1)
        return
    ctx.exit(daemon.serve())


@cli.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def status_command(ctx, as_json: bool) -> None:
    """Per scope: messages, interactions, pending, batches; and whether a daemon runs."""
    from consolidator.runtime.status import gather

    report = gather(app_of(ctx, reader=True), utcnow())
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        _print_status(report)
    if report.get("reachable") is False:  # said above, in the report: nothing else could be read
        ctx.exit(1)


def _archived(scope: dict[str, Any]) -> str:
    return f" ({scope['archived']} archived)" if scope.get("archived") else ""


def _print_status(report: dict[str, Any]) -> None:
    click.echo(f"state: {report['state_dir']}")
    click.echo(f"database: {report['database']}")
    daemon = report["daemon"]
    state = {True: "running", False: "not running", None: "unknown (the database cannot be reached)"}[daemon["running"]]
    beat = f", last heartbeat {daemon['last_heartbeat']}" if daemon["last_heartbeat"] else ""
    click.echo(f"daemon: {state}{beat}")
    if not report["scopes"]:
        click.echo("no messages logged yet")
    for scope, s in report["scopes"].items():
        b = s["batches"]
        click.echo(
            f"{scope}: {plural(s['messages'], 'message')}{_archived(s)}, {plural(s['interactions'], 'interaction')}, "
            f"{s['pending']} pending; batches {b['done']} done, {b['pending']} pending, {b['retrying']} retrying, "
            f"{b['failed']} failed; last message {s['last_message_at']}"
        )
    for fault in report.get("faults", []):
        where = f"{fault['where']} [{fault['scope']}]" if fault["scope"] else fault["where"]
        since = f" since {fault['since']} ({plural(fault['count'], 'time')})" if fault["since"] else ""
        click.echo(f"fault: {where}{since}: {fault['cause']}")
    if "model" in report:
        from consolidator.cost.usage import format_usage

        for line in format_usage(report["model"]):
            click.echo(line)


@cli.command("retry")
@click.option("--scope", default=None, help="Only this scope.")
@click.pass_context
def retry_command(ctx, scope: str | None) -> None:
    """Re-arm batch steps that gave up after their last attempt."""
    from stores.ledger import rearm_failed

    scope = existing_scope(ctx, scope)
    count = rearm_failed(app_of(ctx).engine, scope, utcnow())
    click.echo(f"re-armed {plural(count, 'failed step')}")


@cli.command("sample")
@click.option("--scope", default="demo", show_default=True, help="The scope the generated messages belong to.")
@click.option("--days", default=90, show_default=True, type=click.IntRange(1, 36500), help="How many days of history.")
@click.option("--seed", default=1, show_default=True, help="The same seed gives the same history.")
@click.option("--start", default="2025-01-06", show_default=True, help="First day (UTC).")
def sample_command(scope: str, days: int, seed: int, start: str) -> None:
    """Print a generated conversation history as JSON lines (pipe it into `import -`)."""
    from consolidator.messages.sample import generate
    try:
        scope_argument(scope, "--scope")
        first = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for record in generate(scope=scope, start=first, days=days, seed=seed):
        click.echo(json.dumps(record))


for _module in (ladder_commands, memory_commands, facts_commands, report_commands, archive_commands,
                stats_commands, recall_commands, mcp_commands):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    cli(prog_name="consolidator")

