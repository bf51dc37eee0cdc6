"""Several processes appending to one SQLite log at once, with a status reader alongside."""

from __future__ import annotations

import pytest

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from sqlalchemy import select

from consolidator.core.app import App
from stores.engine import reading
from stores.schema.log import Message

WRITERS = 4
PER_WRITER = 5_000
# Writers 0 and 1 alternate between their own scope and "shared"; 2 and 3 write only their own.
SCOPES = {0: ["w0", "shared"], 1: ["w1", "shared"], 2: ["w2"], 3: ["w3"]}

WRITER = r"""
import json, sys, traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path
from consolidator import MessageLog
from consolidator.core.config import Settings

state_dir, writer, count, scopes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
errors = []
log = MessageLog(settings=Settings(state_dir=Path(state_dir)))
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    try:
        log.append(scope=scopes[i % len(scopes)], role="user", text=f"writer {writer} message {i}",
                   at=t0 + timedelta(seconds=i), speaker=f"w{writer}")
    except Exception:
        errors.append(traceback.format_exc())
log.close()
print(json.dumps({"errors": errors[:5], "error_count": len(errors)}), flush=True)
"""

READER = r"""
import json, sys, traceback
from pathlib import Path
from click.testing import CliRunner
from consolidator.cli.main import cli

stop, total = Path(sys.argv[1]), int(sys.argv[2])
runner = CliRunner()
runs, errors, seen, last = 0, [], set(), 0
print("ready", flush=True)
while True:
    finished = stop.exists()
    result = runner.invoke(cli, ["status", "--json"])
    runs += 1
    try:
        assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
        report = json.loads(result.stdout)
        messages = sum(s["messages"] for s in report["scopes"].values())
        assert messages >= last, ("went backwards", last, messages)
        last = messages
        seen.add(messages)
    except Exception:
        errors.append(traceback.format_exc())
    if finished:
        break
print(json.dumps({"runs": runs, "errors": errors[:5], "error_count": len(errors),
                  "intermediate": sorted(n for n in seen if 0 < n < total)[:3], "last": last}), flush=True)
"""


def spawn(script: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    assert ready == "ready\n", (ready, proc.stderr.read() if proc.stderr else "")
    return proc


def finish(proc: subprocess.Popen[str], timeout: float = 180) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
def test_four_writers_and_a_status_reader(app: App, state_dir: Path, cli_env: dict[str, str], tmp_path: Path) -> None:
    """4 processes x 5,000 appends end with exactly 20,000 messages, dense per-scope seq, no errors anywhere."""
    total = WRITERS * PER_WRITER
    stop = tmp_path / "stop"
    writers = [spawn(WRITER, [str(state_dir), str(w), str(PER_WRITER), ",".join(SCOPES[w])], cli_env)
               for w in range(WRITERS)]
    reader = spawn(READER, [str(stop), str(total)], cli_env)
    for proc in writers:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    try:
        results = [finish(proc) for proc in writers]
    finally:
        stop.touch()
        for proc in writers:
            if proc.poll() is None:
                proc.kill()
        read = finish(reader)
    print(f"status runs during the writes: {read['runs']}")

    assert [r["error_count"] for r in results] == [0] * WRITERS, [r["errors"] for r in results]
    assert read["error_count"] == 0, read["errors"]
    assert read["intermediate"], "the reader never saw the log while it was being written"
    assert read["last"] == total

    with reading(app.engine) as session:
        rows = session.execute(select(Message.scope, Message.seq, Message.speaker, Message.text)).all()
    assert len(rows) == total
    by_scope: dict[str, list[int]] = defaultdict(list)
    by_writer: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for scope, seq, speaker, text in rows:
        by_scope[scope].append(seq)
        by_writer[(scope, speaker)].append((int(text.rsplit(" ", 1)[1]), seq))
    expected_sizes = {"w0": PER_WRITER // 2, "w1": PER_WRITER // 2, "shared": PER_WRITER, "w2": PER_WRITER,
                      "w3": PER_WRITER}
    assert {scope: len(seqs) for scope, seqs in by_scope.items()} == expected_sizes
    for scope, seqs in by_scope.items():
        assert sorted(seqs) == list(range(1, len(seqs) + 1)), scope
    for key, pairs in by_writer.items():
        pairs.sort()
        assert [seq for _, seq in pairs] == sorted(seq for _, seq in pairs), f"{key}: seq not in arrival order"
    assert {speaker for scope, speaker in by_writer if scope == "shared"} == {"w0", "w1"}
