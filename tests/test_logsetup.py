"""Every log line is JSON through one renderer: the project's events and the libraries' loggers alike."""

from __future__ import annotations

import pytest

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import logging
from consolidator.runtime import logsetup
logsetup.configure("info", json=True)
import wordllama  # calls logging.basicConfig(level=INFO) when imported
import structlog
structlog.get_logger().info("project.event", scope="maya")
logging.getLogger("apscheduler.executors.default").info("Job executed successfully")  # below WARNING: left out
logging.getLogger("apscheduler.scheduler").warning("Run time of job was missed by 0:00:07")
logging.getLogger("sqlalchemy.pool").warning("pool overflow")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("some.library").exception("it broke")
"""


@pytest.mark.slow
@pytest.mark.subprocess
def test_library_log_lines_are_json_like_ours() -> None:
    """After configure(), stdlib loggers (apscheduler, SQLAlchemy, a library's exception) print JSON lines,
    a library's basicConfig adds no plain handler, and apscheduler's per-job INFO lines are left out."""
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, check=True)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # a plain-text line fails here
    events = [r["event"] for r in records]
    assert events == ["project.event", "Run time of job was missed by 0:00:07", "pool overflow", "it broke"]
    assert records[1]["logger"] == "apscheduler.scheduler" and records[1]["level"] == "warning"
    assert "ZeroDivisionError" in records[3]["exception"] and "timestamp" in records[3]
