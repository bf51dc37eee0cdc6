"""Faults at the command line: bad configurations and state directories give one line naming
the file, key or path and exit 2; the CLI's edges (run --once's exit code, log levels,
unknown scopes, views and ids, plurals, the aligned model table) say what happened."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import structlog
from click.testing import CliRunner
from sqlalchemy import func, select
from structlog.testing import capture_logs

from consolidator.cli.main import cli
from consolidator.cost.usage import format_usage
from consolidator.runtime.daemon import Daemon
from consolidator.runtime.wiring import build_consolidator
from stores import lease
from stores.engine import reading, transaction
from stores.schema.memory import FactUse
from stores.schema.log import Message
from stores.messages import NewMessage, append_messages
from stores.schema.ladders import LadderHold

# Recent messages: the time ladder announces every day since the first one, so old ones cost time.
T0 = (datetime.now(timezone.utc) - timedelta(days=2)).replace(hour=9, minute=0, second=0, microsecond=0)


def one_error(result) -> str:
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.lower().startswith("error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def seed(app, scope: str = "maya", count: int = 3) -> None:
    messages = [NewMessage(scope, T0 + timedelta(minutes=i), "user", f"I said {i}.") for i in range(count)]
    append_messages(app.engine, messages, T0)


def message_count(app) -> int:
    with reading(app.engine) as session:
        return session.execute(select(func.count()).select_from(Message)).scalar_one()


def run_with(config: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["--config", str(config), *args], env=env or {}, catch_exceptions=False)


# --- configuration: exit 2, one line naming the file and the key ----------------------------------

CONFIG_CASES = [
    pytest.param(b'timezone = "Paris\xff"\n', "not UTF-8 text", id="not-utf8"),
    pytest.param(b'flush_idle = "99999999999d"\n', "key 'flush_idle'", id="huge-duration"),
    pytest.param(b"[retry]\nmax_delay = inf\n", "key 'retry.max_delay'", id="infinite-duration"),
    pytest.param(b'database_url = "not a url"\n', "key 'database_url': not a database URL", id="url-not-a-url"),
    pytest.param(b'database_url = "postgresql+psycopg2://db/x"\n', "key 'database_url': no driver", id="url-missing-driver"),
    pytest.param(b'database_url = "sqlite:////nonexistent-consolidator/x.db"\n', "key 'database_url': cannot open",
                 id="url-unopenable-file"),
    pytest.param(b'timezone = "' + b"A" * 300 + b'"\n', "key 'timezone': unknown time zone", id="timezone-300-chars"),
    pytest.param(b'plugins = ["os:sep"]\n', "key 'plugins': plugin 'os:sep': sep is a str, not a factory", id="plugin-not-factory"),
    pytest.param(b'[model]\nprovider = "anthropic"\n', "key 'model.provider'", id="anthropic-without-key"),
    pytest.param(b"[facts]\nscore_floor = inf\n", "key 'facts.score_floor'", id="score-floor-inf"),
    pytest.param(b"[facts]\nscore_floor = 11\n", "key 'facts.score_floor'", id="score-floor-above-importance"),
    pytest.param(b"[model]\ntimeout_s = inf\n", "key 'model.timeout_s'", id="timeout-inf"),
    pytest.param(b"[ladders]\nbudget_tokens = 10000000000\n", "key 'ladders.budget_tokens'", id="budget-unbounded"),
    pytest.param(b'[daemon]\ntick_interval = "0s"\n', "key 'daemon.tick_interval'", id="tick-zero"),
    pytest.param(b'"a\\nb" = 1\n', "unknown key 'a\\nb'", id="key-with-newline"),
]


@pytest.mark.parametrize("text, said", CONFIG_CASES)
def test_bad_config_is_one_line_naming_file_and_key(app, tmp_path, state_dir, text, said):
    """Each bad configuration stops `run --once` with exit 2 and one line naming the file and the key; the log is untouched."""
    seed(app)
    config = tmp_path / "bad.toml"
    config.write_bytes(text)
    result = run_with(config, "run", "--once", env={"CONSOLIDATOR_STATE_DIR": str(state_dir)})
    assert result.exit_code == 2
    line = one_error(result)
    assert line.startswith(f"Error: {config}") and said in line, line
    assert message_count(app) == 3


# --- unusable state directories: exit 2 naming the path ---------------------------------------


@pytest.mark.parametrize("where, said", [
    pytest.param("{file}/state", "cannot create it: Not a directory", id="under-a-file"),
    pytest.param("{file}", "exists and is not a directory", id="is-a-file"),
    pytest.param("/proc/consolidator-state", "cannot create it", id="under-proc"),
    pytest.param("{tmp}/x\x00y", "not a usable path", id="nul-byte"),
])
def test_unusable_state_dir_is_one_line_naming_it(tmp_path, where, said):
    """`log`, `status` and `run --once` refuse an unusable state directory with exit 2 naming it; nothing is created."""
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    state = where.format(file=a_file, tmp=tmp_path)
    config = tmp_path / "config.toml"  # a NUL byte cannot travel in the environment, so: the config file
    config.write_text(f"state_dir = {json.dumps(state)}\n", encoding="utf-8")
    for command in (["log", "--scope", "maya", "--role", "user", "hi"], ["status"], ["run", "--once"]):
        result = run_with(config, *command)
        assert result.exit_code == 2, command
        line = one_error(result)
        assert said in line and f"state_dir {repr(state)[1:-1]} (from {config}" in line
    assert a_file.read_text() == "x"


@pytest.fixture
def world_readable_dir():
    """A directory under /tmp that any user may enter (pytest's own are 0700)."""
    path = Path(tempfile.mkdtemp(prefix="consolidator-perm-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root")
def test_state_dir_without_permission_is_one_line(world_readable_dir):
    """A user who may not enter or write the state directory gets exit 2 naming it, in a child process as 'nobody'."""
    private = world_readable_dir / "private"
    (private / "state").mkdir(parents=True)
    private.chmod(0o700)
    shared = world_readable_dir / "shared"
    shared.mkdir()
    outcomes = [_as_nobody(["status"], private / "state"), _as_nobody(["log", "--scope", "a", "--role", "user", "x"], shared)]
    assert outcomes[0][0] == 2 and "Permission denied" in outcomes[0][1] and str(private / "state") in outcomes[0][1]
    assert outcomes[1][0] == 2 and "no permission to write in it" in outcomes[1][1] and str(shared) in outcomes[1][1]
    assert not any("Traceback" in text for _, text in outcomes)


def _as_nobody(args: list[str], state: Path) -> tuple[int, str]:
    """Run the CLI in a forked child that switched to uid/gid 65534; (exit code, stderr)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 99
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.chdir("/")
            result = CliRunner().invoke(cli, args, env={"CONSOLIDATOR_STATE_DIR": str(state)}, catch_exceptions=True)
            os.write(write, json.dumps([result.exit_code, result.stderr + repr(result.exception)]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    code, text = json.loads(data)
    return code, text


# --- run --once, log levels, standby --------------------------------------------------------------


@pytest.mark.slow
def test_run_once_exits_1_when_a_step_failed(app, tmp_path, state_dir):
    """A step that fails makes `run --once` exit 1 with one line saying how many batches are not done."""
    seed(app)
    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{state_dir}"\nplugins = ["tests.support.plugins:failing_steps"]\n[retry]\nmax_attempts = 1\n')
    result = run_with(config, "run", "--once")
    assert result.exit_code == 1
    assert one_error(result) == ("error: 1 batch not done: 0 with a step retrying, 1 with a step failed "
                                 "(see `consolidator status`; `consolidator retry` re-arms failed steps)")


@pytest.mark.slow
def test_run_once_exits_1_while_a_window_is_held(app, run_cli):
    """A held ladder window makes `run --once` exit 1 naming its scope; with nothing held it exits 0."""
    seed(app)
    assert run_cli("run", "--once").exit_code == 0
    with transaction(app.engine) as session:
        session.add(LadderHold(scope="maya", ladder="time", rung="week", key="w9999", attempts=1,
                               next_at=T0 + timedelta(days=36500), reason="summary call failed"))
    result = run_cli("run", "--once")
    assert result.exit_code == 1
    assert one_error(result).startswith("error: 1 ladder window held after a failed or deferred summary call (scopes: maya)")


@pytest.mark.slow
def test_run_logs_at_the_level_its_help_states(app, run_cli):
    """--help says `run` logs at info by default; `--log-level warning run --once` prints no info line."""
    seed(app)
    assert "[default: info for `run`, warning otherwise]" in " ".join(run_cli("--help").stdout.split())
    assert '"level": "info"' in run_cli("run", "--once").stderr
    structlog.reset_defaults()
    quiet = run_cli("--log-level", "warning", "run", "--once")
    assert quiet.exit_code == 0 and '"level": "info"' not in quiet.stderr


def test_a_standby_daemon_says_so_once_at_info(app):
    """A daemon that finds the lease held logs daemon.standby at info once, then stays quiet at that level."""
    seed(app)
    other = lease.Holder(holder="elsewhere:1:daemon", host="elsewhere", pid=1)
    assert lease.acquire(app.engine, other, datetime.now(timezone.utc), timedelta(minutes=5))
    daemon = Daemon(build_consolidator(app))
    structlog.reset_defaults()
    with capture_logs() as logs:
        daemon._tick()
        daemon._tick()
    standby = [(e["event"], e["log_level"], e.get("active")) for e in logs if e["event"] == "daemon.standby"]
    assert standby == [("daemon.standby", "info", "elsewhere:1:daemon"), ("daemon.standby", "debug", None)]


# --- unknown input: exit 2 saying what is valid -----------------------------------------------------


@pytest.mark.parametrize("command", [
    ["retry", "--scope", "nobody"], ["snapshot", "--scope", "nobody", "facts"], ["contacts", "--scope", "nobody"],
    ["tasks", "--scope", "nobody"], ["facts", "--scope", "nobody"],
    ["summaries", "--scope", "nobody", "--ladder", "time", "--rung", "day"],
])
def test_unknown_scope_is_refused(app, run_cli, command):
    """Commands about one scope refuse a scope without messages, naming the known ones."""
    seed(app)
    result = run_cli(*command)
    assert result.exit_code == 2
    assert one_error(result) == "Error: --scope: unknown scope 'nobody' (known: maya)"


def test_retry_validates_the_scope_name(app, run_cli):
    """`retry --scope ../x` is refused as an invalid name."""
    result = run_cli("retry", "--scope", "../x")
    assert result.exit_code == 2 and "invalid scope '../x'" in one_error(result)


def test_snapshot_names_the_valid_views(app, run_cli):
    """An unknown view exits 2 listing the valid ones; a valid one not published yet exits 1."""
    seed(app)
    unknown = run_cli("snapshot", "--scope", "maya", "time/fortnight")
    assert unknown.exit_code == 2
    assert "unknown view 'time/fortnight' (valid: context.md, facts, contacts, tasks, time/day, time/week" in one_error(unknown)
    missing = run_cli("snapshot", "--scope", "maya", "time/week")
    assert missing.exit_code == 1 and "no snapshot time/week.json for scope maya yet" in missing.stderr


def test_mark_used_with_an_unknown_fact_id_queues_nothing(app, run_cli):
    """`mark-used` with an id that is no fact of the scope exits 2 naming it, and queues no use."""
    seed(app)
    result = run_cli("mark-used", "--scope", "maya", "f_0000000000000000")
    assert result.exit_code == 2
    assert one_error(result) == "Error: FACT_IDS: unknown fact id in scope 'maya': f_0000000000000000; nothing was queued"
    with reading(app.engine) as session:
        assert session.execute(select(func.count()).select_from(FactUse)).scalar_one() == 0


def test_log_with_a_known_id_and_other_text_says_so(app, run_cli):
    """`log --id K` again with the same text is idempotent; with another text it exits 2 and keeps the first."""
    args = ["log", "--scope", "maya", "--role", "user", "--id", "k1"]
    first = run_cli(*args, "I moved to Paris.")
    assert first.exit_code == 0 and run_cli(*args, "I moved to Paris.").stdout == first.stdout
    changed = run_cli(*args, "I moved to Rome.")
    assert changed.exit_code == 2
    assert one_error(changed) == ("Error: --id: 'k1' is already logged in scope 'maya' with a different text; "
                                  "nothing was changed (use a new --id)")
    with reading(app.engine) as session:
        assert [m.text for m in session.execute(select(Message)).scalars()] == ["I moved to Paris."]


def test_import_json_reports_a_refused_file_as_json(app, run_cli, tmp_path):
    """`import --json` of a file with a bad line prints a JSON report (rejected, the invalid lines) and exits 2."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"scope": "maya", "role": "user", "text": "hi", "at": "2025-03-03T09:00:00+00:00"}\nnot json\n')
    result = run_cli("import", "--json", str(bad))
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["rejected"] is True and report["added"] == 0 and len(report["invalid"]) == 1
    assert "(1 invalid line)" in result.stderr


# --- wording ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_counts_are_said_in_the_right_number(app, run_cli):
    """One message, one interaction, one use, zero steps: singular and plural as they should be."""
    seed(app, count=1)
    assert run_cli("run", "--once").exit_code == 0
    assert "maya: 1 message, 1 interaction, 0 pending" in run_cli("status").stdout
    assert run_cli("retry").stdout == "re-armed 0 failed steps\n"


def test_status_model_table_is_aligned():
    """Every row of the model table has its columns where the header has them, even for long operation names."""
    totals = {"calls": 3, "input_tokens": 12345, "output_tokens": 678, "cost_usd": 0.0123, "errors": 1,
              "cache_read_tokens": 0, "today": {"calls": 1}}
    ops = {name: {"calls": 1, "today_calls": 1, "input_tokens": 4115, "output_tokens": 226, "cost_usd": 0.0041}
           for name in ("consolidate_batch", "summarize", "update_contacts")}
    budget = {"day": "2025-03-03", "limit_usd": None, "limit_tokens": None, "spent_usd": 0.0, "spent_tokens": 0,
              "deferred": []}
    lines = format_usage({**totals, "by_operation": ops, "budget": budget})[:-1]
    ends = {len(line.split("  (")[0]) for line in lines}
    assert len(ends) == 1, lines
    assert lines[-1].endswith("(1 error)")
