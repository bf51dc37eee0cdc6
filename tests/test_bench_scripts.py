"""Every bench script starts as README and DESIGN.md run it: `python bench/NAME.py` from the
repository root (not `python -m bench.NAME`), so the bench and tests.support packages must be
importable from the script itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "bench").glob("*.py") if '__name__ == "__main__"' in p.read_text(encoding="utf-8"))


def test_the_bench_has_scripts() -> None:
    assert len(SCRIPTS) > 10 and ROOT / "bench" / "ladders.py" in SCRIPTS


@pytest.mark.subprocess
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_bench_script_starts_from_its_path(script: Path) -> None:
    result = subprocess.run([sys.executable, str(script.relative_to(ROOT)), "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage:" in result.stdout
