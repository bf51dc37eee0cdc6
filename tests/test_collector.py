"""The command line tunes the process's garbage collector; the library leaves a program's alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LIBRARY = """
import gc, json
before = gc.get_threshold()
import consolidator
from consolidator import read_context, recall
import consolidator.runtime.tick, consolidator.model.offline
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count()}))
"""

COMMAND_LINE = """
import gc, json, sys
from click.testing import CliRunner
from consolidator.cli.main import cli
before = gc.get_threshold()
first = CliRunner().invoke(cli, ["--config", sys.argv[1], "status", "--json"])
frozen = gc.get_freeze_count()
CliRunner().invoke(cli, ["--config", sys.argv[1], "status", "--json"])
print(json.dumps({"exit": first.exit_code, "before": before, "after": gc.get_threshold(), "frozen": frozen,
                  "frozen_again": gc.get_freeze_count()}))
"""


def _probe(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.subprocess
def test_importing_the_library_leaves_the_collector_alone() -> None:
    seen = _probe(LIBRARY)
    assert seen["after"] == seen["before"] and seen["frozen"] == 0


@pytest.mark.subprocess
def test_the_command_line_freezes_its_start_up_and_collects_young_objects_in_bulk(tmp_path) -> None:
    from consolidator.runtime.collector import YOUNG_THRESHOLD

    config = tmp_path / "config.toml"
    config.write_text(f'state_dir = "{tmp_path / "state"}"\n')
    seen = _probe(COMMAND_LINE, str(config))
    assert seen["exit"] == 0
    assert seen["before"][0] != YOUNG_THRESHOLD and seen["after"] == [YOUNG_THRESHOLD, *seen["before"][1:]]
    assert seen["frozen"] > 10_000  # the imported code, out of the collector's walks
    # once a process: a second invocation freezes nothing more (frozen objects freed meanwhile leave it)
    assert seen["frozen_again"] <= seen["frozen"]
